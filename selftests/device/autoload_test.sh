#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC2317 # the tests are called as $t; the last exit keeps sh off the rules appended after it
#
# Autoload by CPU modalias and the udev rule, in the QEMU guests (busybox
# sh: POSIX only).  The rig's initramfs carries the default build as
# /pmuctl-msr.ko (scripts/vm/run.sh) and, with run.sh -K, Debian's kmod
# (scripts/vm/initramfs.sh); this test installs the module as
# /lib/modules/$(uname -r)/extra/pmuctl.ko, runs kmod's depmod (which
# writes modules.alias from the module's MODULE_DEVICE_TABLE) and then does
# what udev does for the CPU's uevent: kmod's modprobe of
# /sys/devices/system/cpu/modalias (libkmod, as udev's kmod builtin).
#
#   guest with arch_perfmon (the emulated PMU, run.sh -P): the rig's module
#     is unloaded; the modalias with the feature taken out loads nothing;
#     the real modalias loads pmuctl and /dev/pmuctl appears; then
#     dist/60-pmuctl.rules is applied as udev would (its KERNEL== and
#     SUBSYSTEM== matched against the device's sysfs, its GROUP= and MODE=
#     set on the node) and a user in group pmu (not root) opens the device
#     while a user outside it gets EACCES.
#   guest without it (the register model: QEMU's CPU has no PMU): the
#     modalias loads nothing, and the modalias with the feature added does
#     make modprobe try pmuctl.ko (which refuses the CPU), so the alias
#     does match where the feature is.
#
# The rule file is the real one: the build appends dist/60-pmuctl.rules to
# this script after the @@60-pmuctl.rules@@ line (mk/autoload.mk), and a
# small, strict parser reads it: a key, operator or value it does not know
# fails the test.  At the end the guest is as /init left it: the rig's
# module loaded with /init's parameters, no /lib/modules, no /etc.
# Outside the rig's guests (no /pmuctl-msr.ko), or in one without kmod,
# the whole script is a SKIP.

set -u

RULES_MARK='@@60-pmuctl.rules@@'
MODALIAS=/sys/devices/system/cpu/modalias
DEPMOD=/usr/sbin/depmod
MODPROBE=/usr/sbin/modprobe

echo "TAP version 13"
if [ ! -f /pmuctl-msr.ko ] || [ ! -r "$MODALIAS" ]; then
	echo "1..0 # SKIP not the rig's guest (no /pmuctl-msr.ko or $MODALIAS)"
	exit 0
fi
if [ ! -x "$MODPROBE" ] || [ ! -x "$DEPMOD" ]; then
	echo "1..0 # SKIP this guest carries no kmod ($MODPROBE, $DEPMOD: scripts/vm/run.sh -K)"
	exit 0
fi

if grep -qw arch_perfmon /proc/cpuinfo; then
	pmu=1
	TESTS="depmod_writes_the_cpu_alias
modalias_names_the_feature_the_cpu_has
modalias_without_the_feature_loads_nothing
modalias_loads_the_module
udev_rule_gives_group_pmu_mode_0660
pmu_member_opens_the_device
non_member_is_refused
rig_module_restored"
else
	pmu=0
	TESTS="depmod_writes_the_cpu_alias
modalias_lacks_the_feature_the_cpu_lacks
modalias_loads_nothing
modalias_with_the_feature_tries_the_module
rig_module_restored"
fi
# shellcheck disable=SC2086 # one word per test
set -- $TESTS
echo "1..$#"

kver=$(uname -r)
moddir=/lib/modules/$kver
tmp=$(mktemp -d) || exit 1
made_mods=0
made_etc=0
[ -d /lib/modules ] || made_mods=1
[ -d /etc ] || made_etc=1

# What /init loaded, and with which parameters (scripts/vm/init).
ko=/pmuctl.ko
[ -f /pmuctl_regmodel.ko ] && ko=/pmuctl_regmodel.ko
rig_mod=$(basename "$ko" .ko)
params=
# shellcheck disable=SC2013 # the command line is one line of words
for w in $(cat /proc/cmdline); do
	case $w in
	pmuctl.*) params="$params ${w#pmuctl.}" ;;
	esac
done

loaded() {
	grep -q "^$1 " /proc/modules
}

# The guest as /init left it: the rig's module with its parameters.
# touched: this test unloaded the rig's module (the emulated-PMU guest).
touched=0
restore() {
	if loaded pmuctl && { [ "$rig_mod" != pmuctl ] || [ "$touched" = 1 ]; }; then
		rmmod pmuctl
	fi
	touched=0
	if ! loaded "$rig_mod"; then
		# shellcheck disable=SC2086 # one word per parameter
		insmod "$ko" $params
	fi
	# /lib/modules and /etc only where this test made them (the rig's
	# initramfs has neither).
	[ "$made_mods" = 1 ] && rm -rf /lib/modules
	[ "$made_mods" = 0 ] && rm -rf "$moddir"
	# shellcheck disable=SC2114 # made above, in the guest
	[ "$made_etc" = 1 ] && rm -rf /etc
}
trap 'restore; rm -rf "$tmp"' EXIT

