/*
 * rfactor.c -- splitting a reduction in two (nvFuser's rFactor).
 *
 * tv = reduce(x) with a scheduled loop domain, e.g. [i, r8, r128]. rfactor
 * of the axes {1} makes a new producer p = reduce(x): p's logical domain is
 * a fresh copy of tv's and tv's transforms are replayed onto it, so p's loop
 * domain is [i, r8, i128]: the listed axes stay reductions, the other
 * reduction axes become iteration axes (p holds one partial result per
 * element of them). tv then reduces p: its iteration IDs and their
 * transforms stay as they were (its buffer and consumers see the same
 * dims), its reduction IDs are replaced by new logical reduction IDs, one
 * per remaining reduction axis, each read from p's matching loop ID (the
 * op's rf_in: the IterDomain graph maps them exactly, so indexing finds p's
 * cell). Parallel types are copied. A transform that mixes iteration and
 * reduction IDs (a merge of i and r) cannot be split apart and is refused,
 * as are an empty remainder and axes that are not reductions. tv may be an
 * rfactor producer itself (a two-level partial reduction): its partial axes
 * become logical iteration IDs of tv read from p (see the section below).
 */
#include "sched/sched.h"

#include <stdlib.h>

static bool fail_axis(wf_tv *tv, int axis, const char *why) {
    sbuf b = {0};
    ir_print_id(&b, tv->loop.ptr[axis]);
    err_failb(&tv->f->err, WF_ERR_ARG, "T%d.rfactor: axis %d (%s) %s", tv->id, axis, sbuf_str(&b),
              why);
    sbuf_free(&b);
    return false;
}

/* Which loop axes p reduces; false (with the error) on a bad list. */
static bool pick(wf_tv *tv, int naxes, const int *axes, bool *rf) {
    int kept = 0;
    if (!tv->def || tv->def->kind != OP_REDUCE)
        return err_failb(&tv->f->err, WF_ERR_ARG,
                         "T%d.rfactor: T%d is not defined by a reduction (wf_sum, wf_max, "
                         "wf_reduce)",
                         tv->id, tv->id);
    for (int i = 0; i < naxes; i++) {
        if (rf[axes[i]])
            return fail_axis(tv, axes[i], "is listed twice");
        if (tv->loop.ptr[axes[i]]->itype != IT_REDUCTION)
            return fail_axis(tv, axes[i], "is not a reduction axis");
        rf[axes[i]] = true;
    }
    for (int i = 0; i < tv->loop.n; i++)
        kept += tv->loop.ptr[i]->itype == IT_REDUCTION && !rf[i];
    if (kept == 0)
        return err_failb(&tv->f->err, WF_ERR_ARG,
                         "T%d.rfactor: every reduction axis is listed, so T%d would reduce "
                         "nothing; leave at least one for T%d",
                         tv->id, tv->id, tv->id);
    return true;
}

/* tv's transforms between its logical and loop domains, in creation order. */
static int cmp_tf(const void *x, const void *y) {
    const id_transform *a = *(id_transform *const *)x, *b = *(id_transform *const *)y;
    return (a->id > b->id) - (a->id < b->id);
}

static id_transform **history(wf_tv *tv, int *n) {
    wf_fusion *f = tv->f;
    char *seen = calloc((size_t)f->transforms.n + 1, 1);
    id_transform **out = ARENA_ARRAY(&f->arena, id_transform *, f->transforms.n + 1);
    /* each transform pushes its inputs once, after the loop IDs */
    wf_iterdomain **stack = calloc((size_t)(2 * f->transforms.n + tv->loop.n + 1), sizeof *stack);
    int ns = 0;
    *n = 0;
    for (int i = 0; out && stack && seen && i < tv->loop.n; i++)
        stack[ns++] = tv->loop.ptr[i];
    while (out && stack && seen && ns > 0) {
        id_transform *t = stack[--ns]->def;
        if (!t || seen[t->id])
            continue;
        seen[t->id] = 1;
        out[(*n)++] = t;
        for (int k = 0; k < t->nin; k++)
            stack[ns++] = t->in[k];
    }
    bool ok = out && stack && seen;
    free(seen);
    free(stack);
    if (!ok)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    qsort(out, (size_t)*n, sizeof *out, cmp_tf);
    return out;
}

static bool mixes(const id_transform *t) {
    bool r0 = t->in[0]->itype == IT_REDUCTION;
    return t->nin == 2 && t->in[1]->itype != IT_BROADCAST && t->in[0]->itype != IT_BROADCAST &&
           (t->in[1]->itype == IT_REDUCTION) != r0;
}

