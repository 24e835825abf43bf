/*
 * interp_ops.c -- the executor's op math: loading and storing elements,
 * conversions between types, and one function per unary and binary op.
 *
 * It models the generated CUDA (codegen/cuda.c and its prelude) bit for bit
 * where the operations are exact:
 * - An op converts its operands to its output type (the IR's promotion rule,
 *   ir/ops.c) and computes in float for f32/f16/bf16 (here: in double,
 *   rounded once to float, exact for + - * / and sqrt), in double for f64,
 *   and in 64-bit integers for integer and bool types, rounded or truncated
 *   to the storage type when stored.
 * - Integer arithmetic wraps (computed in uint64_t: two's complement modulo
 *   2^64, then truncated to the width, which is the GPU's modulo-2^w result).
 * - Integer x / 0 is -1 (all bits set; the H100's 32-bit division gives it,
 *   PTX leaves it unspecified: weft defines it in the prelude); MIN / -1
 *   wraps to MIN. pow(a, b < 0) is 1 / a^-b in that division.
 * - Float to integer truncates toward zero and saturates at the target's
 *   range, NaN -> 0 (PTX cvt.rzi.sat); float to bool is x != 0.
 * Depends on nothing else of the executor (one-way: stmt -> ops).
 */
#include "runtime/interp_int.h"

#include <math.h>
#include <string.h>

#include "base/half.h"

ix_value ix_load(wf_dtype t, const unsigned char *p) {
    ix_value v = {0};
    uint16_t h;
    int16_t s16;
    int32_t s32;
    switch (t) {
    case WF_F32:
        memcpy(&v.f, p, 4);
        break;
    case WF_F16:
        memcpy(&h, p, 2);
        v.f = half_to_float(h);
        break;
    case WF_BF16:
        memcpy(&h, p, 2);
        v.f = bf16_to_float(h);
        break;
    case WF_F64:
        memcpy(&v.d, p, 8);
        break;
    case WF_I8:
        v.i = *(const int8_t *)p;
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
    case WF_U8:
        v.i = *p;
        break;
    case WF_BOOL:
        v.i = *p != 0;
        break;
    }
    return v;
}

/* Integers are truncated to the width (two's complement: through unsigned). */
void ix_store(wf_dtype t, unsigned char *p, ix_value v) {
    uint16_t h;
    uint64_t u = (uint64_t)v.i;
    uint16_t u16 = (uint16_t)u;
    uint32_t u32 = (uint32_t)u;
    switch (t) {
    case WF_F32:
        memcpy(p, &v.f, 4);
        break;
    case WF_F16:
        h = float_to_half(v.f);
        memcpy(p, &h, 2);
        break;
    case WF_BF16:
        h = float_to_bf16(v.f);
        memcpy(p, &h, 2);
        break;
    case WF_F64:
        memcpy(p, &v.d, 8);
        break;
    case WF_I8:
    case WF_U8:
        *p = (unsigned char)u;
        break;
    case WF_I16:
        memcpy(p, &u16, 2);
        break;
    case WF_I32:
        memcpy(p, &u32, 4);
        break;
    case WF_I64:
        memcpy(p, &u, 8);
        break;
    case WF_BOOL:
        *p = v.i != 0;
        break;
    }
}

/* ---- conversions ---- */

/* cvt.rzi.sat to integer type t: (double)hi may round up (2^63), and every
   double below it fits. */
int64_t ix_saturate(double x, wf_dtype t) {
    int64_t lo = ir_dtype(t)->lo, hi = ir_dtype(t)->hi;
    if (x != x)
        return 0;
    if (x <= (double)lo)
        return lo;
    if (x >= (double)hi)
        return hi;
    return (int64_t)x;
}

/* v (in `from`'s compute type) in `to`'s compute type, before storing. */
ix_value ix_convert(ix_value v, wf_dtype from, wf_dtype to) {
    return ix_convert_ct(v, ix_ctype_of(from), to, ix_ctype_of(to));
}

/* ---- the op table: one function per op and compute type ---- */

static int64_t wrap_add(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrap_sub(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a - (uint64_t)b);
}
static int64_t wrap_mul(int64_t a, int64_t b) {
    return (int64_t)((uint64_t)a * (uint64_t)b);
}
static int64_t wrap_neg(int64_t a) {
    return (int64_t)(0 - (uint64_t)a);
}
static int64_t i_abs(int64_t a) {
    return a < 0 ? wrap_neg(a) : a;
}
static int64_t i_relu(int64_t a) {
    return a > 0 ? a : 0;
}
static int64_t i_div(int64_t a, int64_t b) {
    return b == 0 ? -1 : b == -1 ? wrap_neg(a) : a / b;
}
static int64_t i_max(int64_t a, int64_t b) {
    return a > b ? a : b;
}
static int64_t i_min(int64_t a, int64_t b) {
    return a < b ? a : b;
}
static int64_t i_pow(int64_t a, int64_t b) {
    if (b < 0)
        return a == 1 ? 1 : a == 0 ? -1 : a == -1 ? ((uint64_t)b & 1 ? -1 : 1) : 0;
    uint64_t r = 1, x = (uint64_t)a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1, x *= x)
        if (e & 1)
            r *= x;
    return (int64_t)r;
}

