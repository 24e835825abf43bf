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

static tir_stmt *parse_stmt(parser *ps);

/* ---- statements ---- */

static bool end_of_line(parser *ps) {
    if (ps->t->kind == TK_NEWLINE) {
        tir_next(ps);
        return true;
    }
    return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: more on this line");
}

/* ':' NEWLINE INDENT stmt+ DEDENT; a new name scope. */
static tir_stmt *parse_suite(parser *ps, tir_block *blk) {
    if (!tir_expect_op(ps, ":") || !tir_expect_kind(ps, TK_NEWLINE, "a new line") ||
        !tir_expect_kind(ps, TK_INDENT, "an indented block"))
        return NULL;
    int nsyms = ps->syms.n;
    tir_stmt *seq = tir_stmt_new(ps->s, TS_SEQ);
    (void)blk;
    while (seq && tir_ok(ps) && ps->t->kind != TK_DEDENT && ps->t->kind != TK_EOF) {
        tir_stmt *st = parse_stmt(ps);
        if (st == (tir_stmt *)ps) /* a declaration: nothing to add */
            continue;
        if (!st || !tir_seq_push(ps->s, seq, st))
            return NULL;
    }
    if (!tir_expect_kind(ps, TK_DEDENT, "the end of the block"))
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
    if (tir_is_name(fn, "serial"))
        return TIR_SERIAL;
    if (tir_is_name(fn, "unroll"))
        return TIR_UNROLL;
    if (tir_is_name(fn, "vectorized"))
        return TIR_VECTORIZED;
    if (tir_is_name(fn, "parallel"))
        return TIR_PARALLEL;
    if (tir_is_name(fn, "thread_binding"))
        return TIR_THREAD;
    (void)ps;
    return (tir_for_kind)-1;
}

/* The token naming a loop's iterator: range, or the attribute of T.<kind>. */
static const tok *fn_tok_of(parser *ps, const tok *at) {
    (void)ps;
    return tir_is_name(at, "T") ? at + 2 : at;
}

static const char *const thread_names[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                           "threadIdx.x", "threadIdx.y", "threadIdx.z"};

const char *tir_thread_name(const char *p, int len) {
    for (size_t i = 0; i < sizeof thread_names / sizeof thread_names[0]; i++)
        if ((int)strlen(thread_names[i]) == len && !strncmp(thread_names[i], p, len))
            return thread_names[i];
    return NULL;
}

/* {"key": value, ...}: T.block_attr's and a loop's annotations=; each value is
   checked and normalized as annotate's are (annot.c). */
static bool parse_ann_dict(parser *ps, tir_anns *out) {
    if (!tir_expect_op(ps, "{"))
        return false;
    while (tir_ok(ps) && !tir_is_op(ps->t, "}")) {
        const tok *k = ps->t;
        if (!tir_expect_kind(ps, TK_STRING, "a string key") || !tir_expect_op(ps, ":"))
            return false;
        const tok *v0 = ps->t;
        sbuf text = {0};
        for (int depth = 0; ps->t->kind != TK_EOF && ps->t->kind != TK_NEWLINE; tir_next(ps)) {
            if (depth == 0 && (tir_is_op(ps->t, ",") || tir_is_op(ps->t, "}")))
                break;
            depth += tir_is_op(ps->t, "[") - tir_is_op(ps->t, "]");
            if (ps->t->kind == TK_STRING)
                sbuf_printf(&text, "\"%.*s\"", ps->t->len, ps->t->p);
            else
                sbuf_printf(&text, "%.*s", ps->t->len, ps->t->p);
        }
        const char *why = "out of memory";
        const char *key = tir_tok_str(ps, k);
        const char *val = text.oom ? NULL : tir_ann_value(ps->s, sbuf_str(&text), text.len, &why);
        sbuf_free(&text);
        if (!tir_ok(ps))
            return false;
        if (!val) {
            char msg[160];
            snprintf(msg, sizeof msg, "the value of the annotation \"%.*s\" is %s",
                     k->len > 60 ? 60 : k->len, k->p, why);
            return tir_fail_at(ps, v0, WF_ERR_ARG, msg);
        }
        if (!key || !tir_ann_set(ps->s, out, key, val))
            return false;
        if (!tir_accept_op(ps, ","))
            break;
    }
    return tir_expect_op(ps, "}");
}

/* range(n) / range(0, n) / T.serial(n) / T.thread_binding(n, thread="x") / T.grid(...);
   a loop kind's annotations={...} go to anns[0]. */
