/*
 * test_tir_rfactor_build.c -- rfactor's programs (the B_rf block and its write-back)
 * built through the core's wf_tv_rfactor: rfactor at the inner and the outer part of a
 * split reduction loop, the write-back's reduce loop serial or bound to threadIdx.x
 * (TVM's cross-thread reduction, the core's block reduction), B_rf in its own loop nest
 * or computed at the write-back's loop, sums and max. Each kernel runs on the CPU
 * executor and must equal, bit for bit, a reference computed here in the order the
 * program sums (B_rf's partials serially, then the write-back serially or as the block
 * reduction's documented tree), and compiles with NVRTC for sm_90a.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "test_tir_golden.h"
#include "tir_sources.h"

/* tests/tir/gen_golden.py's RSUM, the program of the golden rfactor texts */
#define TIR_RSUM                                                                                   \
    "@T.prim_func\n"                                                                               \
    "def rsum(A: T.Buffer((128, 256), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"          \
    "    for i, k in T.grid(128, 256):\n"                                                          \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + A[vi, vk]\n"

#define TIR_RMAX                                                                                   \
    "@T.prim_func\n"                                                                               \
    "def rmax(A: T.Buffer((16, 96), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"             \
    "    for i, k in T.grid(16, 96):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(\"-inf\")\n"                                                \
    "            B[vi] = T.max(B[vi], A[vi, vk])\n"

enum { ROWS = 128, COLS = 256 };

/* Random floats in [-1, 1) with full mantissas: a sum in another order differs. */
static void fill_random(float *x, int n, uint32_t seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

static float op_apply(bool max, float a, float b) {
    return max ? (a != a || a > b ? a : b) : a + b;
}

/* The block reduction's order (src/codegen/reduce.c): w[r] = op(w[r], w[r + s]) for
   s = P/2 ... 1, P the least power of two >= n. */
static float tree(bool max, float *w, int n) {
    int p = 1;
    while (p < n)
        p *= 2;
    for (int s = p / 2; s >= 1; s /= 2)
        for (int r = 0; r < s && r + s < n; r++)
            w[r] = op_apply(max, w[r], w[r + s]);
    return w[0];
}

/* The reference of a row reduction split as [nouter, ninner] and rfactored: the
   partials reduce the outer part (rf_inner) or the inner part serially, the
   write-back reduces the partials serially or as the block tree (threads). */
static void reference(const float *a, int rows, int cols, int ninner, bool rf_inner, bool threads,
                      bool max, float *want) {
    int nouter = cols / ninner, nparts = rf_inner ? ninner : nouter;
    float init = max ? -INFINITY : 0.0f, part[256];
    for (int i = 0; i < rows; i++) {
        for (int q = 0; q < nparts; q++) {
            part[q] = init;
            for (int t = 0; t < (rf_inner ? nouter : ninner); t++) {
                int k = rf_inner ? t * ninner + q : q * ninner + t;
                part[q] = op_apply(max, part[q], a[i * cols + k]);
            }
        }
        float acc = init;
        if (threads)
            acc = op_apply(max, acc, tree(max, part, nparts));
        else
            for (int q = 0; q < nparts; q++)
                acc = op_apply(max, acc, part[q]);
        want[i] = acc;
    }
}

/* Runs k on the executor over random A and compares B with want bit for bit. */
static void run_exact(test_state *ts_, wf_kernel *k, int rows, int cols, int ninner, bool rf_inner,
                      bool threads, bool max) {
    static float a[ROWS * COLS], b[ROWS], want[ROWS];
    fill_random(a, rows * cols, 12345u + (uint32_t)cols);
    for (int i = 0; i < rows; i++)
        b[i] = NAN;
    reference(a, rows, cols, ninner, rf_inner, threads, max, want);
    wf_buffer in[1] = {{a, WF_F32, 2, {rows, cols}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {rows}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < rows; i++)
        bad += memcmp(&b[i], &want[i], sizeof b[i]) != 0;
    CHECK_EQ_I64(bad, 0);
}

/* RSUM with k split [None, 32] and rfactored at k_1 (inner, factor_axis 0) or k_0
   (outer, factor_axis 1); the write-back's loops in w[2], the new block in *rf. */
static wf_tir *rsum_rfactor(test_state *ts_, const char *src, bool inner, wf_tir_loop **w,
                            wf_tir_block **rf) {
    wf_tir *s = wf_tir_parse(src);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *k[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[1], 2, f, k);
    *rf = wf_tir_rfactor(s, k[inner ? 1 : 0], inner ? 0 : 1);
    CHECK_EQ_I64(wf_tir_get_loops(s, b, w, 2), 2);
    CHECK_STR(wf_tir_error(s), "");
    return s;
}

static wf_kernel *build(test_state *ts_, wf_tir *s) {
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k)
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    return k;
}

/* TVM's golden program: B_rf in its own serial loop nest, then the serial write-back.
   Its loops line up with the write-back's, so each partial is computed just before
   the write-back adds it: one thread, no block reduction, the sums in program order. */
TEST(tir_rfactor_build_inner_serial) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    CHECK_STR(wf_tir_script(s), golden_rsum_rfactor_rfactor);
    wf_kernel *k = build(ts_, s);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0] * li->block[0], 1);
        CHECK_LACKS(wf_kernel_source(k), "wf_block_reduce");
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i2 = 0; i2 < 8; ++i2) {");
        run_exact(ts_, k, ROWS, COLS, 32, true, false, false);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* rfactor at the outer part (k_0, factor_axis 1): B_rf[vi, vk_0] sums 32 consecutive
   elements, the write-back sums the 8 partials. */
TEST(tir_rfactor_build_outer_serial) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, false, w, &rf);
    CHECK_STR(wf_tir_script(s), golden_rsum_rfactor1_rfactor_ko);
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_LACKS(wf_kernel_source(k), "wf_block_reduce");
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i2 = 0; i2 < 32; ++i2) {");
        run_exact(ts_, k, ROWS, COLS, 32, false, false, false);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* TVM's cross-thread reduction (golden rsum_cross_thread): the write-back's i on
   blockIdx.x, its k_1 on threadIdx.x. Each of the 32 threads sums its 8 elements
   serially into a register, then one block reduction. */
TEST(tir_rfactor_build_cross_thread) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    CHECK_STR(wf_tir_script(s), golden_rsum_cross_thread_bind);
    wf_kernel *k = build(ts_, s);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], 128);
        CHECK_EQ_I64(li->block[0], 32);
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "for (wf_index i0 = 0; i0 < 8; ++i0) {");
        CHECK_HAS(src, "T0[blockIdx.x * 256 + i0 * 32 + threadIdx.x]");
        CHECK_HAS(src, "wf_block_reduce<true, false, false>(");
        run_exact(ts_, k, ROWS, COLS, 32, true, true, false);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* B_rf computed at the write-back's thread loop (compute_at, as TVM's tutorial does)
   gives the same kernel as the lined-up nests above. */
