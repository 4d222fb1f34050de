# SPDX-License-Identifier: GPL-2.0
#
# The hardware selftests (selftests/hw/*_test.c): on a machine with a real
# Intel PMU and pmuctl.ko loaded they prove the counts; everywhere else
# each test is a SKIP with its reason (hw.h).
#
#   make hwtest   builds them the kselftest way (selftests/Makefile, with
#                 the kselftest lib.mk and runner from $(KSRC)), runs them
#                 through the kselftest runner, keeps the TAP in
#                 build/hwtest/hw.tap and ends with scripts/tap-summary.sh's
#                 "P passed, F failed, S skipped" (non-zero exit if any failed).
#
# "make check" runs the same sources three times more, built here:
#   build/tests/hw-NAME       host tests: no /dev/pmuctl, every test a SKIP;
#   build/vmtests/hw-NAME     static, in the register-model guests: every
#                             test a SKIP, which proves they skip cleanly
#                             next to a loaded module;
#   build/vmtests-pmu/hw-NAME the same programs in the guests with the
#                             emulated PMU (VMTESTS_PMU, mk/vm.mk): QEMU
#                             TCG with pmuctl's patch, the module's default
#                             (MSR) build, msr.ko with allow_writes=on.
#                             There they run for real: every test whose
#                             semantics the emulation provides passes, the
#                             others SKIP naming the emulation (hw.h).
# With them, in both guest sets, hw-tool_counts_test (tool_counts_test.sh:
# pmuctl stat and watch against the known-count workload of
# mk/bench_guest.mk, build/vmbin/workload).  Included by the top Makefile, which defines CC, CFLAGS,
# KSFT_CFLAGS and KSRC; mk/lib.mk is read after this file, so the
# library's archive is named here.

HW_NAMES := $(patsubst selftests/hw/%_test.c,%,$(wildcard selftests/hw/*_test.c))
HW_VMTESTS := $(HW_NAMES:%=build/vmtests/hw-%_test)
HW_PMUTESTS := $(HW_NAMES:%=build/vmtests-pmu/hw-%_test)
HW_HOSTTESTS := $(HW_NAMES:%=build/tests/hw-%_test)
HW_SCRIPTS := build/vmtests/hw-tool_counts_test build/vmtests-pmu/hw-tool_counts_test
HW_LIB := selftests/hw/hw.c
HW_DEPS := $(HW_LIB) selftests/hw/hw.h selftests/hw/emulated.h \
	   build/lib/libpmuctl.a user/libpmuctl.h \
	   uapi/linux/pmuctl.h

VMTESTS += $(HW_VMTESTS) build/vmtests/hw-tool_counts_test
VMTESTS_PMU += $(HW_PMUTESTS) build/vmtests-pmu/hw-tool_counts_test
TESTS += $(HW_HOSTTESTS)

$(HW_VMTESTS): build/vmtests/hw-%_test: selftests/hw/%_test.c $(HW_DEPS)
	@mkdir -p $(@D)
	$(CC) -static -pthread $(CFLAGS) $(KSFT_CFLAGS) -o $@ $< $(HW_LIB) \
		build/lib/libpmuctl.a -lpfm

$(HW_PMUTESTS): build/vmtests-pmu/hw-%: build/vmtests/hw-%
	@mkdir -p $(@D)
	cp -f $< $@

$(HW_HOSTTESTS): build/tests/hw-%: build/vmtests/hw-%
	@mkdir -p $(@D)
	cp -f $< $@

$(HW_SCRIPTS): selftests/hw/tool_counts_test.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# The emulated-PMU guests' programs come with the others (mk/vm.mk).
vmtests: $(HW_PMUTESTS) build/vmtests-pmu/hw-tool_counts_test

.PHONY: hwtest

# The kselftest runner and lib.mk come with the harness (scripts/ksrc.sh),
# or from any kernel tree: make hwtest KSRC=/path/to/linux.
$(KSRC)/tools/testing/selftests/kselftest/runner.sh:
	@bash scripts/ksrc.sh $(KSRC)

# The CPUID leaves of a hardware report (scripts/hwreport.sh).
build/hwtest/cpuid-leaves: scripts/hw/cpuid-leaves.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $<

.PHONY: hwreport
# scripts/hwreport.sh builds what it runs once it knows it will report:
# skipping (no Intel PMU, pmuctl.ko not loaded) builds nothing.
#: hwtest + timed rows on this PMU, one file to send (HWREPORT=)
hwreport:
	@MAKE="$(MAKE)" bash scripts/hwreport.sh $(HWREPORT)

#: hardware selftests on this host's PMU, pmuctl.ko loaded
hwtest: build/lib/libpmuctl.a $(KSRC)/tools/testing/selftests/kselftest/runner.sh
	@mkdir -p build/hwtest
	@rm -f build/hwtest/*.tap
	@{ $(MAKE) -s --no-print-directory -C selftests run_tests \
		KSRC=$(abspath $(KSRC)) 2>&1; \
		echo "# check.sh: exit=$$?"; } | tee build/hwtest/hw.tap
	@bash scripts/tap-summary.sh build/hwtest