/* Replay tv's history onto p (map: tv's ID id -> p's ID). */
static bool replay(wf_tv *tv, id_transform **h, int n, wf_iterdomain **map) {
    wf_fusion *f = tv->f;
    for (int i = 0; i < n; i++) {
        const id_transform *t = h[i];
        wf_iterdomain *x = map[t->in[0]->id], *y = t->nin > 1 ? map[t->in[1]->id] : NULL;
        if (mixes(t))
            return err_failb(&f->err, WF_ERR_UNSUPPORTED,
                             "T%d.rfactor: a merge of an iteration and a reduction axis cannot be "
                             "split into two reductions; merge iteration and reduction axes "
                             "separately",
                             tv->id);
        /* the history's inputs are logical IDs or outputs of earlier transforms */
        err_assert(&f->err, x && (t->nin == 1 || y));
        if (!x || (t->nin > 1 && !y))
            return false;
        id_transform *r = t->kind == TF_SPLIT   ? ir_split(f, x, t->factor, t->inner)
                          : t->kind == TF_MERGE ? ir_merge(f, x, y)
                                                : ir_swizzle(f, x, y);
        if (!r)
            return false;
        for (int k = 0; k < t->nout; k++)
            map[t->out[k]->id] = r->out[k];
    }
    return true;
}

/* p = reduce(x) over a copy of tv's logical domain, scheduled like tv. */
static wf_tv *make_producer(wf_tv *tv, const bool *rf, wf_iterdomain **map, id_transform **h,
                            int nh) {
    wf_fusion *f = tv->f;
    ir_op *op = tv->def;
    int n = tv->logical.n;
    const wf_val *ext[WF_MAX_RANK * 4];
    id_itype it[WF_MAX_RANK * 4];
    for (int d = 0; d < n; d++) {
        ext[d] = tv->logical.ptr[d]->extent;
        it[d] = tv->logical.ptr[d]->itype;
    }
    /* A 16-bit sum or product computes in float (docs/reductions.md): its
       partial results are floats too, rounded once, by tv, not per partial. */
    bool half =
        (tv->dtype == WF_F16 || tv->dtype == WF_BF16) && (op->sub == WF_ADD || op->sub == WF_MUL);
    wf_tv *p = ir_tv_new(f, half ? WF_F32 : tv->dtype, n, ext, it);
    /* A wf_mma's producer multiplies (both inputs); tv then sums its partials. */
    ir_op *po = p ? ir_op_new(f, OP_REDUCE, p, op->nin, op->in) : NULL;
    if (!po)
        return NULL;
    po->sub = op->sub;
    po->rf_in = op->rf_in; /* tv rfactored before: p reads the same partial results */
    for (int d = 0; d < n; d++) {
        for (int k = 0; k < op->nin; k++)
            po->in_dim[k][d] = op->in_dim[k][d];
        map[tv->logical.ptr[d]->id] = p->logical.ptr[d];
    }
    if (!replay(tv, h, nh, map))
        return NULL;
    p->loop.n = 0;
    for (int i = 0; i < tv->loop.n; i++) {
        wf_iterdomain *id = map[tv->loop.ptr[i]->id];
        id->ptype = tv->loop.ptr[i]->ptype;
        if (id->itype == IT_REDUCTION && !rf[i])
            id->itype = IT_ITER; /* a partial result per element */
        if (!ir_push_id(f, &p->loop, id))
            return NULL;
    }
    return p;
}

/* ---- tv an rfactor producer itself (a two-level partial reduction) ----
   Its reader (the op sched_rfactor_reader finds) reads its partial results
   from IDs that tv's transforms made from its logical reduction IDs: its
   partial axes. Rfactored again, tv keeps them as iteration axes but no
   longer reduces the logical IDs they come from, so each becomes a new
   logical iteration ID of tv, read (like its remaining reduction axes) from
   p's copy of it through rf_in; the reader reads the new ID, and the
   transforms tv made of a partial axis since (a split of it) are replayed
   onto the new one. */

typedef struct {
    wf_iterdomain **to; /* tv's partial axis or an ID made of them -> the new ID */
    char *partial;      /* per tv ID id: made of partial axes only */
    int n;              /* ids when made (the tables' size) */
} partials;

static bool is_logical(const wf_tv *tv, const wf_iterdomain *id) {
    for (int d = 0; d < tv->logical.n; d++)
        if (tv->logical.ptr[d] == id)
            return true;
    return false;
}

