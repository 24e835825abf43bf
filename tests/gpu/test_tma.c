/*
 * test_tma.c -- TMA kernels on the device (seed 001): loads with boxes
 * that reach past the tensor (zero fill), stores that skip what lies
 * outside it, the 128-byte swizzle, in large enough sizes that many blocks
 * issue boxes, each also at sizes the tiles do not divide; loads whose
 * boxes are issued by several threads of a block, some of them wholly past
 * the tensor's end (issue 18: the mbarrier must get every arrival, or the
 * block waits forever); each against the CPU reference, bit for bit, on host and on
 * device buffers (gt_check). The CPU suite's TMA tests also run on the
 * device with WF_TEST_GPU=1 (tests/check_interp.c).
 */
#include "gpu.h"

#include <stdlib.h>

/* out = in through a TMA-loaded [br x bc] tile and (if store) a TMA store. */
static wf_fusion *tile_copy(int64_t rows, int64_t cols, int64_t br, int64_t bc, bool store,
                            int swizzle) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s0 = wf_set(in), *mid = wf_set(s0);
    wf_tv *out = store ? wf_set(mid) : mid;
    if (store) {
        wf_output(f, out);
        wf_tv_set_memory(mid, WF_MEM_SHARED);
        wf_tv_set_ldst(out, WF_LDST_TMA);
    } else {
        wf_output(f, mid);
    }
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(s0, WF_LDST_TMA);
    wf_tv *all[3] = {s0, mid, out};
    for (int i = 0; i < (store ? 3 : 2); i++) {
        wf_tv_split(all[i], 1, bc);
        wf_tv_split(all[i], 0, br);
        wf_tv_reorder_all(all[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(all[i], 0, WF_BIDY);
        wf_tv_parallelize(all[i], 1, WF_BIDX);
    }
    wf_tv_parallelize(s0, 2, WF_BULK);
    wf_tv_parallelize(s0, 3, WF_BULK);
    if (swizzle)
        wf_tv_tma_swizzle(s0, swizzle);
    wf_tv_parallelize(mid, 2, WF_TIDY);
    wf_tv_parallelize(mid, 3, WF_TIDX);
    if (store) {
        wf_tv_parallelize(out, 2, WF_BULK);
        wf_tv_parallelize(out, 3, WF_BULK);
    }
    wf_inline_most(f);
    return f;
}

static void run_copy(gt_state *ts_, int64_t rows, int64_t cols, int64_t br, int64_t bc, bool store,
                     int swizzle) {
    NEED_GPU();
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = tile_copy(rows, cols, br, bc, store, swizzle);
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), store ? 2 : 1);
        gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
        gt_fill_random(&in);
        memcpy(want.data, in.data, sizeof(float) * (size_t)(rows * cols));
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(tma_load_partial_boxes_zero_filled) {
    run_copy(ts_, 1000, 1000, 16, 32, false, 0);
}

GPU_TEST(tma_load_and_store_partial_boxes) {
    run_copy(ts_, 1000, 1000, 16, 32, true, 0);
}

GPU_TEST(tma_load_swizzle_128) {
    run_copy(ts_, 1024, 1024, 32, 32, false, 128);
    run_copy(ts_, 1000, 1012, 32, 32, false, 128);
}

GPU_TEST(tma_load_swizzle_64_and_store) {
    run_copy(ts_, 512, 512, 16, 16, true, 64);
    run_copy(ts_, 500, 508, 16, 16, true, 64);
}

/* Compile, run on random data, expect the input back. */
static void expect_copy(gt_state *ts_, wf_fusion *f, int ndim, const int64_t *shape) {
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        gt_tensor in = gt_dense(WF_F32, ndim, shape), want = gt_dense(WF_F32, ndim, shape);
        gt_fill_random(&in);
        memcpy(want.data, in.data, sizeof(float) * (size_t)gt_numel(&in));
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* in -> T1 (shared, TMA load) -> T2 (output). */
static wf_fusion *load_chain(int ndim, const int64_t *shape, wf_tv **s, wf_tv **o) {
    wf_fusion *f = wf_fusion_new();
    *s = wf_set(wf_input(f, WF_F32, ndim, shape));
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    wf_tv_set_ldst(*s, WF_LDST_TMA);
    return f;
}

/* 1-D boxes of 256, 4 a block, each issued by its own thread (merge, merge,
   split 256, split 4: [BIDx, TIDx{4}, Bulk{256}]). */
static void four_issuers(gt_state *ts_, int64_t n0) {
    NEED_GPU();
    int64_t shape[3] = {n0, 8, 64};
    wf_tv *s, *o;
    wf_fusion *f = load_chain(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(both[i], 0);
        wf_tv_merge(both[i], 0);
        wf_tv_split(both[i], 0, 256);
        wf_tv_split(both[i], 0, 4);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
        wf_tv_parallelize(both[i], 1, WF_TIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(o, 2, WF_TIDY);
    expect_copy(ts_, f, 3, shape);
}

GPU_TEST(tma_load_boxes_issued_by_four_threads) {
    four_issuers(ts_, 4096);
    four_issuers(ts_, 4097); /* the last block: 2 boxes in the tensor, 2 past its end */
    four_issuers(ts_, 4095);
}

/* [B, M, N] in 64 x 64 CTA tiles of 32 x 32 boxes: the tile's two rows of
   boxes on TIDx (a thread issues each), its two columns serial. */
static void cta_tile_of_boxes(gt_state *ts_, int64_t m, int64_t n) {
    NEED_GPU();
    int64_t shape[3] = {2, m, n};
    wf_tv *s, *o;
    wf_fusion *f = load_chain(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 2, 32);
        wf_tv_split(both[i], 2, 2);
        wf_tv_split(both[i], 1, 32);
        wf_tv_split(both[i], 1, 2); /* [B, Mo, 2, 32, No, 2, 32] */
        wf_tv_reorder_all(both[i], (const int[]){0, 1, 3, 5, 2, 4, 6});
        wf_tv_parallelize(both[i], 0, WF_BIDZ);
        wf_tv_parallelize(both[i], 1, WF_BIDY);
        wf_tv_parallelize(both[i], 2, WF_BIDX);
    }
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv_parallelize(s, 5, WF_BULK);
    wf_tv_parallelize(s, 6, WF_BULK);
    wf_tv_parallelize(o, 5, WF_TIDY);
    wf_tv_parallelize(o, 6, WF_TIDX);
    expect_copy(ts_, f, 3, shape);
}

GPU_TEST(tma_load_cta_tile_of_boxes_issued_by_threads) {
    cta_tile_of_boxes(ts_, 1024, 1024);
    cta_tile_of_boxes(ts_, 1000, 1000); /* boxes at row and column 992 reach past the end */
    cta_tile_of_boxes(ts_, 1016, 1012); /* row 1024's boxes lie wholly outside */
}
