/*
 * fuzz_reduce.c -- reductions for the fuzzer: the op (sum, max, min,
 * product over a random non-empty set of dims, through wf_sum, wf_max or
 * wf_reduce) and a schedule for it, in the shapes docs/reductions.md
 * describes: serial loops (split, unrolled), a block reduction (a split's
 * inner part on threadIdx), a grid reduction (blockIdx, with threadIdx
 * inside) and rfactored levels (the serial part of a split done per thread
 * first), each sometimes in two levels. The rest of the case's schedule --
 * random transforms, inlining, parallel types on any tensor -- comes from
 * fuzz.c as for pointwise cases, so the reduction meets them too.
 *
 * The reference (tests/ref.c) reduces in double and rounds once; the
 * executor accumulates in the output's compute type in its own order (a
 * tree for block reductions, block order for grid ones). A float sum or
 * product therefore differs in the last bits: such a tensor and everything
 * computed from it is marked inexact and compared within a tolerance of its
 * dtype, and the generator (fuzz.c) keeps inexact values away from ops that
 * would magnify a last-bit difference (exp, division, powers, casts to
 * integers). A value rounded to a 16-bit float on the way (a sum of f16,
 * an inexact value cast to bf16) takes no arithmetic at all, only copies,
 * casts and max / min: a rounding error of 2^-8 of a large partial result
 * followed by a cancellation would leave nothing to compare. Every integer
 * reduction stays bit-exact; a float max or min is exact but for the sign of
 * a zero result (the max of -0 and +0 is the one that comes second), so it
 * is marked inexact too, which keeps it away from the ops that would turn
 * the sign into a difference (1 / x).
 * Products only reduce input tensors (values in [-10, 10]) over at most 8
 * elements, so no partial product overflows where the reference's does not.
 */
#include "fuzz/fuzz.h"
#include "fuzz/known.h"

#include <math.h>

#include "ref.h"

enum { MAX_PRODUCT_ELEMENTS = 8 };
/* An inexact result may differ from the reference by this many f32 ulps of
   its scale (ref.h): each partial result rounds once, in another order. */
enum { SCALE_ULPS = 16 };

