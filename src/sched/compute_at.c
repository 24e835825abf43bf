/*
 * compute_at.c -- compute a producer inside a consumer's loops, with loop
 * promotion (nvFuser's computeAt(consumer, pos), TVM's compute_at(block, loop)).
 *
 * wf_tv_inline_at(p, pos) needs p's first pos loop axes to be its consumers'
 * already, position by position. compute_at(p, c, pos) makes them so: it gives p
 * (and every tensor through which c reads p) a new loop domain whose first pos
 * axes are c's loops, then inlines it there. For each of c's first pos loops:
 *  - where p has the axis (c's transforms replayed on p's logical domain, as
 *    wf_propagate_transforms replays them), p's own axis takes the loop and runs
 *    on its parallel type;
 *  - where p has none (A[i, k] read by C[i, j, k] through a broadcast: the loop
 *    over j), a loop-only broadcast IterDomain (sched/loopbc.c) takes it: the
 *    loop is promoted into p's nest, p is computed again in each of its
 *    iterations and allocated without it;
 *  - where p is in shared memory and the loop runs on threads, p's own axis is
 *    relaxed as TVM relaxes a shared buffer's region over threadIdx loops: the
 *    loop is promoted (a loop-only broadcast) and p's axis goes inside, so that
 *    the block computes the whole tile there (a cooperative fetch once those
 *    inner axes are bound to the threads; else one thread writes, lower/
 *    predicate.c).
 * p's other axes follow in the order of its dims (TVM's region loops), as
 * serial loops inside the position, which the caller may still transform
 * (merge, split, bind). Tensors between p
 * and c (a broadcast, a transpose, the product) are aligned with their consumer
 * the same way over its whole loop domain and inlined as deep as allowed (at
 * least pos). Every rebuilt tensor's previous loop domain is discarded, as
 * compute_at regenerates a block's loops in TVM. analysis/inline.c decides
 * whether the positions are legal; if one is not, nothing changes and the error
 * says why.
 */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    wf_fusion *f;
    wf_tv *p, *c;
    int pos;
    bool reverse;  /* reverse_compute_at: c gets p's loops, p keeps its own */
    char head[80]; /* how messages name the call: "compute_at(T1, T2, 3)" */
    char *on;      /* per tensor id: on a path from p to c (c excluded) */
    char *rebuilt; /* per tensor id: got a new loop domain */
    wf_tv **order; /* the path's tensors, consumers before producers */
    int n;
    id_list *old_loop; /* per order index: the loop domain before, to restore */
    int *old_ca;
} cat_ctx;

/* Tensors on a path from p to c: descendants of p that are ancestors of c. */
static bool mark_path(cat_ctx *x) {
    wf_fusion *f = x->f;
    int n = f->tvs.n + 1;
    char *down = calloc((size_t)n, 1), *up = calloc((size_t)n, 1);
    wf_tv **stack = calloc((size_t)n, sizeof *stack);
    bool ok = down && up && stack;
    int sp = 0;
    if (ok)
        stack[sp++] = x->p, down[x->p->id] = 1;
    while (ok && sp > 0) {
        wf_tv *t = stack[--sp];
        for (int u = 0; u < t->uses.n; u++) {
            wf_tv *o = t->uses.ptr[u]->out;
            if (!down[o->id])
                down[o->id] = 1, stack[sp++] = o;
        }
    }
    if (ok)
        stack[sp++] = x->c, up[x->c->id] = 1;
    while (ok && sp > 0) {
        wf_tv *t = stack[--sp];
        for (int k = 0; t->def && k < t->def->nin; k++) {
            wf_tv *q = t->def->in[k];
            if (!up[q->id])
                up[q->id] = 1, stack[sp++] = q;
        }
    }
    for (int i = 0; ok && i < f->tvs.n; i++) {
        wf_tv *t = f->tvs.ptr[i];
        x->on[t->id] = t != x->c && down[t->id] && up[t->id];
    }
    free(down);
    free(up);
    free(stack);
    return ok || err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
}

/* Consumers first: a tensor comes after every path tensor that reads it. */
static void order_path(cat_ctx *x) {
    wf_fusion *f = x->f;
    x->n = 0;
    for (bool progress = true; progress;) {
        progress = false;
        for (int i = 0; i < f->tvs.n; i++) {
            wf_tv *t = f->tvs.ptr[i];
            if (x->on[t->id] != 1)
                continue;
            bool ready = true;
            for (int u = 0; u < t->uses.n && ready; u++)
                ready = x->on[t->uses.ptr[u]->out->id] != 1;
            if (!ready)
                continue;
            x->on[t->id] = 2; /* placed */
            x->order[x->n++] = t;
            progress = true;
        }
    }
}

