/*
 * cache.c -- TVM's data-movement primitives on the TIR program: cache_read,
 * cache_write, compute_at, reverse_compute_at, compute_inline, reverse_compute_inline.
 *
 * cache_read / cache_write add a buffer in the requested scope and a copy block named
 * after it (loops ax0.., iters v0..), placed at the root: before everything for a
 * function parameter, else right after the block that writes the buffer. compute_at
 * moves a block under a loop and regenerates its loops to cover what the blocks under
 * that loop need of the buffer it writes: each needed index is an affine expression of
 * loop variables; those of loops under the target loop are relaxed to their ranges,
 * the others stay symbolic, so the new binding is `outer part + ax` (TVM's
 * `i_0 * 16 + ax0`). reverse_compute_at is the mirror image (what the blocks under the
 * loop write of the buffer the block reads). The inlines substitute a single-store
 * block's value into its consumer (or its consumer into it). Every check runs before
 * the first change, so a refusal leaves the program as it was.
 */
#include "tir/tir.h"

#include <stdio.h>
#include <string.h>

/* ---- the root sequence ---- */

/* The root body as a sequence (wrapping a lone statement). */
static tir_stmt *root_seq(wf_tir *s) {
    if (s->body->kind == TS_SEQ)
        return s->body;
    tir_stmt *seq = tir_stmt_new(s, TS_SEQ);
    if (!seq || !tir_seq_push(s, seq, s->body))
        return NULL;
    s->body = seq;
    seq->parent = NULL;
    return seq;
}

static bool seq_insert(wf_tir *s, tir_stmt *seq, int at, tir_stmt *x) {
    if (!tir_seq_push(s, seq, x))
        return false;
    for (int i = seq->seq.n - 1; i > at; i--)
        seq->seq.ptr[i] = seq->seq.ptr[i - 1];
    seq->seq.ptr[at] = x;
    return true;
}

/* The child of seq that contains st, or -1. */
static int child_index(const tir_stmt *seq, const tir_stmt *st) {
    for (const tir_stmt *p = st; p; p = p->parent)
        if (p->parent == seq)
            for (int i = 0; i < seq->seq.n; i++)
                if (seq->seq.ptr[i] == p)
                    return i;
    return -1;
}

static bool count_block(tir_block *b, void *ctx) {
    (void)b;
    ++*(int *)ctx;
    return true;
}

/* The outermost statement holding b and nothing else (its own loops), or NULL. */
static tir_stmt *own_nest(tir_block *b) {
    tir_stmt *top = b->stmt;
    for (tir_stmt *p = top->parent; p && p->kind == TS_FOR; p = p->parent)
        top = p;
    int n = 0;
    tir_each_block(top, count_block, &n);
    return n == 1 ? top : NULL;
}

/* Removes st from its parent sequence; loops left empty are removed with it. */
static void remove_stmt(wf_tir *s, tir_stmt *st) {
    tir_stmt *p = st->parent;
    for (tir_stmt *x = st; x && x->kind == TS_FOR; x = x->body)
        x->dead = true;
    if (!p)
        return;
    if (p->kind == TS_SEQ) {
        int k = 0;
        for (int i = 0; i < p->seq.n; i++)
            if (p->seq.ptr[i] != st)
                p->seq.ptr[k++] = p->seq.ptr[i];
        p->seq.n = k;
        if (k == 1 && p->parent && p->parent->kind == TS_FOR)
            tir_replace(s, p, p->seq.ptr[0]);
        else if (k == 0 && p->parent)
            remove_stmt(s, p);
    } else if (p->kind == TS_FOR)
        remove_stmt(s, p);
}

bool tir_insert_after(wf_tir *s, tir_stmt *anchor, tir_stmt *x) {
    tir_stmt *seq = root_seq(s);
    if (!seq)
        return false; /* out of memory */
    int at = child_index(seq, anchor);
    err_assert(&s->err, at >= 0); /* every statement is under the root */
    if (at < 0)
        return false;
    if (!seq_insert(s, seq, at + 1, x))
        return false;
    x->parent = seq;
    return true;
}

/* ---- buffers ---- */

