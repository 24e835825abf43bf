/*
 * scalar.c -- scalar constants as operands of elementwise ops (nvFuser's scalar
 * Vals: `add(tv, IrBuilder::create<Val>(2.0))`).
 *
 * A scalar is a wf_tv handle with a value and no domains, outside the fusion's
 * tensor list (id -1), so that the op constructors take tensors and scalars alike
 * while no analysis, schedule or lowering pass ever sees one: an op stores its
 * scalar operands (ir_op.sc) already converted to the type it computes in, and each
 * backend spells them as literals (codegen) or constants (the executor).
 * Values are exact: a float scalar holds its value rounded to its type once; an
 * integer must be a value of its type. Converting to an op's compute type keeps a
 * float scalar in f32 for 16-bit ops (PyTorch's opmath, not rounded to the 16-bit
 * type) and refuses an integer that does not fit (no silent wrap).
 */
#include "ir/ir.h"

#include <math.h>

#include "base/half.h"

static void int_limits(wf_dtype t, int64_t *lo, int64_t *hi) {
    *lo = ir_dtype(t)->lo, *hi = ir_dtype(t)->hi;
}

/* x rounded to t's storage: 16-bit types round through f32, as wf_cast does. */
static double round_to(double x, wf_dtype t) {
    switch (t) {
    case WF_F32:
        return (double)(float)x;
    case WF_F16:
        return (double)half_to_float(float_to_half((float)x));
    case WF_BF16:
        return (double)bf16_to_float(float_to_bf16((float)x));
    default:
        return x;
    }
}

static bool int_value(wf_fusion *f, wf_dtype t, double fv, int64_t iv, bool is_int, int64_t *out) {
    int64_t lo, hi;
    int_limits(t, &lo, &hi);
    /* 2^63 as a double is out of range; every double below it converts exactly */
    if (!is_int && (!(fv == floor(fv)) || fv < -0x1p63 || fv >= 0x1p63))
        return err_failb(&f->err, WF_ERR_ARG,
                         "wf_full: %.17g is not a value of %s (an integer in %lld..%lld)", fv,
                         ir_dtype_short(t), (long long)lo, (long long)hi);
    int64_t v = is_int ? iv : (int64_t)fv;
    if (v < lo || v > hi)
        return err_failb(&f->err, WF_ERR_ARG, "wf_full: %lld is not a value of %s (%lld..%lld)",
                         (long long)v, ir_dtype_short(t), (long long)lo, (long long)hi);
    *out = v;
    return true;
}

wf_tv *ir_full(wf_fusion *f, wf_dtype t, double fv, int64_t iv, bool is_int) {
    ir_scalar *s = ARENA_NEW(&f->arena, ir_scalar);
    wf_tv *tv = ARENA_NEW(&f->arena, wf_tv);
    if (!s || !tv)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    s->dtype = t;
    if (ir_dtype_is_float(t))
        s->f = round_to(is_int ? (double)iv : fv, t);
    else if (!int_value(f, t, fv, iv, is_int, &s->i))
        return NULL;
    tv->id = -1;
    tv->f = f;
    tv->dtype = t;
    tv->mem = WF_MEM_LOCAL;
    tv->dimsep = -1;
    tv->scalar = s;
    return tv;
}

bool ir_scalar_to(wf_fusion *f, const ir_scalar *s, wf_dtype t, ir_scalar *out) {
    out->dtype = t;
    bool sf = ir_dtype_is_float(s->dtype);
    if (ir_dtype_is_float(t)) {
        double x = sf ? s->f : (double)s->i;
        out->f = t == WF_F64 ? x : (double)(float)x; /* 16-bit ops compute in f32 */
        return true;
    }
    int64_t lo, hi;
    int_limits(t, &lo, &hi);
    if (!sf && s->i >= lo && s->i <= hi) {
        out->i = s->i;
        return true;
    }
    sbuf b = {0};
    ir_print_scalar(&b, s);
    err_failb(&f->err, WF_ERR_ARG,
              "the scalar constant %s does not fit %s, the type the op computes in (%lld..%lld); "
              "cast the tensor operand to a wider type first",
              sbuf_str(&b), ir_dtype_short(t), (long long)lo, (long long)hi);
    sbuf_free(&b);
    return false;
}

int ir_op_operand(const ir_op *op, int k, const ir_scalar **sc) {
    *sc = op->sc[k];
    if (*sc)
        return -1;
    int ti = 0;
    for (int j = 0; j < k; j++)
        ti += op->sc[j] == NULL;
    return ti;
}

void ir_print_scalar(sbuf *b, const ir_scalar *s) {
    sbuf_printf(b, "%s(", ir_dtype_short(s->dtype));
    if (s->dtype == WF_BOOL)
        sbuf_puts(b, s->i ? "true" : "false");
    else if (ir_dtype_is_float(s->dtype))
        sbuf_printf(b, s->dtype == WF_F64 ? "%.17g" : "%.9g", s->f);
    else
        sbuf_printf(b, "%lld", (long long)s->i);
    sbuf_puts(b, ")");
}
