/*
 * ptok.c -- the parser's token and name helpers: matching and expecting tokens, the
 * scoped name table (loop variables, block iters, buffers), dtypes, shapes and buffer
 * declarations (T.Buffer / T.alloc_buffer arguments).
 *
 * Every helper that fails records the sticky error at its token (line:column + caret)
 * and returns false / NULL; none moves past TK_EOF, so a parse always terminates.
 */
#include "tir/tir_int.h"

#include <stdio.h>
#include <string.h>

/* ---- tokens ---- */

bool tir_fail_at(parser *ps, const tok *t, wf_status code, const char *msg) {
    return tir_error_at(ps->s, ps->src, t->line, t->col, code, "%s", msg);
}

bool tir_is_op(const tok *t, const char *op) {
    return t->kind == TK_OP && t->len == (int)strlen(op) && strncmp(t->p, op, t->len) == 0;
}

bool tir_is_name(const tok *t, const char *name) {
    return t->kind == TK_NAME && t->len == (int)strlen(name) && strncmp(t->p, name, t->len) == 0;
}

bool tir_ok(parser *ps) {
    return !err_set(&ps->s->err);
}

void tir_next(parser *ps) {
    if (ps->t->kind != TK_EOF)
        ps->t++;
}

bool tir_accept_op(parser *ps, const char *op) {
    if (!tir_is_op(ps->t, op))
        return false;
    tir_next(ps);
    return true;
}

bool tir_expect_op(parser *ps, const char *op) {
    if (tir_accept_op(ps, op))
        return true;
    char msg[64];
    snprintf(msg, sizeof msg, "expected '%s'", op);
    return tir_fail_at(ps, ps->t, WF_ERR_ARG, msg);
}

bool tir_expect_kind(parser *ps, tok_kind k, const char *what) {
    if (ps->t->kind == k) {
        tir_next(ps);
        return true;
    }
    char msg[64];
    snprintf(msg, sizeof msg, "expected %s", what);
    return tir_fail_at(ps, ps->t, WF_ERR_ARG, msg);
}

char *tir_tok_str(parser *ps, const tok *t) {
    char *p = arena_alloc(&ps->s->arena, (size_t)t->len + 1);
    if (!p)
        return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    memcpy(p, t->p, (size_t)t->len);
    return p;
}

/* "T" "." NAME: returns the attribute token, or NULL when the tokens are not T.<x>. */
const tok *tir_t_attr(parser *ps) {
    if (tir_is_name(ps->t, "T") && tir_is_op(ps->t + 1, ".") && ps->t[2].kind == TK_NAME)
        return ps->t + 2;
    return NULL;
}

bool tir_accept_t(parser *ps, const char *attr) {
    const tok *a = tir_t_attr(ps);
    if (!a || !tir_is_name(a, attr))
        return false;
    ps->t += 3;
    return true;
}

/* ---- names ---- */

sym *tir_lookup(parser *ps, const tok *t) {
    for (int i = ps->syms.n - 1; i >= 0; i--)
        if ((int)strlen(ps->syms.ptr[i].name) == t->len &&
            strncmp(ps->syms.ptr[i].name, t->p, t->len) == 0)
            return &ps->syms.ptr[i];
    return NULL;
}

