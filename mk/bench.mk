# SPDX-License-Identifier: GPL-2.0
#
# "make bench": what libpmuctl's inline read path costs.  A benchmark, not
# a test: it prints a table and fails only when a budget of the read path
# is exceeded.
#  1. static: selftests/bench/readpath.c, one out-of-line copy of each read
#     function compiled with the project's CFLAGS, disassembled and
#     counted by scripts/bench.sh (rdpmc and other instructions against
#     the budgets: 3 for one counter, 25 for 7; libpfc's 37 for scale);
#  2. timed: build/bench/vm/compare-papi (selftests/bench/compare.c with
#     Debian's static libpapi and libperf, built by mk/bench_guest.mk),
#     libpmuctl against perf, libperf and PAPI on this host's PMU, cycles
#     per operation (1st percentile, median, 99th of 10^5 samples a row);
#     it says why each row is skipped otherwise, and under QEMU TCG times
#     nothing (PAPI with perf's rdpmc off needs root and -r: doc/cost.md);
#  3. in emulated-PMU guests (scripts/bench-guest.sh): the ioctls,
#     syscalls and cross-CPU call waves per operation (waves_test); the
#     instructions (user, kernel), system calls and MSR accesses of every
#     operation, pmuctl beside perf, PAPI and LIKWID, counted by a TCG
#     plugin (compare -i, taskswitch -i, likwid5-cost) or the emulated
#     PMU (regions-cost), with the targets; then in a register-model guest
#     the MSR writes per context switch of a monitored thread.  Every
#     counted row goes to build/bench/results.json and, drawn by gnuplot,
#     build/bench/cost.png (doc/cost.md).
# The same static counts are a check: build/tests/bench-readpath_test
# (selftests/bench/readpath_test.sh) runs scripts/bench.sh --tap on
# readpath.o and on copies with instructions injected, which must fail.
# Included by the top Makefile, which defines CC and CFLAGS first.

BENCH_DEPS := selftests/bench/readpath.c selftests/bench/readpath.h \
	      user/libpmuctl.h uapi/linux/pmuctl.h

# Objects with instructions injected (readpath.c READPATH_INJECT_*): the
# test expects each to break the rules it names.
BENCH_INJECT := nops1 nops4 nops5 nops9 call jmp syscall lock rdpmc
BENCH_INJECT_OBJS := $(BENCH_INJECT:%=build/bench/inject/readpath-%.o)
bench_inject_nops1 := -DREADPATH_INJECT_NOPS=1
bench_inject_nops4 := -DREADPATH_INJECT_NOPS=4
bench_inject_nops5 := -DREADPATH_INJECT_NOPS=5
bench_inject_nops9 := -DREADPATH_INJECT_NOPS=9
bench_inject_call := -DREADPATH_INJECT_CALL
bench_inject_jmp := -DREADPATH_INJECT_JMP
bench_inject_syscall := -DREADPATH_INJECT_SYSCALL
bench_inject_lock := -DREADPATH_INJECT_LOCK
bench_inject_rdpmc := -DREADPATH_INJECT_RDPMC

TESTS += build/tests/bench-readpath_test

.PHONY: bench

#: the read path's cost: instructions, vs perf, in a guest
bench: build/bench/readpath.o build/bench/compare build/vmtests/waves_test \
       build/bench/vm/compare build/bench/vm/taskswitch \
       build/bench/vm/regions-cost build/bench/vm/papi-cost build/bench/vm/papi7-cost \
       build/bench/vm/likwid5-cost build/bench/vm/compare-papi
	@bash scripts/bench.sh build/bench/readpath.o
	@echo
	@rm -f build/bench/timed.rows
	@build/bench/vm/compare-papi -t build/bench/timed.rows
	@echo
	@BENCH_TIMED=build/bench/timed.rows bash scripts/bench-guest.sh

build/bench/readpath.o: $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BENCH_INJECT_OBJS): build/bench/inject/readpath-%.o: $(BENCH_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(bench_inject_$*) -c -o $@ $<

build/tests/bench-readpath_test: selftests/bench/readpath_test.sh \
				 scripts/bench.sh build/bench/readpath.o \
				 $(BENCH_INJECT_OBJS)
	@mkdir -p $(@D)
	install -m 755 $< $@
