# SPDX-License-Identifier: GPL-2.0
#
# The QEMU rig (scripts/vm/): "make vmcheck" builds pmuctl.ko
# (PMUCTL_REGMODEL=y) for each target Debian kernel, boots that kernel under
# TCG as KnightsMill and as Skylake-Server, runs every static test program
# in build/vmtests/ inside, and writes build/logs/vm-*.tap and *.console.
# "make vmcheck-pmu" boots the same kernels on the patched QEMU's emulated
# PMU instead (scripts/vm/run.sh -P: the default build of pmuctl.ko, its
# MSR backend, perf's own driver) and runs build/vmtests-pmu/ there.
# "make check" runs both after the host tests, every guest on the patched
# QEMU, which "make qemu" builds once (scripts/vm/qemu.sh, cached in
# /var/cache/pmuctl) and whose path it prints.
#
# A fragment that builds device tests adds them with
#   VMTESTS += build/vmtests/NAME
# tests for the emulated-PMU guests (real counts, perf next to pmuctl) with
#   VMTESTS_PMU += build/vmtests-pmu/NAME
# and the static programs they call (installed in the guest's /bin) with
#   VMBINS += build/vmbin/NAME
# (all read when the recipe runs, so the order of mk/*.mk does not matter).
# "make vmcheck-debug" boots the debug kernel ("make dkernel" builds it once,
# scripts/vm/dkernel.sh, cached in /var/cache/pmuctl, and prints its tree)
# as Skylake-Server twice: the register model with build/vmtests/ ("debug")
# and the emulated PMU with build/vmtests-pmu/ ("debug-pmu"), and as
# PerfmonV6 with build/vmtests-v6/ ("debug-pmu-v6"); then
# scripts/vm/coverage.sh prints the module's line coverage over all three
# and writes build/logs/coverage.txt.
# "make vmcheck-rt" boots the PREEMPT_RT debug kernel ("make dkernel-rt",
# scripts/vm/dkernel.sh rt: spinlock_t sleeps, lockdep, DEBUG_ATOMIC_SLEEP)
# as Skylake-Server with the register model and build/vmtests/ ("debug-rt").
# VM_ARGS passes options to scripts/vm/run.sh, e.g.
#   make vmcheck VM_ARGS='-s 4 -p regmodel_caps=knm4 -l knm4'
#   make vmcheck-pmu VM_ARGS='-c KnightsMill -g 4 -l pmu-knm4'

.PHONY: vmcheck vmcheck-pmu vmcheck-debug vmcheck-rt vmtests qemu dkernel dkernel-rt

#: build the static programs the guests run
vmtests:
	@mkdir -p build/vmtests build/vmtests-pmu
	$(if $(strip $(VMTESTS) $(VMTESTS_PMU) $(VMBINS)),@$(MAKE) --no-print-directory $(VMTESTS) $(VMTESTS_PMU) $(VMBINS))

#: the module in Debian 6.1/6.12 guests, register model
vmcheck: vmtests
	@bash scripts/vm/run.sh -K $(VM_ARGS) $(foreach b,$(VMBINS),-x $(b))

#: the guests on the patched QEMU's emulated PMU
vmcheck-pmu: vmtests
	@bash scripts/vm/run.sh -P -K -l pmu -t build/vmtests-pmu $(VM_ARGS) \
		$(foreach b,$(VMBINS),-x $(b))

# The patched QEMU's path (built on the first run).
#: build (once) the patched QEMU, print its path
qemu:
	@bash scripts/vm/qemu.sh

# The debug kernel's tree (built on the first run, about 10 min).
#: build (once) the debug kernel, print its tree
dkernel:
	@bash scripts/vm/dkernel.sh

# The PREEMPT_RT debug kernel's tree (built on the first run).
#: build (once) the PREEMPT_RT debug kernel, print its tree
dkernel-rt:
	@bash scripts/vm/dkernel.sh rt

DEBUG_GUESTS := vm-6.12-debug-Skylake-Server.debug vm-6.12-debug-Skylake-Server.debug-pmu \
		vm-6.12-debug-PerfmonV6.debug-pmu-v6

#: the debug-kernel guests and the module's coverage
vmcheck-debug: vmtests
	@rc=0; \
	bash scripts/vm/run.sh -D -c Skylake-Server -l debug -T 600 $(VM_ARGS) \
		$(foreach b,$(VMBINS),-x $(b)) || rc=1; \
	bash scripts/vm/run.sh -D -P -c Skylake-Server -l debug-pmu -T 600 \
		-t build/vmtests-pmu $(VM_ARGS) $(foreach b,$(VMBINS),-x $(b)) || rc=1; \
	bash scripts/vm/run.sh -D -P -c PerfmonV6 -l debug-pmu-v6 -T 600 \
		-t build/vmtests-v6 $(VM_ARGS) $(foreach b,$(VMBINS),-x $(b)) || rc=1; \
	bash scripts/vm/coverage.sh -o build/logs/coverage.txt \
		$(foreach g,$(DEBUG_GUESTS),build/logs/gcov/$(g)) || rc=1; \
	exit $$rc

#: the PREEMPT_RT debug kernel's guest (sleeping locks)
vmcheck-rt: vmtests
	@bash scripts/vm/run.sh -E -c Skylake-Server -l debug-rt -T 600 $(VM_ARGS) \
		$(foreach b,$(VMBINS),-x $(b))