static bool parse_iter(parser *ps, int nvars, int64_t *ext, tir_for_kind *kinds,
                       const char **threads, tir_anns *anns) {
    const tok *at = ps->t;
    if (tir_accept_t(ps, "grid")) {
        if (!tir_expect_op(ps, "("))
            return false;
        for (int i = 0; i < nvars; i++) {
            if (!tir_parse_int(ps, &ext[i], "a loop extent"))
                return false;
            kinds[i] = TIR_SERIAL, threads[i] = NULL;
            if (i + 1 < nvars && !tir_expect_op(ps, ","))
                return false;
        }
        tir_accept_op(ps, ",");
        if (!tir_is_op(ps->t, ")"))
            return tir_fail_at(ps, at, WF_ERR_ARG, "T.grid needs one extent per loop variable");
        return tir_expect_op(ps, ")");
    }
    if (nvars != 1)
        return tir_fail_at(ps, at, WF_ERR_ARG, "several loop variables need T.grid");
    kinds[0] = TIR_SERIAL, threads[0] = NULL;
    if (tir_is_name(ps->t, "range"))
        tir_next(ps);
    else if (tir_t_attr(ps)) {
        const tok *fn = tir_t_attr(ps);
        kinds[0] = loop_kind(ps, fn, &threads[0]);
        if ((int)kinds[0] < 0)
            return tir_fail_at(ps, fn, WF_ERR_UNSUPPORTED, "unsupported: this loop kind");
        ps->t += 3;
    } else
        return tir_fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: this loop iterator");
    if (!tir_expect_op(ps, "("))
        return false;
    if (ps->t->kind == TK_INT && ps->t->ival == 0 && tir_is_op(ps->t + 1, ","))
        ps->t += 2; /* range(0, n) */
    if (!tir_parse_int(ps, &ext[0], "a loop extent"))
        return false;
    if (kinds[0] == TIR_THREAD) {
        if (!tir_expect_op(ps, ",") || !(tir_is_name(ps->t, "thread") && tir_is_op(ps->t + 1, "=")))
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, "T.thread_binding needs thread=\"...\"");
        ps->t += 2;
        threads[0] = ps->t->kind == TK_STRING ? tir_thread_name(ps->t->p, ps->t->len) : NULL;
        if (!threads[0])
            return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                               "unsupported: this thread axis (blockIdx.x/y/z and threadIdx.x/y/z "
                               "are)");
        tir_next(ps);
    }
    if (tir_is_name(fn_tok_of(ps, at), "range") || !tir_accept_op(ps, ",") || tir_is_op(ps->t, ")"))
        return tir_expect_op(ps, ")");
    if (!(tir_is_name(ps->t, "annotations") && tir_is_op(ps->t + 1, "=")))
        return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: this loop argument (annotations= is supported)");
    ps->t += 2;
    return parse_ann_dict(ps, &anns[0]) && (tir_accept_op(ps, ","), tir_expect_op(ps, ")"));
}

static tir_stmt *parse_for(parser *ps) {
    tir_next(ps); /* for */
    const tok *names[TIR_MAX_LOOPS];
    int n = 0;
    do {
        if (n == TIR_MAX_LOOPS) {
            tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: this many loop variables");
            return NULL;
        }
        names[n++] = ps->t;
        if (!tir_expect_kind(ps, TK_NAME, "a loop variable"))
            return NULL;
    } while (tir_accept_op(ps, ","));
    if (!tir_is_name(ps->t, "in")) {
        tir_fail_at(ps, ps->t, WF_ERR_ARG, "expected 'in'");
        return NULL;
    }
    tir_next(ps);
    int64_t ext[TIR_MAX_LOOPS];
    tir_for_kind kinds[TIR_MAX_LOOPS];
    const char *threads[TIR_MAX_LOOPS];
    tir_anns anns = {0};
    if (!parse_iter(ps, n, ext, kinds, threads, &anns))
        return NULL;
    int nsyms = ps->syms.n;
    tir_var *vars[TIR_MAX_LOOPS];
    for (int i = 0; i < n; i++) {
        if (!(vars[i] = tir_new_var_tok(ps, names[i])))
            return NULL;
        ps->syms.ptr[ps->syms.n - 1].extent = ext[i];
    }
    const tok *at = ps->t;
    if ((ps->nloops += n) > TIR_MAX_LOOPS) {
        tir_fail_at(ps, names[0], WF_ERR_UNSUPPORTED,
                    "unsupported: more than 32 loops around one statement");
        return NULL;
    }
    /* A block's declarations (T.axis, T.reads, T.init, ...) stand directly in its
       body: one inside a loop of it would bind loop variables the block's header
       does not see (the fuzzer's commented-out inner block). */
    tir_block *saved = ps->blk;
    ps->blk = NULL;
    tir_stmt *body = flatten(parse_suite(ps, NULL));
    ps->blk = saved;
    ps->nloops -= n;
    ps->syms.n = nsyms;
    if (body && body->kind == TS_SEQ && body->seq.n == 0) {
        tir_fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: a loop whose body has no statement");
        return NULL;
    }
    for (int i = n - 1; body && i >= 0; i--) {
        body = tir_for_new(ps->s, vars[i], ext[i], body);
        if (body)
            body->for_kind = kinds[i], body->thread = threads[i];
        if (body && n == 1)
            body->anns = anns;
    }
    return body;
}