TEST(tir_rfactor_build_cross_thread_compute_at_same_kernel) {
    wf_tir_loop *w[2], *w2[2];
    wf_tir_block *rf, *rf2;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    wf_tir *s2 = rsum_rfactor(ts_, TIR_RSUM, true, w2, &rf2);
    for (int i = 0; i < 2; i++) {
        wf_tir_bind(i ? s2 : s, (i ? w2 : w)[0], "blockIdx.x");
        wf_tir_bind(i ? s2 : s, (i ? w2 : w)[1], "threadIdx.x");
    }
    wf_tir_compute_at(s, rf, w[1]);
    CHECK_HAS(wf_tir_script(s), "        for k_1 in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                                "            for ax0 in range(8):\n"
                                "                with T.block(\"B_rf\"):\n"
                                "                    vk_1, vi, vk_0 = T.axis.remap(\"SSR\", "
                                "[k_1, i, ax0])\n");
    wf_kernel *k = build(ts_, s), *k2 = build(ts_, s2);
    if (k && k2) {
        CHECK_STR(wf_kernel_source(k), wf_kernel_source(k2));
        run_exact(ts_, k, ROWS, COLS, 32, true, true, false);
    }
    wf_kernel_free(k);
    wf_kernel_free(k2);
    wf_tir_free(s);
    wf_tir_free(s2);
}

/* B_rf computed at the write-back's blockIdx loop: its own loops (ax0 over k_1, ax1
   over k_0) line up with the write-back's thread loop, so it runs per thread. */
