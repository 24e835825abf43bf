/*
 * transform.c -- split, merge, reorder, swizzle and parallelize on a
 * tensor's loop domain.
 *
 * Each operation replaces loop IDs by the outputs of a new transform, so the
 * IterDomain DAG records the whole history from the logical domain. Axes
 * left of the compute-at position (or of a producer's position inside this
 * tensor) are shared with other tensors' loops and cannot be transformed.
 */
#include "sched/sched.h"

static bool check_free(wf_tv *tv, const char *what, int axis) {
    if (axis < tv->ca_pos)
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.%s: axis %d is left of the compute-at position %d; inlined axes "
                         "cannot be transformed",
                         tv->id, what, axis, tv->ca_pos);
    if (axis < tv->max_producer_pos)
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.%s: axis %d is left of position %d, where a producer is inlined; "
                         "those axes cannot be transformed",
                         tv->id, what, axis, tv->max_producer_pos);
    return true;
}

/* One rule for every transform (split, merge, swizzle): an axis that is
   already parallelized (threads, blocks, unroll, vectorize...) is not
   transformed, since its outputs could not keep the parallel type with the
   same meaning; the user parallelizes the results instead. */
static bool check_serial(wf_tv *tv, const char *what, int axis) {
    wf_ptype p = tv->loop.ptr[axis]->ptype;
    if (p == WF_SERIAL)
        return true;
    return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                     "T%d.%s: axis %d is already parallelized on %s; %s before parallelizing",
                     tv->id, what, axis, ir_ptype_name(p), what);
}

/* The loop domain with nremove IDs at `at` replaced by ids[0..nids); built as a
   new list (the old one stays in the arena), so any number of axes fits. */
static bool replace(wf_tv *tv, int at, int nremove, wf_iterdomain *const *ids, int nids) {
    id_list next = {0};
    const id_list *old = &tv->loop;
    bool ok = true;
    for (int i = 0; ok && i < at; i++)
        ok = ir_push_id(tv->f, &next, old->ptr[i]);
    for (int i = 0; ok && i < nids; i++)
        ok = ir_push_id(tv->f, &next, ids[i]);
    for (int i = at + nremove; ok && i < old->n; i++)
        ok = ir_push_id(tv->f, &next, old->ptr[i]);
    if (ok)
        tv->loop = next;
    return ok;
}

bool sched_split(wf_tv *tv, int axis, int64_t factor, bool inner) {
    if (!check_free(tv, inner ? "split" : "split_outer", axis))
        return false;
    if (!check_serial(tv, inner ? "split" : "split_outer", axis))
        return false;
    id_transform *t = ir_split(tv->f, tv->loop.ptr[axis], factor, inner);
    return t && replace(tv, axis, 1, t->out, 2);
}

/* An rfactor producer's iteration axes hold its partial results (its
   consumer reduces them); merged with a reduction axis they would be reduced
   here as well, counting the partials twice. */
static bool check_rfactor_merge(wf_tv *tv, int outer, int inner) {
    wf_iterdomain *a = tv->loop.ptr[outer], *b = tv->loop.ptr[inner];
    bool ra = a->itype == IT_REDUCTION, rb = b->itype == IT_REDUCTION;
    if (ra == rb || a->itype == IT_BROADCAST || b->itype == IT_BROADCAST ||
        !sched_rfactor_reader(tv))
        return true;
    sbuf sa = {0}, sb = {0};
    ir_print_id(&sa, a);
    ir_print_id(&sb, b);
    err_failb(&tv->f->err, WF_ERR_SCHEDULE,
              "T%d.merge: T%d is an rfactor producer; merging its iteration axis %s with its "
              "reduction axis %s would reduce its partial results too; merge iteration axes "
              "with iteration axes and reduction axes with reduction axes",
              tv->id, tv->id, sbuf_str(ra ? &sb : &sa), sbuf_str(ra ? &sa : &sb));
    sbuf_free(&sa);
    sbuf_free(&sb);
    return false;
}

bool sched_merge(wf_tv *tv, int outer, int inner) {
    if (!check_free(tv, "merge", outer < inner ? outer : inner) ||
        !check_serial(tv, "merge", outer) || !check_serial(tv, "merge", inner) ||
        !check_rfactor_merge(tv, outer, inner))
        return false;
    id_transform *t = ir_merge(tv->f, tv->loop.ptr[outer], tv->loop.ptr[inner]);
    if (!t)
        return false;
    int lo = outer < inner ? outer : inner, hi = outer < inner ? inner : outer;
    if (!replace(tv, hi, 1, NULL, 0))
        return false;
    return replace(tv, lo, 1, t->out, 1);
}

bool sched_reorder(wf_tv *tv, const int *old2new) {
    int n = tv->loop.n;
    wf_iterdomain **next = ARENA_ARRAY(&tv->f->arena, wf_iterdomain *, n > 0 ? n : 1);
    if (!next)
        return err_failb(&tv->f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) {
        if (old2new[i] != i && !check_free(tv, "reorder", i < old2new[i] ? i : old2new[i]))
            return false;
        next[old2new[i]] = tv->loop.ptr[i];
    }
    for (int i = 0; i < n; i++)
        tv->loop.ptr[i] = next[i];
    return true;
}

bool sched_swizzle(wf_tv *tv, int x, int y) {
    if (!check_free(tv, "swizzle", x < y ? x : y) || !check_serial(tv, "swizzle", x) ||
        !check_serial(tv, "swizzle", y))
        return false;
    wf_iterdomain *ix = tv->loop.ptr[x], *iy = tv->loop.ptr[y];
    int64_t ex = ir_id_const_extent(ix), ey = ir_id_const_extent(iy);
    if (ix->itype != IT_ITER || iy->itype != IT_ITER)
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.swizzle(XOR, %d, %d): broadcast and reduction axes cannot be "
                         "swizzled",
                         tv->id, x, y);
    if (!ir_swizzle_ok(ix, iy))
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.swizzle(XOR, %d, %d): an XOR swizzle needs constant power-of-two "
                         "extents with extent(x) <= extent(y), but they are %lld and %lld",
                         tv->id, x, y, (long long)ex, (long long)ey);
    if (x == y)
        return err_failb(&tv->f->err, WF_ERR_ARG, "T%d.swizzle: x and y are the same axis %d",
                         tv->id, x);
    id_transform *t = ir_swizzle(tv->f, ix, iy);
    if (!t)
        return false;
    tv->loop.ptr[x] = t->out[0];
    tv->loop.ptr[y] = t->out[1];
    return true;
}

bool sched_parallelize(wf_tv *tv, int axis, wf_ptype p) {
    wf_iterdomain *id = tv->loop.ptr[axis];
    if (p == WF_VECTORIZE && ir_id_const_extent(id) < 0)
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.parallelize(%d, V): vectorizing a domain requires a constant "
                         "integer size",
                         tv->id, axis);
    if (id->itype == IT_BROADCAST && p != WF_SERIAL && ir_id_const_extent(id) == 1) {
        /* A broadcast axis has nothing to spread; keep it serial like nvFuser. */
        return true;
    }
    id->ptype = p;
    return true;
}
