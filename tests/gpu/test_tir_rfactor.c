/*
 * test_tir_rfactor.c -- rfactor's TensorIR programs built by wf_tir_build and run on the
 * GPU: TVM's cross-thread reduction (B_rf in its own nest, lined up with the write-back
 * bound to blockIdx.x / threadIdx.x), B_rf computed at the write-back's block loop, the
 * outer rfactor with B_rf's own reduce loop on threadIdx.x, and seed 004's sum +
 * broadcast rfactored. The reference sums in the kernel's order (serial partials, the
 * block reduction's tree, src/codegen/reduce.c), so results compare bit for bit.
 */
#include "../unit/tir_sources.h"
#include "gpu.h"

#include <math.h>

#define TIR_GPU_RSUM                                                                               \
    "@T.prim_func\n"                                                                               \
    "def rsum(A: T.Buffer((128, 256), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"          \
    "    for i, k in T.grid(128, 256):\n"                                                          \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + A[vi, vk]\n"

/* The block reduction's order: w[r] += w[r + s] for s = P/2 ... 1. */
static float tree_sum(float *w, int n) {
    int p = 1;
    while (p < n)
        p *= 2;
    for (int s = p / 2; s >= 1; s /= 2)
        for (int r = 0; r < s && r + s < n; r++)
            w[r] = w[r] + w[r + s];
    return w[0];
}

/* Row sums of a [rows, cols] tensor split [cols / 32, 32]: partials over the outer
   part (rf_inner) or the inner part, then the tree over the partials (tree_parts) or,
   with the partials' own sum on the threads, a tree per partial and a serial sum. */
static void want_rows(const gt_tensor *a, int rows, int cols, bool rf_inner, bool tree_parts,
                      gt_tensor *want) {
    int nouter = cols / 32, nparts = rf_inner ? 32 : nouter;
    float part[256], lane[32];
    for (int i = 0; i < rows; i++) {
        for (int q = 0; q < nparts; q++) {
            part[q] = 0.0f;
            for (int t = 0; t < (rf_inner ? nouter : 32); t++) {
                int k = rf_inner ? t * 32 + q : q * 32 + t;
                lane[t % 32] = gt_get_f32(a, (int64_t)i * cols + k);
                if (tree_parts || rf_inner)
                    part[q] += lane[t % 32];
            }
            if (!tree_parts && !rf_inner)
                part[q] = 0.0f + tree_sum(lane, 32);
        }
        float acc = 0.0f;
        if (tree_parts)
            acc += tree_sum(part, nparts);
        else
            for (int q = 0; q < nparts; q++)
                acc += part[q];
        gt_set_f32(want, i, acc);
    }
}

static wf_kernel *build(gt_state *ts_, wf_tir *s) {
    wf_kernel *k = wf_tir_build(s, NULL);
    if (!k) {
        printf("  build: %s\n", wf_tir_error(s));
        ts_->failed = true;
    }
    return k;
}

/* split k [None, 32], rfactor at k_1 (inner) or k_0 (outer); the write-back's loops */
static wf_tir *rfactored(const char *src, const char *block, bool inner, wf_tir_loop **w,
                         wf_tir_block **rf) {
    wf_tir *s = wf_tir_parse(src);
    wf_tir_block *b = wf_tir_get_block(s, block);
    wf_tir_loop *l[2], *k[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[1], 2, f, k);
    *rf = wf_tir_rfactor(s, k[inner ? 1 : 0], inner ? 0 : 1);
    wf_tir_get_loops(s, b, w, 2);
    return s;
}

static void run_rows(gt_state *ts_, wf_tir *s, bool rf_inner, bool tree_parts) {
    wf_kernel *k = build(ts_, s);
    int64_t shape[2] = {128, 256}, oshape[1] = {128};
    gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 1, oshape);
    gt_fill_random(&in);
    want_rows(&in, 128, 256, rf_inner, tree_parts, &want);
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}

GPU_TEST(tir_rfactor_cross_thread_lined_up_nests) {
    NEED_GPU();
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rfactored(TIR_GPU_RSUM, "B", true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    run_rows(ts_, s, true, true);
}

GPU_TEST(tir_rfactor_compute_at_block_loop) {
    NEED_GPU();
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rfactored(TIR_GPU_RSUM, "B", true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_tir_compute_at(s, rf, w[0]);
    run_rows(ts_, s, true, true);
}

/* B_rf[vi, vk_0] sums its 32 elements on 32 threads (a block reduction per k_0), the
   write-back adds the 8 partials serially. */
GPU_TEST(tir_rfactor_outer_partials_on_threads) {
    NEED_GPU();
    wf_tir_loop *w[2], *p[3];
    wf_tir_block *rf;
    wf_tir *s = rfactored(TIR_GPU_RSUM, "B", false, w, &rf);
    wf_tir_get_loops(s, rf, p, 3);
    wf_tir_bind(s, p[0], "blockIdx.x");
    wf_tir_bind(s, p[2], "threadIdx.x");
    wf_tir_bind(s, w[0], "blockIdx.x");
    run_rows(ts_, s, false, false);
}

GPU_TEST(tir_rfactor_seed004_sum_broadcast) {
    NEED_GPU();
    wf_tir_loop *w[2];
    wf_tir_block *rf;
    wf_tir *s = rfactored(TIR_SUM_BROADCAST, "sum_broadcast", true, w, &rf);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_kernel *k = build(ts_, s);
    int64_t shape[1] = {256};
    gt_tensor in = gt_dense(WF_F32, 1, shape), want = gt_dense(WF_F32, 1, shape);
    gt_tensor sum = gt_dense(WF_F32, 1, shape);
    gt_fill_random(&in);
    want_rows(&in, 1, 256, true, true, &sum);
    for (int i = 0; i < 256; i++)
        gt_set_f32(&want, i, gt_get_f32(&sum, 0));
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    gt_tensor_free(&sum);
    wf_kernel_free(k);
    wf_tir_free(s);
}
