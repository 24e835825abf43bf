/*
 * test_seed000.c -- seed 000 ("Review of inlining and parallelization") on
 * the GPU: the six GSGCopy schedules (global -> shared -> global, 2 x 4
 * floats) each report and launch with their shared-memory size (32, 8, 16,
 * 4, 32 and 8 bytes) and copy exactly; and the fancyTransformations copy of
 * a [4096, 4096] tensor that Complicated1/2 use. tests/seeds/ checks the
 * same schedules' sizes and NVRTC compiles without a GPU.
 */
#include "gpu.h"

typedef struct {
    wf_fusion *f;
    wf_tv *tv0, *tv1, *tv2;
} gsg;

static gsg gsg_new(const int64_t *shape) {
    gsg g;
    g.f = wf_fusion_new();
    g.tv0 = wf_input(g.f, WF_F32, 2, shape);
    g.tv1 = wf_set(g.tv0);
    g.tv2 = wf_set(g.tv1);
    wf_output(g.f, g.tv2);
    return g;
}

static void both(gsg *g, int axis, wf_ptype p) {
    wf_tv_parallelize(g->tv1, axis, p);
    wf_tv_parallelize(g->tv2, axis, p);
}

/* Schedule, check the reported shared memory, run and compare exactly. */
static void check_gsg(gt_state *ts_, gsg *g, int64_t smem_bytes) {
    int64_t shape[2] = {2, 4};
    wf_kernel *k = GT_COMPILE(g->f);
    if (!k)
        return;
    CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, smem_bytes);
    gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
    gt_fill_random(&in);
    memcpy(want.data, in.data, sizeof(float) * 8);
    gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
    CHECK_RUN(&c);
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
}

#define GSG_TEST(name, smem, schedule)                                                             \
    GPU_TEST(name) {                                                                               \
        static const int64_t shape[2] = {2, 4};                                                    \
        NEED_GPU();                                                                                \
        gsg g_ = gsg_new(shape);                                                                   \
        gsg *g = &g_;                                                                              \
        wf_tv_set_memory(g->tv1, WF_MEM_SHARED);                                                   \
        schedule;                                                                                  \
        check_gsg(TS, g, smem);                                                                    \
        wf_fusion_free(g->f);                                                                      \
    }

GSG_TEST(seed000_gsgcopy_naive_launches_with_32_bytes, 32, (void)g)
GSG_TEST(seed000_gsgcopy_bidx_launches_with_8_bytes, 8, both(g, 1, WF_BIDX))
GSG_TEST(seed000_gsgcopy_inline1_launches_with_16_bytes, 16, wf_tv_inline_at(g->tv1, 1))
GSG_TEST(seed000_gsgcopy_inline1_bidx_launches_with_4_bytes, 4,
         (wf_tv_inline_at(g->tv1, 1), both(g, 1, WF_BIDX)))
GSG_TEST(seed000_gsgcopy_inline1_tidx_launches_with_32_bytes, 32,
         (wf_tv_inline_at(g->tv1, 1), both(g, 0, WF_TIDX)))
GSG_TEST(seed000_gsgcopy_inline1_tidx_bidx_launches_with_8_bytes, 8,
         (wf_tv_inline_at(g->tv1, 1), both(g, 0, WF_TIDX), both(g, 1, WF_BIDX)))

/* The seed's fancyTransformations (swizzles, splits, reorders, merges) on
   tv2, split by 128 on TIDx, propagated; tv1 stays a local register. */
GPU_TEST(seed000_fancy_transformations_copy_4096x4096) {
    static const int r[4] = {3, 0, 2, 1};
    int64_t shape[2] = {4096, 4096};
    NEED_GPU();
    gsg g = gsg_new(shape);
    wf_tv *tv = g.tv2;
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
    wf_tv_split(tv, 1, 128);
    wf_tv_parallelize(tv, 0, WF_BIDX);
    wf_tv_parallelize(tv, 2, WF_TIDX);
    wf_propagate_transforms(tv);
    wf_parallelize_all_like(tv, 0);
    wf_inline_most(g.f);
    wf_kernel *k = GT_COMPILE(g.f);
    gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
    gt_fill_random(&in);
    memcpy(want.data, in.data, sizeof(float) * 4096 * 4096);
    gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
    CHECK_RUN(&c);
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
    wf_fusion_free(g.f);
}
