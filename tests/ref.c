/*
 * ref.c -- the plain reference: whole-tensor loops over logical indices.
 *
 * Beside each value it computes a scale: a bound on the magnitudes of the
 * partial results the value was computed from (|a| + |b| for a + b or
 * a - b, the sum of |x| for a sum). An executor that reduces in another
 * order rounds at those magnitudes, so its result may differ from the
 * reference by a few ulps of the scale, not of the value: p - q of two
 * products of the same 7 numbers, about 26680 each, is 0 here and -2^-8 in
 * the executor's order (fuzz -s 20261128 -c 127389).
 */
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "ir/ir.h"

typedef struct {
    double *v; /* values in logical row-major order */
    double *s; /* their scales (see above), in the same order */
    int64_t shape[8];
    int ndim;
} rtensor;

static int64_t numel(const int64_t *shape, int n) {
    int64_t e = 1;
    for (int i = 0; i < n; i++)
        e *= shape[i];
    return e;
}

int64_t ref_numel(const wf_buffer *b) {
    return numel(b->shape, b->ndim);
}

/* A double as int64 without the undefined conversion of values at or past
   2^63 (which double rounds INT64_MAX up to): they saturate, as weft's
   float -> int64 does. */
static int64_t to_i64(double x) {
    if (x >= 9223372036854775807.0)
        return INT64_MAX;
    if (x <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)x;
}

static bool is_float(wf_dtype t) {
    return t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64;
}

/* A float converted to an integer type, as weft defines it (include/weft.h,
   the GPU's cvt.rzi.sat): truncated, saturated to the type's range, NaN -> 0;
   to bool: x != 0. */
static double float_to_int(wf_dtype t, double x) {
    double lo, hi;
    switch (t) {
    case WF_I8:
        lo = INT8_MIN, hi = INT8_MAX;
        break;
    case WF_I16:
        lo = INT16_MIN, hi = INT16_MAX;
        break;
    case WF_I32:
        lo = INT32_MIN, hi = INT32_MAX;
        break;
    case WF_I64:
        lo = -9223372036854775808.0, hi = 9223372036854775807.0;
        break;
    case WF_U8:
        lo = 0, hi = UINT8_MAX;
        break;
    default:
        return x != 0;
    }
    if (isnan(x))
        return 0;
    x = trunc(x);
    return x < lo ? lo : x > hi ? hi : x;
}

/* Round a value to what storing it in dtype t keeps (integer results wrap). */
static double round_to(wf_dtype t, double x) {
    switch (t) {
    case WF_F32:
        return (float)x;
    case WF_F16:
        return half_to_float(float_to_half((float)x));
    case WF_BF16:
        return bf16_to_float(float_to_bf16((float)x));
    case WF_F64:
        return x;
    case WF_I8:
        return (int8_t)(int64_t)x;
    case WF_I16:
        return (int16_t)(int64_t)x;
    case WF_I32:
        return (int32_t)(int64_t)x;
    case WF_I64:
        return (double)to_i64(x);
    case WF_U8:
        return (uint8_t)(int64_t)x;
    default:
        return x != 0;
    }
}

static double load(const wf_buffer *b, int64_t off) {
    const unsigned char *p =
        (const unsigned char *)b->data + off * (int64_t)wf_dtype_size(b->dtype);
    float f;
    double d;
    uint16_t h;
    switch (b->dtype) {
    case WF_F32:
        memcpy(&f, p, 4);
        return f;
    case WF_F16:
        memcpy(&h, p, 2);
        return half_to_float(h);
    case WF_BF16:
        memcpy(&h, p, 2);
        return bf16_to_float(h);
    case WF_F64:
        memcpy(&d, p, 8);
        return d;
    case WF_I32: {
        int32_t i;
        memcpy(&i, p, 4);
        return i;
    }
    case WF_I64: {
        int64_t i;
        memcpy(&i, p, 8);
        return (double)i;
    }
    case WF_I16: {
        int16_t i;
        memcpy(&i, p, 2);
        return i;
    }
    case WF_I8:
        return *(const int8_t *)p;
    default:
        return *p;
    }
}