/* vi = T.axis.spatial(256, i)   or   vi, vk = T.axis.remap("SR", [i, k]) */
static bool parse_axis(parser *ps, tir_block *b, const tok **names, int n) {
    const tok *kind = ps->t + 4;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < b->niters + i; k++) {
            const char *nm = k < b->niters ? b->iters[k].var->name : NULL;
            bool dup =
                nm ? (int)strlen(nm) == names[i]->len &&
                         !strncmp(nm, names[i]->p, (size_t)names[i]->len)
                   : names[k - b->niters]->len == names[i]->len &&
                         !strncmp(names[k - b->niters]->p, names[i]->p, (size_t)names[i]->len);
            if (dup)
                return tir_fail_at(ps, names[i], WF_ERR_ARG,
                                   "this block iter is declared twice in the block");
        }
    if (b->niters + n > TIR_MAX_LOOPS)
        return tir_fail_at(ps, names[0], WF_ERR_UNSUPPORTED,
                           "unsupported: more than 32 iters in one block");
    ps->t += 5;
    tir_iter *old = b->iters;
    tir_iter *nw = ARENA_ARRAY(&ps->s->arena, tir_iter, b->niters + n);
    if (!nw)
        return err_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    if (b->niters)
        memcpy(nw, old, sizeof(tir_iter) * (size_t)b->niters);
    b->iters = nw;
    if (tir_is_name(kind, "remap")) {
        const tok *ks = ps->t + 1;
        if (!tir_expect_op(ps, "(") || !tir_expect_kind(ps, TK_STRING, "a string of S and R"))
            return false;
        if (ks->len != n)
            return tir_fail_at(ps, ks, WF_ERR_ARG, "T.axis.remap needs one letter per variable");
        if (!tir_expect_op(ps, ",") || !tir_expect_op(ps, "["))
            return false;
        for (int i = 0; i < n; i++) {
            if (ks->p[i] != 'S' && ks->p[i] != 'R')
                return tir_fail_at(ps, ks, WF_ERR_UNSUPPORTED,
                                   "unsupported: this axis kind (S and R are)");
            const tok *lt = ps->t;
            sym *x = lt->kind == TK_NAME ? tir_lookup(ps, lt) : NULL;
            /* Only loop variables carry an extent; a block iter (one declared earlier in
               this remap, say) has none to take. */
            if (!x || !x->var || x->extent <= 0)
                return tir_fail_at(ps, lt, WF_ERR_ARG, "T.axis.remap binds loop variables");
            tir_next(ps);
            tir_iter *it = &b->iters[b->niters++];
            it->reduce = ks->p[i] == 'R';
            it->value = tir_var_ref(ps->s, x->var);
            it->extent = x->extent;
            if (!(it->var = tir_new_var_tok(ps, names[i])) || !it->value)
                return false;
            if (i + 1 < n && !tir_expect_op(ps, ","))
                return false;
        }
        return tir_expect_op(ps, "]") && tir_expect_op(ps, ")");
    }
    if (n != 1)
        return tir_fail_at(ps, names[1], WF_ERR_ARG, "one variable per T.axis.spatial / reduce");
    bool reduce = tir_is_name(kind, "reduce") || tir_is_name(kind, "R");
    if (!reduce && !tir_is_name(kind, "spatial") && !tir_is_name(kind, "S"))
        return tir_fail_at(ps, kind, WF_ERR_UNSUPPORTED,
                           "unsupported: this axis kind (spatial / S, reduce / R and remap are)");
    tir_iter *it = &b->iters[b->niters];
    it->reduce = reduce;
    if (!tir_expect_op(ps, "(") || !tir_parse_int(ps, &it->extent, "an axis extent") ||
        !tir_expect_op(ps, ",") || !(it->value = tir_parse_expr(ps)) || !tir_expect_op(ps, ")"))
        return false;
    b->niters++;
    return (it->var = tir_new_var_tok(ps, names[0])) != NULL;
}

