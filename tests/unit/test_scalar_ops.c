/*
 * test_scalar_ops.c -- scalar constants (wf_full), the comparisons and wf_where,
 * and NaN-propagating max / min: exact outputs on the CPU executor against a
 * reference written here (per dtype), PyTorch's type promotion, the printed math,
 * the CUDA literals, and the refusals. Every kernel is also compiled by NVRTC
 * (harness_compile) and, in the last test, run as host C++ (the host-CUDA
 * oracle) against the executor, so that the CUDA text itself is checked.
 */
#include "harness.h"
#include "hostcuda/hostcuda.h"

#include <math.h>
#include <stdlib.h>

#include "base/half.h"

#define SN 8 /* elements per tensor */

/* ---- buffers: values written and read as doubles, in any dtype ---- */

static void sput(wf_dtype t, void *p, int i, double v) {
    switch (t) {
    case WF_F32:
        ((float *)p)[i] = (float)v;
        break;
    case WF_F16:
        ((uint16_t *)p)[i] = float_to_half((float)v);
        break;
    case WF_BF16:
        ((uint16_t *)p)[i] = float_to_bf16((float)v);
        break;
    case WF_F64:
        ((double *)p)[i] = v;
        break;
    case WF_I8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case WF_I16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case WF_I32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case WF_I64:
        ((int64_t *)p)[i] = (int64_t)v;
        break;
    case WF_U8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case WF_BOOL:
        ((uint8_t *)p)[i] = v != 0;
        break;
    }
}

static double sget(wf_dtype t, const void *p, int i) {
    switch (t) {
    case WF_F32:
        return ((const float *)p)[i];
    case WF_F16:
        return half_to_float(((const uint16_t *)p)[i]);
    case WF_BF16:
        return bf16_to_float(((const uint16_t *)p)[i]);
    case WF_F64:
        return ((const double *)p)[i];
    case WF_I8:
        return ((const int8_t *)p)[i];
    case WF_I16:
        return ((const int16_t *)p)[i];
    case WF_I32:
        return ((const int32_t *)p)[i];
    case WF_I64:
        return (double)((const int64_t *)p)[i];
    case WF_U8:
    case WF_BOOL:
        return ((const uint8_t *)p)[i];
    }
    return 0;
}

/* A value rounded to t as the output store does (exact for the values used). */
static double round_t(wf_dtype t, double v) {
    double r[1];
    unsigned char buf[8];
    sput(t, buf, 0, v);
    r[0] = sget(t, buf, 0);
    return r[0];
}

typedef struct {
    unsigned char data[SN * 8];
    wf_buffer b;
} sbuf_t;

static void sbuf_init(sbuf_t *s, wf_dtype t, const double *v) {
    memset(s->data, 0x5a, sizeof s->data);
    s->b = (wf_buffer){s->data, t, 1, {SN}, {0}, -1};
    for (int i = 0; v && i < SN; i++)
        sput(t, s->data, i, v[i]);
}

/* The fusion's one output, parallelized over threads, everything inlined. */
static void schedule(wf_fusion *f, wf_tv *out) {
    wf_output(f, out);
    wf_inline_most(f);
    wf_tv_parallelize(out, 0, WF_TIDX);
}

/* Compile (and NVRTC-check), run on the executor; false after failing the test. */
static bool run(test_state *ts_, wf_fusion *f, sbuf_t *in, int nin, sbuf_t *out) {
    wf_kernel *k = COMPILE(f);
    if (!k)
        return false;
    wf_buffer ib[3];
    for (int i = 0; i < nin; i++)
        ib[i] = in[i].b;
    wf_status st = wf_run(k, WF_BACKEND_INTERP, ib, nin, &out->b, 1);
    if (st != WF_OK)
        printf("  run: %s\n", wf_last_run_error(k));
    CHECK_EQ_I64(st, WF_OK);
    wf_kernel_free(k);
    return st == WF_OK;
}

/* Exact equality, NaN equal to NaN. */
#define CHECK_VAL(got, want, what, i)                                                              \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!(g_ == w_ || (isnan(g_) && isnan(w_))) || signbit(g_) != signbit(w_)) {               \
            printf("  %s:%d: %s element %d: got %.17g, want %.17g\n", __FILE__, __LINE__, what, i, \
                   g_, w_);                                                                        \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

