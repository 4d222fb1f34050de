# SPDX-License-Identifier: GPL-2.0
#
# make deb: pmuctl's Debian packages in build/deb/ (scripts/deb.sh; the
# packaging is dist/debian/): pmuctl-dkms, libpmuctl1, libpmuctl-dev and
# pmuctl, built by dpkg-buildpackage from the tracked files under
# DEB_PATHS, and lintian-clean (no error).  Needs "bash scripts/deps.sh
# deb".  Builds the library and the tool only (the module is DKMS's, on
# the installing machine); nothing when the packages are newer than every
# input (DEB_FORCE=1 rebuilds).  selftests/install/deb.sh checks them.

# What the packages' build needs from this tree (scripts/deb.sh too: a
# change to it is a change to the packages).
DEB_PATHS := Makefile Kbuild COPYING README.md mk user uapi kmod dist events \
	     scripts/deb.sh scripts/events-c.awk scripts/metrics-c.awk \
	     scripts/metrics-strip.sed scripts/mpack.c

.PHONY: deb
#: Debian packages in build/deb/ (dpkg-buildpackage, lintian)
deb:
	@bash scripts/deb.sh $(VERSION) $(DEB_PATHS)
