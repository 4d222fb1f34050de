# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall, the pkg-config file and dkms.conf.
# Included by the top Makefile, which defines VERSION and PREFIX first.
# mk/lib.mk, included after this file, defines LIB_SO and its kin: the
# recipes here use them (expanded when they run), the prerequisites spell
# the names out (expanded when read).
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [LIBDIR=...]
#
# puts (each directory may be overridden on the command line):
#   $(BINDIR)           pmuctl
#   $(LIBDIR)           libpmuctl.so.1.0.0, .so.1, .so, libpmuctl.a; the
#                       same four of libpmuctl-likwid and libpmuctl-papi-hl
#   $(INCLUDEDIR)       libpmuctl.h, linux/pmuctl.h,
#                       pmuctl-likwid/likwid-marker.h, pmuctl-likwid/likwid.h,
#                       pmuctl-papi-hl/papi.h (in folders of their own, so
#                       that LIKWID's and PAPI's own headers stay theirs)
#   $(PKGCONFIGDIR)     libpmuctl.pc, pmuctl-likwid.pc, pmuctl-papi-hl.pc
#                       (prefix, libdir, includedir as above)
#   $(MANDIR)           man1/pmuctl.1, man3/ (user/man/)
#   $(UDEVRULESDIR)     60-pmuctl.rules: /dev/pmuctl for group "pmu"
#   $(DOCDIR)           pmuctl.conf, a modprobe.d example (not active)
#   $(BASHCOMPDIR)      pmuctl, the bash completion (dist/pmuctl.bash)
#   $(SYSTEMDUNITDIR)   pmuctl-exporter.service (dist/pmuctl-exporter.service.in:
#                       pmuctl watch for node_exporter; never enabled here),
#                       which reads $(SYSCONFDIR)/default/pmuctl if present
#                       (dist/pmuctl.default, installed as an example in
#                       $(DOCDIR); the Debian package ships it there)
#   $(DKMSDIR)          the module's sources and dkms.conf, for DKMS
#
# systemd reads units from /usr/local/lib/systemd/system as from /usr/lib
# and /etc (systemd.unit(5)), so both the default PREFIX and /usr work.
# udev reads rules from /usr/lib, /usr/local/lib, /etc and /run (the
# udev/rules.d directories built into bookworm's systemd-udevd 252): with
# another PREFIX, give UDEVRULESDIR=/etc/udev/rules.d.  DKMSDIR does not
# follow PREFIX: DKMS takes sources from /usr/src only (dkms(8)).
# bash-completion's loader looks in DIR/bash-completion/completions for
# each DIR of XDG_DATA_DIRS (default /usr/local/share:/usr/share), so both
# the default PREFIX and /usr work; it is not installed on the machines
# here, and selftests/tool/completion.sh sources the script itself.
# Nothing outside these files is created or changed: no group, no
# modprobe.d entry, no module build (run "dkms install pmuctl/VERSION");
# with an empty DESTDIR, ldconfig refreshes the loader's cache.
# "make uninstall" with the same variables removes exactly these files and
# the directories that are pmuctl's alone ($(DOCDIR), $(DKMSDIR)); a
# module DKMS built stays until "dkms remove pmuctl/VERSION --all".
#
# The host tests selftests/install/*.sh (run by "make check" like every
# executable selftests script) check all of it; TESTS here gets what they
# need built.

BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/pmuctl
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
DKMSDIR ?= /usr/src/pmuctl-$(VERSION)

INSTALL ?= install

