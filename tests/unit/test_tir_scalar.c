/*
 * test_tir_scalar.c -- TensorIR blocks with constants, comparisons, T.if_then_else,
 * and / or / not and T.max / T.min with constants: printed (the script round-trips),
 * built through the core's scalar operands, comparisons and wf_where, compiled with
 * NVRTC, and run on the CPU executor against a reference written here, exactly.
 */
#include <math.h>

#include "harness.h"
#include "tir_sources.h"

#define N 64

/* One 1-D elementwise block over N elements, threads bound (so that it is a kernel
   of N threads); params A (in) and B (out) of the given dtypes. */
#define TIR_1D(ta, tb, value)                                                                      \
    "@T.prim_func\n"                                                                               \
    "def f(A: T.Buffer((64,), \"" ta "\"), B: T.Buffer((64,), \"" tb "\")):\n"                     \
    "    for i in range(64):\n"                                                                    \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi = T.axis.spatial(64, i)\n"                                                     \
    "            B[vi] = " value "\n"

static wf_kernel *build_bound(test_state *ts_, wf_tir *s, const char *block) {
    wf_tir_loop *l[1];
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, block), l, 1), 1);
    wf_tir_bind(s, l[0], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k)
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    return k;
}

static float a_val(int x) {
    static const float edge[] = {NAN, -0.0f, 0.0f, INFINITY, -INFINITY, 1.5f, -1.5f, 1e-30f};
    return x < 8 ? edge[x] : (float)((x * 37) % 23) * 0.25f - 3.0f;
}

static bool same(double got, double want) {
    return (got == want && signbit(got) == signbit(want)) || (isnan(got) && isnan(want));
}

/* Runs a float32 -> float32 kernel and compares with want(a). */
static void run_f32(test_state *ts_, wf_kernel *k, float (*want)(float)) {
    float a[N], b[N];
    for (int x = 0; x < N; x++)
        a[x] = a_val(x), b[x] = 12345.0f;
    wf_buffer in = {a, WF_F32, 1, {N}, {0}, -1}, out = {b, WF_F32, 1, {N}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < N; x++)
        if (!same(b[x], want(a[x])) && bad++ < 3)
            printf("  element %d: A = %g, got %g, want %g\n", x, a[x], b[x], want(a[x]));
    CHECK_EQ_I64(bad, 0);
}

static float relu_ref(float a) {
    return a > 0.0f ? a : 0.0f;
}

