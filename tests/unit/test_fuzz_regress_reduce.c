/*
 * test_fuzz_regress_reduce.c -- regressions found by the fuzzer's reduction
 * cases (tests/fuzz/fuzz_reduce.c), each reduced to its smallest program.
 */
#include "harness.h"

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
