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
#include "test_tir_rfactor_golden.h"
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

/* The reference of a row reduction split as [cols / ninner, ninner] and rfactored:
   the partials reduce the outer part (rf_inner) or the inner part, serially or as the
   block tree (part_tree); the write-back reduces the partials serially or as the block
   tree (wb_tree). A block reduction's result is folded into its init value. */
typedef struct {
    int rows, cols, ninner;
    bool rf_inner, part_tree, wb_tree, max;
} rsum_shape;

static void reference(const float *a, const rsum_shape *sh, float *want) {
    int nouter = (sh->cols + sh->ninner - 1) / sh->ninner;
    int nparts = sh->rf_inner ? sh->ninner : nouter, nelem = sh->rf_inner ? nouter : sh->ninner;
    float init = sh->max ? -INFINITY : 0.0f, part[256], lane[256];
    for (int i = 0; i < sh->rows; i++) {
        for (int q = 0; q < nparts; q++) {
            int n = 0;
            for (int t = 0; t < nelem; t++) {
                int k = sh->rf_inner ? t * sh->ninner + q : q * sh->ninner + t;
                if (k < sh->cols)
                    lane[n++] = a[i * sh->cols + k];
            }
            part[q] = init;
            if (sh->part_tree)
                part[q] = op_apply(sh->max, part[q], tree(sh->max, lane, n));
            for (int t = 0; !sh->part_tree && t < n; t++)
                part[q] = op_apply(sh->max, part[q], lane[t]);
        }
        float acc = init;
        if (sh->wb_tree)
            acc = op_apply(sh->max, acc, tree(sh->max, part, nparts));
        for (int q = 0; !sh->wb_tree && q < nparts; q++)
            acc = op_apply(sh->max, acc, part[q]);
        want[i] = acc;
    }
}

/* Runs k on the executor over random A and compares B with the reference bit for bit. */
static void run_exact(test_state *ts_, wf_kernel *k, rsum_shape sh) {
    static float a[ROWS * COLS], b[ROWS], want[ROWS];
    fill_random(a, sh.rows * sh.cols, 12345u + (uint32_t)sh.cols);
    for (int i = 0; i < sh.rows; i++)
        b[i] = NAN;
    reference(a, &sh, want);
    wf_buffer in[1] = {{a, WF_F32, 2, {sh.rows, sh.cols}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {sh.rows}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < sh.rows; i++)
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
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, true, false, false, false});
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
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, false, false, false, false});
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
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, true, false, true, false});
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
    CHECK_STR(wf_tir_script(s), golden_rf_compute_at_thread);
    wf_kernel *k = build(ts_, s), *k2 = build(ts_, s2);
    if (k && k2) {
        CHECK_STR(wf_kernel_source(k), wf_kernel_source(k2));
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, true, false, true, false});
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
    CHECK_STR(wf_tir_script(s), golden_rf_compute_at_block);
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
        CHECK_HAS(wf_kernel_source(k), "wf_block_reduce<true, false, false>(");
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, true, false, true, false});
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
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, false, false, true, false});
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
        run_exact(ts_, k, (rsum_shape){16, 96, 32, true, false, true, true});
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
        reference(a, &(rsum_shape){1, 256, 32, true, false, true, false}, want);
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

/* Split factors that overshoot (8 x 32 over 250): B_rf keeps the split's T.where, as
   TVM prints it, and the core's split predicates the same elements. */
TEST(tir_rfactor_build_where_of_an_overshooting_split) {
    char src[sizeof TIR_RSUM];
    snprintf(src, sizeof src, "%s", TIR_RSUM);
    for (char *p = src; (p = strstr(p, "256")) != NULL;)
        memcpy(p, "250", 3);
    for (char *p = src; (p = strstr(p, "128")) != NULL;)
        memcpy(p, "  8", 3);
    wf_tir *s = wf_tir_parse(src);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *k[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[1], 2, f, k);
    wf_tir_rfactor(s, k[1], 0);
    CHECK_STR(wf_tir_script(s), golden_rf_where);
    wf_kernel *kk = build(ts_, s);
    if (kk) {
        CHECK_HAS(wf_kernel_source(kk), " < 250) {");
        run_exact(ts_, kk, (rsum_shape){8, 250, 32, true, false, false, false});
    }
    wf_kernel_free(kk);
    wf_tir_free(s);
}

/* B_rf's own reduce loop (k_1, after rfactor at k_0) on threadIdx.x: each partial is a
   block reduction over 32 threads, the write-back adds the 8 partials serially. */
