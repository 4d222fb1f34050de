# SPDX-License-Identifier: GPL-2.0
#
# The /dev/pmuctl selftests (selftests/device/): static programs built into
# build/vmtests/, which the QEMU rig (scripts/vm/run.sh) runs as root in
# each guest next to the register-model pmuctl.ko.  The same binaries are
# copied into build/tests/ as device-NAME so that "make check" runs them on
# the host too, where each is one SKIP ("no /dev/pmuctl") decided in main().
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS and
# CORE_HDRS before including this file.

DEVICE_TEST_NAMES := abi regs sessions rdpmc fault unpriv perf claim lock task
DEVICE_VMTESTS := $(DEVICE_TEST_NAMES:%=build/vmtests/%_test)
DEVICE_HOSTTESTS := $(DEVICE_TEST_NAMES:%=build/tests/device-%_test)
DEVICE_LIB := selftests/device/lib.c selftests/device/lib.h

VMTESTS += $(DEVICE_VMTESTS)
TESTS += $(DEVICE_HOSTTESTS)

$(DEVICE_VMTESTS): build/vmtests/%_test: selftests/device/%_test.c $(DEVICE_LIB) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< selftests/device/lib.c

$(DEVICE_HOSTTESTS): build/tests/device-%_test: build/vmtests/%_test
	@mkdir -p $(@D)
	cp -f $< $@

# The rdpmc grant and the lock run on the emulated PMU too: there rdpmc
# really reads, and the kernel has its sysfs rdpmc file.
DEVICE_PMUTESTS := build/vmtests-pmu/rdpmc_test build/vmtests-pmu/lock_test
VMTESTS_PMU += $(DEVICE_PMUTESTS)

$(DEVICE_PMUTESTS): build/vmtests-pmu/%: build/vmtests/%
	@mkdir -p $(@D)
	cp -f $< $@

vmtests: $(DEVICE_PMUTESTS)
