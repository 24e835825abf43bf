/*
 * api.c -- the wf_tir_* entry points: gate on the sticky error, check every handle and
 * argument, delegate to the primitives, and record each accepted call in the trace.
 *
 * Handles: a wf_tir_block is a tir_block and a wf_tir_loop a TS_FOR statement of this
 * schedule; a handle is checked against the schedule's own lists before use (a handle
 * of another schedule is refused) and a stale one (its loop replaced, its block
 * inlined) is an error naming it. The trace numbers handles as TVM's does (b0, l1, ...):
 * every handle a call returns gets the next number.
 */
#include "tir/tir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIR_GATE(s, ret)                                                                           \
    do {                                                                                           \
        if (!(s) || tir_failed(s))                                                                 \
            return ret;                                                                            \
    } while (0)

static bool tir_failed(wf_tir *s) {
    if (s->arena.failed && !err_set(&s->err))
        err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    return err_set(&s->err);
}

wf_tir *wf_tir_parse(const char *src) {
    wf_tir *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    arena_init(&s->arena);
    if (!src)
        err_fail(&s->err, WF_ERR_ARG, "wf_tir_parse: the source text is NULL");
    else if (tir_parse(s, src))
        s->parsed = !s->arena.failed;
    else if (!err_set(&s->err))
        err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    tir_failed(s);
    return s;
}

void wf_tir_free(wf_tir *s) {
    if (!s)
        return;
    sbuf_free(&s->script);
    sbuf_free(&s->trace);
    wf_fusion_free(s->fusion);
    arena_free(&s->arena);
    free(s);
}

wf_status wf_tir_status(const wf_tir *s) {
    if (!s)
        return WF_ERR_ARG;
    if (s->arena.failed && !err_set(&s->err))
        return WF_ERR_MEMORY;
    return s->err.code;
}

const char *wf_tir_error(const wf_tir *s) {
    if (!s)
        return "no schedule (NULL)";
    if (s->arena.failed && !err_set(&s->err))
        return "out of memory";
    return s->err.msg;
}

void wf_tir_clear_error(wf_tir *s) {
    if (s && !s->arena.failed && s->parsed)
        err_clear(&s->err);
}

/* ---- handles ---- */

static tir_block *block_of(wf_tir *s, wf_tir_block *h, const char *fn) {
    tir_block *b = (tir_block *)h;
    if (b && b == &s->root)
        return err_fail(&s->err, WF_ERR_ARG,
                        "%s: the block \"root\" is the function's root block, which %s does not "
                        "take (give a block inside it)",
                        fn, fn);
    for (int i = 0; b && i < s->blocks.n; i++)
        if (s->blocks.ptr[i] == b) {
            if (b->dead)
                return err_fail(&s->err, WF_ERR_ARG,
                                "%s: the block \"%s\" is stale: it was removed (inlined) by an "
                                "earlier primitive; get the blocks again with get_block",
                                fn, b->name);
            return b;
        }
    return err_fail(&s->err, WF_ERR_ARG, "%s: the block handle is NULL or not of this schedule",
                    fn);
}

static tir_stmt *loop_of(wf_tir *s, wf_tir_loop *h, const char *fn) {
    tir_stmt *l = (tir_stmt *)h;
    for (int i = 0; l && i < s->loops.n; i++)
        if (s->loops.ptr[i] == l) {
            if (l->dead)
                return err_fail(&s->err, WF_ERR_ARG,
                                "%s: the loop %s is stale: an earlier primitive replaced it; get "
                                "the loops again with get_loops",
                                fn, l->loop_var->name);
            return l;
        }
    return err_fail(&s->err, WF_ERR_ARG, "%s: the loop handle is NULL or not of this schedule", fn);
}

/* Numbers a handle for the trace ("b3", "l7") and returns its name. */
static const char *rv_name(wf_tir *s, int *rv, char prefix) {
    *rv = s->nhandles++;
    char buf[32];
    snprintf(buf, sizeof buf, "%c%d", prefix, *rv);
    return arena_strdup(&s->arena, buf);
}

static const char *block_rv(wf_tir *s, tir_block *b) {
    (void)s;
    return b->rv_name ? b->rv_name : "b?";
}

static const char *loop_rv(wf_tir *s, tir_stmt *l) {
    (void)s;
    return l->rv_name ? l->rv_name : "l?";
}

static void trace_line(wf_tir *s, const char *fmt, ...) WF_PRINTF(2, 3);
static void trace_line(wf_tir *s, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sbuf_printf(&s->trace, "  %s\n", buf);
}

