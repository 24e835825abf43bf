/*
 * parse.c -- a recursive-descent parser for one classic-TVMScript @T.prim_func.
 *
 * Input: the tokens of lex.c. Output: the program in s (parameters, root allocations,
 * body). The subset: T.Buffer parameters, T.func_attr, T.alloc_buffer, `for` over
 * range / T.grid / T.serial / T.unroll / T.vectorized / T.parallel / T.thread_binding,
 * `with T.block(...)` holding T.axis.spatial / reduce / remap, T.where, T.reads /
 * T.writes (accepted and re-inferred, as TVM would infer them), `with T.init()`, stores
 * with = += -= *=, and expressions with arithmetic, comparisons, and / or / not, T.max,
 * T.min, T.exp, T.sqrt, T.if_then_else and dtype casts. It also reads back what the
 * printer writes. Anything else stops with an "unsupported: ..." error at its token;
 * the parser never recurses without consuming a token, so any input terminates.
 */
#include "tir/tir_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    tir_var *var;
    tir_buffer *buf;
    int64_t extent; /* a loop variable's extent (T.axis.remap takes it) */
} sym;

typedef struct {
    wf_tir *s;
    const char *src;
    tok *t; /* the current token */
    VEC(sym) syms;
    tir_block *blk; /* the block whose declarations are being read, or NULL */
    int depth;      /* expression nesting: bounded so that deep input cannot exhaust the stack */
} parser;

#define TIR_MAX_EXPR_DEPTH 200

static tir_stmt *parse_stmt(parser *ps);

/* ---- tokens ---- */

static bool fail_at(parser *ps, const tok *t, wf_status code, const char *msg) {
    return tir_error_at(ps->s, ps->src, t->line, t->col, code, "%s", msg);
}

static bool is_op(const tok *t, const char *op) {
    return t->kind == TK_OP && t->len == (int)strlen(op) && strncmp(t->p, op, t->len) == 0;
}

static bool is_name(const tok *t, const char *name) {
    return t->kind == TK_NAME && t->len == (int)strlen(name) && strncmp(t->p, name, t->len) == 0;
}

static bool ok(parser *ps) {
    return !err_set(&ps->s->err);
}

static void next(parser *ps) {
    if (ps->t->kind != TK_EOF)
        ps->t++;
}

static bool accept_op(parser *ps, const char *op) {
    if (!is_op(ps->t, op))
        return false;
    next(ps);
    return true;
}

static bool expect_op(parser *ps, const char *op) {
    if (accept_op(ps, op))
        return true;
    char msg[64];
    snprintf(msg, sizeof msg, "expected '%s'", op);
    return fail_at(ps, ps->t, WF_ERR_ARG, msg);
}

static bool expect_kind(parser *ps, tok_kind k, const char *what) {
    if (ps->t->kind == k) {
        next(ps);
        return true;
    }
    char msg[64];
    snprintf(msg, sizeof msg, "expected %s", what);
    return fail_at(ps, ps->t, WF_ERR_ARG, msg);
}

static char *tok_str(parser *ps, const tok *t) {
    char *p = arena_alloc(&ps->s->arena, (size_t)t->len + 1);
    if (!p)
        return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    memcpy(p, t->p, (size_t)t->len);
    return p;
}

/* "T" "." NAME: returns the attribute token, or NULL when the tokens are not T.<x>. */
static const tok *t_attr(parser *ps) {
    if (is_name(ps->t, "T") && is_op(ps->t + 1, ".") && ps->t[2].kind == TK_NAME)
        return ps->t + 2;
    return NULL;
}

static bool accept_t(parser *ps, const char *attr) {
    const tok *a = t_attr(ps);
    if (!a || !is_name(a, attr))
        return false;
    ps->t += 3;
    return true;
}

/* ---- names ---- */

static sym *lookup(parser *ps, const tok *t) {
    for (int i = ps->syms.n - 1; i >= 0; i--)
        if ((int)strlen(ps->syms.ptr[i].name) == t->len &&
            strncmp(ps->syms.ptr[i].name, t->p, t->len) == 0)
            return &ps->syms.ptr[i];
    return NULL;
}

static bool bind_name(parser *ps, const char *name, tir_var *v, tir_buffer *b) {
    sym x = {name, v, b, 0};
    if (!vec_push_arena(&ps->s->arena, &ps->syms, x))
        return wf_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

static tir_var *new_var_tok(parser *ps, const tok *t) {
    char *name = tok_str(ps, t);
    tir_var *v = name ? tir_var_new(ps->s, name) : NULL;
    if (v && !bind_name(ps, name, v, NULL))
        return NULL;
    return v;
}

/* ---- dtypes and shapes ---- */

static const struct {
    const char *name;
    wf_dtype t;
} dtypes[] = {{"float32", WF_F32}, {"float16", WF_F16}, {"bfloat16", WF_BF16}, {"float64", WF_F64},
              {"int8", WF_I8},     {"int16", WF_I16},   {"int32", WF_I32},     {"int64", WF_I64},
              {"uint8", WF_U8},    {"bool", WF_BOOL}};

static bool dtype_of(const tok *t, wf_dtype *out) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if ((int)strlen(dtypes[i].name) == t->len && strncmp(dtypes[i].name, t->p, t->len) == 0) {
            *out = dtypes[i].t;
            return true;
        }
    return false;
}