static const char *const tname[] = {"f32", "f16", "bf16", "f64", "i8",
                                    "i16", "i32", "i64",  "u8",  "bool"};

/* ---- scalar operands in every dtype ---- */

/* x (dtype t) op full(t, 3) and full(t, 3) - x, for add / sub / max / lt, against
   the reference computed here from the stored inputs. */
static void scalar_ops_in(test_state *ts_, wf_dtype t) {
    static const double xs[SN] = {0, 1, -1, 2, 5, -7, 100, 3};
    const wf_binary_op ops[] = {WF_ADD, WF_SUB, WF_MAX, WF_LT};
    double c = t == WF_BOOL ? 1 : 3;
    for (int o = 0; o < 4; o++) {
        bool left = o == 1; /* the scalar on the left: c - x */
        int64_t shape[1] = {SN};
        wf_fusion *f = wf_fusion_new();
        wf_tv *x = wf_input(f, t, 1, shape), *s = wf_full(f, t, c);
        wf_tv *y = left ? wf_binary(ops[o], s, x) : wf_binary(ops[o], x, s);
        CHECK(y != NULL);
        if (!y) {
            printf("  %s: %s\n", tname[t], wf_fusion_error(f));
            wf_fusion_free(f);
            return;
        }
        wf_dtype od = ops[o] == WF_LT ? WF_BOOL : t;
        schedule(f, y);
        sbuf_t in, out;
        sbuf_init(&in, t, xs);
        sbuf_init(&out, od, NULL);
        if (run(ts_, f, &in, 1, &out))
            for (int i = 0; i < SN; i++) {
                double a = sget(t, in.data, i), w;
                switch (ops[o]) {
                case WF_ADD:
                    w = a + c;
                    break;
                case WF_SUB:
                    w = c - a;
                    break;
                case WF_MAX:
                    w = a > c ? a : c;
                    break;
                default:
                    w = a < c;
                    break;
                }
                char what[32];
                snprintf(what, sizeof what, "%s op %d", tname[t], o);
                CHECK_VAL(sget(od, out.data, i), round_t(od, w), what, i);
            }
        wf_fusion_free(f);
    }
}

TEST(scalar_operand_in_every_dtype_add_sub_max_lt_exact_on_the_executor) {
    for (int t = WF_F32; t <= WF_BOOL; t++)
        scalar_ops_in(ts_, (wf_dtype)t);
}

/* ---- the printed math and the CUDA literals ---- */

TEST(scalar_operand_prints_as_its_given_value_and_type_in_the_math) {
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F16, 1, shape);
    wf_tv *b = wf_binary(WF_MUL, a, wf_full(f, WF_F32, 2));
    wf_tv *c = wf_binary(WF_GT, b, wf_full_int(f, WF_I64, -3));
    wf_tv *d = wf_where(c, b, wf_full(f, WF_F64, 0.5));
    schedule(f, d);
    char *text = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&text, &n);
    wf_print_math(f, m);
    fclose(m);
    CHECK_STR(text, "Inputs:\n"
                    "  T0_g_half[iS0{8}]\n"
                    "Outputs:\n"
                    "  T3_g_half[ithreadIdx.x3{8}] ca_pos( 1 )\n"
                    "\n"
                    "%kernel_math {\n"
                    "T1_l_half[iS1{8}] ca_pos( 1 )\n"
                    "   = mul( T0_g_half[iS0{8}],\n"
                    "       float(2) )\n"
                    "T2_l_bool[iS2{8}] ca_pos( 1 )\n"
                    "   = gt( T1_l_half[iS1{8}] ca_pos( 1 ),\n"
                    "       int64(-3) )\n"
                    "T3_g_half[ithreadIdx.x3{8}] ca_pos( 1 )\n"
                    "   = where( T2_l_bool[iS2{8}] ca_pos( 1 ),\n"
                    "       T1_l_half[iS1{8}] ca_pos( 1 ),\n"
                    "       double(0.5) )\n"
                    "}\n");
    free(text);
    wf_kernel *k = COMPILE(f);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "T1[0] = (float)T0[threadIdx.x] * 2.0f;");
        CHECK_HAS(src, "T2[0] = (float)T1[0] > (-3.0f);");
        CHECK_HAS(src, "T3[threadIdx.x] = (T2[0] ? (float)T1[0] : 0.5f);");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* One kernel per compute type, each operand a scalar of that type: the literal is
   exact in that type (NaN and infinities by their bits, INT64_MIN as an expression). */
