/*
 * test_ops_matrix.h -- the op x dtype matrix, shared by the executor suite
 * (tests/unit/test_ops_matrix.c) and the GPU suite (tests/gpu/test_ops_matrix.c).
 *
 * For every dtype: one kernel with every unary op of one input, one with
 * every binary op of two inputs of that type, one casting the input to every
 * dtype; inputs are edge values (0, -0, +-1, MIN, MAX, NaN, inf, values that
 * saturate, divisors 0 and -1) then pseudo-random ones. Each output is
 * compared with a reference written here from the documented semantics, not
 * with the library's math: exact for integers and bools; for floats exact on
 * the executor (it computes in double and rounds once, as this reference
 * does) and within a few ulps of the output type on the GPU (libdevice's
 * float transcendentals). Half and bfloat16 encodings are written here too.
 * Uses the public API only (the GPU program links nothing else).
 */
#ifndef WF_TESTS_UNIT_TEST_OPS_MATRIX_H
#define WF_TESTS_UNIT_TEST_OPS_MATRIX_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

#define OM_N     64 /* elements per tensor */
#define OM_NTYPE 10 /* WF_F32 .. WF_BOOL */

static const char *const om_names[OM_NTYPE] = {"f32", "f16", "bf16", "f64", "i8",
                                               "i16", "i32", "i64",  "u8",  "bool"};
static const char *const om_unary_names[] = {"neg", "abs", "exp",  "log",     "sqrt", "rsqrt",
                                             "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal"};
static const char *const om_binary_names[] = {"add", "sub", "mul", "div", "max", "min", "pow"};
#define OM_NUNARY  12
#define OM_NBINARY 7

static int om_is_float(wf_dtype t) {
    return t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64;
}

/* ---- 16-bit float encodings ---- */

