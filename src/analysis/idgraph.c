/*
 * idgraph.c -- the exact and permissive IterDomain maps, and the
 * self-mapping check.
 *
 * Seeds: for every live op (one whose output reaches a fusion output; every
 * op while the fusion has no outputs yet), each output root ID is unioned
 * with the input logical ID it reads (exact only when neither or both are
 * broadcast; permissive always). Dead ops are left out on purpose: an op
 * nobody computes must not map IDs that indexing then treats as one.
 * Then, to a fixed point, two transforms of the same kind and parameters
 * whose inputs are pairwise mapped get their outputs mapped. Each round
 * hashes every transform by (kind, parameters, groups of its inputs), so a
 * round is linear and a long chain needs only a few rounds.
 * This is what makes a producer scheduled like its consumer share index
 * expressions and loops with it.
 */
#include "analysis/analysis.h"

#include <stdio.h>

int an_find(an_map *m, int id) {
    while (m->parent[id] != id) {
        m->parent[id] = m->parent[m->parent[id]];
        id = m->parent[id];
    }
    return id;
}

bool an_unite(an_map *m, int a, int b) {
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

bool an_map_init(an_map *m, int n, wf_arena *scratch) {
    m->n = n;
    m->parent = ARENA_ARRAY(scratch, int, n > 0 ? n : 1);
    if (!m->parent)
        return false;
    for (int i = 0; i < n; i++)
        m->parent[i] = i;
    return true;
}

/* Per tensor id: does it reach a fusion output? Iterative, so that a long
   chain cannot overflow the C stack. */
static char *live_tensors(wf_fusion *f, wf_arena *scratch) {
    char *live = ARENA_ARRAY(scratch, char, f->tvs.n + 1);
    wf_tv **stack = ARENA_ARRAY(scratch, wf_tv *, f->tvs.n + 1);
    if (!live || !stack)
        return NULL;
    int n = 0;
    for (int i = 0; i < f->outputs.n; i++)
        if (!live[f->outputs.ptr[i]->id]++)
            stack[n++] = f->outputs.ptr[i];
    for (int i = 0; f->outputs.n == 0 && i < f->tvs.n; i++)
        live[i] = 1;
    while (n > 0) {
        wf_tv *tv = stack[--n];
        for (int k = 0; tv->def && k < tv->def->nin; k++)
            if (!live[tv->def->in[k]->id]++)
                stack[n++] = tv->def->in[k];
    }
    return live;
}

static void seed_ops(an_map *m, wf_fusion *f, const char *live, bool permissive) {
    for (int i = 0; i < f->ops.n; i++) {
        ir_op *op = f->ops.ptr[i];
        if (!live[op->out->id])
            continue;
        for (int k = 0; k < op->nin; k++) {
            for (int d = 0; d < op->out->logical.n; d++) {
                int s = op->in_dim[k][d];
                wf_iterdomain *rf = k == 0 && op->rf_in ? op->rf_in[d] : NULL;
                if (s < 0 && rf) /* rfactor: a partial result, an exact pair */
                    an_unite(m, rf->id, op->out->logical.ptr[d]->id);
                if (s < 0)
                    continue;
                wf_iterdomain *in = op->in[k]->logical.ptr[s], *out = op->out->logical.ptr[d];
                /* A broadcast and an axis of extent 1 both only have index 0. */
                bool same_kind =
                    (in->itype == IT_BROADCAST) == (out->itype == IT_BROADCAST) ||
                    (val_is_const_eq(in->extent, 1) && val_is_const_eq(out->extent, 1));
                if (permissive || same_kind)
                    an_unite(m, in->id, out->id);
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

static uint64_t transform_hash(an_map *m, const id_transform *t) {
    uint64_t h = 1469598103934665603ull;
    uint64_t parts[5] = {(uint64_t)t->kind, (uint64_t)t->factor, (uint64_t)t->inner,
                         (uint64_t)an_find(m, t->in[0]->id),
                         t->nin > 1 ? (uint64_t)an_find(m, t->in[1]->id) + 1 : 0};
    for (int i = 0; i < 5; i++)
        h = (h ^ parts[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

/* One round: transforms equal under the current map get their outputs
   united (with the first such transform). Returns whether anything changed. */
static bool close_round(an_map *m, wf_fusion *f, int *table, size_t cap) {
    bool changed = false;
    for (size_t i = 0; i < cap; i++)
        table[i] = -1;
    for (int i = 0; i < f->transforms.n; i++) {
        id_transform *t = f->transforms.ptr[i];
        size_t h = (size_t)transform_hash(m, t) & (cap - 1);
        while (table[h] >= 0 && !same_transform(m, f->transforms.ptr[table[h]], t))
            h = (h + 1) & (cap - 1);
        if (table[h] < 0) {
            table[h] = i;
            continue;
        }
        id_transform *first = f->transforms.ptr[table[h]];
        for (int k = 0; k < t->nout; k++)
            changed |= an_unite(m, first->out[k]->id, t->out[k]->id);
    }
    return changed;
}

static bool close_over_transforms(an_map *m, wf_fusion *f, wf_arena *scratch) {
    size_t cap = 16;
    while (cap < 2 * (size_t)f->transforms.n)
        cap *= 2;
    int *table = ARENA_ARRAY(scratch, int, cap);
    if (!table)
        return false;
    while (close_round(m, f, table, cap))
        ;
    return true;
}

/* An axis of extent 1 (a broadcast's new axis, or an iteration axis of
   extent 1): its loop runs once. A broadcast axis of another extent (the
   outer part of a broadcast split outer by 6 is bS{6}) runs its loop that
   many times: a merge with it is not its other input. */
static bool index_zero(const wf_iterdomain *id) {
    return val_is_const_eq(id->extent, 1) && !id->loop_only;
}

/* Permissively, a merge with an axis of extent 1 is its other input:
   merge(b{1}, I) iterates I. A broadcast's
   consumer merges the new broadcast axis with an axis its producer merges with
   nothing (nvFuser's broadcast forwarding): without this, the producer's axis
   and the consumer's merged one map to nothing, and the producer could not be
   inlined into the consumer's loops. Returns whether anything changed. */
static bool forward_trivial_merges(an_map *m, wf_fusion *f) {
    bool changed = false;
    for (int i = 0; i < f->transforms.n; i++) {
        const id_transform *t = f->transforms.ptr[i];
        if (t->kind != TF_MERGE)
            continue;
        if (index_zero(t->in[0]))
            changed |= an_unite(m, t->out[0]->id, t->in[1]->id);
        else if (index_zero(t->in[1]))
            changed |= an_unite(m, t->out[0]->id, t->in[0]->id);
    }
    return changed;
}

bool an_idgraph_build(an_idgraph *g, wf_fusion *f, wf_arena *scratch) {
    char *live = live_tensors(f, scratch);
    if (!live || !an_map_init(&g->exact, f->ids.n, scratch) ||
        !an_map_init(&g->permissive, f->ids.n, scratch))
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    g->live = live;
    g->scratch = scratch;
    g->crossing = NULL;
    g->ncrossing = -1;
    seed_ops(&g->exact, f, live, false);
    seed_ops(&g->permissive, f, live, true);
    if (!close_over_transforms(&g->exact, f, scratch))
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    /* Exactly mapped IDs are permissively mapped too. */
    for (int i = 0; i < f->ids.n; i++)
        an_unite(&g->permissive, i, an_find(&g->exact, i));
    do
        if (!close_over_transforms(&g->permissive, f, scratch))
            return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    while (forward_trivial_merges(&g->permissive, f));
    g->reductions = ARENA_ARRAY(scratch, wf_tv *, f->tvs.n + 1);
    if (!g->reductions)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    g->nreductions = 0;
    for (int i = 0; i < f->tvs.n; i++)
        if (f->tvs.ptr[i]->def && f->tvs.ptr[i]->def->kind == OP_REDUCE)
            g->reductions[g->nreductions++] = f->tvs.ptr[i];
    return true;
}

/* An ID whose index is always 0 may share a group with anything. */
static bool always_zero(const wf_iterdomain *id) {
    return id->itype == IT_BROADCAST || val_is_const_eq(id->extent, 1);
}

static bool self_mapped(an_idgraph *g, const wf_tv *tv, const id_list *dom) {
    for (int i = 0; i < dom->n; i++)
        for (int j = i + 1; j < dom->n; j++) {
            const wf_iterdomain *a = dom->ptr[i], *b = dom->ptr[j];
            if (always_zero(a) || always_zero(b) || !an_mapped(&g->exact, a, b))
                continue;
            sbuf sa = {0}, sb = {0};
            ir_print_id(&sa, a);
            ir_print_id(&sb, b);
            err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                      "T%d maps to itself: its IterDomains %s and %s are exactly mapped through "
                      "the fusion's ops (e.g. a tensor combined with its own transpose, permute or "
                      "second broadcast), so one loop or index cannot tell them apart; compute one "
                      "of the operands in a separate fusion and pass it in as an input",
                      tv->id, sbuf_str(&sa), sbuf_str(&sb));
            sbuf_free(&sa);
            sbuf_free(&sb);
            return true;
        }
    return false;
}

bool an_check_self_mapping(an_idgraph *g, wf_fusion *f) {
    for (int i = 0; i < f->tvs.n; i++) {
        const wf_tv *tv = f->tvs.ptr[i];
        if (self_mapped(g, tv, &tv->logical) || self_mapped(g, tv, &tv->loop))
            return false;
    }
    return true;
}

/* Same kind, parameters, input and output groups: walking either one
   computes the same indices. */
static bool same_class(an_map *m, const id_transform *a, const id_transform *b) {
    if (!same_transform(m, a, b) || a->nout != b->nout)
        return false;
    for (int i = 0; i < a->nout; i++)
        if (an_find(m, a->out[i]->id) != an_find(m, b->out[i]->id))
            return false;
    return true;
}

id_transform **an_unique_transforms(an_map *m, wf_fusion *f, wf_arena *a, int *n) {
    size_t cap = 16;
    while (cap < 2 * (size_t)f->transforms.n)
        cap *= 2;
    int *table = ARENA_ARRAY(a, int, cap);
    id_transform **out = ARENA_ARRAY(a, id_transform *, f->transforms.n + 1);
    if (!table || !out)
        return NULL;
    for (size_t i = 0; i < cap; i++)
        table[i] = -1;
    int count = 0;
    /* Latest first, so the kept one is the latest of its class. */
    for (int i = f->transforms.n - 1; i >= 0; i--) {
        id_transform *t = f->transforms.ptr[i];
        size_t h = (size_t)transform_hash(m, t) & (cap - 1);
        while (table[h] >= 0 && !same_class(m, f->transforms.ptr[table[h]], t))
            h = (h + 1) & (cap - 1);
        if (table[h] >= 0)
            continue;
        table[h] = i;
        out[count++] = t;
    }
    /* Back to creation order. */
    for (int i = 0; i < count / 2; i++) {
        id_transform *x = out[i];
        out[i] = out[count - 1 - i];
        out[count - 1 - i] = x;
    }
    *n = count;
    return out;
}
