# SPDX-License-Identifier: GPL-2.0
#
# pmuctl top-level Makefile (GNU make).
#
# "make" builds the product: libpmuctl (shared and static, build/lib/), the
# pmuctl tool (build/bin/pmuctl) and, when the running kernel's headers are
# installed, pmuctl.ko (build/kmod/pmuctl.ko, mk/module.mk); no test, no
# kselftest file, no guest.  "make help" lists every target.
#
# The kernel module is built by kbuild from the Kbuild file:
#   make -C /lib/modules/$(uname -r)/build M=$PWD
# kbuild reads Kbuild in preference to this file, so nothing here is seen
# by that build.
#
# A target a user calls is in .PHONY and has a "#: WHAT IT DOES" line right
# above its rule: "make help" prints those lines, and
# selftests/make/help.sh fails when a target has none.
#
# make install [PREFIX=/usr/local] [DESTDIR=]: the library, its headers and
# libpmuctl.pc, the tool, the man pages, the udev rule, the modprobe.d
# example and the DKMS source tree (mk/install.mk lists where each goes);
# make uninstall with the same variables removes exactly those files.

KSRC ?= build/ksrc
# Absolute: sub-makes (make -C selftests) and scripts resolve it elsewhere.
KSRC := $(abspath $(KSRC))

# The one version of pmuctl: libpmuctl.pc, the DKMS tree and its dkms.conf.
# (The library's soname version is separate: LIB_SOVERSION in mk/lib.mk.)
VERSION := 0.1.0
# Where "make install" puts things (mk/install.mk); DESTDIR stages them.
PREFIX ?= /usr/local

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -Iuapi -Ikmod/core -Iuser
# The 6.1 kselftest harness trips -Wunused-parameter inside its own macros.
KSFT_CFLAGS := -I$(KSRC)/tools/testing/selftests -Wno-unused-parameter
CORE_SRCS := $(wildcard kmod/core/*.c)
CORE_HDRS := $(wildcard kmod/core/*.h) uapi/linux/pmuctl.h

# "make" alone builds "all", whatever rule the fragments below define first.
.DEFAULT_GOAL := all

# What "make", "make tests" and "make install" compile needs Debian
# packages (scripts/deps.sh's group "build"): when one is missing, one line
# names it and the command that installs it, and make exits 2 before any
# compiler error (selftests/make/deps_check.sh).  check, run and deps
# install what they need themselves.
ifneq ($(filter all tests install,$(or $(MAKECMDGOALS),all)),)
DEPS_MISSING := $(shell bash scripts/deps.sh --check build)
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
endif

# Each fragment adds its programs to TESTS (run by make check) or BINS.
TESTS :=
BINS :=
include $(sort $(wildcard mk/*.mk))

.PHONY: all check tests deps ksrc run clean install uninstall help

# The product (the names come from mk/lib.mk and mk/tool.mk; "module" is
# mk/module.mk's).
#: (default) libpmuctl, pmuctl, pmuctl.ko if kernel headers
all: $(LIB_SO) build/lib/libpmuctl.so.$(LIB_SOVERSION) build/lib/libpmuctl.so \
     $(LIB_A) build/bin/pmuctl module
	@echo "built: build/bin/pmuctl, build/lib/$(notdir $(LIB_SO)) and $(notdir $(LIB_A)) (make install puts them in $(PREFIX))"

# Install missing packages, fetch kernel files, build and run every test.
# The last line printed is "P passed, F failed, S skipped".
#: install what is missing, build and run every test
check:
	@KSRC=$(KSRC) MAKE="$(MAKE)" bash scripts/check.sh

# Build every test program into build/tests/ and the tools into build/bin/.
#: build every test program (needs make ksrc first)
tests: $(TESTS) $(BINS)

build/tests build/bin:
	@mkdir -p $@

#: install the Debian packages everything needs (root)
deps:
	@bash scripts/deps.sh all

# Extract kselftest_harness.h, checkpatch.pl and friends into $(KSRC).
#: kselftest harness, checkpatch.pl into build/ksrc (KSRC=)
ksrc:
	@bash scripts/ksrc.sh $(KSRC)

# The main job (scripts/run.sh): on a host with an Intel PMU, build and load
# pmuctl.ko and count a small workload with pmuctl stat; elsewhere, say why
# and count a workload of known instruction count in a QEMU guest on the
# emulated PMU, beside the expected value and perf's count.
# RUN=host or RUN=vm forces one.
#: pmuctl stat on this host's PMU, else in a guest (RUN=)
run:
	@bash scripts/run.sh $(RUN)

#: remove build/: everything made here
clean:
	rm -rf build

# "#: TEXT" above a rule is the target's line here (Makefile, then mk/*.mk).
#: this list
help:
	@echo "make TARGET [VAR=VALUE]..., TARGET one of:"
	@awk '/^#: / { d = substr($$0, 4); next } \
	     d != "" && /^[A-Za-z][A-Za-z0-9_-]*:/ { t = $$0; sub(/:.*/, "", t); \
		printf "  %-16s %s\n", t, d } \
	     { d = "" }' Makefile $(sort $(wildcard mk/*.mk))
