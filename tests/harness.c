/*
 * harness.c -- what every test shares: the registry that TEST(name) fills,
 * and the NVRTC check that every kernel a test builds goes through.
 *
 * The runner itself (worker processes, ordering, the summary line) is in
 * harness_run.c.
 *
 * NVRTC is the most expensive thing the suite does, and many tests build
 * the same kernel text (a shared fixture, the same schedule under another
 * name, the interpreter check after an explicit CHECK_NVRTC). The result
 * depends only on the text and the target, so a source that compiled once
 * in this run is not compiled again: a set of 64-bit hashes of (sm, text)
 * lives in memory shared by all the runner's worker processes (mapped
 * before the first fork). Only successes are remembered, so a failure
 * always shows NVRTC's own log; a collision of two different texts in 64
 * bits is the only way to skip a needed compile. WF_TEST_NVRTC_CACHE=0
 * turns the set off.
 */
/* MAP_ANONYMOUS (and wait4) are not POSIX: ask glibc for its defaults. */
#define _DEFAULT_SOURCE
#include "harness.h"
#include "harness_int.h"
#include "runtime/runtime.h" /* the kernel's target, for sm 0 */

#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

/* ---- the registry ---- */

static test_entry *tests;
static int ntests, cap_tests;

/* Called from constructors, before main: a failed allocation can only be
   remembered and reported by main (harness_tests). */
static bool registry_oom;

void harness_register(const char *name, test_fn fn) {
    if (ntests == cap_tests) {
        int cap = cap_tests ? 2 * cap_tests : 256;
        test_entry *grown = realloc(tests, (size_t)cap * sizeof *grown);
        if (!grown) {
            registry_oom = true;
            return;
        }
        tests = grown;
        cap_tests = cap;
    }
    tests[ntests++] = (test_entry){name, fn};
}

const test_entry *harness_tests(int *n) {
    *n = registry_oom ? -1 : ntests;
    return tests;
}

/* ---- statistics of the current test (the worker's slot) ---- */

static test_slot *current;

void harness_set_current(test_slot *slot) {
    current = slot;
}

double harness_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU seconds of this process (all its threads): what NVRTC costs, whatever
   else the machine runs. */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the shared set of sources NVRTC accepted ---- */

/* Open addressing over a power of two; a full set simply stops caching. */
#define NVRTC_CACHE_SLOTS (1u << 16)

static uint64_t *nvrtc_seen; /* shared mapping; 0 marks an empty slot */

void harness_nvrtc_cache_init(void) {
    const char *env = getenv("WF_TEST_NVRTC_CACHE");
    if (env && strcmp(env, "0") == 0)
        return;
    void *p = mmap(NULL, NVRTC_CACHE_SLOTS * sizeof *nvrtc_seen, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    nvrtc_seen = p == MAP_FAILED ? NULL : p; /* without it every source is compiled */
}

static uint64_t source_key(const char *source, int sm) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *p = (const unsigned char *)source; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    h = (h ^ (uint64_t)(unsigned)sm) * 0x100000001b3ull;
    return h ? h : 1; /* 0 is the empty slot */
}

/* Is key in the set; with insert, add it (atomically: workers race). */
static bool seen_probe(uint64_t key, bool insert) {
    if (!nvrtc_seen)
        return false;
    for (uint32_t i = 0, at = (uint32_t)key; i < NVRTC_CACHE_SLOTS; i++, at++) {
        uint64_t *slot = &nvrtc_seen[at & (NVRTC_CACHE_SLOTS - 1)];
        uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (v == key)
            return true;
        if (v != 0)
            continue;
        if (!insert)
            return false;
        uint64_t empty = 0;
        if (__atomic_compare_exchange_n(slot, &empty, key, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE) ||
            empty == key)
            return true;
    }
    return false;
}

/* NVRTC's first compile in a process loads a 100 MB library and sets it up
   (about a fifth of a CPU second). Done once in the runner before the
   first fork, every test process inherits it instead of paying again. */
void harness_nvrtc_warm(void) {
    int64_t shape[1] = {32};
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_set(wf_input(f, WF_F32, 1, shape)));
    wf_kernel *k = wf_compile(f, NULL);
    if (k)
        wf_kernel_check_nvrtc(k, 0, NULL, 0); /* the outcome is the tests' business */
    wf_kernel_free(k);
    wf_fusion_free(f);
}

bool harness_nvrtc(test_state *ts, wf_kernel *k, int sm, const char *file, int line) {
    char log[4096];
    if (!k) {
        ts->failed = true;
        return false;
    }
    const char *src = wf_kernel_source(k);
    uint64_t key = source_key(src ? src : "", sm > 0 ? sm : k->sm);
    if (current)
        current->nvrtc_calls++;
    if (seen_probe(key, false)) {
        if (current)
            current->nvrtc_hits++;
        return true;
    }
    double t0 = cpu_now();
    wf_status s = wf_kernel_check_nvrtc(k, sm, log, sizeof log);
    if (current)
        current->nvrtc_seconds += cpu_now() - t0;
    if (s == WF_ERR_UNSUPPORTED) {
        ts->skipped = true;
        snprintf(ts->skip_reason, sizeof ts->skip_reason, "NVRTC unavailable: %.200s", log);
        return false;
    }
    if (s != WF_OK) {
        printf("  %s:%d: NVRTC failed (%s):\n%s\n--- source:\n%s\n", file, line, wf_status_name(s),
               log, src);
        ts->failed = true;
        return false;
    }
    seen_probe(key, true);
    return true;
}

wf_kernel *harness_compile(test_state *ts, wf_fusion *f, const char *file, int line) {
    return harness_compile_sm(ts, f, 0, file, line);
}

wf_kernel *harness_compile_sm(test_state *ts, wf_fusion *f, int sm, const char *file, int line) {
    wf_compile_options opt = {.sm = sm};
    wf_kernel *k = wf_compile(f, &opt);
    if (!k) {
        printf("  %s:%d: wf_compile failed: %s: %s\n", file, line,
               wf_status_name(wf_fusion_status(f)), wf_fusion_error(f));
        ts->failed = true;
        return NULL;
    }
    /* Every kernel a test builds is also compiled by NVRTC for its target (a
       failure fails the test; without NVRTC the test counts as skipped). */
    harness_nvrtc(ts, k, sm, file, line);
    return k;
}
