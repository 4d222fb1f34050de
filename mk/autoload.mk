# SPDX-License-Identifier: GPL-2.0
#
# Autoload by CPU modalias and the udev rule, in every QEMU guest
# (selftests/device/autoload_test.sh): the register-model guests
# (build/vmtests/, no arch_perfmon: the modalias loads nothing) and the
# emulated-PMU guests (build/vmtests-pmu/: the modalias loads pmuctl.ko and
# dist/60-pmuctl.rules gives /dev/pmuctl group pmu, mode 0660).  The guest
# has no copy of the repository, so the build appends the real rule file to
# the script after its marker line, and a change to the rule rebuilds it.
# On the host scripts/check.sh runs the script itself, a SKIP.

VMTESTS += build/vmtests/autoload_test
VMTESTS_PMU += build/vmtests-pmu/autoload_test

build/vmtests/autoload_test build/vmtests-pmu/autoload_test: \
		selftests/device/autoload_test.sh dist/60-pmuctl.rules
	@mkdir -p $(@D)
	{ cat selftests/device/autoload_test.sh; \
	  echo '# @@60-pmuctl.rules@@'; cat dist/60-pmuctl.rules; } >$@.tmp
	chmod 0755 $@.tmp
	mv -f $@.tmp $@