TEST(tir_rfactor_build_partials_on_threads) {
    wf_tir_loop *w[2], *p[3];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, false, w, &rf);
    wf_tir_get_loops(s, rf, p, 3);
    wf_tir_bind(s, p[0], "blockIdx.x");
    wf_tir_bind(s, p[2], "threadIdx.x");
    wf_tir_bind(s, w[0], "blockIdx.x");
    CHECK_STR(wf_tir_script(s), golden_rf_outer_threads);
    wf_kernel *k = build(ts_, s);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
        CHECK_HAS(src, "for (wf_index i0 = 0; i0 < 8; ++i0) {");
        CHECK_HAS(src, "wf_block_reduce<true, false, false>(");
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 32, false, true, false, false});
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* rfactor at an unsplit reduce loop: B_rf reduces nothing itself (every iter spatial),
   the write-back reduces all of k: one serial reduction. */
TEST(tir_rfactor_build_of_the_whole_reduce_loop) {
    wf_tir *s = wf_tir_parse(TIR_RSUM);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    wf_tir_rfactor(s, l[1], 0);
    CHECK_HAS(wf_tir_script(s), "vk, vi = T.axis.remap(\"SS\", [k, i])");
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_LACKS(wf_kernel_source(k), "wf_block_reduce");
        run_exact(ts_, k, (rsum_shape){ROWS, COLS, 256, true, false, false, false});
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* rfactor's printed program, parsed back and built, gives the kernel of the schedule. */
TEST(tir_rfactor_build_from_the_printed_program) {
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rsum_rfactor(ts_, TIR_RSUM, true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_tir *s2 = wf_tir_parse(golden_rsum_cross_thread_bind);
    CHECK_STR(wf_tir_error(s2), "");
    wf_kernel *k = build(ts_, s), *k2 = build(ts_, s2);
    if (k && k2)
        CHECK_STR(wf_kernel_source(k2), wf_kernel_source(k));
    wf_kernel_free(k);
    wf_kernel_free(k2);
    wf_tir_free(s);
    wf_tir_free(s2);
}

/* A two-stage reduction written by hand (no rfactor): X[i, j] = sum over k, then
   B[i] = sum over j, each in its own nest. It is the same pair: one reduction over
   (j, k), rfactored at k, X never in memory. */
#define TIR_TWO_STAGE                                                                              \
    "@T.prim_func\n"                                                                               \
    "def two(A: T.Buffer((16, 8, 32), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"           \
    "    X = T.alloc_buffer((16, 8))\n"                                                            \
    "    for i, j, k in T.grid(16, 8, 32):\n"                                                      \
    "        with T.block(\"X\"):\n"                                                               \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                                  \
    "            with T.init():\n"                                                                 \
    "                X[vi, vj] = T.float32(0)\n"                                                   \
    "            X[vi, vj] = X[vi, vj] + A[vi, vj, vk] * A[vi, vj, vk]\n"                          \
    "    for i, j in T.grid(16, 8):\n"                                                             \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SR\", [i, j])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + X[vi, vj]\n"

TEST(tir_rfactor_build_hand_written_two_stage_reduction) {
    wf_tir *s = wf_tir_parse(TIR_TWO_STAGE);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    wf_tir_bind(s, l[0], "threadIdx.x");
    wf_kernel *k = build(ts_, s);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 16);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i1 = 0; i1 < 32; ++i1) {");
        static float a[16 * 8 * 32], b[16], want[16];
        fill_random(a, 16 * 8 * 32, 99u);
        for (int i = 0; i < 16; i++) {
            want[i] = 0.0f;
            for (int j = 0; j < 8; j++) {
                float x = 0.0f;
                for (int q = 0; q < 32; q++)
                    x += a[(i * 8 + j) * 32 + q] * a[(i * 8 + j) * 32 + q];
                want[i] += x;
            }
        }
        wf_buffer in[1] = {{a, WF_F32, 3, {16, 8, 32}, {0}, -1}};
        wf_buffer out[1] = {{b, WF_F32, 1, {16}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
        CHECK(memcmp(b, want, sizeof b) == 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* A predicate that is no split's bound is refused, not ignored. */
TEST(tir_rfactor_build_refuses_other_predicates) {
    char src[2048];
    snprintf(src, sizeof src, "%s", golden_rsum_rfactor_rfactor);
    char *at = strstr(src, "            T.reads(A[vi, vk_0 * 32 + vk_1])\n");
    CHECK(at != NULL);
    if (!at)
        return;
    const char *where = "            T.where(k_1 < 16)\n";
    memmove(at + strlen(where), at, strlen(at) + 1);
    memcpy(at, where, strlen(where));
    wf_tir *s = wf_tir_parse(src);
    CHECK_STR(wf_tir_error(s), "");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: the predicate T.where(k_1 < 16) of block \"B_rf\" is not "
              "the bound of a split of its loops, the only predicate the core reproduces");
    wf_tir_free(s);
}