static void store(wf_buffer *b, int64_t off, double x) {
    unsigned char *p = (unsigned char *)b->data + off * (int64_t)wf_dtype_size(b->dtype);
    float f = (float)x;
    uint16_t h;
    switch (b->dtype) {
    case WF_F32:
        memcpy(p, &f, 4);
        break;
    case WF_F16:
        h = float_to_half(f);
        memcpy(p, &h, 2);
        break;
    case WF_BF16:
        h = float_to_bf16(f);
        memcpy(p, &h, 2);
        break;
    case WF_F64:
        memcpy(p, &x, 8);
        break;
    case WF_I32: {
        int32_t i = (int32_t)x;
        memcpy(p, &i, 4);
        break;
    }
    case WF_I64: {
        int64_t i = to_i64(x);
        memcpy(p, &i, 8);
        break;
    }
    case WF_I16: {
        int16_t i = (int16_t)x;
        memcpy(p, &i, 2);
        break;
    }
    case WF_I8:
        *(int8_t *)p = (int8_t)x;
        break;
    default:
        *p = (unsigned char)x;
        break;
    }
}

/* Element offset of logical linear index `lin` in a buffer with strides. */
static int64_t offset_of(const wf_buffer *b, int64_t lin) {
    bool dense = true;
    for (int d = 0; d < b->ndim; d++)
        dense &= b->strides[d] == 0;
    if (dense)
        return lin;
    int64_t off = 0;
    for (int d = b->ndim - 1; d >= 0; d--) {
        off += (lin % b->shape[d]) * b->strides[d];
        lin /= b->shape[d];
    }
    return off;
}

/* Computed in double; the caller rounds to the output's type (one rounding,
   like the executor: exact for + - * / and sqrt, within a few ulp of the
   GPU's float transcendentals). */
static double unary(int op, double x) {
    switch (op) {
    case WF_NEG:
        return -x;
    case WF_ABS:
        return fabs(x);
    case WF_EXP:
        return exp(x);
    case WF_LOG:
        return log(x);
    case WF_SQRT:
        return sqrt(x);
    case WF_RSQRT:
        return 1.0 / sqrt(x);
    case WF_SIN:
        return sin(x);
    case WF_COS:
        return cos(x);
    case WF_TANH:
        return tanh(x);
    case WF_SIGMOID:
        return 1.0 / (1.0 + exp(-x));
    case WF_RELU:
        return x > 0 ? x : 0;
    default:
        return 1.0 / x;
    }
}

static double binary(int op, double a, double b) {
    switch (op) {
    case WF_ADD:
        return a + b;
    case WF_SUB:
        return a - b;
    case WF_MUL:
        return a * b;
    case WF_DIV:
        return a / b;
    case WF_MAX: /* NaN propagates, as in torch.maximum / minimum */
        return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
    case WF_MIN:
        return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
    case WF_EQ:
        return a == b;
    case WF_NE:
        return a != b;
    case WF_LT:
        return a < b;
    case WF_LE:
        return a <= b;
    case WF_GT:
        return a > b;
    case WF_GE:
        return a >= b;
    default:
        return pow(a, b);
    }
}

/* Logical multi-index of lin in shape. */
static void unravel(int64_t lin, const int64_t *shape, int n, int64_t *idx) {
    for (int d = n - 1; d >= 0; d--) {
        idx[d] = lin % shape[d];
        lin /= shape[d];
    }
}

static int64_t ravel(const int64_t *idx, const int64_t *shape, int n) {
    int64_t lin = 0;
    for (int d = 0; d < n; d++)
        lin = lin * shape[d] + idx[d];
    return lin;
}

/* The element of input k of op that the output's multi-index oidx reads. */
static int64_t input_at(const ir_op *op, int k, const rtensor *in, const int64_t *oidx) {
    int64_t iidx[8] = {0};
    for (int d = 0; d < op->out->logical.n; d++) {
        int s = op->in_dim[k][d];
        if (s >= 0)
            iidx[s] = in->shape[s] == 1 ? 0 : oidx[d];
    }
    return ravel(iidx, in->shape, in->ndim);
}

static double read_input(const ir_op *op, int k, const rtensor *in, const int64_t *oidx) {
    return in->v[input_at(op, k, in, oidx)];
}

/* A reduction, in double (one rounding at the end): the output keeps its
   reduced dims with extent 1, so consumers index it like any tensor. max
   and min propagate NaN, as PyTorch's do. */
static double reduce_step(int op, double acc, double x) {
    if (op == WF_ADD)
        return acc + x;
    if (op == WF_MUL)
        return acc * x;
    if (isnan(acc) || isnan(x))
        return NAN;
    return (op == WF_MAX) == (x > acc) ? x : acc;
}

/* The scale of a reduction's step: the sum of |x| for a sum, the product of
   them for a product, the largest for max and min. */
