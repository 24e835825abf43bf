/*
 * predicate.c -- guard statements that must not run for every thread or
 * loop iteration.
 *
 * Requires index (bounds predicates) and pdims. Provides IF nodes around
 * statements. A statement runs only where:
 *  - its indices are in bounds (non-divisible splits, from index.c), except
 *    a TMA copy's: its box may lie partly or wholly past the tensor's end
 *    (TMA zero-fills a load's elements out of bounds and clips a store), and
 *    a load's mbarrier counts an arrival from every issuing thread, so the
 *    issue must not depend on the bounds (copy_tma.c);
 *  - each thread/block loop around it covers the thread: threadIdx.x <
 *    extent when the launch dimension is larger than that loop;
 *  - for writes to shared or global memory, the thread is the one
 *    responsible: along a launched thread dimension (shared memory) or
 *    thread/block dimension (global memory) that the written index does not
 *    depend on, only index 0 writes (otherwise every thread on it would
 *    write the same cell).
 */
#include "lower/lower_int.h"

static bool loop_covers_dim(const lower_ctx *c, const kir_node *n) {
    int d = lower_pdim_index(n->u.loop.ptype);
    if (c->pdim_exact[d])
        return true;
    const wf_val *dim = c->pdim[d];
    return val_is_const(dim) && val_is_const(n->u.loop.extent) && dim->c == n->u.loop.extent->c;
}

static const wf_val *and_into(wf_arena *a, const wf_val *p, const wf_val *q) {
    return p && q ? val_and(a, p, q) : p ? p : q;
}

/* threadIdx.x ... blockIdx.z with no known range: inside a loop the index
   symbol's range is the loop's extent, which is what this predicate ensures. */
static const wf_val *launched_index(lower_ctx *c, int d) {
    const lower_pdim *p = &lower_pdim_table[d];
    return val_sym(c->a, p->grid ? SYM_BID : SYM_TID, p->axis, 0, p->cuda, 0, lower_pdim_max(d),
                   NULL);
}

/* The bounds predicate the statement is guarded with (none for a TMA copy:
   see the comment atop; none for a statement that fills, whose bounds pick
   between its value and 0: lower/mma.c). */
static const wf_val *bounds_of(const kir_stmt *s) {
    return s->copy == WF_LDST_TMA || s->fill ? NULL : s->pred;
}

/* A write to memory that threads (shared) or threads and blocks (global)
   share, at an index that does not depend on a launched dimension, would be
   done by every thread along it: only index 0 of that dimension writes. */
static const wf_val *single_writer(lower_ctx *c, const kir_stmt *s) {
    wf_memtype m = s->op->out->mem;
    const wf_val *p = NULL;
    if (m != WF_MEM_SHARED && m != WF_MEM_GLOBAL)
        return NULL;
    for (int d = 0; d < (m == WF_MEM_SHARED ? 3 : NPDIMS); d++) {
        sym_kind k = d < 3 ? SYM_TID : SYM_BID;
        /* If the bounds predicate depends on the dimension, it already picks the
           threads that write (a swizzle can make only one of them valid) --
           except in a reduction's init, whose predicate bounds the reduction
           axes (threadIdx.x < 7 for a split reduction on TIDx): every one of
           those threads would write the same cell. */
        const wf_val *bounds = bounds_of(s);
        bool pred_picks =
            bounds && s->red != KRED_INIT && s->red != KRED_FINAL && val_uses_sym(bounds, k, d % 3);
        if (val_is_const_eq(c->pdim[d], 1) || val_uses_sym(s->out_index, k, d % 3) || pred_picks)
            continue;
        p = and_into(c->a, p, val_eq(c->a, launched_index(c, d), val_const(c->a, 0)));
    }
    return p;
}

static const wf_val *coverage(lower_ctx *c, kir_node *s) {
    wf_arena *a = c->a;
    const wf_val *p = NULL;
    for (kir_node *n = s->parent; n; n = n->parent) {
        int d = n->kind == KIR_FOR ? lower_pdim_index(n->u.loop.ptype) : -1;
        if (d >= 0 && !loop_covers_dim(c, n))
            p = and_into(a, p, val_lt(a, launched_index(c, d), n->u.loop.extent));
    }
    return p;
}

/* A reduction's accumulator in registers is initialized in every thread,
   past the ends of non-divisible splits and of thread loops shorter than the
   launch too (nvFuser does the same): its readers -- the combine steps, a
   block reduction that reads its inputs and its accumulator in every thread
   of the block, the consumer of an rfactor producer -- may read a cell whose
   own steps were all predicated off, and must find the op's initial value
   there, not an unwritten register. Each thread writes only its own
   registers (thread axes are not allocated in them), and with the default
   allocation (the loop domain) every index the init's loops make is inside
   the allocation, so neither the bounds nor the coverage predicate is
   needed. So does an explicit allocation domain made of loop IDs only (the
   loop domain reordered: fuzz -s 7 -c 43593, an rfactor producer whose
   init was kept to threadIdx.y < 8 while the block reduction reading it
   reads all 16 threads' partials); another one (the logical domain of a
   split tensor, whose index the split's tail would overrun) keeps both. The same holds for an
   accumulator in shared memory (an rfactor producer a block reduction reads
   in every thread: fuzz -s 3 -c 118525), except that its thread axes are
   allocated: the coverage predicate keeps threads past a thread loop's
   extent out of the allocation, and one thread writes each cell. */