/* T.reads(...) / T.writes(...): skipped to the matching bracket, re-inferred later. */
static bool skip_call(parser *ps) {
    int depth = 0;
    do {
        if (ps->t->kind == TK_EOF || ps->t->kind == TK_NEWLINE)
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, "unbalanced brackets");
        if (tir_is_op(ps->t, "(") || tir_is_op(ps->t, "["))
            depth++;
        if (tir_is_op(ps->t, ")") || tir_is_op(ps->t, "]"))
            depth--;
        tir_next(ps);
    } while (depth > 0);
    return true;
}

static tir_stmt *parse_block(parser *ps) {
    const tok *at = ps->t;
    ps->t += 4; /* with T . block */
    if (!tir_expect_op(ps, "("))
        return NULL;
    const tok *nt = ps->t;
    if (!tir_expect_kind(ps, TK_STRING, "the block's name as a string") || !tir_expect_op(ps, ")"))
        return NULL;
    tir_block *b = ARENA_NEW(&ps->s->arena, tir_block);
    tir_stmt *st = tir_stmt_new(ps->s, TS_BLOCK);
    if (!b || !st)
        return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    b->name = tir_tok_str(ps, nt);
    st->block = b, b->stmt = st;
    if (!b->name)
        return NULL;
    if (tir_find_block(ps->s, b->name)) {
        tir_fail_at(ps, nt, WF_ERR_ARG, "a block of this name exists already");
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
        tir_fail_at(ps, at, WF_ERR_ARG, "a block needs a body");
        return NULL;
    }
    b->body = body;
    if (!vec_push_arena(&ps->s->arena, &ps->s->blocks, b))
        return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
    return st;
}

