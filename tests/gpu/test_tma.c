/*
 * test_tma.c -- TMA kernels on the device (seed 001): loads with boxes
 * that reach past the tensor (zero fill), stores that skip what lies
 * outside it, the 128-byte swizzle, in large enough sizes that many blocks
 * issue boxes; each against the CPU reference, bit for bit, on host and on
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
}

GPU_TEST(tma_load_swizzle_64_and_store) {
    run_copy(ts_, 512, 512, 16, 16, true, 64);
}
