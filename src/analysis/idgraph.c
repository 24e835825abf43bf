/*
 * idgraph.c -- the exact and permissive IterDomain maps.
 *
 * Seeds: for every op, each output root ID is unioned with the input logical
 * ID it reads (exact only when neither or both are broadcast; permissive
 * always). Then, to a fixed point, two transforms of the same kind and
 * parameters whose inputs are pairwise mapped get their outputs mapped.
 * This is what makes a producer scheduled like its consumer share index
 * expressions and loops with it.
 */
#include "analysis/analysis.h"

int an_find(an_map *m, int id) {
    while (m->parent[id] != id) {
        m->parent[id] = m->parent[m->parent[id]];
        id = m->parent[id];
    }
    return id;
}

static bool unite(an_map *m, int a, int b) {
    a = an_find(m, a);
    b = an_find(m, b);
    if (a == b)
        return false;
    if (a < b)
        m->parent[b] = a;
    else
        m->parent[a] = b;
    return true;
}

static bool map_init(an_map *m, int n, wf_arena *scratch) {
    m->n = n;
    m->parent = ARENA_ARRAY(scratch, int, n > 0 ? n : 1);
    if (!m->parent)
        return false;
    for (int i = 0; i < n; i++)
        m->parent[i] = i;
    return true;
}

static void seed_ops(an_map *m, wf_fusion *f, bool permissive) {
    for (int i = 0; i < f->ops.n; i++) {
        ir_op *op = f->ops.ptr[i];
        for (int k = 0; k < op->nin; k++) {
            for (int d = 0; d < op->out->logical.n; d++) {
                int s = op->in_dim[k][d];
                if (s < 0)
                    continue;
                wf_iterdomain *in = op->in[k]->logical.ptr[s], *out = op->out->logical.ptr[d];
                /* A broadcast and an axis of extent 1 both only have index 0. */
                bool same_kind =
                    (in->itype == IT_BROADCAST) == (out->itype == IT_BROADCAST) ||
                    (val_is_const_eq(in->extent, 1) && val_is_const_eq(out->extent, 1));
                if (permissive || same_kind)
                    unite(m, in->id, out->id);
            }
        }
    }
}

static bool same_transform(an_map *m, const id_transform *a, const id_transform *b) {
    if (a->kind != b->kind || a->nin != b->nin)
        return false;
    if (a->kind == TF_SPLIT && (a->factor != b->factor || a->inner != b->inner))
        return false;
    for (int i = 0; i < a->nin; i++)
        if (an_find(m, a->in[i]->id) != an_find(m, b->in[i]->id))
            return false;
    return true;
}

static void close_over_transforms(an_map *m, wf_fusion *f) {
    bool changed = true;
    while (changed) {
        changed = false;
        for (int i = 0; i < f->transforms.n; i++) {
            id_transform *a = f->transforms.ptr[i];
            for (int j = i + 1; j < f->transforms.n; j++) {
                id_transform *b = f->transforms.ptr[j];
                if (!same_transform(m, a, b))
                    continue;
                for (int k = 0; k < a->nout; k++)
                    changed |= unite(m, a->out[k]->id, b->out[k]->id);
            }
        }
    }
}

bool an_idgraph_build(an_idgraph *g, wf_fusion *f, wf_arena *scratch) {
    if (!map_init(&g->exact, f->ids.n, scratch) || !map_init(&g->permissive, f->ids.n, scratch))
        return wf_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    seed_ops(&g->exact, f, false);
    seed_ops(&g->permissive, f, true);
    close_over_transforms(&g->exact, f);
    /* Exactly mapped IDs are permissively mapped too. */
    for (int i = 0; i < f->ids.n; i++)
        unite(&g->permissive, i, an_find(&g->exact, i));
    close_over_transforms(&g->permissive, f);
    return true;
}
