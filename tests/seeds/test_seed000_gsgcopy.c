/*
 * test_seed000_gsgcopy.c -- seed 000, "Review of inlining and
 * parallelization": the six GSGCopy kernels and their shared-memory sizes,
 * and the fancyTransformations schedule used by Complicated1/2.
 */
#include "harness.h"

/* tv0 (global) -> tv1 (shared) -> tv2 (global), 2 x 4 floats. */
typedef struct {
    wf_fusion *f;
    wf_tv *tv0, *tv1, *tv2;
} gsg;

static gsg gsg_new(void) {
    gsg g;
    int64_t shape[2] = {2, 4};
    g.f = wf_fusion_new();
    g.tv0 = wf_input(g.f, WF_F32, 2, shape);
    g.tv1 = wf_set(g.tv0);
    g.tv2 = wf_set(g.tv1);
    wf_output(g.f, g.tv2);
    wf_tv_set_memory(g.tv1, WF_MEM_SHARED);
    return g;
}

/* The kernel allocates exactly `floats` floats of shared memory, copies the
   input exactly on the CPU reference executor, and compiles with NVRTC. */
static void check_smem(test_state *ts_, gsg *g, int64_t floats) {
    wf_kernel *k = CHECK_INTERP(g->f, NULL);
    if (!k)
        return;
    CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, floats * 4);
    harness_nvrtc(ts_, k, 90, __FILE__, __LINE__); /* fails the test itself on an NVRTC error */
    wf_kernel_free(k);
}

TEST(seed000_gsgcopy_naive_allocates_8) {
    gsg g = gsg_new();
    check_smem(TS, &g, 8);
    wf_fusion_free(g.f);
}

TEST(seed000_gsgcopy_bidx_allocates_2) {
    gsg g = gsg_new();
    wf_tv_parallelize(g.tv1, 1, WF_BIDX);
    wf_tv_parallelize(g.tv2, 1, WF_BIDX);
    check_smem(TS, &g, 2);
    wf_fusion_free(g.f);
}

TEST(seed000_gsgcopy_inline1_allocates_4) {
    gsg g = gsg_new();
    wf_tv_inline_at(g.tv1, 1);
    check_smem(TS, &g, 4);
    wf_fusion_free(g.f);
}

TEST(seed000_gsgcopy_inline1_bidx_allocates_1) {
    gsg g = gsg_new();
    wf_tv_inline_at(g.tv1, 1);
    wf_tv_parallelize(g.tv1, 1, WF_BIDX);
    wf_tv_parallelize(g.tv2, 1, WF_BIDX);
    check_smem(TS, &g, 1);
    wf_fusion_free(g.f);
}

TEST(seed000_gsgcopy_inline1_tidx_allocates_8) {
    gsg g = gsg_new();
    wf_tv_inline_at(g.tv1, 1);
    wf_tv_parallelize(g.tv1, 0, WF_TIDX);
    wf_tv_parallelize(g.tv2, 0, WF_TIDX);
    check_smem(TS, &g, 8);
    wf_fusion_free(g.f);
}

TEST(seed000_gsgcopy_inline1_tidx_bidx_allocates_2) {
    gsg g = gsg_new();
    wf_tv_inline_at(g.tv1, 1);
    wf_tv_parallelize(g.tv1, 0, WF_TIDX);
    wf_tv_parallelize(g.tv2, 0, WF_TIDX);
    wf_tv_parallelize(g.tv1, 1, WF_BIDX);
    wf_tv_parallelize(g.tv2, 1, WF_BIDX);
    check_smem(TS, &g, 2);
    wf_fusion_free(g.f);
}

/* The seed's fancyTransformations, on a [4096, 4096] tensor. */
static void fancy_transformations(wf_tv *tv) {
    static const int r[4] = {3, 0, 2, 1};
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_split(tv, 1, 64);
    wf_tv_split(tv, 0, 64);
    wf_tv_reorder_all(tv, r);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 2, 3);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 1, 2);
    wf_tv_reorder_all(tv, r);
    wf_tv_merge(tv, 2);
    wf_tv_merge(tv, 0);
}

TEST(seed000_fancy_transformations_propagated_copy) {
    int64_t shape[2] = {4096, 4096};
    wf_fusion *f = wf_fusion_new();
    wf_tv *tv0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *tv1 = wf_set(tv0);
    wf_tv *tv2 = wf_set(tv1);
    wf_output(f, tv2);
    fancy_transformations(tv2);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_EQ_I64(wf_tv_ndim(tv2), 2);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(tv2, 0)), 4096);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(tv2, 1)), 4096);
    wf_tv_split(tv2, 1, 128);
    wf_tv_parallelize(tv2, 0, WF_BIDX);
    wf_tv_parallelize(tv2, 2, WF_TIDX);
    wf_propagate_transforms(tv2);
    wf_parallelize_all_like(tv2, 0);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_ndim(tv1), 3);
    CHECK_EQ_I64(wf_tv_compute_at(tv1), 3);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (!k)
        return;
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], 4096);
    CHECK_EQ_I64(li->block[0], 128);
    CHECK_EQ_I64(li->smem_bytes, 0);
    /* The local tensor inlined everywhere is a single register. */
    CHECK_HAS(wf_kernel_source(k), "float T1[1];");
    CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