static bool alloc_of_loop_ids(const wf_tv *t) {
    for (int i = 0; i < t->alloc.n; i++) {
        bool in_loop = false;
        for (int j = 0; j < t->loop.n && !in_loop; j++)
            in_loop = t->loop.ptr[j] == t->alloc.ptr[i];
        if (!in_loop)
            return false;
    }
    return true;
}

static bool init_fills_cell(const kir_stmt *s) {
    const wf_tv *t = s->op->out;
    return s->red == KRED_INIT && (t->mem == WF_MEM_LOCAL || t->mem == WF_MEM_SHARED) &&
           alloc_of_loop_ids(t);
}

/* A broadcast axis split into more than one iteration (bS{1} split by 3: bS{3}). */
static bool split_broadcast(const wf_iterdomain *id) {
    return id->itype == IT_BROADCAST && !val_is_const_eq(id->extent, 1);
}

/* The bounds of an init that fills its cell (above) along split broadcast loops:
   such a loop is not allocated, so its iterations past the first write the
   cell of the first. Unguarded, the init reset the accumulator in iterations
   whose steps were predicated off (fuzz -s 779 -c 691124: a max came out as
   its identity). Only these conjuncts: the others would keep threads from
   initializing registers a block reduction reads (fuzz -s 2811000 -c 38507). */
static const wf_val *split_broadcast_bounds(lower_ctx *c, kir_node *s, const wf_val *p) {
    if (!p)
        return NULL;
    if (p->kind == V_AND)
        return and_into(c->a, split_broadcast_bounds(c, s, p->a),
                        split_broadcast_bounds(c, s, p->b));
    return lower_uses_loop_of(c, s, p, split_broadcast) ? p : NULL;
}

/* Does v name a serial loop's index (not only thread and block indices)? */
static bool names_loop(const wf_val *v) {
    if (!v)
        return false;
    if (v->kind == V_SYM)
        return v->sym == SYM_LOOP;
    return names_loop(v->a) || names_loop(v->b);
}

/* The conjuncts of p that name a serial loop's index. */
static const wf_val *loop_conjuncts(lower_ctx *c, const wf_val *p) {
    if (p && p->kind == V_AND)
        return and_into(c->a, loop_conjuncts(c, p->a), loop_conjuncts(c, p->b));
    return names_loop(p) ? p : NULL;
}

static bool guard(lower_ctx *c, kir_node *s) {
    if (s->u.stmt.red >= KRED_BLOCK) /* a collective: its predicates are arguments */
        return lower_reduce_guard(c, s, coverage(c, s), single_writer);
    bool fills = init_fills_cell(&s->u.stmt);
    /* an init of the thread's own registers: its own accumulator register
       (lower/reduce.c) or a local tensor that fills its cell (above) */
    bool own = s->u.stmt.red == KRED_INIT &&
               (s->u.stmt.acc > 0 || (fills && s->u.stmt.op->out->mem == WF_MEM_LOCAL));
    const wf_val *aliased =
        fills || own ? split_broadcast_bounds(c, s, bounds_of(&s->u.stmt)) : NULL;
    if (own && !aliased)
        return true;
    const wf_val *cover = own ? NULL : coverage(c, s);
    const wf_val *bounds = fills || own ? aliased : bounds_of(&s->u.stmt);
    /* The init and the store of the result sit inside the thread loops of the
       reduced axes, which hold no data: the accumulator's cell does not depend
       on them. Their coverage and bounds along those loops go, as the
       combine's do (it runs in every thread of the block): an init kept to
       threadIdx.x < 1 left the other threads' accumulators unwritten for
       the combine to read. Not the single writer's threadIdx.x == 0. */
    if (s->u.stmt.red == KRED_INIT || s->u.stmt.red == KRED_FINAL) {
        cover = lower_reduce_final_pred(c, s, cover);
        bounds = lower_reduce_final_pred(c, s, bounds);
    }
    /* An init in registers with an allocation domain of its own (above: it
       keeps its guards) still writes only the thread's own registers, where
       thread and block axes are not allocated: a conjunct over those indices
       alone keeps no write inside the allocation, only threads from
       initializing the cells a block reduction reads in every thread (an
       rfactor producer's partials past its split, threadIdx.x < n: fuzz -s
       20261137 -c 385138). */
    if (s->u.stmt.red == KRED_INIT && s->u.stmt.op->out->mem == WF_MEM_LOCAL) {
        cover = loop_conjuncts(c, cover);
        bounds = loop_conjuncts(c, bounds);
    }
    const wf_val *p = and_into(c->a, and_into(c->a, cover, single_writer(c, &s->u.stmt)), bounds);
    if (!p || val_is_const_eq(p, 1))
        return true;
    kir_node *parent = s->parent;
    kir_list *body = parent ? kir_body(parent) : &c->out->top;
    kir_node *n = kir_new(c->a, KIR_IF);
    if (!n)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    n->u.cond.cond = p;
    for (int i = 0; i < body->n; i++)
        if (body->ptr[i] == s) {
            body->ptr[i] = n;
            n->parent = parent;
        }
    return kir_append(c->a, &n->u.cond.body, s, n) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

bool lower_predicate(lower_ctx *c) {
    for (int k = 0; k < c->order.n; k++)
        if ((c->init_of[k] && !guard(c, c->init_of[k])) || !guard(c, c->stmt_of[k]) ||
            (c->final_of[k] && !guard(c, c->final_of[k])))
            return false;
    return true;
}
