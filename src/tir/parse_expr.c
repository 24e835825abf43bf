/*
 * parse_expr.c -- TVMScript expressions: Python's precedence (or, and, not,
 * comparisons, + -, * / // %, unary -), buffer loads, int / float literals, dtype casts
 * (T.float32(0), T.Cast("float16", x)) and the intrinsics T.max, T.min, T.exp, T.sqrt
 * and T.if_then_else. Nesting is bounded (TIR_MAX_EXPR_DEPTH), so deep input is an
 * error, not a stack overflow; '/' on integers is refused (TVMScript means floor
 * division by '//').
 */
#include <math.h>
#include <string.h>

#include "tir/tir_int.h"

#include <stdio.h>
#include <string.h>

tir_expr *tir_new_expr(parser *ps, tir_expr_kind k, int nargs) {
    tir_expr *e = ARENA_NEW(&ps->s->arena, tir_expr);
    if (e && nargs)
        e->args = ARENA_ARRAY(&ps->s->arena, tir_expr *, nargs);
    if (!e || (nargs && !e->args))
        return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    e->kind = k;
    e->nargs = nargs;
    e->dtype = WF_I32;
    return e;
}

/* A parenthesized argument list of exactly n expressions. */
bool tir_parse_args(parser *ps, int n, tir_expr **out, const char *fn) {
    const tok *start = ps->t;
    if (!tir_expect_op(ps, "("))
        return false;
    int k = 0;
    while (tir_ok(ps) && !tir_is_op(ps->t, ")")) {
        if (k == n) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s takes %d argument%s", fn, n, n == 1 ? "" : "s");
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, msg);
        }
        if (!(out[k++] = tir_parse_expr(ps)))
            return false;
        if (!tir_accept_op(ps, ","))
            break;
    }
    if (tir_ok(ps) && k != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s takes %d argument%s", fn, n, n == 1 ? "" : "s");
        return tir_fail_at(ps, start, WF_ERR_ARG, msg);
    }
    return tir_expect_op(ps, ")");
}

static wf_dtype join_dtype(const tir_expr *a, const tir_expr *b) {
    bool fa = a->dtype == WF_F32 || a->dtype == WF_F16 || a->dtype == WF_BF16 || a->dtype == WF_F64;
    return fa ? a->dtype : b->dtype;
}

/* T.float32("inf"), "-inf", "nan": how TVM prints the non-finite constants. */
static tir_expr *parse_special_float(parser *ps, wf_dtype dt) {
    static const struct {
        const char *text;
        double v;
    } sp[] = {{"inf", INFINITY}, {"-inf", -INFINITY}, {"nan", NAN}};
    tir_next(ps);
    const tok *t = ps->t;
    bool is_f = dt == WF_F32 || dt == WF_F16 || dt == WF_BF16 || dt == WF_F64;
    for (size_t i = 0; is_f && i < sizeof sp / sizeof sp[0]; i++)
        if ((size_t)t->len == strlen(sp[i].text) && !strncmp(t->p, sp[i].text, (size_t)t->len)) {
            tir_next(ps);
            tir_expr *c = tir_expect_op(ps, ")") ? tir_new_expr(ps, TE_FLOAT, 0) : NULL;
            if (c)
                c->dtype = dt, c->fval = sp[i].v;
            return c;
        }
    tir_fail_at(ps, t, WF_ERR_UNSUPPORTED,
                "unsupported: a string constant other than \"inf\", \"-inf\" or \"nan\" of a "
                "float type");
    return NULL;
}

/* T.min_value("float32") / T.max_value("int8"): the type's extreme value, a constant
   (TVM prints it as one: T.float32(-340282346638528859811704183484516925440.0)). */
