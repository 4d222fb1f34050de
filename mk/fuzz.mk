# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer of interleavings (selftests/fuzz/fuzz.c): a static program in
# build/vmtests-fuzz/ that "make fuzz FUZZ_SECS=N [FUZZ_SEED=S]
# [FUZZ_REPLAY='STEP;...']" runs alone for N seconds (default 60) in the
# debug guest (6.12, Skylake-Server, register model: lockdep, KASAN,
# kmemleak and the module's gcov), printing its steps/second, what broke
# (seed, step, a shortened replay) and the module's line coverage.  It is
# not in "make check"'s guests yet: some of what it reports is still being
# told apart from the limits the README documents (doc/fuzzing.md).  A
# copy in build/tests/ is one SKIP on the host: "make check" builds it.
# Included by the top Makefile (CC, CFLAGS, KSFT_CFLAGS, CORE_HDRS).

FUZZ_SECS ?= 60
FUZZ_VMTEST := build/vmtests-fuzz/fuzz_test

TESTS += build/tests/fuzz_test

$(FUZZ_VMTEST): selftests/fuzz/fuzz.c selftests/device/lib.c selftests/device/lib.h $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< selftests/device/lib.c

build/tests/fuzz_test: $(FUZZ_VMTEST)
	@mkdir -p $(@D)
	cp -f $< $@

vmtests: $(FUZZ_VMTEST)

.PHONY: fuzz

#: the fuzzer, FUZZ_SECS s (default 60) in the debug guest
fuzz: $(FUZZ_VMTEST)
	@rc=0; bash scripts/vm/run.sh -D -c Skylake-Server -l fuzz \
		-t build/vmtests-fuzz -T $$(($(FUZZ_SECS) + 300)) \
		-a "pmuctl_fuzz.secs=$(FUZZ_SECS)$(if $(FUZZ_SEED), pmuctl_fuzz.seed=$(FUZZ_SEED))$(if $(FUZZ_REPLAY), pmuctl_fuzz.replay=$(FUZZ_REPLAY))" \
		$(VM_ARGS) || rc=1; \
	grep -h '^# \|^ok\|^not ok' build/logs/vm-6.12-debug-Skylake-Server.fuzz-fuzz_test.tap || rc=1; \
	bash scripts/vm/coverage.sh -o build/logs/fuzz-coverage.txt \
		build/logs/gcov/vm-6.12-debug-Skylake-Server.fuzz || rc=1; \
	exit $$rc