TEST(scalar_literals_are_exact_in_every_compute_type) {
    static const struct {
        wf_dtype t;
        bool is_int;
        double v;
        int64_t iv;
        const char *literal;
    } cases[] = {
        {WF_F32, false, 0.1, 0, "0.100000001f"},
        {WF_F32, false, -0.0, 0, "(-0.0f)"},
        {WF_F32, false, NAN, 0, "__uint_as_float(0x7fc00000u)"},
        {WF_F32, false, -INFINITY, 0, "__uint_as_float(0xff800000u)"},
        {WF_F32, false, 1e30, 0, "1.00000002e+30f"},
        {WF_F64, false, 0.1, 0, "0.10000000000000001"},
        {WF_F64, false, INFINITY, 0, "__longlong_as_double(0x7ff0000000000000LL)"},
        {WF_F16, false, 0.1, 0, "0.0999755859f"}, /* the f16 constant: 0.1 rounded to half */
        {WF_BF16, false, 0.1, 0, "0.100097656f"},
        {WF_I64, true, 0, INT64_MIN, "(-9223372036854775807LL - 1)"},
        {WF_I64, true, 0, INT64_MAX, "9223372036854775807LL"},
        {WF_I8, true, 0, -3, "((char)-3)"},
        {WF_U8, true, 0, 255, "((unsigned char)255)"},
        {WF_BOOL, true, 0, 1, "true"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t shape[1] = {SN};
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, cases[c].t, 1, shape);
        wf_tv *s = cases[c].is_int ? wf_full_int(f, cases[c].t, cases[c].iv)
                                   : wf_full(f, cases[c].t, cases[c].v);
        wf_tv *e = wf_binary(WF_EQ, a, s);
        schedule(f, e);
        wf_kernel *k = COMPILE(f);
        if (k)
            CHECK_HAS(wf_kernel_source(k), cases[c].literal);
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* ---- comparisons ---- */

/* Every comparison on f32 edge values against 0 (NaN, -0, +-inf) and tensor
   against tensor (f16 with i32: compared in f32). */
TEST(scalar_comparisons_follow_ieee_nan_and_signed_zero_exactly) {
    static const double xs[SN] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 1.5, -1.5, 1e-45};
    for (int op = WF_EQ; op <= WF_GE; op++) {
        int64_t shape[1] = {SN};
        wf_fusion *f = wf_fusion_new();
        wf_tv *x = wf_input(f, WF_F32, 1, shape);
        wf_tv *y = wf_binary((wf_binary_op)op, x, wf_full(f, WF_F32, 0));
        schedule(f, y);
        sbuf_t in, out;
        sbuf_init(&in, WF_F32, xs);
        sbuf_init(&out, WF_BOOL, NULL);
        if (run(ts_, f, &in, 1, &out))
            for (int i = 0; i < SN; i++) {
                double a = sget(WF_F32, in.data, i);
                bool w = op == WF_EQ   ? a == 0
                         : op == WF_NE ? a != 0
                         : op == WF_LT ? a < 0
                         : op == WF_LE ? a <= 0
                         : op == WF_GT ? a > 0
                                       : a >= 0;
                CHECK_VAL(sget(WF_BOOL, out.data, i), w, "cmp", i);
            }
        wf_fusion_free(f);
    }
}

TEST(scalar_comparison_of_two_tensors_promotes_then_compares) {
    static const double xh[SN] = {1, 2.5, -3, 2048, NAN, 0, 7, -0.0};
    static const double xi[SN] = {1, 2, -2, 2049, 0, 0, 8, 0};
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *h = wf_input(f, WF_F16, 1, shape), *i32 = wf_input(f, WF_I32, 1, shape);
    wf_tv *le = wf_binary(WF_LE, h, i32);
    schedule(f, le);
    sbuf_t in[2], out;
    sbuf_init(&in[0], WF_F16, xh);
    sbuf_init(&in[1], WF_I32, xi);
    sbuf_init(&out, WF_BOOL, NULL);
    if (run(ts_, f, in, 2, &out)) {
        static const int want[SN] = {1, 0, 1, 1, 0, 1, 1, 1};
        for (int i = 0; i < SN; i++)
            CHECK_VAL(sget(WF_BOOL, out.data, i), want[i], "le", i);
    }
    wf_fusion_free(f);
}

/* ---- where ---- */

/* relu as where(x > 0, x, 0) (NaN > 0 is false: 0), and where over three tensors
   of different types (cond, i32, f16 -> f16). */
TEST(scalar_where_selects_with_scalars_and_with_three_tensors) {
    static const double xs[SN] = {NAN, -0.0, 0.0, 3.25, -2, INFINITY, -INFINITY, 1e-3};
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_BF16, 1, shape);
    wf_tv *zero = wf_full(f, WF_BF16, 0);
    wf_tv *y = wf_where(wf_binary(WF_GT, x, zero), x, zero);
    schedule(f, y);
    sbuf_t in, out;
    sbuf_init(&in, WF_BF16, xs);
    sbuf_init(&out, WF_BF16, NULL);
    if (run(ts_, f, &in, 1, &out))
        for (int i = 0; i < SN; i++) {
            double a = sget(WF_BF16, in.data, i);
            CHECK_VAL(sget(WF_BF16, out.data, i), a > 0 ? a : 0.0, "relu", i);
        }
    wf_fusion_free(f);

    static const double cs[SN] = {1, 0, 1, 0, 1, 0, 1, 0};
    static const double is[SN] = {16777217, 5, -6, 7, 100000, 9, -1, 11};
    static const double hs[SN] = {0.5, 0.25, -8, 1024, 3, 65504, -0.0, NAN};
    f = wf_fusion_new();
    wf_tv *c = wf_input(f, WF_BOOL, 1, shape), *a = wf_input(f, WF_I32, 1, shape);
    wf_tv *h = wf_input(f, WF_F16, 1, shape);
    wf_tv *w = wf_where(c, a, h);
    CHECK(w && wf_tv_definition_input(w, 2) == h);
    schedule(f, w);
    sbuf_t in3[3];
    sbuf_init(&in3[0], WF_BOOL, cs);
    sbuf_init(&in3[1], WF_I32, is);
    sbuf_init(&in3[2], WF_F16, hs);
    sbuf_init(&out, WF_F16, NULL); /* torch.result_type(int32, float16) is float16 */
    if (run(ts_, f, in3, 3, &out))
        for (int i = 0; i < SN; i++) {
            /* the i32 operand converts to f32 (the compute type), then rounds to half */
            double want = cs[i] ? round_t(WF_F16, (float)is[i]) : sget(WF_F16, in3[2].data, i);
            CHECK_VAL(sget(WF_F16, out.data, i), want, "where3", i);
        }
    wf_fusion_free(f);
}

