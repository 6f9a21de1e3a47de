# Two-Chains: make | make check | make bench | make deps | make install PREFIX=...
# check and bench install what they need first (scripts/deps.sh).
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

PERF_SRCS  := $(wildcard bench/perf_*.c)
TC_PERF    := $(BUILD)/bin/tc-perf
TC_SOAK    := $(BUILD)/bin/tc-soak

TEST_SRCS  := $(wildcard tests/test_*.c)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.PHONY: all lib pkg tools check check-run bench soak deps install clean fuzz
.SECONDARY:
all: lib pkg tools

lib: $(LIB_A) $(LIB_SO)
pkg: $(PKG_SO)
tools: $(TC_PERF) $(TC_SOAK)

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

# Soak: SOAK_COUNT jams under stress-ng --class vm --all 1 (not part of check).
SOAK_COUNT ?= 10000000
SOAK_STRESS ?= stress-ng --class vm --all 1
soak:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	scripts/soak.sh $(SOAK_COUNT) "$(SOAK_STRESS)"

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
$(TC_PERF): $(PERF_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/obj/bench/soak.o: CPPFLAGS += -Ijams
$(TC_SOAK): $(BUILD)/obj/bench/soak.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- tests
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(LIB_A) | $(PKG_SO) $(TC_PERF) $(TC_SOAK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB_A) $(LIBS) -lcmocka

$(BUILD)/obj/tests/%.o: CPPFLAGS += -Ijams -I$(PKG_DIR)
$(BUILD)/obj/tests/%.o: | $(PKG_DIR)/tc_pkg_desc.c

check:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory check-run

check-run: all $(TEST_BINS)
	@BUILD=$(BUILD) VALGRIND=$(VALGRIND) SAN=$(SAN) tests/run-tests.sh

# The main job for now: jams vs raw UCX, written to results/<platform>/.
ROUNDS ?= 5
ITERS  ?= 1000000
bench:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	scripts/bench-foundation.sh $(ROUNDS) $(ITERS)

deps:
	@scripts/deps.sh

# Frame fuzzing (libFuzzer): seeds valid frames of every kind, fuzzes for
# FUZZ_SECONDS, merges what it found into the committed corpus; crash
# reproducers land in tests/fuzz/frame-crashes/. make check replays both.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -g -O1 -Ilib -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz:
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD)/fuzz/new tests/fuzz/frame-corpus tests/fuzz/frame-crashes
	clang $(FUZZ_CFLAGS) tests/fuzz/frame_target.c lib/frame.c lib/status.c -o $(BUILD)/fuzz/fuzz_frame
	$(CC) -std=gnu11 -O2 -Ilib tests/fuzz/frame_seeds.c lib/frame.c lib/status.c -o $(BUILD)/fuzz/frame_seeds
	$(BUILD)/fuzz/frame_seeds tests/fuzz/frame-corpus
	$(BUILD)/fuzz/fuzz_frame -max_total_time=$(FUZZ_SECONDS) -max_len=1100 \
	    -artifact_prefix=tests/fuzz/frame-crashes/ $(BUILD)/fuzz/new tests/fuzz/frame-corpus
	$(BUILD)/fuzz/fuzz_frame -merge=1 tests/fuzz/frame-corpus $(BUILD)/fuzz/new

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/share/twochains/pkg/bench
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/libtwochains.so.0
	ln -sf libtwochains.so.0 $(DESTDIR)$(PREFIX)/lib/libtwochains.so
	install -m 644 lib/twochains.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 jams/tc_jam.h $(DESTDIR)$(PREFIX)/include/twochains_jam.h
	install -m 755 $(TC_PERF) $(TC_SOAK) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(PKG_SO) $(PKG_DIR)/bench.h $(DESTDIR)$(PREFIX)/share/twochains/pkg/bench/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' twochains.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/twochains.pc

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
