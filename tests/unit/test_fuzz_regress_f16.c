/*
 * test_fuzz_regress_f16.c -- a sum or product of a 16-bit float tensor
 * accumulates in float and rounds once into its 16-bit output (fuzzer class
 * F16, tests/fuzz/known.h).
 *
 * Before the fix the accumulator of a serial reduction was its output
 * buffer: T1[i] = T1[i] + x in bf16, rounding at every step, so a bf16 sum
 * of 1024 ones stopped at 256 (256 + 1 rounds back to 256). Now the partial
 * result lives in a float register (wf_acc<k>) from the init before the
 * outermost serial reduction loop to a store after it, in the generated
 * CUDA and in the executor alike. Each expected value below is computed
 * here, in float, and rounded once; each test also checks that rounding at
 * every step would give another value, so that it fails without the fix.
 */
#include "harness.h"

#include <math.h>
#include <string.h>

/* float -> bf16 / f16 bits, rounding to nearest even (finite, normal values). */
static uint16_t to_bf16(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static float from_bf16(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static uint16_t to_f16(float v) { /* normal f16 range only */
    int e;
    float m = frexpf(v, &e);           /* v = m * 2^e, 0.5 <= m < 1 */
    float q = nearbyintf(m * 2048.0f); /* 11 significant bits, ties to even */
    if (q == 2048.0f) {
        q = 1024.0f;
        e++;
    }
    return (uint16_t)(((e + 14) << 10) | ((int)q - 1024));
}

static float from_f16(uint16_t h) {
    return ldexpf((float)(1024 + (h & 0x3ff)), ((h >> 10) & 0x1f) - 25);
}

static float round16(wf_dtype t, float v) {
    return t == WF_BF16 ? from_bf16(to_bf16(v)) : from_f16(to_f16(v));
}

static uint16_t bits16(wf_dtype t, float v) {
    return t == WF_BF16 ? to_bf16(v) : to_f16(v);
}

/* Runs k on in (rows x cols, 16-bit) and returns out (n values) as floats. */
static bool run16(test_state *ts_, wf_kernel *k, wf_dtype t, const uint16_t *in, int64_t rows,
                  int64_t cols, float *out, int64_t n) {
    uint16_t ob[64];
    wf_buffer ib = {(void *)in, t, 2, {rows, cols}, {0}, -1};
    wf_buffer obuf = {ob, t, 1, {n}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &obuf, 1), WF_OK);
    for (int64_t i = 0; i < n; i++)
        out[i] = t == WF_BF16 ? from_bf16(ob[i]) : from_f16(ob[i]);
    return true;
}

/* Row sums of [4, n] ones times (row + 1), serial: 1024 ones sum to 1024 in
   float; rounded at every step, bf16 stops at 256 and f16 (2048 of them)
   at 2048. */
static void row_sums(test_state *ts_, wf_dtype t, int64_t n) {
    int64_t shape[2] = {4, n};
    static uint16_t in[4 * 4096];
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, t, 2, shape), 1, (int[]){1});
    wf_output(f, s);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_HAS(wf_kernel_source(k), "  float wf_acc1;\n");
    CHECK_HAS(wf_kernel_source(k), "wf_acc1 = wf_radd(wf_acc1, (float)T0[");
    for (int r = 0; r < 4; r++)
        for (int64_t i = 0; i < n; i++)
            in[r * n + i] = bits16(t, (float)(r + 1));
    float out[4], step = 0;
    for (int64_t i = 0; i < n; i++) /* what rounding every step gives for row 0 */
        step = round16(t, step + 1.0f);
    CHECK(step < (float)n);
    if (run16(ts_, k, t, in, 4, n, out, 4))
        for (int r = 0; r < 4; r++)
            CHECK(out[r] == round16(t, (float)(n * (r + 1))));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(fuzz_regress_f16_bf16_row_sum_accumulates_in_float) {
    row_sums(ts_, WF_BF16, 1024);
}

TEST(fuzz_regress_f16_f16_row_sum_accumulates_in_float) {
    row_sums(ts_, WF_F16, 4096);
}

/* The fuzzer's shape (fuzz -s 5 -c 5722): the reduction axis is the outer
   loop and the kept axis runs on a thread index inside it, so each thread
   keeps one register across the serial loop. */
TEST(fuzz_regress_f16_outer_sum_with_threads_inside_the_reduction_loop) {
    int64_t shape[2] = {1024, 8};
    static uint16_t in[1024 * 8];
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_BF16, 2, shape), 1, (int[]){0}); /* [r1024, i8] */
    wf_output(f, s);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    for (int i = 0; i < 1024; i++)
        for (int j = 0; j < 8; j++)
            in[i * 8 + j] = to_bf16((float)(j + 1) * 0.5f);
    float out[8];
    if (run16(ts_, k, WF_BF16, in, 1024, 8, out, 8))
        for (int j = 0; j < 8; j++)
            CHECK(out[j] == round16(WF_BF16, 512.0f * (float)(j + 1)));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A product: 64 factors of 1 + 2^-7 in float, rounded once, differs from
   the product rounded to bf16 at every step. */
