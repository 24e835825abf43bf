/*
 * build.c -- lowering a scheduled TIR program through the core: one compiler, two front
 * doors (shared/DESIGN.md, "The TensorIR front-end").
 *
 * Each block becomes the tensor op that defines the buffer it writes (a parameter only
 * read is a fusion input; a parameter written is a fusion output, in parameter order);
 * its value expression becomes pointwise ops (a bare load, a cache stage, becomes a
 * copy, wf_set); its buffer's scope becomes the tensor's memory type. The loops around
 * the block become its loop domain: an iter bound to i_0 * 128 + i_1 (mixed-radix
 * strides, as split makes them) is that logical axis split by 128; the axes are then
 * reordered as the loops are nested and parallelized as they are bound, vectorized or
 * unrolled; fused iters (f // n, f % n) are a merge before the splits; a block inside
 * loops it shares with its consumer (compute_at) is inlined at that many loops.
 *
 * A reduction block (T.init() storing the op's initial value, body B[s] = B[s] op f)
 * lowers to wf_reduce(op, f over all iters, the reduce iters): its logical domain is
 * all iters in order, so the loops map onto it as for a spatial block (a reduce loop on
 * threadIdx is the core's block reduction). A load using a subset of the iters is
 * broadcast; an iter no operand uses is expanded (ir_expand: the value repeated over
 * an iteration dim, seed 004's A[vk] under vi). A loop around a tensor that none of its
 * dims uses (a stage under a shared loop it does not index, the matmul's A_shared under
 * j_0 and the thread loops; a load's tensor inside the block's other loops) is a
 * loop-domain broadcast IterDomain there (wf_tv_loop_broadcast): the tensor is computed
 * in that loop without indexing by it. What the core cannot express yet is refused with
 * "not supported yet: ...": floor division and modulo of values, vectorized
 * reductions, and indices combining iters outside rfactor's pair (build_rfactor.c).
 * A vectorized computing block stores its value with a vectorized copy (the value is
 * computed in registers, its vectorized axis unrolled: compute_pos).
 * Constants are scalar operands (wf_full) typed like their partner, as TVM converts
 * literals; comparisons, T.if_then_else and and / or / not become the core's
 * comparisons and wf_where.
 */
#include "tir/build_int.h"
#include "ir/ir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tir_bctx {
    wf_tir *s;
    wf_fusion *f;
    int n;
    tir_buffer *bufs[TIR_MAX_BUFFERS]; /* buffer -> the tensor that holds it now */
    wf_tv *tvs[TIR_MAX_BUFFERS];
    int nmade;
    wf_tv *made[TIR_MAX_OPS];    /* the ops of the block being lowered, in creation order */
    uint32_t iters[TIR_MAX_OPS]; /* per op: the iters its dims hold, in order (bit k: iter k) */
    int nplaced;                 /* blocks computed at their reader's loops, in program order */
    struct {
        tir_block *b;
        wf_tv *tv;
        const tir_block *reader;
        int pos;
    } placed[TIR_MAX_BUFFERS];
} bctx;

static wf_tv *tv_of(bctx *c, const tir_buffer *b) {
    for (int i = 0; i < c->n; i++)
        if (c->bufs[i] == b)
            return c->tvs[i];
    return NULL;
}

static bool set_tv(bctx *c, tir_buffer *b, wf_tv *tv) {
    for (int i = 0; i < c->n; i++)
        if (c->bufs[i] == b) {
            c->tvs[i] = tv;
            return true;
        }
    if (c->n == TIR_MAX_BUFFERS)
        return err_failb(&c->s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: more than %d buffers", TIR_MAX_BUFFERS);
    c->bufs[c->n] = b, c->tvs[c->n++] = tv;
    return true;
}

/* ---- checks ---- */

typedef struct {
    tir_block *list[TIR_MAX_BUFFERS];
    int n;
    bool more; /* a block beyond the list: the program is refused */
} block_list;

static bool gather(tir_block *b, void *vctx) {
    block_list *l = vctx;
    if (l->n < TIR_MAX_BUFFERS)
        l->list[l->n++] = b;
    else
        l->more = true;
    return true;
}

/* Does the loop hold more than one live block (it was given by compute_at)? */
static bool shared_loop(const wf_tir *s, const tir_stmt *loop) {
    int nblocks = 0;
    for (int j = 0; j < s->blocks.n; j++) {
        const tir_block *o = s->blocks.ptr[j];
        for (const tir_stmt *p = o->stmt->parent; !o->dead && p; p = p->parent)
            nblocks += p == loop;
    }
    return nblocks > 1;
}

static bool expr_reads(const tir_expr *e, const tir_buffer *buf) {
    if (e->kind == TE_LOAD && e->buf == buf)
        return true;
    for (int i = 0; i < e->nargs; i++)
        if (expr_reads(e->args[i], buf))
            return true;
    return false;
}

/* The live block in the loop that reads what b writes (compute_at put b in its
   consumer's loop), or NULL. b is computed inside the outer loops that have one. */
static const tir_block *loop_reader(const wf_tir *s, const tir_block *b, const tir_stmt *loop) {
    for (int j = 0; j < s->blocks.n; j++) {
        const tir_block *o = s->blocks.ptr[j];
        if (o == b || o->dead || o->body->kind != TS_STORE ||
            !expr_reads(o->body->value, b->body->buf))
            continue;
        for (const tir_stmt *p = o->stmt->parent; p; p = p->parent)
            if (p == loop)
                return o;
    }
    return NULL;
}

static bool reader_loop(const wf_tir *s, const tir_block *b, const tir_stmt *loop) {
    return loop_reader(s, b, loop) != NULL;
}

/* A reduction block shares its reduce loops with no reader: the core computes the whole
   reduction before its result is read (reverse_compute_at into a reduce loop). */
static bool check_reader_outside(wf_tir *s, const tir_block *b, tir_stmt *const *loops, int pos) {
    for (int j = 0; j < pos; j++)
        for (int k = 0; k < b->niters; k++)
            if (b->iters[k].reduce && tir_expr_uses(b->iters[k].value, loops[j]->loop_var))
                return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                                 "build: not supported yet: block \"%s\" reads %s inside the "
                                 "loop %s, over which block \"%s\" reduces (its reduction iter "
                                 "%s): the core finishes a reduction before its result is read "
                                 "(reverse_compute_at \"%s\" at a loop outside %s)",
                                 loop_reader(s, b, loops[j])->name, b->body->buf->name,
                                 loops[j]->loop_var->name, b->name, b->iters[k].var->name,
                                 loop_reader(s, b, loops[j])->name, loops[j]->loop_var->name);
    return true;
}