/* Statements that belong to the enclosing block rather than its body. */
static tir_stmt *parse_block_item(parser *ps, const tok *attr) {
    tir_block *b = ps->blk;
    if (!b) {
        tir_fail_at(ps, attr, WF_ERR_ARG, "this belongs directly inside a T.block");
        return NULL;
    }
    if (tir_is_name(attr, "where")) {
        ps->t += 3;
        tir_expr *a[1];
        if (!tir_parse_args(ps, 1, a, "T.where"))
            return NULL;
        b->where = a[0];
    } else if (tir_is_name(attr, "block_attr") || tir_is_name(attr, "sblock_attr")) {
        ps->t += 3;
        if (!tir_expect_op(ps, "(") || !parse_ann_dict(ps, &b->anns) || !tir_expect_op(ps, ")"))
            return NULL;
    } else {
        ps->t += 3;
        if (!tir_is_op(ps->t, "(")) {
            tir_fail_at(ps, ps->t, WF_ERR_ARG, "expected '('");
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
        tir_fail_at(ps, ps->t, WF_ERR_ARG, "T.init() belongs directly inside a T.block");
        return NULL;
    }
    if (b->init) {
        tir_fail_at(ps, ps->t, WF_ERR_ARG, "a block has one T.init()");
        return NULL;
    }
    ps->t += 4;
    if (!tir_expect_op(ps, "(") || !tir_expect_op(ps, ")"))
        return NULL;
    tir_block *saved = ps->blk;
    ps->blk = NULL;
    const tok *at = ps->t;
    b->init = flatten(parse_suite(ps, NULL));
    ps->blk = saved;
    if (b->init && b->init->kind == TS_SEQ && b->init->seq.n == 0) {
        tir_fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: a T.init() with no statement");
        return NULL;
    }
    return b->init ? (tir_stmt *)ps : NULL;
}

static bool is_store_op(const tok *t) {
    return tir_is_op(t, "=") || tir_is_op(t, "+=") || tir_is_op(t, "-=") || tir_is_op(t, "*=");
}

/* NAME[idx] (=|+=|-=|*=) expr */
static tir_stmt *parse_store(parser *ps, sym *x) {
    const tok *at = ps->t;
    tir_next(ps);
    tir_expr *lhs = tir_parse_load(ps, x->buf, at);
    if (!lhs)
        return NULL;
    const tok *op = ps->t;
    if (!is_store_op(op)) {
        tir_fail_at(ps, op, WF_ERR_ARG, "expected '=' or '+='");
        return NULL;
    }
    tir_next(ps);
    tir_expr *rhs = tir_parse_expr(ps);
    if (!rhs || !end_of_line(ps))
        return NULL;
    if (!tir_is_op(op, "="))
        rhs = tir_bin(ps->s,
                      tir_is_op(op, "+=")   ? TB_ADD
                      : tir_is_op(op, "-=") ? TB_SUB
                                            : TB_MUL,
                      lhs, rhs);
    tir_stmt *st = tir_stmt_new(ps->s, TS_STORE);
    if (!st || !rhs)
        return NULL;
    st->buf = x->buf, st->nidx = lhs->nargs, st->idx = lhs->args, st->value = rhs;
    return st;
}

/* NAME = T.match_buffer(handle, shape, dtype): the buffer of a T.handle parameter, at
   the top of the function's body. */
static tir_stmt *parse_match_buffer(parser *ps, const tok *name) {
    const tok *h = ps->t + 1;
    if (!tir_expect_op(ps, "("))
        return NULL;
    sym *x = h->kind == TK_NAME ? tir_lookup(ps, h) : NULL;
    tir_buffer *b = x && x->buf && x->buf->handle && !x->buf->matched ? x->buf : NULL;
    if (ps->blk || ps->nloops || !b) {
        tir_fail_at(ps, ps->blk || ps->nloops ? name : h, WF_ERR_UNSUPPORTED,
                    ps->blk || ps->nloops
                        ? "unsupported: T.match_buffer inside a block or loop (it binds a "
                          "T.handle parameter, at the top of the function)"
                        : "T.match_buffer takes a T.handle parameter not matched yet");
        return NULL;
    }
    sym *old = tir_lookup(ps, name);
    if (old && old->buf) {
        tir_fail_at(ps, name, WF_ERR_ARG, "a buffer of this name exists already");
        return NULL;
    }
    tir_next(ps);
    if (!tir_expect_op(ps, ","))
        return NULL;
    b->ndim = 0;
    if (!tir_parse_shape(ps, b) || !tir_parse_buffer_args(ps, b) || !end_of_line(ps))
        return NULL;
    if (b->scope != TIR_GLOBAL) {
        tir_fail_at(ps, name, WF_ERR_UNSUPPORTED, "unsupported: a parameter not in global");
        return NULL;
    }
    b->name = tir_tok_str(ps, name);
    b->matched = true;
    return b->name && tir_bind_name(ps, b->name, NULL, b) ? (tir_stmt *)ps : NULL;
}

/* NAME = T.alloc_buffer(...) / NAME = T.axis...(...) / a, b = T.axis.remap(...) */
static tir_stmt *parse_assign(parser *ps) {
    const tok *names[TIR_MAX_LOOPS];
    int n = 0;
    do {
        if (n == TIR_MAX_LOOPS || ps->t->kind != TK_NAME) {
            tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED, "unsupported: this statement");
            return NULL;
        }
        names[n++] = ps->t;
        tir_next(ps);
    } while (tir_accept_op(ps, ","));
    if (!tir_expect_op(ps, "="))
        return NULL;
    tir_block *b = ps->blk;
    if (tir_t_attr(ps) && tir_is_name(tir_t_attr(ps), "axis") && tir_is_op(ps->t + 3, ".")) {
        if (!b) {
            tir_fail_at(ps, ps->t, WF_ERR_ARG, "T.axis belongs directly inside a T.block");
            return NULL;
        }
        return parse_axis(ps, b, names, n) && end_of_line(ps) ? (tir_stmt *)ps : NULL;
    }
    if (n == 1 && tir_accept_t(ps, "match_buffer"))
        return parse_match_buffer(ps, names[0]);
    if (n == 1 && (tir_accept_t(ps, "alloc_buffer") || tir_accept_t(ps, "sblock_alloc_buffer") ||
                   tir_accept_t(ps, "Buffer"))) {
        tir_buffer *buf = tir_new_buffer(ps, names[0]);
        if (!buf || !tir_expect_op(ps, "(") || !tir_parse_shape(ps, buf) ||
            !tir_parse_buffer_args(ps, buf) || !end_of_line(ps))
            return NULL;
        bool pushed = b ? vec_push_arena(&ps->s->arena, &b->allocs, buf)
                        : vec_push_arena(&ps->s->arena, &ps->s->root_allocs, buf);
        if (!pushed)
            return err_fail(&ps->s->err, WF_ERR_MEMORY, "out of memory");
        return (tir_stmt *)ps;
    }
    tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                "unsupported: this assignment (T.alloc_buffer and T.axis.* are supported)");
    return NULL;
}

