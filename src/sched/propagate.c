/*
 * propagate.c -- replay a reference tensor's schedule onto the others, and
 * copy its parallel types.
 *
 * propagate_transforms walks a spanning tree of producer/consumer edges
 * from the reference, preferring edges that map the most dims (nvFuser's
 * MaxLogicalDomainInfoSpanningTree, simplified to edge weights). Along each
 * edge the already-scheduled side's logical IDs are mapped to the other
 * side's, and the transforms from its logical to its loop domain are
 * replayed in creation order on the target's logical domain, reusing an
 * existing identical transform when there is one (so IDs stay stable). A
 * merge with one missing input passes the other through (broadcast dims the
 * target lacks). The target's loop domain follows the source's order where
 * mapped; unmapped target IDs go last.
 */
#include "sched/sched.h"

#include <stdlib.h>
#include <string.h>

/* Side tables of one propagation, indexed by IterDomain / transform id. They
   grow as replays create IDs, and only the entries an edge wrote are cleared
   afterwards, so a long chain of tensors costs time linear in its length. */
typedef struct {
    wf_iterdomain **to; /* per source-side ID id: the target-side ID, or NULL */
    int cap;
    char *seen; /* per transform id: already in the history being collected */
    int seen_cap;
    VEC(int) touched;      /* ids written in `to` by the current edge */
    VEC(int) seen_touched; /* ids written in `seen` */
    bool lost;             /* a `touched` push failed: clear everything */
} idmap;