/* The spatial iters of b, in order (the indices a reduction block writes). */
static int spatial_iters(const tir_block *b, int *out) {
    int n = 0;
    for (int k = 0; k < b->niters; k++)
        if (!b->iters[k].reduce)
            out[n++] = k;
    return n;
}

static bool has_reduce_iter(const tir_block *b) {
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].reduce)
            return true;
    return false;
}

/* Is e a load of st's buffer at st's indices (the accumulator)? */
static bool is_accumulator(const tir_stmt *st, const tir_expr *e) {
    if (e->kind != TE_LOAD || e->buf != st->buf || e->nargs != st->nidx)
        return false;
    for (int d = 0; d < e->nargs; d++)
        if (!tir_expr_equal(e->args[d], st->idx[d]))
            return false;
    return true;
}

/* The reduction of a block with T.init(): its body is B[s] = B[s] op f (op + max min,
   the accumulator on either side), its init B[s] = the op's initial value. Returns
   the op, and f in *f; -1 (with the error set) otherwise. */
/* Is x the init block of a later update block (lowered with it)? */
static bool is_split_init(const wf_tir *s, const tir_block *x) {
    for (int i = 0; i < s->blocks.n; i++)
        if (!s->blocks.ptr[i]->dead && tir_split_init(s, s->blocks.ptr[i]) == x)
            return true;
    return false;
}

static int reduction_of(wf_tir *s, const tir_block *b, const tir_expr **f, double *init) {
    const tir_block *ib = tir_split_init(s, b);
    const tir_stmt *st = b->body, *in = ib ? ib->body : b->init;
    const tir_expr *v = st->value;
    int op = -1;
    if (v->kind == TE_BIN && v->op == TB_ADD)
        op = WF_ADD;
    else if (v->kind == TE_CALL && (v->op == TC_MAX || v->op == TC_MIN) && v->nargs == 2)
        op = v->op == TC_MAX ? WF_MAX : WF_MIN;
    if (op >= 0 && is_accumulator(st, v->args[0]))
        *f = v->args[1];
    else if (op >= 0 && is_accumulator(st, v->args[1]))
        *f = v->args[0];
    else
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: block \"%s\" has T.init() but its body is "
                         "not %s[...] = %s[...] + value (or T.max / T.min of the two), the "
                         "reductions the core has",
                         b->name, st->buf->name, st->buf->name),
               -1;
    tir_expr acc = {.kind = TE_LOAD, .buf = st->buf, .nargs = st->nidx, .args = st->idx};
    if (!in || in->kind != TS_STORE || in->buf != st->buf || (!ib && !is_accumulator(in, &acc)))
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: the T.init() of block \"%s\" must be one "
                         "store to %s at the indices its body writes",
                         b->name, st->buf->name),
               -1;
    const tir_expr *c = in->value;
    double x = c->kind == TE_FLOAT ? c->fval : c->kind == TE_INT ? (double)c->ival : NAN;
    if (c->kind == TE_CALL && c->op == TC_CAST && c->nargs == 1)
        x = c->args[0]->kind == TE_FLOAT ? c->args[0]->fval
            : c->args[0]->kind == TE_INT ? (double)c->args[0]->ival
                                         : NAN;
    double want = op == WF_ADD ? 0.0 : op == WF_MAX ? -INFINITY : INFINITY;
    /* a max / min may start anywhere (T.min_value): block_value folds the start into
       each value, max(init, max(f...)) = max(max(f, init)...), exactly */
    if (init)
        *init = x;
    if (x != want && !(op != WF_ADD && !isnan(x)))
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: the T.init() of block \"%s\" stores a value "
                         "other than the reduction's initial value (%s for %s); the core starts "
                         "a reduction at that value (add the constant in a separate block)",
                         b->name,
                         op == WF_ADD   ? "0"
                         : op == WF_MAX ? "-inf"
                                        : "inf",
                         op == WF_ADD   ? "+"
                         : op == WF_MAX ? "T.max"
                                        : "T.min"),
               -1;
    return op;
}

static bool inside(const tir_block *b, const tir_stmt *loop) {
    for (const tir_stmt *p = b->stmt->parent; p; p = p->parent)
        if (p == loop)
            return true;
    return false;
}

/* The dims of an access (n indices) whose index uses an iter of b bound with loop. */
static uint32_t dims_using(const tir_block *b, int n, tir_expr *const *idx, const tir_stmt *loop) {
    uint32_t m = 0;
    for (int d = 0; d < n && d < 32; d++)
        for (int k = 0; k < b->niters; k++)
            if (tir_expr_uses(idx[d], b->iters[k].var) &&
                tir_expr_uses(b->iters[k].value, loop->loop_var))
                m |= 1u << d;
    return m;
}

static const tir_expr *load_of(const tir_expr *e, const tir_buffer *x) {
    if (e->kind == TE_LOAD && e->buf == x)
        return e;
    for (int i = 0; i < e->nargs; i++) {
        const tir_expr *l = load_of(e->args[i], x);
        if (l)
            return l;
    }
    return NULL;
}

/* Does r read x under a loop bound to the thread axis of w's loop wl, of wl's extent,
   that indexes the same dims of x as wl does in w's store (the nests bound alike)? */
static bool bound_alike(const tir_block *w, const tir_stmt *wl, const tir_block *r,
                        const tir_buffer *x) {
    const tir_expr *ld = load_of(r->body->value, x);
    uint32_t wd = dims_using(w, w->body->nidx, w->body->idx, wl);
    for (const tir_stmt *p = r->stmt->parent; ld && p; p = p->parent)
        if (p->kind == TS_FOR && p->for_kind == TIR_THREAD && !strcmp(p->thread, wl->thread) &&
            p->extent == wl->extent && wd && dims_using(r, ld->nargs, ld->args, p) == wd)
            return true;
    return false;
}

