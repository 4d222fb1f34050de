#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# TAP test: the driver opens no file by path and reads no file
# (issue 10, item 1), and grants rdpmc without perf's per-mm count
# (item 2).  Each rule is one test over kmod/ (KMOD_DIR names another
# tree, to see the test fail on one that breaks it):
#   no_path_lookup      no filp_open, file_open_name, kern_path, filp_close
#   no_file_io          no kernel_read, kernel_write, vfs_read, vfs_write
#   no_perf_rdpmc_count no perf_rdpmc_allowed (the mm's grant count)
# A call is the name followed by "(", in code or in a comment alike:
# a comment about such a call can name it without the parenthesis.

cd "$(dirname "$0")/../.." || exit 1
. selftests/tap.sh

dir=${KMOD_DIR:-kmod}
[ -d "$dir" ] || bail "no $dir"
mapfile -t files < <(find "$dir" -type f -name '*.[ch]' | LC_ALL=C sort)
[ ${#files[@]} -gt 0 ] || bail "no C sources in $dir"

rule() {	# rule NAME REGEX
	local hits

	hits=$(grep -nE "$2" "${files[@]}")
	if [ -z "$hits" ]; then
		ok "$1"
	else
		not_ok "$1" "$hits"
	fi
}

rule no_path_lookup '\b(filp_open|file_open_name|file_open_root|kern_path|filp_close)[[:space:]]*\('
rule no_file_io '\b(kernel_read|kernel_write|vfs_read|vfs_write)[[:space:]]*\('
rule no_perf_rdpmc_count '\bperf_rdpmc_allowed\b'
tap_end
