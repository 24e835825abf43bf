/*
 * blocks.c -- TVM's block queries and block primitives on the TIR program:
 * get_child_blocks, get_producers / get_consumers, set_scope, storage_align and
 * decompose_reduction.
 *
 * Queries walk the program in order and list live blocks, each once. set_scope moves
 * an allocated buffer to another scope, renaming it <name>_<scope> as TVM 0.27 does;
 * storage_align records TVM's "buffer_dim_align" block annotation ([[buffer index,
 * axis, factor, offset], ...]: printed, and ignored by the build, whose allocations
 * are not padded). decompose_reduction takes a reduction block's T.init() out into a
 * block <name>_init placed just before the given loop, under loops copied (<var>_init)
 * from those between that loop and the block that its spatial iters use; the block
 * becomes <name>_update. As everywhere in the schedule, every check runs before the
 * first change. The build finds such a pair again (tir_split_init) and lowers it as the
 * one reduction it was.
 */
#include "tir/tir.h"

#include <stdio.h>
#include <string.h>

/* ---- queries ---- */

typedef struct {
    tir_block **out;
    int max, n;
} block_out;

static void put(block_out *o, tir_block *b) {
    for (int i = 0; i < o->n && i < o->max; i++)
        if (o->out[i] == b)
            return;
    if (o->n < o->max)
        o->out[o->n] = b;
    o->n++;
}

/* The blocks under st that no other block (below st) holds. */
static void children(tir_stmt *st, block_out *o) {
    if (!st)
        return;
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            children(st->seq.ptr[i], o);
        return;
    case TS_FOR:
        children(st->body, o);
        return;
    case TS_BLOCK:
        if (!st->block->dead)
            put(o, st->block);
        return;
    case TS_STORE:
        return;
    }
}

int tir_child_blocks(wf_tir *s, tir_stmt *under, tir_block **out, int max) {
    (void)s;
    block_out o = {out, max, 0};
    children(under, &o);
    return o.n;
}

typedef struct {
    wf_tir *s;
    const tir_regions *mine; /* the buffers b reads (for producers) or writes */
    bool consumers;
    tir_block *self;
    block_out *o;
} deps_ctx;

static bool touches(const tir_regions *rs, const tir_buffer *buf) {
    for (int i = 0; i < rs->n; i++)
        if (rs->ptr[i].buf == buf)
            return true;
    return false;
}

static bool dep_block(tir_block *b, void *vctx) {
    deps_ctx *c = vctx;
    tir_regions r = {0}, w = {0};
    if (b == c->self || b->dead || !tir_block_regions(c->s, b, &r, &w))
        return !err_set(&c->s->err);
    const tir_regions *theirs = c->consumers ? &r : &w;
    for (int i = 0; i < c->mine->n; i++)
        if (touches(theirs, c->mine->ptr[i].buf)) {
            put(c->o, b);
            break;
        }
    return true;
}

int tir_block_deps(wf_tir *s, tir_block *b, bool consumers, tir_block **out, int max) {
    tir_regions r = {0}, w = {0};
    if (!tir_block_regions(s, b, &r, &w))
        return -1;
    block_out o = {out, max, 0};
    deps_ctx c = {s, consumers ? &w : &r, consumers, b, &o};
    if (!tir_each_block(s->body, dep_block, &c) && err_set(&s->err))
        return -1;
    return o.n;
}

/* ---- set_scope, storage_align ---- */

/* The buffer b writes at index, allocated by a block (not a parameter). */
static tir_buffer *written(wf_tir *s, tir_block *b, int index, const char *fn) {
    tir_regions r = {0}, w = {0};
    if (!tir_block_regions(s, b, &r, &w))
        return NULL;
    if (index < 0 || index >= w.n)
        return err_fail(&s->err, WF_ERR_ARG,
                        "%s: The block \"%s\" has %d write regions, so `buffer_index` is required "
                        "to be in [0, %d). However, the input `buffer_index` is %d, which is out "
                        "of the expected range.",
                        fn, b->name, w.n, w.n, index);
    tir_buffer *buf = w.ptr[index].buf;
    if (buf->is_param)
        return err_fail(&s->err, WF_ERR_SCHEDULE,
                        "%s: The input buffer %s is not allocated by a block. This means the "
                        "buffer is either a function parameter or defined in `match_buffer` of a "
                        "block.",
                        fn, buf->name);
    return buf;
}

static bool name_taken(wf_tir *s, const char *name) {
    for (int i = 0; i < s->params.n; i++)
        if (!strcmp(s->params.ptr[i]->name, name))
            return true;
    for (int i = 0; i < s->root_allocs.n; i++)
        if (!strcmp(s->root_allocs.ptr[i]->name, name))
            return true;
    for (int i = 0; i < s->blocks.n; i++)
        for (int j = 0; j < s->blocks.ptr[i]->allocs.n; j++)
            if (!strcmp(s->blocks.ptr[i]->allocs.ptr[j]->name, name))
                return true;
    return false;
}

