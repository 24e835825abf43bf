/*
 * test_reduce_softmax.c -- reduction -> broadcast -> pointwise in one
 * kernel: softmax over rows, hand-scheduled as nvFuser's persistent
 * schedule (one block per row, each thread keeping its C / B elements of
 * exp(x - max) in registers, the row max and sum as rfactored block
 * all-reduces that every thread reads back). The [4096, 4096] case runs on
 * the GPU (tests/gpu/test_reduce.c); here the same schedule runs smaller.
 */
#include "harness.h"
#include "reduce_check.h"

static wf_tv *bcast_rows(wf_tv *t) {
    bool bc[2] = {false, true};
    return wf_broadcast(t, 2, bc);
}

/* Split the column axis by B onto threadIdx.x, rows on blockIdx.x. */
static void rows_cols(wf_tv *t, int64_t b) {
    wf_tv_split(t, 1, b);
    wf_tv_parallelize(t, 0, WF_BIDX);
    wf_tv_parallelize(t, 2, WF_TIDX);
}

static wf_tv *row_reduce(wf_binary_op op, wf_tv *x, int64_t b) {
    int ax = 1, rf = 1;
    wf_tv *r = wf_reduce(op, x, 1, &ax);
    rows_cols(r, b);
    return wf_tv_rfactor(r, 1, &rf) ? r : NULL;
}

static wf_fusion *softmax(int64_t rows, int64_t cols, int64_t b) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = row_reduce(WF_MAX, x, b);
    wf_tv *mb = bcast_rows(m);
    wf_tv *d = wf_sub(x, mb);
    wf_tv *e = wf_unary(WF_EXP, d);
    wf_tv *s = row_reduce(WF_ADD, e, b);
    wf_tv *sb = bcast_rows(s);
    wf_tv *y = wf_div(e, sb);
    wf_output(f, y);
    rows_cols(d, b);
    rows_cols(e, b);
    rows_cols(y, b);
    wf_tv_parallelize(mb, 0, WF_BIDX);
    wf_tv_parallelize(sb, 0, WF_BIDX);
    wf_inline_most(f);
    wf_tv_inline_at(e, 1); /* kept in registers for both of its readers */
    return f;
}

TEST(reduce_softmax_rows_in_one_kernel) {
    wf_fusion *f = softmax(6, 1024, 128);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "float T5[8];"); /* exp(x - max): 1024 / 128 values per thread */
        CHECK_HAS(src, "wf_op_max()");
        CHECK_HAS(src, "wf_op_add()");
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 6);
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 128);
    }
    wf_kernel_free(k);
    if (!k)
        printf("  %s\n", wf_fusion_error(f));
    wf_fusion_free(f);
}

/* A column count that the block does not divide: the tail threads
   contribute -inf to the max and 0 to the sum. */
TEST(reduce_softmax_nondivisible_rows) {
    wf_fusion *f = softmax(3, 1000, 96);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
