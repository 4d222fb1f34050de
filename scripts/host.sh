# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers the scripts share, sourced (". scripts/host.sh"), defining
# functions only.

# linux_source_tarball SERIES WHO: the path of Debian's newest
# linux-source-SERIES tarball in /usr/src (linux-source-6.1.tar.xz today, a
# future linux-source-6.1.NNN.tar.xz too, never another series'); else a
# line "WHO: no ..." on stderr and status 1.
linux_source_tarball() {
	local series=$1 who=$2 tarballs
	shopt -s nullglob
	tarballs=(/usr/src/linux-source-"$series".tar.xz
		  /usr/src/linux-source-"$series".[0-9]*.tar.xz)
	shopt -u nullglob
	if [ ${#tarballs[@]} -eq 0 ]; then
		echo "$who: no /usr/src/linux-source-$series.tar.xz; run scripts/deps.sh" >&2
		return 1
	fi
	printf '%s\n' "${tarballs[@]}" | sort -V | tail -n 1
}

# cpu_pmu_why CPUINFO: why the CPU CPUINFO describes has no PMU pmuctl
# drives, in one line; nothing when it has one (GenuineIntel with the
# arch_perfmon flag).
cpu_pmu_why() {
	local cpuinfo=$1 vendor
	vendor=$(awk -F': *' '/^vendor_id/ { print $2; exit }' "$cpuinfo" 2>/dev/null)
	if [ "$vendor" != GenuineIntel ]; then
		echo "no Intel PMU here: the CPU is ${vendor:-unknown} (vendor_id in $cpuinfo), and pmuctl drives the Intel core PMU"
	elif ! grep -Eq '^flags.*[[:space:]]arch_perfmon([[:space:]]|$)' "$cpuinfo"; then
		echo "no PMU here: the CPU shows no arch_perfmon flag in $cpuinfo (a VM without a virtual PMU: give it one, e.g. QEMU/KVM -cpu host,pmu=on)"
	fi
}
