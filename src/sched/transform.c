/*
 * transform.c -- split, merge, reorder, swizzle and parallelize on a
 * tensor's loop domain or on an abstract tensor.
 *
 * Each operation replaces IDs of the list by the outputs of a new transform,
 * so the IterDomain DAG records the whole history from the logical domain.
 * The list is a sched_dom: a tensor's loop domain, or an abstract tensor's
 * IDs (attached to no tensor until wf_tv_set_loop_domain); both go through
 * the same code. A tensor adds its inlining rules: axes left of the
 * compute-at position (or of a producer's position inside this tensor) are
 * shared with other tensors' loops and cannot be transformed.
 */
#include "sched/sched.h"

#include <stdio.h>

void sched_dom_of_tv(sched_dom *d, wf_tv *tv) {
    d->f = tv->f;
    d->ids = &tv->loop;
    d->tv = tv;
    snprintf(d->name, sizeof d->name, "T%d", tv->id);
}

void sched_dom_of_abstract(sched_dom *d, wf_abstract *a) {
    d->f = a->f;
    d->ids = &a->ids;
    d->tv = NULL;
    snprintf(d->name, sizeof d->name, "A%d", a->id);
}

wf_abstract *sched_abstract_new(wf_fusion *f, int n, wf_iterdomain *const *ids) {
    wf_abstract *a = ARENA_NEW(&f->arena, wf_abstract);
    if (!a)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    a->f = f;
    a->id = f->nabstract;
    if (!ir_copy_ids(f, &a->ids, ids, n))
        return NULL;
    f->nabstract++;
    return a;
}

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

/* A tensor's inlining rule (nothing for an abstract tensor). */
static bool dom_free(const sched_dom *d, const char *what, int axis) {
    return !d->tv || check_free(d->tv, what, axis);
}

/* One rule for every transform (split, merge, swizzle): an axis that is
   already parallelized (threads, blocks, unroll, vectorize...) is not
   transformed, since its outputs could not keep the parallel type with the
   same meaning; the user parallelizes the results instead. */
static bool check_serial(const sched_dom *d, const char *what, int axis) {
    wf_ptype p = d->ids->ptr[axis]->ptype;
    if (p == WF_SERIAL)
        return true;
    return err_failb(&d->f->err, WF_ERR_SCHEDULE,
                     "%s.%s: axis %d is already parallelized on %s; %s before parallelizing",
                     d->name, what, axis, ir_ptype_name(p), what);
}

/* The list with nremove IDs at `at` replaced by ids[0..nids); built as a
   new list (the old one stays in the arena), so any number of axes fits. */
static bool replace(sched_dom *d, int at, int nremove, wf_iterdomain *const *ids, int nids) {
    id_list next = {0};
    const id_list *old = d->ids;
    bool ok = true;
    for (int i = 0; ok && i < at; i++)
        ok = ir_push_id(d->f, &next, old->ptr[i]);
    for (int i = 0; ok && i < nids; i++)
        ok = ir_push_id(d->f, &next, ids[i]);
    for (int i = at + nremove; ok && i < old->n; i++)
        ok = ir_push_id(d->f, &next, old->ptr[i]);
    if (ok)
        *d->ids = next;
    return ok;
}

bool sched_dom_split(sched_dom *d, int axis, int64_t factor, bool inner) {
    const char *what = inner ? "split" : "split_outer";
    if (!dom_free(d, what, axis) || !check_serial(d, what, axis))
        return false;
    id_transform *t = ir_split(d->f, d->ids->ptr[axis], factor, inner);
    return t && replace(d, axis, 1, t->out, 2);
}

bool sched_split(wf_tv *tv, int axis, int64_t factor, bool inner) {
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    return sched_dom_split(&d, axis, factor, inner);
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

bool sched_dom_merge(sched_dom *d, int outer, int inner) {
    if (!dom_free(d, "merge", outer < inner ? outer : inner) || !check_serial(d, "merge", outer) ||
        !check_serial(d, "merge", inner) || (d->tv && !check_rfactor_merge(d->tv, outer, inner)))
        return false;
    id_transform *t = ir_merge(d->f, d->ids->ptr[outer], d->ids->ptr[inner]);
    if (!t)
        return false;
    int lo = outer < inner ? outer : inner, hi = outer < inner ? inner : outer;
    if (!replace(d, hi, 1, NULL, 0))
        return false;
    return replace(d, lo, 1, t->out, 1);
}

bool sched_merge(wf_tv *tv, int outer, int inner) {
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    return sched_dom_merge(&d, outer, inner);
}

bool sched_dom_reorder(sched_dom *d, const int *old2new) {
    int n = d->ids->n;
    wf_iterdomain **next = ARENA_ARRAY(&d->f->arena, wf_iterdomain *, n > 0 ? n : 1);
    if (!next)
        return err_failb(&d->f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < n; i++) {
        if (old2new[i] != i && !dom_free(d, "reorder", i < old2new[i] ? i : old2new[i]))
            return false;
        next[old2new[i]] = d->ids->ptr[i];
    }
    for (int i = 0; i < n; i++)
        d->ids->ptr[i] = next[i];
    return true;
}

bool sched_reorder(wf_tv *tv, const int *old2new) {
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    return sched_dom_reorder(&d, old2new);
}

bool sched_dom_swizzle(sched_dom *d, int x, int y) {
    if (!dom_free(d, "swizzle", x < y ? x : y) || !check_serial(d, "swizzle", x) ||
        !check_serial(d, "swizzle", y))
        return false;
    wf_iterdomain *ix = d->ids->ptr[x], *iy = d->ids->ptr[y];
    int64_t ex = ir_id_const_extent(ix), ey = ir_id_const_extent(iy);
    if (ix->itype != IT_ITER || iy->itype != IT_ITER)
        return err_failb(&d->f->err, WF_ERR_SCHEDULE,
                         "%s.swizzle(XOR, %d, %d): broadcast and reduction axes cannot be "
                         "swizzled",
                         d->name, x, y);
    if (!ir_swizzle_ok(ix, iy))
        return err_failb(&d->f->err, WF_ERR_SCHEDULE,
                         "%s.swizzle(XOR, %d, %d): an XOR swizzle needs constant power-of-two "
                         "extents with extent(x) <= extent(y), but they are %lld and %lld",
                         d->name, x, y, (long long)ex, (long long)ey);
    if (x == y)
        return err_failb(&d->f->err, WF_ERR_ARG, "%s.swizzle: x and y are the same axis %d",
                         d->name, x);
    id_transform *t = ir_swizzle(d->f, ix, iy);
    if (!t)
        return false;
    d->ids->ptr[x] = t->out[0];
    d->ids->ptr[y] = t->out[1];
    return true;
}

bool sched_swizzle(wf_tv *tv, int x, int y) {
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    return sched_dom_swizzle(&d, x, y);
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
