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

/* exp(x - max) computed twice: once inlined into the sum, once again for
   the division by the sum (no register row kept). The second exp is exactly
   mapped to the sum's reduction axis (through x) but feeds no reduction: it
   runs in the division's loop, after the sum's, and is inlined there
   (issue 20 G1; it was refused: "axis 1 of T10 is in the reduction loop of
   T7 ..."). With shared_sub, both exps read one x - max. */
static wf_fusion *softmax_recomputed(int64_t rows, int64_t cols, int64_t b, bool shared_sub,
                                     wf_tv **e2, wf_tv **sub) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = row_reduce(WF_MAX, x, b);
    wf_tv *d = wf_sub(x, bcast_rows(m));
    wf_tv *e = wf_unary(WF_EXP, d);
    wf_tv *sb = bcast_rows(row_reduce(WF_ADD, e, b));
    wf_tv *d2 = shared_sub ? d : wf_sub(x, bcast_rows(m));
    *e2 = wf_unary(WF_EXP, d2);
    wf_tv *y = wf_div(*e2, sb);
    wf_output(f, y);
    rows_cols(d, b);
    rows_cols(e, b);
    if (!shared_sub)
        rows_cols(d2, b);
    rows_cols(*e2, b);
    rows_cols(y, b);
    wf_tv_parallelize(sb, 0, WF_BIDX);
    *sub = d;
    return f;
}

TEST(reduce_softmax_recomputed_exp_is_inlined_after_the_sum) {
    wf_tv *e2, *d;
    wf_fusion *f = softmax_recomputed(5, 1000, 96, false, &e2, &d);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(e2), 3); /* was 1: a register row of exps */
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "    float T11[1];\n    if (i2 * 96 + threadIdx.x < 1000)");
        CHECK_LACKS(wf_kernel_source(k), "float T11[11]");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A tensor on the sum's input path stays out of the division's loop: inlined
   there, the division would read partial sums. */
TEST(reduce_softmax_exp_feeding_the_sum_stays_out_of_the_division) {
    int64_t shape[2] = {4, 256};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = row_reduce(WF_MAX, x, 64);
    wf_tv *d = wf_sub(x, bcast_rows(m));
    wf_tv *e = wf_unary(WF_EXP, d);
    wf_tv *sb = bcast_rows(row_reduce(WF_ADD, e, 64));
    wf_tv *y = wf_div(e, sb);
    wf_output(f, y);
    rows_cols(d, 64);
    rows_cols(e, 64);
    rows_cols(y, 64);
    wf_tv_parallelize(sb, 0, WF_BIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(e), 1);
    wf_tv_inline_at(e, 3);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T5.inline_at(3): position 3 is beyond the maximum inline position 1: axis 1 of T5 "
              "is in the reduction loop of T7, and its consumer T9 reads T7's result, which is "
              "complete only after that loop");
    wf_fusion_free(f);
}

/* One x - max inlined into both exps makes their loops one: the second exp,
   inlined into the division, would then put the division into the sum's
   loop. Whichever of the two is inlined last is refused. */
TEST(reduce_softmax_shared_producer_joins_the_loops) {
    wf_tv *e2, *d;
    wf_fusion *f = softmax_recomputed(5, 1000, 96, true, &e2, &d);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(d), 3);
    CHECK_EQ_I64(wf_tv_compute_at(e2), 1);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_tv_inline_at(d, 1);
    wf_tv_inline_at(e2, 3);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_tv_inline_at(d, 3);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T4.inline_at(3): position 3 is beyond the maximum inline position 1: axis 1 of T4 "
              "would make the reduction loop of T7 one loop with axis 1 of T10, which reads T7's "
              "result, complete only after that loop");
    wf_fusion_free(f);
}

/* docs/errors.md's example: Q = -P is inlined into the reader y first; then P,
   inlined into the sum and into Q, would make y's loop the sum's. */