/* Is loop a threadIdx loop that b reduces over (used by its reduce iters only)? The
   core reduces across those threads with wf_block_reduce, whose result every thread of
   the group holds (a grid reduction's, over blockIdx, only the last block). */
static bool reduces_across_threads(const tir_block *b, const tir_stmt *loop) {
    bool used = false;
    if (strncmp(loop->thread, "threadIdx", 9))
        return false;
    for (int k = 0; k < b->niters; k++)
        if (tir_expr_uses(b->iters[k].value, loop->loop_var)) {
            if (!b->iters[k].reduce)
                return false;
            used = true;
        }
    return used;
}

/* What b writes (not a parameter: a tensor of the core, kept in each thread's
   registers unless it is shared) under a loop bound to a thread axis is read by
   another block only inside that loop, or under a loop bound alike (the same axis and
   extent, indexing the same dims: the core then checks that each thread reads what it
   wrote). A loop on threadIdx that b reduces over is no such loop: after the block
   reduction each thread holds the whole result (softmax's row max, reduced across the
   threads and read by the next stage in every thread). */
static bool check_thread_reads(wf_tir *s, const block_list *l, const tir_block *b) {
    const tir_buffer *x = b->body->kind == TS_STORE ? b->body->buf : NULL;
    if (is_split_init(s, b)) /* lowered as its update block's T.init() */
        return true;
    if (!x || x->is_param || tir_rf_role_of(s, b) == TIR_RF_PARTIAL) /* a pair: one reduction */
        return true;
    for (const tir_stmt *p = b->stmt->parent; p; p = p->parent) {
        if (p->kind != TS_FOR || p->for_kind != TIR_THREAD ||
            (x->scope == TIR_SHARED && !strncmp(p->thread, "threadIdx", 9)) ||
            reduces_across_threads(b, p))
            continue;
        for (int i = 0; i < l->n; i++) {
            const tir_block *r = l->list[i];
            if (r == b || r->body->kind != TS_STORE || !expr_reads(r->body->value, x) ||
                inside(r, p) || bound_alike(b, p, r, x))
                continue;
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: block \"%s\" writes %s inside the loop "
                             "%s bound to %s, and block \"%s\" reads it outside that loop, on "
                             "no loop bound to %s: each %s would read what others wrote, but the "
                             "core keeps the intermediate %s in each %s (compute_at \"%s\" into "
                             "a loop of \"%s\", or bind the loops of both alike)",
                             b->name, x->name, p->loop_var->name, p->thread, r->name, p->thread,
                             strncmp(p->thread, "threadIdx", 9) ? "block" : "thread", x->name,
                             x->scope == TIR_SHARED ? "block's shared memory"
                                                    : "thread's registers",
                             b->name, r->name);
        }
    }
    return true;
}

static bool loop_used(const tir_block *b, const tir_stmt *loop) {
    for (int k = 0; k < b->niters; k++)
        if (tir_expr_uses(b->iters[k].value, loop->loop_var))
            return true;
    return false;
}

/* A thread axis binds one loop around a block that its iters use: two such loops on
   threadIdx.x would both take its index. (A loop the block does not use, such as a
   consumer's thread loop around a cooperative fetch, may share the axis.) */
static bool check_bindings(wf_tir *s, const tir_block *b) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    for (int i = 0; i < nl; i++)
        for (int j = 0; j < i; j++)
            if (loops[i]->for_kind == TIR_THREAD && loops[j]->for_kind == TIR_THREAD &&
                !strcmp(loops[i]->thread, loops[j]->thread) && loop_used(b, loops[i]) &&
                loop_used(b, loops[j]))
                return err_failb(&s->err, WF_ERR_SCHEDULE,
                                 "build: the loops %s and %s around block \"%s\" are both bound "
                                 "to %s, so both would take its index (bind each thread axis to "
                                 "one loop of a nest, or fuse the two loops and bind the fused "
                                 "loop)",
                                 loops[j]->loop_var->name, loops[i]->loop_var->name, b->name,
                                 loops[i]->thread);
    return true;
}

/* The annotation keys the build knows: hints for TVM's code generator and its software
   pipeliner, and storage_align's padding, none of which changes a result (the core unrolls
   and pipelines by its own schedule, and does not pad). Another key may ask for anything:
   it is refused rather than ignored. */
static bool known_annotation(const char *key) {
    static const char *const known[] = {"pragma_auto_unroll_max_step",    "pragma_unroll_explicit",
                                        "software_pipeline_stage",        "software_pipeline_order",
                                        "software_pipeline_async_stages", "buffer_dim_align"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(key, known[i]))
            return true;
    return false;
}

static bool check_annotations(wf_tir *s, const tir_block *b) {
    for (int i = 0; i < b->anns.n; i++)
        if (!known_annotation(b->anns.ptr[i].key))
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: the annotation \"%s\" of block \"%s\" "
                             "(the build knows pragma_auto_unroll_max_step, "
                             "pragma_unroll_explicit, software_pipeline_* and buffer_dim_align)",
                             b->anns.ptr[i].key, b->name);
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    for (int j = 0; j < nl; j++)
        for (int i = 0; i < loops[j]->anns.n; i++)
            if (!known_annotation(loops[j]->anns.ptr[i].key))
                return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                                 "build: not supported yet: the annotation \"%s\" of the loop %s "
                                 "around block \"%s\" (the build knows "
                                 "pragma_auto_unroll_max_step, pragma_unroll_explicit, "
                                 "software_pipeline_* and buffer_dim_align)",
                                 loops[j]->anns.ptr[i].key, loops[j]->loop_var->name, b->name);
    return true;
}

/* Shifted reads (A[vi + 1], a stencil): an index iter + c whose values leave the
   buffer is an error; one inside it, a request the core cannot express yet (it reads a
   buffer at its iters, each dim over the whole buffer). */
