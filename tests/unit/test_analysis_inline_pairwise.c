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

/* The producer's own merge with an axis of extent 1 iterates its other
   input, so its image is that input's: T2 = -T0 [29, 1] merged into [29]
   shares the loop of T3 = T2 * T1's unmerged 29. "axis 0 of T2 is not
   mapped to axis 0 of its consumer T3" (a TensorIR block's extent-1 iter
   joins the dim next to it, which its reader's does not: fuzz -s 20261135
   -c 88144). */
TEST(analysis_inline_a_producer_merge_with_extent_1_shares_its_other_axis_loop) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {29, 1};
    wf_tv *t0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t1 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t2 = wf_unary(WF_NEG, t0);
    wf_output(f, wf_mul(t2, t1));
    wf_tv_merge(t2, 0);
    wf_tv_inline_at(t2, 1);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(strstr(wf_kernel_source(k), "extern \"C\""),
                  "extern \"C\" __global__ void weft_kernel(Tensor<float, 2> T0, Tensor<float, 2> "
                  "T1, Tensor<float, 2> T3) {\n"
                  "  for (wf_index i0 = 0; i0 < 29; ++i0) {\n"
                  "    float T2[1];\n"
                  "    T2[0] = -T0[i0];\n"
                  "    T3[i0] = T2[0] * T1[i0];\n"
                  "  }\n"
                  "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Not when both inputs of the merge hold one value: T2 = -T1, T1 =
   broadcast(T0) [b1, 16, 1], split outer by 8 like its consumer T3 ([bS{8},
   b{1}, 16, 1]), then its i{1} merged with bS{8}: an iteration axis of 8
   whose index is not the loop's. Shared with T3's loop over bS{8}, T2 was
   computed in its first iteration only (the split of b{1} bounds it, i0 <
   1) and read in all 8 (fuzz -s 20261128 -c 795514, found with the rule
   above unrestricted). */
TEST(analysis_inline_a_merge_of_two_axes_of_one_value_shares_no_loop) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 2, (int64_t[]){16, 1});
    wf_tv *t1 = wf_broadcast(t0, 3, (bool[]){true, false, false});
    wf_tv *t2 = wf_unary(WF_NEG, t1);
    wf_tv *t3 = wf_unary(WF_NEG, t2);
    wf_output(f, t3);
    wf_tv_split_outer(t3, 0, 8);
    wf_propagate_transforms(t3);
    wf_tv_merge_axes(t2, 3, 0); /* [iS{8} = merge(iS{1}, bS{8}), bS{1}, 16] */
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t1), 3);
    CHECK_EQ_I64(wf_tv_compute_at(t2), 0);
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}
