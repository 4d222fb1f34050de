# SPDX-License-Identifier: GPL-2.0
#
# Host unit tests of the pmuctl tool's C parts (selftests/tool/*.c); the
# command-line tests are selftests/tool/*.sh, which scripts/check.sh runs
# itself.  Each runs on any host, without a PMU or the device:
#   launch_test   how "pmuctl stat" starts its command (user/tool_launch.c):
#                 held at its exec by ptrace, or plainly, or programming
#                 task scope in the child before its exec; it runs the
#                 known-count workload (build/vmbin/workload, mk/bench_guest.mk).
#   prom_test     pmuctl watch --format (user/tool_prom.c) read back by
#                 python3-prometheus-client's parsers; the file replaced
#                 atomically.
# Included by the top Makefile, which defines CC, CFLAGS and KSFT_CFLAGS.

TESTS += build/tests/tool-launch_test

build/tests/tool-launch_test: selftests/tool/launch_test.c user/tool_launch.c \
		user/tool.h user/libpmuctl.h uapi/linux/pmuctl.h build/vmbin/workload
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< user/tool_launch.c

TESTS += build/tests/tool-prom_test

build/tests/tool-prom_test: selftests/tool/prom_test.c user/tool_prom.c \
		user/tool.h user/libpmuctl.h uapi/linux/pmuctl.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< user/tool_prom.c

# A made-up module for the real tool (LD_PRELOAD, selftests/tool/fake_module.c):
# selftests/tool/watch_prom.sh runs "pmuctl watch --format" against it.
BINS += build/testlib/fake_module.so

build/testlib/fake_module.so: selftests/tool/fake_module.c uapi/linux/pmuctl.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $<

# The emulated-PMU guests (scripts/vm/run.sh -P, "make vmcheck-pmu") run
# build/vmtests-pmu/: there "pmuctl stat" must count the known-count
# workload exactly (selftests/tool/stat_exact_test.sh; one SKIP elsewhere).
VMTESTS_PMU += build/vmtests-pmu/tool_stat_exact_test

# The stat tests source selftests/tool/stat_lib.sh; each guest copy has it
# in place of that line, so that it is one file.
STAT_LIB := selftests/tool/stat_lib.sh
define stat_test_inline
	@mkdir -p $(@D)
	sed -e '/^\. "$$(dirname "$$0")\/stat_lib\.sh"$$/{r $(STAT_LIB)' -e 'd;}' $< >$@.tmp
	@grep -q '^stat_begin()' $@.tmp || { echo "$@: $(STAT_LIB) was not put in" >&2; rm -f $@.tmp; exit 1; }
	chmod 755 $@.tmp && mv $@.tmp $@
endef

build/vmtests-pmu/tool_stat_exact_test: selftests/tool/stat_exact_test.sh $(STAT_LIB)
	$(stat_test_inline)

# pmuctl stat --regions counting regions-demo's regions exactly
# (selftests/tool/stat_regions_test.sh, selftests/tool/regions_demo.c).
VMBINS += build/vmbin/regions-demo
VMTESTS_PMU += build/vmtests-pmu/tool_stat_regions_test

build/vmbin/regions-demo: selftests/tool/regions_demo.c selftests/pmu/loop_asm.S \
			  build/lib/libpmuctl.a user/libpmuctl.h
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) -o $@ $< selftests/pmu/loop_asm.S \
		build/lib/libpmuctl.a -lpfm

# The same regions, written against LIKWID's MarkerAPI and PAPI's
# high-level API and built with the drop-ins' flags as their users build
# them (selftests/tool/likwid_demo.c, papi_demo.c): the in-tree
# equivalents of "pkg-config --cflags --libs --static pmuctl-likwid".
VMBINS += build/vmbin/likwid-demo build/vmbin/papi-demo

build/vmbin/likwid-demo: selftests/tool/likwid_demo.c selftests/pmu/loop_asm.S \
			 build/lib/libpmuctl-likwid.a build/lib/libpmuctl.a
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) -DLIKWID_PERFMON -Iuser/likwid -o $@ $< \
		selftests/pmu/loop_asm.S build/lib/libpmuctl-likwid.a \
		build/lib/libpmuctl.a -lpfm

build/vmbin/papi-demo: selftests/tool/papi_demo.c selftests/pmu/loop_asm.S \
		       build/lib/libpmuctl-papi-hl.a build/lib/libpmuctl.a
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) -Iuser/papi-hl -o $@ $< \
		selftests/pmu/loop_asm.S build/lib/libpmuctl-papi-hl.a \
		build/lib/libpmuctl.a -lpfm

build/vmtests-pmu/tool_stat_regions_test: selftests/tool/stat_regions_test.sh $(STAT_LIB)
	$(stat_test_inline)

# pmuctl watch -M and its passes, exact per slice (selftests/tool/watch_exact_test.sh).
VMTESTS_PMU += build/vmtests-pmu/tool_watch_exact_test

build/vmtests-pmu/tool_watch_exact_test: selftests/tool/watch_exact_test.sh $(STAT_LIB)
	$(stat_test_inline)

# The 4-thread known-count workload (selftests/tool/threads.S): 8N + 8D +
# 91 user-mode instructions from exec to the last thread's exit, counted
# by selftests/tool/stat_task_test.sh in the emulated-PMU guests (task
# scope, inherit) beside perf's count.
VMBINS += build/vmbin/workload-threads
VMTESTS_PMU += build/vmtests-pmu/tool_stat_task_test

build/vmbin/workload-threads: selftests/tool/threads.S
	@mkdir -p $(@D)
	$(CC) -nostdlib -static -no-pie -Wa,--fatal-warnings -o $@ $<

build/vmtests-pmu/tool_stat_task_test: selftests/tool/stat_task_test.sh $(STAT_LIB)
	$(stat_test_inline)

# --per-thread: each thread of workload-threads counted exactly, the rows
# adding up to the total (selftests/tool/stat_per_thread_test.sh).
VMTESTS_PMU += build/vmtests-pmu/tool_stat_per_thread_test

build/vmtests-pmu/tool_stat_per_thread_test: selftests/tool/stat_per_thread_test.sh $(STAT_LIB)
	$(stat_test_inline)

# The perfmon v6 guests (check.sh's "pmu-v6": scripts/vm/run.sh -P -c
# PerfmonV6) run build/vmtests-v6/ alone: the emulated PMU reports v6,
# Linux 6.12's perf uses the 0x1900+ aliases, and pmuctl refuses there
# (PERF_UNMANAGED) while it counts on 6.1 (selftests/tool/perfmon_v6_test.sh).
VMTESTS_PMU += build/vmtests-v6/tool_perfmon_v6_test

build/vmtests-v6/tool_perfmon_v6_test: selftests/tool/perfmon_v6_test.sh $(STAT_LIB)
	$(stat_test_inline)

# mset_test: check -M / stat -M's passes (user/tool_metrics.c) against an
# exhaustive search over the core's scheduler, for small metric sets.
TESTS += build/tests/tool-mset_test

build/tests/tool-mset_test: selftests/tool/mset_test.c $(filter-out user/pmuctl.c,$(TOOL_SRCS)) \
		$(CORE_SRCS) user/tool.h user/metrics.h kmod/core/core.h \
		uapi/linux/pmuctl.h build/lib/libpmuctl.a
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< \
		$(filter-out user/pmuctl.c,$(TOOL_SRCS)) $(CORE_SRCS) $(TOOL_LIBS)