static tir_expr *parse_limit(parser *ps, bool max) {
    static const struct {
        wf_dtype t;
        double lo, hi;
    } lim[] = {{WF_F32, -3.4028234663852886e38, 3.4028234663852886e38},
               {WF_F16, -65504.0, 65504.0},
               {WF_BF16, -3.3895313892515355e38, 3.3895313892515355e38},
               {WF_F64, -1.7976931348623157e308, 1.7976931348623157e308},
               {WF_I8, -128, 127},
               {WF_I16, -32768, 32767},
               {WF_I32, -2147483648.0, 2147483647.0},
               {WF_U8, 0, 255}};
    wf_dtype dt;
    if (!tir_expect_op(ps, "(") || !tir_parse_dtype_string(ps, &dt) || !tir_expect_op(ps, ")"))
        return NULL;
    bool is_f = dt == WF_F32 || dt == WF_F16 || dt == WF_BF16 || dt == WF_F64;
    tir_expr *c = tir_new_expr(ps, is_f ? TE_FLOAT : TE_INT, 0);
    if (!c)
        return NULL;
    c->dtype = dt;
    if (dt == WF_I64)
        c->ival = max ? INT64_MAX : INT64_MIN;
    else if (dt == WF_BOOL)
        c->ival = max;
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
        if (lim[i].t == dt) {
            c->fval = max ? lim[i].hi : lim[i].lo;
            c->ival = (int64_t)c->fval;
        }
    return c;
}

static tir_expr *parse_call(parser *ps, const tok *fn) {
    static const struct {
        const char *name;
        tir_callee op;
        int nargs;
    } calls[] = {{"max", TC_MAX, 2},
                 {"min", TC_MIN, 2},
                 {"exp", TC_EXP, 1},
                 {"sqrt", TC_SQRT, 1},
                 {"if_then_else", TC_IF_THEN_ELSE, 3},
                 {"sigmoid", TC_SIGMOID, 1},
                 {"tanh", TC_TANH, 1}};
    wf_dtype dt;
    if (tir_dtype_of(fn, &dt) && tir_is_op(ps->t, "(") && ps->t[1].kind == TK_STRING)
        return parse_special_float(ps, dt);
    if (tir_dtype_of(fn, &dt)) {
        tir_expr *a[1];
        if (!tir_parse_args(ps, 1, a, "a dtype cast"))
            return NULL;
        if (a[0]->kind == TE_INT || a[0]->kind == TE_FLOAT) {
            bool is_f = dt == WF_F32 || dt == WF_F16 || dt == WF_BF16 || dt == WF_F64;
            double v = a[0]->kind == TE_INT ? (double)a[0]->ival : a[0]->fval;
            /* Only a value in int64's range converts (C leaves the rest undefined). */
            bool fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
            if (!is_f && !fits) {
                tir_fail_at(ps, ps->t, WF_ERR_ARG,
                            "the constant is outside the range of a 64-bit integer");
                return NULL;
            }
            tir_expr *c = tir_new_expr(ps, is_f ? TE_FLOAT : TE_INT, 0);
            if (c)
                c->dtype = dt, c->fval = v, c->ival = fits ? (int64_t)v : 0;
            return c;
        }
        tir_expr *c = tir_new_expr(ps, TE_CALL, 1);
        if (c)
            c->op = TC_CAST, c->dtype = dt, c->args[0] = a[0];
        return c;
    }
    if (tir_is_name(fn, "min_value") || tir_is_name(fn, "max_value"))
        return parse_limit(ps, tir_is_name(fn, "max_value"));
    if (tir_is_name(fn, "Cast")) { /* T.Cast("float16", x): how TVM prints a cast */
        tir_expr *c = tir_new_expr(ps, TE_CALL, 1);
        if (!c || !tir_expect_op(ps, "(") || !tir_parse_dtype_string(ps, &c->dtype) ||
            !tir_expect_op(ps, ",") || !(c->args[0] = tir_parse_expr(ps)) ||
            !tir_expect_op(ps, ")"))
            return NULL;
        c->op = TC_CAST;
        return c;
    }
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (tir_is_name(fn, calls[i].name)) {
            tir_expr *c = tir_new_expr(ps, TE_CALL, calls[i].nargs);
            if (!c || !tir_parse_args(ps, calls[i].nargs, c->args, calls[i].name))
                return NULL;
            c->op = calls[i].op;
            c->dtype = c->nargs == 3 ? join_dtype(c->args[1], c->args[2]) : c->args[0]->dtype;
            if (c->nargs == 2)
                c->dtype = join_dtype(c->args[0], c->args[1]);
            return c;
        }
    char msg[128];
    snprintf(msg, sizeof msg, "unsupported: T.%.*s in an expression", fn->len, fn->p);
    tir_fail_at(ps, fn, WF_ERR_UNSUPPORTED, msg);
    return NULL;
}