static bool check_shifts(wf_tir *s, const tir_block *b, const tir_expr *e) {
    for (int i = 0; i < e->nargs; i++)
        if (!check_shifts(s, b, e->args[i]))
            return false;
    for (int d = 0; e->kind == TE_LOAD && d < e->nargs; d++) {
        const tir_expr *x = e->args[d];
        if (x->kind != TE_BIN || (x->op != TB_ADD && x->op != TB_SUB) ||
            x->args[0]->kind != TE_VAR || x->args[1]->kind != TE_INT)
            continue;
        const tir_iter *it = NULL;
        for (int k = 0; k < b->niters; k++)
            it = b->iters[k].var == x->args[0]->var ? &b->iters[k] : it;
        if (!it)
            continue;
        int64_t c = x->op == TB_ADD ? x->args[1]->ival : -x->args[1]->ival;
        sbuf ts = {0};
        tir_print_expr(&ts, e);
        if (c < 0 || it->extent - 1 + c >= e->buf->shape[d])
            err_fail(&s->err, WF_ERR_ARG,
                     "build: block \"%s\" reads %s out of bounds: index %d runs from %lld to "
                     "%lld, but dim %d of %s has %lld elements",
                     b->name, sbuf_str(&ts), d, (long long)c, (long long)(it->extent - 1 + c), d,
                     e->buf->name, (long long)e->buf->shape[d]);
        else
            err_fail(&s->err, WF_ERR_UNSUPPORTED,
                     "build: not supported yet: block \"%s\" reads %s, its iter %s shifted by "
                     "%lld (a stencil): the core reads a buffer at the block's iters, each dim "
                     "over the whole buffer",
                     b->name, sbuf_str(&ts), it->var->name, (long long)c);
        sbuf_free(&ts);
        return false;
    }
    return true;
}

/* A block's store indices are its iters, each once, in some order, each over its whole
   dim (C[vj, vi] = ...: a layout change that reverse_compute_inline leaves): perm[d] is
   the iter at dim d. False if they are not. Only a block that does not reduce (no
   T.init(), no reduce iter) is built so. */
static bool store_perm(const tir_block *b, int *perm) {
    const tir_stmt *st = b->body;
    uint32_t seen = 0;
    if (st->kind != TS_STORE || st->nidx != b->niters || b->niters > WF_MAX_RANK)
        return false;
    for (int d = 0; d < st->nidx; d++) {
        perm[d] = -1;
        for (int k = 0; k < b->niters && st->idx[d]->kind == TE_VAR; k++)
            if (st->idx[d]->var == b->iters[k].var && !b->iters[k].reduce)
                perm[d] = k;
        if (perm[d] < 0 || (seen >> perm[d] & 1) || b->iters[perm[d]].extent != st->buf->shape[d])
            return false;
        seen |= 1u << perm[d];
    }
    return true;
}

static bool check_block(wf_tir *s, const tir_block *b) {
    if (!check_annotations(s, b) || !check_bindings(s, b))
        return false;
    if (is_split_init(s, b))
        return true;
    if (b->body->kind == TS_STORE && !check_shifts(s, b, b->body->value))
        return false;
    tir_rf_role role = tir_rf_role_of(s, b); /* rfactor's pair: build_rfactor.c checks it */
    if (role != TIR_RF_NONE)
        return role != TIR_RF_REFUSED;
    if (b->niters > WF_MAX_RANK) /* one dim of the block's tensor per iter */
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: more than %d iters in block \"%s\"",
                         WF_MAX_RANK, b->name);
    const tir_stmt *st = b->body;
    int sp[TIR_MAX_LOOPS], ns = b->niters;
    for (int k = 0; k < b->niters; k++)
        sp[k] = k;
    bool red = b->init || has_reduce_iter(b);
    if (red) {
        const tir_expr *f;
        if (!b->init && !tir_split_init(s, b))
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: block \"%s\" has reduce iters but no "
                             "T.init(), and no block before it stores a constant to all of %s "
                             "(as decompose_reduction's init block does)",
                             b->name,
                             b->body->kind == TS_STORE ? b->body->buf->name : "its buffer");
        if (st->kind != TS_STORE || reduction_of(s, b, &f, NULL) < 0)
            return err_set(&s->err) ? false
                                    : err_failb(&s->err, WF_ERR_UNSUPPORTED,
                                                "build: not supported yet: block \"%s\" is not "
                                                "one store",
                                                b->name);
        ns = spatial_iters(b, sp);
    }
    if (st->kind != TS_STORE || st->nidx != ns)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: block \"%s\" is not one store indexed by its "
                         "%siters",
                         b->name, ns != b->niters ? "spatial " : "");
    int perm[WF_MAX_RANK];
    if (!red && store_perm(b, perm)) /* a spatial block may store permuted */
        return true;
    for (int d = 0; d < st->nidx; d++)
        if (st->idx[d]->kind != TE_VAR || st->idx[d]->var != b->iters[sp[d]].var ||
            b->iters[sp[d]].extent != st->buf->shape[d])
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: block \"%s\" must write %s[%s...] at its "
                             "%siters, each once, each over its whole dim%s",
                             b->name, st->buf->name, b->iters[sp[0]].var->name,
                             ns != b->niters ? "spatial " : "", red ? ", in order" : "");
    return true;
}

/* ---- values ---- */

/* Records an op's tensor so that it gets the block's schedule and is inlined. */
static wf_tv *made(bctx *c, wf_tv *tv) {
    if (!tv)
        return NULL;
    if (c->nmade == TIR_MAX_OPS)
        return err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: more than %d operations in one block",
                        TIR_MAX_OPS);
    c->iters[c->nmade] = UINT32_MAX;
    c->made[c->nmade++] = tv;
    return tv;
}

/* The tensor of a load, in the block's iter order: its indices are distinct iters of
   the block (a permutation of a subset); the iters it does not use become broadcast
   dims, which another operand must give their extent (checked by the caller). */
