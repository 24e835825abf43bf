/*
 * index.c -- indexing: every tensor access gets a linear index expression.
 *
 * Requires loops and alloc. Provides each statement's output and input
 * indices, its bounds predicate, and vectorization checks.
 *
 * For a statement, the index of each enclosing loop (a loop variable,
 * threadIdx.x, blockIdx.y, or 0) is known for the exact-map group of the
 * loop's promoted IterDomain. Indices then flow through the transforms of
 * the whole fusion, on exact-map groups, until the accessed tensor's
 * allocation IDs are known: backward through a transform when its outputs
 * are known (split: in = outer * inner_extent + inner; merge: outer =
 * out / inner_extent, inner = out % inner_extent; XOR swizzle: (x, y) ->
 * (x, x ^ y), its own inverse), forward when its inputs are. Backward steps
 * are preferred, so an access whose allocation IDs are mapped to the loops
 * reads like `i0 * 128 + threadIdx.x`. Crossing from consumer to producer
 * needs nothing special: an op's output root IDs and input logical IDs are
 * in the same exact groups. The walk visits one transform per class of
 * transforms equal under the exact map (an_unique_transforms), so a long
 * chain of tensors scheduled alike costs what one tensor costs. Every backward split whose result
 * may exceed the input's extent (a non-divisible split) adds `index < extent` to the statement's
 * predicate. The linear index is the sum of allocated IDs' indices times their strides.
 */
#include "lower/copy.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const wf_val *index;     /* the index computed by a backward split */
    const wf_iterdomain *id; /* the split's input, whose extent bounds it */
} split_bound;

typedef struct {
    lower_ctx *c;
    const wf_val **idx;     /* per exact-group root: index, or NULL */
    int *touched, ntouched; /* the roots set in idx, to clear them */
    id_transform **tfs;     /* one transform per exact class */
    int ntfs;
    const wf_val *pred;      /* conjunction of bounds checks */
    bool lenient;            /* may an unknown extent-1 axis stand for 0 (get())? */
    bool init;               /* the walk is for a reduction's init (seed()) */
    bool *extent1_group;     /* per exact-group root: holds an axis of extent 1? */
    bool has_extent1_split;  /* does some transform split such a group? */
    VEC(split_bound) bounds; /* every backward split of the last walk */
    const wf_tv *own_tv;     /* the tensor whose groups own holds (own_iteration) */
    char *own;               /* per exact-group root: 1 iterates own_tv's data */
} index_env;

/* The index of id if the walk found one; once lenient, a broadcast axis the
   walk did not reach is at 0 (not before: a split of a broadcast, outer by
   2, gives an axis of extent 2 whose index needs the split's predicate). */
static const wf_val *known(index_env *e, const wf_iterdomain *id) {
    const wf_val *v = e->idx[an_find(&e->c->g.exact, id->id)];
    if (!v && e->lenient && id->itype == IT_BROADCAST)
        return val_const(e->c->a, 0);
    return v;
}

/* The index to use for id: as known, or, once the walk is lenient, 0 for an
   axis of extent 1. The fallback is a last resort: a split below the axis
   (an outer of extent 1 split again, swizzled, ...) may compute a value up
   to its inner extent for it, and that value, with the bounds predicate of
   the split, is the truth; taking 0 first would index the wrong cell and
   drop the predicate. So propagate() runs strictly until it is stuck. */
static const wf_val *get(index_env *e, const wf_iterdomain *id) {
    const wf_val *v = known(e, id);
    if (!v && e->lenient && val_is_const_eq(id->extent, 1))
        return val_const(e->c->a, 0);
    return v;
}

static bool put(index_env *e, const wf_iterdomain *id, const wf_val *v) {
    int r = an_find(&e->c->g.exact, id->id);
    if (e->idx[r] || !v)
        return false;
    e->idx[r] = v;
    e->touched[e->ntouched++] = r;
    return true;
}

/* Conjunctions are left-leaning chains of V_AND; skip a condition already in one. */
static bool has_cond(const wf_val *p, const wf_val *cond) {
    for (; p; p = p->kind == V_AND ? p->a : NULL)
        if (val_equal(p->kind == V_AND ? p->b : p, cond))
            return true;
    return false;
}

/* Does v name no loop, thread or block index (constants and sizes only)? */
static bool only_sizes(const wf_val *v) {
    if (!v || v->kind == V_CONST)
        return true;
    if (v->kind == V_SYM)
        return v->sym == SYM_SIZE || v->sym == SYM_STRIDE;
    return only_sizes(v->a) && only_sizes(v->b);
}

static void bound(index_env *e, const wf_val *v, const wf_iterdomain *id) {
    wf_arena *a = e->c->a;
    /* An init's bound that names no index is one of a reduction axis at its first
       iteration (seed()), `0 < n`: an empty reduction is initialized too. */
    if (e->init && only_sizes(v))
        return;
    if (!vec_push_arena(a, &e->bounds, ((split_bound){v, id})))
        return; /* the arena's sticky failure is reported after the pass */
    if (val_prove_lt(v, id->extent))
        return;
    const wf_val *cond = val_lt(a, v, id->extent);
    if (!val_is_const_eq(cond, 1) && !has_cond(e->pred, cond))
        e->pred = e->pred ? val_and(a, e->pred, cond) : cond;
}