static double scale_step(int op, double acc, double s) {
    return op == WF_ADD ? acc + s : op == WF_MUL ? acc * s : fmax(acc, s);
}

static bool eval_reduce(const ir_op *op, rtensor *t) {
    rtensor *o = &t[op->out->id];
    const rtensor *in = &t[op->in[0]->id];
    int64_t n = numel(o->shape, o->ndim), m = numel(in->shape, in->ndim), idx[8], oidx[8] = {0};
    double init = op->sub == WF_ADD   ? 0
                  : op->sub == WF_MUL ? 1
                  : op->sub == WF_MAX ? -INFINITY
                                      : INFINITY;
    o->v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    o->s = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!o->v || !o->s)
        return false;
    for (int64_t i = 0; i < n; i++) {
        o->v[i] = init;
        o->s[i] = op->sub == WF_MUL ? 1 : 0;
    }
    for (int64_t j = 0; j < m; j++) {
        unravel(j, in->shape, in->ndim, idx);
        for (int d = 0; d < o->ndim; d++)
            oidx[d] = o->shape[d] == 1 || op->in_dim[0][d] < 0 ? 0 : idx[op->in_dim[0][d]];
        int64_t i = ravel(oidx, o->shape, o->ndim);
        o->v[i] = reduce_step(op->sub, o->v[i], in->v[j]);
        o->s[i] = scale_step(op->sub, o->s[i], in->s[j]);
    }
    for (int64_t i = 0; i < n; i++)
        o->v[i] = round_to(op->out->dtype, o->v[i]);
    return true;
}

/* Operand k of an elementwise op (a tensor or a scalar constant). A comparison's
   operands are first converted to the type it compares in (f32 for 16-bit types). */
static double operand(const ir_op *op, int k, const rtensor *t, const int64_t *idx) {
    const ir_scalar *sc;
    int i = ir_op_operand(op, k, &sc);
    if (i < 0)
        return is_float(sc->dtype) ? sc->f : (double)sc->i;
    double v = read_input(op, i, &t[op->in[i]->id], idx);
    if (op->kind != OP_BINARY || !ir_binary_is_compare(op->sub) || !is_float(op->cdtype))
        return v;
    return op->cdtype == WF_F64 ? v : (double)(float)v;
}

static double operand_scale(const ir_op *op, int k, const rtensor *t, const int64_t *idx) {
    const ir_scalar *sc;
    int i = ir_op_operand(op, k, &sc);
    if (i < 0)
        return fabs(is_float(sc->dtype) ? sc->f : (double)sc->i);
    const rtensor *in = &t[op->in[i]->id];
    return in->s[input_at(op, i, in, idx)];
}

/* The scale of an elementwise result r: a + b and a - b add their operands'
   scales, a * b multiplies them, a / b divides a's by |b|, max and min take
   the larger,
   neg, abs, relu, copies and casts keep their operand's; the other ops
   (whose operands the fuzzer keeps exact) start from |r|. Never below |r|. */
static double element_scale(const ir_op *op, const rtensor *t, const int64_t *idx, double r) {
    double s = fabs(r);
    if (op->kind == OP_BINARY) {
        double a = operand_scale(op, 0, t, idx), b = operand_scale(op, 1, t, idx);
        s = op->sub == WF_ADD || op->sub == WF_SUB   ? a + b
            : op->sub == WF_MUL                      ? a * b
            : op->sub == WF_DIV                      ? a / fabs(operand(op, 1, t, idx))
            : op->sub == WF_MAX || op->sub == WF_MIN ? fmax(a, b)
                                                     : s;
    } else if (op->kind == OP_WHERE) {
        s = operand_scale(op, operand(op, 0, t, idx) != 0 ? 1 : 2, t, idx);
    } else if (op->kind != OP_UNARY || op->sub == WF_NEG || op->sub == WF_ABS ||
               op->sub == WF_RELU) {
        const rtensor *in = &t[op->in[0]->id];
        s = in->s[input_at(op, 0, in, idx)];
    }
    return fmax(s, fabs(r));
}

static double eval_element(const ir_op *op, rtensor *t, const int64_t *idx) {
    if (op->kind == OP_BINARY)
        return binary(op->sub, operand(op, 0, t, idx), operand(op, 1, t, idx));
    if (op->kind == OP_WHERE)
        return operand(op, 0, t, idx) != 0 ? operand(op, 1, t, idx) : operand(op, 2, t, idx);
    double a = read_input(op, 0, &t[op->in[0]->id], idx);
    return op->kind == OP_UNARY ? unary(op->sub, a) : a;
}

