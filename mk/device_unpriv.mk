# SPDX-License-Identifier: GPL-2.0
#
# selftests/device/unpriv_test.c: sessions without CAP_PERFMON.  Static,
# run by the QEMU rig in every guest; on the host a copy SKIPs (no device).

VMTESTS += build/vmtests/unpriv_test
TESTS += build/tests/device-unpriv_test

build/vmtests/unpriv_test: selftests/device/unpriv_test.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $<

build/tests/device-unpriv_test: build/vmtests/unpriv_test
	@mkdir -p $(@D)
	cp -f $< $@
