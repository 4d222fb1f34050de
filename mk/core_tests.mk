# SPDX-License-Identifier: GPL-2.0
#
# Hardware-free kselftest suites of the pure core (selftests/core/):
# event validation and model tables, CPUID decoding, group scheduling and
# per-CPU accounting.  Each runs in well under a second on any host.
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS,
# CORE_SRCS and CORE_HDRS before including this file.

CORE_TESTS := build/tests/event_test build/tests/caps_test build/tests/sched_test

TESTS += $(CORE_TESTS)

$(CORE_TESTS): build/tests/%_test: selftests/core/%_test.c $(CORE_SRCS) $(CORE_HDRS) | build/tests
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(CORE_SRCS)