static double om_h2d(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

static double om_b2d(uint16_t b) {
    uint32_t x = (uint32_t)b << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Round x to nearest even with `mant` significand bits, exponents >= emin
   (subnormals below), overflowing to infinity above max. */
static double om_round_bits(double x, int mant, int emin, double max) {
    if (x != x || x == 0 || isinf(x))
        return x;
    int e;
    frexp(fabs(x), &e); /* |x| in [2^(e-1), 2^e) */
    e = e - 1 < emin ? emin : e - 1;
    double ulp = ldexp(1, e - (mant - 1));
    double r = rint(fabs(x) / ulp) * ulp;
    r = r > max ? INFINITY : r;
    return x < 0 ? -r : r;
}

/* What storing a float-computed value in t keeps (16-bit types: from float). */
static double om_round(wf_dtype t, double x) {
    if (t == WF_F64)
        return x;
    float f = (float)x;
    if (t == WF_F16)
        return om_round_bits(f, 11, -14, 65504.0);
    if (t == WF_BF16)
        return om_round_bits(f, 8, -126, 3.3895313892515355e38);
    return f;
}

/* ---- integers: wrap to the width ---- */

static int64_t om_wrap(wf_dtype t, uint64_t u) {
    switch (t) {
    case WF_I8:
        return (int8_t)(uint8_t)u;
    case WF_I16:
        return (int16_t)(uint16_t)u;
    case WF_I32:
        return (int32_t)(uint32_t)u;
    case WF_U8:
        return (uint8_t)u;
    case WF_BOOL:
        return u != 0;
    default:
        return (int64_t)u;
    }
}

static void om_limits(wf_dtype t, int64_t *lo, int64_t *hi) {
    *lo = t == WF_I8    ? INT8_MIN
          : t == WF_I16 ? INT16_MIN
          : t == WF_I32 ? INT32_MIN
          : t == WF_U8  ? 0
                        : INT64_MIN;
    *hi = t == WF_I8    ? INT8_MAX
          : t == WF_I16 ? INT16_MAX
          : t == WF_I32 ? INT32_MAX
          : t == WF_U8  ? 255
                        : INT64_MAX;
}

/* ---- elements ---- */

typedef struct {
    double d;  /* float types */
    int64_t i; /* integer types and bool */
} om_val;

static om_val om_get(wf_dtype t, const void *data, int k) {
    const unsigned char *p = (const unsigned char *)data + (size_t)k * wf_dtype_size(t);
    om_val v = {0, 0};
    uint16_t h;
    float f;
    int16_t s16;
    int32_t s32;
    switch (t) {
    case WF_F32:
        memcpy(&f, p, 4);
        v.d = f;
        break;
    case WF_F16:
        memcpy(&h, p, 2);
        v.d = om_h2d(h);
        break;
    case WF_BF16:
        memcpy(&h, p, 2);
        v.d = om_b2d(h);
        break;
    case WF_F64:
        memcpy(&v.d, p, 8);
        break;
    case WF_I8:
        v.i = (int8_t)*p;
        break;
    case WF_I16:
        memcpy(&s16, p, 2);
        v.i = s16;
        break;
    case WF_I32:
        memcpy(&s32, p, 4);
        v.i = s32;
        break;
    case WF_I64:
        memcpy(&v.i, p, 8);
        break;
    default:
        v.i = *p;
        break;
    }
    return v;
}

static uint64_t om_rand(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

/* Input element k of a tensor of type t (which = 0 or 1: first or second operand). */
static void om_fill(wf_dtype t, void *data, int which) {
    static const uint16_t h16[] = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0xc100, 0x4100, 0x7c00,
                                   0xfc00, 0x7e00, 0x7bff, 0x57d1, 0xd8b2, 0x0001, 0x3555, 0x4248};
    static const uint16_t b16[] = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0xc020, 0x4020, 0x7f80,
                                   0xff80, 0x7fc0, 0x4f80, 0x4396, 0xc396, 0x0001, 0x3eab, 0x4049};
    static const double fl[] = {0.0,      -0.0,      1.0,    -1.0,  0.5,   -2.5,   2.5,
                                INFINITY, -INFINITY, NAN,    1e10,  300.7, -300.7, 40000.5,
                                -40000.5, 3e9,       -128.9, 127.9, 255.9, -0.9};
    static const int64_t ia[] = {0, 1,  -1,  2,    -2, INT64_MIN, INT64_MAX, INT64_MIN + 1,
                                 7, -7, 100, -100, 3,  5};
    static const int64_t ib[] = {0, -1, 0, 3, 0, -1, -1, 0, -1, 2, 0, 5, 63, -2};
    int nspec = om_is_float(t) ? 16 : 14;
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(t + 1) + (uint64_t)which * 977;
    unsigned char *p = data;
    for (int k = 0; k < OM_N; k++) {
        uint64_t r = om_rand(&seed);
        double x = ((double)(r % 100000) / 100000.0) * 8.0 - 4.0;
        int spec = k < nspec;
        int j = which ? (k * 7 + 3) % nspec : k;
        uint16_t h;
        float f;
        int64_t v;
        switch (t) {
        case WF_F16: /* random: exponents 2^-5 .. 2^4 */
            h = spec ? h16[j]
                     : (uint16_t)((r & 0x8000) | ((10 + (r >> 16) % 10) << 10) | (r & 1023));
            memcpy(p + 2 * k, &h, 2);
            break;
        case WF_BF16:
            h = spec ? b16[j]
                     : (uint16_t)((r & 0x8000) | ((122 + (r >> 16) % 10) << 7) | (r & 127));
            memcpy(p + 2 * k, &h, 2);
            break;
        case WF_F32:
            f = (float)(spec ? fl[j] : x);
            memcpy(p + 4 * k, &f, 4);
            break;
        case WF_F64:
            x = spec ? fl[j] : x;
            memcpy(p + 8 * k, &x, 8);
            break;
        default: {
            int64_t lo, hi;
            om_limits(t, &lo, &hi);
            v = spec ? (which ? ib[j] : ia[j]) : (int64_t)r;
            if (spec && v == INT64_MIN)
                v = lo;
            if (spec && v == INT64_MAX)
                v = hi;
            if (spec && v == INT64_MIN + 1)
                v = lo + 1;
            if (!spec && which && k % 2) /* small exponents and divisors too */
                v = (int64_t)(r % 9) - 2;
            v = om_wrap(t, (uint64_t)v);
            memcpy(p + wf_dtype_size(t) * (size_t)k, &v, wf_dtype_size(t)); /* little endian */
            break;
        }
        }
    }
}

/* ---- the reference semantics ---- */

/* A value of type `from` in the type `to` computes in (floats: a double
   holding the float-rounded value; 16-bit outputs compute in float). */
static om_val om_to(om_val v, wf_dtype from, wf_dtype to) {
    om_val r = {0, 0};
    int ff = om_is_float(from), tf = om_is_float(to);
    if (tf) { /* int -> float rounds once; 16-bit types compute in float */
        if (to == WF_F64)
            r.d = ff ? v.d : (double)v.i;
        else
            r.d = ff ? (double)(float)v.d : (double)(float)v.i;
        return r;
    }
    if (to == WF_BOOL) {
        r.i = ff ? v.d != 0 : v.i != 0;
        return r;
    }
    if (!ff) {
        r.i = v.i;
        return r;
    }
    int64_t lo, hi;
    om_limits(to, &lo, &hi);
    double t = trunc(v.d);
    r.i = v.d != v.d ? 0 : t <= (double)lo ? lo : t >= (double)hi ? hi : (int64_t)t;
    return r;
}

static double om_unary_f(int op, double x) {
    switch (op) {
    case 0:
        return -x;
    case 1:
        return x < 0 ? -x : (x == 0 ? 0.0 : x);
    case 2:
        return exp(x);
    case 3:
        return log(x);
    case 4:
        return sqrt(x);
    case 5:
        return 1 / sqrt(x);
    case 6:
        return sin(x);
    case 7:
        return cos(x);
    case 8:
        return tanh(x);
    case 9:
        return 1 / (1 + exp(-x));
    case 10:
        return x > 0 ? x : 0;
    default:
        return 1 / x;
    }
}

static uint64_t om_upow(uint64_t x, uint64_t e) {
    if (e == 0)
        return 1;
    uint64_t h = om_upow(x * x, e / 2);
    return e % 2 ? h * x : h;
}

/* Integers compute in 64 bits (wrapping); the caller wraps to the width. */
static int64_t om_binary_i(int op, int64_t a, int64_t b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case 0:
        return (int64_t)(ua + ub);
    case 1:
        return (int64_t)(ua - ub);
    case 2:
        return (int64_t)(ua * ub);
    case 3:
        if (b == 0)
            return -1; /* weft's x / 0 */
        if (b == -1)
            return (int64_t)(0 - ua);
        return a / b;
    case 4:
        return a < b ? b : a;
    case 5:
        return a < b ? a : b;
    default:
        if (b >= 0)
            return (int64_t)om_upow(ua, ub);
        if (a == 1 || a == -1)
            return (b % 2 && a == -1) ? -1 : 1;
        return a == 0 ? -1 : 0;
    }
}