static bool parse_dtype_string(parser *ps, wf_dtype *out) {
    if (ps->t->kind != TK_STRING)
        return fail_at(ps, ps->t, WF_ERR_ARG, "expected a dtype string such as \"float32\"");
    if (!dtype_of(ps->t, out))
        return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                       "unsupported: this dtype (float32, float16, bfloat16, float64, int8, "
                       "int16, int32, int64, uint8, bool are)");
    next(ps);
    return true;
}

static bool parse_int(parser *ps, int64_t *out, const char *what) {
    if (ps->t->kind != TK_INT) {
        char msg[128];
        snprintf(msg, sizeof msg, "unsupported: %s must be an integer constant", what);
        return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, msg);
    }
    *out = ps->t->ival;
    next(ps);
    if (*out <= 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s must be positive", what);
        return fail_at(ps, ps->t - 1, WF_ERR_ARG, msg);
    }
    return true;
}

/* (256,) or (16, 16) or [16, 16] or 256 */
static bool parse_shape(parser *ps, tir_buffer *b) {
    const char *close = is_op(ps->t, "(") ? ")" : is_op(ps->t, "[") ? "]" : NULL;
    if (!close)
        return parse_int(ps, &b->shape[b->ndim++], "a buffer extent");
    next(ps);
    while (ok(ps) && !is_op(ps->t, close)) {
        if (b->ndim == WF_MAX_RANK)
            return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: a buffer of more than 8 dimensions");
        if (!parse_int(ps, &b->shape[b->ndim++], "a buffer extent"))
            return false;
        if (!accept_op(ps, ","))
            break;
    }
    return expect_op(ps, close);
}

/* The keyword arguments of T.Buffer / T.alloc_buffer after the shape. */
static bool parse_buffer_args(parser *ps, tir_buffer *b) {
    b->dtype = WF_F32;
    while (ok(ps) && accept_op(ps, ",")) {
        if (is_op(ps->t, ")"))
            break;
        if (ps->t->kind == TK_STRING) {
            if (!parse_dtype_string(ps, &b->dtype))
                return false;
            continue;
        }
        if (is_name(ps->t, "dtype") && is_op(ps->t + 1, "=")) {
            ps->t += 2;
            if (!parse_dtype_string(ps, &b->dtype))
                return false;
        } else if (is_name(ps->t, "scope") && is_op(ps->t + 1, "=")) {
            ps->t += 2;
            const tok *st = ps->t;
            if (!expect_kind(ps, TK_STRING, "a scope string"))
                return false;
            if (st->len == 6 && !strncmp(st->p, "global", 6))
                b->scope = TIR_GLOBAL;
            else if (st->len == 6 && !strncmp(st->p, "shared", 6))
                b->scope = TIR_SHARED;
            else if (st->len == 5 && !strncmp(st->p, "local", 5))
                b->scope = TIR_LOCAL;
            else
                return fail_at(ps, st, WF_ERR_UNSUPPORTED,
                               "unsupported: this scope (global, shared and local are)");
        } else
            return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: this buffer argument (a dtype and scope= are)");
    }
    return expect_op(ps, ")");
}

static tir_buffer *new_buffer(parser *ps, const tok *name) {
    sym *old = lookup(ps, name);
    if (old && old->buf) {
        fail_at(ps, name, WF_ERR_ARG, "a buffer of this name exists already");
        return NULL;
    }
    tir_buffer *b = ARENA_NEW(&ps->s->arena, tir_buffer);
    if (!b)
        return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    b->name = tok_str(ps, name);
    if (!b->name || !bind_name(ps, b->name, NULL, b))
        return NULL;
    return b;
}

/* ---- expressions ---- */

static tir_expr *parse_expr(parser *ps);

static tir_expr *new_expr(parser *ps, tir_expr_kind k, int nargs) {
    tir_expr *e = ARENA_NEW(&ps->s->arena, tir_expr);
    if (e && nargs)
        e->args = ARENA_ARRAY(&ps->s->arena, tir_expr *, nargs);
    if (!e || (nargs && !e->args))
        return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    e->kind = k;
    e->nargs = nargs;
    e->dtype = WF_I32;
    return e;
}

/* A parenthesized argument list of exactly n expressions. */
static bool parse_args(parser *ps, int n, tir_expr **out, const char *fn) {
    const tok *start = ps->t;
    if (!expect_op(ps, "("))
        return false;
    int k = 0;
    while (ok(ps) && !is_op(ps->t, ")")) {
        if (k == n) {
            char msg[96];
            snprintf(msg, sizeof msg, "%s takes %d argument%s", fn, n, n == 1 ? "" : "s");
            return fail_at(ps, ps->t, WF_ERR_ARG, msg);
        }
        if (!(out[k++] = parse_expr(ps)))
            return false;
        if (!accept_op(ps, ","))
            break;
    }
    if (ok(ps) && k != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s takes %d argument%s", fn, n, n == 1 ? "" : "s");
        return fail_at(ps, start, WF_ERR_ARG, msg);
    }
    return expect_op(ps, ")");
}