TEST(scalar_where_of_two_scalars_takes_the_condition_shape_and_promoted_type) {
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *c = wf_input(f, WF_BOOL, 1, shape);
    wf_tv *w = wf_where(c, wf_full_int(f, WF_I64, 7), wf_full_int(f, WF_I8, -2));
    CHECK(w != NULL);
    schedule(f, w);
    static const double cs[SN] = {1, 0, 0, 1, 1, 0, 1, 0};
    sbuf_t in, out;
    sbuf_init(&in, WF_BOOL, cs);
    sbuf_init(&out, WF_I64, NULL);
    if (run(ts_, f, &in, 1, &out))
        for (int i = 0; i < SN; i++)
            CHECK_VAL(sget(WF_I64, out.data, i), cs[i] ? 7 : -2, "where", i);
    wf_fusion_free(f);
}

/* ---- NaN propagation of binary max / min ---- */

TEST(scalar_binary_max_min_propagate_nan_like_torch_maximum) {
    static const double xs[SN] = {NAN, 1, NAN, -INFINITY, 2, 0, -0.0, 3};
    static const double ys[SN] = {1, NAN, NAN, NAN, -1, 0, 0, 3};
    const wf_dtype types[] = {WF_F32, WF_F16, WF_BF16, WF_F64};
    for (int ti = 0; ti < 4; ti++)
        for (int op = WF_MAX; op <= WF_MIN; op++) {
            wf_dtype t = types[ti];
            int64_t shape[1] = {SN};
            wf_fusion *f = wf_fusion_new();
            wf_tv *x = wf_input(f, t, 1, shape), *y = wf_input(f, t, 1, shape);
            wf_tv *m = wf_binary((wf_binary_op)op, x, y);
            schedule(f, m);
            sbuf_t in[2], out;
            sbuf_init(&in[0], t, xs);
            sbuf_init(&in[1], t, ys);
            sbuf_init(&out, t, NULL);
            if (run(ts_, f, in, 2, &out))
                for (int i = 0; i < SN; i++) {
                    double a = xs[i], b = ys[i];
                    double w = isnan(a) || isnan(b) ? NAN
                               : op == WF_MAX       ? (a > b ? a : b)
                                                    : (a < b ? a : b);
                    CHECK_VAL(sget(t, out.data, i), w, tname[t], i);
                }
            wf_fusion_free(f);
        }
}