static double om_binary_f(int op, double a, double b) {
    switch (op) {
    case 0:
        return a + b;
    case 1:
        return a - b;
    case 2:
        return a * b;
    case 3:
        return a / b;
    case 4: /* NaN propagates, as in torch.maximum / minimum */
        return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case 5:
        return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    default:
        return pow(a, b);
    }
}

/* PyTorch's result type for two tensors. */
static wf_dtype om_promote(wf_dtype a, wf_dtype b) {
    static const int rank[OM_NTYPE] = {
        /* f32 */ 12, /* f16 */ 10, /* bf16 */ 11, /* f64 */ 13,
        /* i8 */ 2,   /* i16 */ 3,  /* i32 */ 4,   /* i64 */ 5,
        /* u8 */ 1,   /* bool */ 0};
    if (a == b)
        return a;
    if ((a == WF_F16 && b == WF_BF16) || (a == WF_BF16 && b == WF_F16))
        return WF_F32;
    if ((a == WF_U8 && b == WF_I8) || (a == WF_I8 && b == WF_U8))
        return WF_I16;
    return rank[a] > rank[b] ? a : b;
}

static const int om_float_only[OM_NUNARY] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1};

static om_val om_result(wf_dtype out, int isfloat_out, double d, int64_t i) {
    om_val r = {0, 0};
    if (isfloat_out)
        r.d = om_round(out, d);
    else
        r.i = om_wrap(out, (uint64_t)i);
    return r;
}