static const char *unique_name(wf_tir *s, const char *base) {
    char buf[300];
    snprintf(buf, sizeof buf, "%.250s", base);
    for (int k = 1;; k++) {
        bool taken = tir_find_block(s, buf) != NULL;
        for (int i = 0; i < s->root_allocs.n && !taken; i++)
            taken = !strcmp(s->root_allocs.ptr[i]->name, buf);
        for (int i = 0; i < s->params.n && !taken; i++)
            taken = !strcmp(s->params.ptr[i]->name, buf);
        if (!taken)
            return arena_strdup(&s->arena, buf);
        snprintf(buf, sizeof buf, "%.250s_%d", base, k);
    }
}

static tir_buffer *new_cache_buffer(wf_tir *s, const tir_buffer *of, tir_scope sc) {
    char name[256];
    snprintf(name, sizeof name, "%s_%s", of->name, tir_scope_name(sc));
    tir_buffer *b = ARENA_NEW(&s->arena, tir_buffer);
    if (!b)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    *b = *of;
    b->scope = sc;
    b->is_param = false;
    b->name = unique_name(s, name);
    if (!b->name || !vec_push_arena(&s->arena, &s->root_allocs, b))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    return b;
}

/* ---- rewriting accesses ---- */

typedef struct {
    tir_buffer *from, *to;
} redirect;

static void redirect_expr(tir_expr *e, const redirect *r) {
    for (int i = 0; i < e->nargs; i++)
        redirect_expr(e->args[i], r);
    if (e->kind == TE_LOAD && e->buf == r->from)
        e->buf = r->to;
}

/* Points the loads (and, when stores is set, the stores) of st at another buffer. */
static void redirect_stmt(tir_stmt *st, const redirect *r, bool stores) {
    if (!st)
        return;
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            redirect_stmt(st->seq.ptr[i], r, stores);
        return;
    case TS_FOR:
        redirect_stmt(st->body, r, stores);
        return;
    case TS_STORE:
        for (int i = 0; i < st->nidx; i++)
            redirect_expr(st->idx[i], r);
        redirect_expr(st->value, r);
        if (stores && st->buf == r->from)
            st->buf = r->to;
        return;
    case TS_BLOCK:
        return;
    }
}

static bool expr_reads_buf(const tir_expr *e, const tir_buffer *b) {
    if (e->kind == TE_LOAD && e->buf == b)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (expr_reads_buf(e->args[i], b))
            return true;
    return false;
}

static bool stmt_touches(const tir_stmt *st, const tir_buffer *b, bool reads, bool writes) {
    if (!st)
        return false;
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            if (stmt_touches(st->seq.ptr[i], b, reads, writes))
                return true;
        return false;
    case TS_FOR:
        return stmt_touches(st->body, b, reads, writes);
    case TS_STORE:
        if (writes && st->buf == b)
            return true;
        if (!reads)
            return false;
        for (int i = 0; i < st->nidx; i++)
            if (expr_reads_buf(st->idx[i], b))
                return true;
        return expr_reads_buf(st->value, b);
    case TS_BLOCK:
        return stmt_touches(st->block->body, b, reads, writes) ||
               stmt_touches(st->block->init, b, reads, writes);
    }
    return false;
}

typedef struct {
    tir_buffer *buf;
    bool reads, writes;
    tir_block *skip;
    tir_block *found[TIR_MAX_LOOPS];
    int n;
} touch_ctx;

static bool find_touch(tir_block *b, void *vctx) {
    touch_ctx *c = vctx;
    if (b != c->skip && !b->dead && stmt_touches(b->stmt, c->buf, c->reads, c->writes) &&
        c->n < TIR_MAX_LOOPS)
        c->found[c->n++] = b;
    return true;
}

static bool buffer_used(wf_tir *s, tir_buffer *b) {
    touch_ctx c = {.buf = b, .reads = true, .writes = true};
    tir_each_block(s->body, find_touch, &c);
    return c.n > 0;
}

static void drop_alloc(wf_tir *s, tir_buffer *b) {
    if (buffer_used(s, b))
        return;
    int k = 0;
    for (int i = 0; i < s->root_allocs.n; i++)
        if (s->root_allocs.ptr[i] != b)
            s->root_allocs.ptr[k++] = s->root_allocs.ptr[i];
    s->root_allocs.n = k;
}

/* ---- copy blocks ---- */

