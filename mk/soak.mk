# SPDX-License-Identifier: GPL-2.0
#
# "make soak": boot the emulated-PMU guests SOAK_BOOTS times (default 100,
# round-robin over both kernels and KnightsMill/Skylake-Server, two at a
# time), each running build/vmtests-pmu/ (or SOAK_TESTS), and count the
# kernel oopses; SOAK_QEMU=stock runs the same guests on Debian's stock QEMU
# as a control, SOAK_ACCEL=tcg on multi-threaded TCG (make check's guests
# run one host thread: doc/emulated-pmu.md).  Ends with "N boots, M oopses"; fails if M > 0.  Not part
# of "make check" (about 10 s a boot).  See scripts/vm/soak.sh.

.PHONY: soak

#: boot guests SOAK_BOOTS=100 times, count the oopses
soak:
	@mkdir -p build/vmtests-pmu
	$(if $(strip $(VMTESTS_PMU) $(VMBINS)),@$(MAKE) --no-print-directory $(VMTESTS_PMU) $(VMBINS))
	@bash scripts/vm/soak.sh