tir_expr *tir_parse_load(parser *ps, tir_buffer *b, const tok *at) {
    tir_expr *idx[WF_MAX_RANK];
    int n = 0;
    tir_next(ps); /* [ */
    while (tir_ok(ps) && !tir_is_op(ps->t, "]")) {
        if (n == b->ndim) {
            tir_fail_at(ps, at, WF_ERR_ARG, "too many indices for this buffer");
            return NULL;
        }
        if (!(idx[n++] = tir_parse_expr(ps)))
            return NULL;
        if (tir_is_op(ps->t, ":")) {
            tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: a slice here");
            return NULL;
        }
        if (!tir_accept_op(ps, ","))
            break;
    }
    if (!tir_expect_op(ps, "]"))
        return NULL;
    if (n != b->ndim) {
        char msg[128];
        snprintf(msg, sizeof msg, "buffer %s has %d dimension%s but %d index%s given", b->name,
                 b->ndim, b->ndim == 1 ? "" : "s", n, n == 1 ? " is" : "es are");
        tir_fail_at(ps, at, WF_ERR_ARG, msg);
        return NULL;
    }
    return tir_load(ps->s, b, n, idx);
}

static tir_expr *parse_primary(parser *ps) {
    const tok *t = ps->t;
    if (t->kind == TK_INT || t->kind == TK_FLOAT) {
        tir_expr *e = tir_new_expr(ps, t->kind == TK_INT ? TE_INT : TE_FLOAT, 0);
        if (e && t->kind == TK_INT)
            e->ival = t->ival;
        else if (e)
            e->fval = t->fval, e->dtype = WF_F32;
        tir_next(ps);
        return e;
    }
    if (tir_accept_op(ps, "(")) {
        tir_expr *e = tir_parse_expr(ps);
        return e && tir_expect_op(ps, ")") ? e : NULL;
    }
    const tok *attr = tir_t_attr(ps);
    if (attr) {
        ps->t += 3;
        return parse_call(ps, attr);
    }
    if (t->kind == TK_NAME) {
        sym *x = tir_lookup(ps, t);
        if (!x) {
            char msg[160];
            snprintf(msg, sizeof msg, "name '%.*s' is not defined", t->len > 100 ? 100 : t->len,
                     t->p);
            tir_fail_at(ps, t, WF_ERR_ARG, msg);
            return NULL;
        }
        if (x->buf && x->buf->handle && x->name == x->buf->handle) {
            tir_fail_at(ps, t, WF_ERR_ARG,
                        "a T.handle is not a buffer: use the buffer T.match_buffer makes of it");
            return NULL;
        }
        tir_next(ps);
        if (x->var)
            return tir_var_ref(ps->s, x->var);
        if (!tir_is_op(ps->t, "[")) {
            tir_fail_at(ps, t, WF_ERR_UNSUPPORTED, "unsupported: a buffer used without indices");
            return NULL;
        }
        return tir_parse_load(ps, x->buf, t);
    }
    tir_fail_at(ps, t, t->kind == TK_EOF ? WF_ERR_ARG : WF_ERR_UNSUPPORTED,
                t->kind == TK_EOF ? "unexpected end of input" : "unsupported: this expression");
    return NULL;
}

/* Counts one more level of nesting; false (and the error) past TIR_MAX_EXPR_DEPTH. */
static bool deeper(parser *ps) {
    if (++ps->depth <= TIR_MAX_EXPR_DEPTH)
        return true;
    return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                       "unsupported: an expression nested this deeply");
}