static bool grow_zeroed(void **p, int *cap, int need, size_t elem) {
    if (need <= *cap)
        return true;
    int ncap = *cap ? *cap : 1024;
    while (ncap < need)
        ncap *= 2;
    void *q = realloc(*p, (size_t)ncap * elem);
    if (!q)
        return false;
    memset((char *)q + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
    *p = q;
    *cap = ncap;
    return true;
}

static void map_set(idmap *m, int id, wf_iterdomain *to) {
    if (!m->to[id] && !vec_push_heap(&m->touched, id))
        m->lost = true;
    m->to[id] = to;
}

static void map_clear(idmap *m) {
    if (m->lost)
        memset(m->to, 0, (size_t)m->cap * sizeof *m->to);
    m->lost = false;
    for (int i = 0; i < m->touched.n; i++)
        m->to[m->touched.ptr[i]] = NULL;
    for (int i = 0; i < m->seen_touched.n; i++)
        m->seen[m->seen_touched.ptr[i]] = 0;
    m->touched.n = m->seen_touched.n = 0;
}

static void map_free(idmap *m) {
    free(m->to);
    free(m->seen);
    vec_free(&m->touched);
    vec_free(&m->seen_touched);
}

/* Map the logical IDs of `from` to those of `to` across the op between them. */
static void map_edge(wf_tv *from, wf_tv *to, ir_op *op, idmap *m) {
    bool to_is_consumer = op->out == to;
    for (int k = 0; k < op->nin; k++) {
        wf_tv *in = op->in[k];
        if (in != (to_is_consumer ? from : to))
            continue;
        for (int d = 0; d < op->out->logical.n; d++) {
            int s = op->in_dim[k][d];
            if (s < 0)
                continue;
            /* Broadcast IDs map too (permissively): a broadcast operand then gets the
               same merges as the tensor it is broadcast against, so it can be inlined. */
            wf_iterdomain *a = in->logical.ptr[s], *b = op->out->logical.ptr[d];
            if (to_is_consumer)
                map_set(m, a->id, b);
            else
                map_set(m, b->id, a);
        }
    }
}

/* How many dims the edge (op, input k) maps: the weight of the spanning tree. */
static int edge_weight(const ir_op *op, int k) {
    int n = 0;
    for (int d = 0; d < op->out->logical.n; d++)
        n += op->in_dim[k][d] >= 0;
    return n;
}

static bool in_list(const id_list *l, const wf_iterdomain *id) {
    for (int i = 0; i < l->n; i++)
        if (l->ptr[i] == id)
            return true;
    return false;
}

static int cmp_transform(const void *x, const void *y) {
    const id_transform *a = *(id_transform *const *)x, *b = *(id_transform *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

typedef VEC(id_transform *) tf_list;
typedef VEC(wf_iterdomain *) id_stack;

/* The transforms from `tv`'s logical domain to its loop domain, in creation
   order, into *out (heap). False when memory runs out. */
static bool loop_history(wf_tv *tv, tf_list *out, idmap *m) {
    id_stack stack = {0};
    bool ok = true;
    out->n = 0;
    for (int i = 0; ok && i < tv->loop.n; i++)
        ok = vec_push_heap(&stack, tv->loop.ptr[i]);
    while (ok && stack.n > 0) {
        wf_iterdomain *id = stack.ptr[--stack.n];
        id_transform *t = id->def;
        if (!t || in_list(&tv->logical, id) || m->seen[t->id])
            continue;
        m->seen[t->id] = 1;
        ok = vec_push_heap(&m->seen_touched, t->id) && vec_push_heap(out, t);
        for (int i = 0; ok && i < t->nin; i++)
            ok = vec_push_heap(&stack, t->in[i]);
    }
    vec_free(&stack);
    if (ok && out->n > 1)
        qsort(out->ptr, (size_t)out->n, sizeof *out->ptr, cmp_transform);
    return ok;
}

static id_transform *replay_one(wf_fusion *f, const id_transform *t, wf_iterdomain *x,
                                wf_iterdomain *y) {
    id_transform *r = ir_find_use(x, y, t->kind, t->factor, t->inner);
    if (r)
        return r;
    switch (t->kind) {
    case TF_SPLIT:
        return ir_split(f, x, t->factor, t->inner);
    case TF_MERGE:
        return ir_merge(f, x, y);
    default:
        return ir_swizzle(f, x, y);
    }
}

static bool replay_step(wf_fusion *f, const id_transform *t, idmap *m) {
    wf_iterdomain *x = m->to[t->in[0]->id], *y = t->nin > 1 ? m->to[t->in[1]->id] : NULL;
    if (t->kind == TF_MERGE && (!x || !y)) {
        if (x || y)
            map_set(m, t->out[0]->id, x ? x : y);
        return true;
    }
    if (!x || (t->nin > 1 && !y))
        return true;
    if (t->kind == TF_SWIZZLE && !ir_swizzle_ok(x, y)) {
        /* A broadcast (extent 1) cannot be swizzled: keep both axes as they are. */
        map_set(m, t->out[0]->id, x);
        map_set(m, t->out[1]->id, y);
        return true;
    }
    id_transform *r = replay_one(f, t, x, y);
    if (!r)
        return false;
    for (int k = 0; k < t->nout; k++)
        map_set(m, t->out[k]->id, r->out[k]);
    return true;
}

static bool replay(wf_tv *from, idmap *m) {
    tf_list hist = {0};
    bool ok = loop_history(from, &hist, m);
    if (!ok)
        err_fail(&from->f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; ok && i < hist.n; i++)
        ok = replay_step(from->f, hist.ptr[i], m);
    vec_free(&hist);
    return ok;
}

/* Is `id` derived from (or equal to) a member of `l`? Used to keep leftovers. */
static bool covered(const wf_iterdomain *id, const id_list *l) {
    if (in_list(l, id))
        return true;
    for (int i = 0; i < id->uses.n; i++) {
        const id_transform *t = id->uses.ptr[i];
        for (int k = 0; k < t->nout; k++)
            if (covered(t->out[k], l))
                return true;
    }
    return false;
}

static bool set_loop(wf_tv *from, wf_tv *to, idmap *m) {
    wf_fusion *f = to->f;
    id_list next = {0};
    for (int i = 0; i < from->loop.n; i++) {
        wf_iterdomain *t = m->to[from->loop.ptr[i]->id];
        if (t && !in_list(&next, t) && !ir_push_id(f, &next, t))
            return false;
    }
    /* Target logical IDs that no replayed loop ID covers stay as loops of their own. */
    for (int i = 0; i < to->logical.n; i++) {
        wf_iterdomain *id = to->logical.ptr[i];
        if (!covered(id, &next) && !ir_push_id(f, &next, id))
            return false;
    }
    to->loop = next;
    if (to->ca_pos > to->loop.n)
        to->ca_pos = to->loop.n;
    return true;
}

/* Is `next` a refinement of `old`: every old loop ID is kept or split further,
   and no new loop ID is an ancestor of an old one (which would undo a split)? */
static bool refines(const id_list *next, const id_list *old) {
    for (int i = 0; i < old->n; i++)
        if (!covered(old->ptr[i], next))
            return false;
    for (int i = 0; i < next->n; i++)
        if (!in_list(old, next->ptr[i]) && covered(next->ptr[i], old))
            return false;
    return true;
}

/* An rfactor producer's loop domain holds its rfactor: the axes it reduces
   and the partial-result axes (iteration IDs made from the reduction's
   logical IDs) its consumer reads through rf_in. A replay starts again from
   the logical domain, where those axes are one reduction ID, so a loop that
   does not refine the old one would reduce the partials in the producer and
   again in the consumer (the result times the partial axis's extent). Such a
   producer keeps its own schedule; the propagation goes on from it. */
static void keep_rfactor(wf_tv *to, const id_list *old, int old_ca) {
    if (!sched_rfactor_reader(to) || refines(&to->loop, old))
        return;
    to->loop = *old;
    to->ca_pos = old_ca;
}

static bool propagate_edge(wf_tv *from, wf_tv *to, ir_op *op, idmap *m) {
    wf_fusion *f = from->f;
    id_list old = to->loop;
    int old_ca = to->ca_pos;
    /* Replays index the tables by ids that exist now (the source side's). */
    if (!grow_zeroed((void **)&m->to, &m->cap, f->ids.n, sizeof *m->to) ||
        !grow_zeroed((void **)&m->seen, &m->seen_cap, f->transforms.n, 1))
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    map_edge(from, to, op, m);
    bool ok = replay(from, m) && set_loop(from, to, m);
    if (ok)
        keep_rfactor(to, &old, old_ca);
    map_clear(m);
    return ok;
}

bool sched_replay_onto(wf_tv *from, wf_tv *to, ir_op *op, wf_iterdomain **slot, id_list *full) {
    wf_fusion *f = from->f;
    idmap m = {0};
    if (!grow_zeroed((void **)&m.to, &m.cap, f->ids.n, sizeof *m.to) ||
        !grow_zeroed((void **)&m.seen, &m.seen_cap, f->transforms.n, 1)) {
        map_free(&m);
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    map_edge(from, to, op, &m);
    id_list old = to->loop;
    int old_ca = to->ca_pos;
    bool ok = replay(from, &m) && set_loop(from, to, &m);
    for (int i = 0; ok && i < from->loop.n; i++)
        slot[i] = m.to[from->loop.ptr[i]->id];
    if (ok)
        *full = to->loop;
    to->loop = old; /* the caller decides the loop domain */
    to->ca_pos = old_ca;
    map_free(&m);
    return ok;
}

/* ---- the spanning tree: Prim's algorithm over a heap of candidate edges ---- */

typedef struct {
    ir_op *op;
    int k;      /* the edge is op->in[k] -- op->out */
    int weight; /* dims it maps */
} edge;

/* Heap order: most mapped dims first, then the first op (and input) created,
   so the tree does not depend on the heap's internals. */
static bool before(const edge *a, const edge *b) {
    if (a->weight != b->weight)
        return a->weight > b->weight;
    return a->op->id != b->op->id ? a->op->id < b->op->id : a->k < b->k;
}

typedef VEC(edge) edge_heap;

static bool heap_push(edge_heap *h, edge e) {
    if (!vec_push_heap(h, e))
        return false;
    for (int i = h->n - 1; i > 0 && before(&h->ptr[i], &h->ptr[(i - 1) / 2]); i = (i - 1) / 2) {
        edge s = h->ptr[i];
        h->ptr[i] = h->ptr[(i - 1) / 2];
        h->ptr[(i - 1) / 2] = s;
    }
    return true;
}

static edge heap_pop(edge_heap *h) {
    edge top = h->ptr[0];
    h->ptr[0] = h->ptr[--h->n];
    for (int i = 0;;) {
        int l = 2 * i + 1, r = l + 1, b = i;
        if (l < h->n && before(&h->ptr[l], &h->ptr[b]))
            b = l;
        if (r < h->n && before(&h->ptr[r], &h->ptr[b]))
            b = r;
        if (b == i)
            break;
        edge s = h->ptr[i];
        h->ptr[i] = h->ptr[b];
        h->ptr[b] = s;
        i = b;
    }
    return top;
}

/* Push every edge between tv and a tensor not yet reached. */
static bool push_edges(edge_heap *h, const wf_tv *tv, const char *done) {
    bool ok = true;
    const ir_op *def = tv->def;
    for (int k = 0; ok && def && k < def->nin; k++)
        if (!done[def->in[k]->id])
            ok = heap_push(h, (edge){tv->def, k, edge_weight(def, k)});
    for (int i = 0; ok && i < tv->uses.n; i++) {
        ir_op *op = tv->uses.ptr[i];
        for (int k = 0; ok && k < op->nin; k++)
            if (op->in[k] == tv && !done[op->out->id])
                ok = heap_push(h, (edge){op, k, edge_weight(op, k)});
    }
    return ok;
}

bool sched_propagate(wf_tv *ref) {
    wf_fusion *f = ref->f;
    idmap m = {0};
    edge_heap heap = {0};
    char *done = calloc((size_t)f->tvs.n + 1, 1);
    bool ok = done && push_edges(&heap, ref, done);
    if (done)
        done[ref->id] = 1;
    if (!ok)
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    while (ok && heap.n > 0) {
        edge e = heap_pop(&heap);
        wf_tv *a = e.op->in[e.k], *b = e.op->out;
        if (done[a->id] && done[b->id])
            continue; /* reached another way since it was pushed */
        wf_tv *from = done[a->id] ? a : b, *to = done[a->id] ? b : a;
        done[to->id] = 1;
        ok = propagate_edge(from, to, e.op, &m);
        if (ok && !push_edges(&heap, to, done))
            ok = err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    free(done);
    vec_free(&heap);
    map_free(&m);
    return ok && !err_set(&f->err);
}

bool sched_parallelize_all_like(wf_tv *ref, unsigned ptype_mask) {
    wf_fusion *f = ref->f;
    wf_arena scratch;
    arena_init(&scratch);
    an_idgraph g;
    bool ok = an_idgraph_build(&g, f, &scratch);
    for (int t = 0; ok && t < f->tvs.n; t++) {
        wf_tv *tv = f->tvs.ptr[t];
        if (tv == ref || tv->is_input)
            continue;
        for (int i = 0; i < tv->loop.n; i++) {
            wf_iterdomain *id = tv->loop.ptr[i];
            for (int r = 0; r < ref->loop.n; r++) {
                wf_iterdomain *rid = ref->loop.ptr[r];
                bool selected = !ptype_mask || (ptype_mask & (1u << rid->ptype));
                if (selected && an_mapped(&g.exact, id, rid) && id->itype != IT_BROADCAST)
                    id->ptype = rid->ptype;
            }
        }
    }
    arena_free(&scratch);
    return ok;
}
