/*
 * test_tir_rfactor_build_fault.c -- building rfactor's programs under allocation
 * failure: TVM's cross-thread reduction (split, rfactor, bind, compute_at) built and
 * run on the executor with the Nth arena allocation failing for N = 0, 1, 2, ... until
 * it succeeds. Each run must end cleanly: a NULL result with an error, never a crash,
 * never a claimed success.
 */
#include <math.h>

#include "base/arena.h"
#include "harness.h"

#define TIR_RSUM_SMALL                                                                             \
    "@T.prim_func\n"                                                                               \
    "def rsum(A: T.Buffer((4, 64), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"               \
    "    for i, k in T.grid(4, 64):\n"                                                             \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + A[vi, vk]\n"

/* Sums of small integers are exact in any order. */
static bool cross_thread(void) {
    wf_tir *s = wf_tir_parse(TIR_RSUM_SMALL);
    if (!s)
        return false;
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2] = {0}, *k[2] = {0}, *w[2] = {0};
    int64_t f[2] = {-1, 16};
    if (wf_tir_get_loops(s, b, l, 2) == 2)
        wf_tir_split(s, l[1], 2, f, k);
    wf_tir_block *rf = wf_tir_rfactor(s, k[1], 0);
    wf_tir_get_loops(s, b, w, 2);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_tir_compute_at(s, rf, w[1]);
    wf_kernel *kk = wf_tir_build(s, NULL);
    bool ok = kk != NULL;
    if (kk) {
        float a[4 * 64], out[4];
        for (int x = 0; x < 4 * 64; x++)
            a[x] = (float)(x % 7);
        wf_buffer in[1] = {{a, WF_F32, 2, {4, 64}, {0}, -1}};
        wf_buffer ob[1] = {{out, WF_F32, 1, {4}, {0}, -1}};
        ok = wf_run(kk, WF_BACKEND_INTERP, in, 1, ob, 1) == WF_OK;
        for (int i = 0; ok && i < 4; i++) {
            float want = 0;
            for (int j = 0; j < 64; j++)
                want += a[i * 64 + j];
            ok = out[i] == want;
        }
    } else if (wf_tir_status(s) == WF_OK)
        ok = false; /* a NULL kernel must come with an error */
    wf_kernel_free(kk);
    wf_tir_free(s);
    return ok;
}

TEST(tir_rfactor_build_fault_every_allocation_failure_is_a_clean_error) {
    int n = 0;
    for (; n < 100000; n++) {
        long failures = arena_test_failures;
        arena_test_countdown = n;
        bool ok = cross_thread();
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
    printf("  rfactor build fault sweep: %d allocation failures injected, each ended cleanly\n", n);
    CHECK(n > 100);
}