/* A wf_mma: the sum over the reduced dims of a * b, each product rounded to
   the compute type (exact for 16-bit inputs), summed in double and rounded
   once, as eval_reduce does. The loop runs over the full logical domain (a
   dim's extent: the operand's that is not broadcast). */
static bool eval_mma(const ir_op *op, rtensor *t) {
    rtensor *o = &t[op->out->id];
    const rtensor *a = &t[op->in[0]->id], *b = &t[op->in[1]->id];
    int n = op->out->logical.n;
    int64_t full[8], idx[8], oidx[8], no = numel(o->shape, o->ndim);
    for (int d = 0; d < n; d++) {
        int64_t ea = op->in_dim[0][d] >= 0 ? a->shape[op->in_dim[0][d]] : 1;
        int64_t eb = op->in_dim[1][d] >= 0 ? b->shape[op->in_dim[1][d]] : 1;
        full[d] = ea > eb ? ea : eb;
    }
    o->v = calloc((size_t)(no ? no : 1), sizeof(double));
    o->s = calloc((size_t)(no ? no : 1), sizeof(double));
    if (!o->v || !o->s)
        return false;
    for (int64_t j = 0; j < numel(full, n); j++) {
        unravel(j, full, n, idx);
        for (int d = 0; d < n; d++)
            oidx[d] = o->shape[d] == 1 ? 0 : idx[d];
        double p = read_input(op, 0, a, idx) * read_input(op, 1, b, idx);
        o->v[ravel(oidx, o->shape, o->ndim)] += round_to(op->out->dtype, p);
        o->s[ravel(oidx, o->shape, o->ndim)] +=
            a->s[input_at(op, 0, a, idx)] * b->s[input_at(op, 1, b, idx)];
    }
    for (int64_t i = 0; i < no; i++)
        o->v[i] = round_to(op->out->dtype, o->v[i]);
    return true;
}

static bool eval_op(const ir_op *op, rtensor *t) {
    rtensor *o = &t[op->out->id];
    if (op->kind == OP_REDUCE && op->nin == 2)
        return eval_mma(op, t);
    if (op->kind == OP_REDUCE)
        return eval_reduce(op, t);
    wf_dtype od = op->out->dtype;
    int64_t n = numel(o->shape, o->ndim), idx[8];
    o->v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    o->s = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!o->v || !o->s)
        return false;
    for (int64_t i = 0; i < n; i++) {
        unravel(i, o->shape, o->ndim, idx);
        double r = eval_element(op, t, idx);
        /* A cast from a float type saturates; integer arithmetic wraps. */
        bool saturate = op->kind == OP_CAST && is_float(op->in[0]->dtype) && !is_float(od);
        o->v[i] = saturate ? float_to_int(od, r) : round_to(od, r);
        o->s[i] = element_scale(op, t, idx, o->v[i]);
    }
    return true;
}

static bool visit(wf_tv *tv, rtensor *t, char *done) {
    if (done[tv->id])
        return true;
    ir_op *op = tv->def;
    for (int k = 0; k < op->nin; k++)
        if (!visit(op->in[k], t, done))
            return false;
    rtensor *o = &t[tv->id];
    o->ndim = tv->logical.n;
    for (int d = 0; d < o->ndim; d++) {
        /* Extents follow the op's inputs (symbolic sizes come from the buffers). */
        int64_t e = 1;
        for (int k = 0; k < op->nin; k++) {
            int s = op->in_dim[k][d];
            if (s >= 0 && t[op->in[k]->id].shape[s] > e)
                e = t[op->in[k]->id].shape[s];
        }
        o->shape[d] = tv->logical.ptr[d]->itype == IT_REDUCTION ? 1 : e;
    }
    done[tv->id] = 1;
    return eval_op(op, t);
}

/* Both evaluations: out gets the values, scale (when not NULL) one malloc'd
   array of scales per output. */
