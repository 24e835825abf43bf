# weft -- plain GNU make. `make` builds build/libweft.a, build/libweft.so and
# build/weft; `make test` runs every CPU test; `make test-asan` runs them again
# under AddressSanitizer + UndefinedBehaviorSanitizer with WF_ARENA_DEBUG.
# CUDA is never linked: libnvrtc and libcuda are loaded with dlopen at run time.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
WARN    := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wold-style-definition -Wwrite-strings -Wundef -Wvla
CFLAGS  += -std=c11 $(OPT) $(WARN) $(WERROR) -fPIC -fvisibility=hidden -Iinclude -Isrc \
           -D_POSIX_C_SOURCE=200809L -MMD -MP $(EXTRA_CFLAGS)
LDLIBS  := -ldl -lm

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIB_SRC   := $(sort $(wildcard src/*/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC  := $(sort $(wildcard tests/*.c tests/unit/*.c tests/seeds/*.c tests/fault/*.c tests/hostcuda/*.c))
TEST_OBJ  := $(TEST_SRC:%.c=$(BUILD)/%.o)
# The test runner links its own build of the library with WF_TEST_BUILD: the
# kernel-IR verifier then runs after every lowering pass, and wf_assert aborts.
TLIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/test-lib/%.o)
CLI_SRC   := $(wildcard tools/weft/*.c)
EXAMPLES  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
BENCHES   := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# The GPU test program (tests/gpu/, its own harness and main) links the public
# library only; it is not part of `make test`.
GPU_TEST_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/gpu/*.c)) tests/fixtures.c)
GPU_ASAN_ENV := ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1:abort_on_error=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/gpu/lsan.supp UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The shared library's version is weft.h's: the file is libweft.so.MAJOR.MINOR.PATCH
# with SONAME libweft.so.MAJOR (what a linked program asks the loader for),
# and libweft.so.MAJOR and libweft.so are links to it (-lweft finds the latter).
WF_VERSION := $(shell sed -n 's/^\#define WF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' include/weft.h | paste -sd.)
WF_MAJOR   := $(firstword $(subst ., ,$(WF_VERSION)))
SO_SONAME  := libweft.so.$(WF_MAJOR)
SO_FILE    := libweft.so.$(WF_VERSION)

all: $(BUILD)/libweft.a $(BUILD)/libweft.so $(BUILD)/weft

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The static library keeps only the public wf_ symbols global: link the objects
# into one relocatable object, then localize everything hidden.
$(BUILD)/libweft.a: $(LIB_OBJ)
	$(Q)ld -r -o $(BUILD)/weft_all.o $(LIB_OBJ)
	$(Q)objcopy --localize-hidden $(BUILD)/weft_all.o
	$(Q)rm -f $@ && ar rcs $@ $(BUILD)/weft_all.o

$(BUILD)/$(SO_FILE): $(LIB_OBJ)
	$(Q)$(CC) -shared -Wl,-soname,$(SO_SONAME) -o $@ $(LIB_OBJ) $(LDLIBS)

$(BUILD)/$(SO_SONAME): $(BUILD)/$(SO_FILE)
	$(Q)ln -sf $(SO_FILE) $@

$(BUILD)/libweft.so: $(BUILD)/$(SO_SONAME)
	$(Q)ln -sf $(SO_SONAME) $@

$(BUILD)/weft: $(CLI_SRC) $(BUILD)/libweft.a
	$(Q)$(CC) $(CFLAGS) -o $@ $(CLI_SRC) $(BUILD)/libweft.a $(LDLIBS)

# Tests link the objects directly: unit tests call internal functions.
$(BUILD)/tests/runner: $(TEST_OBJ) $(TLIB_OBJ)
	$(Q)$(CC) $(CFLAGS) -o $@ $(TEST_OBJ) $(TLIB_OBJ) $(LDLIBS)

$(BUILD)/test-lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -DWF_TEST_BUILD $(LIB_DEFS) -c $< -o $@

$(BUILD)/tests/%.o: CFLAGS += -DWF_TEST_BUILD -Itests
$(BUILD)/src/%.o: CFLAGS += $(LIB_DEFS)

$(BUILD)/examples/%: examples/%.c $(BUILD)/libweft.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libweft.a $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libweft.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libweft.a $(LDLIBS)

# The fuzzer (tests/fuzz/): its own main, the test build of the library and
# the plain reference. `make test` also runs it for FUZZ_SECONDS of CPU time
# (not wall time: it shares the machine with the other checks, and a busy
# machine must not shrink what it covers) under ASan+UBSan (objects shared
# with test-asan in build-asan/), seeded and reproducible; `make fuzz-long`
# runs it for an hour.
FUZZ_OBJ     := $(patsubst tests/%.c,$(BUILD)/tests/%.o,$(filter-out tests/fuzz/tir_fuzz.c,$(wildcard tests/fuzz/*.c))) \
  $(BUILD)/tests/ref.o
FUZZ_SECONDS ?= 60
FUZZ_SEED    ?= 20261123
ASAN_FLAGS   := BUILD=build-asan OPT="-O1 -g" LIB_DEFS="-DWF_ARENA_DEBUG" \
  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
ASAN_ENV     := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=1

$(BUILD)/tests/fuzz/fuzz: $(FUZZ_OBJ) $(TLIB_OBJ)
	$(Q)$(CC) $(CFLAGS) -o $@ $(FUZZ_OBJ) $(TLIB_OBJ) $(LDLIBS)

fuzz-asan-build:
	$(Q)$(MAKE) --no-print-directory $(ASAN_FLAGS) build-asan/tests/fuzz/fuzz

fuzz: fuzz-asan-build
	$(Q)$(ASAN_ENV) build-asan/tests/fuzz/fuzz -t $(FUZZ_SECONDS) -s $(FUZZ_SEED)

fuzz-long: fuzz-asan-build
	$(Q)$(ASAN_ENV) build-asan/tests/fuzz/fuzz -t 3600 -s $$(date +%s)

# `make test` (CI: .ci/run) first builds everything the checks need, TEST_JOBS
# jobs at a time, then runs the independent checks (TEST_STEPS) all at once,
# each into its own log under $(BUILD)/test-logs/, and prints the logs in a
# fixed order when all have ended (tests/report.sh): one summary line per
# step (the tail of its log if it failed), the C runner's last, so its
# "N passed, N failed, N skipped" ends the output; the full logs stay there.
# The runner spreads its tests over TEST_JOBS processes; the fuzzers' budgets are CPU time (a fixed
# amount of work), so running side by side costs them no coverage.
# `make test-<step>` runs one step in the foreground.
TEST_JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
TEST_STEPS := layers fuzz tir-fuzz python tvm-diff install cli runner
TEST_LOGS  := $(BUILD)/test-logs
step-layers  := check-layers
step-fuzz    := fuzz
step-tir-fuzz := tir-fuzz
step-python  := python-test
step-tvm-diff := tvm-diff
step-install := install-test
step-cli     := cli-test
step-runner  := runner-test

# The runner streams its failures as it goes (its full output goes to its
# log; tests/runner-failures.awk keeps a failed test's output and the
# summary line), so they show even if a caller's time limit stops the other
# steps; those run niced beside it, so the runner gets the cores first.
TEST_BG_STEPS := $(filter-out runner,$(TEST_STEPS))
# A caller that starts make with SIGCHLD ignored (a wrapper that did so) makes
# every make and wait below fail with "wait: No child processes", before any
# summary: the steps run in a make whose SIGCHLD is the default again (GNU
# env's --default-signal; as they are where env lacks it). Checked by running
# make test from a process that ignores SIGCHLD: all steps ran, exit status 0.
SIGCHLD_DEFAULT := $(shell env --default-signal=CHLD true 2>/dev/null && \
  echo env --default-signal=CHLD)
test:
	$(Q)$(SIGCHLD_DEFAULT) $(MAKE) --no-print-directory test-steps

test-steps:
	$(Q)$(MAKE) --no-print-directory -j$(TEST_JOBS) test-build
	$(Q)rm -rf $(TEST_LOGS) && mkdir -p $(TEST_LOGS)
	$(Q)nice -n 10 $(MAKE) --no-print-directory -j$(words $(TEST_BG_STEPS)) \
	  $(TEST_BG_STEPS:%=test-log-%) & bg=$$!; \
	  s=$$(date +%s); \
	  { $(MAKE) --no-print-directory runner-test; \
	    echo "$$? $$(($$(date +%s) - s))" >$(TEST_LOGS)/runner.rc; } 2>&1 | tee $(TEST_LOGS)/runner.log | \
	    awk -f tests/runner-failures.awk; \
	  wait $$bg; \
	  REPORT_LAST_SHOWN=1 sh tests/report.sh $(TEST_LOGS) $(TEST_STEPS)

# What the steps need, built before any of them runs (in parallel, and so
# that no two steps build the same file at once).
test-build: all $(BUILD)/tests/runner $(TLIB_OBJ) fuzz-asan-build tir-fuzz-build-if-possible \
  python-venv

$(TEST_STEPS:%=test-log-%): test-log-%:
	$(Q)s=$$(date +%s); $(MAKE) --no-print-directory $(step-$*) >$(TEST_LOGS)/$*.log 2>&1; \
	  echo "$$? $$(($$(date +%s) - s))" >$(TEST_LOGS)/$*.rc

$(TEST_STEPS:%=test-%): test-%:
	$(Q)$(MAKE) --no-print-directory $(step-$*)

runner-test: $(BUILD)/tests/runner
	$(Q)sh tests/run.sh $(BUILD) -j $(TEST_JOBS)

test-asan:
	$(Q)$(MAKE) --no-print-directory -j$(TEST_JOBS) $(ASAN_FLAGS) build-asan/tests/runner
	$(Q)$(ASAN_ENV) sh tests/run.sh build-asan -j $(TEST_JOBS)

demo: $(EXAMPLES)
	$(Q)for e in $(EXAMPLES); do echo "== $$e"; $$e || exit 1; done

bench: $(BENCHES)

$(BUILD)/tests/gpu/gpu_tests: $(GPU_TEST_OBJ) $(BUILD)/libweft.a
	$(Q)$(CC) $(CFLAGS) -o $@ $(GPU_TEST_OBJ) $(BUILD)/libweft.a $(LDLIBS)

# Runs on a machine without a GPU too: the tests that need one are skipped.
gpu-test: $(BUILD)/tests/gpu/gpu_tests
	$(Q)$(BUILD)/tests/gpu/gpu_tests

# The same under ASan+UBSan; the driver's fixed mappings need protect_shadow_gap=0
# and its own allocations are suppressed (tests/gpu/lsan.supp).
gpu-test-asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan OPT="-O1 -g" \
	  EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LIB_DEFS="-DWF_ARENA_DEBUG" build-asan/tests/gpu/gpu_tests
	$(Q)$(GPU_ASAN_ENV) build-asan/tests/gpu/gpu_tests

gpu-check:
	$(Q)sh tools/gpu-check.sh

FORMAT_SRC := include/weft.h $(LIB_SRC) $(wildcard src/*/*.h) $(TEST_SRC) $(wildcard tests/*.h tests/fuzz/*.c tests/fuzz/*.h) \
  $(wildcard tests/gpu/*.c tests/gpu/*.h bench/*.c bench/*.h examples/*.c tools/weft/*.c)

format:
	$(Q)clang-format -i $(FORMAT_SRC)

check-format:
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRC) && echo "format ok"

check-headers:
	$(Q)for h in include/weft.h $(wildcard src/*/*.h); do \
	  echo "#include \"$$h\"" | $(CC) -std=c11 $(WARN) -Iinclude -Isrc -I. -x c -fsyntax-only - || exit 1; \
	done
	$(Q)echo '#include "weft.h"' | g++ -Iinclude -x c++ -fsyntax-only -
	@echo "headers ok"

# Layer order: base <- ir <- analysis <- sched <- lower <- codegen <- runtime <- api <- tir
# (tir: the TensorIR front door, over the public API like another user of it).
# A file may include headers only from its own layer and the layers before it,
# and call only functions defined there (a public wf_* function defined in api/
# is declared in weft.h, which every layer includes: only the objects show such
# a call); within a layer no include cycle and no call cycle between files
# (tools/check-cycles.py: nm of the objects). `make test` runs it.
LAYERS := base ir analysis sched heur lower codegen runtime api tir

check-cycles: $(TLIB_OBJ)
	$(Q)python3 tools/check-cycles.py --self-test
	$(Q)python3 tools/check-cycles.py $(BUILD) "$(LAYERS)"

check-layers-only:
	$(Q)order="$(LAYERS)"; bad=0; \
	for f in $(LIB_SRC) $(wildcard src/*/*.h); do \
	  layer=$$(echo $$f | cut -d/ -f2); rank=0; i=0; \
	  for l in $$order; do i=$$((i+1)); [ $$l = $$layer ] && rank=$$i; done; \
	  for inc in $$(sed -n 's|^#include "\([a-z]*\)/.*|\1|p' $$f); do \
	    j=0; r=0; for l in $$order; do j=$$((j+1)); [ $$l = $$inc ] && r=$$j; done; \
	    if [ $$r -gt $$rank ]; then echo "$$f includes $$inc/ (a higher layer)"; bad=1; fi; \
	  done; \
	done; [ $$bad = 0 ] && echo "layers ok"

check-layers: check-layers-only check-cycles

check-symbols: $(BUILD)/libweft.a
	$(Q)bad=$$(nm -g --defined-only $(BUILD)/libweft.a | awk 'NF==3{print $$3}' | grep -v '^wf_'); \
	if [ -n "$$bad" ]; then echo "non-wf_ global symbols:"; echo "$$bad"; exit 1; fi; echo "symbols ok"

clean:
	rm -rf build build-asan build-tirfuzz

.PHONY: all test test-steps test-build runner-test $(TEST_STEPS:%=test-%) $(TEST_STEPS:%=test-log-%) test-asan fuzz fuzz-long fuzz-asan-build demo bench gpu-test gpu-test-asan gpu-check format check-format check-headers check-layers check-layers-only check-cycles check-symbols clean
-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(TLIB_OBJ:.o=.d) $(GPU_TEST_OBJ:.o=.d) \
  $(BENCHES:=.d)

# ---- Python package (python/, engineer F) ----
# `make python-test` runs the pytest suite of python/ on $(BUILD)/libweft.so
# (python/run_pytest.sh makes $(BUILD)/venv with numpy when python3 lacks it;
# pytest, when that python lacks it, comes from tools/wheels, offline).
# `make test` runs it first, so that the C runner's
# "N passed, N failed, N skipped" stays the last line.
python-test: $(BUILD)/libweft.so
	$(Q)python3 tools/errors-coverage.py -q --all
	$(Q)sh python/run_pytest.sh $(BUILD)

# The venv (when python3 lacks numpy) and pytest are made ready during test-build.
python-venv:
	$(Q)sh python/run_pytest.sh $(BUILD) --version >/dev/null

.PHONY: python-test python-venv

# ---- the differential test against Apache TVM ----
# `make tvm-diff` runs every case of tests/tir/tvm_diff_cases.py (TensorIR programs and
# schedules modelled on TVM's own schedule tests and GPU tutorials) in TVM and in weft,
# and compares acceptance, the printed program after every step and the numbers
# (tests/tir/tvm_diff.py). tests/tir/tvm_diff.sh makes $(BUILD)/tvm-venv with the
# pinned apache-tvm on first use; where pip cannot install it, the step prints
# "tvm-diff: skipped (...)" and passes. `make test` runs it; its last line is
# "tvm-diff: N cases, N agree[, N known differences]".
tvm-diff: $(BUILD)/libweft.so
	$(Q)sh tests/tir/tvm_diff.sh $(BUILD)

.PHONY: tvm-diff

# ---- install (engineer "use") ----
# `make install` copies the header, both libraries (the shared one as
# libweft.so.MAJOR.MINOR.PATCH with its two links), a pkg-config file and the
# command under $(DESTDIR)$(PREFIX); `make uninstall` removes exactly those.
# A program then builds with `cc prog.c $(pkg-config --cflags --libs weft)`:
# outside PREFIX=/usr the pkg-config file's Libs carry -Wl,-rpath,LIBDIR, so
# the program finds libweft.so without LD_LIBRARY_PATH (PC_RPATH= leaves it
# out, for a prefix the loader searches: run ldconfig after installing there).
# `pkg-config --static --cflags --libs weft` links libweft.a: its static-only
# flags (Cflags.private, which pkgconf reads) put LIBDIR/weft-static, where
# libweft.a alone is linked, first on the linker's search path, so -lweft
# finds the archive there. `make install-python` pip-installs the Python
# package (pyproject.toml) into $(PYTHON). tests/install/run.sh checks all
# of it in a temp dir; `make test` runs it.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR)/pkgconfig
PC_RPATH   ?= $(if $(filter /usr,$(PREFIX)),,-Wl,-rpath,$${libdir})
INSTALLED  := $(BINDIR)/weft $(LIBDIR)/libweft.a $(LIBDIR)/weft-static/libweft.a $(LIBDIR)/libweft.so \
  $(LIBDIR)/$(SO_SONAME) $(LIBDIR)/$(SO_FILE) $(INCLUDEDIR)/weft.h $(PCDIR)/weft.pc

# Regenerated on every install: the prefix is part of its text.
$(BUILD)/weft.pc: FORCE
	@mkdir -p $(BUILD)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: weft' 'Description: GPU kernel-scheduling compiler (fusions, IterDomain schedules, CUDA C++ via NVRTC)' \
	  'Version: $(WF_VERSION)' 'Libs: $(strip -L$${libdir} $(PC_RPATH) -lweft)' 'Libs.private: -ldl -lm' \
	  'Cflags: -I$${includedir}' 'Cflags.private: -L$${libdir}/weft-static' > $@

install: all $(BUILD)/weft.pc
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/weft-static $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PCDIR)
	$(Q)install -m 755 $(BUILD)/weft $(DESTDIR)$(BINDIR)/weft
	$(Q)install -m 644 $(BUILD)/libweft.a $(DESTDIR)$(LIBDIR)/libweft.a
	$(Q)ln -sf ../libweft.a $(DESTDIR)$(LIBDIR)/weft-static/libweft.a
	$(Q)install -m 755 $(BUILD)/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	$(Q)ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_SONAME)
	$(Q)ln -sf $(SO_SONAME) $(DESTDIR)$(LIBDIR)/libweft.so
	$(Q)install -m 644 include/weft.h $(DESTDIR)$(INCLUDEDIR)/weft.h
	$(Q)install -m 644 $(BUILD)/weft.pc $(DESTDIR)$(PCDIR)/weft.pc
	@echo "installed weft $(WF_VERSION) under $(DESTDIR)$(PREFIX)"

uninstall:
	$(Q)rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	$(Q)rmdir $(DESTDIR)$(LIBDIR)/weft-static 2>/dev/null || true
	@echo "removed weft from $(DESTDIR)$(PREFIX)"

# The Python package, with its own copy of libweft.so inside (setup.py runs
# make for it): `make install-python` (PYTHON=python3, PIP_FLAGS for pip's
# options, e.g. PIP_FLAGS=--user or a venv's PYTHON=venv/bin/python).
PYTHON    ?= python3
PIP_FLAGS ?=
install-python:
	$(Q)$(PYTHON) -m pip install $(PIP_FLAGS) .

install-test: all
	$(Q)sh tests/install/run.sh $(BUILD)

cli-test: $(BUILD)/weft
	$(Q)sh tests/cli/run.sh $(BUILD)


FORCE:
.PHONY: install uninstall install-python install-test cli-test FORCE

# ---- TensorIR parser fuzzing (libFuzzer; clang) ----
# `make tir-fuzz` builds the library with clang under ASan+UBSan+libFuzzer in
# build-tirfuzz/ and runs tests/fuzz/tir_fuzz.c for TIR_FUZZ_RUNS inputs on the seed
# corpus tests/fuzz/tir_corpus/ (new inputs go to build-tirfuzz/corpus). `make test`
# runs it too. A number of inputs rather than libFuzzer's wall-clock budget, so
# that a busy machine does not shrink the run: 280000 is what 60 s of one idle
# core ran (about 4650 inputs per CPU second); TIR_FUZZ_SECONDS only caps a
# machine so loaded that it would take more than that many seconds. The seed is
# fixed, so a CI run is reproduced exactly by `make tir-fuzz` on the same commit
# (libFuzzer picks one from the clock otherwise); `make tir-fuzz TIR_FUZZ_SEED=0`
# explores afresh, and long campaigns run by hand find what CI would only find by luck.
TIR_FUZZ_RUNS    ?= 280000
TIR_FUZZ_SEED    ?= 1
TIR_FUZZ_SECONDS ?= 600
TIR_FUZZ_FLAGS := CC=clang BUILD=build-tirfuzz OPT="-O1 -g" LIB_DEFS="-DWF_ARENA_DEBUG" \
  EXTRA_CFLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

build-tirfuzz/tir_fuzz: tests/fuzz/tir_fuzz.c $(LIB_OBJ)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ tests/fuzz/tir_fuzz.c $(LIB_OBJ) $(LDLIBS)

tir-fuzz-build:
	$(Q)$(MAKE) --no-print-directory $(TIR_FUZZ_FLAGS) build-tirfuzz/tir_fuzz

# Skipped, and said so, where clang's libFuzzer runtime is missing.
HAVE_LIBFUZZER = echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' | \
  clang -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null
tir-fuzz:
	$(Q)if $(HAVE_LIBFUZZER); then $(MAKE) --no-print-directory tir-fuzz-run; else \
	  echo "tir-fuzz: SKIPPED: clang with libFuzzer is not installed (clang, libclang-rt-14-dev)"; fi

tir-fuzz-build-if-possible:
	$(Q)if $(HAVE_LIBFUZZER); then $(MAKE) --no-print-directory tir-fuzz-build; fi

tir-fuzz-run: tir-fuzz-build
	$(Q)mkdir -p build-tirfuzz/corpus
	$(Q)ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  build-tirfuzz/tir_fuzz -runs=$(TIR_FUZZ_RUNS) -seed=$(TIR_FUZZ_SEED) -max_total_time=$(TIR_FUZZ_SECONDS) -timeout=10 \
	  -rss_limit_mb=2048 \
	  -print_final_stats=1 -artifact_prefix=build-tirfuzz/ build-tirfuzz/corpus tests/fuzz/tir_corpus

.PHONY: tir-fuzz tir-fuzz-build tir-fuzz-build-if-possible tir-fuzz-run
