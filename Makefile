# SPDX-License-Identifier: GPL-2.0
#
# pmuctl top-level Makefile (GNU make).
#
# The kernel module is built by kbuild from the Kbuild file:
#   make -C /lib/modules/$(uname -r)/build M=$PWD
# kbuild reads Kbuild in preference to this file, so nothing here is seen
# by that build.

KSRC ?= build/ksrc

CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 -Iuapi -Ikmod/core -Iuser
# The 6.1 kselftest harness trips -Wunused-parameter inside its own macros.
KSFT_CFLAGS := -I$(KSRC)/tools/testing/selftests -Wno-unused-parameter
CORE_SRCS := $(wildcard kmod/core/*.c)
CORE_HDRS := $(wildcard kmod/core/*.h) uapi/linux/pmuctl.h

# Each fragment adds its programs to TESTS (run by make check) or BINS.
TESTS :=
BINS :=
include $(sort $(wildcard mk/*.mk))

.PHONY: all check tests deps ksrc run clean

all: tests

# Install missing packages, fetch kernel files, build and run every test.
# The last line printed is "P passed, F failed, S skipped".
check:
	@KSRC=$(KSRC) MAKE="$(MAKE)" bash scripts/check.sh

# Build every test program into build/tests/ and the tools into build/bin/.
tests: $(TESTS) $(BINS)

build/tests build/bin:
	@mkdir -p $@

deps:
	@bash scripts/deps.sh core kernel

# Extract kselftest_harness.h, checkpatch.pl and friends into $(KSRC).
ksrc:
	@bash scripts/ksrc.sh $(KSRC)

run:
	@echo "run: would build the kernel module, boot it in QEMU and run the device selftests;"
	@echo "run: the module does not exist yet, so there is nothing to run."

clean:
	rm -rf build
