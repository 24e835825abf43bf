/*
 * test_tir_fault.c -- the TensorIR front door under allocation failure: the seed's
 * notebook (parse, split, bind, cache_read, compute_at, the cooperative fetch, show,
 * trace) and a spatial build run on the executor, with the Nth arena allocation failing
 * for N = 0, 1, 2, ... until everything succeeds. Each run must end cleanly: a sticky
 * WF_ERR_MEMORY (or a NULL result), never a crash, never a claimed success.
 */
#include <math.h>

#include "base/arena.h"
#include "harness.h"
#include "tir_sources.h"

static bool notebook(void) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    if (!s)
        return false;
    wf_tir_block *b = wf_tir_get_block(s, "sum_broadcast");
    wf_tir_loop *l[3] = {0}, *io[2] = {0}, *ax[2] = {0};
    int64_t f[2] = {2, 128}, fc[2] = {-1, 128};
    if (wf_tir_get_loops(s, b, l, 2) == 2)
        wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    wf_tir_block *a = wf_tir_cache_read(s, b, 0, "shared");
    wf_tir_compute_at(s, a, io[1]);
    if (wf_tir_get_loops(s, a, l, 3) == 3)
        wf_tir_split(s, l[2], 2, fc, ax);
    wf_tir_bind(s, ax[1], "threadIdx.x");
    const char *text = wf_tir_script(s), *trace = wf_tir_trace(s);
    bool ok = wf_tir_status(s) == WF_OK && text && trace;
    wf_tir_free(s);
    return ok;
}

static bool spatial(void) {
    wf_tir *s = wf_tir_parse(TIR_CHAIN);
    if (!s)
        return false;
    wf_tir_compute_inline(s, wf_tir_get_block(s, "X"));
    wf_tir_compute_inline(s, wf_tir_get_block(s, "Y"));
    wf_tir_loop *l[1] = {0}, *io[2] = {0};
    int64_t f[2] = {-1, 32};
    if (wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 1) == 1)
        wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    bool ok = k != NULL;
    if (k) {
        float a[128], b[128], c[128];
        for (int x = 0; x < 128; x++)
            a[x] = (float)x * 0.01f, b[x] = 1.0f, c[x] = NAN;
        wf_buffer in[2] = {{a, WF_F32, 1, {128}, {0}, -1}, {b, WF_F32, 1, {128}, {0}, -1}};
        wf_buffer out[1] = {{c, WF_F32, 1, {128}, {0}, -1}};
        ok = wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1) == WF_OK;
        for (int x = 0; ok && x < 128; x++)
            ok = fabsf(c[x] - fmaxf(expf(a[x] * b[x]) + a[x], a[x] * b[x])) <= 1e-5f;
    } else if (wf_tir_status(s) == WF_OK)
        ok = false; /* a NULL kernel must come with an error */
    wf_kernel_free(k);
    wf_tir_free(s);
    return ok;
}

TEST(tir_fault_every_allocation_failure_is_a_clean_error) {
    int n = 0;
    for (; n < 100000; n++) {
        long failures = arena_test_failures;
        arena_test_countdown = n;
        bool ok = notebook() && spatial();
        bool exhausted = arena_test_failures > failures;
        arena_test_countdown = -1;
        if (!exhausted) {
            CHECK(ok);
            break;
        }
        if (ok)
            printf("  allocation %d failed silently\n", n);
        CHECK(!ok);
    }
    printf("  tir fault sweep: %d allocation failures injected, each ended cleanly\n", n);
    CHECK(n > 100);
}
