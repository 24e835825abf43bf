/*
 * test_launch_extents.c -- the launch dimension of each parallel type is the
 * largest extent of all loops on it, evaluated at run time when any extent
 * is symbolic; loops smaller than the launch dimension are predicated.
 */
#include "harness.h"

/* T2 = neg(T0) over a constant 128 on TIDx, T3 = neg(T1) over a symbolic
   extent (16 at run time) on TIDx: the block needs 128 threads. */
static wf_fusion *const_and_symbolic_tidx(wf_ptype p) {
    int64_t c128[1] = {128}, sym[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, c128), *b = wf_input(f, WF_F32, 1, sym);
    wf_tv *x = wf_unary(WF_NEG, a), *y = wf_unary(WF_NEG, b);
    wf_output(f, x);
    wf_output(f, y);
    wf_tv_parallelize(x, 0, p);
    wf_tv_parallelize(y, 0, p);
    return f;
}

TEST(launch_extent_is_max_of_constant_and_symbolic_tidx) {
    static const int64_t sym[16] = {0, 0, 0, 0, 0, 0, 0, 0, 16};
    wf_fusion *f = const_and_symbolic_tidx(WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], -1);
        CHECK_HAS(wf_kernel_source(k), "threadIdx.x < 128");
        CHECK_HAS(wf_kernel_source(k), "threadIdx.x < T1.size[0]");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* The symbolic extent larger than the constant one: 300 blocks, not 128. */
TEST(launch_extent_is_max_when_symbolic_is_larger_bidx) {
    static const int64_t sym[16] = {0, 0, 0, 0, 0, 0, 0, 0, 300};
    wf_fusion *f = const_and_symbolic_tidx(WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], -1);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* Two different symbolic extents on TIDx (10 and 40 at run time): 40 threads,
   each loop guarded by its own extent. */
TEST(launch_extent_is_max_of_two_symbolic_tidx) {
    static const int64_t sym[16] = {10, 0, 0, 0, 0, 0, 0, 0, 40};
    int64_t s[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, s), *b = wf_input(f, WF_F32, 1, s);
    wf_tv *x = wf_unary(WF_NEG, a), *y = wf_unary(WF_ABS, b);
    wf_output(f, x);
    wf_output(f, y);
    wf_tv_parallelize(x, 0, WF_TIDX);
    wf_tv_parallelize(y, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], -1);
        CHECK_HAS(wf_kernel_source(k), "threadIdx.x < T0.size[0]");
        CHECK_HAS(wf_kernel_source(k), "threadIdx.x < T1.size[0]");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* Two constant extents (128 and 64): the launch info says 128, and only the
   smaller loop is guarded. */
TEST(launch_extent_is_max_of_two_constants) {
    int64_t s128[1] = {128}, s64[1] = {64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, s64), *b = wf_input(f, WF_F32, 1, s128);
    wf_tv *x = wf_unary(WF_NEG, a), *y = wf_unary(WF_ABS, b);
    wf_output(f, x);
    wf_output(f, y);
    wf_tv_parallelize(x, 0, WF_TIDX);
    wf_tv_parallelize(y, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 128);
        CHECK_HAS(wf_kernel_source(k), "threadIdx.x < 64");
        CHECK_LACKS(wf_kernel_source(k), "threadIdx.x < 128");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}