static bool evaluate(wf_fusion *f, const wf_buffer *in, int nin, wf_buffer *out, double **scale,
                     int nout) {
    int n = f->tvs.n;
    rtensor *t = calloc((size_t)n, sizeof *t);
    char *done = calloc((size_t)n, 1);
    bool ok = t && done && nin == f->inputs.n && nout == f->outputs.n;
    for (int i = 0; ok && i < nin; i++) {
        wf_tv *tv = f->inputs.ptr[i];
        rtensor *r = &t[tv->id];
        r->ndim = in[i].ndim;
        memcpy(r->shape, in[i].shape, sizeof r->shape);
        int64_t e = numel(r->shape, r->ndim);
        r->v = malloc(sizeof(double) * (size_t)(e ? e : 1));
        r->s = malloc(sizeof(double) * (size_t)(e ? e : 1));
        ok = r->v && r->s;
        for (int64_t j = 0; ok && j < e; j++) {
            r->v[j] = load(&in[i], offset_of(&in[i], j));
            r->s[j] = fabs(r->v[j]);
        }
        done[tv->id] = 1;
    }
    for (int i = 0; scale && i < nout; i++)
        scale[i] = NULL;
    for (int i = 0; ok && i < nout; i++) {
        wf_tv *tv = f->outputs.ptr[i];
        ok = visit(tv, t, done) && out[i].ndim == ir_tv_rank(tv);
        for (int d = 0; ok && d < out[i].ndim; d++) /* a reduction's dims are kept, extent 1 */
            ok = out[i].shape[d] == t[tv->id].shape[ir_tv_dim(tv, d)];
        int64_t e = numel(t[tv->id].shape, t[tv->id].ndim);
        for (int64_t j = 0; ok && j < e; j++)
            store(&out[i], offset_of(&out[i], j), t[tv->id].v[j]);
        if (ok && scale && (scale[i] = malloc(sizeof(double) * (size_t)(e ? e : 1))))
            memcpy(scale[i], t[tv->id].s, sizeof(double) * (size_t)e);
        ok = ok && (!scale || scale[i]);
    }
    for (int i = 0; t && i < n; i++) {
        free(t[i].v);
        free(t[i].s);
    }
    free(t);
    free(done);
    return ok;
}

bool ref_eval(wf_fusion *f, const wf_buffer *in, int nin, wf_buffer *out, int nout) {
    return evaluate(f, in, nin, out, NULL, nout);
}

bool ref_eval_scaled(wf_fusion *f, const wf_buffer *in, int nin, wf_buffer *out, double **scale,
                     int nout) {
    return evaluate(f, in, nin, out, scale, nout);
}

typedef struct {
    wf_fusion *f;
    const int64_t *sym;
} shape_binding;

/* T<id>.size[d] of an input is sym[input index * 8 + d]. */
static bool bind_size(void *ctx, const wf_val *v, int64_t *out) {
    const shape_binding *b = ctx;
    for (int i = 0; i < b->f->inputs.n; i++)
        if (b->f->inputs.ptr[i]->id == v->sym_a && v->sym == SYM_SIZE && b->sym) {
            *out = b->sym[i * 8 + v->sym_b];
            return true;
        }
    return false;
}

wf_buffer ref_buffer(wf_fusion *f, wf_tv *tv, const int64_t *sym) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    shape_binding bind = {f, sym};
    b.dtype = tv->dtype;
    b.ndim = ir_tv_rank(tv); /* a reduction's buffer has only its other dims */
    b.device = -1;
    for (int d = 0; d < b.ndim; d++)
        if (!val_eval(tv->logical.ptr[ir_tv_dim(tv, d)]->extent, bind_size, &bind, &b.shape[d]))
            b.shape[d] = 1;
    size_t bytes = (size_t)ref_numel(&b) * wf_dtype_size(b.dtype);
    b.data = calloc(bytes ? bytes : 1, 1);
    return b;
}

void ref_fill_random(wf_buffer *b, unsigned seed) {
    uint64_t s = seed * 2654435761u + 12345;
    int64_t n = ref_numel(b);
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double x = (double)((s >> 33) % 20001) / 1000.0 - 10.0; /* [-10, 10] */
        store(b, offset_of(b, i), x);
    }
}

void ref_poison(wf_buffer *b) {
    memset(b->data, 0xff, (size_t)ref_numel(b) * wf_dtype_size(b->dtype));
}

void ref_free(wf_buffer *b) {
    free(b->data);
    b->data = NULL;
}

double ref_get(const wf_buffer *b, int64_t i) {
    return load(b, offset_of(b, i));
}

int64_t ref_compare(const wf_buffer *a, const wf_buffer *b) {
    size_t es = wf_dtype_size(a->dtype);
    int64_t n = ref_numel(a);
    for (int64_t i = 0; i < n; i++)
        if (memcmp((const char *)a->data + i * (int64_t)es, (const char *)b->data + i * (int64_t)es,
                   es) != 0)
            return i;
    return -1;
}