bool tir_set_scope(wf_tir *s, tir_block *b, int index, tir_scope scope) {
    tir_buffer *buf = written(s, b, index, "set_scope");
    if (!buf)
        return false;
    if (buf->scope == scope)
        return true;
    char name[300];
    snprintf(name, sizeof name, "%.250s_%s", buf->name, tir_scope_name(scope));
    for (int k = 1; name_taken(s, name); k++)
        snprintf(name, sizeof name, "%.250s_%s_%d", buf->name, tir_scope_name(scope), k);
    const char *nm = arena_strdup(&s->arena, name);
    if (!nm)
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    buf->name = nm;
    buf->scope = scope;
    return true;
}

bool tir_storage_align(wf_tir *s, tir_block *b, int index, int axis, int64_t factor,
                       int64_t offset) {
    tir_buffer *buf = written(s, b, index, "storage_align");
    if (!buf)
        return false;
    if (axis < -buf->ndim || axis >= buf->ndim)
        return err_failb(&s->err, WF_ERR_ARG,
                         "storage_align: The buffer to set storage alignment of, %s, has %d "
                         "dimension(s), so `axis` is required to be in [%d, %d) for "
                         "storage_align. However, the input `axis` is %d, which is out of the "
                         "expected range.",
                         buf->name, buf->ndim, -buf->ndim, buf->ndim, axis);
    if (factor <= 0)
        return err_failb(&s->err, WF_ERR_ARG,
                         "storage_align: The input `factor` of storage_align is expected to be a "
                         "positive number. However, the input `factor` is %lld, which is out of "
                         "the expected range.",
                         (long long)factor);
    if (axis < 0)
        axis += buf->ndim;
    /* TVM's annotation: one [index, axis, factor, offset] per aligned axis */
    sbuf v = {0};
    const char *old = tir_ann_get(&b->anns, "buffer_dim_align");
    char item[128];
    snprintf(item, sizeof item, "[%d, %d, %lld, %lld]", index, axis, (long long)factor,
             (long long)offset);
    if (old && strcmp(old, "[]"))
        sbuf_printf(&v, "%.*s, %s]", (int)strlen(old) - 1, old, item);
    else
        sbuf_printf(&v, "[%s]", item);
    const char *why = NULL;
    const char *val = v.oom ? NULL : tir_ann_value(s, sbuf_str(&v), v.len, &why);
    sbuf_free(&v);
    if (!val)
        return err_set(&s->err) ? false : err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    return tir_ann_set(s, &b->anns, "buffer_dim_align", val);
}

/* ---- decompose_reduction ---- */

static const char *suffixed(wf_tir *s, const char *name, const char *suffix) {
    char buf[300];
    snprintf(buf, sizeof buf, "%.250s%s", name, suffix);
    return arena_strdup(&s->arena, buf);
}

static bool uses_loop(const tir_block *b, const tir_stmt *loop) {
    for (int k = 0; k < b->niters; k++)
        if (!b->iters[k].reduce && tir_expr_uses(b->iters[k].value, loop->loop_var))
            return true;
    return false;
}

/* The init block: b's spatial iters bound as in b (loop variables from `loop` down
   renamed <var>_init), its T.init() as body. */
static tir_block *init_block(wf_tir *s, tir_block *b, tir_var *const *from, tir_expr *const *to,
                             int nl) {
    tir_block *ib = ARENA_NEW(&s->arena, tir_block);
    tir_stmt *st = tir_stmt_new(s, TS_BLOCK);
    int ns = 0;
    for (int k = 0; k < b->niters; k++)
        ns += !b->iters[k].reduce;
    if (!ib || !st || !(ib->iters = ARENA_ARRAY(&s->arena, tir_iter, ns ? ns : 1)))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    ib->name = suffixed(s, b->name, "_init");
    ib->stmt = st, st->block = ib;
    if (!tir_ann_copy(s, &ib->anns, &b->anns))
        return NULL;
    for (int k = 0; k < b->niters; k++) {
        if (b->iters[k].reduce)
            continue;
        tir_iter *it = &ib->iters[ib->niters++];
        *it = b->iters[k];
        if (!(it->value = tir_subst(s, b->iters[k].value, nl, from, to)))
            return NULL;
    }
    ib->body = b->init;
    if (!ib->name || !vec_push_arena(&s->arena, &s->blocks, ib))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    return ib;
}

