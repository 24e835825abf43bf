/*
 * test_ci_messages.c -- review findings on error messages and statuses, each
 * pinned exactly: a dtype error names the call that got it, counts of one
 * are singular, wf_time names the arguments it prints, operands whose
 * extents disagree only at run time are the caller's buffers' fault
 * (WF_ERR_ARG), and a second vectorized axis is refused as not innermost
 * (the "only one is allowed" branch behind it could never be reached and is
 * gone).
 */
#include "harness.h"

/* out = a + b over two 1-D f32 inputs of symbolic extent. */
static wf_fusion *add_symbolic(void) {
    int64_t s[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, s), *b = wf_input(f, WF_F32, 1, s);
    wf_output(f, wf_add(a, b));
    return f;
}

TEST(ci_unknown_dtype_names_the_call_that_got_it) {
    int64_t shape[1] = {4};
    wf_fusion *f = wf_fusion_new();
    CHECK(wf_input(f, (wf_dtype)42, 1, shape) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_ARG);
    CHECK_STR(wf_fusion_error(f),
              "wf_input: unknown dtype 42; a dtype is one of WF_F32 ... WF_BOOL (0 to 9)");
    wf_fusion_clear_error(f);
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    CHECK(wf_cast(x, (wf_dtype)-1) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "wf_cast: unknown dtype -1; a dtype is one of WF_F32 ... WF_BOOL (0 to 9)");
    wf_fusion_free(f);
}

TEST(ci_buffer_counts_of_one_are_singular) {
    wf_fusion *f = add_symbolic();
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[4] = {0}, y[4] = {0}, z[4];
    wf_buffer in[2] = {{x, WF_F32, 1, {4}, {0}, -1}, {y, WF_F32, 1, {4}, {0}, -1}};
    wf_buffer out = {z, WF_F32, 1, {4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k),
              "the kernel takes 2 inputs and 1 output, but 1 and 1 were given");
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, NULL, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_run: the output array is NULL but nout is 1; pass an "
                                    "array of 1 output buffer (the kernel takes 1)");
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, NULL, 2, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_run: the input array is NULL but nin is 2; pass an array "
                                    "of 2 input buffers (the kernel takes 2)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(ci_one_loop_axis_is_singular) {
    int64_t shape[1] = {4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, out);
    wf_tv_split(out, 1, 2);
    CHECK_STR(wf_fusion_error(f), "T1.split: axis 1 is out of range; T1 has 1 loop axis");
    wf_fusion_clear_error(f);
    wf_tv_inline_at(out, 3);
    CHECK_STR(
        wf_fusion_error(f),
        "T1.inline_at: position 3 is out of range; T1 has 1 loop axis, so positions are 0..1");
    wf_fusion_free(f);
}

TEST(ci_time_message_names_the_values_it_prints) {
    wf_fusion *f = add_symbolic();
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    double us;
    CHECK_EQ_I64(wf_time(k, NULL, 0, NULL, 0, 0, 0, &us), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_time: need warmup >= 0, reps > 0 and a result pointer "
                                    "(got warmup 0, reps 0, a result pointer)");
    CHECK_EQ_I64(wf_time(k, NULL, 0, NULL, 0, -2, 5, NULL), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_time: need warmup >= 0, reps > 0 and a result pointer "
                                    "(got warmup -2, reps 5, a NULL result pointer)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The buffers disagree, not the schedule: the same status as any other
   buffer that does not fit the fusion, on both backends' shared binding. */
TEST(ci_operand_extents_that_disagree_at_run_time_are_an_argument_error) {
    wf_fusion *f = add_symbolic();
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[4] = {1, 2, 3, 4}, y[3] = {0}, z[4];
    wf_buffer in[2] = {{x, WF_F32, 1, {4}, {0}, -1}, {y, WF_F32, 1, {3}, {0}, -1}};
    wf_buffer out = {z, WF_F32, 1, {4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "input 0 (T0) has extent 4 in dim 0 but input 1 (T1) has 3 "
                                    "in dim 0; they must be equal, as T0 and T1 are operands of "
                                    "T2 (its dim 0)");
    /* Agreeing buffers still run, and exactly. */
    float y4[4] = {10, 20, 30, 40};
    in[1] = (wf_buffer){y4, WF_F32, 1, {4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_OK);
    CHECK(z[0] == 11 && z[1] == 22 && z[2] == 33 && z[3] == 44);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A schedule that does not fit the sizes stays WF_ERR_SCHEDULE: a
   vectorized split whose factor does not divide the symbolic extent. */
TEST(ci_schedule_checks_at_run_time_stay_schedule_errors) {
    int64_t s[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, s);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_split(b, 0, 4);
    wf_tv_parallelize(b, 1, WF_VECTORIZE);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[6] = {0}, y[6];
    wf_buffer in = {x, WF_F32, 1, {6}, {0}, -1}, out = {y, WF_F32, 1, {6}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_SCHEDULE);
    CHECK_HAS(wf_last_run_error(k), "T1");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(ci_a_second_vectorized_axis_is_refused_as_not_innermost) {
    int64_t s[2] = {8, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, s);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_VECTORIZE);
    wf_tv_parallelize(b, 1, WF_VECTORIZE);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T1: the vectorized axis 0 must be the innermost loop axis (axis 1)");
    wf_fusion_free(f);
}
