/*
 * test_fuzz_regress_f13.c -- fuzzer class F13 (tests/fuzz/known.h): a
 * reduction's reader found a register its producer never wrote.
 *
 * A non-divisible split leaves cells past the end of the split axis: the
 * steps of an rfactor producer for those cells are all predicated off, and
 * so was its init (it had the same bounds predicate). Its consumer -- a
 * block reduction, which reads in every thread of the block, or a serial
 * reduction over the producer's iteration axis -- then read an unwritten
 * register: on a GPU an uninitialized value added into the result, on the
 * executor "read of T2[0] (local memory), which was never written". A
 * register accumulator is now initialized in every thread (its bounds
 * predicate dropped), so those cells hold the op's initial value.
 *
 * Each test runs the kernel on the executor with integer-valued inputs and
 * compares with the exact result computed here; the harness's COMPILE also
 * compiles it with NVRTC for sm_90a.
 */
#include "harness.h"

#include <math.h>

/* Run k on the executor with one f32 input of shape [rows, cols] and one f32
   scalar output; returns the output (NAN after failing the test). */
static float run_scalar(test_state *ts_, wf_kernel *k, float *x, int ndim, const int64_t *shape) {
    float out = NAN;
    wf_buffer in = {x, WF_F32, ndim, {0}, {0}, -1};
    for (int d = 0; d < ndim; d++)
        in.shape[d] = shape[d];
    wf_buffer o = {&out, WF_F32, 0, {0}, {0}, -1};
    wf_status st = wf_run(k, WF_BACKEND_INTERP, &in, 1, &o, 1);
    if (st != WF_OK)
        printf("  run: %s\n", wf_last_run_error(k));
    CHECK_EQ_I64(st, WF_OK);
    return out;
}

/* The fuzzer's case (fuzz -s 1 -c 7): a sum of [3, 32] over both dims, the
   inner one split by 64 on threadIdx.x and rfactored. Threads 32..63 had no
   partial T2 but took part in the block reduction. */
TEST(fuzz_regress_f13_rfactor_partial_past_split_in_block_reduction) {
    int64_t shape[2] = {3, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(x, 2, (int[]){0, 1});
    wf_output(f, s);
    wf_tv_split(s, 1, 64); /* [r3, r1, r64 (32 valid)] */
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, (int[]){1});
    CHECK(p != NULL);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 64);
    /* every thread starts its partial at 0; only the first 32 add */
    CHECK_HAS(wf_kernel_source(k), "    T2[i0] = (float)0;\n    if (threadIdx.x < 32) {\n");
    float xs[96];
    double want = 0;
    for (int i = 0; i < 96; i++) {
        xs[i] = (float)(i % 13) - 5.0f;
        want += xs[i];
    }
    CHECK(run_scalar(ts_, k, xs, 2, shape) == (float)want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same with max over negative values: the threads past the split must
   contribute -inf (the op's initial value), not 0 or anything else. */
TEST(fuzz_regress_f13_rfactor_max_of_negatives_past_split) {
    int64_t shape[2] = {2, 20};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = wf_max(x, 2, (int[]){0, 1});
    wf_output(f, m);
    wf_tv_split(m, 1, 32); /* [r2, r1, r32 (20 valid)] */
    wf_tv_parallelize(m, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(m, 1, (int[]){1});
    CHECK(p != NULL);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    float xs[40];
    float want = -INFINITY;
    for (int i = 0; i < 40; i++) {
        xs[i] = -100.0f - (float)((i * 7) % 40);
        want = xs[i] > want ? xs[i] : want;
    }
    CHECK(want == -100.0f);
    CHECK(run_scalar(ts_, k, xs, 2, shape) == want);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* No thread axis: a sum of 5 elements split by 8 and rfactored on the outer
   axis; the consumer reduces the producer's 8 partials serially, and
   partials 5..7 had no step at all. */
TEST(fuzz_regress_f13_rfactor_partials_past_split_in_serial_reduction) {
    int64_t shape[1] = {5};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *s = wf_sum(x, 1, (int[]){0});
    wf_output(f, s);
    wf_tv_split(s, 0, 8); /* [r1, r8 (5 valid)] */
    wf_tv *p = wf_tv_rfactor(s, 1, (int[]){0});
    CHECK(p != NULL);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    float xs[5] = {3, -1, 4, -1, 5};
    CHECK(run_scalar(ts_, k, xs, 1, shape) == 10.0f);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The fix is general: the harness's random-input comparison (poisoned
   outputs, bit-for-bit reference) on rows whose reduction is split past the
   end onto two thread dims (7 in 1 x 4 x 2, threadIdx.y and threadIdx.x):
   thread (1, 3) has no partial. */
TEST(fuzz_regress_f13_rfactor_past_split_on_tidy_tidx_matches_reference) {
    int64_t shape[2] = {3, 7};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(x, 1, (int[]){1});
    wf_output(f, s);
    wf_tv_split(s, 1, 8); /* [i3, r1, r8 (7 valid)] */
    wf_tv_split(s, 2, 2); /* [i3, r1, r4, r2] */
    wf_tv_parallelize(s, 2, WF_TIDY);
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv *p1 = wf_tv_rfactor(s, 1, (int[]){1});
    CHECK(p1 != NULL);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The accumulator itself (fuzz -s 1 -c 792): a max on a thread loop of 2 in
   a launch of 7 threads (a pointwise op of the same kernel runs on 7). A
   block reduction combines its accumulator with the block's result in every
   thread, and threads 2..6 had skipped the register accumulator's init
   (the loop's coverage predicate). */
TEST(fuzz_regress_f13_block_reduction_accumulator_past_thread_loop) {
    int64_t shape[1] = {7};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *y = wf_add(x, x);
    wf_tv *m = wf_max(x, 1, (int[]){0});
    wf_output(f, y);
    wf_output(f, wf_add(m, m)); /* m itself in registers */
    wf_tv_parallelize(y, 0, WF_TIDX);
    wf_tv_split(m, 0, 2); /* [r4, r2 (7 = 4 x 2 - 1)] */
    wf_tv_parallelize(m, 1, WF_TIDX);
    CHECK(wf_tv_rfactor(m, 1, (int[]){0}) != NULL);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 7);
    float xs[7] = {-9, -3, -8, -12, -4, -7, -5}, ys[7], twice_max = NAN;
    wf_buffer in = {xs, WF_F32, 1, {7}, {0}, -1};
    wf_buffer out[2] = {{ys, WF_F32, 1, {7}, {0}, -1}, {&twice_max, WF_F32, 0, {0}, {0}, -1}};
    wf_status st = wf_run(k, WF_BACKEND_INTERP, &in, 1, out, 2);
    if (st != WF_OK)
        printf("  run: %s\n", wf_last_run_error(k));
    CHECK_EQ_I64(st, WF_OK);
    CHECK(twice_max == -6.0f);
    for (int i = 0; i < 7; i++)
        CHECK(ys[i] == 2 * xs[i]);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
