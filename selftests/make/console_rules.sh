#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test of scripts/vm/console.sh, what fails a guest's console_clean:
# a KCSAN report with a pmuctl frame in either stack is a failure like any
# checker's report; one with none (the kernel's own race) is set apart,
# and a console with only those is clean; a user-space fault is no
# kernel bug; a WARNING: that does not open its message is a note; /init's
# markers are read whole from ttyS1 where a printk split them on the console.
set -euo pipefail

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh
. scripts/vm/console.sh

d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

rule='=================================================================='
# The kernel's own race, then one of pmuctl's (its frame in the second
# stack only), then a user-space fault and a boot note.
cat >"$d/both" <<C
[    1.000000] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable
[    2.000000] $rule
[    2.000001] BUG: KCSAN: data-race in tick_nohz_idle_stop_tick / tick_sched_do_timer
[    2.000002]
[    2.000003] write to 0xffffffff82a0b1c0 of 4 bytes by interrupt on cpu 1:
[    2.000004]  tick_sched_do_timer+0x54/0x120
[    2.000005]
[    2.000006] read to 0xffffffff82a0b1c0 of 4 bytes by task 0 on cpu 0:
[    2.000007]  tick_nohz_idle_stop_tick+0x9c/0x4a0
[    2.000008]
[    2.000009] value changed: 0x00000001 -> 0xffffffff
[    2.000010] $rule
[    3.000000] $rule
[    3.000001] BUG: KCSAN: data-race in pcpu_claim / pmuctl_wave_fn
[    3.000002]
[    3.000003] write to 0xffff88800c4e3a10 of 8 bytes by task 120 on cpu 0:
[    3.000004]  pcpu_claim+0x21/0x60
[    3.000005]
[    3.000006] read to 0xffff88800c4e3a10 of 8 bytes by interrupt on cpu 1:
[    3.000007]  pmuctl_wave_fn+0x3c/0x90 [pmuctl_regmodel]
[    3.000008]  __flush_smp_call_function_queue+0x1c0/0x5e0
[    3.000009] $rule
[    4.000000] traps: rdpmc_test[99] general protection fault ip:401a2b sp:7ffc error:0 in rdpmc_test
C
# The same console without pmuctl's report, plus a race the KCSAN guest
# reported in the workqueue's code while a kworker ran pmuctl's work item:
# the context line names the module, no frame does.
awk 'NR < 13 || NR > 22' "$d/both" >"$d/own"
cat >>"$d/own" <<C
[    5.000000] $rule
[    5.000001] BUG: KCSAN: data-race in process_one_work+0x1fc/0xba0
[    5.000002]
[    5.000003] race at unknown origin, with read to 0xffff88800317b160 of 8 bytes by task 8 on cpu 0:
[    5.000004]  process_one_work+0x1fc/0xba0
[    5.000005]  worker_thread+0x32b/0x5d0
[    5.000006]
[    5.000007] value changed: 0x0000000039795702 -> 0x000000003980737e
[    5.000008] Workqueue: events defer_run [pmuctl_regmodel]
[    5.000009] $rule
C

bad() { kcsan_reports "$1" rest | grep -Ev "$user_fault_re" | grep -E "$bad_re" || true; }

out=$(bad "$d/both")
report "$(grep -q 'BUG: KCSAN: data-race in pcpu_claim / pmuctl_wave_fn' <<<"$out" &&
	[ "$(grep -c . <<<"$out")" -eq 1 ] && echo 1)" \
	a_race_with_a_pmuctl_frame_fails "matched: $out"
own=$(kcsan_reports "$d/both" own)
report "$([ "$own" = "[    2.000001] BUG: KCSAN: data-race in tick_nohz_idle_stop_tick / tick_sched_do_timer" ] && echo 1)" \
	the_kernels_own_race_is_listed_apart_by_its_headline "own: $own"
own=$(kcsan_reports "$d/own" own | grep -c 'BUG: KCSAN' || true)
report "$([ "$own" -eq 2 ] && echo 1)" \
	a_race_in_a_kworker_running_pmuctls_work_item_is_the_kernels "own: $own of 2"
out=$(bad "$d/own")
report "$([ -z "$out" ] && echo 1)" \
	a_console_with_only_the_kernels_own_races_is_clean "matched: $out"
# Without the split, the kernel's own race would fail it: the rule is
# what makes the difference, not a pattern that misses KCSAN.
out=$(grep -Ev "$user_fault_re" "$d/own" | grep -E "$bad_re" || true)
report "$(grep -q 'BUG: KCSAN' <<<"$out" && echo 1)" \
	bad_re_sees_every_kcsan_report "matched: $out"
# A report cut short by the end of the console, before the frame that
# names pmuctl, is judged all the same.
head -n 17 "$d/both" >"$d/cut"
out=$(bad "$d/cut")
report "$(grep -q 'pcpu_claim / pmuctl_wave_fn' <<<"$out" && echo 1)" \
	a_report_cut_short_is_judged "matched: $out"
# A printk from another CPU inside /init's "@@MODULE loaded@@" on the
# console: the verdict reads the marker from ttyS1, where only /init writes.
printf '@@VM-INIT@@\n@@MODULE lo[    4.000000] random: crng init done\naded@@\n@@DONE@@\n' >"$d/split"
printf '@@CPU vendor=GenuineIntel family=6 model=85 cpus=2@@\r\n@@MODULE loaded@@\r\n@@TAP-BEGIN t@@\r\nok 1 x\r\n@@TAP-END t rc=0 secs=1@@\r\n@@DONE@@\r\n' >"$d/ttyS1"
marks=$(guest_marks "$d/ttyS1" "$d/split")
report "$(grep -qx '@@MODULE loaded@@' <<<"$marks" && ! grep -qx '@@MODULE loaded@@' "$d/split" &&
	! grep -q 'TAP-' <<<"$marks" && echo 1)" \
	a_marker_split_on_the_console_is_read_from_ttyS1 "marks: $marks"
# A guest that died before ttyS1 drained: the console's copy counts.
: >"$d/empty"
marks=$(guest_marks "$d/empty" "$d/split")
report "$(grep -qx '@@DONE@@' <<<"$marks" && ! grep -q 'MODULE' <<<"$marks" && echo 1)" \
	the_consoles_whole_markers_count_where_ttyS1_has_none "marks: $marks"
tap_end