TEST(reduce_reader_joined_to_the_reduction_loop_through_a_sibling) {
    int64_t shape[1] = {16};
    int axes[1] = {0};
    bool bc[1] = {true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *p = wf_set(x);
    wf_tv *s = wf_sum(p, 1, axes);
    wf_tv *q = wf_unary(WF_NEG, p);
    wf_tv *y = wf_mul(q, wf_broadcast(s, 1, bc));
    wf_output(f, y);
    wf_tv_inline_at(q, 1);
    wf_tv_inline_at(p, 1);
    CHECK_STR(wf_fusion_error(f),
              "T1.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T1 "
              "would make the reduction loop of T2 one loop with axis 0 of T5, which reads T2's "
              "result, complete only after that loop");
    wf_fusion_free(f);
}

/* P feeds the sum through Q and is read again by y = P * sum: inline_most
   puts P into Q's and y's loop; Q inlined into the sum would then put y into
   the sum's loop (refused), so Q stays out of it. P must stop short too: at 1
   its loop would hold Q and y, with the sum (computed from Q, read by y)
   outside it, to run both after Q and before y (issue 20: a layer norm's
   x - mean, feeding the variance and the output). */
TEST(reduce_inline_most_keeps_a_reduction_out_of_its_readers_loop) {
    int64_t shape[1] = {16};
    int axes[1] = {0};
    bool bc[1] = {true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *p = wf_set(x);
    wf_tv *q = wf_unary(WF_NEG, p);
    wf_tv *s = wf_sum(q, 1, axes);
    wf_tv *y = wf_mul(p, wf_broadcast(s, 1, bc));
    wf_output(f, y);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(p), 0);
    CHECK_EQ_I64(wf_tv_compute_at(q), 1);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_tv_inline_at(q, 0);
    wf_tv_inline_at(p, 1);
    CHECK_STR(wf_fusion_error(f),
              "T1.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T1 "
              "would make one loop holding T2 and T4, but T3, computed from T2 and needed for "
              "T4, runs outside that loop: the loop would have to run both before and after T3");
    wf_fusion_free(f);
}

/* A layer norm, (x - mean) * rsqrt(var + eps) * w + b, scheduled as the
   normalization scheduler does (every row tensor [BIDx, serial, TIDx], both
   sums rfactored), by hand. d = x - mean feeds the variance (through d * d)
   and the output: inlined into both, its loop would hold d * d and the
   output with the variance outside it ("cannot order the loops: T5 must be
   computed before T19", issue 20). inline_most keeps d in registers (at 1)
   and inlines d * d into the variance's partial sums. */
static void layer_norm_case(test_state *ts_, int64_t rows, int64_t cols, int64_t b) {
    int64_t shape[2] = {rows, cols}, wshape[1] = {cols};
    bool bc0[2] = {true, false};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *w = wf_input(f, WF_F32, 1, wshape), *bias = wf_input(f, WF_F32, 1, wshape);
    wf_tv *inv_n = wf_full(f, WF_F32, 1.0 / (double)cols);
    wf_tv *mean = wf_mul(row_reduce(WF_ADD, x, b), inv_n);
    wf_tv *mb = bcast_rows(mean);
    wf_tv *d = wf_sub(x, mb);
    wf_tv *dd = wf_mul(d, d);
    wf_tv *var = wf_mul(row_reduce(WF_ADD, dd, b), inv_n);
    wf_tv *rb = bcast_rows(wf_unary(WF_RSQRT, wf_add(var, wf_full(f, WF_F32, 1e-5))));
    wf_tv *n = wf_mul(d, rb);
    wf_tv *wb = wf_broadcast(w, 2, bc0), *bb = wf_broadcast(bias, 2, bc0);
    wf_tv *yw = wf_mul(n, wb);
    wf_tv *y = wf_add(yw, bb);
    wf_output(f, y);
    wf_tv *row_tvs[5] = {d, dd, n, yw, y};
    for (int i = 0; i < 5; i++)
        rows_cols(row_tvs[i], b);
    wf_tv_parallelize(mb, 0, WF_BIDX);
    wf_tv_parallelize(rb, 0, WF_BIDX);
    wf_inline_most(f);
    wf_inline_most(f); /* idempotent */
    CHECK_EQ_I64(wf_tv_compute_at(d), 1);
    CHECK_EQ_I64(wf_tv_compute_at(dd), 3);
    CHECK_EQ_I64(wf_tv_compute_at(n), 3);
    wf_kernel *k = rc_check(ts_, f, NULL, 1e-4);
    if (k) {
        char want[64];
        snprintf(want, sizeof want, "float T%d[%lld];", wf_tv_name(d),
                 (long long)((cols + b - 1) / b));
        CHECK_HAS(wf_kernel_source(k), want); /* the row of d, in registers */
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_layer_norm_inline_most_orders_the_loops) {
    layer_norm_case(TS, 10, 1536, 512);
    layer_norm_case(TS, 3, 1000, 96);
    layer_norm_case(TS, 2, 40, 64);
}
