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