static wf_tv *lower_load(bctx *c, const tir_block *b, const tir_expr *e) {
    wf_tv *tv = tv_of(c, e->buf);
    if (!tv)
        return err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                        "build: block \"%s\" reads %s before any block writes it", b->name,
                        e->buf->name);
    int perm[WF_MAX_RANK], nid = 0;
    bool ok = e->nargs <= b->niters && b->niters <= WF_MAX_RANK, used[WF_MAX_RANK] = {false};
    for (int d = 0; d < e->nargs && ok; d++) {
        perm[d] = -1;
        for (int k = 0; k < b->niters; k++)
            if (e->args[d]->kind == TE_VAR && e->args[d]->var == b->iters[k].var && !used[k])
                perm[d] = k;
        ok = perm[d] >= 0;
        if (ok)
            used[perm[d]] = true;
    }
    if (!ok) {
        sbuf t = {0};
        tir_print_expr(&t, e);
        err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" reads %s, whose indices are not "
                 "distinct iters of the block (an index combining iters, as rfactor writes "
                 "them, needs a view of %s split along that axis in the core)",
                 b->name, sbuf_str(&t), e->buf->name);
        sbuf_free(&t);
        return NULL;
    }
    /* the core's tensor of the buffer is the whole buffer: each index's iter runs over
       its dim exactly */
    for (int d = 0; d < e->nargs; d++) {
        const tir_iter *it = &b->iters[perm[d]];
        if (it->extent == e->buf->shape[d])
            continue;
        sbuf t = {0};
        tir_print_expr(&t, e);
        if (it->extent > e->buf->shape[d])
            err_fail(&c->s->err, WF_ERR_ARG,
                     "build: block \"%s\" reads %s out of bounds: its iter %s runs over %lld "
                     "values, but dim %d of %s has %lld",
                     b->name, sbuf_str(&t), it->var->name, (long long)it->extent, d, e->buf->name,
                     (long long)e->buf->shape[d]);
        else
            err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                     "build: not supported yet: block \"%s\" reads %s over %lld of the %lld "
                     "elements of dim %d of %s (its iter %s): the core reads a buffer whole, "
                     "each dim over an iter of its extent",
                     b->name, sbuf_str(&t), (long long)it->extent, (long long)e->buf->shape[d], d,
                     e->buf->name, it->var->name);
        sbuf_free(&t);
        return NULL;
    }
    /* rank of each index among the used iters: the permutation into iter order */
    int new2old[WF_MAX_RANK];
    for (int d = 0; d < e->nargs; d++) {
        int r = 0;
        for (int d2 = 0; d2 < e->nargs; d2++)
            r += perm[d2] < perm[d];
        new2old[r] = d;
        nid += r == d;
    }
    if (nid != e->nargs && (tv = made(c, wf_permute(tv, new2old)))) {
        c->iters[c->nmade - 1] = 0; /* the used iters, in iter order */
        for (int k = 0; k < b->niters; k++)
            c->iters[c->nmade - 1] |= (uint32_t)used[k] << k;
    }
    if (!tv || e->nargs == b->niters)
        return tv;
    bool bc[WF_MAX_RANK];
    int64_t ext[WF_MAX_RANK];
    for (int k = 0; k < b->niters; k++)
        bc[k] = !used[k], ext[k] = b->iters[k].extent;
    return made(c, ir_expand(tv, b->niters, bc, ext));
}

/* After the value is built, each dim has its iter's extent: every load runs over its
   whole buffer at iters of its dims' extents (lower_load) and is expanded over the iters
   it does not use; constants are scalars. */
static bool check_dims(bctx *c, const tir_block *b, wf_tv *tv) {
    int n;
    wf_iterdomain *const *dom = wf_tv_logical_domain(tv, &n);
    for (int k = 0; k < n && k < b->niters; k++) {
        bool same = wf_iterdomain_extent(dom[k]) == b->iters[k].extent;
        err_assert(&c->s->err, same);
        if (!same)
            return false;
    }
    return true;
}

/* ---- values: loads, constants and elementwise ops (scalar constants: ir/scalar.c) ---- */

static wf_tv *lower_value(bctx *c, const tir_block *b, const tir_expr *e);

static bool is_const(const tir_expr *e) {
    return e->kind == TE_INT || e->kind == TE_FLOAT;
}

static int category(wf_dtype t) {
    return t == WF_BOOL ? 0 : (t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64) ? 2 : 1;
}

/* A constant as a scalar operand (never recorded by made: it is no tensor). Beside
   a tensor of its category or a higher one it takes the tensor's type, as TVM
   converts a literal to its partner's dtype (2 beside float16 data is a float16
   2); otherwise its own (T.float32(2) beside int32 data promotes the op to f32). */
static wf_tv *lower_const(bctx *c, const tir_expr *e, const wf_tv *other) {
    wf_dtype t = e->kind == TE_FLOAT ? e->dtype : e->dtype == WF_I32 ? WF_I64 : e->dtype;
    if (other && !other->scalar && category(other->dtype) >= category(t))
        t = other->dtype;
    if (e->kind == TE_INT && category(t) < 2)
        return wf_full_int(c->f, t, e->ival);
    return wf_full(c->f, t, e->kind == TE_FLOAT ? e->fval : (double)e->ival);
}

/* Both operands of a binary op or a select: a constant is lowered after its
   partner, whose type it takes. */
static bool lower_pair(bctx *c, const tir_block *b, const tir_expr *ea, const tir_expr *eb,
                       wf_tv **x, wf_tv **y) {
    if (is_const(ea) && !is_const(eb)) {
        *y = lower_value(c, b, eb);
        *x = *y ? lower_const(c, ea, *y) : NULL;
    } else {
        *x = is_const(ea) ? lower_const(c, ea, NULL) : lower_value(c, b, ea);
        *y = !*x ? NULL : is_const(eb) ? lower_const(c, eb, *x) : lower_value(c, b, eb);
    }
    return *x && *y;
}