n=0
failed=0
why=

fail() {
	echo "$1" >>"$tmp/why"
	why=1
}

# run CMD...: CMD's output in $tmp/out, its status in rc.
run() {
	"$@" >"$tmp/out" 2>&1 </dev/null
	rc=$?
	sed "s|^|# ${1##*/}: |" "$tmp/out" >>"$tmp/log"
}

# The feature the alias asks for: the XXXX of ":feature:*XXXX*" in the
# module's line of modules.alias, once depmod wrote it.
feature=
cpu_alias=$(cat "$MODALIAS")

# ---- the tests --------------------------------------------------------------

depmod_writes_the_cpu_alias() {
	mkdir -p "$moddir/extra" || { fail "cannot make $moddir"; return; }
	cp /pmuctl-msr.ko "$moddir/extra/pmuctl.ko"
	run "$DEPMOD"
	[ "$rc" = 0 ] || fail "depmod exited $rc"
	grep '^alias cpu:' "$moddir/modules.alias" >"$tmp/alias" 2>/dev/null
	sed 's/^/# modules.alias: /' "$tmp/alias" >>"$tmp/log"
	# One line: alias cpu:type:x86,ven0000fam*mod*:feature:*XXXX* pmuctl
	[ "$(wc -l <"$tmp/alias")" = 1 ] ||
		fail "want one cpu: alias in modules.alias, got $(wc -l <"$tmp/alias")"
	feature=$(sed -n 's/^alias cpu:type:x86,ven0000fam\*mod\*:feature:\*\([0-9A-F]\{4\}\)\* pmuctl$/\1/p' "$tmp/alias")
	[ -n "$feature" ] ||
		fail "the alias is not 'cpu:type:x86,ven0000fam*mod*:feature:*XXXX* pmuctl' (Intel, any model, one feature)"
	# X86_FEATURE_ARCH_PERFMON is word 3, bit 11: 3 * 32 + 11 = 0x6b
	# (arch/x86/include/asm/cpufeatures.h, 6.1 and 6.12).
	[ -z "$feature" ] || [ "$feature" = 006B ] ||
		fail "the alias asks for feature $feature, not 006B (arch_perfmon)"
}

# has_feature: the CPU's modalias lists $feature (",XXXX," in its list).
has_feature() {
	case "$cpu_alias," in
	*":feature:"*",$feature,"*) return 0 ;;
	esac
	return 1
}

modalias_names_the_feature_the_cpu_has() {
	echo "# $MODALIAS: $cpu_alias" >>"$tmp/log"
	[ -n "$feature" ] || { fail "no feature from modules.alias"; return; }
	has_feature || fail "the CPU has arch_perfmon (/proc/cpuinfo) but its modalias has no $feature"
}

modalias_lacks_the_feature_the_cpu_lacks() {
	echo "# $MODALIAS: $cpu_alias" >>"$tmp/log"
	[ -n "$feature" ] || { fail "no feature from modules.alias"; return; }
	! has_feature || fail "the CPU lacks arch_perfmon (/proc/cpuinfo) but its modalias has $feature"
}

# probe ALIAS: modprobe ALIAS as udev's kmod builtin would; then whether
# pmuctl is loaded and what the kernel said about it.
probe() {
	kl=$(dmesg | wc -l)
	run "$MODPROBE" "$1"
	klog=$(dmesg | tail -n +"$((kl + 1))" | grep 'pmuctl' | head -n 5)
	[ -z "$klog" ] || echo "$klog" | sed 's/^/# kernel: /' >>"$tmp/log"
}

# Loads nothing: modprobe says it found no module and none tried to load.
loads_nothing() {
	probe "$1"
	[ "$rc" != 0 ] || fail "modprobe $1 exited 0"
	! loaded pmuctl || fail "pmuctl loaded by modalias $1"
	[ -z "$klog" ] || fail "pmuctl.ko was tried: the kernel logged about it"
	grep -q 'not found' "$tmp/out" || fail "modprobe did not say it found no module"
	[ "$pmu" = 0 ] || [ ! -e /dev/pmuctl ] || fail "/dev/pmuctl exists"
}

