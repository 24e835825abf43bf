/*
 * test_tir.c -- TensorIR programs built by wf_tir_build and run on the GPU against CPU
 * references: an elementwise block split over blocks and threads (x, y) with an
 * unrolled inner loop and a shared-memory stage computed at the thread loop
 * (cache_read + compute_at), a fused copy split into blocks / unroll / threads / a
 * vector of 4, and a compute_inline chain. Each runs on host and device buffers.
 */
#include "../unit/tir_sources.h"
#include "gpu.h"

#include <math.h>

#define TIR_GPU_EW                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def ew(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\"), "              \
    "C: T.Buffer((64, 32), \"float32\")):\n"                                                       \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = T.max(A[vi, vj] * B[vi, vj], A[vi, vj]) + T.exp(B[vi, vj])\n"

static wf_kernel *build(gt_state *ts_, wf_tir *s) {
    wf_kernel *k = wf_tir_build(s, NULL);
    if (!k) {
        printf("  build: %s\n", wf_tir_error(s));
        ts_->failed = true;
    }
    return k;
}

GPU_TEST(tir_elementwise_shared_stage_compute_at) {
    NEED_GPU();
    wf_tir *s = wf_tir_parse(TIR_GPU_EW);
    wf_tir_block *b = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *i[2], *j[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f16[2] = {-1, 16}, f4[2] = {-1, 4};
    wf_tir_split(s, l[0], 2, f16, i);
    wf_tir_split(s, l[1], 2, f4, j);
    wf_tir_bind(s, i[0], "blockIdx.x");
    wf_tir_bind(s, i[1], "threadIdx.y");
    wf_tir_bind(s, j[0], "threadIdx.x");
    wf_tir_unroll(s, j[1]);
    wf_tir_compute_at(s, wf_tir_cache_read(s, b, 0, "shared"), i[1]);
    wf_kernel *k = build(ts_, s);
    int64_t shape[2] = {64, 32};
    gt_tensor in[2] = {gt_dense(WF_F32, 2, shape), gt_dense(WF_F32, 2, shape)};
    gt_fill_random(&in[0]);
    gt_fill_random(&in[1]);
    gt_tensor want = gt_dense(WF_F32, 2, shape);
    for (int64_t x = 0; x < 64 * 32; x++) {
        float a = gt_get_f32(&in[0], x), bb = gt_get_f32(&in[1], x);
        gt_set_f32(&want, x, fmaxf(a * bb, a) + expf(bb));
    }
    if (k) {
        gt_case c = {k, 2, 1, in, &want, GT_REL};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in[0]);
    gt_tensor_free(&in[1]);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}

GPU_TEST(tir_fused_vectorized_copy) {
    NEED_GPU();
    wf_tir *s = wf_tir_parse(TIR_COPY);
    wf_tir_loop *ij[2], *l[4];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), ij, 2);
    int64_t fs[4] = {4, 2, -1, 4};
    wf_tir_split(s, wf_tir_fuse(s, 2, ij), 4, fs, l);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_unroll(s, l[1]);
    wf_tir_bind(s, l[2], "threadIdx.x");
    wf_tir_vectorize(s, l[3]);
    wf_kernel *k = build(ts_, s);
    int64_t shape[2] = {64, 32};
    gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
    gt_fill_random(&in);
    for (int64_t x = 0; x < 64 * 32; x++)
        gt_set_f32(&want, x, gt_get_f32(&in, x));
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}

GPU_TEST(tir_compute_inline_chain) {
    NEED_GPU();
    wf_tir *s = wf_tir_parse(TIR_CHAIN);
    wf_tir_compute_inline(s, wf_tir_get_block(s, "X"));
    wf_tir_compute_inline(s, wf_tir_get_block(s, "Y"));
    wf_tir_loop *l[1], *io[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 1);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    wf_kernel *k = build(ts_, s);
    int64_t shape[1] = {128};
    gt_tensor in[2] = {gt_dense(WF_F32, 1, shape), gt_dense(WF_F32, 1, shape)};
    gt_fill_random(&in[0]);
    gt_fill_random(&in[1]);
    /* a >= 0 keeps exp(a * b) + a away from cancellation, which turned the
       device's 2-ulp expf into a 1.8e-6 relative error (H100). */
    for (int64_t x = 0; x < 128; x++)
        gt_set_f32(&in[0], x, fabsf(gt_get_f32(&in[0], x)));
    gt_tensor want = gt_dense(WF_F32, 1, shape);
    for (int64_t x = 0; x < 128; x++) {
        float a = gt_get_f32(&in[0], x), b = gt_get_f32(&in[1], x);
        gt_set_f32(&want, x, fmaxf(expf(a * b) + a, a * b));
    }
    if (k) {
        gt_case c = {k, 2, 1, in, &want, GT_REL};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in[0]);
    gt_tensor_free(&in[1]);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Seed 004 on the GPU: In [5] (a serial sum per thread, 2 blocks x 128 threads) and
   In [9] (cache_read to shared + compute_at + the cooperative fetch), B = sum(A). */
static void seed004_case(gt_state *ts_, bool coop) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_block *b = wf_tir_get_block(s, "sum_broadcast");
    wf_tir_loop *l[2], *io[2], *ax[3], *a2[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {2, 128}, fc[2] = {-1, 128};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    if (coop) {
        wf_tir_block *sh = wf_tir_cache_read(s, b, 0, "shared");
        wf_tir_compute_at(s, sh, io[1]);
        wf_tir_get_loops(s, sh, ax, 3);
        wf_tir_split(s, ax[2], 2, fc, a2);
        wf_tir_bind(s, a2[1], "threadIdx.x");
    }
    wf_kernel *k = build(ts_, s);
    int64_t shape[1] = {256};
    gt_tensor in = gt_dense(WF_F32, 1, shape), want = gt_dense(WF_F32, 1, shape);
    gt_fill_random(&in);
    float sum = 0;
    for (int64_t x = 0; x < 256; x++)
        sum += gt_get_f32(&in, x);
    for (int64_t x = 0; x < 256; x++)
        gt_set_f32(&want, x, sum);
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_REL};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}

GPU_TEST(tir_seed004_in5_serial_sum) {
    NEED_GPU();
    seed004_case(ts_, false);
}

GPU_TEST(tir_seed004_in9_cooperative_fetch) {
    NEED_GPU();
    seed004_case(ts_, true);
}