static tir_stmt *parse_with(parser *ps) {
    const tok *t = ps->t;
    const tok *attr =
        tir_is_name(t + 1, "T") && tir_is_op(t + 2, ".") && t[3].kind == TK_NAME ? t + 3 : NULL;
    if (attr && (tir_is_name(attr, "block") || tir_is_name(attr, "sblock")))
        return parse_block(ps);
    if (attr && tir_is_name(attr, "init"))
        return parse_init(ps);
    tir_fail_at(ps, t + 1, WF_ERR_UNSUPPORTED,
                "unsupported: this with-statement (T.block and T.init are supported)");
    return NULL;
}

/* One statement; a declaration (axis, alloc, reads, ...) returns ps as a marker. */
static tir_stmt *parse_stmt(parser *ps) {
    const tok *t = ps->t;
    if (tir_is_name(t, "for"))
        return parse_for(ps);
    if (tir_is_name(t, "with"))
        return parse_with(ps);
    if (tir_is_name(t, "pass")) {
        tir_next(ps);
        return end_of_line(ps) ? (tir_stmt *)ps : NULL;
    }
    const tok *attr = tir_t_attr(ps);
    if (attr &&
        (tir_is_name(attr, "reads") || tir_is_name(attr, "writes") || tir_is_name(attr, "where") ||
         tir_is_name(attr, "block_attr") || tir_is_name(attr, "sblock_attr")))
        return parse_block_item(ps, attr);
    if (t->kind == TK_NAME && tir_is_op(t + 1, "[")) {
        sym *x = tir_lookup(ps, t);
        if (x && x->buf && x->buf->handle && x->name == x->buf->handle) {
            tir_fail_at(ps, t, WF_ERR_ARG,
                        "a T.handle is not a buffer: use the buffer T.match_buffer makes of it");
            return NULL;
        }
        if (x && x->buf)
            return parse_store(ps, x);
    }
    if (t->kind == TK_NAME && (tir_is_op(t + 1, "=") || tir_is_op(t + 1, ",")))
        return parse_assign(ps);
    if (t->kind == TK_NAME && tir_is_op(t + 1, "[")) {
        tir_fail_at(ps, t, WF_ERR_ARG, "not a buffer");
        return NULL;
    }
    tir_fail_at(ps, t, WF_ERR_UNSUPPORTED, "unsupported: this statement");
    return NULL;
}

/* ---- the function ---- */

static bool parse_params(parser *ps) {
    if (!tir_expect_op(ps, "("))
        return false;
    while (tir_ok(ps) && !tir_is_op(ps->t, ")")) {
        const tok *name = ps->t;
        if (!tir_expect_kind(ps, TK_NAME, "a parameter name") || !tir_expect_op(ps, ":"))
            return false;
        bool handle = tir_accept_t(ps, "handle");
        if (!handle && !tir_accept_t(ps, "Buffer"))
            return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                               "unsupported: a parameter that is not a T.Buffer or a T.handle");
        tir_buffer *b = tir_new_buffer(ps, name);
        if (!b)
            return false;
        if (handle)
            b->handle = b->name, b->dtype = WF_F32;
        else if (!tir_expect_op(ps, "(") || !tir_parse_shape(ps, b) ||
                 !tir_parse_buffer_args(ps, b))
            return false;
        if (b->scope != TIR_GLOBAL)
            return tir_fail_at(ps, name, WF_ERR_UNSUPPORTED,
                               "unsupported: a parameter not in global");
        b->is_param = true;
        if (!vec_push_arena(&ps->s->arena, &ps->s->params, b))
            return err_failb(&ps->s->err, WF_ERR_MEMORY, "out of memory");
        if (!tir_accept_op(ps, ","))
            break;
    }
    if (!tir_expect_op(ps, ")"))
        return false;
    if (tir_accept_op(ps, "->") && !(tir_is_name(ps->t, "None") && (tir_next(ps), true)))
        return tir_fail_at(ps, ps->t, WF_ERR_UNSUPPORTED,
                           "unsupported: a return type other than None");
    return true;
}

