/*
 * test_api_schedule.c -- schedule rules of the public API (issue 9): one rule
 * for every transform of a parallelized axis (split, merge and swizzle are
 * refused, naming the tensor, the axis and its parallel type), and a failed
 * compile leaves the fusion as it was: after wf_fusion_clear_error the user
 * fixes the schedule, compiles again and gets a correct kernel.
 */
#include "harness.h"

static void check_error(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

/* [64, 128] f32 -> neg -> abs -> out */
static wf_fusion *neg_abs(wf_tv **out) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    *out = wf_unary(WF_ABS, wf_unary(WF_NEG, wf_input(f, WF_F32, 2, shape)));
    wf_output(f, *out);
    return f;
}

/* split 32, TIDx inner, merge: the merged loop used to come out serial. */
TEST(api_merge_of_a_parallelized_axis_is_refused) {
    wf_tv *out;
    wf_fusion *f = neg_abs(&out);
    wf_tv_split(out, 1, 32);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_tv_merge(out, 1);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2.merge: axis 2 is already parallelized on TIDx; merge before parallelizing");
    CHECK_EQ_I64(wf_tv_ndim(out), 3);
    wf_fusion_clear_error(f);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(api_merge_into_a_parallelized_outer_axis_is_refused) {
    wf_tv *out;
    wf_fusion *f = neg_abs(&out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_merge(out, 0);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2.merge: axis 0 is already parallelized on BIDx; merge before parallelizing");
    wf_fusion_free(f);
}

TEST(api_swizzle_of_a_parallelized_axis_is_refused) {
    wf_tv *out;
    wf_fusion *f = neg_abs(&out);
    wf_tv_split(out, 1, 32);
    wf_tv_split(out, 0, 32);
    wf_tv_parallelize(out, 3, WF_TIDX);
    wf_tv_swizzle(out, WF_SWIZZLE_XOR, 1, 3);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2.swizzle: axis 3 is already parallelized on TIDx; swizzle before "
                "parallelizing");
    wf_fusion_free(f);
}

TEST(api_split_outer_and_unrolled_axes_follow_the_same_rule) {
    wf_tv *out;
    wf_fusion *f = neg_abs(&out);
    wf_tv_parallelize(out, 1, WF_UNROLL);
    wf_tv_split_outer(out, 1, 4);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2.split_outer: axis 1 is already parallelized on UR; split_outer before "
                "parallelizing");
    wf_fusion_free(f);
}

/* The compile itself fails (2048 threads per block), the user clears the
   error, makes the axis serial again, splits it, schedules the rest like it
   and compiles: the kernel is correct. */
TEST(api_failed_compile_then_fixed_schedule_compiles_and_runs) {
    int64_t shape[2] = {64, 2048};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_unary(WF_ABS, wf_unary(WF_NEG, wf_input(f, WF_F32, 2, shape)));
    wf_output(f, out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_HAS(wf_fusion_error(f),
              "invalid number of threads: the block needs 2048 x 1 x 1 = 2048 threads");
    wf_fusion_clear_error(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_tv_parallelize(out, 1, WF_SERIAL);
    wf_tv_split(out, 1, 256);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_propagate_transforms(out);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = CHECK_INTERP(f, NULL); /* exact against the reference */
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 256);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Inlining can be undone: moving every position back to 0 frees the axes
   again, so a schedule can be fixed after inline_most. */
TEST(api_inline_at_0_undoes_inlining_so_axes_can_be_transformed) {
    wf_tv *out;
    wf_fusion *f = neg_abs(&out);
    wf_tv *mid = wf_tv_definition_input(out, 0);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 2);
    wf_tv_split(out, 1, 32);
    CHECK_STR(wf_fusion_error(f), "T2.split: axis 1 is left of the compute-at position 2; "
                                  "inlined axes cannot be transformed");
    wf_fusion_clear_error(f);
    wf_tv_inline_at(mid, 0);
    wf_tv_inline_at(out, 0);
    wf_tv_split(out, 1, 32);
    CHECK_STR(wf_fusion_error(f), "");
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_propagate_transforms(out);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}
