# SPDX-License-Identifier: LGPL-2.1-or-later
#
# libpmuctl (user/): the shared library build/lib/libpmuctl.so.$(LIB_VERSION)
# with its soname link and development link, and the static
# build/lib/libpmuctl.a.  Exported names come from user/libpmuctl.map
# (selftests/install/symbols.sh holds it to the header and the .so); the
# pkg-config file and "make install" are in mk/install.mk.
# Included by the top Makefile, which defines CC and CFLAGS first.
# CPPFLAGS and LDFLAGS from the environment or the command line are
# honoured (dpkg-buildflags' hardening flags, dist/debian/rules).

LIB_SOVERSION := 1
LIB_VERSION := $(LIB_SOVERSION).0.0
LIB_SRCS := user/libpmuctl.c user/open_error.c user/pfm.c user/reason.c \
	    user/events.c user/expr.c user/metrics.c user/regions.c
LIB_HDRS := user/libpmuctl.h user/open_error.h user/pfm.h user/reason.h user/regions.h \
	    user/events.h user/expr.h user/metrics.h uapi/linux/pmuctl.h
# Intel's event names and metrics: tables generated from the committed lists.
LIB_GEN := build/gen/events_table.c build/gen/metrics_table.c
LIB_OBJS_PIC := $(LIB_SRCS:user/%.c=build/lib/pic/%.o) \
		build/lib/pic/events_table.o build/lib/pic/metrics_table.o
LIB_OBJS_STATIC := $(LIB_SRCS:user/%.c=build/lib/static/%.o) \
		   build/lib/static/events_table.o build/lib/static/metrics_table.o
# Intel's metrics, and pmuctl's own for the cores Intel gives none
METRIC_LISTS := $(sort $(wildcard events/intel/*.metrics)) \
		$(sort $(wildcard events/pmuctl/*.metrics))
LIB_SO := build/lib/libpmuctl.so.$(LIB_VERSION)
LIB_A := build/lib/libpmuctl.a
LIB_MAP := user/libpmuctl.map
LIB_LIBS := -lpfm

BINS += $(LIB_SO) build/lib/libpmuctl.so.$(LIB_SOVERSION) \
	build/lib/libpmuctl.so $(LIB_A)

build/gen/events_table.c: scripts/events-c.awk $(wildcard events/intel/*.events)
	@mkdir -p $(@D)
	awk -f scripts/events-c.awk $(sort $(wildcard events/intel/*.events)) > $@.tmp
	mv $@.tmp $@

# mpack runs here, at build time: the host's compiler, not $(CC).
build/gen/mpack: scripts/mpack.c
	@mkdir -p $(@D)
	cc -O2 -Wall -Wextra -Werror -o $@ $<

build/gen/metrics_table.c: scripts/metrics-c.awk scripts/metrics-strip.sed \
			   build/gen/mpack $(METRIC_LISTS)
	@mkdir -p $(@D)
	for f in $(METRIC_LISTS); do echo "FILE $$f"; \
		sed -E -f scripts/metrics-strip.sed "$$f"; done | build/gen/mpack | \
		awk -f scripts/metrics-c.awk > $@.tmp
	mv $@.tmp $@

build/lib/pic/%_table.o: build/gen/%_table.c user/events.h user/expr.h user/metrics.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

build/lib/static/%_table.o: build/gen/%_table.c user/events.h user/expr.h user/metrics.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIE -c -o $@ $<

# The release pmuctl_version() reports: the top Makefile's VERSION.
build/lib/pic/libpmuctl.o build/lib/static/libpmuctl.o: CPPFLAGS += -DPMUCTL_RELEASE='"$(VERSION)"'
build/lib/pic/libpmuctl.o build/lib/static/libpmuctl.o: Makefile

build/lib/pic/%.o: user/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

# -fPIE, whatever the compiler's default: the archive then links into a
# PIE program (the default of Debian's gcc) as well as into a -static one
# (the guest programs).
build/lib/static/%.o: user/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIE -c -o $@ $<

$(LIB_SO): $(LIB_OBJS_PIC) $(LIB_MAP)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libpmuctl.so.$(LIB_SOVERSION) \
		-Wl,--version-script=$(LIB_MAP) -Wl,-z,defs -o $@ \
		$(filter %.o,$^) $(LIB_LIBS)

build/lib/libpmuctl.so.$(LIB_SOVERSION) build/lib/libpmuctl.so: $(LIB_SO)
	ln -sf $(notdir $<) $@

$(LIB_A): $(LIB_OBJS_STATIC)
	@rm -f $@
	$(AR) rcs $@ $^

# The drop-ins: LIKWID's MarkerAPI (libpmuctl-likwid) and PAPI's
# high-level regions (libpmuctl-papi-hl), each a small library of its own
# on libpmuctl, so that a program linked with LIKWID or PAPI never finds
# their names in libpmuctl.  Headers in user/likwid/ and user/papi-hl/,
# pkg-config files pmuctl-likwid.pc and pmuctl-papi-hl.pc (mk/install.mk).
SHIMS := likwid papi-hl
SHIM_HDRS := user/likwid/likwid-marker.h user/likwid/likwid.h user/papi-hl/papi.h
SHIM_SO := $(SHIMS:%=build/lib/libpmuctl-%.so.$(LIB_VERSION))
SHIM_A := $(SHIMS:%=build/lib/libpmuctl-%.a)

BINS += $(SHIM_SO) $(SHIMS:%=build/lib/libpmuctl-%.so.$(LIB_SOVERSION)) \
	$(SHIMS:%=build/lib/libpmuctl-%.so) $(SHIM_A)

# $(call shim_rules,NAME,SOURCE,MAP)
define shim_rules
build/lib/shim-pic/$(1).o: $(2) $$(SHIM_HDRS) user/libpmuctl.h
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -fPIC -c -o $$@ $$<

build/lib/shim-static/$(1).o: $(2) $$(SHIM_HDRS) user/libpmuctl.h
	@mkdir -p $$(@D)
	$$(CC) $$(CPPFLAGS) $$(CFLAGS) -fPIE -c -o $$@ $$<

build/lib/libpmuctl-$(1).so.$$(LIB_VERSION): build/lib/shim-pic/$(1).o $(3) build/lib/libpmuctl.so
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -shared -Wl,-soname,libpmuctl-$(1).so.$$(LIB_SOVERSION) \
		-Wl,--version-script=$(3) -Wl,-z,defs -o $$@ $$< -Lbuild/lib -lpmuctl

build/lib/libpmuctl-$(1).so.$$(LIB_SOVERSION) build/lib/libpmuctl-$(1).so: \
		build/lib/libpmuctl-$(1).so.$$(LIB_VERSION)
	ln -sf $$(notdir $$<) $$@

build/lib/libpmuctl-$(1).a: build/lib/shim-static/$(1).o
	@rm -f $$@
	$$(AR) rcs $$@ $$^
endef

$(eval $(call shim_rules,likwid,user/likwid.c,user/likwid.map))
$(eval $(call shim_rules,papi-hl,user/papi_hl.c,user/papi_hl.map))