static void name_block(wf_tir *s, tir_block *b) {
    b->rv_name = rv_name(s, &b->rv, 'b');
}

static void name_loop(wf_tir *s, tir_stmt *l) {
    l->rv_name = rv_name(s, &l->rv, 'l');
}

/* "l3, l4" for the trace's left-hand side. */
static void loop_list(wf_tir *s, sbuf *b, int n, tir_stmt *const *loops, bool fresh) {
    for (int i = 0; i < n; i++) {
        if (fresh)
            name_loop(s, loops[i]);
        sbuf_printf(b, i ? ", %s" : "%s", loop_rv(s, loops[i]));
    }
}

/* ---- blocks and loops ---- */

wf_tir_block *wf_tir_get_block(wf_tir *s, const char *name) {
    TIR_GATE(s, NULL);
    if (!name)
        return err_fail(&s->err, WF_ERR_ARG, "get_block: the name is NULL");
    tir_block *b = tir_find_block(s, name);
    if (!b && !strcmp(name, "root"))
        b = &s->root, b->name = "root";
    if (!b)
        return err_fail(&s->err, WF_ERR_ARG,
                        "get_block: Cannot find a block with the name: %s (the blocks are named "
                        "by T.block(\"...\") and by cache_read / cache_write)",
                        name);
    name_block(s, b);
    trace_line(s, "%s = sch.get_block(name=\"%s\", func_name=\"main\")", block_rv(s, b), name);
    return (wf_tir_block *)b;
}

int wf_tir_get_loops(wf_tir *s, wf_tir_block *h, wf_tir_loop **loops, int max) {
    TIR_GATE(s, -1);
    tir_block *b = block_of(s, h, "get_loops");
    if (!b)
        return -1;
    if (max < 0 || (max > 0 && !loops))
        return err_failb(&s->err, WF_ERR_ARG, "get_loops: loops is NULL or max is negative"), -1;
    tir_stmt *all[TIR_MAX_LOOPS];
    int n = tir_loops_of(b, all, TIR_MAX_LOOPS);
    if (n < 0)
        return -1;
    sbuf lhs = {0};
    loop_list(s, &lhs, n, all, true);
    trace_line(s, "%s%s = sch.get_loops(block=%s)", n ? sbuf_str(&lhs) : "_", n == 1 ? "," : "",
               block_rv(s, b));
    sbuf_free(&lhs);
    for (int i = 0; i < n && i < max; i++)
        loops[i] = (wf_tir_loop *)all[i];
    return n;
}

void wf_tir_split(wf_tir *s, wf_tir_loop *h, int nfactors, const int64_t *factors,
                  wf_tir_loop **out) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "split");
    if (!l)
        return;
    if (nfactors < 1 || nfactors > TIR_MAX_LOOPS || !factors) {
        err_failb(&s->err, WF_ERR_ARG, "split: give 1 to %d factors", TIR_MAX_LOOPS);
        return;
    }
    tir_stmt *res[TIR_MAX_LOOPS];
    const char *lrv = loop_rv(s, l);
    if (!tir_split(s, l, nfactors, factors, res))
        return;
    sbuf lhs = {0}, fs = {0};
    loop_list(s, &lhs, nfactors, res, true);
    for (int i = 0; i < nfactors; i++)
        if (factors[i] == -1)
            sbuf_puts(&fs, i ? ", None" : "None");
        else
            sbuf_printf(&fs, i ? ", %lld" : "%lld", (long long)factors[i]);
    trace_line(s,
               "%s = sch.split(loop=%s, factors=[%s], preserve_unit_iters=True, "
               "disable_predication=False)",
               sbuf_str(&lhs), lrv, sbuf_str(&fs));
    sbuf_free(&lhs), sbuf_free(&fs);
    for (int i = 0; out && i < nfactors; i++)
        out[i] = (wf_tir_loop *)res[i];
}