/* A split's input index from its outputs' indices. */
static const wf_val *split_input(index_env *e, const id_transform *t, const wf_val *o0,
                                 const wf_val *o1) {
    return val_add(e->c->a, val_mul(e->c->a, o0, t->out[1]->extent), o1);
}

static bool backward(index_env *e, const id_transform *t) {
    wf_arena *a = e->c->a;
    const wf_val *o0 = get(e, t->out[0]), *o1 = t->nout > 1 ? get(e, t->out[1]) : NULL;
    if (!o0 || (t->nout > 1 && !o1))
        return false;
    switch (t->kind) {
    case TF_SPLIT: {
        if (known(e, t->in[0]))
            return false;
        const wf_val *in = split_input(e, t, o0, o1);
        bound(e, in, t->in[0]);
        return put(e, t->in[0], in);
    }
    case TF_MERGE: {
        const wf_val *ie = t->in[1]->extent;
        bool c0 = put(e, t->in[0], val_div(a, o0, ie));
        bool c1 = put(e, t->in[1], val_mod(a, o0, ie));
        return c0 || c1;
    }
    default: {
        bool c0 = put(e, t->in[0], o0);
        bool c1 = put(e, t->in[1], val_xor(a, o0, o1));
        return c0 || c1;
    }
    }
}

static bool forward(index_env *e, const id_transform *t) {
    wf_arena *a = e->c->a;
    const wf_val *i0 = get(e, t->in[0]), *i1 = t->nin > 1 ? get(e, t->in[1]) : NULL;
    if (!i0 || (t->nin > 1 && !i1))
        return false;
    switch (t->kind) {
    case TF_SPLIT: {
        const wf_val *ie = t->out[1]->extent;
        bool c0 = put(e, t->out[0], val_div(a, i0, ie));
        bool c1 = put(e, t->out[1], val_mod(a, i0, ie));
        return c0 || c1;
    }
    case TF_MERGE:
        return put(e, t->out[0], val_add(a, val_mul(a, i0, t->in[1]->extent), i1));
    default: {
        bool c0 = put(e, t->out[0], i0);
        bool c1 = put(e, t->out[1], val_xor(a, i0, i1));
        return c0 || c1;
    }
    }
}

/* One pass over the transforms; a lenient pass stops at its first step, so
   that the strict walk resumes from the one extent-1 fallback it took. */
static bool sweep(index_env *e, bool (*step)(index_env *, const id_transform *)) {
    bool changed = false;
    for (int i = e->ntfs - 1; i >= 0 && !(changed && e->lenient); i--)
        changed |= step(e, e->tfs[i]);
    return changed;
}

static bool sweep_both(index_env *e) {
    return sweep(e, backward) || sweep(e, forward);
}

/* Known by the walk itself: the extent-1 fallback of get() must not stop it
   before a split that may overflow that axis has added its predicate. */
static bool all_known(index_env *e, const wf_tv *tv, const lower_layout *l) {
    for (int i = 0; i < l->n; i++)
        if (l->allocated[i] && !known(e, l->ids[i]))
            return false;
    for (int i = 0; i < tv->logical.n; i++)
        if (!known(e, tv->logical.ptr[i]))
            return false;
    return true;
}

/* Strict sweeps until stuck, then one lenient step (an extent-1 axis that
   nothing computes taken as 0), then strict again. */
static void propagate(index_env *e, const wf_tv *tv, const lower_layout *l) {
    while (!all_known(e, tv, l)) {
        e->lenient = false;
        if (sweep_both(e))
            continue;
        e->lenient = true;
        bool moved = sweep_both(e);
        e->lenient = false;
        if (!moved)
            break;
    }
}

/* A split of an axis of extent 1 (by 3: {1}, {3}; outer by 2: {2}, {1})
   makes loops of more than one iteration over that axis's one element; only
   where the split's input index is 0 is the iteration real. (The split that
   stands for its exact class may be another tensor's, of an axis mapped to
   it whose extent is symbolic: its bound, `index < n`, is the one to use.) The walk may
   know the axis's index without the split's own backward step (a loop of
   extent 1 over its group, an extent-1 axis exactly mapped to a broadcast
   or to another axis of the same tensor, reached through another path), so
   after the walk every such split whose parts are indexed adds its bound
   `index < 1`: otherwise the statement runs again in the other iterations,
   rereading cells its producer's guarded loop never wrote (fuzz -s 1006
   -c 25140, -s 1001 -c 369607). */
