/*
 * test_regress_issue18_races.c -- issue 18: reduction schedules the CPU
 * executor caught as hazards (out-of-bounds accesses, races, grid
 * reductions refused at launch), each written out as C calls and run on
 * the executor against the reference.
 */
#include "harness.h"
#include "reduce_check.h"

/* sum over dims 1 and 2 of [1, 2, 8]: dim 1 split 3 (its outer of extent 1)
   with the inner on TIDx, the iteration axis (extent 1) merged with that
   outer (allowed: an iteration axis of extent 1 holds one element), then
   split 5: a serial reduction loop of 5 whose index is also the output's,
   T2[i0], valid for i0 < 1. The block reduction's write dropped every bound
   of a reduced loop, so i0 = 1..4 read and wrote T2 past its one element
   (fuzz -s 20261123 -c 760736). */
TEST(issue18_block_reduction_write_bounded_by_a_reduced_loop_it_indexes) {
    int64_t shape[3] = {1, 2, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F64, 3, shape), 2, (int[]){2, 1});
    wf_output(f, s);
    wf_tv_split(s, 1, 3); /* [i1, r1, r3, r8] */
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_merge(s, 0);    /* [r1, r3 TIDx, r8] */
    wf_tv_split(s, 0, 5); /* [r1, r5, r3 TIDx, r8] */
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-12);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "if (i0 < 1 && threadIdx.x == 0) T1[i0] = wf_radd(");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