modalias_without_the_feature_loads_nothing() {
	[ -n "$feature" ] || { fail "no feature from modules.alias"; return; }
	if loaded "$rig_mod" && ! rmmod "$rig_mod"; then
		fail "rmmod $rig_mod failed"
		return
	fi
	touched=1
	[ ! -e /dev/pmuctl ] || fail "/dev/pmuctl still there after rmmod"
	loads_nothing "$(echo "$cpu_alias" | sed "s/,$feature//")"
}

modalias_loads_nothing() {
	[ -n "$feature" ] || { fail "no feature from modules.alias"; return; }
	loads_nothing "$cpu_alias"
}

modalias_loads_the_module() {
	probe "$cpu_alias"
	[ "$rc" = 0 ] || fail "modprobe of the modalias exited $rc"
	loaded pmuctl || fail "pmuctl not loaded by the modalias"
	[ -c /dev/pmuctl ] || fail "no /dev/pmuctl"
}

# The register model's guest: the alias matches once the feature is there,
# and pmuctl.ko itself refuses a CPU without a PMU (ENODEV).
modalias_with_the_feature_tries_the_module() {
	[ -n "$feature" ] || { fail "no feature from modules.alias"; return; }
	probe "$cpu_alias,$feature"
	[ "$rc" != 0 ] || fail "modprobe exited 0 on a CPU without a PMU"
	! loaded pmuctl || fail "pmuctl loaded on a CPU without a PMU"
	grep -q 'No such device' "$tmp/out" || fail "modprobe did not try pmuctl.ko (no ENODEV)"
	echo "$klog" | grep -q 'pmuctl: .*no architectural perfmon' ||
		fail "the kernel log has no pmuctl refusal"
}

