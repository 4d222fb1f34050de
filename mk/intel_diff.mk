# SPDX-License-Identifier: GPL-2.0
#
# Differential test of the core against Intel's core event lists
# (selftests/core/intel_diff.c): every event of KNL, SKL, SKX, CLX, ICL,
# ICX, SPR, EMR, GNR, ADL's Golden Cove and Gracemont, SRF, GRR, and LNL's
# and ARL's Lion Cove and Skymont as committed in events/intel/*.events
# (scripts/intel-events.py made them from github.com/intel/perfmon), on
# any host, nothing fetched.
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS,
# CORE_SRCS and CORE_HDRS before including this file.

INTEL_VECTORS := $(wildcard events/intel/*.events)

TESTS += build/tests/intel_diff

# The vectors are assembled in (.incbin), from paths relative to the top.
build/tests/intel_diff: selftests/core/intel_diff.c selftests/core/diff.h $(INTEL_VECTORS) \
			$(CORE_SRCS) $(CORE_HDRS) | build/tests
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -DINTEL_DIR='"events/intel"' \
		-o $@ selftests/core/intel_diff.c $(CORE_SRCS)
