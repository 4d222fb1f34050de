# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer of interleavings (selftests/fuzz/fuzz.c, doc/fuzzing.md): a
# static program in build/vmtests/, so every register-model guest of "make
# check" runs it for its default 6 s (the debug and PREEMPT_RT guests
# included: lockdep, KASAN, kmemleak see what it does), and a copy in
# build/vmtests-pmu/ for the emulated-PMU guests; a copy in build/tests/
# is one SKIP on the host.
# "make fuzz FUZZ_SECS=N [FUZZ_SEED=S] [FUZZ_REPLAY='STEP;...']
# [FUZZ_REPLAY_FILE=F] [FUZZ_EXCLUDE=op,op] [FUZZ_GUIDED=0]" runs it
# alone for N seconds
# (default 60) in the debug guest (6.12, Skylake-Server, register model),
# guided by the module's KCOV coverage unless FUZZ_GUIDED=0, printing its
# steps/second, the module PCs it reached, what broke (seed, step, a
# shortened replay) and the module's line coverage.  A replay longer
# than the kernel command line allows (2 KiB) goes in a file:
# FUZZ_REPLAY_FILE, steps separated by ';' or white space, which the
# guest gets as /bin/fuzz_replay (run.sh -x).  VM_ARGS goes to scripts/vm/run.sh, e.g.
# VM_ARGS='-S DIR' for another tree's module, VM_ARGS=-P for the emulated PMU.
# Included by the top Makefile (CC, CFLAGS, KSFT_CFLAGS, CORE_HDRS).

FUZZ_SECS ?= 60
FUZZ_GUIDED ?= 1
FUZZ_VMTEST := build/vmtests/fuzz_test

VMTESTS += $(FUZZ_VMTEST)
TESTS += build/tests/fuzz_test

$(FUZZ_VMTEST): selftests/fuzz/fuzz.c selftests/fuzz/window.S selftests/device/lib.c \
		selftests/device/lib.h selftests/hw/emulated.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< selftests/fuzz/window.S \
		selftests/device/lib.c

build/tests/fuzz_test: $(FUZZ_VMTEST)
	@mkdir -p $(@D)
	cp -f $< $@

# The emulated-PMU guests run it too (build/vmtests-pmu/, and the
# perfmon v6 ones' build/vmtests-v6/): registers through /dev/cpu/N/msr,
# exact counts of known code, perf events beside; and the -smp 4 hotplug
# guests (build/vmtests-hotplug/), with four CPUs to take off line.
FUZZ_COPIES := build/vmtests-pmu/fuzz_test build/vmtests-v6/fuzz_test \
	       build/vmtests-hotplug/fuzz_test
VMTESTS_PMU += build/vmtests-pmu/fuzz_test build/vmtests-v6/fuzz_test

$(FUZZ_COPIES): $(FUZZ_VMTEST)
	@mkdir -p $(@D)
	cp -f $< $@

vmtests: $(FUZZ_COPIES)

.PHONY: fuzz

# Its own folder of test programs: the fuzzer alone.
#: the fuzzer (KCOV-guided) for FUZZ_SECS s in the debug guest
fuzz: $(FUZZ_VMTEST)
	@rm -rf build/vmtests-fuzz build/fuzz-data && mkdir -p build/vmtests-fuzz build/fuzz-data
	@cp $(FUZZ_VMTEST) build/vmtests-fuzz/
	$(if $(FUZZ_REPLAY_FILE),@cp $(FUZZ_REPLAY_FILE) build/fuzz-data/fuzz_replay)
	@rc=0; bash scripts/vm/run.sh -D -c Skylake-Server -l fuzz \
		$(if $(FUZZ_REPLAY_FILE),-x build/fuzz-data/fuzz_replay) \
		-t build/vmtests-fuzz -T $$(($(FUZZ_SECS) + 300)) \
		-a "pmuctl_fuzz.secs=$(FUZZ_SECS) pmuctl_fuzz.guided=$(FUZZ_GUIDED)$(if $(FUZZ_SEED), pmuctl_fuzz.seed=$(FUZZ_SEED))$(if $(FUZZ_REPLAY), pmuctl_fuzz.replay=$(FUZZ_REPLAY))$(if $(FUZZ_REPLAY_FILE), pmuctl_fuzz.replay=@/bin/fuzz_replay)$(if $(FUZZ_EXCLUDE), pmuctl_fuzz.exclude=$(FUZZ_EXCLUDE))" \
		$(VM_ARGS) || rc=1; \
	grep -h '^# \|^ok\|^not ok' build/logs/vm-6.12-debug-Skylake-Server.fuzz-fuzz_test.tap || rc=1; \
	bash scripts/vm/coverage.sh -o build/logs/fuzz-coverage.txt \
		build/logs/gcov/vm-6.12-debug-Skylake-Server.fuzz || rc=1; \
	exit $$rc