static om_val om_ref_unary(int op, wf_dtype t, om_val x, wf_dtype *out) {
    *out = om_float_only[op] && !om_is_float(t) ? WF_F32 : t;
    om_val a = om_to(x, t, *out);
    if (om_is_float(*out))
        return om_result(*out, 1, om_unary_f(op, a.d), 0);
    int64_t v = a.i;
    uint64_t neg = 0 - (uint64_t)v;
    int64_t r = op == 0 ? (int64_t)neg : op == 1 ? (v < 0 ? (int64_t)neg : v) : v > 0 ? v : 0;
    return om_result(*out, 0, 0, r);
}

static om_val om_ref_binary(int op, wf_dtype ta, om_val a, wf_dtype tb, om_val b, wf_dtype *out) {
    *out = om_promote(ta, tb);
    om_val x = om_to(a, ta, *out), y = om_to(b, tb, *out);
    if (om_is_float(*out))
        return om_result(*out, 1, om_binary_f(op, x.d, y.d), 0);
    return om_result(*out, 0, 0, om_binary_i(op, x.i, y.i));
}

static om_val om_ref_cast(wf_dtype from, om_val v, wf_dtype to) {
    om_val x = om_to(v, from, to);
    return om_is_float(to) ? om_result(to, 1, x.d, 0) : om_result(to, 0, 0, x.i);
}

/* ---- running ---- */

typedef enum { OM_UNARY, OM_BINARY, OM_CAST } om_kind;

typedef struct {
    int failed;
    int kernels;
    char first[512]; /* the first mismatch or error */
} om_report;

static void om_note(om_report *r, const char *msg) {
    if (!r->failed++)
        snprintf(r->first, sizeof r->first, "%s", msg);
    if (r->failed <= 12)
        printf("  %s\n", msg);
}

/* Tolerance in units of the output type's epsilon; 0 = exact. */
static int om_close(wf_dtype t, double got, double want, double ulps) {
    if (got != got || want != want)
        return got != got && want != want;
    if (got == want)
        return 1;
    if (ulps == 0 || isinf(got) || isinf(want))
        return 0;
    double eps = t == WF_F16    ? ldexp(1, -10)
                 : t == WF_BF16 ? ldexp(1, -7)
                 : t == WF_F64  ? ldexp(1, -52)
                                : ldexp(1, -23);
    double mag = fabs(want) > 1 ? fabs(want) : 1;
    return fabs(got - want) <= ulps * eps * mag;
}

static void om_check_output(om_report *r, om_kind kind, int op, wf_dtype t, wf_dtype tb,
                            const void *in0, const void *in1, wf_dtype tout, const void *got,
                            double ulps) {
    for (int k = 0; k < OM_N; k++) {
        om_val a = om_get(t, in0, k), b = in1 ? om_get(tb, in1, k) : a, want;
        wf_dtype ot = tout;
        if (kind == OM_UNARY)
            want = om_ref_unary(op, t, a, &ot);
        else if (kind == OM_BINARY)
            want = om_ref_binary(op, t, a, tb, b, &ot);
        else
            want = om_ref_cast(t, a, tout);
        om_val g = om_get(tout, got, k);
        int ok =
            ot == tout && (om_is_float(tout) ? om_close(tout, g.d, want.d, ulps) : g.i == want.i);
        if (ok)
            continue;
        char msg[512];
        const char *name = kind == OM_UNARY    ? om_unary_names[op]
                           : kind == OM_BINARY ? om_binary_names[op]
                                               : "cast";
        snprintf(
            msg, sizeof msg,
            "%s(%s, %s -> %s) element %d: inputs (%.17g | %lld, %.17g | %lld): got %.17g | %lld, "
            "want %.17g | %lld (%s)",
            name, om_names[t], om_names[tb], om_names[tout], k, a.d, (long long)a.i, b.d,
            (long long)b.i, g.d, (long long)g.i, want.d, (long long)want.i,
            ot == tout ? "value" : "output dtype");
        om_note(r, msg);
        return;
    }
}

static wf_buffer om_buf(void *data, wf_dtype t) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = data;
    b.dtype = t;
    b.ndim = 1;
    b.shape[0] = OM_N;
    b.device = -1;
    return b;
}

/* Build, compile (and with NVRTC when nvrtc), run on backend and check one
   kernel of the matrix for dtype t. ulps: the float tolerance. */