/* for ax0, ... in T.grid(shape): with T.block(name): v0, ... = remap; dst[v] = src[v] */
static tir_block *copy_block(wf_tir *s, const char *name, tir_buffer *dst, tir_buffer *src,
                             tir_stmt **nest) {
    int n = dst->ndim;
    tir_block *b = ARENA_NEW(&s->arena, tir_block);
    tir_stmt *st = tir_stmt_new(s, TS_BLOCK), *store = tir_stmt_new(s, TS_STORE);
    tir_expr **idx = ARENA_ARRAY(&s->arena, tir_expr *, n);
    if (!b || !st || !store || !idx || !(b->iters = ARENA_ARRAY(&s->arena, tir_iter, n)))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    b->name = name, b->stmt = st, st->block = b, b->niters = n;
    tir_var *loops[WF_MAX_RANK];
    for (int d = 0; d < n; d++) {
        char vn[16], ln[16];
        snprintf(vn, sizeof vn, "v%d", d);
        snprintf(ln, sizeof ln, "ax%d", d);
        b->iters[d].var = tir_var_new(s, arena_strdup(&s->arena, vn));
        loops[d] = tir_var_new(s, arena_strdup(&s->arena, ln));
        if (!b->iters[d].var || !loops[d])
            return NULL;
        b->iters[d].extent = dst->shape[d];
        b->iters[d].value = tir_var_ref(s, loops[d]);
        idx[d] = tir_var_ref(s, b->iters[d].var);
    }
    store->buf = dst, store->nidx = n, store->idx = idx;
    store->value = tir_load(s, src, n, idx);
    b->body = store, store->parent = st;
    tir_stmt *top = st;
    for (int d = n - 1; d >= 0 && top; d--)
        top = tir_for_new(s, loops[d], dst->shape[d], top);
    if (!top || !store->value || !vec_push_arena(&s->arena, &s->blocks, b))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    *nest = top;
    return b;
}

static bool region_list(wf_tir *s, tir_block *b, tir_regions *reads, tir_regions *writes) {
    memset(reads, 0, sizeof *reads);
    memset(writes, 0, sizeof *writes);
    return tir_block_regions(s, b, reads, writes);
}

tir_block *tir_cache_read(wf_tir *s, tir_block *b, int index, tir_scope scope) {
    tir_regions r, w;
    if (!region_list(s, b, &r, &w))
        return NULL;
    if (index < 0 || index >= r.n)
        return err_fail(&s->err, WF_ERR_ARG,
                        "cache_read: The input `buffer_index` is out of range. It is required to "
                        "be in range [0, %d) where `num_read_regions` is the number of buffer "
                        "regions read by the block \"%s\"",
                        r.n, b->name);
    tir_buffer *buf = r.ptr[index].buf;
    touch_ctx prod = {.buf = buf, .writes = true};
    tir_each_block(s->body, find_touch, &prod);
    tir_stmt *seq = root_seq(s);
    tir_buffer *cb = seq ? new_cache_buffer(s, buf, scope) : NULL;
    tir_stmt *nest;
    tir_block *c = cb ? copy_block(s, cb->name, cb, buf, &nest) : NULL;
    if (!c)
        return NULL;
    /* every block reading buf now reads the cache */
    touch_ctx cons = {.buf = buf, .reads = true, .skip = c};
    tir_each_block(s->body, find_touch, &cons);
    redirect r2 = {buf, cb};
    for (int i = 0; i < cons.n; i++) {
        redirect_stmt(cons.found[i]->body, &r2, false);
        redirect_stmt(cons.found[i]->init, &r2, false);
    }
    int at = prod.n ? child_index(seq, prod.found[prod.n - 1]->stmt) + 1 : 0;
    return seq_insert(s, seq, at, nest) ? c : NULL;
}

tir_block *tir_cache_write(wf_tir *s, tir_block *b, int index, tir_scope scope) {
    tir_regions r, w;
    if (!region_list(s, b, &r, &w))
        return NULL;
    if (index < 0 || index >= w.n)
        return err_fail(&s->err, WF_ERR_ARG,
                        "cache_write: The input `buffer_index` is out of range. It is required "
                        "to be in range [0, %d) where `num_write_regions` is the number of buffer "
                        "regions written by the block \"%s\"",
                        w.n, b->name);
    tir_buffer *buf = w.ptr[index].buf;
    tir_stmt *seq = root_seq(s);
    if (!seq)
        return NULL; /* out of memory */
    int at = child_index(seq, b->stmt);
    err_assert(&s->err, at >= 0); /* every statement is under the root */
    if (at < 0)
        return NULL;
    tir_buffer *cb = new_cache_buffer(s, buf, scope);
    tir_stmt *nest;
    tir_block *c = cb ? copy_block(s, cb->name, buf, cb, &nest) : NULL;
    if (!c)
        return NULL;
    redirect r2 = {buf, cb};
    redirect_stmt(b->body, &r2, true);
    redirect_stmt(b->init, &r2, true);
    return seq_insert(s, seq, at + 1, nest) ? c : NULL;
}

