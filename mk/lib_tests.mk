# SPDX-License-Identifier: GPL-2.0
#
# Host unit tests of libpmuctl (selftests/lib/), linked against the static
# build/lib/libpmuctl.a and libpfm4; each runs on any host, without a PMU
# or the device:
#   names_test   reason names and texts, pmuctl_strerror(), model names;
#   parse_test   events by name (libpfm4 forced to knm, knl, skl, ix86arch)
#                and raw, lists;
#   delta_test   pmuctl_delta(), pmuctl_deltas() on 40- and 48-bit counters;
#   open_test    pmuctl_open() without a device;
#   task_test    the task-scope calls and the rdpmc emulation of task
#                scope, against a made-up module (selftests/lib/fake_dev.h:
#                the test defines ioctl(2));
#   regions_test the regions (user/regions.c) against the same module,
#                every count known: sums, nesting, threads, misuses,
#                fork, the reports;
#   likwid_test  the LIKWID MarkerAPI drop-in (user/likwid.c) on a handed
#                over session: counts, GET, RESET, misuse, CLOSE;
#   papi_hl_test the PAPI high-level drop-in (user/papi_hl.c): the hand-
#                over, $PAPI_EVENTS's own session and report, a bad event,
#                no device (each case in a child that execs the test);
#   resolve_test pmuctl_event_resolve() on every model against 'pmuctl
#                check' (build/bin/pmuctl): perf's generic names and more;
#   intel_test   Intel's names of every event of every events/intel list
#                (read at run time) through the library and 'pmuctl check',
#                modifiers, suggestions, and libpfm4's spelling of the same
#                events;
#   expr_test    the metric formula evaluator: precedence, min/max,
#                if/else, division by zero and missing values;
#   metrics_test Intel's metrics of every events/intel list: each formula
#                and threshold compiles, each metric is computable (its
#                events resolve) or says why not, TopdownL1/L2, evaluation.
# Included by the top Makefile after mk/lib.mk (LIB_A, LIB_LIBS), with
# CC, CFLAGS and KSFT_CFLAGS defined.

LIB_TEST_NAMES := names parse delta open task resolve intel expr metrics regions \
		  likwid papi_hl
LIB_TESTS := $(LIB_TEST_NAMES:%=build/tests/lib-%_test)

TESTS += $(LIB_TESTS)

$(LIB_TESTS): build/tests/lib-%_test: selftests/lib/%_test.c $(LIB_A) $(LIB_HDRS) \
		selftests/lib/fake_dev.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(lib_test_pre) $(LIB_A) $(LIB_LIBS)

# The drop-ins' tests link their library before libpmuctl.
build/tests/lib-likwid_test: lib_test_pre := build/lib/libpmuctl-likwid.a
build/tests/lib-likwid_test: build/lib/libpmuctl-likwid.a $(SHIM_HDRS)
build/tests/lib-papi_hl_test: lib_test_pre := build/lib/libpmuctl-papi-hl.a
build/tests/lib-papi_hl_test: build/lib/libpmuctl-papi-hl.a $(SHIM_HDRS)

# resolve_test and intel_test run the tool's check on the same strings.
build/tests/lib-resolve_test build/tests/lib-intel_test: build/bin/pmuctl