wf_tir_loop *wf_tir_fuse(wf_tir *s, int n, wf_tir_loop *const *hs) {
    TIR_GATE(s, NULL);
    if (n < 1 || n > TIR_MAX_LOOPS || !hs)
        return err_fail(&s->err, WF_ERR_ARG, "fuse: give 1 to %d loops", TIR_MAX_LOOPS);
    tir_stmt *ls[TIR_MAX_LOOPS];
    sbuf args = {0};
    for (int i = 0; i < n; i++) {
        if (!(ls[i] = loop_of(s, hs[i], "fuse")))
            return sbuf_free(&args), NULL;
        sbuf_printf(&args, i ? ", %s" : "%s", loop_rv(s, ls[i]));
    }
    tir_stmt *f = tir_fuse(s, n, ls);
    if (f) {
        name_loop(s, f);
        trace_line(s, "%s = sch.fuse(%s, preserve_unit_iters=True)", loop_rv(s, f),
                   sbuf_str(&args));
    }
    sbuf_free(&args);
    return (wf_tir_loop *)f;
}

void wf_tir_reorder(wf_tir *s, int n, wf_tir_loop *const *hs) {
    TIR_GATE(s, );
    if (n < 1 || n > TIR_MAX_LOOPS || !hs) {
        err_failb(&s->err, WF_ERR_ARG, "reorder: give 1 to %d loops", TIR_MAX_LOOPS);
        return;
    }
    tir_stmt *ls[TIR_MAX_LOOPS];
    sbuf args = {0};
    for (int i = 0; i < n; i++) {
        if (!(ls[i] = loop_of(s, hs[i], "reorder"))) {
            sbuf_free(&args);
            return;
        }
        sbuf_printf(&args, i ? ", %s" : "%s", loop_rv(s, ls[i]));
    }
    if (tir_reorder(s, n, ls))
        trace_line(s, "sch.reorder(%s)", sbuf_str(&args));
    sbuf_free(&args);
}

void wf_tir_bind(wf_tir *s, wf_tir_loop *h, const char *axis) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "bind");
    if (!l)
        return;
    const char *t = axis ? tir_thread_name(axis, (int)strlen(axis)) : NULL;
    if (!t) {
        err_failb(&s->err, WF_ERR_ARG,
                  "bind: the thread axis \"%s\" is not one of blockIdx.x/y/z, "
                  "threadIdx.x/y/z",
                  axis ? axis : "(null)");
        return;
    }
    if (tir_annotate(s, l, TIR_THREAD, t))
        trace_line(s, "sch.bind(loop=%s, thread_axis=\"%s\")", loop_rv(s, l), t);
}

void wf_tir_vectorize(wf_tir *s, wf_tir_loop *h) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "vectorize");
    if (l && tir_annotate(s, l, TIR_VECTORIZED, NULL))
        trace_line(s, "sch.vectorize(loop=%s)", loop_rv(s, l));
}

void wf_tir_unroll(wf_tir *s, wf_tir_loop *h) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "unroll");
    if (l && tir_annotate(s, l, TIR_UNROLL, NULL))
        trace_line(s, "sch.unroll(loop=%s)", loop_rv(s, l));
}

void wf_tir_parallel(wf_tir *s, wf_tir_loop *h) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "parallel");
    if (l && tir_annotate(s, l, TIR_PARALLEL, NULL))
        trace_line(s, "sch.parallel(loop=%s)", loop_rv(s, l));
}

/* ---- annotations ---- */

static const char *ann_value(wf_tir *s, const char *key, const char *value) {
    if (!key || !*key || !value)
        return err_fail(&s->err, WF_ERR_ARG,
                        "annotate: the key is NULL or empty, or the value "
                        "is NULL");
    const char *why = NULL;
    const char *v = tir_ann_value(s, value, strlen(value), &why);
    if (!v && !err_set(&s->err))
        err_fail(&s->err, WF_ERR_ARG,
                 "annotate: the value \"%s\" of the annotation \"%s\" is %s (ann_val is an "
                 "int, a float, a \"string\", True / False or a [list] of them, as TVMScript "
                 "writes it)",
                 value, key, why);
    return v;
}

static void annotate(wf_tir *s, tir_anns *anns, const char *rv, const char *key,
                     const char *value) {
    const char *v = ann_value(s, key, value);
    if (v && tir_ann_set(s, anns, key, v))
        trace_line(s, "sch.annotate(block_or_loop=%s, ann_key=\"%s\", ann_val=%s)", rv, key, v);
}

static void unannotate(wf_tir *s, tir_anns *anns, const char *rv, const char *what,
                       const char *key) {
    if (!key)
        err_fail(&s->err, WF_ERR_ARG, "unannotate: the key is NULL");
    else if (!tir_ann_remove(anns, key))
        err_fail(&s->err, WF_ERR_ARG, "unannotate: Cannot find annotation key: %s (on %s)", key,
                 what);
    else
        trace_line(s, "sch.unannotate(block_or_loop=%s, ann_key=\"%s\")", rv, key);
}

