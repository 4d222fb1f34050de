#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the pmuctl tool's info, list, stat and watch on a host without
# the device: usage errors and exit codes, the one-line diagnosis of a
# device that cannot be used (module not loaded, no PMU, not the device,
# no permission), and list's output and patterns.  Needs only the tool (env
# PMUCTL, default build/bin/pmuctl) and libpfm4.  PMUCTL_DEVICE points the
# tool at paths of our choosing and PMUCTL_CPUINFO at a made-up
# /proc/cpuinfo, so every branch runs on any host.  What needs the device
# is tested in the QEMU guests (selftests/device/tool_*).

PMUCTL=${PMUCTL:-build/bin/pmuctl}

if [ ! -x "$PMUCTL" ]; then
	echo "TAP version 13"
	echo "1..0"
	echo "Bail out! no executable pmuctl at '$PMUCTL': build it or set PMUCTL"
	exit 1
fi
PMUCTL=$(cd "$(dirname "$PMUCTL")" && pwd)/$(basename "$PMUCTL")

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

. "$(dirname "$0")/../tap.sh"

run() {		# run ARGS...: sets rc, $tmp/out, $tmp/err
	"$PMUCTL" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

diag() {	# what the last command did
	echo "cmd: pmuctl $*"
	echo "exit: $rc"
	sed 's/^/stdout: /' "$tmp/out"
	sed 's/^/stderr: /' "$tmp/err"
}

finish() {	# finish NAME OK ARGS...: report with the diagnostic on failure
	local name=$1 ok=$2 d=()

	shift 2
	mapfile -t d < <(diag "$@")
	report "$ok" "$name" "${d[@]}"
}

# expect_usage NAME CMD ARGS...: exit 2, nothing on stdout, on stderr one
# line "pmuctl CMD: ..." and the pointer to CMD's help.
expect_usage() {
	local name=$1 cmd=$2 ok=1

	shift
	run "$@"
	[ "$rc" = 2 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[ "$(wc -l <"$tmp/err")" = 2 ] || ok=0
	[[ "$(head -n 1 "$tmp/err")" == "pmuctl $cmd: "* ]] || ok=0
	[ "$(tail -n 1 "$tmp/err")" = "try 'pmuctl $cmd --help'" ] || ok=0
	finish "$name" "$ok" "$@"
}

# expect_fail NAME REGEX ARGS...: exit 1, nothing on stdout, exactly one
# stderr line matching REGEX (extended, anchored).
expect_fail() {
	local name=$1 re=$2 ok=1

	shift 2
	run "$@"
	[ "$rc" = 1 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[ "$(wc -l <"$tmp/err")" = 1 ] || ok=0
	[[ "$(cat "$tmp/err")" =~ ^$re$ ]] || ok=0
	finish "$name" "$ok" "$@"
}

# --- usage errors --------------------------------------------------------

expect_usage stat_needs_a_command stat
expect_usage stat_needs_a_command_after_options stat -e instructions --
expect_usage stat_rejects_zero_repeats stat -r 0 -- true
expect_usage stat_rejects_a_cpu_list stat -C 0-1 -- true
expect_usage stat_rejects_csv_and_json stat -x , --json -- true
expect_usage stat_rejects_empty_separator stat -x '' -- true
expect_usage stat_rejects_unknown_option stat --frobnicate -- true
expect_usage stat_option_needs_value stat -e
expect_usage stat_rejects_empty_event stat -e 'instructions,,cycles' -- true
expect_usage stat_rejects_trailing_comma stat -e 'instructions,' -- true
expect_usage stat_rejects_33_events stat -e "$(printf 'r3003c,%.0s' {1..32})r3003c" -- true
expect_usage stat_rejects_cpu_outside_affinity stat -C 8191 -- true
# --per-thread counts threads: not a CPU (-C), and one run (-r N > 1); the
# message names both options, before the device is opened.
for args in "--per-thread -C 0" "-C 0 --per-thread" "--per-thread -r 2" "-r 3 --per-thread"; do
	# shellcheck disable=SC2086 # the options, split
	PMUCTL_DEVICE=$tmp/none expect_usage "stat_per_thread_rejects ${args}" stat $args -- true
	case $args in
	*-C*) want="pmuctl stat: --per-thread and -C exclude each other: " ;;
	*) want="pmuctl stat: --per-thread and -r ${args//[!0-9]/} exclude each other: " ;;
	esac
	ok=1
	[[ "$(head -n 1 "$tmp/err")" == "$want"* ]] || ok=0
	# shellcheck disable=SC2086
	finish "stat_per_thread_message_names_both ${args}" "$ok" stat $args -- true
done
# -r 1 is one run: accepted (the missing device is what fails).
PMUCTL_DEVICE=$tmp/none run stat --per-thread -r 1 -- true
ok=1
[ "$rc" = 1 ] || ok=0
finish stat_per_thread_takes_one_run "$ok" stat --per-thread -r 1 -- true
expect_usage watch_rejects_short_interval watch -I 5
expect_usage watch_rejects_zero_count watch -n 0
expect_usage watch_rejects_reversed_range watch -C 3-1
expect_usage watch_rejects_bad_cpu_list watch -C 0-
expect_usage watch_rejects_huge_cpu watch -C 99999
expect_usage watch_rejects_arguments watch extra
expect_usage watch_rejects_csv_and_json watch -x , -j
expect_usage watch_rejects_empty_event watch -e ,cycles
expect_usage info_rejects_arguments info extra
expect_usage info_rejects_options info --all
expect_usage list_takes_one_pattern list a b
expect_usage list_rejects_unknown_pmu list --pmu k1om

# A usage error comes before the device is opened: same with no device.
PMUCTL_DEVICE=$tmp/none expect_usage usage_error_before_device stat -r x -- true

# stat stops reading its options at COMMAND: COMMAND's own options are its.
PMUCTL_DEVICE=$tmp/none run stat true --frobnicate
ok=1
[ "$rc" = 1 ] || ok=0
grep -q -- frobnicate "$tmp/err" && ok=0
finish stat_leaves_command_options_alone "$ok" stat true --frobnicate

# --- help ----------------------------------------------------------------

for c in info list stat watch check; do
	run "$c" --help
	ok=1
	[ "$rc" = 0 ] || ok=0
	[[ "$(head -n 1 "$tmp/out")" == "usage: pmuctl $c"* ]] || ok=0
	[ -s "$tmp/err" ] && ok=0
	finish "help_of_$c" "$ok" "$c" --help
	run help "$c"
	cmp -s "$tmp/out" <("$PMUCTL" "$c" --help)
	finish "help_command_shows_$c" $((! $?)) help "$c"
done
run --help
ok=1
for c in info list stat watch check; do
	grep -q "^  $c " "$tmp/out" || ok=0
done
finish main_help_lists_every_command "$ok" --help

# --- the device cannot be used: one line, exit 1 -------------------------

intel=$tmp/cpuinfo-intel
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc arch_perfmon pebs bts\n\n' >"$intel"
noperfmon=$tmp/cpuinfo-noperfmon
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc hypervisor\n\n' >"$noperfmon"
amd=$tmp/cpuinfo-amd
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu tsc perfctr_core\n\n' >"$amd"
missing=$tmp/no-such-device

if [ -e /sys/module/pmuctl ]; then
	for c in info stat watch; do
		skip "${c}_says_module_not_loaded" "pmuctl is loaded on this host"
	done
	skip stat_says_module_not_loaded_with_env_hint "pmuctl is loaded on this host"
	skip missing_device_on_amd_is_no_pmu "pmuctl is loaded on this host"
	skip missing_device_without_arch_perfmon_is_no_pmu "pmuctl is loaded on this host"
else
	NOT_LOADED="pmuctl CMD: $missing does not exist: the pmuctl module is not loaded; load it with 'sudo modprobe pmuctl' \(or 'sudo insmod pmuctl.ko' in the build tree\), or fix PMUCTL_DEVICE"
	for c in info stat watch; do
		args=("$c")
		[ "$c" = stat ] && args+=(-- true)
		PMUCTL_DEVICE=$missing PMUCTL_CPUINFO=$intel \
			expect_fail "${c}_says_module_not_loaded" "${NOT_LOADED/CMD/$c}" "${args[@]}"
	done
	PMUCTL_DEVICE=$missing PMUCTL_CPUINFO=$amd \
		expect_fail missing_device_on_amd_is_no_pmu \
		"pmuctl info: $missing does not exist: no PMU that pmuctl drives: this CPU is not Intel \(vendor_id AuthenticAMD\).*" info
	PMUCTL_DEVICE=$missing PMUCTL_CPUINFO=$noperfmon \
		expect_fail missing_device_without_arch_perfmon_is_no_pmu \
		"pmuctl watch: $missing does not exist: no PMU that pmuctl drives: this CPU shows no PMU \(no arch_perfmon flag in /proc/cpuinfo\): in a VM, give the guest a virtual PMU.*" watch
	# Without PMUCTL_DEVICE the line does not talk about it.
	PMUCTL_CPUINFO=$intel run info
	ok=1
	if [ -e /dev/pmuctl ]; then
		skip info_default_device_message "/dev/pmuctl exists"
	else
		[ "$rc" = 1 ] || ok=0
		[[ "$(cat "$tmp/err")" == "pmuctl info: /dev/pmuctl does not exist: the pmuctl module is not loaded; load it with 'sudo modprobe pmuctl' (or 'sudo insmod pmuctl.ko' in the build tree)" ]] || ok=0
		finish info_default_device_message "$ok" info
	fi
fi

echo "not a device" >"$tmp/file"
PMUCTL_DEVICE=$tmp/file expect_fail regular_file_is_not_the_device \
	"pmuctl info: $tmp/file is not the pmuctl device \(Inappropriate ioctl for device\): point PMUCTL_DEVICE at /dev/pmuctl or unset it" info
PMUCTL_DEVICE=/dev/null expect_fail other_char_device_is_not_the_device \
	"pmuctl stat: /dev/null is not the pmuctl device \(Inappropriate ioctl for device\): point PMUCTL_DEVICE at /dev/pmuctl or unset it" stat -- true
PMUCTL_DEVICE=$tmp expect_fail directory_is_not_the_device \
	"pmuctl watch: $tmp is not the pmuctl device \(Is a directory\): point PMUCTL_DEVICE at /dev/pmuctl or unset it" watch

# No permission: a file only root may open, opened by another user.
chmod 600 "$tmp/file"
if [ "$(id -u)" != 0 ]; then
	chmod 000 "$tmp/file"
	PMUCTL_DEVICE=$tmp/file expect_fail no_permission_says_what_to_do \
		"pmuctl info: no permission to open $tmp/file: run as root, or get access to it \(a udev rule giving it to group 'pmu' with MODE=\"0660\", and membership in 'pmu'\)" info
elif command -v setpriv >/dev/null; then
	PMUCTL_DEVICE=$tmp/file setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMUCTL" info >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	ok=1
	[ "$rc" = 1 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[[ "$(cat "$tmp/err")" == "pmuctl info: no permission to open $tmp/file: run as root, or get access to it (a udev rule giving it to group 'pmu' with MODE=\"0660\", and membership in 'pmu')" ]] || ok=0
	finish no_permission_says_what_to_do "$ok" info "(as uid 65534)"
else
	skip no_permission_says_what_to_do "root without setpriv cannot be denied"
fi

# --- list ----------------------------------------------------------------

# event_lines: the names of the events listed (lines that are not indented
# and not the header).
event_lines() {
	if grep -q '^# libpfm4: ' "$tmp/out"; then
		sed '1,/^# libpfm4: /d' "$tmp/out"
	else
		cat "$tmp/out"
	fi | grep -v '^#' | grep -v '^ ' | sed 's/ (.*//'
}

# intel_lines: the events of Intel's list that list printed, name and raw.
intel_lines() {
	sed -n '/^# intel: /,/^# libpfm4: /p' "$tmp/out" | grep -v '^#' |
		awk '{ print $1, $2 }'
}

PMUCTL_DEVICE=$missing run list --pmu knm offcore
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(head -n 1 "$tmp/out")" = "# pmu: knm (libpfm4 knm): --pmu" ] || ok=0
[ "$(event_lines | tr '\n' ' ')" = "OFFCORE_RESPONSE_0 OFFCORE_RESPONSE_1 " ] || ok=0
finish list_substring_selects_events "$ok" list --pmu knm offcore

# OUTSTANDING is a umask of OFFCORE_RESPONSE_0 only (FACTS.md 2).
awk '/^OFFCORE_RESPONSE_0 /{e=0} /^OFFCORE_RESPONSE_1 /{e=1} /^  :OUTSTANDING /{n[e]++} END{exit !(n[0]==1 && n[1]==0)}' "$tmp/out"
finish list_shows_umasks_per_event $((! $?)) list --pmu knm offcore
grep -q '^  :ANY_RESPONSE  .*\[default\]$' "$tmp/out" && grep -q '^  modifiers: k u e i c=N$' "$tmp/out"
finish list_marks_defaults_and_modifiers $((! $?)) list --pmu knm offcore

# Case-insensitive; a glob matches the whole name, a plain pattern any part.
for t in 'inst_ret*:INST_RETIRED' 'INST_RET*:INST_RETIRED' \
	 '[i]nst_retired:INST_RETIRED' '*inst_retired:INST_RETIRED BR_INST_RETIRED' \
	 'inst_retired:INST_RETIRED BR_INST_RETIRED' 'Inst_Retired:INST_RETIRED BR_INST_RETIRED'; do
	pat=${t%%:*}
	run list --pmu knm "$pat"
	ok=1
	[ "$rc" = 0 ] || ok=0
	[ "$(event_lines | tr '\n' ' ')" = "${t#*:} " ] || ok=0
	finish "list_pattern_${pat//[^A-Za-z_]/_}" "$ok" list --pmu knm "$pat"
done

run list --pmu knm 'retired*'
ok=1
[ "$rc" = 1 ] || ok=0
[ -s "$tmp/out" ] && ok=0
[ "$(cat "$tmp/err")" = "pmuctl list: no event of PMU knm matches 'retired*': try a shorter pattern, or none" ] || ok=0
finish list_glob_is_anchored "$ok" list --pmu knm 'retired*'
run list --pmu knm retired
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(event_lines | grep -c RETIRED)" -ge 2 ] || ok=0
[ "$(event_lines | grep -vc RETIRED)" = 0 ] || ok=0
finish list_substring_matches_inside "$ok" list --pmu knm retired

run list --pmu arch
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(head -n 1 "$tmp/out")" = "# pmu: arch (libpfm4 ix86arch): --pmu" ] || ok=0
event_lines | grep -qx UNHALTED_CORE_CYCLES || ok=0
event_lines | grep -qx INSTRUCTION_RETIRED || ok=0
event_lines | grep -q OFFCORE && ok=0
finish list_arch_has_architectural_events_only "$ok" list --pmu arch

run list --pmu skl
n_skl=$(event_lines | wc -l)
run list --pmu knl
n_knl=$(event_lines | wc -l)
run list --pmu knm
n_knm=$(event_lines | wc -l)
ok=1
[ "$n_skl" -gt 50 ] && [ "$n_knm" -gt 20 ] && [ "$n_skl" != "$n_knm" ] || ok=0
# KNL and KNM share one core PMU table in libpfm4 (FACTS.md 1).
[ "$n_knl" = "$n_knm" ] || ok=0
report "$ok" list_each_pmu_has_its_table "skl $n_skl, knl $n_knl, knm $n_knm events"

# --pmu needs no device: a path that is not one does not matter.
PMUCTL_DEVICE=$tmp/file run list --pmu skl offcore_response_1
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(event_lines)" = OFFCORE_RESPONSE_1 ] || ok=0
finish list_pmu_option_skips_device "$ok" list --pmu skl offcore_response_1

# Without the device: the host's PMU as libpfm4 sees it, or a line saying
# to use --pmu when libpfm4 knows none (a VM without a PMU).
PMUCTL_DEVICE=$missing run list
ok=1
if [ "$rc" = 0 ]; then
	[[ "$(head -n 1 "$tmp/out")" =~ ^"# pmu: ".*": this host's CPU ($missing: No such file or directory)"$ ]] || ok=0
else
	[ "$rc" = 1 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[ "$(cat "$tmp/err")" = "pmuctl list: cannot tell which PMU's events to list: $missing is not usable and libpfm4 knows no core PMU of this CPU; name one with --pmu knm|knl|skl|arch" ] || ok=0
fi
finish list_without_device_uses_host_or_says_pmu "$ok" list

# Intel's names: list prints the list's events with the raw event each
# is (Intel's encoding: MEM_LOAD_RETIRED.L3_MISS is event 0xd1 umask 0x20,
# OCR.DEMAND_DATA_RD.L3_MISS event 0x2a umask 0x01 with OFFCORE_RSP
# 0x3fbfc00001 on Granite Rapids), then libpfm4's.
PMUCTL_DEVICE=$missing run list --pmu gnr l3_miss
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(sed -n 2p "$tmp/out" | cut -c1-52)" = "# intel: gnr: GNR/events/graniterapids_core.json ver" ] || ok=0
intel_lines | grep -qx 'MEM_LOAD_RETIRED.L3_MISS r320d1' || ok=0
intel_lines | grep -qx 'OCR.DEMAND_DATA_RD.L3_MISS r3012a:3fbfc00001' || ok=0
[ "$(intel_lines | grep -vic l3_miss)" = 0 ] || ok=0
grep -q '^# libpfm4: ix86arch$' "$tmp/out" || ok=0
finish list_prints_intels_names_with_their_raw_events "$ok" list --pmu gnr l3_miss
PMUCTL_DEVICE=$missing run list --pmu skx --names 'inst_retired.*'
[ "$rc" = 0 ] && [ "$(LC_ALL=C sort "$tmp/out" | tr '\n' ' ')" = "INST_RETIRED.ANY INST_RETIRED.ANY_P INST_RETIRED.NOP INST_RETIRED.PREC_DIST INST_RETIRED.TOTAL_CYCLES_PS " ]
finish list_names_gives_intels_names $((! $?)) list --pmu skx --names 'inst_retired.*'

# check resolves the same names, on several PMUs at once.
run check --pmu gnr mem_load_retired.l3_miss ocr.demand_data_rd.l3_miss:u
[ "$rc" = 0 ] && [ "$(tr '\n' ' ' <"$tmp/out")" = "ok pmc0 0x320d1 0x0 ok pmc0 0x1012a 0x3fbfc00001 " ]
finish check_takes_intels_names $((! $?)) check --pmu gnr mem_load_retired.l3_miss ocr.demand_data_rd.l3_miss:u
run check --pmu srf,lnl_lnc,arl_skt ocr.demand_data_rd.l3_miss
[ "$rc" = 1 ] && [ "$(grep -c '^# pmu ' "$tmp/out")" = 3 ] &&
	[ "$(sed -n 2p "$tmp/out")" = "ok pmc0 0x301b7 0x3fbfc00001" ] &&
	[ "$(sed -n 4p "$tmp/out")" = "ok pmc0 0x3012a 0x9e7fa000001" ] &&
	[[ "$(sed -n 6p "$tmp/out")" == "error UNKNOWN_EVENT: unknown event 'ocr.demand_data_rd.l3_miss': not in Intel's arl_skt list"* ]]
finish check_takes_a_list_of_pmus $((! $?)) check --pmu srf,lnl_lnc,arl_skt ocr.demand_data_rd.l3_miss
run check --pmu gnr mem_load_retired.l3_mis
[ "$rc" = 1 ] && [[ "$(cat "$tmp/out")" == "error UNKNOWN_EVENT: "*"did you mean MEM_LOAD_RETIRED.L3_MISS, "* ]]
finish check_suggests_the_closest_names $((! $?)) check --pmu gnr mem_load_retired.l3_mis
expect_usage check_refuses_an_unknown_pmu_in_the_list check --pmu gnr,zz r300c0

# Intel's metrics: list --metrics selects by name or group (TopdownL1 is
# Intel's TmaL1) and says which pmuctl cannot compute and why; check -M
# names each metric's pass and the events of each pass.
PMUCTL_DEVICE=$missing run list --metrics --pmu spr TopdownL1
ok=1
[ "$rc" = 0 ] || ok=0
[ "$(grep -v '^#' "$tmp/out" | awk '{ print $1 }' | tr '\n' ' ')" = "Frontend_Bound Bad_Speculation Backend_Bound Retiring Info_Thread_SLOTS Info_Thread_Slots_Utilization Info_Core_CoreIPC Info_Inst_Mix_Instructions " ] || ok=0
grep -q '^Retiring  *BvUW;TmaL1  percent$' "$tmp/out" || ok=0
grep -q '^Info_Thread_Slots_Utilization .*  unavailable: needs counts summed over the core.s SMT threads (TOPDOWN.SLOTS:percore)$' "$tmp/out" || ok=0
finish list_metrics_selects_a_group_and_says_what_is_unavailable "$ok" list --metrics --pmu spr TopdownL1
PMUCTL_DEVICE=$missing run list --metrics --pmu knm
[ "$rc" = 0 ] && grep -q "^# metrics: knl: pmuctl's own, Intel publishes none for this core: events/pmuctl/knl.metrics" "$tmp/out" &&
	grep -q '^Info_Thread_IPC ' "$tmp/out"
finish list_metrics_has_pmuctls_own_where_intel_has_none $((! $?)) list --metrics --pmu knm
PMUCTL_DEVICE=$missing run list --metrics --pmu arch
[ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q "^pmuctl list: no metrics for PMU arch" "$tmp/err"
finish list_metrics_says_where_there_are_none $((! $?)) list --metrics --pmu arch
run check --pmu spr -M TopdownL1,Info_Thread_IPC
ok=1
[ "$rc" = 1 ] || ok=0	# Info_Thread_Slots_Utilization needs percore sums
grep -qx 'metric Frontend_Bound: ok, pass 1' "$tmp/out" || ok=0
grep -qx 'metric Info_Thread_IPC: ok, pass 1' "$tmp/out" || ok=0
grep -q '^metric Info_Thread_Slots_Utilization: unavailable: ' "$tmp/out" || ok=0
grep -q '^pass 1: PERF_METRICS.FRONTEND_BOUND .* TOPDOWN.SLOTS:perf_metrics .*INST_RETIRED.ANY' "$tmp/out" || ok=0
[ "$(tail -n 1 "$tmp/out")" = "passes 1" ] || ok=0
finish check_metrics_names_passes_and_unavailable_metrics "$ok" check --pmu spr -M TopdownL1,Info_Thread_IPC
# Skylake has no PERF_METRICS and 4 counters: TopdownL2 takes several passes.
run check --pmu skx -M TopdownL2
[ "$rc" = 0 ] && [ "$(tail -n 1 "$tmp/out" | cut -d' ' -f2)" -gt 1 ] &&
	grep -q '^metric Memory_Bound: ok, passes 1-.*its value mixes passes$' "$tmp/out"
finish check_metrics_takes_the_passes_it_needs $((! $?)) check --pmu skx -M TopdownL2
expect_usage check_metrics_refuses_an_unknown_name check --pmu spr -M TopdownL9
expect_usage stat_metrics_and_events_exclude_each_other stat -M IPC -e cycles -- true

expect_usage stat_metrics_refuses_an_empty_name stat -M IPC,,CPI -- true
expect_usage check_metrics_takes_no_events check --pmu spr -M IPC r300c0

# check keeps working next to the new commands (selftests/core/check_cli.sh
# tests it in depth).
run check --pmu knm r300c0
[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "ok fixed0 0x300c0 0x0" ]
finish check_still_works $((! $?)) check --pmu knm r300c0

# --version (or -V): one line, the release (the Makefile's VERSION, which
# the build passes to the library), the library's interface (the header's
# LIBPMUCTL_VERSION_MINOR) and the module ABI (uapi's); nothing else may
# follow it.
top=$(cd "$(dirname "$0")/../.." && pwd)
rel=$(sed -n 's/^VERSION := //p' "$top/Makefile")
minor=$(sed -n 's/^#define LIBPMUCTL_VERSION_MINOR[ \t]*//p' "$top/user/libpmuctl.h")
abi=$(sed -n 's/^#define PMUCTL_ABI_VERSION[ \t]*//p' "$top/uapi/linux/pmuctl.h")
for opt in --version -V; do
	run "$opt"
	ok=1
	{ [ "$rc" = 0 ] && [ ! -s "$tmp/err" ]; } || ok=0
	[ "$(cat "$tmp/out")" = "pmuctl $rel (libpmuctl interface 1.$minor, module ABI $abi)" ] || ok=0
	finish "version_names_release_interface_and_abi $opt" "$ok" "$opt"
done
run --version extra
ok=1
{ [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q '^pmuctl: --version takes no argument$' "$tmp/err"; } || ok=0
finish version_takes_no_argument "$ok" --version extra

tap_end