# The udev rules after the marker in this script, parsed strictly (udev(7)
# syntax, the subset the file uses): each rule a line of comma-separated
# KEY OP "VALUE"; KERNEL and SUBSYSTEM with ==, plain values; GROUP and
# MODE with =.  Prints "group=G" and "mode=M" from the rules whose matches
# all hold for the device (later ones win, as in udev), or "error: ...".
apply_rules() {
	awk -v kernel="$1" -v subsystem="$2" -v mark="# $RULES_MARK" '
	function err(m) { print "error: 60-pmuctl.rules line " NR - start ": " m; bad = 1; exit 1 }
	$0 == mark { start = NR; next }
	!start { next }
	{
		line = $0
		sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
		if (line == "" || line ~ /^#/) next
		if (line ~ /\\$/) err("line continuation")
		rules++
		ok = 1; g = ""; m = ""; seen = 0
		while (line != "") {
			if (!match(line, /^[A-Z]+[ \t]*(==|!=|\+=|-=|:=|=)[ \t]*"[^"]*"/))
				err("cannot parse: " line)
			tok = substr(line, 1, RLENGTH)
			line = substr(line, RLENGTH + 1)
			sub(/^[ \t]*,?[ \t]*/, "", line)
			key = tok; sub(/[ \t]*[!+:=-].*/, "", key)
			op = tok; sub(/^[A-Z]+[ \t]*/, "", op); sub(/[ \t]*".*/, "", op)
			val = tok; sub(/^[^"]*"/, "", val); sub(/"$/, "", val)
			if ((key == "KERNEL" || key == "SUBSYSTEM") && op == "==") {
				if (val ~ /[][*?|]/) err("glob in " key "==\"" val "\"")
				if (key == "KERNEL" && val != kernel) ok = 0
				if (key == "SUBSYSTEM" && val != subsystem) ok = 0
				seen++
			} else if (key == "GROUP" && op == "=") {
				if (val !~ /^[a-z_][a-z0-9_-]*$/) err("GROUP \"" val "\"")
				g = val
			} else if (key == "MODE" && op == "=") {
				if (val !~ /^0?[0-7][0-7][0-7]$/) err("MODE \"" val "\"")
				m = val
			} else {
				err("not understood: " key op)
			}
		}
		if (!seen) err("a rule with no match")
		if (ok) {
			matched++
			if (g != "") group = g
			if (m != "") mode = m
		}
	}
	END {
		if (bad) exit 1
		if (!start) { print "error: no " mark " in this script"; exit 1 }
		if (!rules) { print "error: no rules"; exit 1 }
		printf "rules=%d matched=%d\n", rules, matched
		if (group != "") print "group=" group
		if (mode != "") print "mode=" mode
	}' "$0"
}

udev_rule_gives_group_pmu_mode_0660() {
	if [ ! -c /dev/pmuctl ]; then
		fail "no /dev/pmuctl"
		return
	fi
	sys=$(readlink -f /sys/class/misc/pmuctl)
	kname=$(basename "$sys")
	subsys=$(basename "$(readlink -f "$sys/subsystem")")
	devname=$(sed -n 's/^DEVNAME=//p' "$sys/uevent")
	echo "# device: $sys KERNEL=$kname SUBSYSTEM=$subsys DEVNAME=$devname dev=$(cat "$sys/dev")" >>"$tmp/log"
	node=/dev/$devname
	[ "$node" = /dev/pmuctl ] || fail "DEVNAME=$devname, not pmuctl"
	# major:minor of the node against the device's dev attribute.
	nodedev=$(stat -c '%t %T' "$node" | while read -r a b; do
		echo "$((0x$a)):$((0x$b))"; done)
	[ "$nodedev" = "$(cat "$sys/dev")" ] || fail "$node is $nodedev, the device $(cat "$sys/dev")"
	before=$(stat -c '%u:%g %a' "$node")
	echo "# before the rule: $before" >>"$tmp/log"
	[ "$before" = "0:0 600" ] || fail "the module made $node $before, not 0:0 600 (root:root)"

	# The group the admin creates (groupadd --system pmu; usermod -aG pmu
	# counter) and two users; udev looks GROUP up by name.
	mkdir -p /etc
	printf '%s\n' 'root:x:0:0:root:/:/bin/sh' 'counter:x:1000:1000::/tmp:/bin/sh' \
		'outsider:x:1001:1001::/tmp:/bin/sh' >/etc/passwd
	printf '%s\n' 'root:x:0:' 'pmu:x:990:counter' 'counter:x:1000:' \
		'outsider:x:1001:' >/etc/group

	apply_rules "$kname" "$subsys" >"$tmp/rules"
	sed 's/^/# rules: /' "$tmp/rules" >>"$tmp/log"
	if grep -q '^error' "$tmp/rules"; then
		fail "$(grep '^error' "$tmp/rules")"
		return
	fi
	grep -q '^matched=0' "$tmp/rules" && fail "no rule matched the device"
	group=$(sed -n 's/^group=//p' "$tmp/rules")
	mode=$(sed -n 's/^mode=//p' "$tmp/rules")
	[ -z "$group" ] || chgrp "$group" "$node" || fail "chgrp $group $node failed"
	[ -z "$mode" ] || chmod "$mode" "$node" || fail "chmod $mode $node failed"
	after=$(stat -c '%u:%g %a' "$node")
	echo "# after the rule: $after" >>"$tmp/log"
	[ "$after" = "0:990 660" ] || fail "$node is $after after the rule, not 0:990 660 (root:pmu)"
}

# open_as USER: USER (with the groups /etc/group gives it) opens the device
# read-write; pmuctl.ko admits users without CAP_PERFMON at paranoid 2.
open_as() {
	par=/sys/module/pmuctl/parameters/paranoid
	if [ -w "$par" ]; then
		echo 2 >"$par"
	else
		fail "no $par: pmuctl is not loaded"
	fi
	run su "$1" -c 'id; : 3<>/dev/pmuctl && echo opened'
}

pmu_member_opens_the_device() {
	open_as counter
	grep -q '^uid=1000(counter) .*990(pmu)' "$tmp/out" ||
		fail "counter is not uid 1000 in group pmu"
	grep -q '^opened$' "$tmp/out" || fail "counter (group pmu) could not open /dev/pmuctl"
}

non_member_is_refused() {
	open_as outsider
	grep -q '^uid=1001(outsider)' "$tmp/out" || fail "outsider is not uid 1001"
	! grep -q '^opened$' "$tmp/out" || fail "outsider (not in pmu) opened /dev/pmuctl"
	grep -q 'Permission denied' "$tmp/out" || fail "outsider not refused with EACCES"
}

rig_module_restored() {
	restore
	loaded "$rig_mod" || fail "$rig_mod not loaded again"
	[ -c /dev/pmuctl ] || fail "no /dev/pmuctl after the restore"
	[ "$(stat -c '%u:%g %a' /dev/pmuctl)" = "0:0 600" ] ||
		fail "/dev/pmuctl is $(stat -c '%u:%g %a' /dev/pmuctl), not as the module makes it"
	[ ! -e "$moddir" ] || fail "$moddir left behind"
	[ "$made_etc" = 0 ] || [ ! -e /etc ] || fail "/etc left behind"
	trap 'rm -rf "$tmp"' EXIT
}

# ---- run them ---------------------------------------------------------------

for t in $TESTS; do
	n=$((n + 1))
	why=
	: >"$tmp/why"
	: >"$tmp/log"
	$t
	if [ -z "$why" ]; then
		echo "ok $n $t"
	else
		failed=$((failed + 1))
		echo "not ok $n $t"
		sed 's/^/# /' "$tmp/why"
	fi
	cat "$tmp/log"
done
# The rules the build appends follow: the script ends here.
[ "$failed" = 0 ] && exit 0
exit 1
