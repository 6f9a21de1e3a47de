# Two-Chains: make | make check | make figures | make deps | make install PREFIX=...
PREFIX    ?= /usr/local
BUILD     ?= build
CC        ?= gcc
SAN       ?=
VALGRIND  ?=

CFLAGS_BASE := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -pthread
ifneq ($(SAN),)
CFLAGS_BASE += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS     += -fsanitize=$(SAN)
endif
CFLAGS   ?=
CFLAGS   += $(CFLAGS_BASE)
CPPFLAGS += -Ilib -MMD -MP
UCX_LIBS  := -lucp -lucs
LIBS      := $(UCX_LIBS) -lhwloc -ldl -lm -lpthread

GIT_REV   := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

LIB_SRCS  := $(wildcard lib/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_A     := $(BUILD)/lib/libtwochains.a
LIB_SO    := $(BUILD)/lib/libtwochains.so

# Jams build as Local Function entries now and as injectable blobs later:
# the flags are the ones injection needs (DESIGN.md, Code that moves).
JAM_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -fno-plt -fvisibility=hidden
JAM_SRCS   := $(wildcard jams/jam_*.amc) $(wildcard jams/ried_*.rdc)
PKG_DIR    := $(BUILD)/pkg/bench
PKG_SO     := $(PKG_DIR)/libtc_bench.so
PKG_OBJS   := $(patsubst jams/%,$(BUILD)/obj/jams/%.o,$(JAM_SRCS)) $(BUILD)/obj/pkg/tc_pkg_desc.o

BENCH_SRCS := $(wildcard bench/*.c)
TC_PERF    := $(BUILD)/bin/tc-perf

TEST_SRCS  := $(wildcard tests/test_*.c)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.PHONY: all lib pkg tools check deps install clean figures
.SECONDARY:
all: lib pkg tools

lib: $(LIB_A) $(LIB_SO)
pkg: $(PKG_SO)
tools: $(TC_PERF)

$(BUILD)/obj/bench/%.o: CPPFLAGS += -DTC_CFLAGS='"$(CFLAGS_BASE)"'
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTC_GIT_REV='"$(GIT_REV)"' -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libtwochains.so.0 $(LDFLAGS) -o $@ $^ $(LIBS)

# --- the test package (interim rule; tc-pkg takes over with the toolchain)
$(BUILD)/obj/jams/jam_%.amc.o: jams/jam_%.amc jams/tc_jam.h jams/bench_state.h lib/twochains.h
	@mkdir -p $(dir $@)
	$(CC) -Ilib -Ijams $(JAM_CFLAGS) $(if $(SAN),-fsanitize=$(SAN)) -DTC_JAM_NAME=$* -x c -c $< -o $@

$(BUILD)/obj/jams/ried_%.rdc.o: jams/ried_%.rdc jams/tc_jam.h jams/bench_state.h lib/twochains.h
	@mkdir -p $(dir $@)
	$(CC) -Ilib -Ijams $(JAM_CFLAGS) $(if $(SAN),-fsanitize=$(SAN)) -DTC_RIED_NAME=$* -x c -c $< -o $@

$(PKG_DIR)/tc_pkg_desc.c: $(JAM_SRCS) scripts/gen-pkg.sh
	scripts/gen-pkg.sh bench $(PKG_DIR) $(JAM_SRCS)

$(BUILD)/obj/pkg/tc_pkg_desc.o: $(PKG_DIR)/tc_pkg_desc.c lib/twochains.h
	@mkdir -p $(dir $@)
	$(CC) -Ilib $(JAM_CFLAGS) -c $< -o $@

$(PKG_SO): $(PKG_OBJS)
	$(CC) -shared $(LDFLAGS) -o $@ $^

# --- tools
$(TC_PERF): $(BENCH_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- tests
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIB_A) | $(PKG_SO) $(TC_PERF)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB_A) $(LIBS) -lcmocka

$(BUILD)/obj/tests/%.o: CPPFLAGS += -Ijams -I$(PKG_DIR)
$(BUILD)/obj/tests/%.o: | $(PKG_DIR)/tc_pkg_desc.c

check: all $(TEST_BINS)
	@BUILD=$(BUILD) VALGRIND=$(VALGRIND) SAN=$(SAN) tests/run-tests.sh

deps:
	@scripts/deps.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/twochains/pkg/bench
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/libtwochains.so.0
	ln -sf libtwochains.so.0 $(DESTDIR)$(PREFIX)/lib/libtwochains.so
	install -m 644 lib/twochains.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 jams/tc_jam.h $(DESTDIR)$(PREFIX)/include/twochains_jam.h
	install -m 755 $(TC_PERF) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(PKG_SO) $(PKG_DIR)/bench.h $(DESTDIR)$(PREFIX)/share/twochains/pkg/bench/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' twochains.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/twochains.pc

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