/* ---- compute_at ---- */

/* An index as coef * atom terms + constant (the same affine idea as the simplifier). */
typedef struct {
    int n;
    tir_expr *atom[16];
    int64_t coef[16];
    int64_t k;
} lin;

static bool lin_add(lin *f, tir_expr *atom, int64_t c) {
    for (int i = 0; i < f->n; i++)
        if (tir_expr_equal(f->atom[i], atom)) {
            f->coef[i] += c;
            return true;
        }
    if (f->n == 16)
        return false;
    f->atom[f->n] = atom, f->coef[f->n++] = c;
    return true;
}

static bool lin_of(tir_expr *e, int64_t scale, lin *f) {
    if (e->kind == TE_INT) {
        f->k += scale * e->ival;
        return true;
    }
    if (e->kind == TE_BIN && e->op == TB_ADD)
        return lin_of(e->args[0], scale, f) && lin_of(e->args[1], scale, f);
    if (e->kind == TE_BIN && e->op == TB_SUB)
        return lin_of(e->args[0], scale, f) && lin_of(e->args[1], -scale, f);
    if (e->kind == TE_BIN && e->op == TB_MUL && e->args[1]->kind == TE_INT)
        return lin_of(e->args[0], scale * e->args[1]->ival, f);
    if (e->kind == TE_BIN && e->op == TB_MUL && e->args[0]->kind == TE_INT)
        return lin_of(e->args[1], scale * e->args[0]->ival, f);
    return lin_add(f, e, scale);
}

/* One dimension of a needed region: base (symbolic, fixed loops) + [lo, hi]. */
typedef struct {
    tir_expr *base; /* NULL: no symbolic part */
    int64_t lo, hi;
    bool set, full;
} need;

/* Is a loop bound to a thread axis over which a buffer of this scope is one buffer,
   so that TVM relaxes the region over it even above the target loop: threadIdx for
   shared memory (TVM's LoopDomainOfSRefTreePath with its extra relax scope; global
   buffers are not relaxed beyond the target loop, registers never). */
static bool scope_spans(const tir_stmt *p, tir_scope scope) {
    return p->for_kind == TIR_THREAD && scope == TIR_SHARED && !strncmp(p->thread, "threadIdx", 9);
}

/* The extent over which v varies for the block statement st computed at loop, 0 if it
   is fixed there: v is the variable of a loop strictly inside `loop` on the way up from
   st, or of a thread loop the buffer spans (a cooperative fetch fills the shared tile
   of all the threads of the block, not one thread's part). */
static int64_t relaxed_extent(const tir_stmt *st, const tir_stmt *loop, const tir_var *v,
                              tir_scope scope) {
    bool inside = true;
    for (const tir_stmt *p = st->parent; p; p = p->parent) {
        inside &= p != loop;
        if (p->kind == TS_FOR && p->loop_var == v)
            return inside || scope_spans(p, scope) ? p->extent : 0;
    }
    return 0;
}

static bool uses_relaxed(const tir_expr *e, const tir_stmt *st, const tir_stmt *loop,
                         tir_scope scope) {
    if (e->kind == TE_VAR)
        return relaxed_extent(st, loop, e->var, scope) > 0;
    for (int i = 0; i < e->nargs; i++)
        if (uses_relaxed(e->args[i], st, loop, scope))
            return true;
    return false;
}

/* Widens n with index e (in loop variables) of an access of extent ext made by the
   block statement st under loop. False: not affine in the relaxed loops. */