TEST(tir_scalar_if_then_else_relu_prints_builds_and_runs) {
    wf_tir *s = wf_tir_parse(
        TIR_1D("float32", "float32", "T.if_then_else(A[vi] > T.float32(0), A[vi], T.float32(0))"));
    CHECK_HAS(wf_tir_script(s),
              "B[vi] = T.if_then_else(A[vi] > T.float32(0.0), A[vi], T.float32(0.0))");
    wf_kernel *k = build_bound(ts_, s, "B");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "> 0.0f");
        CHECK_HAS(wf_kernel_source(k), "? ");
        run_f32(ts_, k, relu_ref);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* T.max with a constant propagates NaN (torch.maximum's rule in the core). */
static float max0_ref(float a) {
    return isnan(a) ? a : a > 0.0f ? a : 0.0f;
}

TEST(tir_scalar_max_with_constant_builds_and_propagates_nan) {
    wf_tir *s = wf_tir_parse(TIR_1D("float32", "float32", "T.max(A[vi], T.float32(0))"));
    wf_kernel *k = build_bound(ts_, s, "B");
    if (k)
        run_f32(ts_, k, max0_ref);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Literals take their partner's type: 2 * A (float) and A - 1 with bare literals;
   and / or / not of comparisons select exactly. */
static float affine_ref(float a) {
    return 2.0f * a - 1.0f;
}

static float logic_ref(float a) {
    bool in = a >= -1.0f && !(a > 2.0f);
    return in || a == -3.0f ? a * 0.5f : -a;
}

TEST(tir_scalar_bare_literals_and_logic_build_and_run) {
    wf_tir *s = wf_tir_parse(TIR_1D("float32", "float32", "2 * A[vi] - 1.0"));
    wf_kernel *k = build_bound(ts_, s, "B");
    if (k)
        run_f32(ts_, k, affine_ref);
    wf_kernel_free(k);
    wf_tir_free(s);
    s = wf_tir_parse(TIR_1D("float32", "float32",
                            "T.if_then_else(A[vi] >= T.float32(-1) and not A[vi] > T.float32(2) "
                            "or A[vi] == T.float32(-3), A[vi] * T.float32(0.5), T.float32(0) - "
                            "A[vi])"));
    k = build_bound(ts_, s, "B");
    if (k)
        run_f32(ts_, k, logic_ref);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* A comparison stored in a bool buffer; an integer block with integer literals. */
TEST(tir_scalar_bool_and_integer_blocks_are_exact) {
    wf_tir *s = wf_tir_parse(TIR_1D("float32", "bool", "A[vi] < T.float32(1)"));
    wf_kernel *k = build_bound(ts_, s, "B");
    if (k) {
        float a[N];
        uint8_t b[N];
        for (int x = 0; x < N; x++)
            a[x] = a_val(x), b[x] = 7;
        wf_buffer in = {a, WF_F32, 1, {N}, {0}, -1}, out = {b, WF_BOOL, 1, {N}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < N; x++)
            bad += b[x] != (a[x] < 1.0f);
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);

    s = wf_tir_parse(TIR_1D("int8", "int8", "T.max(A[vi], -5) * 3 + T.int8(1)"));
    k = build_bound(ts_, s, "B");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "((char)-5)");
        int8_t a[N], b[N];
        for (int x = 0; x < N; x++)
            a[x] = (int8_t)(x * 13 - 100), b[x] = 0;
        wf_buffer in = {a, WF_I8, 1, {N}, {0}, -1}, out = {b, WF_I8, 1, {N}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < N; x++) {
            int m = a[x] > -5 ? a[x] : -5;
            bad += b[x] != (int8_t)(uint8_t)(m * 3 + 1); /* wraps in 8 bits */
        }
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* float16 data with a float16 constant: the constant is rounded to half, the
   product computed in f32 and rounded to half once. */
TEST(tir_scalar_float16_constant) {
    wf_tir *s = wf_tir_parse(TIR_1D("float16", "float16", "A[vi] * T.float16(0.1)"));
    wf_kernel *k = build_bound(ts_, s, "B");
    if (k)
        CHECK_HAS(wf_kernel_source(k), "* 0.0999755859f");
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* seed-style add_relu: D = A + B * 2 inlined into C = max(D, 0). */
TEST(tir_scalar_add_relu_with_compute_inline_runs) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_compute_inline(s, wf_tir_get_block(s, "D"));
    wf_tir_loop *l[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 2), 2);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_bind(s, l[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
        static float a[64 * 32], b[64 * 32], c[64 * 32];
        for (int x = 0; x < 64 * 32; x++)
            a[x] = a_val(x % N), b[x] = (float)(x % 9) * 0.75f - 3.0f, c[x] = 0;
        wf_buffer in[2] = {{a, WF_F32, 2, {64, 32}, {0}, -1}, {b, WF_F32, 2, {64, 32}, {0}, -1}};
        wf_buffer out = {c, WF_F32, 2, {64, 32}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < 64 * 32; x++) {
            float d = a[x] + b[x] * 2.0f;
            bad += !same(c[x], isnan(d) ? d : d > 0.0f ? d : 0.0f);
        }
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_scalar_refusals_name_the_block) {
    wf_tir *s = wf_tir_parse(TIR_1D("float32", "float32", "T.float32(1)"));
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: block \"B\" stores a constant (its "
                               "value reads no buffer); the core's ops need a tensor operand");
    wf_tir_free(s);
    s = wf_tir_parse(TIR_1D("float32", "float32", "A[vi] % T.float32(2)"));
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: A[vi] % T.float32(2.0) in block \"B\" (the core "
              "computes a value from loads, constants, + - * /, comparisons, and / or / not, "
              "T.max, T.min, T.exp, T.sqrt, T.sigmoid, T.tanh, T.if_then_else and casts; not from "
              "//, % or an "
              "iter's value)");
    wf_tir_free(s);
    s = wf_tir_parse(TIR_1D("float32", "float32", "T.if_then_else(A[vi], A[vi], T.float32(0))"));
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_HAS(wf_tir_error(s), "the condition T0 is float, not bool");
    wf_tir_free(s);
}

/* A vectorized computing block (nvFuser's scheme): the value is computed in
   registers over the vector's elements (unrolled) and stored by one 16-byte vector
   copy; a vectorized loop that is not the store's contiguous axis is refused. */
#define TIR_VEC                                                                                    \
    "@T.prim_func\n"                                                                               \
    "def f(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\")):\n"             \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            B[vi, vj] = T.max(A[vi, vj] * T.float32(2), T.float32(-1))\n"

TEST(tir_scalar_vectorized_compute_block_stores_one_vector) {
    wf_tir *s = wf_tir_parse(TIR_VEC);
    wf_tir_loop *l[2], *jj[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    int64_t f4[2] = {-1, 4};
    wf_tir_split(s, l[1], 2, f4, jj);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_bind(s, jj[0], "threadIdx.x");
    wf_tir_vectorize(s, jj[1]);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "wf_vec_copy<float, 4>(&T3[blockIdx.x * 32 + threadIdx.x * 4], &T2[0]);");
        CHECK_HAS(src, "#pragma unroll");
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 8);
        static float a[64 * 32], b[64 * 32];
        for (int x = 0; x < 64 * 32; x++)
            a[x] = a_val(x % N), b[x] = 0;
        wf_buffer in = {a, WF_F32, 2, {64, 32}, {0}, -1}, out = {b, WF_F32, 2, {64, 32}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < 64 * 32; x++) {
            float v = a[x] * 2.0f;
            bad += !same(b[x], isnan(v) ? v : v > -1.0f ? v : -1.0f);
        }
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);

    s = wf_tir_parse(TIR_VEC);
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    wf_tir_split(s, l[0], 2, f4, jj);
    wf_tir_loop *r[3] = {jj[0], l[1], jj[1]};
    wf_tir_reorder(s, 3, r);
    wf_tir_vectorize(s, jj[1]);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "build: T3: the vectorized axis of T3 must be the innermost, contiguous "
              "axis of T3's allocation, but T3's elements along it are not adjacent");
    wf_tir_free(s);
}
