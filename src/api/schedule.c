/*
 * schedule.c -- public entry points of the schedule operations.
 *
 * Each checks the sticky error, normalizes axes and positions (negative
 * values count from the end, as in nvFuser) and validates arguments, then
 * delegates to src/sched.
 */
#include "api/api.h"

#include <stdlib.h>

/* "7 loop axes" of a tensor, "7 axes" of an abstract tensor. */
static const char *axes_word(const sched_dom *d, int n) {
    if (d->tv)
        return n == 1 ? "loop axis" : "loop axes";
    return n == 1 ? "axis" : "axes";
}

bool api_dom_axis(const sched_dom *d, int *axis, const char *what) {
    int n = d->ids->n, a = *axis;
    if (a < 0)
        a += n;
    if (a < 0 || a >= n)
        return err_failb(&d->f->err, WF_ERR_ARG, "%s.%s: axis %d is out of range; %s has %d %s",
                         d->name, what, *axis, d->name, n, axes_word(d, n));
    *axis = a;
    return true;
}

bool api_axis(wf_tv *tv, int *axis, const char *what) {
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    return api_dom_axis(&d, axis, what);
}

bool api_pos(wf_tv *tv, int *pos, const char *what) {
    int n = tv->loop.n, p = *pos;
    if (p < 0)
        p += n + 1;
    if (p < 0 || p > n)
        return err_failb(&tv->f->err, WF_ERR_ARG,
                         "T%d.%s: position %d is out of range; T%d has %d loop ax%s, so positions "
                         "are 0..%d",
                         tv->id, what, *pos, tv->id, n, n == 1 ? "is" : "es", n);
    *pos = p;
    return true;
}

static void split(sched_dom *d, int axis, int64_t factor, bool inner) {
    const char *what = inner ? "split" : "split_outer";
    int user_axis = axis;
    if (!api_dom_axis(d, &axis, what))
        return;
    if (factor <= 0) {
        err_fail(&d->f->err, WF_ERR_ARG, "%s.%s(axis=%d, factor=%lld): the factor must be positive",
                 d->name, what, user_axis, (long long)factor);
        return;
    }
    sched_dom_split(d, axis, factor, inner);
}

static void tv_split(wf_tv *tv, int axis, int64_t factor, bool inner) {
    TV_GATE(tv, );
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    split(&d, axis, factor, inner);
}

void wf_tv_split(wf_tv *tv, int axis, int64_t factor) {
    tv_split(tv, axis, factor, true);
}

void wf_tv_split_outer(wf_tv *tv, int axis, int64_t factor) {
    tv_split(tv, axis, factor, false);
}

static void merge(sched_dom *d, int outer, int inner) {
    if (!api_dom_axis(d, &outer, "merge") || !api_dom_axis(d, &inner, "merge"))
        return;
    if (outer == inner) {
        err_fail(&d->f->err, WF_ERR_ARG, "%s.merge: cannot merge axis %d with itself", d->name,
                 outer);
        return;
    }
    sched_dom_merge(d, outer, inner);
}

void wf_tv_merge_axes(wf_tv *tv, int outer, int inner) {
    TV_GATE(tv, );
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    merge(&d, outer, inner);
}

void wf_tv_merge(wf_tv *tv, int axis) {
    TV_GATE(tv, );
    int user_axis = axis;
    if (!api_axis(tv, &axis, "merge"))
        return;
    if (axis + 1 >= tv->loop.n) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.merge(axis=%d): axis %d is the last loop axis; there is no axis %d to merge "
                 "it with",
                 tv->id, user_axis, axis, axis + 1);
        return;
    }
    sched_merge(tv, axis, axis + 1);
}

static bool check_perm(const sched_dom *d, const int *old2new, int *first) {
    int n = d->ids->n;
    for (int i = 0; i < n; i++)
        first[i] = -1;
    for (int i = 0; i < n; i++) {
        int p = old2new[i];
        if (p < 0 || p >= n)
            return err_failb(&d->f->err, WF_ERR_ARG,
                             "%s.reorder: the new positions are not a permutation of 0..%d: "
                             "axis %d goes to position %d",
                             d->name, n - 1, i, p);
        if (first[p] >= 0)
            return err_failb(&d->f->err, WF_ERR_ARG,
                             "%s.reorder: the new positions are not a permutation of 0..%d: axes "
                             "%d and %d both go to position %d",
                             d->name, n - 1, first[p], i, p);
        first[p] = i;
    }
    return true;
}

/* Scratch for a reorder: `k` int arrays of one entry per axis (heap: a
   domain has no size limit). NULL + sticky error when memory runs out. */
static int *scratch_ints(const sched_dom *d, int k) {
    int *p = calloc((size_t)k * (size_t)(d->ids->n + 1), sizeof *p);
    if (!p)
        err_fail(&d->f->err, WF_ERR_MEMORY, "out of memory");
    return p;
}