static bool need_add(wf_tir *s, need *n, tir_expr *e, int64_t ext, const tir_stmt *st,
                     const tir_stmt *loop, tir_scope scope) {
    lin f = {0};
    if (!lin_of(e, 1, &f))
        return false;
    lin fixed = {0};
    int64_t lo = f.k, hi = f.k + ext - 1;
    for (int i = 0; i < f.n; i++) {
        int64_t c = f.coef[i];
        int64_t re =
            f.atom[i]->kind == TE_VAR ? relaxed_extent(st, loop, f.atom[i]->var, scope) : 0;
        if (re > 0) {
            lo += c < 0 ? c * (re - 1) : 0;
            hi += c > 0 ? c * (re - 1) : 0;
        } else if (uses_relaxed(f.atom[i], st, loop, scope))
            return false;
        else if (c != 0 && !lin_add(&fixed, f.atom[i], c))
            return false;
    }
    tir_expr *base = NULL;
    for (int i = 0; i < fixed.n; i++) {
        tir_expr *t = tir_bin(s, TB_MUL, fixed.atom[i], tir_int(s, fixed.coef[i]));
        base = base ? tir_bin(s, TB_ADD, base, t) : t;
    }
    base = tir_simplify(s, base);
    if (!n->set) {
        n->base = base, n->lo = lo, n->hi = hi, n->set = true;
        return true;
    }
    if ((n->base == NULL) != (base == NULL) || (base && !tir_expr_equal(n->base, base)))
        n->full = true;
    n->lo = lo < n->lo ? lo : n->lo;
    n->hi = hi > n->hi ? hi : n->hi;
    return true;
}

/* Collects what the blocks under loop need of buf (reads, or writes when reverse). */
static bool collect_needs(wf_tir *s, tir_block *const *blocks, int nb, tir_buffer *buf,
                          const tir_stmt *loop, bool reverse, need *needs) {
    for (int i = 0; i < nb; i++) {
        tir_block *c = blocks[i];
        tir_regions r, w;
        if (!region_list(s, c, &r, &w))
            return false;
        tir_regions *rs = reverse ? &w : &r;
        tir_var *from[TIR_MAX_LOOPS];
        tir_expr *to[TIR_MAX_LOOPS];
        int n = c->niters < TIR_MAX_LOOPS ? c->niters : TIR_MAX_LOOPS;
        for (int k = 0; k < n; k++)
            from[k] = c->iters[k].var, to[k] = c->iters[k].value;
        for (int j = 0; j < rs->n; j++) {
            if (rs->ptr[j].buf != buf)
                continue;
            for (int d = 0; d < buf->ndim; d++) {
                tir_expr *e = tir_subst(s, rs->ptr[j].lo[d], n, from, to);
                if (!e || !need_add(s, &needs[d], e, rs->ptr[j].ext[d], c->stmt, loop, buf->scope))
                    return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                                     "not supported yet: compute_at where block \"%s\" indexes "
                                     "%s with a non-affine expression of the loops under the "
                                     "target loop",
                                     c->name, buf->name);
            }
        }
    }
    return true;
}

/* The dimension of b's access of buf indexed by iter k exactly, or -1. */
static int iter_dim(const tir_block *b, int k, const tir_regions *rs, const tir_buffer *buf) {
    for (int j = 0; j < rs->n; j++)
        if (rs->ptr[j].buf == buf)
            for (int d = 0; d < buf->ndim; d++)
                if (rs->ptr[j].ext[d] == 1 && rs->ptr[j].lo[d]->kind == TE_VAR &&
                    rs->ptr[j].lo[d]->var == b->iters[k].var)
                    return d;
    return -1;
}

static bool is_under(const tir_stmt *st, const tir_stmt *loop) {
    for (const tir_stmt *p = st->parent; p; p = p->parent)
        if (p == loop)
            return true;
    return false;
}

/* The largest value of e, an affine sum of constants and the variables of loop and
   the loops around it (each from 0 to its extent - 1); false if unknown. */
static bool expr_max(const tir_expr *e, const tir_stmt *loop, int64_t *out) {
    int64_t x, y;
    switch (e->kind) {
    case TE_INT:
        *out = e->ival;
        return true;
    case TE_VAR:
        for (const tir_stmt *p = loop; p; p = p->parent)
            if (p->kind == TS_FOR && p->loop_var == e->var) {
                *out = p->extent - 1;
                return true;
            }
        return false;
    case TE_BIN:
        if (e->op == TB_ADD && expr_max(e->args[0], loop, &x) && expr_max(e->args[1], loop, &y))
            return !__builtin_add_overflow(x, y, out);
        if (e->op == TB_MUL && e->args[1]->kind == TE_INT && e->args[1]->ival >= 0 &&
            expr_max(e->args[0], loop, &x))
            return !__builtin_mul_overflow(x, e->args[1]->ival, out);
        return false;
    default:
        return false;
    }
}