/* and / or / not on bool values, as selects: a && b = a ? b : false. */
static wf_tv *lower_logic(bctx *c, const tir_block *b, const tir_expr *e) {
    wf_tv *x = lower_value(c, b, e->args[0]);
    wf_tv *y = x && e->kind != TE_NOT ? lower_value(c, b, e->args[1]) : x;
    if (!x || !y)
        return NULL;
    if (x->dtype != WF_BOOL || y->dtype != WF_BOOL) {
        sbuf t = {0};
        tir_print_expr(&t, e);
        err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: %s in block \"%s\" combines non-bool values (and, "
                 "or and not take comparisons)",
                 sbuf_str(&t), b->name);
        sbuf_free(&t);
        return NULL;
    }
    wf_tv *f = wf_full_int(c->f, WF_BOOL, 0), *t = wf_full_int(c->f, WF_BOOL, 1);
    if (e->kind == TE_NOT)
        return made(c, wf_binary(WF_EQ, x, f));
    return made(c, e->op == TB_AND ? wf_where(x, y, f) : wf_where(x, t, y));
}

static wf_tv *lower_bin(bctx *c, const tir_block *b, const tir_expr *e) {
    static const wf_binary_op bops[] = {
        [TB_ADD] = WF_ADD, [TB_SUB] = WF_SUB, [TB_MUL] = WF_MUL, [TB_DIV] = WF_DIV, [TB_LT] = WF_LT,
        [TB_LE] = WF_LE,   [TB_GT] = WF_GT,   [TB_GE] = WF_GE,   [TB_EQ] = WF_EQ,   [TB_NE] = WF_NE,
    };
    if (e->op == TB_AND || e->op == TB_OR)
        return lower_logic(c, b, e);
    wf_tv *x, *y;
    return lower_pair(c, b, e->args[0], e->args[1], &x, &y) ? made(c, wf_binary(bops[e->op], x, y))
                                                            : NULL;
}

static wf_tv *lower_call(bctx *c, const tir_block *b, const tir_expr *e) {
    wf_tv *x, *y;
    switch (e->op) {
    case TC_CAST:
        x = lower_value(c, b, e->args[0]);
        return x ? made(c, wf_cast(x, e->dtype)) : NULL;
    case TC_EXP:
    case TC_SQRT:
    case TC_SIGMOID:
    case TC_TANH: {
        static const wf_unary_op un[] = {
            [TC_EXP] = WF_EXP, [TC_SQRT] = WF_SQRT, [TC_SIGMOID] = WF_SIGMOID, [TC_TANH] = WF_TANH};
        x = lower_value(c, b, e->args[0]);
        return x ? made(c, wf_unary(un[e->op], x)) : NULL;
    }
    case TC_IF_THEN_ELSE: {
        wf_tv *cond = lower_value(c, b, e->args[0]);
        if (!cond || !lower_pair(c, b, e->args[1], e->args[2], &x, &y))
            return NULL;
        return made(c, wf_where(cond, x, y));
    }
    default:
        if (!lower_pair(c, b, e->args[0], e->args[1], &x, &y))
            return NULL;
        return made(c, wf_binary(e->op == TC_MAX ? WF_MAX : WF_MIN, x, y));
    }
}

static wf_tv *lower_value(bctx *c, const tir_block *b, const tir_expr *e) {
    switch (e->kind) {
    case TE_LOAD:
        return lower_load(c, b, e);
    case TE_INT:
    case TE_FLOAT:
        return lower_const(c, e, NULL);
    case TE_NOT:
        return lower_logic(c, b, e);
    case TE_BIN:
        if (e->op != TB_FLOORDIV && e->op != TB_MOD)
            return lower_bin(c, b, e);
        break;
    case TE_CALL:
        return lower_call(c, b, e);
    default:
        break;
    }
    if (err_set(&c->s->err))
        return NULL;
    sbuf t = {0};
    tir_print_expr(&t, e);
    err_fail(
        &c->s->err, WF_ERR_UNSUPPORTED,
        "build: not supported yet: %s in block \"%s\" (the core computes a value from "
        "loads, constants, + - * /, comparisons, and / or / not, T.max, T.min, T.exp, "
        "T.sqrt, T.sigmoid, T.tanh, T.if_then_else and casts; not from //, %% or an iter's value)",
        sbuf_str(&t), b->name);
    sbuf_free(&t);
    return NULL;
}

/* ---- loops -> the loop domain (build_loops.c) ---- */

/* A loop no dim of tv uses may be a loop-domain broadcast IterDomain for an op inside
   the block (inlined into the block's last op, which uses every loop of the block) and
   at a loop the block shares with another (compute_at): the tensor is computed once per
   iteration there. */
static bool schedule_tv(bctx *c, const tir_block *b, wf_tv *tv, uint32_t mask, bool inner) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    bool may[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    for (int j = 0; j < nl; j++)
        may[j] = inner || shared_loop(c->s, loops[j]);
    return tir_build_loop_domain(c->s, b, tv, mask, may);
}

/* ---- the whole program ---- */

/* The core vectorizes copies: a computing block's vectorized loop becomes the vector
   store of its value (computed in registers, compute_pos), a cache stage's its vector
   load and store; a reduction's, one with loops inside it, or a width no vector access
   has (a copy's too), is refused in TIR terms rather than with the core's names. */
static bool check_vectorize(wf_tir *s, const tir_block *b) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    for (int j = 0; j < nl; j++)
        if (loops[j]->for_kind == TIR_VECTORIZED && b->init)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: the vectorized loop %s over block \"%s\", "
                             "which reduces: the core vectorizes the copy that stores a "
                             "computed value, not a reduction (unroll %s)",
                             loops[j]->loop_var->name, b->name, loops[j]->loop_var->name);
    for (int j = 0; j + 1 < nl; j++)
        if (loops[j]->for_kind == TIR_VECTORIZED)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: the vectorized loop %s over block \"%s\" "
                             "has the loop %s inside it: the core vectorizes the innermost loop "
                             "of a block (reorder %s innermost, or vectorize %s instead)",
                             loops[j]->loop_var->name, b->name, loops[nl - 1]->loop_var->name,
                             loops[j]->loop_var->name, loops[nl - 1]->loop_var->name);
    for (int j = 0; j < nl; j++) {
        int64_t bytes = loops[j]->extent * (int64_t)wf_dtype_size(b->body->buf->dtype);
        if (loops[j]->for_kind != TIR_VECTORIZED || (bytes <= 16 && (bytes & (bytes - 1)) == 0))
            continue;
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: the vectorized loop %s over block \"%s\" "
                         "stores %lld %s values (%lld bytes) at once; a vector access is 1, 2, 4, "
                         "8 or 16 bytes (split %s and vectorize an inner loop of that size)",
                         loops[j]->loop_var->name, b->name, (long long)loops[j]->extent,
                         tir_dtype_name(b->body->buf->dtype), (long long)bytes,
                         loops[j]->loop_var->name);
    }
    return true;
}