/* The consumer t is aligned with: c if t feeds it, else a path tensor. */
static ir_op *path_use(const cat_ctx *x, const wf_tv *t) {
    for (int u = 0; u < t->uses.n; u++)
        if (t->uses.ptr[u]->out == x->c)
            return t->uses.ptr[u];
    for (int u = 0; u < t->uses.n; u++)
        if (x->on[t->uses.ptr[u]->out->id])
            return t->uses.ptr[u];
    return NULL;
}

static bool keeps_loops(const cat_ctx *x, const wf_tv *t) {
    if (t == x->p || t->ca_pos < x->pos)
        return false;
    for (int u = 0; u < t->uses.n; u++)
        if (x->rebuilt[t->uses.ptr[u]->out->id])
            return false;
    return true;
}

static bool in_ids(const id_list *l, const wf_iterdomain *id) {
    for (int i = 0; i < l->n; i++)
        if (l->ptr[i] == id)
            return true;
    return false;
}

/* The parallel type of the loop at slot i of d (c's where d runs it serially). */
static wf_ptype slot_ptype(const cat_ctx *x, const wf_tv *d, int i) {
    wf_ptype pt = d->loop.ptr[i]->ptype;
    if (pt == WF_SERIAL && i < x->pos)
        pt = x->c->loop.ptr[i]->ptype;
    return pt;
}

/* Is t's own axis relaxed out of a loop of type pt (TVM's region relaxation)? */
static bool relaxed(const wf_tv *t, wf_ptype pt) {
    if (t->mem == WF_MEM_SHARED)
        return ir_id_is_thread(pt);
    if (t->mem == WF_MEM_GLOBAL)
        return ir_id_is_thread(pt) || ir_id_is_block(pt);
    return false;
}

/* The first of t's logical dims that id is made from (TVM's region loops run in
   the buffer's dim order). */
static int logical_rank(const wf_tv *t, const wf_iterdomain *id) {
    for (int i = 0; i < t->logical.n; i++)
        if (t->logical.ptr[i] == id)
            return i;
    int r = t->logical.n;
    for (int k = 0; id->def && k < id->def->nin; k++) {
        int q = logical_rank(t, id->def->in[k]);
        r = q < r ? q : r;
    }
    return r;
}

/* The axes not replayed: fresh serial loops, as compute_at regenerates them,
   in the order of t's dims (the parts of one dim in the replayed order); then
   next becomes t's loop domain. */
static bool finish_loops(wf_fusion *f, cat_ctx *x, wf_tv *t, id_list *full, id_list *next) {
    bool ok = true;
    for (int r = 0; ok && r <= t->logical.n; r++)
        for (int i = 0; ok && i < full->n; i++)
            if (logical_rank(t, full->ptr[i]) == r && !in_ids(next, full->ptr[i])) {
                full->ptr[i]->ptype = WF_SERIAL;
                ok = ir_push_id(f, next, full->ptr[i]);
            }
    if (ok) {
        t->loop = *next;
        x->rebuilt[t->id] = 1;
    }
    return ok;
}

static bool rebuild(cat_ctx *x, wf_tv *t, ir_op *use) {
    wf_fusion *f = x->f;
    wf_tv *d = use->out;
    int nslots = t == x->p ? x->pos : d->loop.n;
    wf_iterdomain **slot = calloc((size_t)d->loop.n + 1, sizeof *slot);
    id_list full = {0}, next = {0};
    bool ok = slot && sched_replay_onto(d, t, use, slot, &full);
    if (!slot)
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; ok && i < nslots; i++) {
        wf_iterdomain *id = slot[i];
        wf_ptype pt = slot_ptype(x, d, i);
        if (id && (relaxed(t, pt) || in_ids(&next, id)))
            id = NULL;
        if (!id) {
            id = ir_id_new(f, t, val_const(&f->arena, 1), IT_BROADCAST);
            if (!id) {
                ok = false;
                break;
            }
            id->loop_only = true;
        } else if (id->itype != IT_BROADCAST && (ir_id_is_thread(pt) || ir_id_is_block(pt))) {
            id->ptype = pt;
        }
        ok = ir_push_id(f, &next, id);
    }
    free(slot);
    return ok && finish_loops(f, x, t, &full, &next);
}

