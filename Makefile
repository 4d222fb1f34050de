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

# The main job.  Until pmuctl.ko exists, show the rules it will enforce:
# the offline checker runs the module's core on sample events.
run: build/bin/pmuctl
	@echo "pmuctl.ko is not built yet; this is the offline checker running the"
	@echo "same core the module will run (no device, no root):"
	@echo
	@set -x; build/bin/pmuctl check --pmu knm r301b7:4000000001 r500c4; \
	build/bin/pmuctl check --pmu knm --group \
		offcore_response_0:dmnd_data_rd:outstanding \
		offcore_response_1:dmnd_data_rd:any_response \
		instructions_retired:u unhalted_core_cycles:u; \
	build/bin/pmuctl check --pmu skl --group \
		offcore_response_0:dmnd_data_rd:any_response \
		offcore_response_0:dmnd_rfo:any_response \
		offcore_response_0:dmnd_code_rd:any_response; true

clean:
	rm -rf build
