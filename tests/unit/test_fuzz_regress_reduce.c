/*
 * test_fuzz_regress_reduce.c -- regressions found by the fuzzer's reduction
 * cases (tests/fuzz/fuzz_reduce.c), each reduced to its smallest program.
 */
#include "harness.h"

#include <math.h>
#include <stdlib.h>

#include "ref.h"

/* rfactor gives the reduction new logical and loop domains and remaps the
   positions its consumers read (ir_relogical). An op reading the reduction
   twice, mul(r, r), is listed twice among its uses and was remapped twice:
   the second pass read the new positions as old ones, left -1, and
   wf_compile crashed (fuzz -s 1 -c 70). */
TEST(fuzz_regress_rfactor_of_a_reduction_read_twice_by_one_op) {
    int64_t shape[2] = {6, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *r = wf_max(x, 1, (int[]){0}); /* [r6, i4]: exact, whatever the order */
    wf_tv *sq = wf_mul(r, r);
    wf_output(f, sq);
    wf_tv_split(r, 0, 2); /* [r3, r2, i4] */
    wf_tv *p = wf_tv_rfactor(r, 1, (int[]){0});
    CHECK(p != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same with a sum, through a subtraction of the reduction from itself
   (both operands of one binary op), on integers. */
TEST(fuzz_regress_rfactor_of_a_sum_subtracted_from_itself) {
    int64_t shape[2] = {5, 3};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_I32, 2, shape);
    wf_tv *r = wf_sum(x, 1, (int[]){0});
    wf_output(f, wf_sub(r, r));
    wf_tv_split(r, 0, 3);
    CHECK(wf_tv_rfactor(r, 1, (int[]){0}) != NULL);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The init of a block-reduced global output: its predicate bounds the
   split reduction axis (threadIdx.x < 7), which single_writer took for a
   predicate that already picks one writer, so threads 0..6 all wrote the
   initial value: a race the executor refused (fuzz -s 1 -c 375). Now only
   thread 0 initializes, and the result is exact. (The bound on the reduced
   axis, threadIdx.x < 7, goes from the init as from the combine's store:
   issue 18.) */
TEST(fuzz_regress_block_reduction_init_has_a_single_writer) {
    int64_t shape[2] = {7, 5};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = wf_max(x, 2, (int[]){0, 1});
    wf_output(f, m);
    wf_tv_split(m, 0, 16); /* [r1, r16 (7 valid), r5] */
    wf_tv_parallelize(m, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "if (threadIdx.x == 0) {\n    T1[0] = ");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Two products of the same 7 floats, one reduced by 64 threads as a tree,
   the other serially, and their difference (fuzz -s 20261128 -c 127389).
   Each product is within 2 ulps of the exact 26679.5107, but the two
   orders round differently, so p - q is -2^-8 where the reference, which
   multiplies in double, gives 0: the fuzzer's absolute tolerance near 0
   (1e-3) called that a wrong answer. The reference now also gives each
   element a scale, the magnitude of the partial results (|p| + |q| here),
   and an inexact result may differ by a few f32 ulps of it. */
TEST(fuzz_regress_difference_of_two_products_rounds_at_their_scale) {
    float x[7] = {5.418f, 1.019f, -7.304f, -3.976f, -3.279f, -8.147f, 6.229f};
    float pq[1], p[1], q[1];
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, (int64_t[]){-1});
    wf_tv *tp = wf_reduce(WF_MUL, a, 1, (int[]){0});
    wf_tv *tq = wf_reduce(WF_MUL, a, 1, (int[]){0});
    wf_output(f, wf_sub(tq, tp));
    wf_output(f, wf_set(tp));
    wf_output(f, wf_set(tq));
    wf_tv_split(tp, 0, 64);
    wf_tv_parallelize(tp, 1, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    wf_buffer in = {x, WF_F32, 1, {7}, {0}, -1};
    wf_buffer out[3] = {
        {pq, WF_F32, 0, {0}, {0}, -1}, {p, WF_F32, 0, {0}, {0}, -1}, {q, WF_F32, 0, {0}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, out, 3), WF_OK);
    CHECK(p[0] == 0x1.a0de0ep+14f); /* 26679.5137: the tree's order */
    CHECK(q[0] == 0x1.a0de0ap+14f); /* 26679.5098: the serial order */
    CHECK(pq[0] == -0x1p-8f);
    float want[3];
    wf_buffer ref[3] = {{want, WF_F32, 0, {0}, {0}, -1},
                        {want + 1, WF_F32, 0, {0}, {0}, -1},
                        {want + 2, WF_F32, 0, {0}, {0}, -1}};
    double *scale[3] = {NULL, NULL, NULL};
    CHECK(ref_eval_scaled(f, &in, 1, ref, scale, 3));
    CHECK(want[0] == 0.0f);
    CHECK(want[1] == 0x1.a0de0ap+14f && want[2] == want[1]); /* 26679.5098 */
    if (scale[0] && scale[1]) {
        /* |p| + |q| in double, and a product's scale is its magnitude */
        CHECK(fabs(scale[1][0] - 26679.51067) < 1e-4);
        CHECK(scale[0][0] == 2 * scale[1][0]);
        /* 16 ulps of it allow 0.0509: the -0.0039 passes, a wrong factor would not */
        CHECK(fabs(pq[0] - want[0]) <= 16 * 0x1p-24 * scale[0][0]);
        CHECK(16 * 0x1p-24 * scale[0][0] < 0.051);
    }
    for (int i = 0; i < 3; i++)
        free(scale[i]);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