/* TVM's predicate of a block computed at a loop whose region may pass the end of an
   iter's domain (a tile of 16 rows at i_0 * 16 over 60): value < extent, for each such
   iter, in iter order. */
static tir_expr *region_predicate(wf_tir *s, const tir_block *b, tir_expr *const *values,
                                  const int64_t *maxes) {
    tir_expr *pred = NULL;
    for (int k = 0; k < b->niters; k++) {
        if (maxes[k] < b->iters[k].extent)
            continue;
        tir_expr *t = tir_bin(s, TB_LT, values[k], tir_int(s, b->iters[k].extent));
        pred = pred ? tir_bin(s, TB_AND, pred, t) : t;
    }
    return pred;
}

/* Rebuilds b's loops under loop to cover needs; dims[k] = buffer dim of iter k. */
static bool place_block(wf_tir *s, tir_block *b, tir_stmt *nest, tir_stmt *loop, const need *needs,
                        const int *dims, int at) {
    tir_stmt *top = b->stmt;
    tir_expr *values[TIR_MAX_LOOPS];
    tir_var *lv[TIR_MAX_LOOPS];
    int64_t ext[TIR_MAX_LOOPS], maxes[TIR_MAX_LOOPS];
    int nl = 0;
    for (int k = 0; k < b->niters; k++) {
        const need *n = dims[k] >= 0 ? &needs[dims[k]] : NULL;
        bool whole = !n || !n->set || n->full;
        int64_t e = whole ? b->iters[k].extent : n->hi - n->lo + 1;
        tir_expr *start = whole     ? tir_int(s, 0)
                          : n->base ? tir_bin(s, TB_ADD, n->base, tir_int(s, n->lo))
                                    : tir_int(s, n->lo);
        tir_expr *v = start;
        int64_t base_max = 0;
        maxes[k] = whole                                            ? 0
                   : !n->base || expr_max(n->base, loop, &base_max) ? base_max + n->lo + e - 1
                                                                    : 0;
        if (e != 1) {
            char name[16];
            snprintf(name, sizeof name, "ax%d", nl);
            lv[nl] = tir_var_new(s, arena_strdup(&s->arena, name));
            ext[nl] = e;
            v = tir_bin(s, TB_ADD, start, lv[nl] ? tir_var_ref(s, lv[nl]) : NULL);
            nl++;
        }
        values[k] = tir_simplify(s, v);
        if (!values[k])
            return false;
    }
    for (int k = 0; k < b->niters; k++)
        b->iters[k].value = values[k];
    b->where = region_predicate(s, b, values, maxes);
    remove_stmt(s, nest);
    for (int i = nl - 1; i >= 0; i--)
        if (!(top = tir_for_new(s, lv[i], ext[i], top)))
            return false;
    tir_stmt *body = loop->body;
    if (body->kind != TS_SEQ) {
        tir_stmt *seq = tir_stmt_new(s, TS_SEQ);
        if (!seq || !tir_seq_push(s, seq, body))
            return false;
        loop->body = seq, seq->parent = loop;
        body = seq;
    }
    if (at < 0)
        at = body->seq.n;
    if (!seq_insert(s, body, at, top))
        return false;
    tir_fix_parents(top, body);
    return true;
}

