# SPDX-License-Identifier: GPL-2.0
#
# selftests/device/perf_test.c: pmuctl next to perf's counter reservation.
# Static, run by the QEMU rig in every guest; on the host a copy SKIPs.

VMTESTS += build/vmtests/perf_test
TESTS += build/tests/device-perf_test

build/vmtests/perf_test: selftests/device/perf_test.c $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) -static $(CFLAGS) $(KSFT_CFLAGS) -o $@ $<

build/tests/device-perf_test: build/vmtests/perf_test
	@mkdir -p $(@D)
	cp -f $< $@
