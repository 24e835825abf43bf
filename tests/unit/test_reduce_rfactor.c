/*
 * test_reduce_rfactor.c -- rfactor: a reduction split into a producer that
 * reduces some axes (per thread) and the original tensor reducing the rest
 * (per block), two- and three-level, divisible and not, and its refusals.
 * Each kernel is compiled with NVRTC and run on the executor against a
 * double reference within 1e-5 relative.
 */
#include "harness.h"
#include "reduce_check.h"

/* The 10,000-element sum: thread-local partial sums, then a block. */
TEST(reduce_rfactor_10000_elements_thread_then_block) {
    int64_t shape[1] = {10000};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 0, 128); /* [r79, r128]: 10000 is not a multiple of 128 */
    wf_tv_parallelize(s, 1, WF_TIDX);
    int rf = 0;
    wf_tv *p = wf_tv_rfactor(s, 1, &rf);
    CHECK(p != NULL);
    if (!p) {
        printf("  %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return;
    }
    CHECK_EQ_I64(wf_tv_ndim(p), 2);
    CHECK_EQ_I64(wf_tv_ndim(s), 1);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "float T2[1];");                          /* one partial sum per thread */
        CHECK_HAS(src, "if (i0 * 128 + threadIdx.x < 10000) {"); /* the tail of 10000 */
        CHECK_HAS(src, "wf_block_reduce<true, false, false>((float)T2[0], wf_op_add(), ");
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 128);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Rows: [10, 1024] with rows on BIDx, 4 elements per thread, then a block. */
TEST(reduce_rfactor_row_sum_rows_on_blocks_divisible) {
    int64_t shape[2] = {10, 1024};
    int ax = 1, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 256); /* [i10, r4, r256] */
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, &rf);
    CHECK(p != NULL);
    if (p) {
        wf_tv_inline_at(p, 1);
        CHECK_EQ_I64(wf_tv_compute_at(p), 1);
    }
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 10);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Three levels by two rfactors: serial, then threadIdx.x, then threadIdx.y
   (a symbolic size: one kernel for several shapes). */
TEST(reduce_rfactor_three_levels_serial_tidx_tidy_symbolic) {
    int64_t shape[1] = {-1};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 0, 32); /* [r, r32] */
    wf_tv_split(s, 0, 4);  /* [r, r4, r32] */
    wf_tv_parallelize(s, 1, WF_TIDY);
    wf_tv_parallelize(s, 2, WF_TIDX);
    int rf0 = 0;
    wf_tv *p1 = wf_tv_rfactor(s, 1, &rf0); /* p1: serial; s: [r4 TIDy, r32 TIDx] */
    int rf1 = 1;
    wf_tv *p2 = s ? wf_tv_rfactor(s, 1, &rf1) : NULL; /* p2: TIDx; s: [r4 TIDy] */
    CHECK(p1 && p2);
    if (!p1 || !p2) {
        printf("  %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return;
    }
    CHECK_EQ_I64(wf_tv_ndim(s), 1);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_NVRTC(k, 90);
    int64_t sizes[3] = {1, 1000, 12345};
    for (int i = 0; i < 3; i++) {
        int64_t sym[8] = {sizes[i]};
        CHECK(rc_run(TS, k, f, sym, 1e-5));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_rfactor_of_an_outer_reduction_max) {
    int64_t shape[2] = {300, 16};
    int ax = 0, rf = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, m);
    wf_tv_split(m, 0, 8); /* [r38, r8, i16] */
    wf_tv_parallelize(m, 1, WF_TIDY);
    wf_tv_parallelize(m, 2, WF_TIDX);
    CHECK(wf_tv_rfactor(m, 1, &rf) != NULL);
    wf_kernel *k = rc_check(TS, f, NULL, 0);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_rfactor_refusals_name_the_axis) {
    int64_t shape[2] = {8, 64};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(a, 1, &ax);
    wf_tv_split(s, 1, 16);
    int bad[2] = {0, 1};
    CHECK(wf_tv_rfactor(s, 1, &bad[0]) == NULL);
    CHECK_STR(wf_fusion_error(f), "T1.rfactor: axis 0 (iS2{8}) is not a reduction axis");
    wf_fusion_clear_error(f);
    int both[2] = {1, 2};
    CHECK(wf_tv_rfactor(s, 2, both) == NULL);
    CHECK_STR(wf_fusion_error(f), "T1.rfactor: every reduction axis is listed, so T1 would "
                                  "reduce nothing; leave at least one for T1");
    wf_fusion_clear_error(f);
    int twice[2] = {1, 1};
    CHECK(wf_tv_rfactor(s, 2, twice) == NULL);
    CHECK_STR(wf_fusion_error(f), "T1.rfactor: axis 1 (rS4{4}) is listed twice");
    wf_fusion_clear_error(f);
    wf_tv *n = wf_unary(WF_NEG, a);
    CHECK(wf_tv_rfactor(n, 1, &ax) == NULL);
    CHECK_STR(wf_fusion_error(f), "T2.rfactor: T2 is not defined by a reduction (wf_sum, "
                                  "wf_max, wf_reduce)");
    wf_fusion_clear_error(f);
    wf_tv_merge(s, 0); /* [i8 * r4, r16] */
    int one = 1;
    CHECK(wf_tv_rfactor(s, 1, &one) == NULL);
    CHECK_STR(wf_fusion_error(f), "T1.rfactor: a merge of an iteration and a reduction axis "
                                  "cannot be split into two reductions; merge iteration and "
                                  "reduction axes separately");
    wf_fusion_free(f);
}

/* bench/reduce_bw.c's schedules, smaller: the inner sum (rows on blocks,
   [serial, TIDx] rfactored) and the outer sum (columns on BIDx x TIDx, rows
   [serial, TIDy] rfactored). */
TEST(reduce_rfactor_benchmark_schedules_inner_and_outer) {
    int64_t shape[2] = {64, 96};
    int ax = 1, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 32);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_inline_at(wf_tv_rfactor(s, 1, &rf), 1);
    wf_kernel_free(rc_check(TS, f, NULL, 1e-5));
    wf_fusion_free(f);
    ax = 0, rf = 0;
    f = wf_fusion_new();
    s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 32);
    wf_tv_split(s, 0, 8);
    wf_tv_parallelize(s, 1, WF_TIDY);
    wf_tv_parallelize(s, 2, WF_BIDX);
    wf_tv_parallelize(s, 3, WF_TIDX);
    CHECK(wf_tv_rfactor(s, 1, &rf) != NULL);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
        CHECK_EQ_I64(wf_kernel_launch(k)->block[1], 8);
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 3);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
