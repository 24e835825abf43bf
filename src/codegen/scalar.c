/*
 * scalar.c -- scalar operands (ir/scalar.c) as CUDA literals.
 *
 * The IR stores a scalar operand already converted to its op's compute type, so
 * the literal only has to spell that value exactly in that type: floats with 9
 * significant digits (enough to round-trip any f32) and an f suffix, doubles
 * with 17, non-finite values through their bit pattern (__uint_as_float /
 * __longlong_as_double: C++ has no NaN or infinity literal), 64-bit integers
 * with LL (INT64_MIN as an expression: its magnitude is no literal), narrower
 * integers as a cast of an int literal, bools as true / false. Negative values
 * are parenthesized so that they are safe after any operator.
 */
#include "codegen/codegen_int.h"

#include <math.h>
#include <string.h>

/* Digits of a finite float value, with ".0" where %g printed an integer. */
static void float_digits(sbuf *b, double x, int digits) {
    char t[64];
    snprintf(t, sizeof t, "%.*g", digits, x);
    sbuf_puts(b, t);
    if (!strpbrk(t, ".e"))
        sbuf_puts(b, ".0");
}

static void float_literal(sbuf *b, double x, bool dbl) {
    if (!isfinite(x)) {
        if (dbl) {
            uint64_t u;
            memcpy(&u, &x, 8);
            sbuf_printf(b, "__longlong_as_double(0x%016llxLL)", (unsigned long long)u);
        } else {
            float f = (float)x;
            uint32_t u;
            memcpy(&u, &f, 4);
            sbuf_printf(b, "__uint_as_float(0x%08xu)", (unsigned)u);
        }
        return;
    }
    bool neg = signbit(x);
    if (neg)
        sbuf_puts(b, "(");
    float_digits(b, x, dbl ? 17 : 9);
    if (!dbl)
        sbuf_puts(b, "f");
    if (neg)
        sbuf_puts(b, ")");
}

void cg_scalar_literal(sbuf *b, const ir_scalar *s) {
    if (ir_dtype_is_float(s->dtype)) {
        float_literal(b, s->f, ir_dtype(s->dtype)->compute == WF_F64);
        return;
    }
    switch (s->dtype) {
    case WF_BOOL:
        sbuf_puts(b, s->i ? "true" : "false");
        return;
    case WF_I64:
        if (s->i == INT64_MIN)
            sbuf_puts(b, "(-9223372036854775807LL - 1)");
        else
            sbuf_printf(b, s->i < 0 ? "(%lldLL)" : "%lldLL", (long long)s->i);
        return;
    default:
        sbuf_printf(b, "((%s)%lld)", cg_dtype_name(s->dtype), (long long)s->i);
        return;
    }
}