bool tir_compute_at(wf_tir *s, tir_block *b, tir_stmt *loop, bool reverse) {
    const char *fn = reverse ? "reverse_compute_at" : "compute_at";
    tir_stmt *nest = own_nest(b);
    if (!nest)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "%s: not supported yet: the block \"%s\" shares its loops with another "
                         "block",
                         fn, b->name);
    if (is_under(loop, nest) || is_under(b->stmt, loop))
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: the loop %s is already around the block \"%s\" (give a loop of "
                         "another block's nest)",
                         fn, loop->loop_var->name, b->name);
    tir_regions r, w;
    if (!region_list(s, b, &r, &w))
        return false;
    tir_regions *mine = reverse ? &r : &w;
    if (mine->n != 1)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "%s: not supported yet: a block that %s %d buffers", fn,
                         reverse ? "reads" : "writes", mine->n);
    tir_buffer *buf = mine->ptr[0].buf;
    /* the blocks on the other side of buf: all must be under the loop */
    touch_ctx other = {.buf = buf, .reads = !reverse, .writes = reverse, .skip = b};
    tir_each_block(s->body, find_touch, &other);
    tir_block *under[TIR_MAX_LOOPS];
    int nu = 0;
    for (int i = 0; i < other.n; i++) {
        if (is_under(other.found[i]->stmt, loop))
            under[nu++] = other.found[i];
        else if (!reverse)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "compute_at: the block \"%s\" reads %s but is not under the loop %s: "
                             "computing \"%s\" there would leave it without its input",
                             other.found[i]->name, buf->name, loop->loop_var->name, b->name);
    }
    if (nu == 0)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: no block under the loop %s %s %s, so \"%s\" has no place there", fn,
                         loop->loop_var->name, reverse ? "writes" : "reads", buf->name, b->name);
    int dims[TIR_MAX_LOOPS];
    for (int k = 0; k < b->niters && k < TIR_MAX_LOOPS; k++) {
        dims[k] = b->iters[k].reduce ? -1 : iter_dim(b, k, mine, buf);
        if (dims[k] < 0 && !b->iters[k].reduce)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "%s: not supported yet: the block \"%s\" does not index %s by its "
                             "iter %s directly",
                             fn, b->name, buf->name, b->iters[k].var->name);
    }
    if (tir_loop_depth(loop) + 1 + b->niters > TIR_MAX_LOOPS)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "%s: not supported yet: more than %d loops around one block", fn,
                         TIR_MAX_LOOPS);
    need needs[WF_MAX_RANK] = {0};
    if (!collect_needs(s, under, nu, buf, loop, reverse, needs))
        return false;
    tir_stmt *body = loop->body;
    int at = -1;
    if (body->kind == TS_SEQ) {
        for (int i = 0; i < nu; i++) {
            int c = child_index(body, under[i]->stmt);
            if (!reverse && (at < 0 || c < at))
                at = c;
            if (reverse && c + 1 > at)
                at = c + 1;
        }
    } else
        at = reverse ? 1 : 0;
    return place_block(s, b, nest, loop, needs, dims, at);
}

/* ---- inlining ---- */

/* A block that is one store whose indices are its spatial iters, each once. */
static bool simple_store(wf_tir *s, tir_block *b, const char *fn, bool need_direct) {
    if (b->init)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "%s: not supported yet: reductions (block \"%s\" has T.init())", fn,
                         b->name);
    if (b->body->kind != TS_STORE)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: The body of the inlined block \"%s\" should be in form of "
                         "'A[i, j, k, ...] = f(i, j, k, ...)' (one store)",
                         fn, b->name);
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].reduce)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: the block \"%s\" has the reduction iter %s", fn, b->name,
                             b->iters[k].var->name);
    if (!need_direct)
        return true;
    const tir_stmt *st = b->body;
    for (int d = 0; d < st->nidx; d++) {
        bool ok = st->idx[d]->kind == TE_VAR;
        for (int e = 0; ok && e < d; e++)
            ok = st->idx[e]->var != st->idx[d]->var;
        if (!ok)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: The body of the inlined block \"%s\" should be in form of "
                             "'A[i, j, k, ...] = f(i, j, k, ...)', where the indices on the left "
                             "are distinct atomic variables",
                             fn, b->name);
    }
    return true;
}

/* Replaces every load of the store's buffer in e by the store's value. */
static tir_expr *inline_loads(wf_tir *s, tir_expr *e, const tir_stmt *st) {
    if (!e)
        return NULL;
    if (e->kind == TE_LOAD && e->buf == st->buf) {
        tir_var *from[WF_MAX_RANK];
        tir_expr *to[WF_MAX_RANK];
        for (int d = 0; d < st->nidx; d++) {
            from[d] = st->idx[d]->var;
            if (!(to[d] = inline_loads(s, e->args[d], st)))
                return NULL;
        }
        return tir_subst(s, st->value, st->nidx, from, to);
    }
    for (int i = 0; i < e->nargs; i++)
        if (!(e->args[i] = inline_loads(s, e->args[i], st)))
            return NULL;
    return e;
}

static bool inline_stmt(wf_tir *s, tir_stmt *x, const tir_stmt *st) {
    if (!x)
        return true;
    if (x->kind == TS_SEQ) {
        for (int i = 0; i < x->seq.n; i++)
            if (!inline_stmt(s, x->seq.ptr[i], st))
                return false;
        return true;
    }
    if (x->kind == TS_FOR)
        return inline_stmt(s, x->body, st);
    if (x->kind != TS_STORE)
        return true;
    for (int i = 0; i < x->nidx; i++)
        if (!(x->idx[i] = inline_loads(s, x->idx[i], st)))
            return false;
    return (x->value = inline_loads(s, x->value, st)) != NULL;
}