TEST(tir_rfactor_build_compute_at_outer_loop) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_tir_compute_at(s, rf, w[0]);
    CHECK_HAS(wf_tir_script(s), "        for ax0, ax1 in T.grid(32, 8):\n");
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
        CHECK_HAS(wf_kernel_source(k), "wf_block_reduce<true, false, false>(");
        run_exact(ts_, k, ROWS, COLS, 32, true, true, false);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Outer rfactor with the write-back's k_0 on threadIdx.x: 8 threads, each summing 32
   consecutive elements, then the block tree over 8. */
TEST(tir_rfactor_build_outer_cross_thread) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, false, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 8);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 32; ++i0) {");
        CHECK_HAS(wf_kernel_source(k), "wf_block_reduce<true, false, false>(");
        run_exact(ts_, k, ROWS, COLS, 32, false, true, false);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* T.max: the partial maxima of 3 x 32 and the block tree of max over 32 threads. */
TEST(tir_rfactor_build_max_cross_thread) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RMAX, true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "wf_op_max");
        run_exact(ts_, k, 16, 96, 32, true, true, true);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Seed 004's sum + broadcast rfactored: B_rf[vk_1, vi] += A[vk_0 * 32 + vk_1], the
   value repeated over vi (expanded), every B[i] the same cross-thread sum. */
TEST(tir_rfactor_build_seed004_sum_broadcast) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_block *b = wf_tir_get_block(s, "sum_broadcast");
    wf_tir_loop *l[2], *k[2], *w[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[1], 2, f, k);
    CHECK(wf_tir_rfactor(s, k[1], 0) != NULL);
    wf_tir_get_loops(s, b, w, 2);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    CHECK_HAS(wf_tir_script(s), "B_rf[vk_1, vi] = B_rf[vk_1, vi] + A[vk_0 * 32 + vk_1]\n");
    wf_kernel *kk = build(ts_, s);
    if (kk) {
        static float a[256], out[256], want[1];
        fill_random(a, 256, 4u);
        reference(a, 1, 256, 32, true, true, false, want);
        wf_buffer in[1] = {{a, WF_F32, 1, {256}, {0}, -1}};
        wf_buffer ob[1] = {{out, WF_F32, 1, {256}, {0}, -1}};
        CHECK_EQ_I64(wf_run(kk, WF_BACKEND_INTERP, in, 1, ob, 1), WF_OK);
        int bad = 0;
        for (int i = 0; i < 256; i++)
            bad += memcmp(&out[i], &want[0], sizeof out[i]) != 0;
        CHECK_EQ_I64(bad, 0);
        CHECK_EQ_I64(wf_kernel_launch(kk)->grid[0], 256);
    }
    wf_kernel_free(kk);
    wf_tir_free(s);
}

/* The write-back's i split, B_rf's not: the nests do not line up, and B_rf would be a
   global intermediate between two reductions. */
TEST(tir_rfactor_build_refuses_nests_not_lined_up) {
    wf_tir_loop *w[2], *ii[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    int64_t f[2] = {-1, 4};
    wf_tir_split(s, w[0], 2, f, ii);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: block \"B_rf\" computes B_rf in a loop nest whose loops "
              "do not line up with those of block \"B\", which reads it (vi of \"B\" and vi of "
              "\"B_rf\" are bound differently): B_rf would be an intermediate tensor in global "
              "memory between two reductions, which the core does not support yet; compute_at "
              "\"B_rf\" into a loop of \"B\", or split and bind both loop nests alike");
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    wf_tir_free(s);
}

/* B_rf's i bound to threadIdx.x, the write-back's to blockIdx.x: refused, naming both. */
TEST(tir_rfactor_build_refuses_loops_bound_differently) {
    wf_tir_loop *w[2], *p[3];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    wf_tir_get_loops(s, rf, p, 3);
    wf_tir_bind(s, p[0], "threadIdx.x");
    wf_tir_bind(s, w[0], "blockIdx.x");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: block \"B_rf\" computes B_rf in a loop nest whose loops "
              "do not line up with those of block \"B\", which reads it (its loop i is "
              "threadIdx.x, the loop i of \"B\" blockIdx.x): B_rf would be an intermediate "
              "tensor in global memory between two reductions, which the core does not support "
              "yet; compute_at \"B_rf\" into a loop of \"B\", or split and bind both loop nests "
              "alike");
    wf_tir_free(s);
}