/* A vectorized computing block (nvFuser's scheme): the value is computed in
   registers and stored by a copy, the only op whose axis is vectorized. */
static bool vectorized(const tir_block *b) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    for (int j = 0; j < nl; j++)
        if (loops[j]->for_kind == TIR_VECTORIZED)
            return true;
    return false;
}

/* Where a computing op of the block is inlined: at its innermost axis, or before its
   vectorized axis, which runs unrolled in registers (the copy that stores the value
   is the vector access). */
static int compute_pos(wf_tv *tv) {
    for (int j = 0; j < tv->loop.n; j++)
        if (tv->loop.ptr[j]->ptype == WF_VECTORIZE) {
            wf_tv_parallelize(tv, j, WF_UNROLL);
            return j;
        }
    return wf_tv_ndim(tv);
}

/* The value a block stores: its expression, or for a reduction block (T.init) the
   reduction of the reduced expression over its reduce iters. */
static wf_tv *block_value(bctx *c, tir_block *b) {
    const tir_stmt *st = b->body;
    const tir_expr *f = st->value;
    int op = -1;
    double init = 0;
    if ((b->init || tir_split_init(c->s, b)) && (op = reduction_of(c->s, b, &f, &init)) < 0)
        return NULL;
    wf_tv *tv = lower_value(c, b, f);
    if (tv && !tv->scalar && (op == WF_MAX || op == WF_MIN) &&
        init != (op == WF_MAX ? -INFINITY : INFINITY))
        tv = made(c, wf_binary((wf_binary_op)op, tv, wf_full(c->f, tv->dtype, init)));
    if (tv && tv->scalar)
        return err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: block \"%s\" stores a constant (its value "
                        "reads no buffer); the core's ops need a tensor operand",
                        b->name);
    if (tv && (f->kind == TE_LOAD || vectorized(b)) && op < 0)
        tv = made(c, wf_set(tv));
    if (!tv || !check_dims(c, b, tv))
        return NULL;
    if (op >= 0 &&
        (f->dtype != st->buf->dtype || (op == WF_ADD && f->dtype != WF_F32 && f->dtype != WF_F64)))
        return err_fail(&c->s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: the reduction of block \"%s\" must reduce "
                        "%s values into %s (sums of float32 / float64 only: the core sums "
                        "integers into int64 and 16-bit floats in float32)",
                        b->name, tir_dtype_name(st->buf->dtype), st->buf->name);
    if (op >= 0) {
        int axes[WF_MAX_RANK], na = 0;
        for (int k = 0; k < b->niters; k++)
            if (b->iters[k].reduce)
                axes[na++] = k;
        /* no reduce iter (rfactor of a block's only reduce loop): each cell is its
           T.init() value combined with one value */
        double ident = op == WF_ADD ? 0.0 : op == WF_MAX ? -INFINITY : INFINITY;
        tv = made(c, na ? wf_reduce((wf_binary_op)op, tv, na, axes)
                        : wf_binary((wf_binary_op)op, wf_full(c->f, tv->dtype, ident), tv));
    }
    if (tv && tv->dtype != st->buf->dtype)
        tv = made(c, wf_cast(tv, st->buf->dtype));
    return tv;
}

/* A block storing at its iters permuted (store_perm): its value, in iter order, becomes
   the buffer's tensor through wf_permute, whose loop axes are put back in iter order
   for the block's loops to take. */
static wf_tv *permuted(bctx *c, const tir_block *b, wf_tv *tv) {
    int perm[WF_MAX_RANK], old2new[WF_MAX_RANK], n = b->niters;
    bool same = true;
    if (!tv || b->init || has_reduce_iter(b) || !store_perm(b, perm))
        return tv;
    for (int d = 0; d < n; d++)
        same &= perm[d] == d, old2new[d] = perm[d];
    if (same || !(tv = made(c, wf_permute(tv, perm))))
        return tv;
    wf_tv_reorder_all(tv, old2new);
    return wf_fusion_status(c->f) ? NULL : tv;
}

static const tir_build_ops rf_ops;

static bool lower_block(bctx *c, tir_block *b) {
    const tir_stmt *st = b->body;
    if (is_split_init(c->s, b)) /* lowered as its update block's T.init() */
        return true;
    tir_rf_role role = tir_rf_role_of(c->s, b); /* rfactor's pair: lowered at its write-back */
    if (role == TIR_RF_REFUSED || !check_vectorize(c->s, b))
        return false;
    if (role != TIR_RF_NONE)
        return role == TIR_RF_PARTIAL || tir_rf_lower(c, c->s, b, &rf_ops);
    c->nmade = 0;
    wf_tv *tv = permuted(c, b, block_value(c, b));
    if (!tv)
        return false;
    if (st->buf->scope != TIR_GLOBAL)
        wf_tv_set_memory(tv, st->buf->scope == TIR_SHARED ? WF_MEM_SHARED : WF_MEM_LOCAL);
    /* compute_at: the block is computed inside the outer loops it shares with a reader */
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS), pos = 0;
    while (pos < nl && reader_loop(c->s, b, loops[pos]))
        pos++;
    if (!check_reader_outside(c->s, b, loops, pos))
        return false;
    /* inside a vectorized loop (its innermost, check_vectorize) the block is computed for
       all lanes at once, as the vector loop runs its body: just before that loop */
    for (int j = 0; j < pos; j++)
        if (loops[j]->for_kind == TIR_VECTORIZED)
            pos = j;
    /* A one-op block (a cache stage) at its reader's loops: the core's wf_compute_at
       gives it those loops once the reader has its own (place_blocks). A reduction of a
       bare load is one op too, but no stage: it takes its own loops, as a reduction of
       several ops does (its producer may already be inlined into them). */
    bool reduces = b->init || tir_split_init(c->s, b);
    if (pos > 0 && c->nmade == 1 && !reduces && c->nplaced < TIR_MAX_BUFFERS) {
        c->placed[c->nplaced].b = b;
        c->placed[c->nplaced].tv = tv;
        c->placed[c->nplaced].reader = loop_reader(c->s, b, loops[pos - 1]);
        c->placed[c->nplaced++].pos = pos;
        return set_tv(c, st->buf, tv);
    }
    /* every op of the block takes the block's loops; all but the last are inlined */
    for (int i = 0; i < c->nmade; i++)
        if (!schedule_tv(c, b, c->made[i], c->iters[i], i + 1 < c->nmade))
            return false;
    for (int i = 0; i + 1 < c->nmade; i++)
        wf_tv_inline_at(c->made[i], compute_pos(c->made[i]));
    if (pos > 0)
        wf_tv_inline_at(tv, pos);
    return set_tv(c, st->buf, tv);
}