TEST(fuzz_regress_f16_bf16_product_rounds_once) {
    int64_t shape[2] = {2, 64};
    uint16_t in[128];
    wf_fusion *f = wf_fusion_new();
    wf_tv *p = wf_reduce(WF_MUL, wf_input(f, WF_BF16, 2, shape), 1, (int[]){1});
    wf_output(f, p);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    float x = 1.0f + 1.0f / 128, full = 1, step = 1, out[2];
    for (int i = 0; i < 128; i++)
        in[i] = to_bf16(x);
    for (int i = 0; i < 64; i++) {
        full *= x;
        step = round16(WF_BF16, step * x);
    }
    CHECK(round16(WF_BF16, full) != step);
    if (run16(ts_, k, WF_BF16, in, 2, 64, out, 2)) {
        CHECK(out[0] == round16(WF_BF16, full));
        CHECK(out[1] == round16(WF_BF16, full));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A serial loop around a block reduction: each block result (32 values,
   exact in float) is folded into the register, not into the bf16 output;
   rows of 1024 values 1 + 3 * 2^-7 sum to 1048, which bf16 holds exactly. */
TEST(fuzz_regress_f16_serial_loop_around_a_block_reduction) {
    int64_t shape[2] = {4, 1024};
    static uint16_t in[4 * 1024];
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_BF16, 2, shape), 1, (int[]){1});
    wf_output(f, s);
    wf_tv_split(s, 1, 32); /* [i4, r32, r32] */
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_HAS(wf_kernel_source(k), "wf_acc1 = wf_radd(wf_acc1, wf_r);");
    float x = 1.0f + 3.0f / 128, step = 0, out[4];
    for (int i = 0; i < 4 * 1024; i++)
        in[i] = to_bf16(x);
    for (int i = 0; i < 32; i++)
        step = round16(WF_BF16, step + 32 * x);
    CHECK(step != 1048.0f);
    if (run16(ts_, k, WF_BF16, in, 4, 1024, out, 4))
        for (int r = 0; r < 4; r++)
            CHECK(out[r] == 1048.0f);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A float sum into a fusion output accumulates in a float register too
   (issue 20, G4), stored once: the output is never read. */
TEST(fuzz_regress_f16_f32_sum_accumulates_in_a_float_register) {
    int64_t shape[2] = {4, 16};
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_sum(wf_input(f, WF_F32, 2, shape), 1, (int[]){1}));
    wf_kernel *k = COMPILE(f); /* compiled with NVRTC */
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "  float wf_acc1;\n");
        CHECK_LACKS(wf_kernel_source(k), "(float)T1[");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A register holds one partial result per thread: a serial iteration loop
   inside the reduction loop would need an array of them, which is not
   supported yet, so the compile refuses it and says how to reschedule. */
TEST(fuzz_regress_f16_serial_iteration_loop_inside_the_reduction_is_refused) {
    int64_t shape[2] = {1024, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_BF16, 2, shape), 1, (int[]){0}); /* [r1024, i8] */
    wf_output(f, s);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "not supported yet: T1, a bf16 sum or product, accumulates in float registers, "
              "one per thread, but its loop iS3{8} iterates serially inside its reduction loop "
              "rS2{1024}; reorder the reduction axis rS2{1024} inside it, or parallelize iS3{8} "
              "on a thread or block dimension");
    wf_fusion_free(f);
}

/* F17 class "iteration x reduction merge" (fuzz -s 6 -c 41786, -s 5 -c
   22387, -s 2 -c 49827 ...): a merge of an iteration and a reduction axis
   is a reduction axis over both, so the kernel reduced across the output's
   elements (one init, one write to the last index, or a grid reduction
   over every block): wrong values or unwritten outputs. Refused now, also
   where the reduction axis has extent 1 (fuzz -s 5 -c 22679). */
static void check_mixed_merge(test_state *ts_, int64_t rows, int64_t cols, const char *msg) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 2, shape), 1, (int[]){1}); /* [iS, rS] */
    wf_output(f, m);
    wf_tv_merge(m, 0);
    if (cols > 1)
        wf_tv_parallelize(m, 0, WF_BIDY);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_fusion_free(f);
}

TEST(fuzz_regress_f17_merge_of_iteration_and_reduction_axes_is_refused) {
    check_mixed_merge(ts_, 16, 8,
                      "not supported yet: T1's reduction loop axis rblockIdx.y4{128} is made from "
                      "the iteration axis iS2{16} as well as a reduction axis, so it would reduce "
                      "across the output's elements; merge reduction axes only with reduction "
                      "axes (directly or by propagate_transforms from another tensor)");
    check_mixed_merge(ts_, 4, 1,
                      "not supported yet: T1's reduction loop axis rS4{4} is made from the "
                      "iteration axis iS2{4} as well as a reduction axis, so it would reduce "
                      "across the output's elements; merge reduction axes only with reduction "
                      "axes (directly or by propagate_transforms from another tensor)");
}