/* ---- type promotion ---- */

/* The result types follow torch.result_type with a 0-dim operand. */
TEST(scalar_type_promotion_follows_pytorch_for_0_dim_operands) {
    static const struct {
        wf_dtype tensor, scalar;
        wf_binary_op op;
        const char *want; /* the printed output tensor */
    } cases[] = {
        {WF_I32, WF_F32, WF_MUL, "T1_l_float"},  /* a higher category: the scalar's type */
        {WF_F16, WF_F64, WF_MUL, "T1_l_half"},   /* same category: the tensor's */
        {WF_BOOL, WF_I64, WF_ADD, "T1_l_int64"}, /* bool + int */
        {WF_U8, WF_I64, WF_ADD, "T1_l_uint8"},
        {WF_I8, WF_F64, WF_LT, "T1_l_bool"}, /* a comparison gives bool */
        {WF_BF16, WF_BOOL, WF_ADD, "T1_l_bfloat"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        int64_t shape[1] = {SN};
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, cases[c].tensor, 1, shape);
        wf_tv *s = cases[c].scalar == WF_BOOL ? wf_full_int(f, WF_BOOL, 1)
                                              : wf_full(f, cases[c].scalar, 1);
        wf_tv *y = wf_binary(cases[c].op, a, s);
        CHECK(y != NULL);
        wf_tv *z = wf_set(y);
        wf_output(f, z);
        char *text = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&text, &n);
        wf_print_math(f, m);
        fclose(m);
        CHECK_HAS(text, cases[c].want);
        free(text);
        wf_fusion_free(f);
    }
}

/* A 16-bit op computes in f32 with the constant in f32 (PyTorch's opmath): f16
   1 * float(0.1) is (half)(1.0f * 0.1f), and 3 * 0.1f rounds once to half. */
TEST(scalar_float_constant_in_a_16_bit_op_is_used_in_f32) {
    static const double xs[SN] = {1, 3, 7, -5, 1000, 0.5, 2, 11};
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F16, 1, shape);
    wf_tv *y = wf_binary(WF_MUL, x, wf_full(f, WF_F32, 0.1));
    schedule(f, y);
    sbuf_t in, out;
    sbuf_init(&in, WF_F16, xs);
    sbuf_init(&out, WF_F16, NULL);
    if (run(ts_, f, &in, 1, &out))
        for (int i = 0; i < SN; i++)
            CHECK_VAL(sget(WF_F16, out.data, i), round_t(WF_F16, (float)xs[i] * 0.1f), "mul", i);
    wf_fusion_free(f);
}

/* ---- refusals ---- */