/* The blocks computed at their readers' loops, readers first: wf_compute_at(tv,
   reader, pos) replays the reader's loops onto tv (promoting those it has no axis
   for), then tv's loops inside them follow the block's. */
static bool place_blocks(bctx *c) {
    for (int i = c->nplaced - 1; i >= 0; i--) {
        tir_block *b = c->placed[i].b;
        const tir_block *rb = c->placed[i].reader;
        wf_tv *r = tv_of(c, rb->body->buf);
        if (!r) /* rfactor's partial block, built inside its write-back's loops */
            return err_failb(&c->s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: block \"%s\" is computed at a loop of "
                             "block \"%s\", whose values the core computes in the loops of the "
                             "block that reads them, which are not the same loops in the same "
                             "order (compute \"%s\" outside the loops of \"%s\")",
                             b->name, rb->name, b->name, rb->name);
        wf_compute_at(c->placed[i].tv, r, c->placed[i].pos);
        if (wf_fusion_status(c->f))
            return err_failb(&c->s->err, wf_fusion_status(c->f), "build: %s",
                             wf_fusion_error(c->f));
        tir_stmt *loops[TIR_MAX_LOOPS];
        bool may[TIR_MAX_LOOPS];
        int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
        for (int j = 0; j < nl; j++)
            may[j] = shared_loop(c->s, loops[j]);
        if (!tir_build_loop_domain_at(c->s, b, c->placed[i].tv, UINT32_MAX, may, c->placed[i].pos))
            return false;
    }
    return true;
}

/* build.c's steps as build_rfactor.c uses them (build_int.h). */
static wf_tv *rf_value(bctx *c, tir_block *b, wf_tv *const **made, const uint32_t **iters,
                       int *nmade) {
    c->nmade = 0;
    wf_tv *tv = block_value(c, b);
    *made = c->made, *iters = c->iters, *nmade = c->nmade;
    return tv;
}

/* tv has one loop axis per iter of b in mask (the rfactor hook's contract). */
static bool rf_schedule(bctx *c, const tir_block *b, wf_tv *tv, uint32_t mask, bool inner) {
    return schedule_tv(c, b, tv, mask, inner);
}

static const tir_build_ops rf_ops = {rf_value, rf_schedule, set_tv, tir_loop_ptype};

static bool is_written(wf_tir *s, const block_list *l, const tir_buffer *buf) {
    (void)s;
    for (int i = 0; i < l->n; i++)
        if (l->list[i]->body->kind == TS_STORE && l->list[i]->body->buf == buf)
            return true;
    return false;
}

static bool make_inputs(bctx *c, const block_list *l) {
    wf_tir *s = c->s;
    for (int i = 0; i < s->params.n; i++) {
        tir_buffer *p = s->params.ptr[i];
        if (is_written(s, l, p))
            continue;
        wf_tv *tv = wf_input(c->f, p->dtype, p->ndim, p->shape);
        if (!tv || !set_tv(c, p, tv))
            return false;
    }
    return true;
}

wf_kernel *tir_build(wf_tir *s, const wf_compile_options *opt) {
    block_list l = {.n = 0};
    tir_each_block(s->body, gather, &l);
    if (l.more)
        return err_fail(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: more than %d blocks", TIR_MAX_BUFFERS);
    for (int i = 0; i < l.n; i++)
        if (!check_block(s, l.list[i]) || !check_thread_reads(s, &l, l.list[i]))
            return NULL;
    bctx *c = calloc(1, sizeof *c);
    if (!c)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    c->s = s;
    c->f = wf_fusion_new();
    bool ok = c->f && make_inputs(c, &l);
    for (int i = 0; ok && i < l.n; i++)
        ok = lower_block(c, l.list[i]);
    ok = ok && place_blocks(c);
    for (int i = 0; ok && i < s->params.n; i++)
        if (is_written(s, &l, s->params.ptr[i]))
            wf_output(c->f, tv_of(c, s->params.ptr[i]));
    wf_kernel *k = ok && !wf_fusion_status(c->f) ? wf_compile(c->f, opt) : NULL;
    if (!k && !err_set(&s->err))
        err_fail(&s->err, c->f ? wf_fusion_status(c->f) : WF_ERR_MEMORY, "build: %s",
                 c->f ? wf_fusion_error(c->f) : "out of memory");
    wf_fusion_free(s->fusion);
    s->fusion = c->f;
    /* what wf_tir_block_tensor answers: each block's tensor as the build left it */
    s->nbuilt = 0;
    for (int i = 0; c->f && i < l.n; i++)
        if (l.list[i]->body->kind == TS_STORE && tv_of(c, l.list[i]->body->buf)) {
            s->built_block[s->nbuilt] = l.list[i];
            s->built_tv[s->nbuilt++] = tv_of(c, l.list[i]->body->buf);
        }
    free(c);
    return k;
}
