#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of the bash completion dist/pmuctl.bash, in a real bash (no
# bash-completion package needed): the script is sourced, COMP_LINE,
# COMP_POINT, COMP_WORDS and COMP_CWORD are set as bash sets them for the
# line typed so far (the function reads COMP_LINE: COMP_WORDS splits
# EVENT:UMASK at the colon), _pmuctl is called, and COMPREPLY is checked
# against what the tool itself prints (pmuctl --help, list --pmus,
# list --names), so no list is written twice.  Also pmuctl list --names and
# --pmus themselves.  Needs the tool (env PMUCTL, default build/bin/pmuctl)
# and libpfm4.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

PMUCTL=${PMUCTL:-build/bin/pmuctl}
[ -x "$PMUCTL" ] || bail "no executable pmuctl at '$PMUCTL': make, or set PMUCTL"
PMUCTL=$(cd "$(dirname "$PMUCTL")" && pwd)/$(basename "$PMUCTL")
script=dist/pmuctl.bash
[ -f "$script" ] || bail "no $script"

# comp LINE: the replies to TAB at the end of LINE, one a line (a fresh
# bash each time: nothing carries over from one line to the next).
comp() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	env -i PATH="$(dirname "$PMUCTL"):/usr/bin:/bin" bash --norc --noprofile -c '
		. "$1" || exit 1
		COMP_LINE=$2
		COMP_POINT=${#2}
		read -r -a COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_pmuctl pmuctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || exit 1
		[ ${#COMPREPLY[@]} = 0 ] || printf "%s\n" "${COMPREPLY[@]}"' \
		bash "$script" "$1" </dev/null
}

# expect NAME LINE WANT: the replies to LINE, sorted, are WANT (lines).
expect() {
	local got

	if ! got=$(comp "$2" 2>&1); then
		not_ok "$1" "completing '$2' failed:" "$got"
		return
	fi
	got=$(LC_ALL=C sort -u <<<"$got")
	if [ "$got" = "$(LC_ALL=C sort -u <<<"$3")" ]; then
		ok "$1"
	else
		not_ok "$1" "line: '$2'" "want: $(tr '\n' ' ' <<<"$3")" "got: $(tr '\n' ' ' <<<"$got")"
	fi
}

# prefixed PREFIX: the lines of stdin starting with PREFIX, ignoring case.
prefixed() {
	awk -v p="$1" 'tolower(substr($0, 1, length(p))) == tolower(p)'
}

# --- the tool's lists ---------------------------------------------------------

cmds=$("$PMUCTL" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$cmds" ] || bail "no commands in pmuctl --help"
pmus=$("$PMUCTL" list --pmus 2>&1) || bail "pmuctl list --pmus failed: $pmus"
skl=$("$PMUCTL" list --pmu skl --names 2>&1) || bail "pmuctl list --pmu skl --names failed: $skl"

# --pmus is the table --pmu takes: each one is taken, and nothing else.
d=()
for p in $pmus; do
	"$PMUCTL" list --pmu "$p" >/dev/null 2>&1 || d+=("list --pmu $p refused")
done
"$PMUCTL" list --pmu nosuchpmu >/dev/null 2>&1 && d+=("list --pmu nosuchpmu taken")
grep -qx skl <<<"$pmus" || d+=("no skl in --pmus")
report "$([ ${#d[@]} = 0 ] && echo 1)" list_pmus_are_the_pmus_list_takes "${d[@]}" \
	"--pmus: $(tr '\n' ' ' <<<"$pmus")"

# --names: perf's names that resolve, every event of list and its umasks.
d=()
for n in instructions cycles INST_RETIRED INST_RETIRED:ANY_P; do
	grep -qx "$n" <<<"$skl" || d+=("no $n")
done
events=$("$PMUCTL" list --pmu skl | sed -n 's/^\([A-Za-z0-9_.]*\) (0x[0-9a-f]*): .*/\1/p')
[ -n "$events" ] || d+=("no event in pmuctl list --pmu skl")
missing=$(LC_ALL=C comm -23 <(LC_ALL=C sort <<<"$events") <(grep -v : <<<"$skl" | LC_ALL=C sort))
[ -z "$missing" ] || d+=("events of list missing: $(head -n 5 <<<"$missing" | tr '\n' ' ')")
grep -qx nosuchevent <<<"$skl" && d+=("nosuchevent listed")
# A name printed must be one check takes (one umask of each event).
bad=()
while read -r n; do
	"$PMUCTL" check --pmu skl "$n" >/dev/null 2>&1 || bad+=("$n")
done < <(grep : <<<"$skl" | awk -F: '!seen[$1]++' | grep -v -e '^OFFCORE_RESPONSE' -e '^OCR')
[ ${#bad[@]} = 0 ] || d+=("names check refuses: ${bad[*]:0:8}")
report "$([ ${#d[@]} = 0 ] && echo 1)" list_names_prints_the_names_of_the_resolver "${d[@]}"

"$PMUCTL" list --pmus --names >/dev/null 2>&1 && rc=0 || rc=$?
report "$([ "$rc" = 2 ] && echo 1)" list_pmus_with_names_is_a_usage_error "exit $rc, want 2"

# --- completion ---------------------------------------------------------------

expect completes_every_command 'pmuctl ' "$cmds"
expect completes_a_command_prefix 'pmuctl st' stat
expect completes_help_command 'pmuctl help wa' watch
opts=$("$PMUCTL" stat --help | grep -E '^ +-' | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' |
	tr -d ' ,' | prefixed --)
expect completes_every_long_option 'pmuctl stat --' "$opts"
expect completes_an_option 'pmuctl check --gr' --group
expect completes_list_names_option 'pmuctl list --na' --names
expect completes_pmus 'pmuctl check --pmu ' "$pmus"
expect completes_pmu_after_equals 'pmuctl check --pmu=s' "$(prefixed s <<<"$pmus")"
expect completes_event_prefix_any_case 'pmuctl check --pmu skl inst' \
	"$(prefixed inst <<<"$skl")"
# That includes perf's name and libpfm4's.
got=$(comp 'pmuctl check --pmu skl inst')
report "$(grep -qx instructions <<<"$got" && grep -qx INST_RETIRED <<<"$got" && echo 1)" \
	inst_offers_instructions_and_inst_retired "got: $(tr '\n' ' ' <<<"$got")"
# bash replaces what follows the colon: the replies are the umasks.
expect completes_umasks_after_colon 'pmuctl check -p skl inst_retired:a' \
	"$(prefixed INST_RETIRED:A <<<"$skl" | sed 's/^[^:]*://')"
expect completes_events_of_the_pmu_given 'pmuctl check -p knl cyc' \
	"$("$PMUCTL" list --pmu knl --names | prefixed cyc)"

# -M: the metrics, groups and short names of the PMU given (list --metrics
# --names), the last of a comma list.
expect completes_metric_groups_of_the_pmu_given 'pmuctl check -p spr -M Topd' \
	"$(printf 'TopdownL1\nTopdownL2')"
expect completes_the_last_metric_of_a_list 'pmuctl check -p spr -M IPC,Info_Thread_I' \
	"$("$PMUCTL" list --metrics --pmu spr --names | prefixed Info_Thread_I | sed 's/^/IPC,/')"

# stat -e takes the PMU stat would use (this host's, without the device).
host=$("$PMUCTL" list --names 2>/dev/null || true)
if grep -qx cycles <<<"$host"; then
	expect completes_the_last_event_of_an_e_list 'pmuctl stat -e instructions,cyc' \
		"$(prefixed cyc <<<"$host" | sed 's/^/instructions,/')"
else
	skip completes_the_last_event_of_an_e_list "pmuctl list --names knows no PMU on this host"
fi

expect completes_help_of_a_command_without_option_lines 'pmuctl info --' --help
# An option whose value --help calls FILE (stat -o FILE): files.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/report.txt"
expect completes_files_for_a_file_option "pmuctl stat -o $tmp/rep" "$tmp/report.txt"
expect completes_files_after_equals "pmuctl stat --output=$tmp/rep" "$tmp/report.txt"
# stat's command: a command name after "--", then its files.
got=$(comp 'pmuctl stat -e cycles -- bas')
report "$(grep -qx bash <<<"$got" && echo 1)" completes_the_command_after_dashdash \
	"got: $(tr '\n' ' ' <<<"$got")"
expect completes_the_commands_files "pmuctl stat -- cat $tmp/rep" "$tmp/report.txt"

expect unknown_command_prefix_gives_nothing 'pmuctl zz' ''
expect unknown_option_prefix_gives_nothing 'pmuctl check --zz' ''
expect unknown_event_prefix_gives_nothing 'pmuctl check --pmu skl zzz' ''
expect unknown_umask_prefix_gives_nothing 'pmuctl check --pmu skl INST_RETIRED:ZZ' ''
expect no_pmu_beyond_the_list 'pmuctl check --pmu=zz' ''

tap_end