static wf_dtype join_dtype(const tir_expr *a, const tir_expr *b) {
    bool fa = a->dtype == WF_F32 || a->dtype == WF_F16 || a->dtype == WF_BF16 || a->dtype == WF_F64;
    return fa ? a->dtype : b->dtype;
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
                 {"if_then_else", TC_IF_THEN_ELSE, 3}};
    wf_dtype dt;
    if (dtype_of(fn, &dt)) {
        tir_expr *a[1];
        if (!parse_args(ps, 1, a, "a dtype cast"))
            return NULL;
        if (a[0]->kind == TE_INT || a[0]->kind == TE_FLOAT) {
            bool is_f = dt == WF_F32 || dt == WF_F16 || dt == WF_BF16 || dt == WF_F64;
            double v = a[0]->kind == TE_INT ? (double)a[0]->ival : a[0]->fval;
            tir_expr *c = new_expr(ps, is_f ? TE_FLOAT : TE_INT, 0);
            if (c)
                c->dtype = dt, c->fval = v, c->ival = (int64_t)v;
            return c;
        }
        tir_expr *c = new_expr(ps, TE_CALL, 1);
        if (c)
            c->op = TC_CAST, c->dtype = dt, c->args[0] = a[0];
        return c;
    }
    if (is_name(fn, "Cast")) { /* T.Cast("float16", x): how TVM prints a cast */
        tir_expr *c = new_expr(ps, TE_CALL, 1);
        if (!c || !expect_op(ps, "(") || !parse_dtype_string(ps, &c->dtype) ||
            !expect_op(ps, ",") || !(c->args[0] = parse_expr(ps)) || !expect_op(ps, ")"))
            return NULL;
        c->op = TC_CAST;
        return c;
    }
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        if (is_name(fn, calls[i].name)) {
            tir_expr *c = new_expr(ps, TE_CALL, calls[i].nargs);
            if (!c || !parse_args(ps, calls[i].nargs, c->args, calls[i].name))
                return NULL;
            c->op = calls[i].op;
            c->dtype = c->nargs == 3 ? join_dtype(c->args[1], c->args[2]) : c->args[0]->dtype;
            if (c->nargs == 2)
                c->dtype = join_dtype(c->args[0], c->args[1]);
            return c;
        }
    char msg[128];
    snprintf(msg, sizeof msg, "unsupported: T.%.*s in an expression", fn->len, fn->p);
    fail_at(ps, fn, WF_ERR_UNSUPPORTED, msg);
    return NULL;
}

static tir_expr *parse_load(parser *ps, tir_buffer *b, const tok *at) {
    tir_expr *idx[WF_MAX_RANK];
    int n = 0;
    next(ps); /* [ */
    while (ok(ps) && !is_op(ps->t, "]")) {
        if (n == b->ndim) {
            fail_at(ps, at, WF_ERR_ARG, "too many indices for this buffer");
            return NULL;
        }
        if (!(idx[n++] = parse_expr(ps)))
            return NULL;
        if (is_op(ps->t, ":")) {
            fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: a slice here");
            return NULL;
        }
        if (!accept_op(ps, ","))
            break;
    }
    if (!expect_op(ps, "]"))
        return NULL;
    if (n != b->ndim) {
        char msg[128];
        snprintf(msg, sizeof msg, "buffer %s has %d dimension%s but %d index%s given", b->name,
                 b->ndim, b->ndim == 1 ? "" : "s", n, n == 1 ? " is" : "es are");
        fail_at(ps, at, WF_ERR_ARG, msg);
        return NULL;
    }
    return tir_load(ps->s, b, n, idx);
}

static tir_expr *parse_primary(parser *ps) {
    const tok *t = ps->t;
    if (t->kind == TK_INT || t->kind == TK_FLOAT) {
        tir_expr *e = new_expr(ps, t->kind == TK_INT ? TE_INT : TE_FLOAT, 0);
        if (e && t->kind == TK_INT)
            e->ival = t->ival;
        else if (e)
            e->fval = t->fval, e->dtype = WF_F32;
        next(ps);
        return e;
    }
    if (accept_op(ps, "(")) {
        tir_expr *e = parse_expr(ps);
        return e && expect_op(ps, ")") ? e : NULL;
    }
    const tok *attr = t_attr(ps);
    if (attr) {
        ps->t += 3;
        return parse_call(ps, attr);
    }
    if (t->kind == TK_NAME) {
        sym *x = lookup(ps, t);
        if (!x) {
            char msg[160];
            snprintf(msg, sizeof msg, "name '%.*s' is not defined", t->len > 100 ? 100 : t->len,
                     t->p);
            fail_at(ps, t, WF_ERR_ARG, msg);
            return NULL;
        }
        next(ps);
        if (x->var)
            return tir_var_ref(ps->s, x->var);
        if (!is_op(ps->t, "[")) {
            fail_at(ps, t, WF_ERR_UNSUPPORTED, "unsupported: a buffer used without indices");
            return NULL;
        }
        return parse_load(ps, x->buf, t);
    }
    fail_at(ps, t, t->kind == TK_EOF ? WF_ERR_ARG : WF_ERR_UNSUPPORTED,
            t->kind == TK_EOF ? "unexpected end of input" : "unsupported: this expression");
    return NULL;
}