void wf_tv_reorder_all(wf_tv *tv, const int *old2new) {
    TV_GATE(tv, );
    if (!old2new) {
        err_fail(&tv->f->err, WF_ERR_ARG, "T%d.reorder: no permutation given (old2new is NULL)",
                 tv->id);
        return;
    }
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    int n = tv->loop.n, *perm = scratch_ints(&d, 2);
    if (!perm)
        return;
    for (int i = 0; i < n; i++)
        perm[i] = old2new[i] < 0 ? old2new[i] + n : old2new[i];
    if (check_perm(&d, perm, perm + n + 1))
        sched_dom_reorder(&d, perm);
    free(perm);
}

/* Fill the positions that the pairs leave free with the other axes, in order. */
static void fill_free(int n, int *perm, const int *moved, int *taken) {
    int next = 0;
    for (int i = 0; i < n; i++) {
        if (moved[i])
            continue;
        while (taken[next])
            next++;
        perm[i] = next;
        taken[next] = 1;
    }
}

/* nvFuser's pair form: listed axes go where asked; the others fill the free
   positions in their original order. */
static void reorder(sched_dom *d, int npairs, const int (*old_new)[2]) {
    int n = d->ids->n;
    if (npairs < 0 || npairs > n || (npairs && !old_new)) {
        err_fail(&d->f->err, WF_ERR_ARG,
                 "%s.reorder: %d pairs%s; give 0..%d (old, new) pairs for %s's %d %s", d->name,
                 npairs, npairs > 0 && !old_new ? " but the pair list is NULL" : "", n, d->name, n,
                 axes_word(d, 2));
        return;
    }
    int *perm = scratch_ints(d, 3);
    if (!perm)
        return;
    int *taken = perm + n + 1, *moved = taken + n + 1;
    bool ok = true;
    for (int k = 0; ok && k < npairs; k++) {
        int o = old_new[k][0], p = old_new[k][1];
        ok = api_dom_axis(d, &o, "reorder") && api_dom_axis(d, &p, "reorder");
        if (ok && (moved[o] || taken[p]))
            ok = err_failb(&d->f->err, WF_ERR_ARG, "%s.reorder: %s %d appears twice in the pairs",
                           d->name, moved[o] ? "axis" : "position", moved[o] ? o : p);
        if (ok) {
            perm[o] = p;
            moved[o] = taken[p] = 1;
        }
    }
    if (ok) {
        fill_free(n, perm, moved, taken);
        sched_dom_reorder(d, perm);
    }
    free(perm);
}

void wf_tv_reorder(wf_tv *tv, int npairs, const int (*old_new)[2]) {
    TV_GATE(tv, );
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    reorder(&d, npairs, old_new);
}

static void swizzle(sched_dom *d, wf_swizzle kind, int x, int y) {
    if (kind != WF_SWIZZLE_XOR) {
        err_fail(&d->f->err, WF_ERR_ARG, "%s.swizzle: unknown swizzle kind %d", d->name, (int)kind);
        return;
    }
    if (api_dom_axis(d, &x, "swizzle") && api_dom_axis(d, &y, "swizzle"))
        sched_dom_swizzle(d, x, y);
}

void wf_tv_swizzle(wf_tv *tv, wf_swizzle kind, int x, int y) {
    TV_GATE(tv, );
    sched_dom d;
    sched_dom_of_tv(&d, tv);
    swizzle(&d, kind, x, y);
}

void wf_tv_parallelize(wf_tv *tv, int axis, wf_ptype p) {
    TV_GATE(tv, );
    if ((unsigned)p > WF_MMA) {
        err_fail(&tv->f->err, WF_ERR_ARG, "T%d.parallelize: unknown parallel type %d", tv->id,
                 (int)p);
        return;
    }
    if (tv->is_input && p != WF_SERIAL) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.parallelize(%d, %s): T%d is a fusion input; the kernel only reads it, so "
                 "it has no loops to parallelize; parallelize the tensors that read it (or a "
                 "cache of it, wf_cache_after)",
                 tv->id, axis, ir_ptype_name(p), tv->id);
        return;
    }
    /* WF_MMA: once the marked axes make a tensor-core tile, lay it out (sched/mma.c). */
    if (api_axis(tv, &axis, "parallelize") && sched_parallelize(tv, axis, p) && p == WF_MMA)
        sched_mma_layout(tv);
}

void wf_tv_set_memory(wf_tv *tv, wf_memtype m) {
    TV_GATE(tv, );
    if ((unsigned)m > WF_MEM_TENSOR) {
        err_fail(&tv->f->err, WF_ERR_ARG, "T%d.set_memory: unknown memory type %d", tv->id, (int)m);
        return;
    }
    if ((tv->is_input || tv->is_output) && m != WF_MEM_GLOBAL) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.set_memory(%s): T%d is a fusion %s and stays in global memory", tv->id,
                 ir_memtype_name(m), tv->id, tv->is_input ? "input" : "output");
        return;
    }
    tv->mem = m;
}