/* A producer outside the path inlined into t's loops would lose them. */
static bool check_producers(const cat_ctx *x, const wf_tv *t) {
    for (int k = 0; t->def && k < t->def->nin; k++) {
        const wf_tv *q = t->def->in[k];
        if (x->on[q->id] || q->ca_pos == 0)
            continue;
        return err_failb(&x->f->err, WF_ERR_SCHEDULE,
                         "%s: T%d gets new loops, but its producer T%d is "
                         "inlined into them (at position %d); compute T%d at T%d's loops too, or "
                         "call wf_tv_inline_at(T%d, 0) first",
                         x->head, t->id, q->id, q->ca_pos, q->id, x->c->id, q->id);
    }
    if (sched_rfactor_reader(t))
        return err_failb(&x->f->err, WF_ERR_UNSUPPORTED,
                         "%s: not supported yet: T%d is an rfactor producer, "
                         "whose loop domain holds the partial results its consumer reads; "
                         "schedule it with wf_propagate_transforms and wf_tv_inline_at",
                         x->head, t->id);
    return true;
}

/* Inline every rebuilt tensor: p at pos, the others as deep as allowed. */
static bool place_all(cat_ctx *x) {
    wf_arena scratch;
    arena_init(&scratch);
    an_idgraph g;
    bool ok = an_idgraph_build(&g, x->f, &scratch);
    for (int i = 0; ok && i < x->n; i++) {
        wf_tv *t = x->order[i];
        if (!x->rebuilt[t->id])
            continue;
        char why[512];
        int max = an_max_inline_pos(&g, t, why, sizeof why);
        if (max < x->pos) {
            if (t == x->p)
                ok = err_failb(&x->f->err, WF_ERR_SCHEDULE,
                               "%s: T%d can share at most the first %d "
                               "loops of T%d: %s",
                               x->head, t->id, max, x->c->id, why);
            else
                ok = err_failb(&x->f->err, WF_ERR_SCHEDULE,
                               "%s: T%d, through which T%d reads T%d, can "
                               "share at most the first %d loops of its consumer: %s",
                               x->head, t->id, x->c->id, x->p->id, max, why);
            break;
        }
        t->ca_pos = t == x->p ? x->pos : max;
        sched_update_consumers(t);
    }
    arena_free(&scratch);
    return ok;
}

static void restore(cat_ctx *x) {
    for (int i = 0; i < x->n; i++) {
        wf_tv *t = x->order[i];
        if (!x->rebuilt[t->id])
            continue;
        t->loop = x->old_loop[i];
        t->ca_pos = x->old_ca[i];
    }
    for (int i = 0; i < x->n; i++)
        if (x->rebuilt[x->order[i]->id])
            sched_update_consumers(x->order[i]);
}

/* reverse_compute_at: t's producer on the path (p or a tensor between p and c). */
static wf_tv *path_producer(const cat_ctx *x, const wf_tv *t) {
    for (int k = 0; t->def && k < t->def->nin; k++)
        if (t->def->in[k] == x->p || x->on[t->def->in[k]->id])
            return t->def->in[k];
    return NULL;
}

/* reverse_compute_at: t's first pos axes are q's first pos loops replayed
   forward onto t (a loop-only broadcast where t has no axis for one), on q's
   parallel types; t's other axes follow as serial loops in the order of its
   dims. */
static bool rebuild_fwd(cat_ctx *x, wf_tv *t, wf_tv *q) {
    wf_fusion *f = x->f;
    wf_iterdomain **slot = calloc((size_t)q->loop.n + 1, sizeof *slot);
    id_list full = {0}, next = {0};
    bool ok = slot && sched_replay_onto(q, t, t->def, slot, &full);
    if (!slot)
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; ok && i < x->pos; i++) {
        wf_iterdomain *id = slot[i];
        wf_ptype pt = q->loop.ptr[i]->ptype;
        if (id && in_ids(&next, id))
            id = NULL;
        if (!id) {
            id = ir_id_new(f, t, val_const(&f->arena, 1), IT_BROADCAST);
            if (!id) {
                ok = false;
                break;
            }
            id->loop_only = true;
        } else if (id->itype != IT_BROADCAST) {
            id->ptype = ir_id_is_thread(pt) || ir_id_is_block(pt) ? pt : WF_SERIAL;
        }
        ok = ir_push_id(f, &next, id);
    }
    free(slot);
    return ok && finish_loops(f, x, t, &full, &next);
}

/* reverse_compute_at: c (and each tensor between p and c, producers first) takes
   p's first pos loops; the tensors between are then aligned with their
   consumers over their whole loop domains, as compute_at aligns them; p keeps
   its loops and is inlined at pos. */