MAN1 := $(notdir $(wildcard user/man/man1/*.1))
MAN3 := $(notdir $(wildcard user/man/man3/*.3))
# What kbuild needs to build pmuctl.ko from $(DKMSDIR): the Kbuild file and
# every source it names (its ccflags take uapi/ and kmod/core/ from $(src)).
DKMS_FILES := Kbuild $(sort $(wildcard kmod/*.[ch] kmod/core/*.[ch])) \
	      uapi/linux/pmuctl.h

PC := build/lib/libpmuctl.pc
SHIM_PC := build/lib/pmuctl-likwid.pc build/lib/pmuctl-papi-hl.pc
SHIM_NAMES := likwid papi-hl
DKMS_CONF := build/dist/dkms.conf
EXPORTER_UNIT := build/dist/pmuctl-exporter.service

BINS += $(PC) $(SHIM_PC) $(DKMS_CONF) $(EXPORTER_UNIT)
# selftests/install/: symbols.sh reads the library, man.sh the tool's help,
# install.sh installs everything.
TESTS += build/lib/libpmuctl.so.1.0.0 build/lib/libpmuctl.a $(PC) $(SHIM_PC) \
	 build/lib/libpmuctl-likwid.so.1.0.0 build/lib/libpmuctl-likwid.a \
	 build/lib/libpmuctl-papi-hl.so.1.0.0 build/lib/libpmuctl-papi-hl.a \
	 $(DKMS_CONF) $(EXPORTER_UNIT) build/bin/pmuctl

.PHONY: FORCE
FORCE:

# libpmuctl.pc names its directories relative to ${prefix} where they are.
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

# Generated files that depend on variables (PREFIX, LIBDIR, VERSION...)
# are rewritten when their text changes, so a command-line PREFIX takes
# effect without a clean and an unchanged one rebuilds nothing.
# $(call subst_in,IN,OUT)
define subst_in
	@mkdir -p $(dir $(2))
	@sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
	     -e 's|@LIBDIR@|$(PC_LIBDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	     -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	     -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|g' \
	     $(1) >$(2).tmp
	@if grep -n '@[A-Z_]*@' $(2).tmp; then \
		echo "$(1): unknown @NAME@ above: add it to subst_in in mk/install.mk" >&2; \
		rm -f $(2).tmp; exit 1; \
	fi
	@if cmp -s $(2).tmp $(2); then rm -f $(2).tmp; \
	 else mv -f $(2).tmp $(2); echo "  GEN     $(2)"; fi
endef

$(PC): user/libpmuctl.pc.in FORCE
	$(call subst_in,$<,$@)

$(SHIM_PC): build/lib/%.pc: user/%.pc.in FORCE
	$(call subst_in,$<,$@)

$(DKMS_CONF): dist/dkms.conf.in FORCE
	$(call subst_in,$<,$@)

$(EXPORTER_UNIT): dist/pmuctl-exporter.service.in FORCE
	$(call subst_in,$<,$@)

#: library, tool, man pages, udev rule, DKMS source (PREFIX=)
install: build/lib/libpmuctl.so.1.0.0 build/lib/libpmuctl.a $(PC) \
	 build/lib/libpmuctl-likwid.so.1.0.0 build/lib/libpmuctl-likwid.a \
	 build/lib/libpmuctl-papi-hl.so.1.0.0 build/lib/libpmuctl-papi-hl.a \
	 $(SHIM_PC) $(DKMS_CONF) $(EXPORTER_UNIT) build/bin/pmuctl
	$(INSTALL) -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(LIBDIR)' \
		'$(DESTDIR)$(INCLUDEDIR)/linux' '$(DESTDIR)$(PKGCONFIGDIR)' \
		'$(DESTDIR)$(INCLUDEDIR)/pmuctl-likwid' \
		'$(DESTDIR)$(INCLUDEDIR)/pmuctl-papi-hl' \
		'$(DESTDIR)$(MANDIR)/man1' '$(DESTDIR)$(MANDIR)/man3' \
		'$(DESTDIR)$(UDEVRULESDIR)' '$(DESTDIR)$(DOCDIR)' \
		'$(DESTDIR)$(BASHCOMPDIR)' '$(DESTDIR)$(DKMSDIR)' \
		'$(DESTDIR)$(SYSTEMDUNITDIR)'
	$(INSTALL) -m 755 build/bin/pmuctl '$(DESTDIR)$(BINDIR)/pmuctl'
	$(INSTALL) -m 755 $(LIB_SO) '$(DESTDIR)$(LIBDIR)/'
	ln -sfn $(notdir $(LIB_SO)) '$(DESTDIR)$(LIBDIR)/libpmuctl.so.$(LIB_SOVERSION)'
	ln -sfn $(notdir $(LIB_SO)) '$(DESTDIR)$(LIBDIR)/libpmuctl.so'
	$(INSTALL) -m 644 $(LIB_A) '$(DESTDIR)$(LIBDIR)/'
	$(INSTALL) -m 644 user/libpmuctl.h '$(DESTDIR)$(INCLUDEDIR)/'
	$(INSTALL) -m 644 uapi/linux/pmuctl.h '$(DESTDIR)$(INCLUDEDIR)/linux/'
	$(INSTALL) -m 644 $(PC) $(SHIM_PC) '$(DESTDIR)$(PKGCONFIGDIR)/'
	for s in $(SHIM_NAMES); do \
		$(INSTALL) -m 755 build/lib/libpmuctl-$$s.so.$(LIB_VERSION) '$(DESTDIR)$(LIBDIR)/' && \
		ln -sfn libpmuctl-$$s.so.$(LIB_VERSION) '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.so.$(LIB_SOVERSION) && \
		ln -sfn libpmuctl-$$s.so.$(LIB_VERSION) '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.so && \
		$(INSTALL) -m 644 build/lib/libpmuctl-$$s.a '$(DESTDIR)$(LIBDIR)/' || exit 1; \
	done
	$(INSTALL) -m 644 user/likwid/likwid-marker.h user/likwid/likwid.h \
		'$(DESTDIR)$(INCLUDEDIR)/pmuctl-likwid/'
	$(INSTALL) -m 644 user/papi-hl/papi.h '$(DESTDIR)$(INCLUDEDIR)/pmuctl-papi-hl/'
	$(INSTALL) -m 644 $(MAN1:%=user/man/man1/%) '$(DESTDIR)$(MANDIR)/man1/'
	$(INSTALL) -m 644 $(MAN3:%=user/man/man3/%) '$(DESTDIR)$(MANDIR)/man3/'
	$(INSTALL) -m 644 dist/60-pmuctl.rules '$(DESTDIR)$(UDEVRULESDIR)/'
	$(INSTALL) -m 644 dist/pmuctl.conf dist/pmuctl.default '$(DESTDIR)$(DOCDIR)/'
	$(INSTALL) -m 644 dist/pmuctl.bash '$(DESTDIR)$(BASHCOMPDIR)/pmuctl'
	$(INSTALL) -m 644 $(EXPORTER_UNIT) '$(DESTDIR)$(SYSTEMDUNITDIR)/'
	for f in $(DKMS_FILES); do \
		$(INSTALL) -D -m 644 "$$f" '$(DESTDIR)$(DKMSDIR)'/"$$f" || exit 1; \
	done
	$(INSTALL) -m 644 $(DKMS_CONF) '$(DESTDIR)$(DKMSDIR)/'
	@if [ -z '$(DESTDIR)' ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; \
	fi

#: remove what install put (same PREFIX=, DESTDIR=)
uninstall:
	rm -f '$(DESTDIR)$(BINDIR)/pmuctl'
	rm -f '$(DESTDIR)$(LIBDIR)/libpmuctl.so.$(LIB_VERSION)' \
	      '$(DESTDIR)$(LIBDIR)/libpmuctl.so.$(LIB_SOVERSION)' \
	      '$(DESTDIR)$(LIBDIR)/libpmuctl.so' '$(DESTDIR)$(LIBDIR)/libpmuctl.a'
	rm -f '$(DESTDIR)$(INCLUDEDIR)/libpmuctl.h' \
	      '$(DESTDIR)$(INCLUDEDIR)/linux/pmuctl.h'
	rm -f '$(DESTDIR)$(PKGCONFIGDIR)/libpmuctl.pc' \
	      $(SHIM_PC:build/lib/%='$(DESTDIR)$(PKGCONFIGDIR)/%')
	for s in $(SHIM_NAMES); do \
		rm -f '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.so.$(LIB_VERSION) \
		      '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.so.$(LIB_SOVERSION) \
		      '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.so '$(DESTDIR)$(LIBDIR)'/libpmuctl-$$s.a || exit 1; \
	done
	rm -f '$(DESTDIR)$(INCLUDEDIR)/pmuctl-likwid/likwid-marker.h' \
	      '$(DESTDIR)$(INCLUDEDIR)/pmuctl-likwid/likwid.h' \
	      '$(DESTDIR)$(INCLUDEDIR)/pmuctl-papi-hl/papi.h'
	rm -f $(MAN1:%='$(DESTDIR)$(MANDIR)/man1/%')
	rm -f $(MAN3:%='$(DESTDIR)$(MANDIR)/man3/%')
	rm -f '$(DESTDIR)$(UDEVRULESDIR)/60-pmuctl.rules'
	rm -f '$(DESTDIR)$(DOCDIR)/pmuctl.conf' '$(DESTDIR)$(DOCDIR)/pmuctl.default'
	rm -f '$(DESTDIR)$(BASHCOMPDIR)/pmuctl'
	rm -f '$(DESTDIR)$(SYSTEMDUNITDIR)/pmuctl-exporter.service'
	rm -f $(DKMS_FILES:%='$(DESTDIR)$(DKMSDIR)/%') '$(DESTDIR)$(DKMSDIR)/dkms.conf'
	@# pmuctl's own directories, when empty (someone's file left keeps it).
	@for d in '$(DESTDIR)$(DOCDIR)' '$(DESTDIR)$(DKMSDIR)' \
		  '$(DESTDIR)$(INCLUDEDIR)/pmuctl-likwid' \
		  '$(DESTDIR)$(INCLUDEDIR)/pmuctl-papi-hl'; do \
		[ ! -d "$$d" ] || find "$$d" -depth -type d -empty -delete || exit 1; \
	done
	@if [ -z '$(DESTDIR)' ] && command -v ldconfig >/dev/null; then \
		echo ldconfig; ldconfig; \
	fi
