# SPDX-License-Identifier: GPL-2.0
#
# The QEMU rig (scripts/vm/): "make vmcheck" builds pmuctl.ko
# (PMUCTL_REGMODEL=y) for each target Debian kernel, boots that kernel under
# TCG as KnightsMill and as Skylake-Server, runs every static test program
# in build/vmtests/ inside, and writes build/logs/vm-*.tap and *.console.
# "make check" runs it after the host tests.
#
# A fragment that builds device tests adds them with
#   VMTESTS += build/vmtests/NAME
# and the static programs they call (installed in the guest's /bin) with
#   VMBINS += build/vmbin/NAME
# (both read when the recipe runs, so the order of mk/*.mk does not matter).
# VM_ARGS passes options to scripts/vm/run.sh, e.g.
#   make vmcheck VM_ARGS='-s 4 -p regmodel_caps=knm4 -l knm4'

.PHONY: vmcheck vmtests

vmtests:
	@mkdir -p build/vmtests
	$(if $(strip $(VMTESTS) $(VMBINS)),@$(MAKE) --no-print-directory $(VMTESTS) $(VMBINS))

vmcheck: vmtests
	@bash scripts/vm/run.sh $(VM_ARGS) $(foreach b,$(VMBINS),-x $(b))