static void bound_extent1_splits(index_env *e) {
    wf_arena *a = e->c->a;
    if (!e->has_extent1_split)
        return;
    while (sweep_both(e)) /* index the splits' parts too, not only the tensor's axes */
        ;
    e->lenient = true;
    for (int i = 0; i < e->ntfs; i++) {
        const id_transform *t = e->tfs[i];
        if (t->kind != TF_SPLIT || !e->extent1_group[an_find(&e->c->g.exact, t->in[0]->id)])
            continue;
        const wf_val *o0 = get(e, t->out[0]), *o1 = get(e, t->out[1]);
        if (!o0 || !o1)
            continue;
        const wf_val *in = split_input(e, t, o0, o1);
        if (!val_prove_lt(in, t->in[0]->extent) &&
            !has_cond(e->pred, val_lt(a, in, t->in[0]->extent)))
            bound(e, in, t->in[0]);
    }
    e->lenient = false;
}

/* Is loop n one that the statement's tensor only sits in through a loop-only
   broadcast (sched/loopbc.c)? Its index is not the tensor's: the loop's
   promoted ID may even be exactly mapped to an axis the tensor iterates in a
   loop of its own (the cooperative fetch's ax0 under the consumer's i_1). */
static bool loop_only_position(const lower_ctx *c, const kir_node *stmt, const kir_node *n) {
    const wf_tv *tv = stmt->u.stmt.op->out;
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->loop_only && c->loops.group_of[tv->loop.ptr[i]->id] == n->u.loop.group)
            return true;
    return false;
}

/* Is loop n one where the statement's tensor is broadcast, while the loop's
   promoted ID is exactly mapped to another axis of the tensor (a broadcast
   resolved, through other tensors, to an extent the tensor also iterates
   itself)? The tensor's data does not vary along such a loop; it is computed
   again in each iteration. Its index must not stand for that other axis,
   whose own loops (or the splits above them) give it: seeding it from the
   outer loop made a max over T2's axis read T2 at the outer index (fuzz -s 1
   -c 12659). */
/* Is x, or an ID it was made from, exactly mapped to one of tv's loop IDs
   other than mine that iterates data (not a broadcast, not loop-only)? */
static bool made_from_own_loop(lower_ctx *c, const wf_tv *tv, const wf_iterdomain *mine,
                               const wf_iterdomain *x) {
    for (int j = 0; j < tv->loop.n; j++) {
        const wf_iterdomain *l = tv->loop.ptr[j];
        if (l != mine && l->itype != IT_BROADCAST && !l->loop_only && an_mapped(&c->g.exact, l, x))
            return true;
    }
    for (int k = 0; x->def && k < x->def->nin; k++)
        if (made_from_own_loop(c, tv, mine, x->def->in[k]))
            return true;
    return false;
}

static bool redundant_position(lower_ctx *c, const kir_node *stmt, const kir_node *n) {
    const wf_tv *tv = stmt->u.stmt.op->out;
    for (int i = 0; i < tv->loop.n; i++) {
        if (c->loops.group_of[tv->loop.ptr[i]->id] != n->u.loop.group)
            continue;
        if (an_own_id_mapped(&c->g, tv, i, n->u.loop.id))
            return true;
        /* The same where the loop's promoted ID is made (split, merged) from
           an axis exactly mapped to another of the tensor's loop axes, which
           its own loop indexes: T2 = sum over r17 of [i3, b1, r17], its b1
           split by 2 and shared with the loop of its consumer's 17 split by 2
           (loop index i3). Seeding i3 gave r17's group the index i3 * 2 + ..
           in the init (outside r17's own loop), with the bound `< 17`, while
           the steps index it by their r17 loop and have no such bound: the
           init ran in fewer iterations than the steps and the sum came out
           twice (fuzz -s 7003 -c 60848). (Not where the loop's ID is only
           made from an axis the tensor's loop axes are made from too: a
           broadcast [m, b1] merged and split like its consumer's [m, n]
           takes m from both loops.) */
        const wf_iterdomain *mine = tv->loop.ptr[i];
        bool always_zero = mine->itype == IT_BROADCAST || val_is_const_eq(mine->extent, 1);
        return always_zero && !mine->loop_only && !an_mapped(&c->g.exact, mine, n->u.loop.id) &&
               made_from_own_loop(c, tv, mine, n->u.loop.id);
    }
    return false;
}

/* Seed the enclosing loops' indices; `vec_var`, if given, replaces the
   vectorized loop's index. */
static void seed(index_env *e, kir_node *stmt, const wf_val *vec_var) {
    for (int i = 0; i < e->ntouched; i++)
        e->idx[e->touched[i]] = NULL;
    e->ntouched = 0;
    e->lenient = false; /* the last walk's linearize() left it set */
    e->pred = NULL;
    e->bounds.n = 0;
    for (kir_node *n = stmt->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || loop_only_position(e->c, stmt, n) ||
            redundant_position(e->c, stmt, n))
            continue;
        const wf_val *v = n->u.loop.ptype == WF_VECTORIZE && vec_var ? vec_var : n->u.loop.var;
        put(e, n->u.loop.id, v);
    }
    /* A reduction's init runs before the serial reduction loops: they are at their
       first iteration, 0, so that an iteration axis merged into a reduction axis
       (an extent-1 axis split outer by 3, its inner part merged with the reduced
       one) gets its index and its split its bound. Without it the init ran in all
       3 iterations of the outer part over the one cell, resetting it after the
       steps of the first (fuzz -s 781 -c 172834: a min came out as +inf). The
       bounds this makes of the reduction axes alone are not the init's (bound()):
       an empty reduction's result is the initial value. */
    const wf_tv *out = stmt->u.stmt.op->out;
    e->init = stmt->u.stmt.red == KRED_INIT;
    for (int i = 0; e->init && i < out->loop.n; i++)
        if (out->loop.ptr[i]->itype == IT_REDUCTION && !known(e, out->loop.ptr[i]))
            put(e, out->loop.ptr[i], val_const(e->c->a, 0));
}

