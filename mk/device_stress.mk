# SPDX-License-Identifier: GPL-2.0
#
# /dev/pmuctl under load (selftests/device/): stress_test (random sessions,
# random ioctls, SIGKILL), reload_test (module unload/reload, the default
# build refusing a guest without a PMU) and hotplug_test (CPUs going off and
# on line under sessions).  Static programs, run by the QEMU rig:
#   build/vmtests/          stress_test, reload_test: every -smp 2 guest;
#   build/vmtests-hotplug/  hotplug_test: its own -smp 4 guests, which
#                           "make vmcheck-hotplug" and scripts/check.sh boot
#                           with scripts/vm/run.sh -s 4 -A tcg,thread=single
#                           -l hotplug (one TCG thread: faster for 4 vCPUs).
# As in mk/device_tests.mk, copies in build/tests/ make "make check" run
# them on the host too, where each is one SKIP ("no /dev/pmuctl").
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS,
# CORE_SRCS and CORE_HDRS before including this file.

STRESS_LIB := selftests/device/lib.c selftests/device/load.c
STRESS_HDRS := selftests/device/lib.h selftests/device/load.h $(CORE_HDRS)
STRESS_VMTESTS := build/vmtests/stress_test build/vmtests/reload_test
HOTPLUG_VMTESTS := build/vmtests-hotplug/hotplug_test \
		   build/vmtests-hotplug/task_hotplug_test

VMTESTS += $(STRESS_VMTESTS)
TESTS += build/tests/device-stress_test build/tests/device-reload_test \
	 build/tests/device-hotplug_test build/tests/device-task_hotplug_test

# The core is linked in: the load draws groups that it places (load.h).
$(STRESS_VMTESTS): build/vmtests/%: selftests/device/%.c $(STRESS_LIB) \
		$(STRESS_HDRS) $(CORE_SRCS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(STRESS_LIB) $(CORE_SRCS)

$(HOTPLUG_VMTESTS): build/vmtests-hotplug/%: selftests/device/%.c $(STRESS_LIB) \
		$(STRESS_HDRS) $(CORE_SRCS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(STRESS_LIB) $(CORE_SRCS)

build/tests/device-stress_test build/tests/device-reload_test: \
		build/tests/device-%: build/vmtests/%
	@mkdir -p $(@D)
	cp -f $< $@

build/tests/device-hotplug_test build/tests/device-task_hotplug_test: \
		build/tests/device-%: build/vmtests-hotplug/%
	@mkdir -p $(@D)
	cp -f $< $@

# The hotplug guests' program is built with the others ("make vmtests").
vmtests: $(HOTPLUG_VMTESTS)

.PHONY: vmcheck-hotplug

# Boot the -smp 4 hotplug guests alone; VM_ARGS as for "make vmcheck".
#: the CPU hotplug tests in -smp 4 guests
vmcheck-hotplug: vmtests
	@bash scripts/vm/run.sh $(VM_ARGS) -s 4 -A tcg,thread=single -l hotplug \
		-t build/vmtests-hotplug
