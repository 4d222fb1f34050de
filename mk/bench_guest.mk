# SPDX-License-Identifier: GPL-2.0
#
# The benchmark against perf and its guest proxy (selftests/bench/):
#   build/bench/compare     libpmuctl side by side with perf (and PAPI when
#                           its pkg-config file is installed: Debian
#                           libpapi-dev) on this machine's PMU; "make tests"
#                           builds it so that it compiles under -Werror,
#                           nothing runs it as a test ("make bench" does);
#   build/vmtests/waves_test  system calls, ioctls and cross-CPU call waves
#                           per libpmuctl operation, counted in the QEMU
#                           guests: a test of every -smp 2 guest, and the
#                           table scripts/bench-guest.sh prints from its
#                           one emulated-PMU guest;
#   build/bench/vm/compare  compare, static, for that guest: the timed rows
#                           under QEMU TCG, labelled so (no ratio claimed);
#                           outside build/vmbin/, which every rig guest
#                           carries;
#   build/bench/vm/taskswitch  what task scope costs at a context switch
#                           (taskswitch.c, static): pipe ping-pong timed
#                           without counting, with pmuctl task sessions and
#                           with perf per-thread counting (the emulated-PMU
#                           guest), and -m, MSR writes per switch from the
#                           register model's debugfs log (a register-model
#                           guest); scripts/bench-guest.sh runs both;
#   build/vmbin/workload    the known-count workload (workload.S): 2N + 8D
#                           + 23 user-mode instructions from exec to exit,
#                           no libc; "make run" and the guest tests count it;
#   build/vmbin/perf-count  perf's count of a command (perf_count.c), static,
#                           to print next to pmuctl's in the guests;
#   build/tests/bench-workload_test  the workload's count checked on any
#                           host by single-stepping it (workload_test.c).
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS and
# CORE_HDRS first; mk/lib.mk is read after this file, so the library's
# names are spelled out here.

BENCHG_A := build/lib/libpmuctl.a
BENCHG_HDRS := user/libpmuctl.h uapi/linux/pmuctl.h

# PAPI is optional and found at build time: with it, compare.c includes
# <papi.h> and times PAPI_read() too.  Override both to point elsewhere.
BENCH_PAPI_LIBS := $(shell pkg-config --libs papi 2>/dev/null)
BENCH_PAPI_CFLAGS := $(if $(BENCH_PAPI_LIBS),-DBENCH_PAPI \
	$(shell pkg-config --cflags papi 2>/dev/null))

BINS += build/bench/compare
VMTESTS += build/vmtests/waves_test
VMBINS += build/vmbin/workload build/vmbin/perf-count
TESTS += build/tests/bench-workload_test

build/bench/compare: selftests/bench/compare.c selftests/bench/insn_marks.h \
		     $(BENCHG_A) $(BENCHG_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(BENCH_PAPI_CFLAGS) -o $@ $< $(BENCHG_A) -lpfm \
		$(BENCH_PAPI_LIBS)

BINS += build/bench/vm/taskswitch

build/bench/vm/taskswitch: selftests/bench/taskswitch.c selftests/hw/emulated.h \
			   selftests/bench/insn_marks.h \
			   uapi/linux/pmuctl.h
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) -o $@ $<

# What a region's enter and exit pair costs, per API (handle, name, the
# LIKWID and PAPI drop-ins), in instructions retired: regions-cost and
# papi-cost (selftests/bench/regions_cost.c), run by scripts/bench-guest.sh
# in an Ice Lake server guest (8 region events and 2 measuring ones).
BINS += build/bench/vm/regions-cost build/bench/vm/papi-cost

build/bench/vm/regions-cost: selftests/bench/regions_cost.c build/lib/libpmuctl.a \
			     build/lib/libpmuctl-likwid.a user/libpmuctl.h \
			     selftests/bench/insn_marks.h
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $< build/lib/libpmuctl-likwid.a \
		build/lib/libpmuctl.a -lpfm

build/bench/vm/papi-cost: selftests/bench/regions_cost.c build/lib/libpmuctl.a \
			  build/lib/libpmuctl-papi-hl.a user/libpmuctl.h \
			  selftests/bench/insn_marks.h
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -DCOST_PAPI -o $@ $< build/lib/libpmuctl-papi-hl.a \
		build/lib/libpmuctl.a -lpfm

# The same programs in the emulated-PMU guests of make check, held to
# bounds (selftests/bench/regions_cost_test.sh).
VMBINS += build/vmbin/regions-cost build/vmbin/papi-cost
VMTESTS_PMU += build/vmtests-pmu/regions_cost_test

build/vmbin/regions-cost build/vmbin/papi-cost: build/vmbin/%: build/bench/vm/%
	@mkdir -p $(@D)
	cp $< $@

build/vmtests-pmu/regions_cost_test: selftests/bench/regions_cost_test.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