/* Is the exact group r one that iterates tv's own data: that of one of tv's
   own non-broadcast IDs (a logical one, or one its transforms make of
   them), or the output of any tensor's transform with at least one input
   of such a group? The merge of its own axis with its broadcast one (iS6{3} and
   bS5{1} -> iS17{3}) iterates its own data (the broadcast's part is 0, a
   split's bound keeps it there), though permissively it may be mapped to
   the broadcast: a merge with an axis of extent 1 is its other input
   (analysis/idgraph.c), and the broadcast may be mapped to that input
   through tensors that resolve it elsewhere. The same merge may be another
   tensor's, of axes exactly mapped to tv's (a max over T1[bS1{1}, iS2{32}]
   merging rS5{1} and rS6{32}): the walk computes its index from tv's own
   ones (fuzz -s 7002 -c 53272 bounded T4's own loop by 1). So may a
   merge of tv's own axis with an axis that expands tv's broadcast (T10's
   merge of T6's middle axis with the expanded one, a loop of 25 that T6 is
   inlined into): its index mixes both, only the expanding input's is 0 for
   the single write, and that input is bounded on its own where the walk
   reaches it (fuzz -s 7003 -c 32871 bounded the whole loop by 1, writing a
   fifth of T6). The groups are computed once per tensor (own_tv). */
static bool own_iteration(index_env *e, const wf_tv *tv, int r) {
    const wf_fusion *f = e->c->f;
    an_map *em = &e->c->g.exact;
    if (e->own_tv == tv)
        return e->own[r] == 1;
    if (!e->own && !(e->own = ARENA_ARRAY(e->c->a, char, f->ids.n + 1)))
        return false; /* out of memory: nothing is own, every such loop is bounded */
    memset(e->own, 0, (size_t)f->ids.n + 1);
    e->own_tv = tv;
    /* 1: the data's own group; 2: a group of tv's axis of extent 1. */
    for (int i = 0; i < f->ids.n; i++) {
        const wf_iterdomain *id = f->ids.ptr[i];
        if (id->tv != tv || id->loop_only)
            continue;
        int g = an_find(em, id->id);
        if (id->itype != IT_BROADCAST)
            e->own[g] = 1;
        else if (val_is_const_eq(id->extent, 1) && !e->own[g])
            e->own[g] = 2;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < e->ntfs; i++) {
            const id_transform *t = e->tfs[i];
            bool any_own = false;
            for (int k = 0; k < t->nin; k++)
                any_own |= e->own[an_find(em, t->in[k]->id)] == 1;
            for (int k = 0; any_own && k < t->nout; k++) {
                int g = an_find(em, t->out[k]->id);
                changed |= e->own[g] != 1;
                e->own[g] = 1;
            }
        }
    }
    return e->own[r] == 1;
}

static bool on_parallel(const wf_val *v) {
    for (int d = 0; d < 3; d++)
        if (val_uses_sym(v, SYM_TID, d) || val_uses_sym(v, SYM_BID, d))
            return true;
    return false;
}

/* Written once by one thread or block of a parallel loop, the cell would be
   read in that loop by the others, which cannot wait for it (blocks never
   can): refused. */
static bool written_once_read_by_all(index_env *e, const wf_tv *tv, const wf_iterdomain *id) {
    sbuf b = {0};
    ir_print_id(&b, id);
    err_failb(&e->c->f->err, WF_ERR_SCHEDULE,
              "T%d: fusion output T%d holds one element along its broadcast axis %s, but that "
              "axis shares a parallel loop with a tensor that expands it, and T%d is read in that "
              "loop: one thread or block would write the element that the others read, and they "
              "cannot wait for it; inline T%d less deeply (wf_tv_inline_at) or let its readers "
              "read its producer",
              tv->id, tv->id, sbuf_str(&b), tv->id, tv->id);
    sbuf_free(&b);
    return false;
}