TEST(scalar_refusals_say_what_to_do) {
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    CHECK(wf_full(f, WF_I32, 2.5) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "wf_full: 2.5 is not a value of int32 (an integer in -2147483648..2147483647)");
    wf_fusion_clear_error(f);
    CHECK(wf_full_int(f, WF_U8, 300) == NULL);
    CHECK_STR(wf_fusion_error(f), "wf_full: 300 is not a value of uint8 (0..255)");
    wf_fusion_clear_error(f);
    CHECK(wf_full_int(f, WF_BOOL, 2) == NULL);
    CHECK_STR(wf_fusion_error(f), "wf_full: 2 is not a value of bool (0..1)");
    wf_fusion_clear_error(f);

    wf_tv *a = wf_input(f, WF_U8, 1, shape), *s = wf_full_int(f, WF_I64, 300);
    CHECK(wf_binary(WF_ADD, a, s) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "the scalar constant int64(300) does not fit uint8, the type the op computes in "
              "(0..255); cast the tensor operand to a wider type first");
    wf_fusion_clear_error(f);
    CHECK(wf_set(s) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "the scalar constant int64(300) (wf_full) is only an operand of wf_binary, the "
              "comparisons and wf_where: it has no dims to schedule or store; use a tensor here");
    wf_fusion_clear_error(f);
    wf_output(f, s);
    CHECK_HAS(wf_fusion_error(f), "the scalar constant int64(300) (wf_full) is only an operand");
    wf_fusion_clear_error(f);
    wf_tv_split(s, 0, 2);
    CHECK_HAS(wf_fusion_error(f), "is only an operand of wf_binary");
    wf_fusion_clear_error(f);
    CHECK(wf_binary(WF_MUL, s, wf_full(f, WF_F32, 2)) == NULL);
    CHECK_STR(wf_fusion_error(f), "mul: every operand is a scalar constant; give at least one "
                                  "tensor (the scalars take its shape)");
    wf_fusion_clear_error(f);
    CHECK(wf_where(a, a, s) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "where(T0, ...): the condition T0 is uint8, not bool; compare it "
              "(wf_binary(WF_NE, T0, zero)) or cast it (wf_cast(T0, WF_BOOL)) first");
    wf_fusion_clear_error(f);
    CHECK(wf_reduce(WF_GT, a, 1, (int[]){0}) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "reduce(T0): the op must be WF_ADD, WF_MUL, WF_MAX or WF_MIN, not gt");
    wf_fusion_clear_error(f);
    CHECK(wf_binary((wf_binary_op)(WF_GE + 1), a, a) == NULL);
    CHECK_STR(wf_fusion_error(f), "wf_binary: unknown op 13");
    wf_fusion_free(f);
}

/* ---- the CUDA text itself, run as host C++ (tests/hostcuda) ---- */

typedef struct {
    wf_fusion *f;
    wf_kernel *k;
    sbuf_t in[3], out;
    int nin, hc;
} hc_case;

/* Kernels mixing every new op with constants of several types. */
static void build_case(hc_case *c, int which) {
    static const double fx[SN] = {NAN, -0.0, 0.25, -3.5, INFINITY, 2, 1e-30, -1};
    static const double ix[SN] = {0, 1, -1, 127, -128, 5, 100, -7};
    int64_t shape[1] = {SN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, which == 2 ? WF_I8 : which == 1 ? WF_F16 : WF_F32, 1, shape), *y;
    c->nin = 1;
    if (which == 0) /* max(where(x >= -1, x * 2, -inf), NaN-free 0.5) */
        y = wf_binary(WF_MAX,
                      wf_where(wf_binary(WF_GE, x, wf_full(f, WF_F32, -1)),
                               wf_binary(WF_MUL, x, wf_full(f, WF_F64, 2)),
                               wf_full(f, WF_F32, -INFINITY)),
                      wf_full(f, WF_F32, 0.5));
    else if (which == 1) /* f16: min(0.1 - x, x) != x */
        y = wf_binary(WF_NE, wf_binary(WF_MIN, wf_binary(WF_SUB, wf_full(f, WF_F32, 0.1), x), x),
                      x);
    else /* i8: where(x < 3, x * -2, 100) with wrapping */
        y = wf_where(wf_binary(WF_LT, x, wf_full_int(f, WF_I64, 3)),
                     wf_binary(WF_MUL, x, wf_full_int(f, WF_I8, -2)), wf_full_int(f, WF_I64, 100));
    schedule(f, y);
    c->f = f;
    wf_dtype xt = which == 2 ? WF_I8 : which == 1 ? WF_F16 : WF_F32;
    sbuf_init(&c->in[0], xt, which == 2 ? ix : fx);
    sbuf_init(&c->out, which == 1 ? WF_BOOL : xt, NULL);
}

