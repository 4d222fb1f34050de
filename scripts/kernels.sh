#!/usr/bin/env bash
# Print the Debian kernels pmuctl targets, one version per line:
# the newest 6.1 LTS (linux-headers-6.1.0-NN-amd64) and the newest 6.12 LTS
# from bookworm-security (linux-headers-6.12.NNN+deb12-amd64).
#   kernels.sh available   versions apt can install (needs apt-get update)
#   kernels.sh installed   versions whose headers are in /usr/src
set -euo pipefail

pick() {
	local re=$1
	grep -E "$re" | sort -V | tail -n 1
}

case "${1:-installed}" in
available)
	list=$(apt-cache search --names-only '^linux-headers-6\.(1\.0-[0-9]+|12\.[0-9]+\+deb12)-amd64$' |
	       awk '{ sub(/^linux-headers-/, "", $1); print $1 }')
	;;
installed)
	list=$(cd /usr/src && ls -d linux-headers-*-amd64 2>/dev/null |
	       sed 's/^linux-headers-//')
	;;
*)
	echo "usage: kernels.sh available|installed" >&2
	exit 2
	;;
esac
printf '%s\n' "$list" | pick '^6\.1\.0-[0-9]+-amd64$' || true
printf '%s\n' "$list" | pick '^6\.12\.[0-9]+\+deb12-amd64$' || true
