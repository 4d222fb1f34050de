# SPDX-License-Identifier: GPL-2.0
#
# Differential test of the core against libpfm4 (selftests/core/pfm_diff.c):
# every event and umask of libpfm4's knm, knl, skl, icl, icx and spr
# tables, on any host, through libpmuctl's resolver and 'pmuctl check'
# (build/bin/pmuctl, or $PMUCTL), which must agree.
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS,
# CORE_SRCS and CORE_HDRS before including this file.

TESTS += build/tests/pfm_diff

build/tests/pfm_diff: selftests/core/pfm_diff.c selftests/core/diff.h $(LIB_A) $(LIB_HDRS) \
		      $(CORE_SRCS) $(CORE_HDRS) build/bin/pmuctl
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(KSFT_CFLAGS) -o $@ selftests/core/pfm_diff.c $(CORE_SRCS) $(LIB_A) $(LIB_LIBS)