static double f_neg(double x) {
    return -x;
}
static double f_rsqrt(double x) {
    return 1.0 / sqrt(x);
}
static double f_sigmoid(double x) {
    return 1.0 / (1.0 + exp(-x));
}
static double f_relu(double x) {
    return x > 0 ? x : 0;
}
static double f_reciprocal(double x) {
    return 1.0 / x;
}
static double f_add(double a, double b) {
    return a + b;
}
static double f_sub(double a, double b) {
    return a - b;
}
static double f_mul(double a, double b) {
    return a * b;
}
static double f_div(double a, double b) {
    return a / b;
}
/* NaN propagates (torch.maximum / minimum), as the prelude's wf_max / wf_min. */
static double f_max(double a, double b) {
    return a != a ? a : b != b ? b : a > b ? a : b;
}
static double f_min(double a, double b) {
    return a != a ? a : b != b ? b : a < b ? a : b;
}

/* Float-only ops have no integer function: the IR never gives them integers. */
static const struct {
    double (*flt)(double);
    int64_t (*intg)(int64_t);
} unary_ops[] = {
    [WF_NEG] = {f_neg, wrap_neg}, [WF_ABS] = {fabs, i_abs},
    [WF_EXP] = {exp, NULL},       [WF_LOG] = {log, NULL},
    [WF_SQRT] = {sqrt, NULL},     [WF_RSQRT] = {f_rsqrt, NULL},
    [WF_SIN] = {sin, NULL},       [WF_COS] = {cos, NULL},
    [WF_TANH] = {tanh, NULL},     [WF_SIGMOID] = {f_sigmoid, NULL},
    [WF_RELU] = {f_relu, i_relu}, [WF_RECIPROCAL] = {f_reciprocal, NULL},
};

static const struct {
    double (*flt)(double, double);
    int64_t (*intg)(int64_t, int64_t);
} binary_ops[] = {
    [WF_ADD] = {f_add, wrap_add},
    [WF_SUB] = {f_sub, wrap_sub},
    [WF_MUL] = {f_mul, wrap_mul},
    [WF_DIV] = {f_div, i_div},
    [WF_MAX] = {f_max, i_max},
    [WF_MIN] = {f_min, i_min},
    [WF_POW] = {pow, i_pow},
    /* the comparisons (ix_compare) give bool, not a value of the compute type */
    [WF_EQ] = {NULL, NULL},
    [WF_NE] = {NULL, NULL},
    [WF_LT] = {NULL, NULL},
    [WF_LE] = {NULL, NULL},
    [WF_GT] = {NULL, NULL},
    [WF_GE] = {NULL, NULL},
};

bool ix_op_valid(op_kind kind, int sub, wf_dtype out) {
    bool intg = ix_ctype_of(out) == IX_CT_INT;
    if (kind == OP_UNARY)
        return (unsigned)sub < sizeof unary_ops / sizeof *unary_ops &&
               (intg ? unary_ops[sub].intg != NULL : unary_ops[sub].flt != NULL);
    if (kind == OP_BINARY)
        return (unsigned)sub < sizeof binary_ops / sizeof *binary_ops;
    return true;
}

/* Operands already in t's compute type; ix_op_valid(sub, t) holds. */
ix_value ix_unary(int op, ix_value v, wf_dtype t) {
    switch (ix_ctype_of(t)) {
    case IX_CT_FLOAT:
        v.f = (float)unary_ops[op].flt((double)v.f);
        break;
    case IX_CT_DOUBLE:
        v.d = unary_ops[op].flt(v.d);
        break;
    case IX_CT_INT:
        v.i = unary_ops[op].intg(v.i);
        break;
    }
    return v;
}

/* a <op> b for a comparison: -1, 0 or 1 for ordered operands, 2 for unordered (NaN). */
static int order(ix_value a, ix_value b, ix_ctype c) {
    double x = c == IX_CT_FLOAT ? (double)a.f : a.d, y = c == IX_CT_FLOAT ? (double)b.f : b.d;
    if (c == IX_CT_INT)
        return (a.i > b.i) - (a.i < b.i);
    return x != x || y != y ? 2 : (x > y) - (x < y);
}

/* IEEE comparisons: every one but != is false on NaN (C and CUDA alike). */
static ix_value compare(int op, ix_value a, ix_value b, ix_ctype c) {
    int o = order(a, b, c);
    ix_value r = {0};
    switch (op) {
    case WF_EQ:
        r.i = o == 0;
        break;
    case WF_NE:
        r.i = o != 0;
        break;
    case WF_LT:
        r.i = o == -1;
        break;
    case WF_LE:
        r.i = o == -1 || o == 0;
        break;
    case WF_GT:
        r.i = o == 1;
        break;
    default:
        r.i = o == 1 || o == 0;
        break;
    }
    return r;
}

ix_value ix_scalar(const ir_scalar *s) {
    ix_value v = {0};
    switch (ix_ctype_of(s->dtype)) {
    case IX_CT_FLOAT:
        v.f = (float)s->f;
        break;
    case IX_CT_DOUBLE:
        v.d = s->f;
        break;
    case IX_CT_INT:
        v.i = s->i;
        break;
    }
    return v;
}

ix_value ix_binary_c(int op, ix_value a, ix_value b, ix_ctype c) {
    ix_value r = {0};
    if (ir_binary_is_compare(op))
        return compare(op, a, b, c);
    switch (c) {
    case IX_CT_FLOAT:
        r.f = (float)binary_ops[op].flt((double)a.f, (double)b.f);
        break;
    case IX_CT_DOUBLE:
        r.d = binary_ops[op].flt(a.d, b.d);
        break;
    case IX_CT_INT:
        r.i = binary_ops[op].intg(a.i, b.i);
        break;
    }
    return r;
}

ix_value ix_binary(int op, ix_value a, ix_value b, wf_dtype t) {
    return ix_binary_c(op, a, b, ix_ctype_of(t));
}
