/*
 * test_codegen_gaps.c -- issue 20 G7: the kernel states its block size
 * (__launch_bounds__) when the block is static, and wf_compile_options
 * .fast_math spells f32 exp, log and division with the fast intrinsics (off by
 * default; the CPU executor computes the accurate values either way).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* y = exp(x) / z, n elements on blocks of b threads. */
static wf_fusion *exp_div(int64_t n, int64_t b) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *z = wf_input(f, WF_F32, 1, shape);
    wf_tv *y = wf_div(wf_unary(WF_EXP, x), z);
    wf_output(f, y);
    wf_tv_split(y, 0, b);
    wf_tv_parallelize(y, 0, WF_BIDX);
    wf_tv_parallelize(y, 1, WF_TIDX);
    wf_inline_most(f);
    return f;
}

/* Above 256 threads the bound limits registers (1024 threads: 64 each), so
   that the block launches; at 256 or fewer any register count fits and the
   signature stays plain. */
TEST(codegen_launch_bounds_from_a_static_block) {
    static const int64_t sizes[3] = {1024, 257, 256};
    for (int i = 0; i < 3; i++) {
        wf_fusion *f = exp_div(3000, sizes[i]);
        wf_kernel *k = CHECK_INTERP(f, NULL);
        if (k && i < 2) {
            char want[96];
            snprintf(want, sizeof want,
                     "extern \"C\" __global__ void __launch_bounds__(%d) weft_kernel(",
                     (int)sizes[i]);
            CHECK_HAS(wf_kernel_source(k), want);
            CHECK_NVRTC(k, 90);
        } else if (k) {
            CHECK_HAS(wf_kernel_source(k), "extern \"C\" __global__ void weft_kernel(");
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* A block extent known only at launch: no bound. */
TEST(codegen_no_launch_bounds_for_a_symbolic_block) {
    int64_t shape[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *y = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, y);
    wf_tv_parallelize(y, 0, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], -1);
        CHECK_HAS(wf_kernel_source(k), "extern \"C\" __global__ void weft_kernel(");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(codegen_fast_math_is_off_by_default_and_spells_the_intrinsics) {
    wf_fusion *f = exp_div(1000, 128);
    wf_compile_options fast = {.sm = 90, .fast_math = 1};
    wf_kernel *k0 = wf_compile(f, NULL), *k1 = wf_compile(f, &fast);
    CHECK(k0 && k1);
    if (k0 && k1) {
        const char *s0 = wf_kernel_source(k0), *s1 = wf_kernel_source(k1);
        CHECK_HAS(s0, "__device__ inline float wf_exp(float x) { return expf(x); }\n");
        CHECK_HAS(s0, "__device__ inline float wf_log(float x) { return logf(x); }\n");
        CHECK_HAS(s0, "T3[blockIdx.x * 128 + threadIdx.x] = T2[blockIdx.x * 128 + threadIdx.x] / "
                      "T1[blockIdx.x * 128 + threadIdx.x];");
        CHECK_LACKS(s0, "__fdividef");
        CHECK_HAS(s1, "__device__ inline float wf_exp(float x) { return __expf(x); }\n");
        CHECK_HAS(s1, "__device__ inline float wf_log(float x) { return __logf(x); }\n");
        CHECK_HAS(s1, "__device__ inline double wf_exp(double x) { return exp(x); }\n");
        CHECK_HAS(s1, "T3[blockIdx.x * 128 + threadIdx.x] = __fdividef(T2[blockIdx.x * 128 + "
                      "threadIdx.x], T1[blockIdx.x * 128 + threadIdx.x]);");
        CHECK_NVRTC(k1, 90);
        /* The executor runs the kernel IR: the same values from both. */
        float x[2][1000], y0[1000], y1[1000];
        for (int i = 0; i < 1000; i++) {
            x[0][i] = (float)(i % 37) / 16.0f - 1.0f;
            x[1][i] = (float)(i % 11) + 0.5f;
        }
        wf_buffer in[2] = {{x[0], WF_F32, 1, {1000}, {0}, -1}, {x[1], WF_F32, 1, {1000}, {0}, -1}};
        wf_buffer o0 = {y0, WF_F32, 1, {1000}, {0}, -1}, o1 = {y1, WF_F32, 1, {1000}, {0}, -1};
        CHECK_EQ_I64(wf_run(k0, WF_BACKEND_INTERP, in, 2, &o0, 1), WF_OK);
        CHECK_EQ_I64(wf_run(k1, WF_BACKEND_INTERP, in, 2, &o1, 1), WF_OK);
        CHECK(memcmp(y0, y1, sizeof y0) == 0);
        CHECK(y0[40] == expf(x[0][40]) / x[1][40]);
    }
    wf_kernel_free(k0);
    wf_kernel_free(k1);
    wf_fusion_free(f);
}
