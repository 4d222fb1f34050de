# SPDX-License-Identifier: GPL-2.0
#
# The emulated-PMU selftests (selftests/pmu/): static programs for the
# QEMU guests whose patched QEMU emulates a counting Intel PMU (-cpu
# MODEL,pmu=on), built into build/vmtests-pmu/ (VMTESTS_PMU, which the
# rig's mk/vm.mk boots with the default, MSR-backend pmuctl.ko and msr.ko).
#   emu_test          the emulation itself: CPUID.0AH, exact counts, widths,
#                     wraps, the registers' #GP rules, rdpmc (MSR writes
#                     through /dev/cpu/0/msr)
#   perf_oracle_test  perf as the oracle: perf_event_open, perf's mmap
#                     rdpmc page, PMI sampling, and pmuctl through
#                     libpmuctl counting the same known code exactly
#   task_test         task scope (PMUCTL_PROGRAM_TASK) against known counts
#                     (task_asm.S) and perf's per-thread counts: switches,
#                     migration, rdpmc isolation, inheritance, exec, kill,
#                     ENABLE_ON_EXEC, task_bits; raw ioctls, no libpmuctl
#   regions_test      libpmuctl's regions around known code (loop_asm.S):
#                     exact per thread, inherited threads across migrations,
#                     nesting, a thread the session does not count
#   perf_v6_test      (build/vmtests-v6/ only) pmuctl beside perf's driver
#                     on a perfmon v6 PMU under Linux 6.11+ (below)
#   reload_test       (a busybox sh script, here and in build/vmtests-v6/)
#                     the module unloaded and loaded again 40 times (10
#                     under the debug kernels), then counting
# The same binaries are copied into build/tests/ as pmu-NAME so that
# "make check" runs them on the host, where each is one SKIP decided in
# main() (no emulated PMU).  Build one alone with
#   make build/vmtests-pmu/emu_test
# Included by the top Makefile, which defines CC, CFLAGS and KSFT_CFLAGS;
# build/lib/libpmuctl.a comes from mk/lib.mk.

PMU_TEST_NAMES := emu perf_oracle task regions
PMU_VMTESTS := $(PMU_TEST_NAMES:%=build/vmtests-pmu/%_test)
PMU_HOSTTESTS := $(PMU_TEST_NAMES:%=build/tests/pmu-%_test)
# selftests/hw/hw.c: the helpers the hardware tests already have.
PMU_LIB := selftests/pmu/pmu.c selftests/hw/hw.c
PMU_DEPS := $(PMU_LIB) selftests/pmu/pmu.h selftests/hw/hw.h selftests/hw/emulated.h \
	    build/lib/libpmuctl.a user/libpmuctl.h uapi/linux/pmuctl.h

VMTESTS_PMU += $(PMU_VMTESTS)
TESTS += $(PMU_HOSTTESTS)

build/vmtests-pmu/emu_test: selftests/pmu/emu_test.c $(PMU_DEPS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(PMU_LIB) \
		build/lib/libpmuctl.a -lpfm

build/vmtests-pmu/perf_oracle_test: selftests/pmu/perf_oracle_test.c $(PMU_DEPS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(PMU_LIB) \
		build/lib/libpmuctl.a -lpfm

build/vmtests-pmu/task_test: selftests/pmu/task_test.c selftests/pmu/task_asm.S \
			     selftests/pmu/task.h $(PMU_DEPS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< \
		selftests/pmu/task_asm.S $(PMU_LIB) build/lib/libpmuctl.a -lpfm

build/vmtests-pmu/regions_test: selftests/pmu/regions_test.c selftests/pmu/loop_asm.S \
			       $(PMU_DEPS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< \
		selftests/pmu/loop_asm.S $(PMU_LIB) build/lib/libpmuctl.a -lpfm

# The perfmon v6 guests (build/vmtests-v6/, mk/tool_tests.mk) run
# perf_v6_test: pmuctl's counts and registers beside perf's driver, which
# pmuctl's sentinel keeps from scheduling events but not from writing
# GLOBAL_CTRL and FIXED_CTR_CTRL (selftests/pmu/perf_v6_test.c); one SKIP
# anywhere else (not v6, Linux < 6.11, no emulated PMU).
VMTESTS_PMU += build/vmtests-v6/perf_v6_test
TESTS += build/tests/pmu-perf_v6_test

build/vmtests-v6/perf_v6_test: selftests/pmu/perf_v6_test.c selftests/pmu/task_asm.S \
			       selftests/pmu/task.h $(PMU_DEPS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< \
		selftests/pmu/task_asm.S $(PMU_LIB) build/lib/libpmuctl.a -lpfm

build/tests/pmu-perf_v6_test: build/vmtests-v6/perf_v6_test
	@mkdir -p $(@D)
	cp -f $< $@

# The reload script, as it is (check.sh runs it on the host: a SKIP).
VMTESTS_PMU += build/vmtests-pmu/reload_test build/vmtests-v6/reload_test

build/vmtests-pmu/reload_test build/vmtests-v6/reload_test: selftests/pmu/reload_test.sh
	@mkdir -p $(@D)
	cp -f $< $@
	chmod 0755 $@

$(PMU_HOSTTESTS): build/tests/pmu-%: build/vmtests-pmu/%
	@mkdir -p $(@D)
	cp -f $< $@