static bool expansion_read_by_all(index_env *e, const wf_tv *tv, const wf_iterdomain *mine,
                                  const wf_iterdomain *x) {
    sbuf b = {0}, bx = {0};
    ir_print_id(&b, mine);
    ir_print_id(&bx, x);
    err_failb(&e->c->f->err, WF_ERR_SCHEDULE,
              "T%d: the loop of axis %s of fusion output T%d also runs over %s, an axis T%d does "
              "not have (a broadcast that another tensor sharing the loop expands), on threads or "
              "blocks, and T%d is read in that loop: one thread or block would write each "
              "element that the others read, and they cannot wait for it; inline the tensors "
              "that share the loop less deeply (wf_tv_inline_at) or let T%d's readers read its "
              "producer",
              tv->id, sbuf_str(&b), tv->id, sbuf_str(&bx), tv->id, tv->id, tv->id);
    sbuf_free(&b);
    sbuf_free(&bx);
    return false;
}

/* Is group r one of tv's data axes (an ID of tv that is not a broadcast)? */
static bool data_group(index_env *e, const wf_tv *tv, int r) {
    const wf_fusion *f = e->c->f;
    for (int i = 0; i < f->ids.n; i++) {
        const wf_iterdomain *id = f->ids.ptr[i];
        if (id->tv == tv && !id->loop_only && id->itype != IT_BROADCAST &&
            an_find(&e->c->g.exact, id->id) == r)
            return true;
    }
    return false;
}

/* Only index 0 of x, a part of a loop's promoted ID that is not tv's data,
   writes tv's cell (below); the parts of x made from tv's data, recursively.
   False when tv is read in that loop across threads or blocks (refused). */
static bool write_at_zero(index_env *e, const wf_tv *tv, const wf_iterdomain *x,
                          const wf_iterdomain *mine) {
    int r = an_find(&e->c->g.exact, x->id);
    if (data_group(e, tv, r) || val_is_const_eq(x->extent, 1))
        return true;
    if (own_iteration(e, tv, r)) {
        for (int k = 0; x->def && k < x->def->nin; k++)
            if (!write_at_zero(e, tv, x->def->in[k], mine))
                return false;
        return true;
    }
    if (!e->idx[r])
        return true;
    if (tv->uses.n && on_parallel(e->idx[r]))
        return expansion_read_by_all(e, tv, mine, x);
    wf_arena *a = e->c->a;
    const wf_val *cond = val_lt(a, e->idx[r], val_const(a, 1));
    if (!val_is_const_eq(cond, 1) && !has_cond(e->pred, cond))
        e->pred = e->pred ? val_and(a, e->pred, cond) : cond;
    return true;
}

/* A fusion output holds one cell per element of its logical domain, and its
   layout is not promoted (alloc.c does not promote a fusion input or
   output). Its loop may be shared with a tensor that expands a broadcast:
   then the loop runs over the expanded extent, and every iteration along the
   expansion would write the same cell again, from several threads or
   blocks. It is written once: where the expansion's index is 0, the same
   `index < extent` predicate as a non-divisible split's. Two ways:
   - a broadcast dim of extent 1 of the output itself: every index the walk
     found for the dim's permissive group (the IDs that expand it);
   - an axis of the output whose loop is promoted to an ID made from the
     output's data and from IDs that are not (T4 = cos(T2) and T7 =
     broadcast(T2) - T0, T2 inlined into both and T7 into T8 = T7 - T0: T4's
     [8] split by 2 shares the loops of T8's [8, n] merged and split by 2,
     and T4[(i3 * 2 + threadIdx.y) / n] was written by n threads: fuzz -s
     20261137 -c 38334): the indices of those other IDs. */
static bool write_once(index_env *e, kir_node *s, const wf_tv *tv) {
    an_map *pm = &e->c->g.permissive;
    if (!tv->is_output)
        return true; /* a promoted layout gives each iteration its own cell */
    for (int i = 0; i < tv->logical.n; i++) {
        const wf_iterdomain *id = tv->logical.ptr[i];
        if (id->itype != IT_BROADCAST || !val_is_const_eq(id->extent, 1))
            continue;
        for (int t = 0; t < e->ntouched; t++) {
            int r = e->touched[t];
            if (an_find(pm, r) != an_find(pm, id->id) || own_iteration(e, tv, r))
                continue;
            if (tv->uses.n && on_parallel(e->idx[r]))
                return written_once_read_by_all(e, tv, id);
            bound(e, e->idx[r], id);
        }
    }
    bool swept = false;
    for (kir_node *n = s->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || loop_only_position(e->c, s, n) || redundant_position(e->c, s, n))
            continue;
        for (int i = 0; i < tv->loop.n; i++) {
            const wf_iterdomain *mine = tv->loop.ptr[i];
            if (e->c->loops.group_of[mine->id] != n->u.loop.group ||
                an_mapped(&e->c->g.exact, mine, n->u.loop.id))
                continue;
            while (!swept && sweep_both(e)) /* index the promoted ID's parts too */
                ;
            swept = true;
            if (!write_at_zero(e, tv, n->u.loop.id, mine))
                return false;
        }
    }
    return true;
}

/* Is tv the output of s, a reduction (its init, steps or final store)? */
static bool reduction_output(const kir_node *s, const wf_tv *tv) {
    const ir_op *op = s->u.stmt.op;
    return op->kind == OP_REDUCE && op->out == tv;
}