static tir_expr *parse_unary(parser *ps) {
    if (accept_op(ps, "-")) {
        tir_expr *a = parse_unary(ps);
        if (!a)
            return NULL;
        if (a->kind == TE_INT || a->kind == TE_FLOAT) {
            a->ival = -a->ival, a->fval = -a->fval;
            return a;
        }
        tir_expr *z = new_expr(ps, TE_INT, 0);
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
            (is_op(t, binops[i].op) || (t->kind == TK_NAME && is_name(t, binops[i].op))))
            return &binops[i];
    return NULL;
}

/* Precedence climbing over the levels of binops; level 3 is `not`. */
static tir_expr *parse_level(parser *ps, int level) {
    if (level > 6)
        return parse_unary(ps);
    if (level == 3 && is_name(ps->t, "not")) {
        next(ps);
        tir_expr *a = parse_level(ps, 3);
        tir_expr *e = a ? new_expr(ps, TE_NOT, 1) : NULL;
        if (e)
            e->args[0] = a, e->dtype = WF_BOOL;
        return e;
    }
    if (level == 3)
        return parse_level(ps, 4);
    tir_expr *a = parse_level(ps, level + 1);
    const binop_row *r;
    while (a && (r = binop_at(ps->t, level))) {
        const tok *optok = ps->t;
        next(ps);
        tir_expr *b = parse_level(ps, level + 1);
        if (b && r->b == TB_DIV && a->dtype != WF_F32 && a->dtype != WF_F16 &&
            a->dtype != WF_BF16 && a->dtype != WF_F64 && b->dtype != WF_F32 && b->dtype != WF_F16 &&
            b->dtype != WF_BF16 && b->dtype != WF_F64) {
            fail_at(ps, optok, WF_ERR_UNSUPPORTED,
                    "unsupported: '/' on integers (write '//' for floor division)");
            return NULL;
        }
        a = b ? tir_bin(ps->s, r->b, a, b) : NULL;
        if (a && level == 4 && binop_at(ps->t, 4)) {
            fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: chained comparisons");
            return NULL;
        }
    }
    return a;
}

static tir_expr *parse_expr(parser *ps) {
    if (++ps->depth > TIR_MAX_EXPR_DEPTH) {
        fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: an expression nested this deeply");
        return NULL;
    }
    tir_expr *e = parse_level(ps, 1);
    ps->depth--;
    return e;
}

/* ---- statements ---- */

static bool end_of_line(parser *ps) {
    if (ps->t->kind == TK_NEWLINE) {
        next(ps);
        return true;
    }
    return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: more on this line");
}

/* ':' NEWLINE INDENT stmt+ DEDENT; a new name scope. */
static tir_stmt *parse_suite(parser *ps, tir_block *blk) {
    if (!expect_op(ps, ":") || !expect_kind(ps, TK_NEWLINE, "a new line") ||
        !expect_kind(ps, TK_INDENT, "an indented block"))
        return NULL;
    int nsyms = ps->syms.n;
    tir_stmt *seq = tir_stmt_new(ps->s, TS_SEQ);
    (void)blk;
    while (seq && ok(ps) && ps->t->kind != TK_DEDENT && ps->t->kind != TK_EOF) {
        tir_stmt *st = parse_stmt(ps);
        if (st == (tir_stmt *)ps) /* a declaration: nothing to add */
            continue;
        if (!st || !tir_seq_push(ps->s, seq, st))
            return NULL;
    }
    if (!expect_kind(ps, TK_DEDENT, "the end of the block"))
        return NULL;
    ps->syms.n = nsyms;
    return seq;
}

/* A one-statement sequence is the statement itself. */
static tir_stmt *flatten(tir_stmt *seq) {
    return seq && seq->kind == TS_SEQ && seq->seq.n == 1 ? seq->seq.ptr[0] : seq;
}

static tir_for_kind loop_kind(parser *ps, const tok *fn, const char **thread) {
    *thread = NULL;
    if (is_name(fn, "serial"))
        return TIR_SERIAL;
    if (is_name(fn, "unroll"))
        return TIR_UNROLL;
    if (is_name(fn, "vectorized"))
        return TIR_VECTORIZED;
    if (is_name(fn, "parallel"))
        return TIR_PARALLEL;
    if (is_name(fn, "thread_binding"))
        return TIR_THREAD;
    (void)ps;
    return (tir_for_kind)-1;
}

static const char *const thread_names[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                           "threadIdx.x", "threadIdx.y", "threadIdx.z"};

const char *tir_thread_name(const char *p, int len) {
    for (size_t i = 0; i < sizeof thread_names / sizeof thread_names[0]; i++)
        if ((int)strlen(thread_names[i]) == len && !strncmp(thread_names[i], p, len))
            return thread_names[i];
    return NULL;
}

