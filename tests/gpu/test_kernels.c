/*
 * test_kernels.c -- generated kernels run on the GPU against CPU references:
 * copies (2-D, non-divisible, vectorized, vectorized and unrolled),
 * pointwise and broadcast adds, exp, a tiled transpose through shared
 * memory, symbolic extents, a strided half-precision input, and a kernel
 * with more than the default 48 KiB of shared memory. Each case runs on
 * host buffers and on device buffers (gt_check).
 */
#include "../fixtures.h"
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

/* Expected output = the input, element for element (dense). */
static gt_tensor copy_of(const gt_tensor *x) {
    gt_tensor y = gt_dense(WF_F32, x->ndim, x->shape);
    for (int64_t i = 0; i < gt_numel(x); i++)
        gt_set_f32(&y, i, gt_get_f32(x, i));
    return y;
}

/* Run a one-input f32 kernel on random data of shape against f(x). */
static void check_unary(gt_state *ts_, wf_kernel *k, int ndim, const int64_t *shape,
                        float (*f)(float), gt_compare how) {
    gt_tensor in = gt_dense(WF_F32, ndim, shape);
    gt_fill_random(&in);
    gt_tensor want = copy_of(&in);
    for (int64_t i = 0; i < gt_numel(&in); i++)
        gt_set_f32(&want, i, f(gt_get_f32(&in, i)));
    gt_case c = {k, 1, 1, &in, &want, how};
    CHECK_RUN(&c);
    gt_tensor_free(&in);
    gt_tensor_free(&want);
}

static float identity(float x) {
    return x;
}

static float exp_ref(float x) {
    return (float)exp((double)x);
}

static float relu_ref(float x) {
    return x > 0 ? x : 0;
}