static const wf_val *linearize(index_env *e, const kir_node *s, wf_tv *tv, const lower_layout *l) {
    wf_arena *a = e->c->a;
    const wf_val *sum = val_const(a, 0);
    bool reduced = reduction_output(s, tv);
    e->lenient = true; /* the walk is over: what it did not reach is at 0 */
    for (int i = 0; i < l->n; i++) {
        if (!l->allocated[i])
            continue;
        const wf_val *v = get(e, l->ids[i]);
        /* A reduction's output axis of extent 1 is at 0. An iteration axis of
           extent 1 may be merged into a reduction axis (check_mixed allows
           it: one element), and the walk then gives it the reduction loop's
           index (i0 / 1): the cell looked different in every iteration and
           thread of the reduced loops, though it is one cell. The init's
           single writer (which keeps one thread per dimension the index does
           not use) let every thread on TIDz initialize T6[threadIdx.z / 16 /
           n] (fuzz -s 2 -c 51911), and the block reduction's write, whose
           reduced loops' bounds go, wrote T2[i0] for i0 < 5 past its one
           element (fuzz -s 20261123 -c 760736; both with the F19 switches 1).
           Where such an index is not 0 the statement is out of bounds, and
           the walk's bounds predicate (kept by the reads) already says so. */
        if (v && reduced && val_is_const_eq(l->ids[i]->extent, 1))
            v = val_const(a, 0);
        if (!v) {
            sbuf b = {0};
            ir_print_id(&b, l->ids[i]);
            const wf_tv *out = s->u.stmt.op->out;
            err_fail(&e->c->f->err, WF_ERR_SCHEDULE,
                     "cannot index T%d in the loops of T%d: no path in the IterDomain graph from "
                     "them to T%d's allocation axis %s (T%d's inline position shares loops it "
                     "is not exactly mapped to; inline it less deeply or schedule it like its "
                     "consumer)",
                     tv->id, out->id, tv->id, sbuf_str(&b), out->id);
            sbuf_free(&b);
            return NULL;
        }
        sum = val_add(a, sum, val_mul(a, v, l->stride[i]));
    }
    return sum;
}

/* The linear index of tv in statement s. Bounds come only from backward
   splits: merges and swizzles map in-range indices to in-range indices, so
   an index can leave its extent only where a split does not divide. */
static const wf_val *access_index(index_env *e, kir_node *s, wf_tv *tv, const wf_val *vec_var) {
    lower_layout l;
    if (!lower_layout_of(e->c, tv, &l))
        return NULL;
    seed(e, s, vec_var);
    propagate(e, tv, &l);
    bound_extent1_splits(e);
    if (tv == s->u.stmt.op->out && !write_once(e, s, tv))
        return NULL;
    return linearize(e, s, tv, &l);
}

/* The vector loop of a statement, if it is a vector access. */
/* The vectorized loop of a statement: for a copy, one vector access (no
   loop); for other ops, an unrolled loop whose accesses must still be
   vectorizable. Lowering checks that it is the innermost loop. */
static kir_node *vector_loop(kir_node *s) {
    kir_node *p = s->parent;
    return p && p->kind == KIR_FOR && p->u.loop.ptype == WF_VECTORIZE ? p : NULL;
}

static bool check_vector_access(index_env *e, kir_node *s, wf_tv *tv, int64_t width) {
    lower_ctx *c = e->c;
    wf_arena *a = c->a;
    const wf_val *v = val_sym(a, SYM_LOOP, -1, 0, "v", 0, width - 1, NULL);
    const wf_val *base = access_index(e, s, tv, val_const(a, 0));
    const wf_val *moved = access_index(e, s, tv, v);
    if (!base || !moved)
        return false;
    if (!val_equal(val_sub(a, moved, base), v))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the vectorized axis of T%d must be the innermost, contiguous axis "
                         "of T%d's allocation, but T%d's elements along it are not adjacent",
                         s->u.stmt.op->out->id, s->u.stmt.op->out->id, tv->id, tv->id);
    const wf_val *rem = val_mod(a, base, val_const(a, width));
    if (!val_is_const_eq(rem, 0)) {
        sbuf b = {0};
        val_print(&b, base);
        err_failb(&c->f->err, WF_ERR_SCHEDULE,
                  "T%d: a vector access of %lld elements of T%d starts at %s, which is not "
                  "provably a multiple of %lld",
                  s->u.stmt.op->out->id, (long long)width, tv->id, sbuf_str(&b), (long long)width);
        sbuf_free(&b);
        return false;
    }
    return true;
}

/* A vectorized split of a symbolic extent cannot be predicated per element:
   its divisibility is checked at launch instead. */