/* range(n) / range(0, n) / T.serial(n) / T.thread_binding(n, thread="x") / T.grid(...) */
static bool parse_iter(parser *ps, int nvars, int64_t *ext, tir_for_kind *kinds,
                       const char **threads) {
    const tok *at = ps->t;
    if (accept_t(ps, "grid")) {
        if (!expect_op(ps, "("))
            return false;
        for (int i = 0; i < nvars; i++) {
            if (!parse_int(ps, &ext[i], "a loop extent"))
                return false;
            kinds[i] = TIR_SERIAL, threads[i] = NULL;
            if (i + 1 < nvars && !expect_op(ps, ","))
                return false;
        }
        accept_op(ps, ",");
        if (!is_op(ps->t, ")"))
            return fail_at(ps, at, WF_ERR_ARG, "T.grid needs one extent per loop variable");
        return expect_op(ps, ")");
    }
    if (nvars != 1)
        return fail_at(ps, at, WF_ERR_ARG, "several loop variables need T.grid");
    kinds[0] = TIR_SERIAL, threads[0] = NULL;
    if (is_name(ps->t, "range"))
        next(ps);
    else if (t_attr(ps)) {
        const tok *fn = t_attr(ps);
        kinds[0] = loop_kind(ps, fn, &threads[0]);
        if ((int)kinds[0] < 0)
            return fail_at(ps, fn, WF_ERR_UNSUPPORTED, "unsupported: this loop kind");
        ps->t += 3;
    } else
        return fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: this loop iterator");
    if (!expect_op(ps, "("))
        return false;
    if (ps->t->kind == TK_INT && ps->t->ival == 0 && is_op(ps->t + 1, ","))
        ps->t += 2; /* range(0, n) */
    if (!parse_int(ps, &ext[0], "a loop extent"))
        return false;
    if (kinds[0] == TIR_THREAD) {
        if (!expect_op(ps, ",") || !(is_name(ps->t, "thread") && is_op(ps->t + 1, "=")))
            return fail_at(ps, ps->t, WF_ERR_ARG, "T.thread_binding needs thread=\"...\"");
        ps->t += 2;
        threads[0] = ps->t->kind == TK_STRING ? tir_thread_name(ps->t->p, ps->t->len) : NULL;
        if (!threads[0])
            return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: this thread axis (blockIdx.x/y/z and threadIdx.x/y/z "
                           "are)");
        next(ps);
    }
    return expect_op(ps, ")");
}

static tir_stmt *parse_for(parser *ps) {
    next(ps); /* for */
    const tok *names[TIR_MAX_LOOPS];
    int n = 0;
    do {
        if (n == TIR_MAX_LOOPS) {
            fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: this many loop variables");
            return NULL;
        }
        names[n++] = ps->t;
        if (!expect_kind(ps, TK_NAME, "a loop variable"))
            return NULL;
    } while (accept_op(ps, ","));
    if (!is_name(ps->t, "in")) {
        fail_at(ps, ps->t, WF_ERR_ARG, "expected 'in'");
        return NULL;
    }
    next(ps);
    int64_t ext[TIR_MAX_LOOPS];
    tir_for_kind kinds[TIR_MAX_LOOPS];
    const char *threads[TIR_MAX_LOOPS];
    if (!parse_iter(ps, n, ext, kinds, threads))
        return NULL;
    int nsyms = ps->syms.n;
    tir_var *vars[TIR_MAX_LOOPS];
    for (int i = 0; i < n; i++) {
        if (!(vars[i] = new_var_tok(ps, names[i])))
            return NULL;
        ps->syms.ptr[ps->syms.n - 1].extent = ext[i];
    }
    const tok *at = ps->t;
    tir_stmt *body = flatten(parse_suite(ps, NULL));
    ps->syms.n = nsyms;
    if (body && body->kind == TS_SEQ && body->seq.n == 0) {
        fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: a loop whose body has no statement");
        return NULL;
    }
    for (int i = n - 1; body && i >= 0; i--) {
        body = tir_for_new(ps->s, vars[i], ext[i], body);
        if (body)
            body->for_kind = kinds[i], body->thread = threads[i];
    }
    return body;
}

/* vi = T.axis.spatial(256, i)   or   vi, vk = T.axis.remap("SR", [i, k]) */
static bool parse_axis(parser *ps, tir_block *b, const tok **names, int n) {
    const tok *kind = ps->t + 4;
    ps->t += 5;
    tir_iter *old = b->iters;
    tir_iter *nw = ARENA_ARRAY(&ps->s->arena, tir_iter, b->niters + n);
    if (!nw)
        return wf_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    if (b->niters)
        memcpy(nw, old, sizeof(tir_iter) * (size_t)b->niters);
    b->iters = nw;
    if (is_name(kind, "remap")) {
        const tok *ks = ps->t + 1;
        if (!expect_op(ps, "(") || !expect_kind(ps, TK_STRING, "a string of S and R"))
            return false;
        if (ks->len != n)
            return fail_at(ps, ks, WF_ERR_ARG, "T.axis.remap needs one letter per variable");
        if (!expect_op(ps, ",") || !expect_op(ps, "["))
            return false;
        for (int i = 0; i < n; i++) {
            if (ks->p[i] != 'S' && ks->p[i] != 'R')
                return fail_at(ps, ks, WF_ERR_UNSUPPORTED,
                               "unsupported: this axis kind (S and R are)");
            const tok *lt = ps->t;
            sym *x = lt->kind == TK_NAME ? lookup(ps, lt) : NULL;
            if (!x || !x->var)
                return fail_at(ps, lt, WF_ERR_ARG, "T.axis.remap binds loop variables");
            next(ps);
            tir_iter *it = &b->iters[b->niters++];
            it->reduce = ks->p[i] == 'R';
            it->value = tir_var_ref(ps->s, x->var);
            it->extent = x->extent;
            if (!(it->var = new_var_tok(ps, names[i])) || !it->value)
                return false;
            if (i + 1 < n && !expect_op(ps, ","))
                return false;
        }
        return expect_op(ps, "]") && expect_op(ps, ")");
    }
    if (n != 1)
        return fail_at(ps, names[1], WF_ERR_ARG, "one variable per T.axis.spatial / reduce");
    bool reduce = is_name(kind, "reduce");
    if (!reduce && !is_name(kind, "spatial"))
        return fail_at(ps, kind, WF_ERR_UNSUPPORTED,
                       "unsupported: this axis kind (spatial, reduce and remap are)");
    tir_iter *it = &b->iters[b->niters];
    it->reduce = reduce;
    if (!expect_op(ps, "(") || !parse_int(ps, &it->extent, "an axis extent") ||
        !expect_op(ps, ",") || !(it->value = parse_expr(ps)) || !expect_op(ps, ")"))
        return false;
    b->niters++;
    return (it->var = new_var_tok(ps, names[0])) != NULL;
}

