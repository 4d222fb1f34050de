# SPDX-License-Identifier: GPL-2.0
#
# "make module" (and plain "make"): pmuctl.ko for the running kernel, by
# kbuild as an external module (make -C KDIR M=DIR), in build/kmod/:
#   build/kmod/           a copy of what kbuild needs (Kbuild, kmod/,
#                         uapi/: DKMS_FILES of mk/install.mk), refreshed
#                         file by file, so the source tree gets no objects
#                         and an unchanged source rebuilds nothing;
#   build/kmod/pmuctl.ko  the module, the default (MSR) build.
# KDIR is the kernel's build tree, /lib/modules/$(uname -r)/build by
# default (Debian: package linux-headers-$(uname -r)); give another to
# build for another kernel.  When KDIR is not there, one line says so and
# the module is skipped: make still exits 0, with the library and the tool.
# The line that says so names the kernel as its modules' vermagic does
# (UTS_RELEASE: Debian's kernel.release file says 6.1.192 for 6.1.0-56-amd64).
# Load it with "sudo insmod build/kmod/pmuctl.ko" (or "make run", which
# builds its own and explains what the host lacks).
# selftests/make/fresh_clone.sh builds it on a fresh clone beside the
# product, and the skip.
# Included by the top Makefile after mk/install.mk (DKMS_FILES).

KDIR ?= /lib/modules/$(shell uname -r)/build
KMOD_DIR := build/kmod
KMOD_FILES := $(DKMS_FILES:%=$(KMOD_DIR)/%)

.PHONY: module

$(KMOD_FILES): $(KMOD_DIR)/%: %
	@mkdir -p $(@D)
	@cp -f $< $@

# Not the variables of this make's command line (CC=, CFLAGS=, KSRC=...):
# kbuild builds with the kernel's own compiler and flags.
module: MAKEOVERRIDES =
#: pmuctl.ko alone, in build/kmod/ (KDIR= another kernel)
module: $(KMOD_FILES)
	@if [ ! -d '$(KDIR)' ]; then \
		echo "pmuctl.ko: skipped: no kernel build tree at $(KDIR) (install linux-headers-$$(uname -r), or give KDIR=/path/to/kernel/build)"; \
		exit 0; \
	fi; \
	$(MAKE) -C '$(KDIR)' M='$(CURDIR)/$(KMOD_DIR)' modules && \
	echo "pmuctl.ko: $(KMOD_DIR)/pmuctl.ko for kernel $$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' '$(KDIR)/include/generated/utsrelease.h' 2>/dev/null)"
