/*
 * test_scalar.c -- scalar constants, comparisons, wf_where and NaN-propagating
 * max / min on the GPU, against references written here, bit for bit (the ops
 * are exact: no transcendental math). Inputs are the harness's random finite
 * values plus NaN / signed zero / infinity edge values written over the first
 * elements. Also a TIR block with constants and a vectorized loop (its value
 * computed in registers, stored as one vector).
 */
#include "gpu.h"

#include <math.h>

#define GN 256

static void put_edges(gt_tensor *x) {
    static const float edge[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1.0f, -1.0f, 1e-40f};
    for (int i = 0; i < 8; i++)
        gt_set_f32(x, i, edge[i]);
}

static wf_kernel *compile_1d(gt_state *ts_, wf_fusion *f, wf_tv *out) {
    wf_output(f, out);
    wf_tv_split(out, 0, 64);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    return GT_COMPILE(f);
}

/* y = max(where(x > 0, x * 2.0f, -1), z): NaN from x or z propagates. */
GPU_TEST(scalar_where_compare_constant_max_nan) {
    NEED_GPU();
    int64_t shape[1] = {GN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape), *z = wf_input(f, WF_F32, 1, shape);
    wf_tv *w = wf_where(wf_binary(WF_GT, x, wf_full(f, WF_F32, 0)),
                        wf_binary(WF_MUL, x, wf_full(f, WF_F32, 2)), wf_full_int(f, WF_I64, -1));
    wf_tv *y = wf_binary(WF_MAX, w, z);
    wf_kernel *k = compile_1d(ts_, f, y);
    gt_tensor in[2] = {gt_dense(WF_F32, 1, shape), gt_dense(WF_F32, 1, shape)};
    gt_fill_random(&in[0]);
    gt_fill_random(&in[1]);
    put_edges(&in[0]);
    gt_set_f32(&in[1], 12, NAN);
    gt_tensor want = gt_dense(WF_F32, 1, shape);
    for (int64_t i = 0; i < GN; i++) {
        float a = gt_get_f32(&in[0], i), b = gt_get_f32(&in[1], i);
        float v = a > 0.0f ? a * 2.0f : -1.0f;
        gt_set_f32(&want, i, isnan(v) || isnan(b) ? NAN : v > b ? v : b);
    }
    if (k) {
        gt_case c = {k, 2, 1, in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in[0]);
    gt_tensor_free(&in[1]);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* f16 data compared with a constant in f32, selected into f16: exact. */
GPU_TEST(scalar_half_compare_select) {
    NEED_GPU();
    int64_t shape[1] = {GN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F16, 1, shape);
    wf_tv *y = wf_where(wf_binary(WF_LE, x, wf_full(f, WF_F32, 0.5)),
                        wf_binary(WF_SUB, wf_full(f, WF_F32, 0.1), x), x);
    wf_kernel *k = compile_1d(ts_, f, y);
    gt_tensor in = gt_dense(WF_F16, 1, shape);
    gt_fill_random(&in);
    put_edges(&in);
    gt_tensor want = gt_dense(WF_F16, 1, shape);
    for (int64_t i = 0; i < GN; i++) {
        float a = gt_get_f32(&in, i);
        gt_set_f32(&want, i, a <= 0.5f ? 0.1f - a : a); /* rounded to half once by the set */
    }
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A TIR block with constants and a vectorized loop: computed in registers, stored
   with one 16-byte vector per thread. */
GPU_TEST(scalar_tir_vectorized_compute_block) {
    NEED_GPU();
    wf_tir *s = wf_tir_parse(
        "@T.prim_func\n"
        "def f(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\")):\n"
        "    for i, j in T.grid(64, 32):\n"
        "        with T.block(\"B\"):\n"
        "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
        "            B[vi, vj] = T.if_then_else(A[vi, vj] > T.float32(0), A[vi, vj] * "
        "T.float32(2), T.float32(-1))\n");
    wf_tir_loop *l[2], *jj[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    int64_t f4[2] = {-1, 4};
    wf_tir_split(s, l[1], 2, f4, jj);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_bind(s, jj[0], "threadIdx.x");
    wf_tir_vectorize(s, jj[1]);
    wf_kernel *k = wf_tir_build(s, NULL);
    if (!k) {
        printf("  build: %s\n", wf_tir_error(s));
        ts_->failed = true;
    }
    int64_t shape[2] = {64, 32};
    gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
    gt_fill_random(&in);
    put_edges(&in);
    for (int64_t i = 0; i < 64 * 32; i++) {
        float a = gt_get_f32(&in, i);
        gt_set_f32(&want, i, a > 0.0f ? a * 2.0f : -1.0f);
    }
    if (k) {
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_tir_free(s);
}