/* T.reads(...) / T.writes(...): skipped to the matching bracket, re-inferred later. */
static bool skip_call(parser *ps) {
    int depth = 0;
    do {
        if (ps->t->kind == TK_EOF || ps->t->kind == TK_NEWLINE)
            return fail_at(ps, ps->t, WF_ERR_ARG, "unbalanced brackets");
        if (is_op(ps->t, "(") || is_op(ps->t, "["))
            depth++;
        if (is_op(ps->t, ")") || is_op(ps->t, "]"))
            depth--;
        next(ps);
    } while (depth > 0);
    return true;
}

static tir_stmt *parse_block(parser *ps) {
    const tok *at = ps->t;
    ps->t += 4; /* with T . block */
    if (!expect_op(ps, "("))
        return NULL;
    const tok *nt = ps->t;
    if (!expect_kind(ps, TK_STRING, "the block's name as a string") || !expect_op(ps, ")"))
        return NULL;
    tir_block *b = ARENA_NEW(&ps->s->arena, tir_block);
    tir_stmt *st = tir_stmt_new(ps->s, TS_BLOCK);
    if (!b || !st)
        return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    b->name = tok_str(ps, nt);
    st->block = b, b->stmt = st;
    if (!b->name)
        return NULL;
    if (tir_find_block(ps->s, b->name)) {
        fail_at(ps, nt, WF_ERR_ARG, "a block of this name exists already");
        return NULL;
    }
    /* The block's own statements come first in the suite; parse_stmt routes them here. */
    tir_block *saved = ps->blk;
    ps->blk = b;
    tir_stmt *body = flatten(parse_suite(ps, b));
    ps->blk = saved;
    if (!body)
        return NULL;
    if (body->kind == TS_SEQ && body->seq.n == 0) {
        fail_at(ps, at, WF_ERR_ARG, "a block needs a body");
        return NULL;
    }
    b->body = body;
    if (!vec_push_arena(&ps->s->arena, &ps->s->blocks, b))
        return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    return st;
}

/* Statements that belong to the enclosing block rather than its body. */
static tir_stmt *parse_block_item(parser *ps, const tok *attr) {
    tir_block *b = ps->blk;
    if (!b) {
        fail_at(ps, attr, WF_ERR_ARG, "this belongs inside a T.block");
        return NULL;
    }
    if (is_name(attr, "where")) {
        ps->t += 3;
        tir_expr *a[1];
        if (!parse_args(ps, 1, a, "T.where"))
            return NULL;
        b->where = a[0];
    } else {
        ps->t += 3;
        if (!is_op(ps->t, "(")) {
            fail_at(ps, ps->t, WF_ERR_ARG, "expected '('");
            return NULL;
        }
        if (!skip_call(ps))
            return NULL;
    }
    return end_of_line(ps) ? (tir_stmt *)ps : NULL;
}

static tir_stmt *parse_init(parser *ps) {
    tir_block *b = ps->blk;
    if (!b) {
        fail_at(ps, ps->t, WF_ERR_ARG, "T.init() belongs inside a T.block");
        return NULL;
    }
    if (b->init) {
        fail_at(ps, ps->t, WF_ERR_ARG, "a block has one T.init()");
        return NULL;
    }
    ps->t += 4;
    if (!expect_op(ps, "(") || !expect_op(ps, ")"))
        return NULL;
    tir_block *saved = ps->blk;
    ps->blk = NULL;
    const tok *at = ps->t;
    b->init = flatten(parse_suite(ps, NULL));
    ps->blk = saved;
    if (b->init && b->init->kind == TS_SEQ && b->init->seq.n == 0) {
        fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: a T.init() with no statement");
        return NULL;
    }
    return b->init ? (tir_stmt *)ps : NULL;
}

static bool is_store_op(const tok *t) {
    return is_op(t, "=") || is_op(t, "+=") || is_op(t, "-=") || is_op(t, "*=");
}