/* T.func_attr({"global_symbol": "name", ...}) */
/* One value of T.func_attr: global_symbol's string and "tir.noalias"'s True / False
   (or T.bool(True)) are kept; other keys' strings, ints and bools are skipped. */
static bool parse_func_attr_item(parser *ps, const tok *k, const tok *at) {
    if (k->len == 13 && !strncmp(k->p, "global_symbol", 13)) {
        if (ps->t->kind != TK_STRING)
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, "global_symbol is a string");
        ps->s->name = tir_tok_str(ps, ps->t);
        tir_next(ps);
        return ps->s->name != NULL;
    }
    bool is_t = tir_is_name(ps->t, "T") && tir_is_op(ps->t + 1, ".") &&
                tir_is_name(ps->t + 2, "bool") && tir_is_op(ps->t + 3, "(");
    const tok *v = is_t ? ps->t + 4 : ps->t;
    int truth = tir_is_name(v, "True") || (v->kind == TK_INT && v->ival == 1)    ? 1
                : tir_is_name(v, "False") || (v->kind == TK_INT && v->ival == 0) ? 2
                                                                                 : 0;
    if (k->len == 11 && !strncmp(k->p, "tir.noalias", 11)) {
        if (!truth || (is_t && !tir_is_op(v + 1, ")")))
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, "tir.noalias is True or False");
        ps->s->noalias = truth;
    }
    if (is_t) {
        ps->t += 3;
        return skip_call(ps);
    }
    if (!truth && ps->t->kind != TK_STRING && ps->t->kind != TK_INT)
        return tir_fail_at(ps, at, WF_ERR_UNSUPPORTED, "unsupported: this function attribute");
    tir_next(ps);
    return true;
}

/* T.func_attr({"global_symbol": "name", "tir.noalias": True, ...}) */
static bool parse_func_attr(parser *ps) {
    const tok *at = ps->t;
    ps->t += 3;
    if (!tir_expect_op(ps, "(") || !tir_expect_op(ps, "{"))
        return false;
    while (tir_ok(ps) && !tir_is_op(ps->t, "}")) {
        const tok *k = ps->t;
        if (!tir_expect_kind(ps, TK_STRING, "a string key") || !tir_expect_op(ps, ":") ||
            !parse_func_attr_item(ps, k, at))
            return false;
        if (!tir_accept_op(ps, ","))
            break;
    }
    return tir_expect_op(ps, "}") && tir_expect_op(ps, ")") && end_of_line(ps);
}

/* `from tvm.script import tir as T` and `import tvm` lines are accepted and skipped. */
static void skip_imports(parser *ps) {
    while (tir_is_name(ps->t, "from") || tir_is_name(ps->t, "import")) {
        while (ps->t->kind != TK_NEWLINE && ps->t->kind != TK_EOF)
            tir_next(ps);
        if (ps->t->kind == TK_NEWLINE)
            tir_next(ps);
    }
}

static bool parse_decorator(parser *ps) {
    if (!tir_accept_op(ps, "@") || !tir_accept_t(ps, "prim_func"))
        return tir_fail_at(ps, ps->t, WF_ERR_ARG, "expected @T.prim_func");
    if (tir_is_op(ps->t, "(") && !skip_call(ps))
        return false;
    return tir_expect_kind(ps, TK_NEWLINE, "a new line");
}

/* The function body: root-level statements; `with T.block("root"):` is transparent. */
static bool parse_body(parser *ps) {
    tir_stmt *seq = tir_stmt_new(ps->s, TS_SEQ);
    if (!seq)
        return false;
    if (!tir_expect_op(ps, ":") || !tir_expect_kind(ps, TK_NEWLINE, "a new line") ||
        !tir_expect_kind(ps, TK_INDENT, "an indented body"))
        return false;
    int depth = 1;
    while (tir_ok(ps) && depth > 0) {
        if (ps->t->kind == TK_DEDENT) {
            depth--, tir_next(ps);
            continue;
        }
        const tok *attr = tir_t_attr(ps);
        if (attr && tir_is_name(attr, "func_attr")) {
            if (!parse_func_attr(ps))
                return false;
            continue;
        }
        if (tir_is_name(ps->t, "with") &&
            (attr = (ps->t + 1)->kind == TK_NAME ? ps->t + 3 : NULL) &&
            tir_is_name(ps->t + 1, "T") &&
            (tir_is_name(attr, "block") || tir_is_name(attr, "sblock")) &&
            ps->t[5].kind == TK_STRING && ps->t[5].len == 4 && !strncmp(ps->t[5].p, "root", 4)) {
            ps->t += 7;
            if (!tir_expect_op(ps, ":") || !tir_expect_kind(ps, TK_NEWLINE, "a new line") ||
                !tir_expect_kind(ps, TK_INDENT, "an indented block"))
                return false;
            depth++;
            continue;
        }
        if (ps->t->kind == TK_EOF)
            return tir_fail_at(ps, ps->t, WF_ERR_ARG, "unexpected end of input");
        tir_stmt *st = parse_stmt(ps);
        if (st == (tir_stmt *)ps)
            continue;
        if (!st || !tir_seq_push(ps->s, seq, st))
            return false;
    }
    ps->s->body = flatten(seq);
    return tir_ok(ps);
}