TEST(scalar_ops_cuda_text_run_on_the_host_matches_the_executor) {
    enum { NCASE = 3 };
    hc_case cs[NCASE];
    hc_batch *b = hc_new();
    char why[400] = "";
    for (int i = 0; i < NCASE; i++) {
        build_case(&cs[i], i);
        cs[i].k = COMPILE(cs[i].f);
        cs[i].hc = -1;
        if (!cs[i].k)
            continue;
        wf_buffer ib = cs[i].in[0].b;
        CHECK_EQ_I64(wf_run(cs[i].k, WF_BACKEND_INTERP, &ib, 1, &cs[i].out.b, 1), WF_OK);
        cs[i].hc = hc_add(b, cs[i].k, NULL, &ib, 1, &cs[i].out.b, 1, why, sizeof why);
        CHECK(cs[i].hc >= 0);
    }
    char msg[2048] = "";
    hc_status st = hc_run(b, msg, sizeof msg);
    if (st == HC_NO_COMPILER) {
        for (int i = 0; i < NCASE; i++)
            wf_kernel_free(cs[i].k), wf_fusion_free(cs[i].f);
        hc_free(b);
        SKIP(msg);
    }
    CHECK_EQ_I64(st, HC_OK);
    if (st != HC_OK)
        printf("  %s\n", msg);
    for (int i = 0; st == HC_OK && i < NCASE; i++) {
        const void *got = cs[i].hc >= 0 ? hc_output(b, cs[i].hc, 0) : NULL;
        CHECK(got != NULL);
        for (int e = 0; got && e < SN; e++)
            CHECK_VAL(sget(cs[i].out.b.dtype, got, e), sget(cs[i].out.b.dtype, cs[i].out.data, e),
                      "host CUDA vs executor", e);
    }
    /* and the executor's values against this file's reference */
    for (int e = 0; e < SN; e++) {
        double x = sget(WF_F32, cs[0].in[0].data, e);
        double w = x >= -1 ? x * 2 : -INFINITY;
        w = isnan(w) ? NAN : w > 0.5 ? w : 0.5;
        CHECK_VAL(sget(WF_F32, cs[0].out.data, e), w, "case 0", e);
        double h = sget(WF_F16, cs[1].in[0].data, e);
        double m = round_t(WF_F16, (float)(0.1f - (float)h)); /* stored as half */
        m = isnan(m) || isnan(h) ? NAN : m < h ? m : h;
        CHECK_VAL(sget(WF_BOOL, cs[1].out.data, e), m != h, "case 1", e);
        int64_t i8 = (int64_t)sget(WF_I8, cs[2].in[0].data, e);
        CHECK_VAL(sget(WF_I8, cs[2].out.data, e), i8 < 3 ? (double)(int8_t)(i8 * -2) : 100,
                  "case 2", e);
    }
    for (int i = 0; i < NCASE; i++) {
        wf_kernel_free(cs[i].k);
        wf_fusion_free(cs[i].f);
    }
    hc_free(b);
}

/* A scheduled 2-D kernel (split, propagated, blocks x threads, inlined) mixing a
   broadcast operand, constants, a comparison and a select: random inputs against
   the plain reference (tests/ref.c) bit for bit. */
TEST(scalar_ops_in_a_propagated_2d_schedule_match_the_plain_reference) {
    int64_t sa[1] = {-1}, sb[2] = {-1, 96};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, sa), *b = wf_input(f, WF_BF16, 2, sb);
    wf_tv *ab = wf_broadcast(a, 2, (const bool[]){false, true});
    wf_tv *w =
        wf_where(wf_binary(WF_GT, b, wf_full(f, WF_F32, 0.25)), ab, wf_full(f, WF_F64, -1.5));
    wf_tv *y = wf_binary(WF_MIN, wf_binary(WF_MUL, wf_full_int(f, WF_I64, 3), w), b);
    wf_output(f, y);
    wf_tv_merge(y, 0);
    wf_tv_split(y, 0, 64);
    wf_propagate_transforms(y);
    wf_tv_parallelize(y, 0, WF_BIDX);
    wf_tv_parallelize(y, 1, WF_TIDX);
    wf_parallelize_all_like(y, 0);
    wf_inline_most(f);
    int64_t sym[16] = {5, 0, 0, 0, 0, 0, 0, 0, 5};
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "(-1.5f)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* cache_after / cache_before around a comparison and a select with constants: the
   moved definition keeps its scalar operands and its compute type. */
TEST(scalar_ops_survive_cache_before_and_cache_after) {
    int64_t shape[1] = {128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_I16, 1, shape);
    wf_tv *c = wf_binary(WF_GE, x, wf_full_int(f, WF_I64, -7));
    wf_tv *y = wf_where(c, x, wf_full_int(f, WF_I8, 3));
    wf_output(f, y);
    wf_tv *xs = wf_cache_after(x);
    wf_tv *yc = wf_cache_before(y);
    wf_tv_set_memory(xs, WF_MEM_SHARED);
    wf_tv_split(y, 0, 32);
    wf_propagate_transforms(y);
    wf_tv_parallelize(y, 1, WF_TIDX);
    wf_parallelize_all_like(y, 0);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, ">= ((short)-7)");
        CHECK_HAS(src, ": ((short)3))");
        CHECK(yc != NULL);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