/* NAME[idx] (=|+=|-=|*=) expr */
static tir_stmt *parse_store(parser *ps, sym *x) {
    const tok *at = ps->t;
    next(ps);
    tir_expr *lhs = parse_load(ps, x->buf, at);
    if (!lhs)
        return NULL;
    const tok *op = ps->t;
    if (!is_store_op(op)) {
        fail_at(ps, op, WF_ERR_ARG, "expected '=' or '+='");
        return NULL;
    }
    next(ps);
    tir_expr *rhs = parse_expr(ps);
    if (!rhs || !end_of_line(ps))
        return NULL;
    if (!is_op(op, "="))
        rhs = tir_bin(ps->s,
                      is_op(op, "+=")   ? TB_ADD
                      : is_op(op, "-=") ? TB_SUB
                                        : TB_MUL,
                      lhs, rhs);
    tir_stmt *st = tir_stmt_new(ps->s, TS_STORE);
    if (!st || !rhs)
        return NULL;
    st->buf = x->buf, st->nidx = lhs->nargs, st->idx = lhs->args, st->value = rhs;
    return st;
}

/* NAME = T.alloc_buffer(...) / NAME = T.axis...(...) / a, b = T.axis.remap(...) */
static tir_stmt *parse_assign(parser *ps) {
    const tok *names[TIR_MAX_LOOPS];
    int n = 0;
    do {
        if (n == TIR_MAX_LOOPS || ps->t->kind != TK_NAME) {
            fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: this statement");
            return NULL;
        }
        names[n++] = ps->t;
        next(ps);
    } while (accept_op(ps, ","));
    if (!expect_op(ps, "="))
        return NULL;
    tir_block *b = ps->blk;
    if (t_attr(ps) && is_name(t_attr(ps), "axis") && is_op(ps->t + 3, ".")) {
        if (!b) {
            fail_at(ps, ps->t, WF_ERR_ARG, "T.axis belongs inside a T.block");
            return NULL;
        }
        return parse_axis(ps, b, names, n) && end_of_line(ps) ? (tir_stmt *)ps : NULL;
    }
    if (n == 1 && (accept_t(ps, "alloc_buffer") || accept_t(ps, "Buffer"))) {
        tir_buffer *buf = new_buffer(ps, names[0]);
        if (!buf || !expect_op(ps, "(") || !parse_shape(ps, buf) || !parse_buffer_args(ps, buf) ||
            !end_of_line(ps))
            return NULL;
        bool pushed = b ? vec_push_arena(&ps->s->arena, &b->allocs, buf)
                        : vec_push_arena(&ps->s->arena, &ps->s->root_allocs, buf);
        if (!pushed)
            return wf_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
        return (tir_stmt *)ps;
    }
    fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
            "unsupported: this assignment (T.alloc_buffer and T.axis.* are supported)");
    return NULL;
}

static tir_stmt *parse_with(parser *ps) {
    const tok *t = ps->t;
    const tok *attr =
        is_name(t + 1, "T") && is_op(t + 2, ".") && t[3].kind == TK_NAME ? t + 3 : NULL;
    if (attr && is_name(attr, "block"))
        return parse_block(ps);
    if (attr && is_name(attr, "init"))
        return parse_init(ps);
    fail_at(ps, t + 1, WF_ERR_UNSUPPORTED,
            "unsupported: this with-statement (T.block and T.init are supported)");
    return NULL;
}

/* One statement; a declaration (axis, alloc, reads, ...) returns ps as a marker. */
static tir_stmt *parse_stmt(parser *ps) {
    const tok *t = ps->t;
    if (is_name(t, "for"))
        return parse_for(ps);
    if (is_name(t, "with"))
        return parse_with(ps);
    if (is_name(t, "pass")) {
        next(ps);
        return end_of_line(ps) ? (tir_stmt *)ps : NULL;
    }
    const tok *attr = t_attr(ps);
    if (attr && (is_name(attr, "reads") || is_name(attr, "writes") || is_name(attr, "where") ||
                 is_name(attr, "block_attr")))
        return parse_block_item(ps, attr);
    if (t->kind == TK_NAME && is_op(t + 1, "[")) {
        sym *x = lookup(ps, t);
        if (x && x->buf)
            return parse_store(ps, x);
    }
    if (t->kind == TK_NAME && (is_op(t + 1, "=") || is_op(t + 1, ",")))
        return parse_assign(ps);
    if (t->kind == TK_NAME && is_op(t + 1, "[")) {
        fail_at(ps, t, WF_ERR_ARG, "not a buffer");
        return NULL;
    }
    fail_at(ps, t, WF_ERR_UNSUPPORTED, "unsupported: this statement");
    return NULL;
}

/* ---- the function ---- */

static bool parse_params(parser *ps) {
    if (!expect_op(ps, "("))
        return false;
    while (ok(ps) && !is_op(ps->t, ")")) {
        const tok *name = ps->t;
        if (!expect_kind(ps, TK_NAME, "a parameter name") || !expect_op(ps, ":"))
            return false;
        if (!accept_t(ps, "Buffer"))
            return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: a parameter that is not a T.Buffer");
        tir_buffer *b = new_buffer(ps, name);
        if (!b || !expect_op(ps, "(") || !parse_shape(ps, b) || !parse_buffer_args(ps, b))
            return false;
        if (b->scope != TIR_GLOBAL)
            return fail_at(ps, name, WF_ERR_UNSUPPORTED, "unsupported: a parameter not in global");
        b->is_param = true;
        if (!vec_push_arena(&ps->s->arena, &ps->s->params, b))
            return wf_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
        if (!accept_op(ps, ","))
            break;
    }
    if (!expect_op(ps, ")"))
        return false;
    if (accept_op(ps, "->") && !(is_name(ps->t, "None") && (next(ps), true)))
        return fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: a return type other than None");
    return true;
}