GPU_TEST(copy_2d_merged_and_split_by_128_nondivisible) {
    NEED_GPU();
    int64_t shape[2] = {300, 200};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, b);
    wf_tv_merge(b, 0);
    wf_tv_split(b, 0, 128);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    check_unary(TS, k, 2, shape, identity, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(exp_1000_split_by_128_nondivisible) {
    NEED_GPU();
    int64_t shape[1] = {1000};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_EXP, wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_split(b, 0, 128);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 8);
    check_unary(TS, k, 1, shape, exp_ref, GT_REL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(add_pointwise_split_by_256) {
    NEED_GPU();
    int64_t shape[1] = {1 << 20};
    wf_fusion *f = wf_fusion_new();
    wf_tv *c = wf_add(wf_input(f, WF_F32, 1, shape), wf_input(f, WF_F32, 1, shape));
    wf_output(f, c);
    wf_tv_split(c, 0, 256);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    gt_tensor in[2] = {gt_dense(WF_F32, 1, shape), gt_dense(WF_F32, 1, shape)};
    gt_fill_random(&in[0]);
    gt_fill_random(&in[1]);
    gt_tensor want = gt_dense(WF_F32, 1, shape);
    for (int64_t i = 0; i < shape[0]; i++)
        gt_set_f32(&want, i, gt_get_f32(&in[0], i) + gt_get_f32(&in[1], i));
    gt_case c2 = {k, 2, 1, in, &want, GT_REL};
    CHECK_RUN(&c2);
    gt_tensor_free(&in[0]);
    gt_tensor_free(&in[1]);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(add_broadcast_row_over_merged_split_by_128) {
    NEED_GPU();
    int64_t sa[2] = {64, 256}, sb[1] = {256};
    bool bc[2] = {true, false};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa), *b = wf_input(f, WF_F32, 1, sb);
    wf_tv *c = wf_add(a, wf_broadcast(b, 2, bc));
    wf_output(f, c);
    wf_tv_merge(c, 0);
    wf_tv_split(c, 0, 128);
    wf_propagate_transforms(c);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_parallelize_all_like(c, 0);
    wf_inline_most(f);
    wf_kernel *k = GT_COMPILE(f);
    gt_tensor in[2] = {gt_dense(WF_F32, 2, sa), gt_dense(WF_F32, 1, sb)};
    gt_fill_random(&in[0]);
    gt_fill_random(&in[1]);
    gt_tensor want = gt_dense(WF_F32, 2, sa);
    for (int64_t i = 0; i < 64 * 256; i++)
        gt_set_f32(&want, i, gt_get_f32(&in[0], i) + gt_get_f32(&in[1], i % 256));
    gt_case cs = {k, 2, 1, in, &want, GT_REL};
    CHECK_RUN(&cs);
    gt_tensor_free(&in[0]);
    gt_tensor_free(&in[1]);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* [1024, 2048] -> [2048, 1024] in 32x32 tiles: a coalesced read into shared
   memory, a barrier, a coalesced write of the transposed tile. */
GPU_TEST(transpose_tiled_32x32_through_shared_memory) {
    NEED_GPU();
    int64_t shape[2] = {1024, 2048}, tshape[2] = {2048, 1024};
    wf_fusion *f = fx_tiled_transpose(1024, 2048, FX_PLAIN, NULL);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 32 * 32 * 4);
    gt_tensor in = gt_dense(WF_F32, 2, shape);
    gt_fill_random(&in);
    gt_tensor want = gt_dense(WF_F32, 2, tshape);
    for (int64_t i = 0; i < 1024; i++)
        for (int64_t j = 0; j < 2048; j++)
            gt_set_f32(&want, j * 1024 + i, gt_get_f32(&in, i * 2048 + j));
    gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
    CHECK_RUN(&c);
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A copy through registers, 4 floats a thread with 16-byte accesses;
   unroll > 1 adds an unrolled axis and computes the register caches
   outside it, so all loads are issued before the first store. */
static wf_kernel *vector_copy(gt_state *ts_, wf_fusion *f, int64_t n, int threads, int unroll) {
    int64_t shape[1] = {n};
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *ca = wf_cache_after(a);
    wf_tv *b = wf_set(ca);
    wf_output(f, b);
    wf_tv *cb = wf_cache_before(b);
    int v = unroll > 1 ? 3 : 2;
    wf_tv_split(b, 0, 4);
    wf_tv_split(b, 0, threads);
    if (unroll > 1)
        wf_tv_split(b, 0, unroll);
    wf_propagate_transforms(b);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, v - 1, WF_TIDX);
    if (unroll > 1)
        wf_tv_parallelize(b, 1, WF_UNROLL);
    wf_parallelize_all_like(b, 0);
    wf_tv_parallelize(ca, v, WF_VECTORIZE);
    wf_tv_parallelize(b, v, WF_VECTORIZE);
    wf_inline_most(f);
    if (unroll > 1) {
        wf_tv_inline_at(ca, 1);
        wf_tv_inline_at(cb, 1);
    }
    return GT_COMPILE(f);
}

GPU_TEST(copy_vectorized_by_4_split_by_128) {
    NEED_GPU();
    int64_t shape[1] = {1 << 20};
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = vector_copy(TS, f, shape[0], 128, 1);
    if (k)
        CHECK(strstr(wf_kernel_source(k), "wf_vec_copy<float, 4>") != NULL);
    check_unary(TS, k, 1, shape, identity, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(copy_vectorized_by_4_unrolled_by_4_split_by_256) {
    NEED_GPU();
    int64_t shape[1] = {1 << 20};
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = vector_copy(TS, f, shape[0], 256, 4);
    check_unary(TS, k, 1, shape, identity, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* One kernel, two shapes: the extents come from the buffers. */
GPU_TEST(relu_symbolic_extents_two_shapes) {
    NEED_GPU();
    int64_t sym[2] = {-1, -1}, s1[2] = {37, 1000}, s2[2] = {64, 256};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_RELU, wf_input(f, WF_F32, 2, sym));
    wf_output(f, b);
    wf_tv_merge(b, 0);
    wf_tv_split(b, 0, 256);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    check_unary(TS, k, 2, s1, relu_ref, GT_EXACT);
    check_unary(TS, k, 2, s2, relu_ref, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(copy_vectorized_symbolic_extent) {
    NEED_GPU();
    int64_t s1[1] = {10000}, s2[1] = {4096};
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = vector_copy(TS, f, -1, 128, 1);
    check_unary(TS, k, 1, s1, identity, GT_EXACT);
    check_unary(TS, k, 1, s2, identity, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A half-precision input whose rows are 80 elements apart (64 used),
   cast to float: the kernel reads T0.stride[0]. */
GPU_TEST(cast_f16_strided_input_rows_80_apart) {
    NEED_GPU();
    int64_t shape[2] = {128, 64}, strides[2] = {80, 1};
    int8_t contig[2] = {0, 1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_cast(wf_input_strided(f, WF_F16, 2, shape, contig), WF_F32);
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        CHECK(strstr(wf_kernel_source(k), "T0.stride[0]") != NULL);
    gt_tensor in = gt_strided(WF_F16, 2, shape, strides);
    gt_fill_random(&in);
    gt_tensor want = copy_of(&in);
    gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
    CHECK_RUN(&c);
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* 64 x 256 floats staged whole in shared memory: 64 KiB, past the 48 KiB a
   kernel gets without raising its dynamic shared-memory limit. */
GPU_TEST(copy_through_64k_of_shared_memory) {
    NEED_GPU();
    int64_t shape[2] = {64, 256};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *b = wf_set(s);
    wf_output(f, b);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 65536);
    check_unary(TS, k, 2, shape, identity, GT_EXACT);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