/* nax distinct dims of a, in random order (the API takes any order). */
static int pick_axes(fcase *c, const node *a, int *axes, bool *reduced) {
    int perm[WF_MAX_RANK];
    for (int i = 0; i < a->ndim; i++)
        perm[i] = i;
    for (int i = a->ndim - 1; i > 0; i--) {
        int j = (int)rnd(&c->r, (unsigned)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int nax = 1 + (int)rnd(&c->r, (unsigned)a->ndim);
    for (int i = 0; i < nax; i++) {
        axes[i] = perm[i];
        reduced[perm[i]] = true;
    }
    return nax;
}

static wf_binary_op pick_op(fcase *c, const node *a, int64_t count) {
    static const wf_binary_op ops[] = {WF_ADD, WF_ADD, WF_MAX, WF_MIN, WF_MUL};
    wf_binary_op op = ops[rnd(&c->r, sizeof ops / sizeof *ops)];
    bool input = a - c->n < c->nin;
    if (op == WF_MUL && (!is_float(a->dt) || !input || count > MAX_PRODUCT_ELEMENTS))
        op = WF_ADD;
    if (a->inexact_half && (op == WF_ADD || op == WF_MUL))
        op = WF_MAX; /* rounding errors of the parts would add up */
    return op;
}

static wf_tv *make_reduction(fcase *c, wf_binary_op op, const node *a, int nax, const int *axes) {
    int i = (int)(a - c->n);
    if (op == WF_ADD && chance(&c->r, 50)) {
        fz_trace(c, "wf_tv *t%d = wf_sum(t%d, %d, {%d, %d, %d});", c->nn, i, nax, axes[0],
                 nax > 1 ? axes[1] : -1, nax > 2 ? axes[2] : -1);
        return wf_sum(a->tv, nax, axes);
    }
    if (op == WF_MAX && chance(&c->r, 50)) {
        fz_trace(c, "wf_tv *t%d = wf_max(t%d, %d, {%d, %d, %d});", c->nn, i, nax, axes[0],
                 nax > 1 ? axes[1] : -1, nax > 2 ? axes[2] : -1);
        return wf_max(a->tv, nax, axes);
    }
    fz_trace(c, "wf_tv *t%d = wf_reduce(%d, t%d, %d, {%d, %d, %d});", c->nn, (int)op, i, nax,
             axes[0], nax > 1 ? axes[1] : -1, nax > 2 ? axes[2] : -1);
    return wf_reduce(op, a->tv, nax, axes);
}

void fz_op_reduce(fcase *c, node *a) {
    if (a->ndim < 1 || c->nreds >= MAX_NODES)
        return;
    int axes[WF_MAX_RANK];
    bool reduced[WF_MAX_RANK] = {false};
    int nax = pick_axes(c, a, axes, reduced);
    int64_t count = 1;
    for (int i = 0; i < nax; i++)
        count *= a->shape[axes[i]];
    wf_binary_op op = pick_op(c, a, count);
    wf_dtype in_dt = a->dt;
    bool in_inexact = a->inexact, a_half = a->inexact_half;
    node *o = add_node(c, make_reduction(c, op, a, nax, axes), a->ndim - nax);
    if (!o)
        return;
    for (int d = 0, k = 0; d < a->ndim; d++)
        if (!reduced[d]) {
            o->shape[k] = a->shape[d];
            o->orig[k++] = a->orig[d];
        }
    bool sum = is_float(in_dt) && (op == WF_ADD || op == WF_MUL);
    /* the max of -0 and +0 is whichever comes second: a float max or min that
       is zero has the sign of the executor's order, not the reference's (1 /
       max made -inf of inf: fuzz -s 777 -c 811740) */
    bool zero_sign = is_float(in_dt) && (op == WF_MAX || op == WF_MIN);
    o->inexact = in_inexact || sum || zero_sign;
    o->inexact_half = (in_inexact || sum) && (a_half || o->dt == WF_F16 || o->dt == WF_BF16);
    c->half_sum |= (op == WF_ADD || op == WF_MUL) && (o->dt == WF_F16 || o->dt == WF_BF16);
    c->reds[c->nreds++] = o->tv;
}

/* ---- schedules ---- */

/* A random reduction axis of tv's loop domain, or -1. */
static int reduction_axis(fcase *c, wf_tv *tv) {
    int n = 0, found[WF_MAX_RANK * 8], nf = 0;
    wf_iterdomain *const *ids = wf_tv_loop_domain(tv, &n);
    for (int i = 0; ids && i < n && nf < WF_MAX_RANK * 8; i++)
        if (ids[i]->itype == IT_REDUCTION)
            found[nf++] = i;
    return nf ? found[rnd(&c->r, (unsigned)nf)] : -1;
}

static int64_t reduction_factor(fcase *c) {
    static const int64_t f[] = {2, 3, 4, 8, 16, 32, 64};
    return f[rnd(&c->r, sizeof f / sizeof *f)];
}

static void split(fcase *c, wf_tv *tv, int ax, int64_t factor) {
    fz_trace(c, "wf_tv_split(T%d, %d, %lld);", tv->id, ax, (long long)factor);
    wf_tv_split(tv, ax, factor);
}

static void parallelize(fcase *c, wf_tv *tv, int ax, wf_ptype p) {
    fz_trace(c, "wf_tv_parallelize(T%d, %d, %d);", tv->id, ax, (int)p);
    wf_tv_parallelize(tv, ax, p);
}

/* The serial part (axis ax) done first, per thread, by a new producer. */
static void rfactor(fcase *c, wf_tv *tv, int ax) {
    fz_trace(c, "wf_tv *p = wf_tv_rfactor(T%d, 1, {%d});", tv->id, ax);
    wf_tv *p = wf_tv_rfactor(tv, 1, &ax);
    c->rfactored = true;
    /* an rfactor of the rfactor producer (F19: generated only with the
       switch off, so that the other cases replay as before) */
    if (p && !(c->known && KNOWN_RFACTOR_OF_RFACTOR) && chance(&c->r, 25)) {
        int pax = reduction_axis(c, p);
        if (pax >= 0) {
            if (chance(&c->r, 60))
                split(c, p, pax, reduction_factor(c));
            fz_trace(c, "wf_tv *q = wf_tv_rfactor(T%d, 1, {%d});", p->id, pax);
            wf_tv_rfactor(p, 1, &pax);
        }
    }
    if (p && chance(&c->r, 50)) {
        int pos = (int)rnd(&c->r, (unsigned)wf_tv_ndim(p) + 1);
        fz_trace(c, "wf_tv_inline_at(T%d, %d);", p->id, pos);
        wf_tv_inline_at(p, pos);
    }
}

/* [.., r, ..] -> [.., r/f, rf{f}, ..] with the inner part on threads. */
static void sched_block(fcase *c, wf_tv *r, int ax) {
    split(c, r, ax, reduction_factor(c));
    parallelize(c, r, ax + 1, chance(&c->r, 75) ? WF_TIDX : WF_TIDY);
    if (chance(&c->r, 50))
        rfactor(c, r, ax);
}

/* [.., r, ..] -> [.., r/f2/f1 (serial), bid{f2}, tid{f1}, ..], the serial part
   rfactored now and then: thread, block and grid levels. */
static void sched_grid(fcase *c, wf_tv *r, int ax) {
    split(c, r, ax, reduction_factor(c));
    bool two_levels = chance(&c->r, 50);
    if (two_levels)
        split(c, r, ax, 1 + (int64_t)rnd(&c->r, 4));
    int at = two_levels ? ax + 1 : ax;
    parallelize(c, r, at, chance(&c->r, 75) ? WF_BIDX : WF_BIDY);
    parallelize(c, r, at + 1, WF_TIDX);
    if (two_levels && chance(&c->r, 60))
        rfactor(c, r, ax);
}

static void sched_serial(fcase *c, wf_tv *r, int ax) {
    if (chance(&c->r, 60))
        split(c, r, ax, reduction_factor(c));
    if (chance(&c->r, 30))
        parallelize(c, r, ax + 1, WF_UNROLL);
    if (chance(&c->r, 30))
        rfactor(c, r, ax);
}

/* An iteration axis of the reduction on blocks, as a row-wise reduction
   would have it. */
static void sched_rows(fcase *c, wf_tv *r) {
    int n = 0;
    wf_iterdomain *const *ids = wf_tv_loop_domain(r, &n);
    for (int i = 0; ids && i < n; i++)
        if (ids[i]->itype == IT_ITER && ids[i]->ptype == WF_SERIAL) {
            parallelize(c, r, i, chance(&c->r, 70) ? WF_BIDX : WF_TIDY);
            return;
        }
}

bool fz_sched_reduction(fcase *c) {
    if (!c->nreds)
        return false;
    wf_tv *r = c->reds[rnd(&c->r, (unsigned)c->nreds)];
    int ax = reduction_axis(c, r);
    if (ax < 0)
        return true;
    switch (rnd(&c->r, 4)) {
    case 0:
        sched_serial(c, r, ax);
        break;
    case 1:
    case 2:
        sched_block(c, r, ax);
        break;
    default:
        sched_grid(c, r, ax);
        break;
    }
    if (chance(&c->r, 50))
        sched_rows(c, r);
    return true;
}

/* ---- comparing ---- */

bool fz_close_enough(const wf_buffer *got, const wf_buffer *want, double scale, int64_t i,
                     fz_exactness how) {
    double x = ref_get(got, i), y = ref_get(want, i);
    if (x == y || (x != x && y != y))
        return true;
    if (how == FZ_EXACT || x != x || y != y || isinf(x) || isinf(y))
        return false;
    /* Float sums of at most MAX_NUMEL values in [-10, 10] (and sums of
       those): a few ulps of the partial sums, relative to the result or
       absolute near 0; 16-bit outputs round that to 8 or 11 bits. */
    bool half = how == FZ_INEXACT_HALF || got->dtype == WF_F16 || got->dtype == WF_BF16;
    double tol = half ? 2e-2 : 1e-3;
    /* Or a few f32 ulps of the partial results' magnitudes (the reference's
       scale): a difference of two products of the same values, reduced in
       two orders, is a few ulps of the products, not of its 0 (fuzz -s
       20261128 -c 127389: 26680 - 26680 gave -2^-8). */
    return fabs(x - y) <= tol * (1 + fabs(y)) || fabs(x - y) <= SCALE_ULPS * 0x1p-24 * scale;
}