static bool add_divisibility_check(lower_ctx *c, const wf_tv *out, const wf_val *extent,
                                   int64_t factor) {
    wf_arena *a = c->a;
    sbuf b = {0};
    val_print(&b, extent);
    sbuf m = {0};
    sbuf_printf(&m, "T%d: the vectorized split needs %s to be a multiple of %lld", out->id,
                sbuf_str(&b), (long long)factor);
    lower_check chk = {.cond = val_eq(a, val_mod(a, extent, val_const(a, factor)), val_const(a, 0)),
                       .message = arena_strdup(a, sbuf_str(&m))};
    sbuf_free(&b);
    sbuf_free(&m);
    if (!chk.cond || !chk.message || !vec_push_arena(a, &c->out->checks, chk))
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

static bool check_vector(index_env *e, kir_node *s, kir_node *vl) {
    lower_ctx *c = e->c;
    ir_op *op = s->u.stmt.op;
    wf_tv *out = op->out;
    int64_t width = ir_id_const_extent(vl->u.loop.id);
    size_t bytes = (size_t)width * wf_dtype_size(out->dtype);
    if (!lower_copy_wide(op) && (bytes > 16 || (bytes & (bytes - 1)) != 0))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: vectorizing %lld elements of %s moves %zu bytes per access; a "
                         "vector access must be 1, 2, 4, 8 or 16 bytes",
                         out->id, (long long)width, ir_dtype_short(out->dtype), bytes);
    const id_transform *t = vl->u.loop.id->def;
    if (t && t->kind == TF_SPLIT && !t->divisible && val_is_const(t->in[0]->extent))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the split that makes the vectorized axis does not divide its "
                         "extent %lld by %lld",
                         out->id, (long long)t->in[0]->extent->c, (long long)t->factor);
    if (t && t->kind == TF_SPLIT && !t->divisible &&
        !add_divisibility_check(c, out, t->in[0]->extent, t->factor))
        return false;
    /* A copy is one vector access on both sides; other ops run an unrolled loop,
       whose global and shared accesses must still be vector-shaped. */
    bool copy = vl->u.loop.vector;
    if (copy)
        s->u.stmt.vec = (int)width;
    bool matrix = lower_copy_matrix(op); /* its shared side: copy_ldmatrix.c */
    for (int k = 0; k < op->nin; k++)
        if ((copy || op->in[k]->mem != WF_MEM_LOCAL) &&
            !(matrix && op->in[k]->mem == WF_MEM_SHARED) &&
            !check_vector_access(e, s, op->in[k], width))
            return false;
    return (!copy && out->mem == WF_MEM_LOCAL) || (matrix && out->mem == WF_MEM_SHARED) ||
           check_vector_access(e, s, out, width);
}

static int64_t pow2_above(int64_t x) {
    int64_t p = 1;
    while (p <= x)
        p *= 2;
    return p;
}

/* Is the last element of a vector in bounds whenever its first is? */
static bool tail_implied(lower_ctx *c, const wf_tv *out, const split_bound *first,
                         const split_bound *last) {
    wf_arena *a = c->a;
    const wf_val *extent = first->id->extent;
    if (val_equal(first->index, last->index) || val_prove_lt(last->index, extent))
        return true;
    /* If the first and last index lie in one aligned block of m indices (equal
       quotients by m) and the extent is a multiple of m, the last is in bounds
       whenever the first is. Try the smallest such blocks. */
    const wf_val *d = val_sub(a, last->index, first->index);
    if (!val_is_const(d) || d->c < 1)
        return false;
    for (int k = 0; k < 32; k++) {
        /* m = d + 1, then the powers of two above d */
        int64_t m = k == 0 ? d->c + 1 : pow2_above(d->c) << (k - 1);
        if (k > 0 && m == d->c + 1)
            continue;
        const wf_val *mv = val_const(a, m);
        if (!val_equal(val_div(a, first->index, mv), val_div(a, last->index, mv)))
            continue;
        if (val_is_const(extent))
            return extent->c % m == 0;
        /* A symbolic extent: its divisibility is checked at launch. */
        return add_divisibility_check(c, out, extent, m);
    }
    return false;
}

/* A vector access cannot be predicated element by element: wherever its first
   element is in bounds, so must its last be (nvFuser turns the same rule
   into divisibility checks). */
static bool check_vector_tail(index_env *e, kir_node *s, int64_t width) {
    lower_ctx *c = e->c;
    wf_tv *out = s->u.stmt.op->out;
    if (!access_index(e, s, out, val_const(c->a, 0)))
        return false;
    int n = e->bounds.n;
    split_bound *first = ARENA_ARRAY(c->a, split_bound, n + 1);
    if (!first)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    if (n)
        memcpy(first, e->bounds.ptr, sizeof(split_bound) * (size_t)n);
    if (!access_index(e, s, out, val_const(c->a, width - 1)))
        return false;
    for (int j = 0; j < e->bounds.n; j++) {
        const split_bound *last = &e->bounds.ptr[j], *match = NULL;
        for (int i = 0; i < n && !match; i++)
            match = first[i].id == last->id ? &first[i] : NULL;
        if (match && tail_implied(c, out, match, last))
            continue;
        sbuf b = {0};
        ir_print_id(&b, last->id);
        err_failb(&c->f->err, WF_ERR_SCHEDULE,
                  "T%d: a vector access of %lld elements may run past the end of %s, which the "
                  "schedule does not split into whole vectors; vector accesses cannot be "
                  "predicated element by element",
                  out->id, (long long)width, sbuf_str(&b));
        sbuf_free(&b);
        return false;
    }
    return true;
}