static tir_expr *parse_unary(parser *ps) {
    if (tir_accept_op(ps, "-")) {
        /* Two levels: -x prints as 0 - (x), a subtraction and a bracket, and what is
           printed must parse again within the same bound (the fuzzer's round trip). */
        int saved = ps->depth;
        tir_expr *a = deeper(ps) && deeper(ps) ? parse_unary(ps) : NULL;
        ps->depth = saved;
        if (!a)
            return NULL;
        if (a->kind == TE_INT || a->kind == TE_FLOAT) {
            a->ival = -a->ival, a->fval = -a->fval;
            return a;
        }
        tir_expr *z = tir_new_expr(ps, TE_INT, 0);
        tir_expr *e = z ? tir_bin(ps->s, TB_SUB, z, a) : NULL;
        return e;
    }
    return parse_primary(ps);
}

typedef struct {
    const char *op;
    tir_binop b;
    int level;
} binop_row;

static const binop_row binops[] = {{"or", TB_OR, 1},       {"and", TB_AND, 2}, {"<", TB_LT, 4},
                                   {"<=", TB_LE, 4},       {">", TB_GT, 4},    {">=", TB_GE, 4},
                                   {"==", TB_EQ, 4},       {"!=", TB_NE, 4},   {"+", TB_ADD, 5},
                                   {"-", TB_SUB, 5},       {"*", TB_MUL, 6},   {"/", TB_DIV, 6},
                                   {"//", TB_FLOORDIV, 6}, {"%", TB_MOD, 6}};

static const binop_row *binop_at(const tok *t, int level) {
    for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
        if (binops[i].level == level &&
            (tir_is_op(t, binops[i].op) || (t->kind == TK_NAME && tir_is_name(t, binops[i].op))))
            return &binops[i];
    return NULL;
}

/* Precedence climbing over the levels of binops; level 3 is `not`. */
static tir_expr *parse_level(parser *ps, int level) {
    if (level > 6)
        return parse_unary(ps);
    if (level == 3 && tir_is_name(ps->t, "not")) {
        tir_next(ps);
        tir_expr *a = deeper(ps) ? parse_level(ps, 3) : NULL;
        ps->depth--;
        tir_expr *e = a ? tir_new_expr(ps, TE_NOT, 1) : NULL;
        if (e)
            e->args[0] = a, e->dtype = WF_BOOL;
        return e;
    }
    if (level == 3)
        return parse_level(ps, 4);
    tir_expr *a = parse_level(ps, level + 1);
    const binop_row *r;
    int saved = ps->depth; /* a long chain counts as deep: its tree is as deep as it is long */
    while (a && (r = binop_at(ps->t, level))) {
        const tok *optok = ps->t;
        if (!deeper(ps))
            return NULL;
        tir_next(ps);
        tir_expr *b = parse_level(ps, level + 1);
        if (b && r->b == TB_DIV && a->dtype != WF_F32 && a->dtype != WF_F16 &&
            a->dtype != WF_BF16 && a->dtype != WF_F64 && b->dtype != WF_F32 && b->dtype != WF_F16 &&
            b->dtype != WF_BF16 && b->dtype != WF_F64) {
            tir_fail_at(ps, optok, WF_ERR_UNSUPPORTED,
                        "unsupported: '/' on integers (write '//' for floor division)");
            return NULL;
        }
        a = b ? tir_bin(ps->s, r->b, a, b) : NULL;
        if (a && level == 4 && binop_at(ps->t, 4)) {
            tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: chained comparisons");
            return NULL;
        }
    }
    ps->depth = saved;
    return a;
}

tir_expr *tir_parse_expr(parser *ps) {
    if (++ps->depth > TIR_MAX_EXPR_DEPTH) {
        tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: an expression nested this deeply");
        return NULL;
    }
    tir_expr *e = parse_level(ps, 1);
    ps->depth--;
    return e;
}
