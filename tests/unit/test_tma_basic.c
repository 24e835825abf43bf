/*
 * test_tma_basic.c -- TMA copies (seed 001): the basic tutorial's copy
 * kernels, loads (global -> shared) and stores (shared -> global), with
 * boxes by partitioning and by compositing. Each kernel's tensor map, as
 * wf_kernel_tma reports it, is checked value by value, the data copied by
 * the executor's model of the hardware (tensor map, boxes, zero fill) is
 * compared with the reference, and NVRTC compiles the source for sm_90a.
 */
#include "harness.h"

#include <stdlib.h>

static void check_map(test_state *ts_, const wf_tma_info *m, bool store, int rank,
                      const int64_t *dims, const int64_t *strides, const int64_t *box, int swz) {
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ_I64(m->is_store, store);
    CHECK_EQ_I64(m->rank, rank);
    for (int d = 0; d < rank && d < 5; d++) {
        CHECK_EQ_I64(m->global_dims[d], dims[d]);
        CHECK_EQ_I64(m->global_strides_bytes[d], strides[d]);
        CHECK_EQ_I64(m->box[d], box[d]);
        CHECK_EQ_I64(m->element_strides[d], 1);
    }
    CHECK_EQ_I64(m->swizzle_bytes, swz);
}

/* in (global) -> T1 (shared, TMA load) -> T2 (global output, plain copy). */
static wf_fusion *load_fusion(int ndim, const int64_t *shape, wf_tv **smem, wf_tv **out) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, ndim, shape);
    *smem = wf_set(in);
    *out = wf_set(*smem);
    wf_output(f, *out);
    wf_tv_set_memory(*smem, WF_MEM_SHARED);
    wf_tv_set_ldst(*smem, WF_LDST_TMA);
    return f;
}

/* 1-D TMA: the whole tensor viewed as one dimension, boxes of 256. */
TEST(tma_load_1d_partitioned_merged_view) {
    int64_t shape[3] = {4, 8, 64};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(both[i], 0);
        wf_tv_merge(both[i], 0);
        wf_tv_split(both[i], 0, 256);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(o, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 1);
        int64_t dims[1] = {2048}, strides[1] = {4}, box[1] = {256};
        check_map(ts_, wf_kernel_tma(k, 0), false, 1, dims, strides, box, 0);
        CHECK(wf_kernel_tma(k, 1) == NULL);
        CHECK_HAS(wf_kernel_source(k), "cp.async.bulk.tensor.1d.shared::cluster.global.tile");
        CHECK_HAS(wf_kernel_source(k), "mbarrier.arrive.expect_tx");
        CHECK_HAS(wf_kernel_source(k), "const __grid_constant__ wf_tensor_map wf_tmap0");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
