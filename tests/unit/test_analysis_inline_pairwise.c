/*
 * test_analysis_inline_pairwise.c -- a producer's iteration axis shares a
 * loop with a consumer's axis only if the consumer's axis is the producer's
 * own image through their op (or exactly mapped to it). The permissive map
 * alone is not enough: it is transitive through broadcasts, so an axis of a
 * producer can be "mapped" to a broadcast axis its consumer inserted, via
 * other tensors. Found by the fuzzer (-s 1000 -c 276730).
 */
#include "harness.h"

/* T6 = T3 * T2 and T7 = T4 - T5, with T3 = [b, 16] (from T1), T4 =
   broadcast(T3) = [b, b, 16], T2 = [16, b] (from T0), T5 = broadcast(T2) =
   [16, b, b]. Axis 1 of T3 (T1's 16) is permissively mapped to T4's new
   broadcast axis 1 through T6 and T7. inline_most once put T3 at position 2,
   inside T6's loop over T1's 16, and T4 read that single value inside its own
   loop over the same 16: T7[i, 0, j] = T1[k] - T0[i] for the k of the outer
   loop. */
TEST(analysis_inline_needs_the_consumers_own_image_of_an_axis) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {16};
    bool at1[2] = {false, true}, at0[2] = {true, false};
    bool at1of3[3] = {false, true, false}, at2of3[3] = {false, false, true};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t2 = wf_broadcast(t0, 2, at1);
    wf_tv *t3 = wf_broadcast(t1, 2, at0);
    wf_tv *t5 = wf_broadcast(t3, 3, at1of3);
    wf_tv *t6 = wf_broadcast(t2, 3, at2of3);
    wf_tv *t7 = wf_mul(t3, t2);
    wf_tv *t8 = wf_sub(t5, t6);
    wf_output(f, t7);
    wf_output(f, t8);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1); /* was 2 */
    CHECK_EQ_I64(wf_tv_compute_at(t2), 2);
    CHECK_EQ_I64(wf_tv_compute_at(t5), 3);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    /* Asked for explicitly, the deeper position is refused with the reason. */
    wf_tv_inline_at(t3, 2);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T3.inline_at(2): position 2 is beyond the maximum inline position 1: "
              "axis 1 of T3 is not mapped to axis 1 of its consumer T4");
    wf_fusion_free(f);
}
