/*
 * test_reduce_block.c -- block reductions (a reduction axis on threadIdx):
 * nvFuser's tutorial row sums of [10, 1024], the launch limit on a
 * 10 x 1024-thread block and the same kernel on [10, 32], the predicates a
 * collective carries instead of an IF, non-divisible splits, and the
 * executor's model of the tree order. Each kernel is compiled with NVRTC and
 * run on the executor against a double reference.
 */
#include "harness.h"
#include "reduce_check.h"

static wf_fusion *row_sum(const int64_t *shape, wf_tv **out) {
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    *out = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, *out);
    return f;
}

/* Tutorial: the reduction on TIDx, the rows in a serial loop of one block. */
TEST(reduce_block_tutorial_row_sum_on_tidx) {
    int64_t shape[2] = {10, 1024};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->block[0], 1024);
        CHECK_EQ_I64(li->smem_bytes, 1024 * 8); /* the workspace: 8 bytes a thread */
        CHECK_HAS(wf_kernel_source(k), "float wf_r = wf_block_reduce<true, false, false>("
                                       "(float)T0[i0 * 1024 + threadIdx.x], wf_op_add(), "
                                       "reinterpret_cast<float *>(wf_smem + 0), wf_rpar);");
        /* the result folds into a register; thread 0 stores it once */
        CHECK_HAS(wf_kernel_source(k), "    wf_acc1 = (float)0;\n    {\n");
        CHECK_HAS(wf_kernel_source(k), "      if (threadIdx.x == 0) wf_acc1 = wf_radd(wf_acc1, "
                                       "wf_r);\n    }\n    if (threadIdx.x == 0) {\n      "
                                       "T1[i0] = wf_acc1;\n    }\n");
        CHECK_LACKS(wf_kernel_source(k), "(float)T1[");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Tutorial: rows on BIDx, the reduction on TIDx. */
TEST(reduce_block_tutorial_rows_on_bidx) {
    int64_t shape[2] = {10, 1024};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 10);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Tutorial: rows on TIDy too: 10 x 1024 threads cannot launch, on any
   backend; with symbolic sizes, the same kernel runs [10, 32]. */
TEST(reduce_block_tutorial_rows_on_tidy_fail_at_launch_then_run_smaller) {
    int64_t shape[2] = {-1, -1};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 0, WF_TIDY);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    CHECK_NVRTC(k, 90);
    static float in[10 * 1024], out[10];
    wf_buffer ib = {in, WF_F32, 2, {10, 1024}, {0}, -1}, ob = {out, WF_F32, 1, {10}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1), WF_ERR_SCHEDULE);
    CHECK_HAS(wf_last_run_error(k), "invalid number of threads: the block needs ");
    CHECK_HAS(wf_last_run_error(k), " = 10240 threads");
    int64_t sym[8] = {10, 32};
    CHECK(rc_run(TS, k, f, sym, 1e-5));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Rows on TIDy and TIDx reduced: ten independent trees in one block; the
   rows are a local accumulator read back by a consumer. */
