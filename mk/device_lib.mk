# SPDX-License-Identifier: GPL-2.0
#
# libpmuctl and the pmuctl tool end to end against /dev/pmuctl, in the QEMU
# guests (selftests/device/):
#   lib_test   kselftest harness, static, linked with libpmuctl.a and
#              libpfm4: sessions, events by name, READ and the inline
#              read path through the library's rdpmc emulation;
#   tool_test  a busybox sh script (TAP) running the guest's /bin/pmuctl,
#              which the rig installs from build/vmbin/pmuctl (VMBINS, see
#              mk/vm.mk; helper rule in mk/tool.mk).
# The host runs lib_test as build/tests/device-lib_test (one SKIP without
# /dev/pmuctl, decided in main()), and scripts/check.sh runs
# selftests/device/tool_test.sh itself like every executable *.sh (a SKIP
# without /dev/pmuctl).
# Included by the top Makefile, which defines CC, CFLAGS, KSFT_CFLAGS and
# CORE_HDRS before including this file; mk/lib.mk is read after this one,
# so the library's names are spelled out here.

DEVLIB_LIB := selftests/device/lib.c selftests/device/lib.h
DEVLIB_A := build/lib/libpmuctl.a
DEVLIB_HDRS := user/libpmuctl.h uapi/linux/pmuctl.h

VMTESTS += build/vmtests/lib_test build/vmtests/tool_test
VMBINS += build/vmbin/pmuctl
TESTS += build/tests/device-lib_test

build/vmtests/lib_test: selftests/device/lib_test.c $(DEVLIB_LIB) $(DEVLIB_HDRS) \
		$(DEVLIB_A) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< selftests/device/lib.c \
		$(DEVLIB_A) -lpfm

build/vmtests/tool_test: selftests/device/tool_test.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

build/tests/device-lib_test: build/vmtests/lib_test
	@mkdir -p $(@D)
	cp -f $< $@
