# SPDX-License-Identifier: GPL-2.0
#
# The pmuctl command-line tool (user/pmuctl.c, user/tool_*.c): libpmuctl
# (the static build/lib/libpmuctl.a, which also holds the libpfm4 bridge
# user/pfm.c that check uses) plus the pure core for check, and libpfm4.
#   build/bin/pmuctl     for this host
#   build/vmbin/pmuctl   static, for the QEMU guests (no libc there):
#                        scripts/vm/run.sh -x build/vmbin/pmuctl
# Its tests are selftests/tool/*.sh, which scripts/check.sh runs like every
# executable selftests/**/*.sh; they use build/bin/pmuctl, which "make
# tests" builds (BINS).  Included by the top Makefile, which defines CC,
# CFLAGS and CORE_SRCS before including this file.

BINS += build/bin/pmuctl build/vmbin/pmuctl

TOOL_SRCS := user/pmuctl.c user/tool_common.c user/tool_check.c \
	     user/tool_info.c user/tool_launch.c user/tool_list.c \
	     user/tool_metrics.c user/tool_prom.c user/tool_stat.c user/tool_watch.c
TOOL_DEPS := $(TOOL_SRCS) user/tool.h user/libpmuctl.h user/pfm.h user/metrics.h \
	     user/events.h user/expr.h \
	     $(CORE_SRCS) kmod/core/core.h kmod/core/core_types.h \
	     uapi/linux/pmuctl.h build/lib/libpmuctl.a
TOOL_LIBS := build/lib/libpmuctl.a -lpfm -lm

build/bin/pmuctl: $(TOOL_DEPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(TOOL_SRCS) $(CORE_SRCS) $(TOOL_LIBS)

build/vmbin/pmuctl: $(TOOL_DEPS)
	@mkdir -p $(@D)
	$(CC) -static $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(TOOL_SRCS) $(CORE_SRCS) $(TOOL_LIBS)

# The guests' tool comes with the guests' test programs.
vmtests: build/vmbin/pmuctl