tir_block *tir_decompose_reduction(wf_tir *s, tir_block *b, tir_stmt *loop) {
    const char *fn = "decompose_reduction";
    if (!b->init)
        return err_fail(&s->err, WF_ERR_SCHEDULE,
                        "%s: The block \"%s\" is not a reduction block: it has no T.init()", fn,
                        b->name);
    if (b->where)
        return err_fail(&s->err, WF_ERR_UNSUPPORTED,
                        "%s: not supported yet: the block \"%s\" has a T.where predicate", fn,
                        b->name);
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS), at = -1;
    for (int j = 0; j < nl; j++)
        at = loops[j] == loop ? j : at;
    if (at < 0)
        return err_fail(&s->err, WF_ERR_SCHEDULE,
                        "%s: The input loop %s of decompose_reduction is required to be an "
                        "ancestor of block \"%s\".",
                        fn, loop->loop_var->name, b->name);
    /* the loops from `loop` down that the init's iters use, copied as <var>_init */
    tir_var *from[TIR_MAX_LOOPS];
    tir_expr *to[TIR_MAX_LOOPS];
    tir_stmt *copy[TIR_MAX_LOOPS];
    int nc = 0;
    for (int j = at; j < nl; j++) {
        if (!uses_loop(b, loops[j]))
            continue;
        tir_var *v = tir_var_new(s, suffixed(s, loops[j]->loop_var->name, "_init"));
        if (!v || !v->name || !(to[nc] = tir_var_ref(s, v)))
            return err_set(&s->err) ? NULL : err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
        from[nc] = loops[j]->loop_var, copy[nc++] = loops[j];
    }
    tir_block *ib = init_block(s, b, from, to, nc);
    const char *upd = ib ? suffixed(s, b->name, "_update") : NULL;
    if (!upd)
        return err_set(&s->err) ? NULL : err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    tir_stmt *top = ib->stmt;
    for (int i = nc - 1; i >= 0 && top; i--) {
        tir_stmt *l = tir_for_new(s, to[i]->var, copy[i]->extent, top);
        if (l && !tir_ann_copy(s, &l->anns, &copy[i]->anns))
            return NULL;
        if (l)
            l->for_kind = copy[i]->for_kind, l->thread = copy[i]->thread;
        top = l;
    }
    if (!top)
        return NULL;
    /* the init nest goes just before `loop` in its parent */
    tir_stmt *p = loop->parent, *seq = p && p->kind == TS_SEQ ? p : NULL;
    if (!seq) {
        if (!(seq = tir_stmt_new(s, TS_SEQ)) || !tir_seq_push(s, seq, top))
            return NULL;
        tir_replace(s, loop, seq);
        if (!tir_seq_push(s, seq, loop))
            return NULL;
    } else {
        if (!tir_seq_push(s, seq, top))
            return NULL;
        int i = seq->seq.n - 1; /* shift `loop` and what follows it one place on */
        for (bool moved = false; i > 0 && !moved; i--) {
            moved = seq->seq.ptr[i - 1] == loop;
            seq->seq.ptr[i] = seq->seq.ptr[i - 1];
        }
        seq->seq.ptr[i] = top;
    }
    tir_fix_parents(top, seq);
    b->init = NULL;
    b->name = upd;
    return ib;
}

/* ---- decompose_reduction's pair, as the build finds it ---- */

static bool has_reduce_iter(const tir_block *b) {
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].reduce)
            return true;
    return false;
}

typedef struct {
    const tir_block *b;    /* the update block */
    const tir_block *last; /* the last block before it writing its buffer */
    bool reached;
} split_ctx;

static bool last_writer(tir_block *x, void *vctx) {
    split_ctx *c = vctx;
    if (x == c->b)
        c->reached = true;
    else if (!c->reached && !x->dead && x->body->kind == TS_STORE &&
             x->body->buf == c->b->body->buf)
        c->last = x;
    return !c->reached;
}

static bool is_const_value(const tir_expr *e) {
    if (e->kind == TE_CALL && e->op == TC_CAST && e->nargs == 1)
        e = e->args[0];
    return e->kind == TE_INT || e->kind == TE_FLOAT;
}

const tir_block *tir_split_init(const wf_tir *s, const tir_block *b) {
    if (b->init || b->body->kind != TS_STORE || !has_reduce_iter(b))
        return NULL;
    split_ctx c = {b, NULL, false};
    tir_each_block(s->body, last_writer, &c);
    const tir_block *x = c.last;
    if (!x || x->init || has_reduce_iter(x) || !is_const_value(x->body->value) ||
        x->body->nidx != x->niters)
        return NULL;
    for (int d = 0; d < x->niters; d++)
        if (x->body->idx[d]->kind != TE_VAR || x->body->idx[d]->var != x->iters[d].var ||
            x->iters[d].extent != x->body->buf->shape[d])
            return NULL;
    return x;
}

const tir_stmt *tir_init_of(const wf_tir *s, const tir_block *b) {
    const tir_block *x = b->init ? NULL : tir_split_init(s, b);
    return b->init ? b->init : x ? x->body : NULL;
}