void wf_tir_annotate_loop(wf_tir *s, wf_tir_loop *h, const char *key, const char *value) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "annotate");
    if (l)
        annotate(s, &l->anns, loop_rv(s, l), key, value);
}

void wf_tir_annotate_block(wf_tir *s, wf_tir_block *h, const char *key, const char *value) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "annotate");
    if (b)
        annotate(s, &b->anns, block_rv(s, b), key, value);
}

void wf_tir_unannotate_loop(wf_tir *s, wf_tir_loop *h, const char *key) {
    TIR_GATE(s, );
    tir_stmt *l = loop_of(s, h, "unannotate");
    char what[300];
    if (l) {
        snprintf(what, sizeof what, "the loop %.250s", l->loop_var->name);
        unannotate(s, &l->anns, loop_rv(s, l), what, key);
    }
}

void wf_tir_unannotate_block(wf_tir *s, wf_tir_block *h, const char *key) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "unannotate");
    char what[300];
    if (b) {
        snprintf(what, sizeof what, "the block \"%.250s\"", b->name);
        unannotate(s, &b->anns, block_rv(s, b), what, key);
    }
}

/* ---- block queries ---- */

/* "b3, b4 = " (or "b3, = "; nothing for none) and the blocks written out. */
static int block_list_out(wf_tir *s, const char *call, tir_block **all, int n, wf_tir_block **out,
                          int max) {
    if (n < 0)
        return -1;
    sbuf lhs = {0};
    for (int i = 0; i < n && i < TIR_MAX_BUFFERS; i++) {
        name_block(s, all[i]);
        sbuf_printf(&lhs, i ? ", %s" : "%s", block_rv(s, all[i]));
    }
    trace_line(s, "%s%s%s", sbuf_str(&lhs), n == 0 ? "" : n == 1 ? ", = " : " = ", call);
    sbuf_free(&lhs);
    for (int i = 0; i < n && i < max && i < TIR_MAX_BUFFERS; i++)
        out[i] = (wf_tir_block *)all[i];
    return n;
}

static bool check_out(wf_tir *s, wf_tir_block **out, int max, const char *fn) {
    if (max < 0 || (max > 0 && !out))
        return err_failb(&s->err, WF_ERR_ARG, "%s: blocks is NULL or max is negative", fn);
    return true;
}

int wf_tir_get_child_blocks(wf_tir *s, wf_tir_block *h, wf_tir_block **out, int max) {
    TIR_GATE(s, -1);
    tir_block *b = h == (wf_tir_block *)&s->root ? &s->root : block_of(s, h, "get_child_blocks");
    if (!b || !check_out(s, out, max, "get_child_blocks"))
        return -1;
    tir_block *all[TIR_MAX_BUFFERS];
    int n = tir_child_blocks(s, b == &s->root ? s->body : b->body, all, TIR_MAX_BUFFERS);
    char call[64];
    snprintf(call, sizeof call, "sch.get_child_blocks(%s)", block_rv(s, b));
    return block_list_out(s, call, all, n, out, max);
}

int wf_tir_get_loop_child_blocks(wf_tir *s, wf_tir_loop *h, wf_tir_block **out, int max) {
    TIR_GATE(s, -1);
    tir_stmt *l = loop_of(s, h, "get_child_blocks");
    if (!l || !check_out(s, out, max, "get_child_blocks"))
        return -1;
    tir_block *all[TIR_MAX_BUFFERS];
    int n = tir_child_blocks(s, l->body, all, TIR_MAX_BUFFERS);
    char call[64];
    snprintf(call, sizeof call, "sch.get_child_blocks(%s)", loop_rv(s, l));
    return block_list_out(s, call, all, n, out, max);
}

static int deps(wf_tir *s, wf_tir_block *h, wf_tir_block **out, int max, bool consumers) {
    const char *fn = consumers ? "get_consumers" : "get_producers";
    TIR_GATE(s, -1);
    tir_block *b = block_of(s, h, fn);
    if (!b || !check_out(s, out, max, fn))
        return -1;
    tir_block *all[TIR_MAX_BUFFERS];
    int n = tir_block_deps(s, b, consumers, all, TIR_MAX_BUFFERS);
    char call[64];
    snprintf(call, sizeof call, "sch.%s(block=%s)", fn, block_rv(s, b));
    return block_list_out(s, call, all, n, out, max);
}