static void om_run_case(om_report *r, om_kind kind, wf_dtype t, wf_dtype tb, wf_backend backend,
                        int nvrtc, double ulps) {
    int64_t shape[1] = {OM_N};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, t, 1, shape), *b = kind == OM_BINARY ? wf_input(f, tb, 1, shape) : NULL;
    int nout = kind == OM_UNARY ? OM_NUNARY : kind == OM_BINARY ? OM_NBINARY : OM_NTYPE;
    wf_tv *outs[OM_NUNARY];
    for (int o = 0; o < nout; o++) {
        outs[o] = kind == OM_UNARY    ? wf_unary((wf_unary_op)o, a)
                  : kind == OM_BINARY ? wf_binary((wf_binary_op)o, a, b)
                                      : wf_cast(a, (wf_dtype)o);
        wf_output(f, outs[o]);
        wf_tv_parallelize(outs[o], 0, WF_TIDX);
    }
    char msg[512];
    wf_kernel *k = wf_compile(f, NULL);
    r->kernels++;
    if (!k) {
        snprintf(msg, sizeof msg, "%s kernel: wf_compile failed: %s", om_names[t],
                 wf_fusion_error(f));
        om_note(r, msg);
        wf_fusion_free(f);
        return;
    }
    char log[2048];
    wf_status s = nvrtc ? wf_kernel_check_nvrtc(k, 90, log, sizeof log) : WF_OK;
    if (s != WF_OK && s != WF_ERR_UNSUPPORTED) {
        snprintf(msg, sizeof msg, "%s kernel %d: NVRTC rejected it: %.400s", om_names[t], kind,
                 log);
        om_note(r, msg);
    }
    unsigned char in0[OM_N * 8], in1[OM_N * 8], out[OM_NUNARY][OM_N * 8];
    om_fill(t, in0, 0);
    om_fill(tb, in1, 1);
    wf_buffer ib[2] = {om_buf(in0, t), om_buf(in1, tb)}, ob[OM_NUNARY];
    for (int o = 0; o < nout; o++) {
        memset(out[o], 0xFF, sizeof out[o]); /* poisoned: a NaN in every float */
        ob[o] = om_buf(out[o], WF_F32);      /* the dtype is set below */
    }
    for (int o = 0; o < nout; o++) {
        wf_dtype ot;
        om_val z = {0, 0};
        if (kind == OM_UNARY)
            om_ref_unary(o, t, z, &ot);
        else if (kind == OM_BINARY)
            om_ref_binary(o, t, z, tb, z, &ot);
        else
            ot = (wf_dtype)o;
        ob[o].dtype = ot;
    }
    s = wf_run(k, backend, ib, kind == OM_BINARY ? 2 : 1, ob, nout);
    if (s != WF_OK) {
        snprintf(msg, sizeof msg, "%s kernel %d: wf_run: %s: %.400s", om_names[t], kind,
                 wf_status_name(s), wf_last_run_error(k));
        om_note(r, msg);
    } else {
        for (int o = 0; o < nout; o++)
            om_check_output(r, kind, o, t, tb, in0, kind == OM_BINARY ? in1 : NULL, ob[o].dtype,
                            out[o], ulps);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The whole matrix. float_ulps: the tolerance for float outputs (0 = exact). */
static void om_run_matrix(om_report *r, wf_backend backend, int nvrtc, double float_ulps) {
    for (int t = 0; t < OM_NTYPE; t++) {
        om_run_case(r, OM_UNARY, (wf_dtype)t, (wf_dtype)t, backend, nvrtc, float_ulps);
        om_run_case(r, OM_BINARY, (wf_dtype)t, (wf_dtype)t, backend, nvrtc, float_ulps);
        om_run_case(r, OM_CAST, (wf_dtype)t, (wf_dtype)t, backend, nvrtc, float_ulps);
    }
}

/* Every binary op on every pair of different dtypes: the promoted output
   type and the operands' conversions (90 kernels). */
static void om_run_mixed(om_report *r, wf_backend backend, int nvrtc, double float_ulps) {
    for (int a = 0; a < OM_NTYPE; a++)
        for (int b = 0; b < OM_NTYPE; b++)
            if (a != b)
                om_run_case(r, OM_BINARY, (wf_dtype)a, (wf_dtype)b, backend, nvrtc, float_ulps);
}

#endif