void wf_tv_set_ldst(wf_tv *tv, wf_ldst op) {
    TV_GATE(tv, );
    if (!tv->def || !ir_op_takes_ldst(tv->def, op)) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.set_ldst: T%d is not defined by a copy (set or permute; a broadcast "
                 "takes LdMatrix)",
                 tv->id, tv->id);
        return;
    }
    if ((unsigned)op > WF_LDST_CP_ASYNC) {
        err_fail(&tv->f->err, WF_ERR_ARG, "T%d.set_ldst: unknown op type %d", tv->id, (int)op);
        return;
    }
    tv->def->ldst = op;
}

void wf_tv_set_tmem_dimsep(wf_tv *tv, int pos) {
    TV_GATE(tv, );
    if (tv->mem != WF_MEM_TENSOR) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.set_tmem_dimsep: the dim separator is only for tensors in tensor memory",
                 tv->id);
        return;
    }
    int n = ir_alloc_domain(tv)->n;
    if (pos < 0)
        pos += n + 1;
    if (pos < 0 || pos > n) {
        err_fail(&tv->f->err, WF_ERR_ARG, "T%d.set_tmem_dimsep: position %d is not in 0..%d",
                 tv->id, pos, n);
        return;
    }
    tv->dimsep = pos;
}

void wf_tv_set_allocation_domain(wf_tv *tv, int n, wf_iterdomain *const *ids, bool contiguous) {
    TV_GATE(tv, );
    if (n <= 0 || !ids) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.set_allocation_domain: %d axes%s; give at least one IterDomain", tv->id, n,
                 ids ? "" : " (ids is NULL)");
        return;
    }
    sched_set_allocation_domain(tv, n, ids, contiguous);
}

void wf_tv_set_loop_domain(wf_tv *tv, int n, wf_iterdomain *const *ids) {
    TV_GATE(tv, );
    if (n <= 0 || !ids) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.set_loop_domain: %d axes%s; give at least one IterDomain", tv->id, n,
                 ids ? "" : " (ids is NULL)");
        return;
    }
    sched_set_loop_domain(tv, n, ids);
}

void wf_tv_inline_at(wf_tv *tv, int pos) {
    TV_GATE(tv, );
    if (api_pos(tv, &pos, "inline_at"))
        sched_inline_at(tv, pos);
}

void wf_inline_most(wf_fusion *f) {
    WF_GATE(f, );
    sched_inline_most(f);
}

void wf_inline_all_at(wf_tv *ref, int pos) {
    TV_GATE(ref, );
    if (api_pos(ref, &pos, "inline_all_at"))
        sched_inline_all_at(ref, pos);
}

void wf_compute_at(wf_tv *tv, wf_tv *consumer, int pos) {
    TV_GATE(tv, );
    TV_GATE(consumer, );
    if (consumer->f != tv->f) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "compute_at(T%d, T%d, %d): the two tensors belong to different fusions", tv->id,
                 consumer->id, pos);
        return;
    }
    int n = consumer->loop.n;
    if (pos < -n - 1 || pos > n) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "compute_at(T%d, T%d, %d): position %d is out of range; T%d has %d loop ax%s, so "
                 "positions are 0..%d (or -%d..-1 from the end)",
                 tv->id, consumer->id, pos, pos, consumer->id, n, n == 1 ? "is" : "es", n, n + 1);
        return;
    }
    sched_compute_at(tv, consumer, pos < 0 ? pos + n + 1 : pos);
}

void wf_reverse_compute_at(wf_tv *tv, wf_tv *producer, int pos) {
    TV_GATE(tv, );
    TV_GATE(producer, );
    if (producer->f != tv->f) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "reverse_compute_at(T%d, T%d, %d): the two tensors belong to different fusions",
                 tv->id, producer->id, pos);
        return;
    }
    int n = producer->loop.n;
    if (pos < -n - 1 || pos > n) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "reverse_compute_at(T%d, T%d, %d): position %d is out of range; T%d has %d loop "
                 "ax%s, so positions are 0..%d (or -%d..-1 from the end)",
                 tv->id, producer->id, pos, pos, producer->id, n, n == 1 ? "is" : "es", n, n + 1);
        return;
    }
    sched_reverse_compute_at(tv, producer, pos < 0 ? pos + n + 1 : pos);
}

void wf_tv_loop_broadcast(wf_tv *tv, int pos) {
    TV_GATE(tv, );
    if (api_pos(tv, &pos, "loop_broadcast"))
        sched_loop_broadcast(tv, pos);
}