int wf_tir_get_producers(wf_tir *s, wf_tir_block *b, wf_tir_block **out, int max) {
    return deps(s, b, out, max, false);
}

int wf_tir_get_consumers(wf_tir *s, wf_tir_block *b, wf_tir_block **out, int max) {
    return deps(s, b, out, max, true);
}

const char *wf_tir_block_name(wf_tir *s, wf_tir_block *h) {
    TIR_GATE(s, NULL);
    if (h && h == (wf_tir_block *)&s->root)
        return "root";
    tir_block *b = block_of(s, h, "wf_tir_block_name");
    return b ? b->name : NULL;
}

/* ---- caches and moves ---- */

static bool scope_of(wf_tir *s, const char *scope, tir_scope *out, const char *fn) {
    if (scope && !strcmp(scope, "global"))
        *out = TIR_GLOBAL;
    else if (scope && !strcmp(scope, "shared"))
        *out = TIR_SHARED;
    else if (scope && !strcmp(scope, "local"))
        *out = TIR_LOCAL;
    else
        return err_failb(&s->err, WF_ERR_ARG,
                         "%s: The input storage scope \"%s\" is invalid (global, shared and local "
                         "are)",
                         fn, scope ? scope : "(null)");
    return true;
}

static wf_tir_block *cache(wf_tir *s, wf_tir_block *h, int index, const char *scope, bool write) {
    const char *fn = write ? "cache_write" : "cache_read";
    TIR_GATE(s, NULL);
    tir_block *b = block_of(s, h, fn);
    tir_scope sc = TIR_GLOBAL;
    if (!b || !scope_of(s, scope, &sc, fn))
        return NULL;
    const char *brv = block_rv(s, b);
    tir_block *c = write ? tir_cache_write(s, b, index, sc) : tir_cache_read(s, b, index, sc);
    if (!c)
        return NULL;
    name_block(s, c);
    trace_line(s, "%s = sch.%s(block=%s, %s_buffer_index=%d, storage_scope=\"%s\")", block_rv(s, c),
               fn, brv, write ? "write" : "read", index, scope);
    return (wf_tir_block *)c;
}

wf_tir_block *wf_tir_cache_read(wf_tir *s, wf_tir_block *b, int index, const char *scope) {
    return cache(s, b, index, scope, false);
}

wf_tir_block *wf_tir_cache_write(wf_tir *s, wf_tir_block *b, int index, const char *scope) {
    return cache(s, b, index, scope, true);
}

static void compute_at(wf_tir *s, wf_tir_block *h, wf_tir_loop *lh, bool reverse) {
    const char *fn = reverse ? "reverse_compute_at" : "compute_at";
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, fn);
    tir_stmt *l = b ? loop_of(s, lh, fn) : NULL;
    if (l && tir_compute_at(s, b, l, reverse))
        trace_line(s, "sch.%s(block=%s, loop=%s, preserve_unit_loops=False, index=-1)", fn,
                   block_rv(s, b), loop_rv(s, l));
}

void wf_tir_compute_at(wf_tir *s, wf_tir_block *b, wf_tir_loop *l) {
    compute_at(s, b, l, false);
}

void wf_tir_reverse_compute_at(wf_tir *s, wf_tir_block *b, wf_tir_loop *l) {
    compute_at(s, b, l, true);
}

void wf_tir_compute_inline(wf_tir *s, wf_tir_block *h) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "compute_inline");
    if (b && tir_compute_inline(s, b))
        trace_line(s, "sch.compute_inline(block=%s)", block_rv(s, b));
}

void wf_tir_reverse_compute_inline(wf_tir *s, wf_tir_block *h) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "reverse_compute_inline");
    if (b && tir_reverse_compute_inline(s, b))
        trace_line(s, "sch.reverse_compute_inline(block=%s)", block_rv(s, b));
}

void wf_tir_set_scope(wf_tir *s, wf_tir_block *h, int index, const char *scope) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "set_scope");
    tir_scope sc = TIR_GLOBAL;
    if (b && scope_of(s, scope, &sc, "set_scope") && tir_set_scope(s, b, index, sc))
        trace_line(s, "sch.set_scope(block=%s, buffer_index=%d, storage_scope=\"%s\")",
                   block_rv(s, b), index, scope);
}

void wf_tir_storage_align(wf_tir *s, wf_tir_block *h, int index, int axis, int factor, int offset) {
    TIR_GATE(s, );
    tir_block *b = block_of(s, h, "storage_align");
    if (b && tir_storage_align(s, b, index, axis, factor, offset))
        trace_line(s, "sch.storage_align(block=%s, buffer_index=%d, axis=%d, factor=%d, offset=%d)",
                   block_rv(s, b), index, axis, factor, offset);
}