bool tir_compute_inline(wf_tir *s, tir_block *b) {
    if (!simple_store(s, b, "compute_inline", true))
        return false;
    tir_stmt *st = b->body, *nest = own_nest(b);
    if (st->buf->is_param)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "compute_inline: The block \"%s\" is an output block: it writes the "
                         "parameter %s, which must stay in memory",
                         b->name, st->buf->name);
    if (expr_reads_buf(st->value, st->buf))
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "compute_inline: the block \"%s\" reads the buffer %s it writes", b->name,
                         st->buf->name);
    err_assert(&s->err, nest != NULL); /* a block of one store holds no other block */
    if (!nest)
        return false;
    touch_ctx cons = {.buf = st->buf, .reads = true, .skip = b};
    tir_each_block(s->body, find_touch, &cons);
    for (int i = 0; i < cons.n; i++)
        if (!inline_stmt(s, cons.found[i]->body, st) || !inline_stmt(s, cons.found[i]->init, st))
            return false;
    remove_stmt(s, nest);
    b->dead = true;
    drop_alloc(s, st->buf);
    return true;
}

bool tir_reverse_compute_inline(wf_tir *s, tir_block *b) {
    const char *fn = "reverse_compute_inline";
    if (!simple_store(s, b, fn, false))
        return false;
    tir_stmt *st = b->body, *nest = own_nest(b);
    tir_regions r, w;
    if (!region_list(s, b, &r, &w))
        return false;
    /* the one buffer b reads that a block writes */
    tir_block *prod = NULL;
    tir_buffer *mid = NULL;
    for (int i = 0; i < r.n; i++) {
        touch_ctx c = {.buf = r.ptr[i].buf, .writes = true, .skip = b};
        tir_each_block(s->body, find_touch, &c);
        if (c.n > 1 || (c.n == 1 && prod))
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: the block \"%s\" must read exactly one buffer that another "
                             "block writes (it reads several)",
                             fn, b->name);
        if (c.n == 1)
            prod = c.found[0], mid = r.ptr[i].buf;
    }
    if (!prod)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: the block \"%s\" reads no buffer another block writes", fn, b->name);
    if (!simple_store(s, prod, fn, true))
        return false;
    err_assert(&s->err, nest != NULL); /* a block of one store holds no other block */
    if (!nest)
        return false;
    int dims[TIR_MAX_LOOPS];
    for (int k = 0; k < b->niters && k < TIR_MAX_LOOPS; k++)
        if ((dims[k] = iter_dim(b, k, &r, mid)) < 0)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: the block \"%s\" must read %s at its iters exactly (iter %s "
                             "is not an index)",
                             fn, b->name, mid->name, b->iters[k].var->name);
    touch_ctx readers = {.buf = mid, .reads = true, .skip = b};
    tir_each_block(s->body, find_touch, &readers);
    if (readers.n > 0 || mid->is_param)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: %s is read elsewhere too, so the block \"%s\" cannot absorb it", fn,
                         mid->name, b->name);
    /* b's iters in terms of the producer's store indices */
    tir_stmt *ps = prod->body;
    tir_var *from[TIR_MAX_LOOPS];
    tir_expr *to[TIR_MAX_LOOPS];
    for (int k = 0; k < b->niters; k++)
        from[k] = b->iters[k].var, to[k] = ps->idx[dims[k]];
    tir_expr *value = tir_subst(s, st->value, b->niters, from, to);
    tir_stmt fake = *ps; /* loads of mid at the producer's indices become its value */
    tir_expr *nv = value ? inline_loads(s, value, &fake) : NULL;
    tir_expr **idx = ARENA_ARRAY(&s->arena, tir_expr *, st->nidx);
    if (!nv || !idx)
        return !err_set(&s->err) ? err_failb(&s->err, WF_ERR_MEMORY, "out of memory") : false;
    for (int d = 0; d < st->nidx; d++)
        if (!(idx[d] = tir_subst(s, st->idx[d], b->niters, from, to)))
            return false;
    ps->buf = st->buf, ps->idx = idx, ps->nidx = st->nidx, ps->value = nv;
    remove_stmt(s, nest);
    b->dead = true;
    drop_alloc(s, mid);
    return true;
}