static bool fail_mixed(wf_tv *tv, const id_transform *t, const ir_op *reader) {
    sbuf b = {0};
    ir_print_id(&b, t->in[0]);
    sbuf_puts(&b, " and ");
    ir_print_id(&b, t->in[1]);
    err_failb(&tv->f->err, WF_ERR_UNSUPPORTED,
              "T%d.rfactor: not supported yet: T%d is an rfactor producer whose axes %s merge "
              "a partial-result axis T%d reads with another axis; rfactor T%d before merging "
              "them, or rfactor the reduction T%d instead",
              tv->id, tv->id, sbuf_str(&b), reader->out->id, tv->id, reader->out->id);
    sbuf_free(&b);
    return false;
}

/* Which of tv's IDs are its partial axes or made of them only; false (with
   the error) when a transform mixes them with others. */
static bool find_partials(wf_tv *tv, id_transform **h, int nh, partials *pa) {
    wf_fusion *f = tv->f;
    pa->n = f->ids.n;
    pa->to = calloc((size_t)pa->n + 1, sizeof *pa->to);
    pa->partial = calloc((size_t)pa->n + 1, 1);
    if (!pa->to || !pa->partial)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    const ir_op *reader = sched_rfactor_reader(tv);
    for (int u = 0; reader && u < tv->uses.n; u++) {
        const ir_op *op = tv->uses.ptr[u];
        for (int d = 0; op->rf_in && op->in[0] == tv && d < op->out->logical.n; d++)
            if (op->in_dim[0][d] < 0 && op->rf_in[d] && !is_logical(tv, op->rf_in[d]))
                pa->partial[op->rf_in[d]->id] = 1; /* a logical one is kept as it is */
    }
    for (int i = 0; reader && i < nh; i++) {
        const id_transform *t = h[i];
        int np = 0;
        for (int k = 0; k < t->nin; k++)
            np += pa->partial[t->in[k]->id];
        if (np > 0 && np < t->nin)
            return fail_mixed(tv, t, reader);
        for (int k = 0; np > 0 && k < t->nout; k++)
            pa->partial[t->out[k]->id] = 1;
    }
    return true;
}

/* The new logical ID of tv's partial axis id (made once), read from p's copy
   of it; the ID for a partial-made one replays its transform. */
static wf_iterdomain *partial_id(wf_tv *tv, wf_iterdomain *id, wf_iterdomain **map, partials *pa,
                                 id_list *logical, int *in_dim, wf_iterdomain **rf_in) {
    wf_fusion *f = tv->f;
    if (pa->to[id->id])
        return pa->to[id->id];
    const id_transform *t = id->def;
    if (t && pa->partial[t->in[0]->id]) {
        wf_iterdomain *x = partial_id(tv, t->in[0], map, pa, logical, in_dim, rf_in);
        wf_iterdomain *y =
            t->nin > 1 ? partial_id(tv, t->in[1], map, pa, logical, in_dim, rf_in) : NULL;
        if (!x || (t->nin > 1 && !y))
            return NULL;
        id_transform *r = t->kind == TF_SPLIT   ? ir_split(f, x, t->factor, t->inner)
                          : t->kind == TF_MERGE ? ir_merge(f, x, y)
                                                : ir_swizzle(f, x, y);
        if (!r)
            return NULL;
        for (int k = 0; k < t->nout; k++)
            pa->to[t->out[k]->id] = r->out[k];
        return pa->to[id->id];
    }
    /* id, a partial axis that is not logical (find_partials), is a loop ID of tv or an
       ancestor of one. The IDs there without a definition are tv's logical IDs and
       loop-only broadcasts, neither of them a partial axis, so id has one: history put
       it in h, and make_producer's replay mapped id. */
    err_assert(&f->err, map[id->id]);
    if (!map[id->id])
        return NULL;
    wf_iterdomain *nid = ir_id_new(f, tv, id->extent, IT_ITER);
    if (!nid)
        return NULL;
    map[id->id]->itype = IT_ITER; /* p holds one partial result per element of it */
    in_dim[logical->n] = -1;
    rf_in[logical->n] = map[id->id];
    if (!ir_push_id(f, logical, nid))
        return NULL;
    pa->to[id->id] = nid;
    return nid;
}