/* T.func_attr({"global_symbol": "name", ...}) */
static bool parse_func_attr(parser *ps) {
    const tok *at = ps->t;
    ps->t += 3;
    if (!expect_op(ps, "(") || !expect_op(ps, "{"))
        return false;
    while (ok(ps) && !is_op(ps->t, "}")) {
        const tok *k = ps->t;
        if (!expect_kind(ps, TK_STRING, "a string key") || !expect_op(ps, ":"))
            return false;
        if (k->len == 13 && !strncmp(k->p, "global_symbol", 13)) {
            if (ps->t->kind != TK_STRING)
                return fail_at(ps, ps->t, WF_ERR_ARG, "global_symbol is a string");
            ps->s->name = tok_str(ps, ps->t);
            next(ps);
        } else if (!(accept_t(ps, "bool") && skip_call(ps)) && ps->t->kind != TK_STRING &&
                   ps->t->kind != TK_INT)
            return fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: this function attribute");
        else if (ps->t->kind == TK_STRING || ps->t->kind == TK_INT)
            next(ps);
        if (!accept_op(ps, ","))
            break;
    }
    return expect_op(ps, "}") && expect_op(ps, ")") && end_of_line(ps);
}

/* `from tvm.script import tir as T` and `import tvm` lines are accepted and skipped. */
static void skip_imports(parser *ps) {
    while (is_name(ps->t, "from") || is_name(ps->t, "import")) {
        while (ps->t->kind != TK_NEWLINE && ps->t->kind != TK_EOF)
            next(ps);
        if (ps->t->kind == TK_NEWLINE)
            next(ps);
    }
}

static bool parse_decorator(parser *ps) {
    if (!accept_op(ps, "@") || !accept_t(ps, "prim_func"))
        return fail_at(ps, ps->t, WF_ERR_ARG, "expected @T.prim_func");
    if (is_op(ps->t, "(") && !skip_call(ps))
        return false;
    return expect_kind(ps, TK_NEWLINE, "a new line");
}

/* The function body: root-level statements; `with T.block("root"):` is transparent. */
static bool parse_body(parser *ps) {
    tir_stmt *seq = tir_stmt_new(ps->s, TS_SEQ);
    if (!seq)
        return false;
    if (!expect_op(ps, ":") || !expect_kind(ps, TK_NEWLINE, "a new line") ||
        !expect_kind(ps, TK_INDENT, "an indented body"))
        return false;
    int depth = 1;
    while (ok(ps) && depth > 0) {
        if (ps->t->kind == TK_DEDENT) {
            depth--, next(ps);
            continue;
        }
        const tok *attr = t_attr(ps);
        if (attr && is_name(attr, "func_attr")) {
            if (!parse_func_attr(ps))
                return false;
            continue;
        }
        if (is_name(ps->t, "with") && (attr = (ps->t + 1)->kind == TK_NAME ? ps->t + 3 : NULL) &&
            is_name(ps->t + 1, "T") && is_name(attr, "block") && ps->t[5].kind == TK_STRING &&
            ps->t[5].len == 4 && !strncmp(ps->t[5].p, "root", 4)) {
            ps->t += 7;
            if (!expect_op(ps, ":") || !expect_kind(ps, TK_NEWLINE, "a new line") ||
                !expect_kind(ps, TK_INDENT, "an indented block"))
                return false;
            depth++;
            continue;
        }
        if (ps->t->kind == TK_EOF)
            return fail_at(ps, ps->t, WF_ERR_ARG, "unexpected end of input");
        tir_stmt *st = parse_stmt(ps);
        if (st == (tir_stmt *)ps)
            continue;
        if (!st || !tir_seq_push(ps->s, seq, st))
            return false;
    }
    ps->s->body = flatten(seq);
    return ok(ps);
}

bool tir_parse(wf_tir *s, const char *src) {
    lexer lx = {.s = s, .src = src};
    if (!tir_lex(&lx))
        return false;
    parser ps = {.s = s, .src = src, .t = lx.toks.ptr};
    skip_imports(&ps);
    if (!parse_decorator(&ps))
        return false;
    const tok *name = ps.t + 1;
    if (!is_name(ps.t, "def") || name->kind != TK_NAME)
        return fail_at(&ps, ps.t, WF_ERR_ARG, "expected def <name>(...)");
    ps.t += 2;
    s->name = tok_str(&ps, name);
    if (!s->name || !parse_params(&ps) || !parse_body(&ps))
        return false;
    if (ps.t->kind != TK_EOF)
        return fail_at(&ps, ps.t, WF_ERR_UNSUPPORTED,
                       "unsupported: anything after the function (one @T.prim_func per text)");
    if (!s->body || (s->body->kind == TS_SEQ && s->body->seq.n == 0))
        return fail_at(&ps, ps.t, WF_ERR_ARG, "the function has no body");
    tir_fix_parents(s->body, NULL);
    return true;
}
