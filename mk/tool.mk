# SPDX-License-Identifier: GPL-2.0
#
# The pmuctl command-line tool: the pure core linked into user space with
# libpfm4 for event names.  Included by the top Makefile, which defines CC,
# CFLAGS and CORE_SRCS before including this file (prerequisites are
# expanded when the rule is read).

BINS += build/bin/pmuctl

PMUCTL_TOOL_DEPS := user/pmuctl.c user/reason.c user/reason.h user/pfm.c \
		    user/pfm.h $(CORE_SRCS) kmod/core/core.h \
		    kmod/core/core_types.h uapi/linux/pmuctl.h

build/bin/pmuctl: $(PMUCTL_TOOL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ user/pmuctl.c user/reason.c user/pfm.c $(CORE_SRCS) -lpfm
