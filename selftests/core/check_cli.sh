#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of 'pmuctl check': exit codes and output lines for the rules the
# core enforces, the offcore moves and the usage errors.  Offline: needs no
# PMU, only the tool (env PMUCTL, default build/bin/pmuctl) and libpfm4.

PMUCTL=${PMUCTL:-build/bin/pmuctl}

if [ ! -x "$PMUCTL" ]; then
	echo "TAP version 13"
	echo "1..0"
	echo "Bail out! no executable pmuctl at '$PMUCTL': build it or set PMUCTL"
	exit 1
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/../tap.sh"

run() {		# run ARGS...: sets rc, $tmp/out, $tmp/err
	"$PMUCTL" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

diag() {	# what the failed command did
	echo "cmd: pmuctl $*"
	echo "exit: $rc"
	sed 's/^/stdout: /' "$tmp/out"
	sed 's/^/stderr: /' "$tmp/err"
}

# expect NAME RC REGEX... -- ARGS...
# pmuctl ARGS exits RC and prints exactly one stdout line per REGEX, line i
# matching REGEX i (extended, anchored).
expect() {
	local name=$1 want=$2 i=0 ok=1 line
	local -a re=()

	shift 2
	while [ "$1" != "--" ]; do
		re+=("$1")
		shift
	done
	shift
	run "$@"
	[ "$rc" = "$want" ] || ok=0
	[ "$(wc -l <"$tmp/out")" = "${#re[@]}" ] || ok=0
	while IFS= read -r line; do
		[[ $i -lt ${#re[@]} && $line =~ ^${re[$i]}$ ]] || ok=0
		i=$((i + 1))
	done <"$tmp/out"
	local -a d=()
	mapfile -t d < <(diag "$@")
	report "$ok" "$name" "${d[@]}"
}

# expect_usage NAME ARGS...: exit 2, nothing on stdout, on stderr one line
# saying what is wrong and then the pointer to the help.
expect_usage() {
	local name=$1 ok=1

	shift
	run "$@"
	[ "$rc" = 2 ] || ok=0
	[ -s "$tmp/out" ] && ok=0
	[ "$(wc -l <"$tmp/err")" = 2 ] || ok=0
	[ "$(tail -n 1 "$tmp/err")" = "try 'pmuctl check --help'" ] || ok=0
	local -a d=()
	mapfile -t d < <(diag "$@")
	report "$ok" "$name" "${d[@]}"
}

ERR='error [A-Z_0-9]+: .+'

# The three cases of the issue.
expect rejects_outstanding_with_response 1 \
	'error OUTSTANDING_WITH_RESPONSE: .+' -- \
	check --pmu knm 'offcore_response_0:dmnd_data_rd:ddr_near:outstanding'
expect accepts_raw_outstanding_on_pmc0 0 \
	'ok pmc0 0x301b7 0x4000000001' -- \
	check --pmu knm r301b7:4000000001
expect rejects_edge_without_cmask 1 \
	'error EDGE_NO_CMASK: .*c >= 1.*' -- \
	check --pmu knm r500c4

# One event at a time.
expect places_architectural_events_on_fixed_counters 0 \
	'ok fixed0 0x300c0 0x0' 'ok fixed1 0x3003c 0x0' 'ok fixed2 0x30300 0x0' -- \
	check --pmu knm r300c0 r3003c r30300
expect rejects_unknown_event_name 1 \
	'error UNKNOWN_EVENT: .+' -- \
	check --pmu knm no_such_event_anywhere
expect reports_libpfm4_refusal_the_core_accepts 1 \
	'error LIBPFM4: .+' -- \
	check --pmu skl br_inst_retired:conditional:near_call
expect rejects_outstanding_on_rsp1 1 \
	'error OUTSTANDING_ON_RSP1: .+' -- \
	check --pmu knm offcore_response_1:dmnd_data_rd:outstanding
expect keeps_input_order_and_fails_on_one_bad 1 \
	'ok pmc0 0x300c4 0x0' 'error EDGE_NO_CMASK: .+' 'ok fixed0 0x300c0 0x0' -- \
	check --pmu knm r300c4 r500c4 r300c0
expect schedules_each_event_alone_without_group 0 \
	'ok pmc0 0x301b7 0x10001' 'ok pmc0 0x301b7 0x10002' -- \
	check --pmu knm offcore_response_0:dmnd_data_rd:any_response \
	offcore_response_0:dmnd_rfo:any_response
expect rejects_kernel_owned_bits 1 \
	'error KERNEL_BITS: .+' -- \
	check --pmu knm r7000c4
expect rejects_extra_for_event_without_extra_msr 1 \
	'error EXTRA_UNEXPECTED: .+' -- \
	check --pmu skl r300c4:1

# The generic model: architectural events and fixed encodings only (issue 10).
expect arch_refuses_model_specific_events 1 \
	'error NOT_ARCHITECTURAL: .+' 'error NOT_ARCHITECTURAL: .+' \
	'error NOT_ARCHITECTURAL: .+' 'error NOT_ARCHITECTURAL: .+' \
	'error NOT_ARCHITECTURAL: .+' -- \
	check --pmu arch r301b7:10001 r301b7 r301cd:3 r301c6:11 r301c0
expect arch_accepts_architectural_events 0 \
	'ok pmc0 0x300c4 0x0' 'ok pmc0 0x3412e 0x0' 'ok fixed2 0x30300 0x0' \
	'ok fixed0 0x300c0 0x0' 'ok pmc0 0x3013c 0x0' -- \
	check --pmu arch r300c4 r3412e r30300 r300c0 r3013c
expect arch_still_says_extra_unexpected_for_an_architectural_event 1 \
	'error EXTRA_UNEXPECTED: .+' -- \
	check --pmu arch r300c4:10001

# AnyThread on REF_TSC (KNL/KNM fixed counter 2): allowed (issue 10).
expect knl_allows_any_thread_on_ref_tsc 0 \
	'ok fixed2 0x210300 0x0' 'ok fixed2 0x2[13]0300 0x0' -- \
	check --pmu knl r210300 unhalted_reference_cycles:t
expect knm_allows_any_thread_on_ref_tsc 0 \
	'ok fixed2 0x230300 0x0' -- \
	check --pmu knm r230300
expect knm_refuses_any_thread_on_generic_counters 1 \
	'error ANY_NOT_ALLOWED: .+' -- \
	check --pmu knm r2300c4

# AnyThread on perfmon v5+: CPUID.0AH:EDX[15] decides (issue 10).
expect v5_keeps_any_thread_without_edx15 0 \
	'ok pmc0 0x2300c4 0x0' -- \
	check --pmu skl --caps version=5 r2300c4
expect v5_drops_any_thread_with_edx15 1 \
	'error ANY_NOT_ALLOWED: .+' -- \
	check --pmu skl --caps version=5,anythread-deprecated=1 r2300c4
expect v4_ignores_edx15 0 \
	'ok pmc0 0x2300c4 0x0' -- \
	check --pmu skl --caps version=4,anythread-deprecated=1 r2300c4

# Groups.
expect moves_second_offcore_value_to_rsp1_knm 0 \
	'ok pmc[0-9]+ 0x301b7 0x10001' 'ok pmc[0-9]+ 0x302b7 0x10002' -- \
	check --pmu knm --group offcore_response_0:dmnd_data_rd:any_response \
	offcore_response_0:dmnd_rfo:any_response
expect moves_second_offcore_value_to_rsp1_skl 0 \
	'ok pmc[0-9]+ 0x301b7 0x10001' 'ok pmc[0-9]+ 0x301bb 0x10002' -- \
	check --pmu skl --group offcore_response_0:dmnd_data_rd:any_response \
	offcore_response_0:dmnd_rfo:any_response
expect rejects_third_offcore_value 1 \
	'error GROUP: .+' 'error GROUP: .+' 'error OFFCORE_BOTH_BUSY: .+' -- \
	check --pmu knm --group r301b7:10001 r301b7:10002 r301b7:10004
expect accepts_latency_pair 0 \
	'ok pmc0 0x301b7 0x4000000001' 'ok pmc[0-9]+ 0x302b7 0x10001' -- \
	check --pmu knm --group offcore_response_0:dmnd_data_rd:outstanding \
	offcore_response_1:dmnd_data_rd:any_response
expect accepts_latency_pair_moved_from_rsp0 0 \
	'ok pmc0 0x301b7 0x4000000001' 'ok pmc1 0x302b7 0x10001' -- \
	check --pmu knm --group r301b7:4000000001 r301b7:10001
# The pair is the registers it programs: both spellings, one verdict.
expect rejects_latency_mismatch_spelled_rsp1 1 \
	'error GROUP: not scheduled, event 2 failed' \
	'error LATENCY_REQUEST_MISMATCH: .+' -- \
	check --pmu knm --group r301b7:4000000001 r302b7:80800002
expect rejects_latency_mismatch_moved_from_rsp0 1 \
	'error GROUP: not scheduled, event 2 failed' \
	'error LATENCY_REQUEST_MISMATCH: .+' -- \
	check --pmu knm --group r301b7:4000000001 r301b7:80800002
# OUTSTANDING is not a PMC0 constraint: two events share its value.
expect schedules_two_events_sharing_one_outstanding_value 0 \
	'ok pmc0 0x301b7 0x4000000001' 'ok pmc1 0x301b7 0x4000000001' -- \
	check --pmu knm --group r301b7:4000000001 r301b7:4000000001
expect rejects_latency_request_mismatch 1 \
	'error GROUP: not scheduled, event 2 failed' \
	'error LATENCY_REQUEST_MISMATCH: .+' -- \
	check --pmu knm --group offcore_response_0:dmnd_data_rd:outstanding \
	offcore_response_1:dmnd_rfo:any_response
expect rejects_more_events_than_counters 1 \
	'error GROUP: not scheduled, event 3 failed' \
	'error GROUP: not scheduled, event 3 failed' \
	'error COUNTERS_BUSY: .+' -- \
	check --pmu knm --group r300c4 r300c5 r3002e
expect caps_override_adds_counters 0 \
	'ok pmc[0-9]+ 0x300c4 0x0' 'ok pmc[0-9]+ 0x300c5 0x0' 'ok pmc[0-9]+ 0x3002e 0x0' -- \
	check --pmu knm --caps gp=4 --group r300c4 r300c5 r3002e
expect caps_override_removes_fixed_counters 1 \
	'error GROUP: not scheduled, event 2 failed' 'error COUNTERS_BUSY: .+' -- \
	check --pmu arch --caps gp=1,fixed=0 --group r300c0 r3003c
# Skylake with HT off (8 counters): OFFCORE_RESPONSE and 0x04c4 on 0-3 only.
expect skl_ht_off_keeps_offcore_on_counters_0_to_3 1 \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error COUNTERS_BUSY: .+' -- \
	check --pmu skl --caps gp=8 --group r301b7:10001 r301b7:10001 r301b7:10001 \
	r301b7:10001 r301b7:10001
expect skl_ht_off_keeps_04c4_on_counters_0_to_3 1 \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error COUNTERS_BUSY: .+' -- \
	check --pmu skl --caps gp=8 --group r304c4 r304c4 r304c4 r304c4 r304c4
expect skl_ht_off_other_branch_umasks_use_8_counters 0 \
	'ok pmc0 0x300c4 0x0' 'ok pmc1 0x300c4 0x0' 'ok pmc2 0x300c4 0x0' \
	'ok pmc3 0x300c4 0x0' 'ok pmc4 0x300c4 0x0' -- \
	check --pmu skl --caps gp=8 --group r300c4 r300c4 r300c4 r300c4 r300c4
# More than 8 generic counters: clamped to the legacy range, as the module does.
expect caps_clamps_generic_counters_to_8 1 \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error GROUP: not scheduled, event 9 failed' \
	'error COUNTERS_BUSY: .+' -- \
	check --pmu skl --caps gp=12 --group r300c4 r300c4 r300c4 r300c4 r300c4 r300c4 \
	r300c4 r300c4 r300c4
grep -q 'gp=12 clamped to 8' "$tmp/err"
report $((! $?)) caps_clamp_says_so_on_stderr
expect group_fails_on_an_invalid_member 1 \
	'error GROUP: not scheduled, event 2 failed' "$ERR" -- \
	check --pmu knm --group r300c4 r500c4

# Today's cores (issue 12): every --pmu name, by libpfm4 name where it has
# a table, and raw; the model's own rules.
for p in icl icx spr gnr; do
	expect ${p}_places_slots_on_fixed_counter_3 0 \
		'ok fixed3 0x30400 0x0' 'ok fixed0 0x30100 0x0' 'ok fixed0 0x300c0 0x0' -- \
		check --pmu $p r30400 r30100 r300c0
	expect ${p}_refuses_any_thread 1 'error ANY_NOT_ALLOWED: .+' -- \
		check --pmu $p r2300c4
	# topdown metrics: in a group with TOPDOWN.SLOTS at the same levels
	expect ${p}_places_topdown_metrics_with_slots 0 \
		'ok fixed3 0x30400 0x0' 'ok metric0 0x38000 0x0' 'ok metric3 0x38300 0x0' -- \
		check --group --pmu $p r30400 r38000 r38300
	expect ${p}_refuses_topdown_metric_without_slots 1 \
		'error METRICS_NEED_SLOTS: .+' -- check --pmu $p r38000
	expect ${p}_refuses_topdown_metric_at_other_levels 1 \
		'error GROUP: not scheduled, event 2 failed' 'error METRICS_NEED_SLOTS: .+' -- \
		check --group --pmu $p r10400 r38000
done
expect icx_has_four_topdown_metrics 1 \
	'error GROUP: not scheduled, event 2 failed' 'error METRICS_UNAVAILABLE: .+' -- \
	check --group --pmu icx r30400 r38400
expect spr_has_eight_topdown_metrics 0 \
	'ok fixed3 0x30400 0x0' 'ok metric7 0x38700 0x0' -- check --group --pmu spr r30400 r38700
expect skl_has_no_topdown_metrics 1 'error METRICS_UNAVAILABLE: .+' -- \
	check --pmu skl r38000
expect icl_names_its_events 0 \
	'ok fixed3 0x30400 0x0' 'ok pmc0 0x301b7 0x10001' -- \
	check --pmu icl topdown:slots offcore_response_0:demand_data_rd_any_response
expect icx_names_its_events 0 \
	'ok fixed3 0x30400 0x0' 'ok pmc0 0x301bb 0x10001' -- \
	check --pmu icx topdown:slots offcore_response_1:demand_data_rd_any_response
expect spr_names_its_events 0 \
	'ok fixed3 0x30400 0x0' 'ok pmc0 0x3012a 0x10001' 'ok pmc0 0x3012a 0x3fbfc00001' -- \
	check --pmu spr topdown:slots ocr:demand_data_rd_any_response ocr:demand_data_rd_l3_miss
# libpfm4 4.13 writes these TOPDOWN umasks with event select 0; they are
# event 0xa4 (Intel's lists), not fixed counters 1 and 3.
expect icl_topdown_backend_bound_is_event_a4 0 \
	'ok pmc0 0x302a4 0x0' 'ok pmc0 0x308a4 0x0' 'ok fixed3 0x30400 0x0' -- \
	check --pmu icl topdown:backend_bound_slots topdown:br_mispredict_slots topdown:slots
expect spr_topdown_bad_spec_is_event_a4_on_counter_0 0 \
	'ok pmc0 0x304a4 0x0' 'ok pmc0 0x310a4 0x0' 'ok pmc0 0x202a4 0x0' -- \
	check --pmu spr topdown:bad_spec_slots topdown:memory_bound_slots topdown:k:backend_bound_slots
# ... and its spr OFFCORE_RESPONSE_1 is RSP_0's 0x012a: pmuctl writes 0x2b.
expect spr_offcore_response_1_is_rsp1 0 'ok pmc0 0x3012b 0x10001' -- \
	check --pmu spr offcore_response_1:demand_data_rd_any_response
expect gnr_names_architectural_events 0 'ok fixed1 0x3003c 0x0' 'ok pmc0 0x300c4 0x0' -- \
	check --pmu gnr unhalted_core_cycles branch_instructions_retired
expect spr_moves_second_ocr_value_to_rsp1 0 \
	'ok pmc[0-3] 0x3012a 0x10001' 'ok pmc[0-3] 0x3012b 0x10002' -- \
	check --pmu spr --group r3012a:10001 r3012a:10002
expect spr_refuses_skylake_offcore_encoding_with_extra 1 \
	'error EXTRA_UNEXPECTED: .+' -- check --pmu spr r301b7:10001
expect icl_refuses_golden_cove_ocr_encoding_with_extra 1 \
	'error EXTRA_UNEXPECTED: .+' -- check --pmu icl r3012a:10001
expect icl_refuses_offcore_request_bit_14 1 'error EXTRA_MASK: .+' -- \
	check --pmu icl r301b7:14000
expect spr_shares_frontend_between_its_selectors 1 \
	'error GROUP: not scheduled, event 2 failed' 'error FRONTEND_BUSY: .+' -- \
	check --pmu spr --group r301c6:11 r340ad:1
expect spr_frontend_selectors_share_one_value 0 \
	'ok pmc[0-7] 0x340ad 0x1' 'ok pmc[0-7] 0x340ad 0x1' -- \
	check --pmu spr --group r340ad:1 r340ad:1
expect spr_keeps_counter_0_only_events_apart 1 \
	'error GROUP: not scheduled, event 2 failed' 'error COUNTERS_BUSY: .+' -- \
	check --pmu spr --group r304a4 r308a4
expect icl_lets_stalls_total_use_8_counters 0 \
	'ok pmc[0-7] 0x104a3 0x0' 'ok pmc[0-7] 0x104a3 0x0' 'ok pmc[0-7] 0x104a3 0x0' \
	'ok pmc[0-7] 0x104a3 0x0' 'ok pmc[0-7] 0x104a3 0x0' -- \
	check --pmu icl --group r104a3 r104a3 r104a3 r104a3 r104a3
expect icl_keeps_other_cycle_activity_on_counters_0_to_3 1 \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error GROUP: not scheduled, event 5 failed' \
	'error COUNTERS_BUSY: .+' -- \
	check --pmu icl --group r108a3 r108a3 r108a3 r108a3 r108a3
expect adl_glc_is_golden_cove 0 \
	'ok fixed3 0x30400 0x0' 'ok pmc0 0x3012a 0x10001' 'ok pmc[0-7] 0x340ad 0x1' -- \
	check --pmu adl_glc r30400 r3012a:10001 r340ad:1
for p in adl_grt srf; do
	expect ${p}_has_no_fixed_counter_3 1 'error NO_ELIGIBLE_COUNTER: .+' -- \
		check --pmu $p r30400
	expect ${p}_takes_intel_fixed_encodings 0 \
		'ok fixed0 0x30100 0x0' 'ok fixed1 0x30200 0x0' 'ok fixed2 0x30300 0x0' -- \
		check --pmu $p r30100 r30200 r30300
	expect ${p}_keeps_load_latency_on_counters_0_and_1 1 \
		'error GROUP: not scheduled, event 3 failed' \
		'error GROUP: not scheduled, event 3 failed' 'error COUNTERS_BUSY: .+' -- \
		check --pmu $p --group r305d0:4 r305d0:4 r305d0:4
	expect ${p}_refuses_any_thread 1 'error ANY_NOT_ALLOWED: .+' -- \
		check --pmu $p r2300c4
done
expect srf_refuses_snoop_rsp_events 1 'error EXTRA_UNSUPPORTED: .+' -- \
	check --pmu srf r30127
expect adl_grt_takes_0x27_as_a_plain_event 0 'ok pmc0 0x30127 0x0' -- \
	check --pmu adl_grt r30127
expect adl_grt_moves_second_ocr_value_to_rsp1 0 \
	'ok pmc[0-5] 0x301b7 0x10001' 'ok pmc[0-5] 0x302b7 0x10002' -- \
	check --pmu adl_grt --group r301b7:10001 r301b7:10002
# One resolver (issue 13): check names events as stat and watch do, with
# perf's generic names (Linux 6.12 intel_perfmon_event_map) and libpfm4's
# names as libpmuctl corrects them.
expect skl_takes_perfs_generic_names 0 \
	'ok fixed1 0x3003c 0x0' 'ok fixed0 0x300c0 0x0' 'ok fixed2 0x30300 0x0' \
	'ok pmc0 0x300c4 0x0' 'ok pmc0 0x300c5 0x0' 'ok pmc0 0x3013c 0x0' \
	'ok pmc0 0x34f2e 0x0' 'ok pmc0 0x3412e 0x0' 'ok fixed1 0x1003c 0x0' \
	'ok fixed1 0x2003c 0x0' -- \
	check --pmu skl cycles instructions ref-cycles branches branch-misses \
	bus-cycles cache-references cache-misses cycles:u cycles:k
# Lunar Lake / Arrow Lake-S (perfmon v6): Lion Cove's 10 generic counters,
# Skymont's fixed counters 4-6, umask2 and eq where leaf 23H has them.
expect lnl_lnc_places_ten_branches_events 0 \
	'ok pmc0 0x300c4 0x0' 'ok pmc1 0x300c4 0x0' 'ok pmc2 0x300c4 0x0' \
	'ok pmc3 0x300c4 0x0' 'ok pmc4 0x300c4 0x0' 'ok pmc5 0x300c4 0x0' \
	'ok pmc6 0x300c4 0x0' 'ok pmc7 0x300c4 0x0' 'ok pmc8 0x300c4 0x0' \
	'ok pmc9 0x300c4 0x0' -- \
	check --pmu lnl_lnc --group r300c4 r300c4 r300c4 r300c4 r300c4 r300c4 \
	r300c4 r300c4 r300c4 r300c4
expect lnl_lnc_keeps_load_latency_off_counters_0_and_1 0 'ok pmc2 0x301cd 0x3' -- \
	check --pmu lnl_lnc r301cd:3
# BR_INST_RETIRED.COND_TAKEN (Intel's LNL list: 0xc4 umask 0x01 umask2 0x01)
expect lnl_lnc_takes_umask2 0 'ok pmc0 0x100000301c4 0x0' -- \
	check --pmu lnl_lnc r100000301c4
expect lnl_lnc_takes_eq 0 'ok pmc0 0x10010300c4 0x0' -- \
	check --pmu lnl_lnc r10010300c4
expect srf_refuses_umask2 1 'error UMASK2_UNAVAILABLE: .+' -- \
	check --pmu srf r100000301c4
expect spr_refuses_eq 1 'error EQ_UNAVAILABLE: .+' -- \
	check --pmu spr r10010300c4
expect lnl_skt_has_fixed_counters_4_to_6 0 \
	'ok fixed4 0x30500 0x0' 'ok fixed5 0x30600 0x0' 'ok fixed6 0x30700 0x0' \
	'ok fixed4 0x30073 0x0' -- \
	check --pmu lnl_skt r30500 r30600 r30700 r30073
expect lnl_skt_has_no_fixed_counter_3 1 'error NO_ELIGIBLE_COUNTER: .+' -- \
	check --pmu lnl_skt r30400
expect lnl_skt_takes_request_bits_44_to_51 0 'ok pmc0 0x301b7 0xff0000001dfff' -- \
	check --pmu lnl_skt r301b7:ff0000001dfff
for p in spr gnr adl_glc adl_grt srf lnl_lnc lnl_skt; do
	# intel_pmu_ref_cycles_ext(): REF_TSC_P 0x013c, on fixed counter 2
	expect ${p}_ref_cycles_is_0x013c 0 'ok fixed2 0x3013c 0x0' -- \
		check --pmu $p ref-cycles
done
expect generic_name_takes_only_u_and_k 1 \
	"error UNKNOWN_EVENT: perf's name 'cycles' takes the modifiers u and k only .+" -- \
	check --pmu skl cycles:c=1
# libpfm4 4.13's Skylake ANY_REQUEST is 0x18007 (bit 16 = ANY_RESPONSE):
# next to a supplier it is 0x8007 here as in stat, not a mix to refuse.
expect skl_any_request_with_supplier_is_0x8007 0 \
	'ok fixed1 0x3003c 0x0' 'ok pmc0 0x301b7 0x3f84008007' -- \
	check --pmu skl cycles offcore_response_0:l3_miss
expect skl_named_any_response_stays_a_mix 1 \
	'error OFFCORE_ANY_RESPONSE_MIXED: .+' -- \
	check --pmu skl offcore_response_0:any_request:any_response:l3_miss
# A snoop alone gets libpfm4's default ANY_RESPONSE: say so, and what to write.
expect skl_snoop_without_supplier_says_libpfm4_added_any_response 1 \
	"error LIBPFM4: libpfm4 added ANY_RESPONSE, its default response, to a snoop without a supplier: .+ write 'offcore_response_0:dmnd_data_rd:snp_none:l3_hit' .+" -- \
	check --pmu skl offcore_response_0:dmnd_data_rd:snp_none
expect skl_snoop_with_the_suggested_supplier_is_valid 0 \
	'ok pmc0 0x301b7 0x801c0001' -- \
	check --pmu skl offcore_response_0:dmnd_data_rd:snp_none:l3_hit

run check --help
for p in icl icx spr gnr adl_glc adl_grt srf lnl_lnc lnl_skt; do
	grep -q "^  $p " "$tmp/out"
	report $((! $?)) check_help_names_$p
done

# Usage errors: exit 2, one line and the pointer to the help on stderr.
expect_usage usage_bad_raw_hex check --pmu knm r0x301b7
expect_usage usage_bad_raw_extra check --pmu knm r301b7:40zz
expect_usage usage_empty_raw_extra check --pmu knm r301b7:
expect_usage usage_raw_overflow check --pmu knm r10000000000000000
expect_usage usage_unknown_option check --pmu knm --frobnicate r300c4
expect_usage usage_missing_pmu check r300c4
expect_usage usage_unknown_pmu check --pmu k1om r300c4
expect_usage usage_no_events check --pmu knm
expect_usage usage_caps_out_of_range check --pmu knm --caps gp=0 r300c4
expect_usage usage_caps_not_a_number check --pmu knm --caps width=4x r300c4
expect_usage usage_caps_unknown_key check --pmu knm --caps counters=4 r300c4
expect_usage usage_caps_anythread_deprecated_not_0_or_1 check --pmu skl \
	--caps anythread-deprecated=2 r300c4

# Help goes to stdout and succeeds.
run check --help
[ "$rc" = 0 ] && grep -q '^usage: pmuctl check' "$tmp/out" && [ ! -s "$tmp/err" ]
report $((! $?)) check_help_on_stdout
run --help
[ "$rc" = 0 ] && grep -q '^usage: pmuctl' "$tmp/out" && grep -q '^  check ' "$tmp/out"
report $((! $?)) main_help_lists_check
run frobnicate
[ "$rc" = 2 ] && [ ! -s "$tmp/out" ]
report $((! $?)) unknown_command_is_usage_error

tap_end