bool tir_bind_name(parser *ps, const char *name, tir_var *v, tir_buffer *b) {
    sym x = {name, v, b, 0};
    if (!vec_push_arena(&ps->s->arena, &ps->syms, x))
        return err_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

tir_var *tir_new_var_tok(parser *ps, const tok *t) {
    char *name = tir_tok_str(ps, t);
    tir_var *v = name ? tir_var_new(ps->s, name) : NULL;
    if (v && !tir_bind_name(ps, name, v, NULL))
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

bool tir_dtype_of(const tok *t, wf_dtype *out) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if ((int)strlen(dtypes[i].name) == t->len && strncmp(dtypes[i].name, t->p, t->len) == 0) {
            *out = dtypes[i].t;
            return true;
        }
    return false;
}

bool tir_parse_dtype_string(parser *ps, wf_dtype *out) {
    if (ps->t->kind != TK_STRING)
        return tir_fail_at(ps, ps->t, WF_ERR_ARG, "expected a dtype string such as \"float32\"");
    if (!tir_dtype_of(ps->t, out))
        return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: this dtype (float32, float16, bfloat16, float64, int8, "
                           "int16, int32, int64, uint8, bool are)");
    tir_next(ps);
    return true;
}

bool tir_parse_int(parser *ps, int64_t *out, const char *what) {
    if (ps->t->kind != TK_INT) {
        char msg[128];
        snprintf(msg, sizeof msg, "unsupported: %s must be an integer constant", what);
        return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, msg);
    }
    *out = ps->t->ival;
    tir_next(ps);
    if (*out <= 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s must be positive", what);
        return tir_fail_at(ps, ps->t - 1, WF_ERR_ARG, msg);
    }
    return true;
}

/* (256,) or (16, 16) or [16, 16] or 256 */
bool tir_parse_shape(parser *ps, tir_buffer *b) {
    const char *close = tir_is_op(ps->t, "(") ? ")" : tir_is_op(ps->t, "[") ? "]" : NULL;
    if (!close)
        return tir_parse_int(ps, &b->shape[b->ndim++], "a buffer extent");
    tir_next(ps);
    while (tir_ok(ps) && !tir_is_op(ps->t, close)) {
        if (b->ndim == WF_MAX_RANK)
            return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                               "unsupported: a buffer of more than 8 dimensions");
        if (!tir_parse_int(ps, &b->shape[b->ndim++], "a buffer extent"))
            return false;
        if (!tir_accept_op(ps, ","))
            break;
    }
    return tir_expect_op(ps, close);
}

/* The keyword arguments of T.Buffer / T.alloc_buffer after the shape. */
bool tir_parse_buffer_args(parser *ps, tir_buffer *b) {
    b->dtype = WF_F32;
    while (tir_ok(ps) && tir_accept_op(ps, ",")) {
        if (tir_is_op(ps->t, ")"))
            break;
        if (ps->t->kind == TK_STRING) {
            if (!tir_parse_dtype_string(ps, &b->dtype))
                return false;
            continue;
        }
        if (tir_is_name(ps->t, "dtype") && tir_is_op(ps->t + 1, "=")) {
            ps->t += 2;
            if (!tir_parse_dtype_string(ps, &b->dtype))
                return false;
        } else if (tir_is_name(ps->t, "scope") && tir_is_op(ps->t + 1, "=")) {
            ps->t += 2;
            const tok *st = ps->t;
            if (!tir_expect_kind(ps, TK_STRING, "a scope string"))
                return false;
            if (st->len == 6 && !strncmp(st->p, "global", 6))
                b->scope = TIR_GLOBAL;
            else if (st->len == 6 && !strncmp(st->p, "shared", 6))
                b->scope = TIR_SHARED;
            else if (st->len == 5 && !strncmp(st->p, "local", 5))
                b->scope = TIR_LOCAL;
            else
                return tir_fail_at(ps, st, WF_ERR_UNSUPPORTED,
                                   "unsupported: this scope (global, shared and local are)");
        } else
            return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                               "unsupported: this buffer argument (a dtype and scope= are)");
    }
    return tir_expect_op(ps, ")");
}

tir_buffer *tir_new_buffer(parser *ps, const tok *name) {
    sym *old = tir_lookup(ps, name);
    if (old && old->buf) {
        tir_fail_at(ps, name, WF_ERR_ARG, "a buffer of this name exists already");
        return NULL;
    }
    tir_buffer *b = ARENA_NEW(&ps->s->arena, tir_buffer);
    if (!b)
        return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    b->name = tir_tok_str(ps, name);
    if (!b->name || !tir_bind_name(ps, b->name, NULL, b))
        return NULL;
    return b;
}