/* Indices and predicates are int64 arithmetic on both backends: one that
   can overflow for in-range loop indices (a split by a huge factor makes a
   loop whose index times its stride passes 2^63) would wrap on the GPU.
   Refused where the ranges are known; run-time sizes are checked when the
   executor evaluates them. */
static bool fits_int64(index_env *e, kir_node *s) {
    const kir_stmt *st = &s->u.stmt;
    bool over = val_may_overflow(st->out_index) || (st->pred && val_may_overflow(st->pred));
    for (int k = 0; k < st->op->nin && !over; k++)
        over = val_may_overflow(st->in_index[k]);
    if (!over)
        return true;
    return err_failb(&e->c->f->err, WF_ERR_SCHEDULE,
                     "T%d: an index or bounds check of T%d's statement can pass 2^63 for loop "
                     "indices in range (a split by a huge factor?); use smaller split factors",
                     st->op->out->id, st->op->out->id);
}

static bool index_stmt(index_env *e, kir_node *s) {
    ir_op *op = s->u.stmt.op;
    kir_node *vl = vector_loop(s);
    if (vl && !check_vector(e, s, vl))
        return false;
    /* An 8x8-matrix copy runs unpredicated inside its shared tile (copy_ldmatrix.c). */
    if (vl && vl->u.loop.vector && !lower_copy_matrix(op) &&
        !check_vector_tail(e, s, s->u.stmt.vec))
        return false;
    for (int k = 0; k < (kir_red_no_input(s->u.stmt.red) ? 0 : op->nin); k++) {
        s->u.stmt.in_index[k] = access_index(e, s, op->in[k], NULL);
        if (!s->u.stmt.in_index[k])
            return false;
    }
    s->u.stmt.out_index = access_index(e, s, op->out, NULL);
    s->u.stmt.pred = e->pred;
    return s->u.stmt.out_index != NULL && fits_int64(e, s);
}

bool lower_index(lower_ctx *c) {
    index_env e = {.c = c,
                   .idx = ARENA_ARRAY(c->a, const wf_val *, c->f->ids.n + 1),
                   .touched = ARENA_ARRAY(c->a, int, c->f->ids.n + 1)};
    e.tfs = an_unique_transforms(&c->g.exact, c->f, c->a, &e.ntfs);
    if (!e.idx || !e.touched || !e.tfs)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    e.extent1_group = ARENA_ARRAY(c->a, bool, c->f->ids.n + 1);
    if (!e.extent1_group)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < c->f->ids.n; i++)
        if (val_is_const_eq(c->f->ids.ptr[i]->extent, 1))
            e.extent1_group[an_find(&c->g.exact, i)] = true;
    for (int i = 0; i < e.ntfs; i++)
        e.has_extent1_split |= e.tfs[i]->kind == TF_SPLIT &&
                               e.extent1_group[an_find(&c->g.exact, e.tfs[i]->in[0]->id)];
    for (int k = 0; k < c->order.n; k++)
        if ((c->init_of[k] && !index_stmt(&e, c->init_of[k])) || !index_stmt(&e, c->stmt_of[k]) ||
            (c->final_of[k] && !index_stmt(&e, c->final_of[k])))
            return false;
    return true;
}

/* ---- indices of chosen IterDomains (TMA's coordinates, lower/tma.c) ---- */

/* The walk of statement s toward tv's allocation, with the loops in `over`
   taking the values `vals` instead of their own; writes the index of each of
   ids[0..nids) (NULL where the walk does not reach it) and returns tv's
   linear index (NULL on error). */
const wf_val *lower_index_ids(lower_ctx *c, kir_node *s, wf_tv *tv, int nover,
                              const kir_node *const *over, const wf_val *const *vals, int nids,
                              const wf_iterdomain *const *ids, const wf_val **out) {
    index_env e = {.c = c,
                   .idx = ARENA_ARRAY(c->a, const wf_val *, c->f->ids.n + 1),
                   .touched = ARENA_ARRAY(c->a, int, c->f->ids.n + 1)};
    e.tfs = an_unique_transforms(&c->g.exact, c->f, c->a, &e.ntfs);
    lower_layout l;
    if (!e.idx || !e.touched || !e.tfs)
        return err_fail(&c->f->err, WF_ERR_MEMORY, "out of memory");
    if (!lower_layout_of(c, tv, &l))
        return NULL;
    for (kir_node *n = s->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || loop_only_position(c, s, n))
            continue;
        const wf_val *v = n->u.loop.var;
        for (int i = 0; i < nover; i++)
            v = over[i] == n ? vals[i] : v;
        put(&e, n->u.loop.id, v);
    }
    propagate(&e, tv, &l);
    e.lenient = true;
    for (int i = 0; i < nids; i++)
        out[i] = get(&e, ids[i]);
    return linearize(&e, s, tv, &l);
}