TEST(reduce_block_groups_of_rows_on_tidy_with_a_local_result) {
    int64_t shape[2] = {6, 40};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_tv *n = wf_unary(WF_NEG, s);
    wf_output(f, n);
    wf_tv_parallelize(s, 0, WF_TIDY);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_tv_parallelize(n, 0, WF_TIDY);
    wf_inline_most(f);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A non-divisible split: [r8 serial, r128 TIDx] over 1000: the threads past
   the end contribute the initial value (max: -inf) and every step still
   reaches the collective. */
TEST(reduce_block_nondivisible_split_contributes_init_past_the_end) {
    int64_t shape[2] = {3, 1000};
    int ax = 1;
    wf_binary_op ops[2] = {WF_ADD, WF_MAX};
    for (int i = 0; i < 2; i++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *r = wf_reduce(ops[i], wf_input(f, WF_F32, 2, shape), 1, &ax);
        wf_output(f, r);
        wf_tv_split(r, 1, 128);
        wf_tv_parallelize(r, 2, WF_TIDX);
        wf_tv_parallelize(r, 0, WF_BIDX);
        wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
        if (k && i == 1)
            CHECK_HAS(wf_kernel_source(k), " : (float)__int_as_float(0xff800000), wf_op_max(), ");
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* The executor reproduces the GPU's tree: for 5 threads the order is
   ((v0 + v4) + v2) + (v1 + v3). Values chosen so that any other order
   rounds differently in float. */
TEST(reduce_block_executor_follows_the_tree_order_bit_for_bit) {
    int64_t shape[1] = {5};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float in[5] = {1e8f, 3.0f, -1e8f, 3.0f, 1.0f}, out[1];
    wf_buffer ib = {in, WF_F32, 1, {5}, {0}, -1}, ob = {out, WF_F32, 0, {0}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1), WF_OK);
    volatile float a = in[0] + in[4], b = a + in[2], c = in[1] + in[3], want = b + c;
    CHECK(out[0] == want);
    CHECK(out[0] == 6.0f);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Serial and thread axes of one reduction: [r4 serial, r32 TIDx]: a block
   reduction per serial step, folded into the accumulator. */
TEST(reduce_block_serial_steps_fold_block_results) {
    int64_t shape[2] = {2, 128};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F64, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 32);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-12);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "double wf_r = wf_block_reduce<true, false, false>(");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* nvFuser's usual output staging: the reduction computed in registers
   (cache_before), then stored by one thread per row. */
TEST(reduce_block_cache_before_computes_in_registers_then_stores) {
    int64_t shape[2] = {10, 256};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv *c = wf_cache_before(s);
    CHECK(c != NULL);
    CHECK_EQ_I64(wf_tv_ndim(s), 1); /* the output is a copy: no reduction axis */
    CHECK_EQ_I64(wf_tv_ndim(c), 2);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_inline_most(f);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "if (threadIdx.x == 0) {\n    T1[blockIdx.x] = T2[0];");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A reduction read through a cache (cache_after), and the schedule spread by
   propagation and parallelize_all_like from the reduction. */
TEST(reduce_block_cache_after_and_propagation_from_the_reduction) {
    int64_t shape[2] = {12, 200};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *e = wf_unary(WF_EXP, wf_input(f, WF_F32, 2, shape));
    wf_tv *s = wf_sum(e, 1, &ax);
    wf_tv *n = wf_unary(WF_NEG, s);
    wf_output(f, n);
    wf_tv *c = wf_cache_after(s);
    CHECK(c != NULL);
    CHECK_EQ_I64(wf_tv_ndim(c), 1);
    wf_tv_split(s, 1, 64);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_propagate_transforms(s);
    wf_parallelize_all_like(s, 0);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_ndim(e), 3); /* e got the reduction's split */
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The warp-shuffle steps (threadIdx.x alone reduced, a multiple of 32
   threads) for every compute type: float, double, 64-bit and narrow
   integers, bool; results exact for the integer ones. */
TEST(reduce_block_warp_shuffle_steps_for_every_type) {
    int64_t shape[2] = {3, 64};
    int ax = 1;
    wf_dtype types[5] = {WF_F32, WF_F64, WF_I8, WF_I32, WF_BOOL};
    for (int i = 0; i < 5; i++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, types[i], 2, shape);
        wf_tv *r = i >= 2 ? wf_max(a, 1, &ax) : wf_sum(a, 1, &ax);
        wf_output(f, r);
        wf_tv_parallelize(r, 0, WF_BIDX);
        wf_tv_parallelize(r, 1, WF_TIDX);
        wf_kernel *k = rc_check(TS, f, NULL, i >= 2 ? 0 : 1e-5);
        if (k)
            CHECK_HAS(wf_kernel_source(k), "v = op(v, wf_shfl_down(v, o * S));");
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}
