# Two-Chains: make | make check | make bench | make deps | make install PREFIX=... | make uninstall PREFIX=...
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
# lib/ is in folders by layer (docs/ARCHITECTURE.md, "Layers"; the order is
# scripts/lib-imports.py's LAYERS): each folder is on the include path, so a
# file names a header by its name alone, as before the folders.
LIB_DIRS  := $(patsubst %/,%,$(sort $(dir $(wildcard lib/*/*.[ch]))))
LIB_INC   := -Ilib $(addprefix -I,$(LIB_DIRS))
CPPFLAGS += $(LIB_INC) -MMD -MP
UCX_LIBS  := -lucp -luct -lucs
LIBS      := $(UCX_LIBS) -ldl -lm -lpthread
# hwloc: the harness's platform report and the tools' CPU pinning only
HWLOC_LIBS := -lhwloc
# PMIx (libpmix-dev, installed by make deps): jobs started by mpirun or srun
# (lib/group/job.c). Without it the library builds and says so when asked for one.
PKG_CONFIG  ?= pkg-config
PMIX_CFLAGS := $(shell $(PKG_CONFIG) --cflags pmix 2>/dev/null)
PMIX_LIBS   := $(shell $(PKG_CONFIG) --libs pmix 2>/dev/null)
ifneq ($(PMIX_LIBS),)
$(BUILD)/obj/lib/group/job.o: CPPFLAGS += -DTC_HAVE_PMIX $(PMIX_CFLAGS)
LIBS += $(PMIX_LIBS)
endif

GIT_REV   := $(shell git describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)

LIB_SRCS  := $(wildcard lib/*/*.c)
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
LIB_A     := $(BUILD)/lib/libtwochains.a
LIB_SO    := $(BUILD)/lib/libtwochains.so

# The harness, private to bench/ (never installed): platform report and
# hardware controls, cycle counters, the multicast model, raw UCX handles for
# the reference tests, the bench package's default path. The tools and the
# tests link it before libtwochains; they include it as "harness/<x>.h".
HARNESS_SRCS := $(wildcard bench/harness/*.c)
HARNESS_OBJS := $(HARNESS_SRCS:%.c=$(BUILD)/obj/%.o)
HARNESS_A    := $(BUILD)/lib/libtc_harness.a

# The bench package, built from jams/ by tc-pkg: Local Function library,
# ried libraries, injectable jam blobs, header and manifest.
TC_PKG     := $(BUILD)/bin/tc-pkg
# the tc-pkg that builds the package: this build's, or in a cross build
# (make check-aarch64) the host's, driving the cross compiler through --cc
TC_PKG_RUN ?= $(TC_PKG)
TOOL_SRCS  := $(wildcard tools/*.c)
JAM_SRCS   := $(shell find jams -name 'jam_*.amc' -o -name 'ried_*.rdc')
PKG_DIR    := $(BUILD)/pkg/bench
PKG_SO     := $(PKG_DIR)/libtc_bench.so
PKG_OUT    := $(PKG_SO) $(PKG_DIR)/bench.h $(PKG_DIR)/manifest.tcm
# Warnings for every element; sanitizers for the libraries only (a blob
# carries no sanitizer runtime).
PKG_ARCH   := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
PKG_FLAGS  := --arch $(PKG_ARCH) --cc "$(CC)" --include lib --include jams --cflags "-g -Wall -Wextra -Werror" \
              --ldflags "$(LDFLAGS)" $(if $(SAN),--lib-cflags "-fsanitize=$(SAN)")

PERF_SRCS  := $(wildcard bench/perf_*.c) bench/tool.c bench/stress.c
TC_PERF    := $(BUILD)/bin/tc-perf
TC_SOAK    := $(BUILD)/bin/tc-soak
TC_RUN     := $(BUILD)/bin/tc-run
TC_MCAST   := $(BUILD)/bin/tc-mcast
TC_COST    := $(BUILD)/bin/tc-cost
MCAST_SRCS := $(wildcard bench/mcast_*.c) bench/tool.c

TEST_SRCS  := $(wildcard tests/test_*.c)
TEST_BINS  := $(TEST_SRCS:tests/%.c=$(BUILD)/tests/%)

.PHONY: FORCE help all lib harness pkg tools check check-run check-aarch64 coverage-py readme report bench bench-ci bench-ci-baseline bench-ab history cost-host cost-baseline soak deps install uninstall clean fuzz fuzz-mcast fuzz-rx fuzz-wire docs-jams
.SECONDARY:
all: lib pkg tools $(BUILD)/include/.stamp

# make help: the targets and variables, briefly (docs/TOOLS.md has the
# table; tests/test_make_help.sh holds this list to the Makefile's targets)
help:
	@printf '%s\n' \
	 'The two commands:' \
	 '  figures            the paper'"'"'s experiments on this host -> results/<platform>/, plots/<platform>/' \
	 '  check              build everything and run every test (check-run: without installing deps)' \
	 'Build and install:' \
	 '  all (default)      the library, the bench package and the tools into $(BUILD)/' \
	 '  lib harness pkg tools   parts of all: the library, the harness, the bench package, the tools' \
	 '  deps               install the Debian packages (scripts/deps.sh)' \
	 '  install uninstall  into / out of PREFIX (DESTDIR too)' \
	 '  clean              remove $(BUILD)/' \
	 'Experiments and results:' \
	 '  figures-paper      figures with the paper'"'"'s preset (PRESET=paper)' \
	 '  plots              redraw the figures of results/ (PLATFORM=<id> for one)' \
	 '  report             static HTML pages of the results -> $(REPORT_DIR)/index.html' \
	 '  readme             regenerate the blocks README.md and docs/ quote from results' \
	 '  docs-jams          the bench jams'"'"' table in docs/JAMS.md and names in README.md' \
	 '  bench              jams vs raw UCX puts and AMs (ROUNDS, ITERS)' \
	 '  soak               SOAK_COUNT jams under stress-ng (SOAK_STRESS)' \
	 'Regression tracking:' \
	 '  bench-ci           the CI sweep: counts against each key'"'"'s baseline, cc and clang-14 (3%), time against the platform'"'"'s' \
	 '  bench-ci-baseline  re-record this platform'"'"'s timing baseline (refused on a busy host)' \
	 '  bench-ab           BASE and this tree, alternating in one job, a rank test (AB_FLAGS)' \
	 '  history            the counts of the last N commits (HISTORY_FLAGS)' \
	 '  cost-host          this host'"'"'s counts against its key'"'"'s baseline' \
	 '  cost-baseline      record the key'"'"'s count baseline (COST_FLAGS)' \
	 'Checks:' \
	 '  check-aarch64      cross-built for arm64 and tested under qemu-user' \
	 '  coverage-py        line coverage of scripts/tcresults by its unit tests' \
	 '  fuzz               libFuzzer, FUZZ_SECONDS each (fuzz-mcast, fuzz-rx, fuzz-wire alone)' \
	 'Variables (make VAR=value TARGET):' \
	 '  BUILD=build  PREFIX=/usr/local  DESTDIR  CC  CFLAGS' \
	 '  SAN=address,undefined  VALGRIND=1  TC_TESTS="test_x ..." (check, check-run)' \
	 '  PRESET=quick|paper  FIG_ROUNDS=N  EXPERIMENTS="names"  RESUME=1  HOSTS=a,b  LAUNCHER=mpirun|srun|ssh' \
	 '  PLATFORM=<id> (plots)  REPORT_DIR (report)  ROUNDS ITERS (bench)  SOAK_COUNT SOAK_STRESS (soak)' \
	 '  BASELINES BENCH_CI_OUT BENCH_CI_FLAGS BENCH_CI_CLANG RECORD=1 SLOW_JAM=N (bench-ci)  BASE=<rev> AB_FLAGS (bench-ab)' \
	 '  N=50 HISTORY_FLAGS (history)  COST_FLAGS (cost-host, cost-baseline)  FUZZ_SECONDS FUZZ_RX_FLAGS (fuzz)' \
	 '  help               this list' \
	 'Docs: README.md, docs/TOOLS.md (every target in full).'

lib: $(LIB_A) $(LIB_SO)
harness: $(HARNESS_A)
pkg: $(PKG_OUT)
tools: $(TC_PERF) $(TC_SOAK) $(TC_RUN) $(TC_PKG) $(TC_MCAST) $(TC_COST)

$(BUILD)/obj/bench/%.o: CPPFLAGS += -DTC_CFLAGS='"$(CFLAGS_BASE)"'
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTC_GIT_REV='"$(GIT_REV)"' -c $< -o $@

# The revision tc-perf names in its table and JSON (perf_report.o) and every
# tool's --version (tool.o): rebuilt whenever it moves, not only when those
# files' sources do, so a run's record names the tree it ran (-dirty: with
# uncommitted changes).
GIT_REV_STAMP := $(BUILD)/git-rev
$(GIT_REV_STAMP): FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(GIT_REV)" ] || echo "$(GIT_REV)" > $@
$(BUILD)/obj/bench/perf_report.o $(BUILD)/obj/bench/tool.o $(BUILD)/obj/tools/tc_pkg.o: $(GIT_REV_STAMP)
FORCE:

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(HARNESS_A): $(HARNESS_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# The shared library exports its API and nothing else: every object is built
# -fvisibility=hidden, the installed headers declare what is default, and
# the version script (lib/twochains.map, one version node per ABI change, as
# liburing.map) names it; tests/test_exports.sh holds the three equal. The
# tools and tests link the static archive and may use internals.
$(LIB_OBJS): CFLAGS += -fvisibility=hidden
$(LIB_SO): $(LIB_OBJS) lib/twochains.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libtwochains.so.0 -Wl,--version-script=lib/twochains.map $(LDFLAGS) \
	    -o $@ $(LIB_OBJS) $(LIBS)

# Soak: SOAK_COUNT jams under stress-ng --class vm --all 1 (not part of check).
SOAK_COUNT ?= 10000000
SOAK_STRESS ?= stress-ng --class vm --all 1
soak:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	scripts/soak.sh $(SOAK_COUNT) "$(SOAK_STRESS)"

# --- the test package
# (libtwochains.so: tc-pkg checks jams' GOT slot names against what it exports)
$(PKG_OUT) &: $(JAM_SRCS) $(wildcard jams/*.h lib/*.h lib/*/*.h) $(TC_PKG_RUN) | $(LIB_SO)
	$(TC_PKG_RUN) build jams --name bench --out $(PKG_DIR) $(PKG_FLAGS)

# The bench jams as docs/JAMS.md (a table) and README.md (their names) list
# them, rewritten from the package's manifest, whose describe lines are
# each jam's TC_JAM_DESCRIBE (scripts/jam-docs.sh); tests/test_jam_docs.sh
# fails while the docs differ from what the build gives.
JAM_DOCS := docs/JAMS.md README.md
docs-jams: $(PKG_OUT)
	scripts/jam-docs.sh update $(PKG_DIR) $(JAM_DOCS)

# --- tools
# tc-pkg needs only the pure modules of libtwochains (blob, manifest, pkg,
# elfcheck, status): inspect loads a package as the runtime does.
$(TC_PKG): $(TOOL_SRCS:%.c=$(BUILD)/obj/%.o) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lelf -ldl

$(TC_PERF): $(PERF_SRCS:%.c=$(BUILD)/obj/%.o) $(HARNESS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(HWLOC_LIBS)

$(BUILD)/obj/bench/soak.o $(BUILD)/obj/bench/tc_run.o $(BUILD)/obj/bench/mcast_run.o: CPPFLAGS += -Ijams
$(TC_RUN): $(BUILD)/obj/bench/tc_run.o $(BUILD)/obj/bench/tool.o $(HARNESS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(HWLOC_LIBS)

$(TC_MCAST): $(MCAST_SRCS:%.c=$(BUILD)/obj/%.o) $(HARNESS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(HWLOC_LIBS)

$(TC_SOAK): $(BUILD)/obj/bench/soak.o $(BUILD)/obj/bench/tool.o $(HARNESS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(HWLOC_LIBS)

$(TC_COST): $(BUILD)/obj/bench/cost_main.o $(BUILD)/obj/bench/tool.o $(HARNESS_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(HWLOC_LIBS)

# --- tests
$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(HARNESS_A) $(LIB_A) | $(PKG_SO) $(TC_PERF) $(TC_SOAK) $(TC_RUN) $(TC_MCAST) $(TC_COST)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(HARNESS_A) $(LIB_A) $(LIBS) $(HWLOC_LIBS) -lcmocka

# -Ibench after lib's folders: "harness/<x>.h"; lib's headers keep their names.
$(BUILD)/obj/tests/%.o: CPPFLAGS += -Ijams -I$(PKG_DIR) -Ibench
$(BUILD)/obj/tests/%.o: | $(PKG_DIR)/bench.h

# test_blob_exec fills GOT slots with dlsym(RTLD_DEFAULT, ...): export its symbols.
$(BUILD)/tests/test_blob_exec: private LDFLAGS += -rdynamic

check:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory check-run

check-run: all $(TEST_BINS)
	@BUILD=$(BUILD) VALGRIND=$(VALGRIND) SAN=$(SAN) tests/run-tests.sh

# Line coverage of scripts/tcresults (the results layer) by its unit tests
# (tests/py, also run by make check), with Debian's python3-coverage.
coverage-py:
	@scripts/deps.sh coverage
	@mkdir -p $(BUILD)
	COVERAGE_FILE=$(BUILD)/py.coverage PYTHONDONTWRITEBYTECODE=1 python3-coverage run \
	    --source=scripts/tcresults tests/py/run.py >$(BUILD)/py-coverage.log || { tail -30 $(BUILD)/py-coverage.log; exit 1; }
	@tail -1 $(BUILD)/py-coverage.log
	COVERAGE_FILE=$(BUILD)/py.coverage python3-coverage report -m

# The figures README.md and docs/ quote, each in a block between
# <!-- tc:begin NAME src=... --> markers, rewritten from the results folder,
# the build or the sweep definition it names (scripts/tc-readme); make check
# fails where a block differs from what its source gives (tests/py/test_readme.py).
readme: all
	TC_BUILD=$(abspath $(BUILD)) scripts/tc-readme

# The results as static HTML (scripts/tc-report): one page per results folder
# (claims, every figure, experiments, platform report, the run) and per
# comparison in plots/compare/, each self-contained (figures as data: URIs,
# nothing loaded from outside; readable from file://), an index.html (the
# folders newest first, each with its verdicts and host state) and every
# folder side by side (compare-runs: a new run beside the committed ones).
REPORT_DIR ?= $(BUILD)/report
report:
	scripts/tc-report -o $(REPORT_DIR) --compare-runs

# The aarch64 build under qemu-user (scripts/check-aarch64.sh): cross-built
# against Debian's arm64 UCX into build-aarch64/, run by binfmt_misc.
check-aarch64:
	@BUILD=$(BUILD) scripts/check-aarch64.sh

# The main job for now: jams vs raw UCX, written to results/<platform>/.
ROUNDS ?= 5
ITERS  ?= 1000000
bench:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	scripts/bench-foundation.sh $(ROUNDS) $(ITERS)

# Regression check (docs/REGRESSION.md): a short fixed sweep (scripts/bench-ci.sh,
# 3 rounds x 2 jams of tc-perf -l) into BENCH_CI_OUT, held against this
# platform's baseline, results/baseline/<platform-id>/, by scripts/tc-compare
# with BENCH_CI_FLAGS (default: fail when a jam's p50 or rate, each relative
# to its run's raw put, is 10% worse with its rounds apart from the
# baseline's). BASE=REV: the counts alone, against REV's counted in this job
# (built under build/bench-ci-base/; no committed baseline, any runner's key).
# The script exits 0 no regression, 1 regression, 2 nothing compared; make
# turns any failure into 2, so a CI job calls scripts/bench-ci.sh itself or
# reads "exit" in $(BENCH_CI_OUT)/verdict.json. Where no baseline exists for
# this platform nothing is compared or recorded
# (one line says so); RECORD=1 records the sweep as one (refused while the
# machine is busy). bench-ci-baseline re-records this platform's baseline
# (refused while the machine is busy). The counts are held for both
# compilers' keys: the clang leg (bench-ci.sh --clang: this tree built with
# clang-14 into build-clang/, its counts against its own key's baseline;
# skipped, saying so, where clang-14 is missing); BENCH_CI_CLANG= drops it.
BENCH_CI_OUT   ?= $(BUILD)/bench-ci
BENCH_CI_FLAGS ?= --threshold 10
BENCH_CI_CLANG ?= 1
BASELINES      ?= results/baseline
RECORD         ?=
SLOW_JAM       ?=
bench-ci:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	TC_BUILD=$(abspath $(BUILD)) scripts/bench-ci.sh -o $(BENCH_CI_OUT) \
	    $(if $(BASE),--base $(BASE),--against $(BASELINES) $(if $(RECORD),--record) $(if $(SLOW_JAM),--slow-jam $(SLOW_JAM))) \
	    $(if $(and $(BENCH_CI_CLANG),$(if $(RECORD),,1)),--clang) --compare-flags "$(BENCH_CI_FLAGS)"

# Same-job A/B for time (scripts/tc-ab, docs/REGRESSION.md): BASE (default the
# merge-base with main, HEAD~1 on main) built in a worktree under build/ab/,
# this tree's build, their bench-ci rounds alternating block by block
# (AB_ROUNDS each, AB_ITERS iterations a point) into build/bench-ab/, judged
# by a Mann-Whitney U test over the rounds. SLOW_JAM=N slows this tree's
# indirect_put (the detection limit); AB_FLAGS: --report-only, --alpha,
# --min-effect, --json FILE, --junit FILE. Exit 0 / 1 regression / 2 nothing compared.
BASE      ?=
AB_ROUNDS ?= 10
AB_ITERS  ?= 100000
AB_FLAGS  ?=
bench-ab:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	TC_BUILD=$(abspath $(BUILD)) scripts/tc-ab $(if $(BASE),--base $(BASE)) -r $(AB_ROUNDS) -n $(AB_ITERS) \
	    -o $(BUILD)/bench-ab $(if $(SLOW_JAM),--slow-jam $(SLOW_JAM)) $(AB_FLAGS)

bench-ci-baseline:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	TC_BUILD=$(abspath $(BUILD)) scripts/bench-ci.sh --baseline -o $(BASELINES)/$$(scripts/platform-id.sh)

# History of the deterministic counts (scripts/tc-history, docs/REGRESSION.md):
# the last N commits (first-parent line) each built in a worktree under
# build/history/ and counted (scripts/bench-cost.sh over bench-ci's points),
# appended to build/history/<key>/history.csv (tc-key: arch-compiler-libc-ucx;
# commits there or in the committed results/history/<key>/ for this counter
# are skipped); the steps named by commit, a plot per metric beside it.
# VIEW=committed writes results/history/<key>/ instead (the committed view).
# HISTORY_FLAGS: --rev REV, --report, --step-pct, --json, --junit.
N             ?= 50
HISTORY_FLAGS ?=
VIEW          ?=
history:
	@scripts/deps.sh
	$(if $(filter-out committed,$(VIEW)),$(error VIEW=$(VIEW): VIEW=committed writes results/history/, no VIEW build/history/))
	scripts/tc-history -N $(N) $(if $(filter committed,$(VIEW)),--commit) $(HISTORY_FLAGS)

# The deterministic counts of the bench-ci points (scripts/bench-cost.sh,
# pinned: instructions and simulated cycles per message, send and receive
# apart), which hold for every host of a key (architecture, compiler, C
# library, UCX). cost-host records this host's under
# results/cost-hosts/<platform-id>/ and holds them against the committed
# baseline of its key, results/baseline/cost/<key>/ (exit 1 naming each point
# that differs, 2 where the key has no baseline); cost-baseline records that
# baseline (commit it, saying why the counts moved).
COST_FLAGS ?= --sweep ci
# the key's baseline folder (a shell word: the key is read from the build)
COST_BASE = $(BASELINES)/cost/$$(TC_BUILD=$(abspath $(BUILD)) scripts/bench-cost.sh --key)
cost-host: all
	TC_BUILD=$(abspath $(BUILD)) scripts/bench-cost.sh $(COST_FLAGS) \
	    -o results/cost-hosts/$$(scripts/platform-id.sh) --same-as $(COST_BASE)

cost-baseline: all
	TC_BUILD=$(abspath $(BUILD)) scripts/bench-cost.sh $(COST_FLAGS) -o $(COST_BASE)

# The paper's figures as data (scripts/experiments/*.json): tc-experiments runs
# every experiment with PRESET (quick: minutes, README.md says how many; paper:
# 10,000 warm-up + 10^6 iterations, hours) into results/<platform>/, then
# tc-plot draws plots/<platform>/figNN-*.png|svg (tc-topo the topology
# sweep's matrix, per-class summary and topo.claims.md). EXPERIMENTS= picks some
# (names or prefixes); RESUME=1 continues a stopped run; make plots redraws.
# Every point runs FIG_ROUNDS rounds (default 5, quick and paper),
# each its own invocation; figures and claims use the rounds' median and 95%
# interval.
PRESET      ?= quick
EXPERIMENTS ?=
FIG_ROUNDS  ?=
.PHONY: figures figures-paper plots
# HOSTS=A,B LAUNCHER=mpirun|srun|ssh: every point between two hosts (the
# server side on B), results under the pair's platform id (MPIRUN_ARGS,
# TC_RSH: see scripts/tc-experiments -h).
HOSTS    ?=
LAUNCHER ?= mpirun
HOST_ARGS = $(if $(HOSTS),--hosts $(HOSTS) --launcher $(LAUNCHER))
figures:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	@export TC_BUILD=$(abspath $(BUILD)); rc=0; \
	    id=$$(scripts/tc-experiments $(HOST_ARGS) --print-platform-id) || exit 1; \
	    scripts/tc-experiments --platform-id $$id $(HOST_ARGS) \
	    $(if $(RESUME),--resume,--preset $(PRESET) $(if $(FIG_ROUNDS),--rounds $(FIG_ROUNDS)) $(EXPERIMENTS)) || rc=$$?; \
	    [ $$rc = 130 ] && exit $$rc; scripts/tc-plot --platform-id $$id $(EXPERIMENTS) || rc=1; \
	    if [ -f results/$$id/topo.csv ]; then scripts/tc-topo --outputs results/$$id || rc=1; fi; \
	    scripts/tc-claims results/$$id || rc=1; \
	    echo "next: make report (build/report/index.html: this run beside the committed ones)"; exit $$rc

figures-paper:
	@$(MAKE) --no-print-directory figures PRESET=paper

# make plots: every platform folder in results/ (a fresh clone: the committed
# ones); PLATFORM=<id> only that one.
PLATFORM ?=
plots:
	scripts/tc-plot $(if $(PLATFORM),--platform-id $(PLATFORM),--all) $(EXPERIMENTS)

deps:
	@scripts/deps.sh

# Frame fuzzing (libFuzzer): seeds valid frames of every kind, fuzzes for
# FUZZ_SECONDS, merges what it found into the committed corpus; crash
# reproducers land in tests/fuzz/frame-crashes/. make check replays both.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -g -O1 $(LIB_INC) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz:
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD)/fuzz/new tests/fuzz/frame-corpus tests/fuzz/frame-crashes
	clang $(FUZZ_CFLAGS) tests/fuzz/frame_target.c lib/codec/frame.c lib/base/status.c -o $(BUILD)/fuzz/fuzz_frame
	$(CC) -std=gnu11 -O2 $(LIB_INC) tests/fuzz/frame_seeds.c lib/codec/frame.c lib/base/status.c -o $(BUILD)/fuzz/frame_seeds
	$(BUILD)/fuzz/frame_seeds tests/fuzz/frame-corpus
	$(BUILD)/fuzz/fuzz_frame -max_total_time=$(FUZZ_SECONDS) -max_len=1100 \
	    -artifact_prefix=tests/fuzz/frame-crashes/ $(BUILD)/fuzz/new tests/fuzz/frame-corpus
	$(BUILD)/fuzz/fuzz_frame -merge=1 tests/fuzz/frame-corpus $(BUILD)/fuzz/new
	@$(MAKE) --no-print-directory fuzz-mcast
	@$(MAKE) --no-print-directory fuzz-rx
	@$(MAKE) --no-print-directory fuzz-wire

# What a peer sends at connect (tests/fuzz/wire_target.c): the connection
# blob's rules, the verdict and the memory-map reader, into
# tests/fuzz/wire-corpus and wire-crashes/; make check replays both
# (tests/test_wire_corpus.c). The whole connect with forged blobs over real
# transports is tests/test_wire_forge.c.
WIRE_FUZZ_SRCS := lib/codec/wire.c lib/codec/maps.c lib/base/log.c lib/base/names.c lib/base/status.c
# and the peer's UCX worker address and rkey (tests/fuzz/ucxblob_target.c,
# seeded with real blobs of every transport by ucxblob_seeds; replayed by
# tests/test_ucxblob_corpus.c)
UCXBLOB_FUZZ_SRCS := lib/codec/ucx_blob.c
fuzz-wire:
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD)/fuzz/wire-new tests/fuzz/wire-corpus tests/fuzz/wire-crashes
	clang $(FUZZ_CFLAGS) tests/fuzz/wire_target.c $(WIRE_FUZZ_SRCS) -o $(BUILD)/fuzz/fuzz_wire
	$(CC) -std=gnu11 -O2 $(LIB_INC) tests/fuzz/wire_seeds.c $(WIRE_FUZZ_SRCS) -o $(BUILD)/fuzz/wire_seeds
	$(BUILD)/fuzz/wire_seeds tests/fuzz/wire-corpus
	$(BUILD)/fuzz/fuzz_wire -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -artifact_prefix=tests/fuzz/wire-crashes/ $(BUILD)/fuzz/wire-new tests/fuzz/wire-corpus
	$(BUILD)/fuzz/fuzz_wire -merge=1 tests/fuzz/wire-corpus $(BUILD)/fuzz/wire-new
	@mkdir -p $(BUILD)/fuzz/ucxblob-new tests/fuzz/ucxblob-corpus tests/fuzz/ucxblob-crashes
	clang $(FUZZ_CFLAGS) tests/fuzz/ucxblob_target.c $(UCXBLOB_FUZZ_SRCS) -o $(BUILD)/fuzz/fuzz_ucxblob
	$(CC) -std=gnu11 -O2 tests/fuzz/ucxblob_seeds.c $(UCX_LIBS) -o $(BUILD)/fuzz/ucxblob_seeds
	$(BUILD)/fuzz/ucxblob_seeds tests/fuzz/ucxblob-corpus
	$(BUILD)/fuzz/fuzz_ucxblob -max_total_time=$(FUZZ_SECONDS) -max_len=1024 \
	    -artifact_prefix=tests/fuzz/ucxblob-crashes/ $(BUILD)/fuzz/ucxblob-new tests/fuzz/ucxblob-corpus
	$(BUILD)/fuzz/fuzz_ucxblob -merge=1 tests/fuzz/ucxblob-corpus $(BUILD)/fuzz/ucxblob-new

# The whole receive path (tests/fuzz/rx_target.c): programs of genuine jams,
# genuine control frames (config, NACK, goodbye, rieds, sync, credits),
# hostile frames and rewrites over real loopback pairs (variable and fixed
# frames), every library source built with the fuzzer's instrumentation.
# Seeds (tests/fuzz/rx_seeds.c: every control frame kind over variable and
# fixed frames of 64-1024 bytes) go to $(BUILD)/fuzz/rx-seeds; what passes
# and adds coverage is merged into tests/fuzz/rx-corpus, reproducers land in
# rx-crashes/; make check replays both (tests/test_rx_corpus.c). On a tree
# with open defects, FUZZ_RX_FLAGS='-fork=1 -ignore_crashes=1' fuzzes past
# them (each reproducer still lands in rx-crashes/). The pairs live as long
# as the process, so leak checking at exit is off (what it would report is
# UCX's state of the live pairs).
FUZZ_RX_FLAGS ?=
fuzz-rx: all
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD)/fuzz/rx-new $(BUILD)/fuzz/rx-seeds tests/fuzz/rx-corpus tests/fuzz/rx-crashes
	clang $(FUZZ_CFLAGS) -Ibench -D_GNU_SOURCE tests/fuzz/rx_target.c $(LIB_SRCS) bench/harness/pkg_path.c \
	    -o $(BUILD)/fuzz/fuzz_rx $(LIBS)
	$(CC) -std=gnu11 -O2 tests/fuzz/rx_seeds.c -o $(BUILD)/fuzz/rx_seeds
	$(BUILD)/fuzz/rx_seeds $(BUILD)/fuzz/rx-seeds
	ASAN_OPTIONS=detect_leaks=0 $(BUILD)/fuzz/fuzz_rx -max_total_time=$(FUZZ_SECONDS) -max_len=2048 -timeout=30 \
	    -detect_leaks=0 $(FUZZ_RX_FLAGS) -artifact_prefix=tests/fuzz/rx-crashes/ $(BUILD)/fuzz/rx-new \
	    tests/fuzz/rx-corpus $(BUILD)/fuzz/rx-seeds
	ASAN_OPTIONS=detect_leaks=0 $(BUILD)/fuzz/fuzz_rx -detect_leaks=0 -merge=1 tests/fuzz/rx-corpus \
	    $(BUILD)/fuzz/rx-new $(BUILD)/fuzz/rx-seeds

# Multicast decoders (target set, envelope, ack): the same, into
# tests/fuzz/mcast-corpus and mcast-crashes/; make check replays both.
MCAST_FUZZ_SRCS := $(addprefix lib/codec/,mcast_set.c mcast_codec.c mcast_decode.c mcast_env.c) lib/base/status.c
fuzz-mcast:
	@scripts/deps.sh fuzz
	@mkdir -p $(BUILD)/fuzz/mcast-new tests/fuzz/mcast-corpus tests/fuzz/mcast-crashes
	clang $(FUZZ_CFLAGS) tests/fuzz/mcast_target.c $(MCAST_FUZZ_SRCS) -o $(BUILD)/fuzz/fuzz_mcast
	$(CC) -std=gnu11 -O2 $(LIB_INC) tests/fuzz/mcast_seeds.c $(MCAST_FUZZ_SRCS) -o $(BUILD)/fuzz/mcast_seeds
	$(BUILD)/fuzz/mcast_seeds tests/fuzz/mcast-corpus
	$(BUILD)/fuzz/fuzz_mcast -max_total_time=$(FUZZ_SECONDS) -max_len=300 \
	    -artifact_prefix=tests/fuzz/mcast-crashes/ $(BUILD)/fuzz/mcast-new tests/fuzz/mcast-corpus
	$(BUILD)/fuzz/fuzz_mcast -merge=1 tests/fuzz/mcast-corpus $(BUILD)/fuzz/mcast-new

# What make install puts where (make uninstall takes exactly these back):
INSTALL_TOOLS   := $(TC_PERF) $(TC_SOAK) $(TC_RUN) $(TC_PKG) $(TC_MCAST) $(TC_COST)
# <twochains/...>: the jam header; multicast over process groups (group, codec, forwarding)
INSTALL_SUBHDRS := jams/tc_jam.h lib/group/group.h lib/codec/mcast.h lib/codec/mcast_env.h lib/group/mcast_fwd.h
INSTALL_PKG_DIR := share/twochains/pkg/bench

# The installed headers' layout in the build tree, as links (twochains.h and
# twochains/<x>.h): a jam or program spells <twochains/tc_jam.h> or
# "tc_jam.h" alike against the build tree's tc-pkg and an installed one.
$(BUILD)/include/.stamp: lib/twochains.h $(INSTALL_SUBHDRS)
	@rm -rf $(BUILD)/include && mkdir -p $(BUILD)/include/twochains
	ln -sr lib/twochains.h $(BUILD)/include/twochains.h
	ln -sr $(INSTALL_SUBHDRS) $(BUILD)/include/twochains/
	@touch $@
# the bench package, as shell patterns in its directory (blobs and rieds by jam)
INSTALL_PKG     := $(notdir $(PKG_SO)) libried_*.so bench.h manifest.tcm jam_*.blob

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	    $(DESTDIR)$(PREFIX)/$(INSTALL_PKG_DIR)
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/libtwochains.so.0
	ln -sf libtwochains.so.0 $(DESTDIR)$(PREFIX)/lib/libtwochains.so
	install -m 644 lib/twochains.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/include/twochains
	install -m 644 $(INSTALL_SUBHDRS) $(DESTDIR)$(PREFIX)/include/twochains/
	install -m 755 $(INSTALL_TOOLS) $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(PKG_SO) $(PKG_DIR)/libried_*.so $(DESTDIR)$(PREFIX)/$(INSTALL_PKG_DIR)/
	install -m 644 $(PKG_DIR)/bench.h $(PKG_DIR)/manifest.tcm $(PKG_DIR)/jam_*.blob \
	    $(DESTDIR)$(PREFIX)/$(INSTALL_PKG_DIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|0.1.0|g' -e 's|@PMIX_LIBS@|$(PMIX_LIBS)|g' twochains.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/twochains.pc

# Takes back what install put (same PREFIX and DESTDIR), nothing else: the
# files by name (the package's by its patterns, in its directory), then the
# directories that are ours alone (include/twochains, share/twochains/...)
# where nothing else is left in them. Builds nothing.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libtwochains.a $(DESTDIR)$(PREFIX)/lib/libtwochains.so.0 \
	    $(DESTDIR)$(PREFIX)/lib/libtwochains.so $(DESTDIR)$(PREFIX)/lib/pkgconfig/twochains.pc \
	    $(DESTDIR)$(PREFIX)/include/twochains.h \
	    $(addprefix $(DESTDIR)$(PREFIX)/include/twochains/,$(notdir $(INSTALL_SUBHDRS))) \
	    $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_TOOLS)))
	cd $(DESTDIR)$(PREFIX)/$(INSTALL_PKG_DIR) 2>/dev/null && rm -f $(INSTALL_PKG) || true
	@for d in include/twochains $(INSTALL_PKG_DIR) share/twochains/pkg share/twochains; do \
	    [ ! -d $(DESTDIR)$(PREFIX)/$$d ] || rmdir $(DESTDIR)$(PREFIX)/$$d 2>/dev/null || \
	        echo "make uninstall: $(DESTDIR)$(PREFIX)/$$d kept: it holds files not installed here" >&2; \
	done

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