wf_tir_block *wf_tir_decompose_reduction(wf_tir *s, wf_tir_block *h, wf_tir_loop *lh) {
    TIR_GATE(s, NULL);
    tir_block *b = block_of(s, h, "decompose_reduction");
    tir_stmt *l = b ? loop_of(s, lh, "decompose_reduction") : NULL;
    const char *brv = b ? block_rv(s, b) : NULL, *lrv = l ? loop_rv(s, l) : NULL;
    tir_block *ib = l ? tir_decompose_reduction(s, b, l) : NULL;
    if (!ib)
        return NULL;
    name_block(s, ib);
    trace_line(s, "%s = sch.decompose_reduction(block=%s, loop=%s)", block_rv(s, ib), brv, lrv);
    return (wf_tir_block *)ib;
}

wf_tir_block *wf_tir_blockize(wf_tir *s, wf_tir_loop *h) {
    TIR_GATE(s, NULL);
    tir_stmt *l = loop_of(s, h, "blockize");
    if (!l)
        return NULL;
    return err_fail(&s->err, WF_ERR_UNSUPPORTED,
                    "blockize: not supported yet: blockize (the loop %s and the loops inside it "
                    "as one outer block around the block inside them); weft's blocks hold no "
                    "blocks, so tensorize and blockize-based schedules are refused",
                    l->loop_var->name);
}

wf_tir_block *wf_tir_rfactor(wf_tir *s, wf_tir_loop *h, int factor_axis) {
    TIR_GATE(s, NULL);
    tir_stmt *l = loop_of(s, h, "rfactor");
    if (!l)
        return NULL;
    const char *lrv = loop_rv(s, l);
    tir_block *rf = tir_rfactor(s, l, factor_axis);
    if (!rf)
        return NULL;
    name_block(s, rf);
    trace_line(s, "%s = sch.rfactor(loop=%s, factor_axis=%d)", block_rv(s, rf), lrv, factor_axis);
    return (wf_tir_block *)rf;
}

/* ---- printing and building ---- */

const char *wf_tir_script(wf_tir *s) {
    /* after a failed parse or an allocation failure the program may be incomplete */
    if (!s || !s->parsed || s->arena.failed)
        return NULL;
    sbuf_free(&s->script);
    tir_print(s, &s->script);
    return s->script.oom ? NULL : sbuf_str(&s->script);
}

const char *wf_tir_trace(wf_tir *s) {
    if (!s)
        return NULL;
    sbuf_free(&s->script);
    sbuf_puts(&s->script, "# from tvm import tir\ndef apply_trace(sch: tir.Schedule) -> None:\n");
    sbuf_puts(&s->script, s->trace.len ? sbuf_str(&s->trace) : "  pass\n");
    return s->script.oom || s->trace.oom ? NULL : sbuf_str(&s->script);
}

void wf_tir_show(wf_tir *s, FILE *out) {
    const char *t = wf_tir_script(s);
    if (!out)
        return;
    if (t)
        fputs(t, out);
    else
        fprintf(out, "# no program: %s\n", s ? wf_tir_error(s) : "NULL schedule");
}

wf_kernel *wf_tir_build(wf_tir *s, const wf_compile_options *opt) {
    TIR_GATE(s, NULL);
    return tir_build(s, opt);
}

/* ---- the built fusion ---- */

wf_fusion *wf_tir_fusion(wf_tir *s) {
    return s ? s->fusion : NULL;
}

wf_tv *wf_tir_block_tensor(wf_tir *s, wf_tir_block *h) {
    TIR_GATE(s, NULL);
    tir_block *b = block_of(s, h, "wf_tir_block_tensor");
    if (!b)
        return NULL;
    if (!s->fusion)
        return err_fail(&s->err, WF_ERR_ARG,
                        "wf_tir_block_tensor: block \"%s\": the program is not built yet; call "
                        "wf_tir_build first",
                        b->name);
    for (int i = 0; i < s->nbuilt; i++)
        if (s->built_block[i] == b)
            return s->built_tv[i];
    return err_fail(&s->err, WF_ERR_ARG,
                    "wf_tir_block_tensor: block \"%s\" has no tensor in the built program (it "
                    "was scheduled after the last wf_tir_build; build again)",
                    b->name);
}