wf_tv *wf_cache_after(wf_tv *tv) {
    TV_GATE(tv, NULL);
    /* An output nothing reads: its cache would be read by nothing and dropped.
       (A cache after an input with no uses yet is fine: later ops read it.) */
    if (tv->is_output && tv->uses.n == 0)
        return err_fail(&tv->f->err, WF_ERR_ARG,
                        "cache_after(T%d): T%d is a fusion output that nothing in the fusion "
                        "reads, so a cache after it would be read by nothing and dropped; to "
                        "compute an output in registers and then store it, use wf_cache_before",
                        tv->id, tv->id);
    return sched_cache_after(tv);
}

wf_tv *wf_cache_before(wf_tv *tv) {
    TV_GATE(tv, NULL);
    return sched_cache_before(tv);
}

void wf_propagate_transforms(wf_tv *ref) {
    TV_GATE(ref, );
    sched_propagate(ref);
}

void wf_parallelize_all_like(wf_tv *ref, unsigned ptype_mask) {
    TV_GATE(ref, );
    sched_parallelize_all_like(ref, ptype_mask);
}

wf_tv *wf_tv_rfactor(wf_tv *tv, int naxes, const int *axes) {
    TV_GATE(tv, NULL);
    int norm[WF_MAX_RANK * 4];
    if (naxes < 1 || naxes > (int)(sizeof norm / sizeof *norm) || !axes)
        return err_fail(&tv->f->err, WF_ERR_ARG, "T%d.rfactor: give 1 to %d axes (got %d%s)",
                        tv->id, (int)(sizeof norm / sizeof *norm), naxes, axes ? "" : " and NULL");
    for (int i = 0; i < naxes; i++) {
        norm[i] = axes[i];
        if (!api_axis(tv, &norm[i], "rfactor"))
            return NULL;
    }
    if (!sched_check_no_loop_broadcast(tv, "rfactor"))
        return NULL;
    return sched_rfactor(tv, naxes, norm);
}

/* ---- abstract tensors: the same transforms on a list attached to no tensor ---- */

#define ABSTRACT_GATE(a, ret)                                                                      \
    do {                                                                                           \
        if (!(a))                                                                                  \
            return ret;                                                                            \
        WF_GATE((a)->f, ret);                                                                      \
    } while (0)

wf_abstract *wf_abstract_new(wf_fusion *f, int n, wf_iterdomain *const *ids) {
    WF_GATE(f, NULL);
    if (n <= 0 || !ids)
        return err_fail(&f->err, WF_ERR_ARG, "wf_abstract_new: %d IterDomains%s; give at least one",
                        n, ids ? "" : " (ids is NULL)");
    for (int i = 0; i < n; i++) {
        const wf_iterdomain *id = ids[i];
        if (!id || id->id < 0 || id->id >= f->ids.n || f->ids.ptr[id->id] != id)
            return err_fail(&f->err, WF_ERR_ARG, "wf_abstract_new: IterDomain %d is %s", i,
                            id ? "of another fusion" : "NULL");
        for (int j = 0; j < i; j++)
            if (ids[j] == id)
                return err_fail(&f->err, WF_ERR_ARG,
                                "wf_abstract_new: IterDomains %d and %d are the same IterDomain", j,
                                i);
    }
    return sched_abstract_new(f, n, ids);
}

wf_abstract *wf_abstract_of_loop(wf_tv *tv) {
    TV_GATE(tv, NULL);
    return sched_abstract_new(tv->f, tv->loop.n, tv->loop.ptr);
}

int wf_abstract_ndim(const wf_abstract *a) {
    return a ? a->ids.n : -1;
}

wf_iterdomain *const *wf_abstract_ids(const wf_abstract *a, int *n) {
    if (n)
        *n = a ? a->ids.n : 0;
    return a ? a->ids.ptr : NULL;
}

void wf_abstract_split(wf_abstract *a, int axis, int64_t factor) {
    ABSTRACT_GATE(a, );
    sched_dom d;
    sched_dom_of_abstract(&d, a);
    split(&d, axis, factor, true);
}

void wf_abstract_merge(wf_abstract *a, int outer, int inner) {
    ABSTRACT_GATE(a, );
    sched_dom d;
    sched_dom_of_abstract(&d, a);
    merge(&d, outer, inner);
}

void wf_abstract_reorder(wf_abstract *a, int npairs, const int (*old_new)[2]) {
    ABSTRACT_GATE(a, );
    sched_dom d;
    sched_dom_of_abstract(&d, a);
    reorder(&d, npairs, old_new);
}

void wf_abstract_swizzle(wf_abstract *a, wf_swizzle kind, int x, int y) {
    ABSTRACT_GATE(a, );
    sched_dom d;
    sched_dom_of_abstract(&d, a);
    swizzle(&d, kind, x, y);
}
