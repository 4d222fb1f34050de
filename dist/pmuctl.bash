# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# bash completion for pmuctl(1).  "make install" puts it in
# $(PREFIX)/share/bash-completion/completions/pmuctl, where bash-completion
# loads it on the first TAB after "pmuctl"; without bash-completion,
# source it from ~/.bashrc.
#
# Nothing here is a copy of the tool's tables: every word comes from the
# pmuctl being completed (the command line's first word), so it cannot go
# stale:
#   commands        pmuctl --help (its "commands:" lines)
#   options         pmuctl COMMAND --help (its lines that start with "-")
#   --pmu values    pmuctl list --pmus
#   metric names    pmuctl list --metrics --names [--pmu PMU] (-M)
#   event names     pmuctl list --names [--pmu PMU]: perf's generic names
#                   that resolve, libpfm4's events and EVENT:UMASK; for
#                   stat and watch the PMU the module drives (else this
#                   host's), for check the --pmu given on the line.  In an
#                   -e list, the event after the last comma.
# Names match case-insensitively: "inst" offers instructions and
# INST_RETIRED.  The value of an option its --help calls FILE: files.
# After stat's "--" (or its first word that is no option): commands, then
# files.
#
# The words are taken from COMP_LINE up to COMP_POINT, split at blanks
# (COMP_WORDS splits EVENT:UMASK at the colon); what bash replaces is the
# part after the last COMP_WORDBREAKS character, so that prefix is cut
# from each reply.

# _pmuctl_opts PMUCTL COMMAND: "OPTION ARG" per option of COMMAND's --help,
# ARG the upper-case word that follows it when it takes a value (LIST,
# FILE...), else 0.
_pmuctl_opts()
{
	"$1" "$2" --help 2>/dev/null | awk '
		/^ +-/ {
			n = split($0, w, /[ ,]+/)
			for (i = 2; i <= n; i++) {
				if (w[i] !~ /^--?[A-Za-z]/)
					break
				v = w[i + 1]
				if (w[i] ~ /^-[A-Za-z]$/ && v ~ /^--/)
					v = w[i + 2]
				arg = (v ~ /^[A-Z][A-Z,.]*$/) ? v : 0
				print w[i], arg
			}
		}'
}

# _pmuctl_match CUR: the lines of stdin that start with CUR, ignoring case.
_pmuctl_match()
{
	local cur=${1,,} w

	while IFS= read -r w; do
		[[ ${w,,} == "$cur"* ]] && printf '%s\n' "$w"
	done
	return 0
}

# _pmuctl_cmds PMUCTL: the commands of PMUCTL --help.
_pmuctl_cmds()
{
	"$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }'
}

_pmuctl()
{
	local bin=$1 line cur i cmd=0 prev='' pmu='' run=0 nwords o a
	local -a words opts=() replies=()
	local -A takes=()

	COMPREPLY=()
	line=${COMP_LINE:0:COMP_POINT}
	read -r -a words <<<"$line"
	# A blank before the cursor starts a new, empty word.
	[[ $line =~ [[:blank:]]$ || ${#words[@]} -eq 0 ]] && words+=('')
	nwords=${#words[@]}
	cur=${words[nwords - 1]}
	((nwords > 2)) && prev=${words[nwords - 2]}
	command -v "$bin" >/dev/null 2>&1 || bin=pmuctl

	# The command: the first word after pmuctl that is no option.
	for ((i = 1; i < nwords - 1; i++)); do
		[[ ${words[i]} == -* ]] || { cmd=$i; break; }
	done
	if ((cmd)); then
		while read -r o a; do
			opts+=("$o")
			takes[$o]=$a
		done < <(_pmuctl_opts "$bin" "${words[cmd]}")
		# Every command takes --help, with option lines or not (info).
		[ -n "${takes[--help]:-}" ] || opts+=(--help)
		# Its options up to the cursor, the --pmu given, and where
		# stat's command starts ("--" or its first word).
		for ((i = cmd + 1; i < nwords - 1; i++)); do
			case ${words[i]} in
			--) run=$((i + 1)); break ;;
			--pmu=*) pmu=${words[i]#--pmu=} ;;
			-p | --pmu) pmu=${words[i + 1]} ;;
			-*) ;;
			*)
				if [[ ${words[i - 1]} == -* && ${takes[${words[i - 1]}]:-0} != 0 ]]; then
					:
				elif [ "${words[cmd]}" = stat ]; then
					run=$i
					break
				fi ;;
			esac
		done
	fi

	if ((!cmd)); then
		if [[ $cur == -* ]]; then
			mapfile -t replies < <(printf '%s\n' --help -h | _pmuctl_match "$cur")
		else
			mapfile -t replies < <(_pmuctl_cmds "$bin" | _pmuctl_match "$cur")
		fi
	elif ((run)); then
		# stat's command: a command name, then files.
		if ((run == nwords - 1)); then
			mapfile -t replies < <(compgen -c -- "$cur")
		else
			mapfile -t replies < <(compgen -f -- "$cur")
		fi
	elif [ "${words[cmd]}" = help ]; then
		((cmd == nwords - 2)) &&
			mapfile -t replies < <(_pmuctl_cmds "$bin" | _pmuctl_match "$cur")
	else
		local val='' opt='' head=''

		# The value of an option: after it, or after its "=".
		if [[ $cur == --*=* ]]; then
			opt=${cur%%=*} val=${cur#*=}
		elif [[ $prev == -* && ${takes[$prev]:-0} != 0 ]]; then
			opt=$prev val=$cur
		fi
		if [ -n "$opt" ]; then
			case $opt in
			-p | --pmu)
				mapfile -t replies < <("$bin" list --pmus 2>/dev/null |
					_pmuctl_match "$val") ;;
			-e | --events)
				if [[ $val == *,* ]]; then
					head=${val%,*}, val=${val##*,}
				fi
				mapfile -t replies < <("$bin" list --names 2>/dev/null |
					_pmuctl_match "$val")
				replies=("${replies[@]/#/$head}") ;;
			-M | --metrics)
				if [[ $val == *,* ]]; then
					head=${val%,*}, val=${val##*,}
				fi
				mapfile -t replies < <("$bin" list --metrics ${pmu:+--pmu "$pmu"} --names 2>/dev/null |
					_pmuctl_match "$val")
				replies=("${replies[@]/#/$head}") ;;
			*)
				# Any option whose value --help calls FILE.
				[ "${takes[$opt]:-0}" = FILE ] &&
					mapfile -t replies < <(compgen -f -- "$val") ;;
			esac
			[[ $cur == --*=* ]] && replies=("${replies[@]/#/$opt=}")
		elif [[ $cur == -* ]]; then
			mapfile -t replies < <(printf '%s\n' "${opts[@]}" | _pmuctl_match "$cur")
		elif [ "${words[cmd]}" = check ] || [ "${words[cmd]}" = list ]; then
			mapfile -t replies < <("$bin" list ${pmu:+--pmu "$pmu"} --names 2>/dev/null |
				_pmuctl_match "$cur")
		elif [ "${words[cmd]}" = stat ]; then
			mapfile -t replies < <(compgen -c -- "$cur")
		fi
	fi

	# bash replaces only what follows the last word-break character.
	local wb=${COMP_WORDBREAKS:-:=} pre
	pre=${cur%"${cur##*["$wb"]}"}
	for i in "${!replies[@]}"; do
		COMPREPLY+=("${replies[i]:${#pre}}")
	done
	return 0
}

complete -F _pmuctl pmuctl
