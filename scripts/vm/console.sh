# shellcheck shell=bash disable=SC2034
# SPDX-License-Identifier: GPL-2.0
#
# What in a guest's console means the kernel went wrong, and where /init's
# markers are read from: sourced by scripts/vm/run.sh (console_clean,
# perf_driver, the verdicts on markers) and by
# selftests/make/console_rules.sh, which feeds it sample consoles.

# Kernel messages that mean the kernel went wrong.  WARNING: must open the
# message, as in WARN() and lockdep reports: boot-time notes such as
# "RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable" (printed
# for Skylake-Server) are not.  User-space faults ("traps: prog[pid] general
# protection fault ip:...", which an rdpmc test provokes on purpose) are not
# kernel bugs and are dropped before matching.
# The debug kernel's checkers (-D) report with these too: lockdep's
# "WARNING: possible circular locking dependency detected" and friends,
# "BUG: sleeping function called from invalid context", "BUG: KASAN: ...",
# "BUG: KFENCE: ...", "UBSAN: ...", DEBUG_OBJECTS' "ODEBUG: ..."; and, in
# the PREEMPT_RT kernel (-E) above all, "BUG: scheduling while atomic" and
# lockdep's "BUG: Invalid wait context" (a spinlock_t, which sleeps there,
# taken under a raw_spinlock_t); their headlines
# are matched by name as well, in case a report's first line is lost in
# the serial output.
bad_re='Oops|(^|\] )WARNING:|BUG:|kernel BUG at|Call Trace|soft lockup|hard LOCKUP|KASAN|UBSAN|KFENCE|ODEBUG:|general protection fault|[Kk]ernel panic|blocked for more than|self-detected stall|detected stalls'
bad_re+='|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called|bad unlock balance|lock held when returning|held lock freed|possible irq lock inversion|lockdep is turned off'
bad_re+='|scheduling while atomic|Invalid wait context'
user_fault_re='traps: [^ ]+\[[0-9]+\] general protection fault ip:'
# -P: perf's complaints about a PMU it cannot use (arch/x86/events/core.c
# check_hw_exists(), init_hw_perf_events(); intel/p4.c, p6.c).
pmu_bad_re='Broken PMU|PMU not available|Failed to access perfctr|hw-PMU resources|no PMU driver|Performance Events:.*unsupported|unsupported .*CPU model'

# kcsan_reports CONSOLE own|rest: the console split at KCSAN's reports,
# each from its "BUG: KCSAN:" line to the "=====" rule that closes it
# (the one that opens it, printed before, goes with neither):
#   own   the reports with no pmuctl frame (a module symbol prints as
#         "func+0x1/0x2 [pmuctl_regmodel]", in a stack or in the headline;
#         the context line "Workqueue: events defer_run [pmuctl_regmodel]"
#         names the work item the kworker ran, not a frame of the race),
#         one headline line each;
#   rest  every other line of the console, those reports left out.
# A report the console's end cuts short is judged (in "rest"): the frame
# that would have named pmuctl may be the part that is missing.
kcsan_reports() {
	awk -v want="$2" '
	function flush(mine,   i) {
		for (i = 1; i <= nr; i++)
			if (rep[i] ~ /\+0x[0-9a-f]+\/0x[0-9a-f]+ \[pmuctl/ ||
			    (rep[i] ~ /BUG: KCSAN: / && rep[i] ~ /\[pmuctl/))
				mine = 1
		for (i = 1; i <= nr; i++)
			if ((want == "own") == !mine && (want == "rest" || i == 1))
				print rep[i]
		nr = 0; inrep = 0
	}
	/BUG: KCSAN: / { if (inrep) flush(1); inrep = 1 }
	inrep { rep[++nr] = $0; if ($0 ~ /====================/) flush(0); next }
	want == "rest" { print }
	END { if (inrep) flush(1) }
	' "$1"
}

# guest_marks TTYS1 CONSOLE: /init's @@...@@ markers (scripts/vm/init writes
# each to both ports), one a line: those from ttyS1 first, then those from
# the console.  On the console a printk from another CPU can land inside a
# marker's line ("@@MODULE lo[  3.1] random: ...aded@@"), which then matches
# no rule; ttyS1 carries /init's output only.  The console's copies are for
# a guest that died before its last ttyS1 bytes left the UART.
guest_marks() {
	tr -d '\r' <"$1" | grep -E '^@@[^@]+@@$' | grep -Ev '^@@(TAP|GCDA|KMEMLEAK)-'
	grep -E '^@@[^@]+@@$' "$2"
	return 0
}