/* tv's reader reads the new IDs; an allocation domain names them too. */
static void repoint_partials(wf_tv *tv, const partials *pa) {
    for (int u = 0; u < tv->uses.n; u++) {
        ir_op *op = tv->uses.ptr[u];
        for (int d = 0; op->rf_in && op->in[0] == tv && d < op->out->logical.n; d++) {
            wf_iterdomain *id = op->rf_in[d];
            if (op->in_dim[0][d] < 0 && id && id->id < pa->n && pa->to[id->id])
                op->rf_in[d] = pa->to[id->id];
        }
    }
    for (int i = 0; i < tv->alloc.n; i++) {
        wf_iterdomain *id = tv->alloc.ptr[i];
        if (id->id < pa->n && pa->to[id->id])
            tv->alloc.ptr[i] = pa->to[id->id];
    }
}

/* tv reads p: its reduction IDs become new ones, read from p's kept loop IDs. */
static bool rewire(wf_tv *tv, wf_tv *p, const bool *rf, wf_iterdomain **map, partials *pa) {
    wf_fusion *f = tv->f;
    ir_op *op = tv->def;
    id_list logical = {0}, loop = {0};
    int n = tv->logical.n + tv->loop.n;
    int *in_dim = ARENA_ARRAY(&f->arena, int, n + 1);
    wf_iterdomain **rf_in = ARENA_ARRAY(&f->arena, wf_iterdomain *, n + 1);
    if (!in_dim || !rf_in)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int d = 0; d < tv->logical.n; d++)
        if (tv->logical.ptr[d]->itype != IT_REDUCTION) {
            in_dim[logical.n] = d; /* p's logical copies tv's */
            if (!ir_push_id(f, &logical, tv->logical.ptr[d]))
                return false;
        }
    for (int i = 0; i < tv->loop.n; i++) {
        wf_iterdomain *id = tv->loop.ptr[i];
        if (id->itype == IT_REDUCTION && rf[i])
            continue;
        if (id->id < pa->n && pa->partial[id->id]) {
            wf_iterdomain *nid = partial_id(tv, id, map, pa, &logical, in_dim, rf_in);
            if (!nid)
                return false;
            nid->ptype = id->ptype;
            id = nid;
        } else if (id->itype == IT_REDUCTION) {
            wf_iterdomain *nid = ir_id_new(f, tv, id->extent, IT_REDUCTION);
            if (!nid)
                return false;
            nid->ptype = id->ptype;
            in_dim[logical.n] = -1;
            rf_in[logical.n] = map[id->id];
            if (!ir_push_id(f, &logical, nid))
                return false;
            id = nid;
        }
        if (!ir_push_id(f, &loop, id))
            return false;
    }
    repoint_partials(tv, pa);
    for (int k = 0; k < op->nin; k++)
        ir_remove_use(op->in[k], op);
    op->nin = op->nargs = 1; /* a wf_mma's reader sums p's products */
    op->in[0] = p;
    op->in_dim[0] = in_dim;
    op->rf_in = rf_in;
    if (!ir_add_use(p, op))
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    return ir_relogical(tv, &logical, &loop);
}

const ir_op *sched_rfactor_reader(const wf_tv *tv) {
    for (int i = 0; i < tv->uses.n; i++) {
        const ir_op *op = tv->uses.ptr[i];
        if (!op->rf_in || op->in[0] != tv)
            continue;
        for (int d = 0; d < op->out->logical.n; d++)
            if (op->in_dim[0][d] < 0 && op->rf_in[d])
                return op;
    }
    return NULL;
}

wf_tv *sched_rfactor(wf_tv *tv, int naxes, const int *axes) {
    wf_fusion *f = tv->f;
    bool rf[WF_MAX_RANK * 4] = {false};
    if (tv->loop.n > WF_MAX_RANK * 4 || tv->logical.n > WF_MAX_RANK * 4)
        return err_fail(&f->err, WF_ERR_UNSUPPORTED,
                        "T%d.rfactor: at most %d loop axes are supported", tv->id, WF_MAX_RANK * 4);
    if (!pick(tv, naxes, axes, rf))
        return NULL;
    int nh;
    id_transform **h = history(tv, &nh);
    if (!h)
        return NULL;
    partials pa = {0};
    wf_iterdomain **map = calloc((size_t)f->ids.n + 1, sizeof *map);
    if (!map)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    wf_tv *p = find_partials(tv, h, nh, &pa) ? make_producer(tv, rf, map, h, nh) : NULL;
    bool ok = p && rewire(tv, p, rf, map, &pa);
    free(map);
    free(pa.to);
    free(pa.partial);
    if (!ok)
        return NULL;
    p->max_producer_pos = tv->max_producer_pos; /* tv's producers now feed p */
    tv->max_producer_pos = 0;
    return p;
}
