/*
 * test_fuzz_regress_f17.c -- the two open classes of fuzzer finding F17
 * (tests/fuzz/known.h), fixed in analysis/inline.c and lower/index.c.
 *
 * A reduction's reader inside the reduction's loop: T4 = T1 * broadcast(max(T1)).
 * T1's axis is the max's reduction axis and T4's iteration axis; inlined into
 * both, T1 made them one loop, and T4 multiplied by partial maxima. Now an axis
 * exactly mapped to a reduction loop of R is not shared with a consumer that
 * reads R's result (unless the producer itself reads it, and so runs after the
 * loop): T1 is computed in its own loop, as nvFuser keeps a persistent buffer.
 *
 * A broadcast resolved to an axis the tensor iterates itself: T4 = max over
 * dim 1 of broadcast(T1) [b, 2], T5 = T4 + T0 with T0 and T1 exactly mapped
 * (T3 = T0 * T1). T4's broadcast axis ran in T5's loop over T0's axis, which is
 * exactly mapped to T4's own reduction axis, and indexing took the outer loop's
 * index for it: the max read one element 4 times. Now inline_most does not put
 * T4 in that loop, and where a loop like it is built anyway, its index gives
 * the tensor's own axes nothing.
 */
#include "harness.h"

/* A max, so that the reference (in double) and the kernel agree exactly. */
TEST(fuzz_regress_f17_reader_of_a_reduction_stays_out_of_its_loop) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {16};
    bool bc[1] = {true};
    int axes[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_set(t0);
    wf_tv *t2 = wf_max(t1, 1, axes);
    wf_tv *t3 = wf_broadcast(t2, 1, bc);
    wf_tv *t4 = wf_mul(t1, t3);
    wf_output(f, t2);
    wf_output(f, t4);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t1), 0); /* was 1: inside the sum's loop */
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_tv_inline_at(t1, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T1.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T1 "
              "is in the reduction loop of T2, and its consumer T4 reads T2's result, which is "
              "complete only after that loop");
    wf_fusion_free(f);
}

/* A tensor computed from the reduction's result may share loops with other
   readers of it: x - mean is inlined into the second reduction (a variance). */
TEST(fuzz_regress_f17_tensors_after_the_reduction_still_inline) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {16};
    bool bc[1] = {true};
    int axes[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_sum(t0, 1, axes);
    wf_tv *t2 = wf_broadcast(t1, 1, bc);
    wf_tv *t3 = wf_sub(t0, t2);
    wf_tv *t4 = wf_mul(t3, t3);
    wf_tv *t5 = wf_sum(t4, 1, axes);
    wf_output(f, t5);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t2), 1);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static wf_fusion *resolved_broadcast(wf_tv **t4, wf_tv **t5) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {2};
    bool bc[2] = {true, false};
    int axes[1] = {1};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t2 = wf_broadcast(t1, 2, bc);
    wf_tv *t3 = wf_mul(t0, t1);
    *t4 = wf_max(t2, 1, axes);
    *t5 = wf_add(*t4, t0);
    wf_output(f, t3);
    wf_output(f, *t5);
    wf_tv_split(*t4, 1, 4);
    return f;
}

TEST(fuzz_regress_f17_broadcast_resolved_to_an_own_axis_is_not_inlined_there) {
    wf_tv *t4, *t5;
    wf_fusion *f = resolved_broadcast(&t4, &t5);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 0);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_tv_inline_at(t4, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T4.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T4 "
              "(bS5{1}) would run in the loop of axis 0 of its consumer T5, which is exactly "
              "mapped to T4's own rS6{2}: one loop index cannot stand for both");
    wf_fusion_free(f);
}
