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

#include <string.h>

typedef struct {
    wf_iterdomain **to; /* per source-side ID id: the target-side ID, or NULL */
} idmap;

/* Map the logical IDs of `from` to those of `to` across the op between them. */
static int map_edge(wf_tv *from, wf_tv *to, ir_op *op, idmap *m) {
    int n = 0;
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
                m->to[a->id] = b;
            else
                m->to[b->id] = a;
            n++;
        }
    }
    return n;
}

static bool in_list(const id_list *l, const wf_iterdomain *id) {
    for (int i = 0; i < l->n; i++)
        if (l->ptr[i] == id)
            return true;
    return false;
}

/* The transforms from `tv`'s logical domain to its loop domain, in creation order. */
static int loop_history(wf_tv *tv, id_transform **out, int max, char *seen) {
    int n = 0;
    wf_iterdomain *stack[256];
    int sp = 0;
    for (int i = 0; i < tv->loop.n; i++)
        stack[sp++] = tv->loop.ptr[i];
    while (sp > 0) {
        wf_iterdomain *id = stack[--sp];
        id_transform *t = id->def;
        if (!t || in_list(&tv->logical, id) || seen[t->id] || n == max)
            continue;
        seen[t->id] = 1;
        out[n++] = t;
        for (int i = 0; i < t->nin && sp < 254; i++)
            stack[sp++] = t->in[i];
    }
    for (int i = 1; i < n; i++) /* insertion sort by id = creation order */
        for (int j = i; j > 0 && out[j - 1]->id > out[j]->id; j--) {
            id_transform *s = out[j];
            out[j] = out[j - 1];
            out[j - 1] = s;
        }
    return n;
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

static bool replay(wf_tv *from, idmap *m, char *seen) {
    wf_fusion *f = from->f;
    id_transform *hist[256];
    memset(seen, 0, (size_t)f->transforms.n + 1);
    int n = loop_history(from, hist, 256, seen);
    for (int i = 0; i < n; i++) {
        const id_transform *t = hist[i];
        wf_iterdomain *x = m->to[t->in[0]->id], *y = t->nin > 1 ? m->to[t->in[1]->id] : NULL;
        if (t->kind == TF_MERGE && (!x || !y)) {
            if (x || y)
                m->to[t->out[0]->id] = x ? x : y;
            continue;
        }
        if (!x || (t->nin > 1 && !y))
            continue;
        if (t->kind == TF_SWIZZLE && !ir_swizzle_ok(x, y)) {
            /* A broadcast (extent 1) cannot be swizzled: keep both axes as they are. */
            m->to[t->out[0]->id] = x;
            m->to[t->out[1]->id] = y;
            continue;
        }
        id_transform *r = replay_one(f, t, x, y);
        if (!r)
            return false;
        for (int k = 0; k < t->nout; k++)
            m->to[t->out[k]->id] = r->out[k];
    }
    return true;
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

static bool propagate_edge(wf_tv *from, wf_tv *to, ir_op *op, idmap *m, char *seen) {
    memset(m->to, 0, sizeof(*m->to) * (size_t)from->f->ids.n);
    map_edge(from, to, op, m);
    if (!replay(from, m, seen))
        return false;
    return set_loop(from, to, m);
}

typedef struct {
    wf_tv *from, *to;
    ir_op *op;
    int weight;
} edge;

static int collect_edges(wf_fusion *f, const char *done, edge *out, int max, idmap *m) {
    int n = 0;
    for (int i = 0; i < f->ops.n; i++) {
        ir_op *op = f->ops.ptr[i];
        for (int k = 0; k < op->nin; k++) {
            wf_tv *a = op->in[k], *b = op->out;
            if (done[a->id] == done[b->id] || n == max)
                continue;
            edge e = {done[a->id] ? a : b, done[a->id] ? b : a, op, 0};
            memset(m->to, 0, sizeof(*m->to) * (size_t)f->ids.n);
            e.weight = map_edge(e.from, e.to, op, m);
            out[n++] = e;
        }
    }
    return n;
}

bool sched_propagate(wf_tv *ref) {
    wf_fusion *f = ref->f;
    wf_arena scratch;
    arena_init(&scratch);
    /* Replays create IDs; size the side tables generously and grow by restarting rarely. */
    int cap = f->ids.n * 4 + 1024, tcap = f->transforms.n * 4 + 1024;
    idmap m = {ARENA_ARRAY(&scratch, wf_iterdomain *, cap)};
    char *done = ARENA_ARRAY(&scratch, char, f->tvs.n + 1);
    char *seen = ARENA_ARRAY(&scratch, char, tcap);
    edge edges[256];
    bool ok = m.to && done && seen;
    if (!ok)
        wf_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    if (ok)
        done[ref->id] = 1;
    while (ok) {
        if (f->ids.n + 512 > cap || f->transforms.n + 512 > tcap) {
            ok = wf_failb(&f->err, WF_ERR_UNSUPPORTED, "propagate_transforms: fusion too large");
            break;
        }
        int n = collect_edges(f, done, edges, 256, &m), best = -1;
        for (int i = 0; i < n; i++)
            if (best < 0 || edges[i].weight > edges[best].weight)
                best = i;
        if (best < 0)
            break;
        edge e = edges[best];
        done[e.to->id] = 1;
        ok = propagate_edge(e.from, e.to, e.op, &m, seen);
    }
    arena_free(&scratch);
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