/* @tvm.script.ir_module / @I.ir_module, then class NAME: (one @T.prim_func inside). */
static bool parse_module_header(parser *ps) {
    if (!tir_is_op(ps->t, "@")) /* checked first: the tokens after it exist */
        return true;
    tok *t = ps->t + 1;
    bool tvm = tir_is_name(t, "tvm") && tir_is_op(t + 1, ".") && tir_is_name(t + 2, "script") &&
               tir_is_op(t + 3, ".") && tir_is_name(t + 4, "ir_module");
    bool ir = tir_is_name(t, "I") && tir_is_op(t + 1, ".") && tir_is_name(t + 2, "ir_module");
    if (!tvm && !ir)
        return true;
    ps->t = t + (tvm ? 5 : 3);
    if (!tir_expect_kind(ps, TK_NEWLINE, "a new line"))
        return false;
    const tok *name = ps->t + 1;
    if (!tir_is_name(ps->t, "class") || name->kind != TK_NAME)
        return tir_fail_at(ps, ps->t, WF_ERR_ARG, "expected class <name>: after @I.ir_module");
    ps->t += 2;
    ps->s->in_module = true;
    ps->s->module = tir_tok_str(ps, name);
    return ps->s->module && tir_expect_op(ps, ":") &&
           tir_expect_kind(ps, TK_NEWLINE, "a new line") &&
           tir_expect_kind(ps, TK_INDENT, "the indented class body");
}

/* Every T.handle parameter got its buffer from a T.match_buffer. */
static bool check_handles(parser *ps, const tok *at) {
    for (int i = 0; i < ps->s->params.n; i++) {
        const tir_buffer *b = ps->s->params.ptr[i];
        if (b->handle && !b->matched) {
            char msg[512];
            snprintf(msg, sizeof msg,
                     "the T.handle parameter %.100s has no T.match_buffer (write %.100s_buf = "
                     "T.match_buffer(%.100s, shape, dtype) at the top of the body)",
                     b->handle, b->handle, b->handle);
            return tir_fail_at(ps, at, WF_ERR_ARG, msg);
        }
    }
    return true;
}

bool tir_parse(wf_tir *s, const char *src) {
    lexer lx = {.s = s, .src = src};
    if (!tir_lex(&lx))
        return false;
    parser ps = {.s = s, .src = src, .t = lx.toks.ptr};
    skip_imports(&ps);
    if (!parse_module_header(&ps) || !parse_decorator(&ps))
        return false;
    const tok *name = ps.t + 1;
    if (!tir_is_name(ps.t, "def") || name->kind != TK_NAME)
        return tir_fail_at(&ps, ps.t, WF_ERR_ARG, "expected def <name>(...)");
    ps.t += 2;
    s->name = s->fname = tir_tok_str(&ps, name);
    if (!s->name || !parse_params(&ps) || !parse_body(&ps) || !check_handles(&ps, name))
        return false;
    if (s->in_module && tir_is_op(ps.t, "@"))
        return tir_fail_at(&ps, ps.t, WF_ERR_UNSUPPORTED,
                           "unsupported: an IRModule of more than one function");
    if (s->in_module && !tir_expect_kind(&ps, TK_DEDENT, "the end of the class"))
        return false;
    if (ps.t->kind != TK_EOF)
        return tir_fail_at(&ps, ps.t, WF_ERR_UNSUPPORTED,
                           "unsupported: anything after the function (one @T.prim_func per text)");
    if (!s->body || (s->body->kind == TS_SEQ && s->body->seq.n == 0))
        return tir_fail_at(&ps, ps.t, WF_ERR_ARG, "the function has no body");
    tir_fix_parents(s->body, NULL);
    return true;
}
