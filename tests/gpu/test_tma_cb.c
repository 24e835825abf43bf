/*
 * test_tma_cb.c -- circular-buffered TMA loads on the device (seed 001,
 * wf_tv_circular_buffer; lower/tma_cb.c): each block walks its rows tile by
 * tile over a serial loop with 2, 3 and 4 stages (stage mbarriers, parity
 * waits, the elected issuing thread), for trip counts that divide the
 * stage count and that do not and a last tile past the tensor; bit for bit
 * against the CPU reference on host and device buffers (gt_check). The CPU
 * suite's tests/unit/test_tma_cb.c also runs on the device with
 * WF_TEST_GPU=1 (tests/check_interp.c).
 */
#include "gpu.h"

#include <stdlib.h>

/* in [rows, cols] -> T1 (shared, TMA, tile br x cols, `stages`) -> T2, each
   block copying `per` tiles one after the other (the pipelined loop). */
static wf_fusion *pipelined_copy(int64_t rows, int64_t cols, int64_t br, int64_t per, int stages) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 2, shape)), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, br);  /* [rows / br, br, cols] */
        wf_tv_split(both[i], 0, per); /* [blocks, per, br, cols] */
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_tv_inline_at(s, 2);
    wf_tv_circular_buffer(s, stages);
    return f;
}

static void run_copy(gt_state *ts_, int64_t rows, int64_t per, int stages) {
    NEED_GPU();
    int64_t shape[2] = {rows, 64};
    wf_fusion *f = pipelined_copy(rows, 64, 8, per, stages);
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 1);
        gt_tensor in = gt_dense(WF_F32, 2, shape), want = gt_dense(WF_F32, 2, shape);
        gt_fill_random(&in);
        memcpy(want.data, in.data, sizeof(float) * (size_t)(rows * 64));
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(tma_cb_2_stages_trip_count_divides) {
    run_copy(ts_, 8 * 16 * 64, 16, 2);
}

GPU_TEST(tma_cb_3_stages_trip_count_does_not_divide) {
    run_copy(ts_, 8 * 16 * 64, 16, 3);
}

GPU_TEST(tma_cb_4_stages_partial_last_tile) {
    run_copy(ts_, 8 * 16 * 64 - 3, 16, 4);
}

/* The last block's last 5 tiles lie wholly outside the tensor (zero-filled). */
GPU_TEST(tma_cb_3_stages_tiles_past_the_end) {
    run_copy(ts_, 8 * 16 * 64 - 8 * 5 - 3, 16, 3);
}

GPU_TEST(tma_cb_more_stages_than_iterations) {
    run_copy(ts_, 8 * 2 * 100, 2, 4);
}