# PAPI's own high-level regions, for the same table: built by make bench
# only (scripts/deps.sh bench installs libpapi-dev; pkg-config asked when
# the recipe runs), never by make check.
build/bench/vm/papi7-cost: selftests/bench/regions_cost.c build/lib/libpmuctl.a \
			   user/libpmuctl.h selftests/bench/insn_marks.h
	@mkdir -p $(@D)
	@bash scripts/deps.sh bench
	$(CC) -static $(CFLAGS) -DCOST_PAPI_NATIVE -o $@ $< build/lib/libpmuctl.a \
		$$(pkg-config --static --libs papi) -lpfm

# Debian's own LIKWID (5.2, direct MSR access), for the same table:
# likwid5-cost (selftests/bench/likwid_cost.c), dynamic (Debian ships no
# static liblikwid; the guest carries its libraries), measured by the TCG
# plugin scripts/vm/insn-count.c in a guest of its own.  make bench only.
build/bench/vm/likwid5-cost: selftests/bench/likwid_cost.c selftests/bench/insn_marks.h
	@mkdir -p $(@D)
	@bash scripts/deps.sh bench
	$(CC) $(CFLAGS) -o $@ $< -llikwid

build/bench/vm/compare: selftests/bench/compare.c selftests/bench/insn_marks.h \
			$(BENCHG_A) $(BENCHG_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $< $(BENCHG_A) -lpfm

# The same with Debian's static libpapi and libperf (built from Debian's
# kernel source by scripts/libperf.sh), for the plugin guest's counted
# rows (compare-papi -i): PAPI_read() and perf_evsel__read() beside
# pmuctl's and perf's reads.  make bench only, as papi7-cost.
LIBPERF_DIR := build/libperf
build/bench/vm/compare-papi: selftests/bench/compare.c selftests/bench/insn_marks.h \
			     $(BENCHG_A) $(BENCHG_HDRS) scripts/libperf.sh
	@mkdir -p $(@D)
	@bash scripts/deps.sh bench
	@bash scripts/libperf.sh $(LIBPERF_DIR)
	$(CC) -static $(CFLAGS) -DBENCH_PAPI -DBENCH_LIBPERF \
		-I$(LIBPERF_DIR)/tools/lib/perf/include -o $@ $< $(BENCHG_A) \
		$(LIBPERF_DIR)/tools/lib/perf/libperf.a $(LIBPERF_DIR)/tools/lib/api/libapi.a \
		$$(pkg-config --static --libs papi) -lpfm

# No libc, no start files: _start is the workload's first instruction.
build/vmbin/workload: selftests/bench/workload.S
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -no-pie -Wa,--fatal-warnings -o $@ $<

build/vmbin/perf-count: selftests/bench/perf_count.c
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) -o $@ $<

build/tests/bench-workload_test: selftests/bench/workload_test.c build/vmbin/workload
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $<

# make bench on a checkout where make check never ran extracts the
# harness itself (scripts/ksrc.sh), as make check's second step does.
$(KSRC)/tools/testing/selftests/kselftest_harness.h:
	@bash scripts/ksrc.sh $(KSRC)

build/vmtests/waves_test: selftests/bench/waves.c selftests/device/lib.c \
		selftests/device/lib.h $(BENCHG_A) $(BENCHG_HDRS) $(CORE_HDRS) \
		| $(KSRC)/tools/testing/selftests/kselftest_harness.h
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< selftests/device/lib.c \
		$(BENCHG_A) -lpfm

.PHONY: bench-guest

# One emulated-PMU guest of the newest kernel (Skylake-Server, -smp 4)
# runs waves_test and compare: the table of costs per operation, and the
# timed rows under QEMU TCG (about 2-4 minutes).
#: bench's guest part alone (costs per operation)
bench-guest: build/vmtests/waves_test build/bench/vm/compare build/bench/vm/taskswitch \
	     build/bench/vm/regions-cost build/bench/vm/papi-cost build/bench/vm/papi7-cost \
	     build/bench/vm/likwid5-cost build/bench/vm/compare-papi
	@bash scripts/bench-guest.sh

# Where one counted row's kernel instructions go: the plugin's profile of
# its windows, per function (scripts/bench-prof.sh; about 1 minute).
# ROW=list prints the rows' labels.
ROW ?= list
.PHONY: bench-prof
#: kernel profile of a counted bench row (ROW=N or ROW=list)
bench-prof: build/bench/vm/compare
	@bash scripts/bench-prof.sh $(ROW)

# make bench's tables from the plugin's lines (scripts/insn-*.awk, their
# results rows through scripts/bench-emit.awk), checked on made-up lines on
# any host.
BENCH_AWK_TESTS := insn_ops insn_table insn_switch timed
TESTS += $(BENCH_AWK_TESTS:%=build/tests/bench-%_test)

$(BENCH_AWK_TESTS:%=build/tests/bench-%_test): build/tests/bench-%_test: \
		selftests/bench/%_test.sh scripts/bench-emit.awk
	@mkdir -p $(@D)
	install -m 755 $< $@

build/tests/bench-insn_ops_test: scripts/insn-ops.awk
build/tests/bench-insn_table_test: scripts/insn-table.awk
build/tests/bench-insn_switch_test: scripts/insn-switch.awk
build/tests/bench-timed_test: scripts/bench-timed.awk