static bool run_reverse(cat_ctx *x) {
    wf_tv *c = x->c;
    if (c->ca_pos > 0)
        return err_failb(&x->f->err, WF_ERR_SCHEDULE,
                         "%s: T%d is inlined into its consumers (at position %d) and would get "
                         "new loops; call wf_tv_inline_at(T%d, 0) first, or place T%d's "
                         "consumers at T%d's loops instead",
                         x->head, c->id, c->ca_pos, c->id, c->id, x->p->id);
    if (!check_producers(x, c))
        return false;
    for (int i = x->n - 1; i >= 0; i--) { /* producers first */
        wf_tv *t = x->order[i];
        x->old_loop[i] = t->loop;
        x->old_ca[i] = t->ca_pos;
        if (t == x->p)
            continue;
        if (!check_producers(x, t) || !rebuild_fwd(x, t, path_producer(x, t))) {
            restore(x);
            return false;
        }
    }
    id_list c_old = c->loop;
    bool ok = rebuild_fwd(x, c, path_producer(x, c));
    for (int i = 0; ok && i < x->n; i++) /* consumers first */
        if (x->order[i] != x->p)
            ok = rebuild(x, x->order[i], path_use(x, x->order[i]));
    x->rebuilt[x->p->id] = 1; /* placed at pos; its loops stay */
    if (ok && place_all(x))
        return true;
    restore(x);
    c->loop = c_old;
    return false;
}

static bool run(cat_ctx *x) {
    if (!mark_path(x))
        return false;
    if (!x->on[x->p->id])
        return err_failb(&x->f->err, WF_ERR_ARG,
                         "%s: T%d does not read T%d, directly or through other tensors; %s",
                         x->head, x->c->id, x->p->id,
                         x->reverse ? "place a tensor at the loops of one of its producers"
                                    : "compute a tensor at the loops of one of its consumers");
    order_path(x);
    if (x->reverse)
        return run_reverse(x);
    for (int i = 0; i < x->n; i++) {
        wf_tv *t = x->order[i];
        x->old_loop[i] = t->loop;
        x->old_ca[i] = t->ca_pos;
        if (keeps_loops(x, t))
            continue;
        if (!check_producers(x, t) || !rebuild(x, t, path_use(x, t))) {
            restore(x);
            return false;
        }
    }
    if (!place_all(x)) {
        restore(x);
        return false;
    }
    return true;
}

static bool place(wf_tv *p, wf_tv *c, int pos, bool reverse) {
    wf_fusion *f = p->f;
    int n = f->tvs.n + 1;
    cat_ctx x = {f,
                 p,
                 c,
                 pos,
                 reverse,
                 {0},
                 calloc((size_t)n, 1),
                 calloc((size_t)n, 1),
                 calloc((size_t)n, sizeof(wf_tv *)),
                 0,
                 calloc((size_t)n, sizeof(id_list)),
                 calloc((size_t)n, sizeof(int))};
    if (reverse)
        snprintf(x.head, sizeof x.head, "reverse_compute_at(T%d, T%d, %d)", c->id, p->id, pos);
    else
        snprintf(x.head, sizeof x.head, "compute_at(T%d, T%d, %d)", p->id, c->id, pos);
    bool ok = x.on && x.rebuilt && x.order && x.old_loop && x.old_ca
                  ? run(&x)
                  : err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    free(x.on);
    free(x.rebuilt);
    free(x.order);
    free(x.old_loop);
    free(x.old_ca);
    return ok;
}

bool sched_compute_at(wf_tv *p, wf_tv *c, int pos) {
    wf_fusion *f = p->f;
    if (p == c)
        return err_failb(&f->err, WF_ERR_ARG,
                         "compute_at(T%d, T%d, %d): a tensor is not computed at its own loops; "
                         "name a consumer of T%d",
                         p->id, c->id, pos, p->id);
    if (p->is_input)
        return err_failb(&f->err, WF_ERR_ARG,
                         "compute_at(T%d, T%d, %d): T%d is a fusion input, which is read, not "
                         "computed; compute a cache of it (wf_cache_after) at T%d's loops",
                         p->id, c->id, pos, p->id, c->id);
    return place(p, c, pos, false);
}

bool sched_reverse_compute_at(wf_tv *c, wf_tv *p, int pos) {
    wf_fusion *f = c->f;
    if (p == c)
        return err_failb(&f->err, WF_ERR_ARG,
                         "reverse_compute_at(T%d, T%d, %d): a tensor is not placed at its own "
                         "loops; name a producer of T%d",
                         c->id, p->id, pos, c->id);
    if (p->is_input)
        return err_failb(&f->err, WF_ERR_ARG,
                         "reverse_compute_at(T%d, T%d, %d): T%d is a fusion input, which is "
                         "read, not computed in loops; place T%d at the loops of a cache of it "
                         "(wf_cache_after)",
                         c->id, p->id, pos, p->id, c->id);
    return place(p, c, pos, true);
}
