/*
 * interp_reduce.c -- the executor's reductions: init, serial step and block
 * reduction, with the generated CUDA's semantics and order.
 *
 * Values are held in the output's compute type (float for f32 and 16-bit
 * floats, double, int64), as the CUDA code holds them. The initial values are
 * the IR's (ir_reduce_init_value, as codegen's); the NaN rule (max and min
 * return a NaN operand: (a != a || a > b) ? a : b) is codegen/reduce.c's. A
 * block reduction runs for the whole block at once, which the lockstep
 * executor makes natural: every thread's contribution (its input where the
 * read predicate holds, else the initial value), then per group of threads
 * that differ only in the reduced dims the same combination order as
 * wf_block_reduce (its warp path or its shared-memory tree, chosen by the
 * same rule: codegen/reduce.c) so that results are the GPU's bit for bit; then the threads whose
 * write predicate holds fold the result into the output. A block reduction that only some threads
 * of the block reach would hang the GPU (its barriers): it is reported.
 */
#include "base/heap.h"
#include "runtime/interp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The reduction's identity (ir_reduce_init_value) in t's compute type. */
static ix_value init_value(int op, wf_dtype t) {
    ix_value v = {0};
    ir_scalar s = ir_reduce_init_value(op, t);
    switch (ix_ctype_of(t)) {
    case IX_CT_FLOAT:
        v.f = (float)s.f;
        break;
    case IX_CT_DOUBLE:
        v.d = s.f;
        break;
    case IX_CT_INT:
        v.i = s.i;
        break;
    }
    return v;
}

/* op(a, b) in t's compute type c (ix_ctype_of(t)). */
static IX_INLINE ix_value combine_c(int op, ix_value a, ix_value b, ix_ctype c) {
    if (op == WF_ADD || op == WF_MUL)
        return ix_binary_fast(op, a, b, c);
    bool mx = op == WF_MAX, first;
    switch (c) {
    case IX_CT_FLOAT:
        first = a.f != a.f || (mx ? a.f > b.f : a.f < b.f);
        break;
    case IX_CT_DOUBLE:
        first = a.d != a.d || (mx ? a.d > b.d : a.d < b.d);
        break;
    default:
        first = mx ? a.i > b.i : a.i < b.i;
        break;
    }
    return first ? a : b;
}

static ix_value combine(int op, ix_value a, ix_value b, wf_dtype t) {
    return combine_c(op, a, b, ix_ctype_of(t));
}

/* The per-thread results of one statement's expressions, copied out of the
   register file (each evaluation reuses it). */
typedef struct {
    int64_t *v[5]; /* out index, in index, read predicate, write predicate, in 1's index */
    bool vary[5];
} evals;

static bool eval_into(ix_exec *x, const in_node *n, const ix_expr *e, int64_t *dst, bool *vary) {
    const int64_t *r;
    if (!ix_eval(x, e, &r, vary))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    memcpy(dst, r, sizeof(int64_t) * (size_t)(*vary ? x->nthreads : 1));
    return true;
}

static bool eval_all(ix_exec *x, const in_node *n, evals *ev) {
    const ix_expr *e[4] = {&n->out_index, &n->in_index[0], &n->rpred, &n->wpred};
    int m = n->red >= KRED_BLOCK ? 4 : n->nin ? 2 : 1;
    for (int i = 0; i < m; i++)
        if (!eval_into(x, n, e[i], ev->v[i], &ev->vary[i]))
            return false;
    return n->nin < 2 || eval_into(x, n, &n->in_index[1], ev->v[4], &ev->vary[4]);
}

static int64_t at(const evals *ev, int i, int t) {
    return ev->v[i][ev->vary[i] ? t : 0];
}

/* What one execution of a reduction statement needs of its types. */
typedef struct {
    wf_dtype od;     /* the output's type, which values are held in */
    ix_ctype oct;    /* its compute type */
    ix_ctype ict[2]; /* the inputs' compute types */
    wf_dtype idt[2]; /* the inputs' types */
    ix_fast_view fin[2], fout;
    ix_fast_block fb;
} red_types;

static red_types types_of(ix_exec *x, const in_node *n) {
    red_types r;
    r.od = x->view[n->out].dtype;
    r.oct = ix_ctype_of(r.od);
    for (int k = 0; k < 2 && k < n->nin; k++) {
        r.idt[k] = x->view[n->in[k]].dtype;
        r.ict[k] = ix_ctype_of(r.idt[k]);
        r.fin[k] = ix_fast_view_of(x, n->in[k]);
    }
    r.fout = ix_fast_view_of(x, n->out);
    r.fb = ix_fast_block_of(x, &r.fout);
    return r;
}

/* Element `index` of a tensor (its view fv, type dt of compute type from_ct)
   for thread t, checked, in the output's type. */
static IX_INLINE bool load(ix_exec *x, const in_node *n, int tensor, const ix_fast_view *fv,
                           wf_dtype dt, ix_ctype from_ct, int64_t index, int t, const red_types *ty,
                           ix_value *v) {
    const unsigned char *p = ix_fast(&ty->fb, fv, index, t, false);
    if (!p && !(p = ix_access(x, n, tensor, index, t, false)))
        return false;
    *v = ix_convert_ct(ix_load_fast(dt, p), from_ct, ty->od, ty->oct);
    return true;
}

/* What thread t folds in: its input, or for a wf_mma the product of its two
   inputs, each converted to the compute type `to` and the product rounded
   once to it (exact for 16-bit inputs in f32), as the CUDA code's wf_mmul. */
static IX_INLINE bool input(ix_exec *x, const in_node *n, const evals *ev, int t,
                            const red_types *ty, ix_value *v) {
    ix_value b;
    if (!load(x, n, n->in[0], &ty->fin[0], ty->idt[0], ty->ict[0], at(ev, 1, t), t, ty, v))
        return false;
    if (n->nin < 2)
        return true;
    if (!load(x, n, n->in[1], &ty->fin[1], ty->idt[1], ty->ict[1], at(ev, 4, t), t, ty, &b))
        return false;
    *v = ix_binary_fast(WF_MUL, *v, b, ty->oct);
    return true;
}

/* Thread t's float accumulator of statement n (kir_stmt.acc), the CUDA
   code's register wf_acc<k>; allocated when first used. */
static ix_value *acc_of(ix_exec *x, const in_node *n, int t) {
    if (n->acc > x->nacc) {
        ix_value *a = heap_realloc(x->acc, sizeof(ix_value) * (size_t)n->acc * (size_t)x->nthreads);
        if (!a) {
            ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
            return NULL;
        }
        x->acc = a;
        x->nacc = n->acc;
    }
    return &x->acc[(size_t)(n->acc - 1) * (size_t)x->nthreads + (size_t)t];
}

/* out = op(out, v) for thread t (acc = op(acc, v) where it has one). */
static IX_INLINE bool fold(ix_exec *x, const in_node *n, const evals *ev, int t,
                           const red_types *ty, ix_value v) {
    ix_value cur, *acc = n->acc > 0 ? acc_of(x, n, t) : NULL;
    if (acc)
        *acc = combine_c(n->sub, *acc, v, ty->oct);
    if (n->acc > 0)
        return acc != NULL;
    if (!load(x, n, n->out, &ty->fout, ty->od, ty->oct, at(ev, 0, t), t, ty, &cur))
        return false;
    unsigned char *p = ix_fast(&ty->fb, &ty->fout, at(ev, 0, t), t, true);
    if (!p && !(p = ix_access(x, n, n->out, at(ev, 0, t), t, true)))
        return false;
    ix_store_fast(ty->od, p, combine_c(n->sub, cur, v, ty->oct));
    return true;
}

/* KRED_SERIAL's steps for every active thread; f32 (a constant where it is
   called, so that the compiler specializes) says every type is f32. */
static IX_INLINE bool serial_steps(ix_exec *x, const in_node *n, const evals *ev,
                                   const red_types *types, bool f32) {
    red_types ty = *types;
    if (f32) {
        ty.od = ty.idt[0] = ty.idt[1] = WF_F32;
        ty.oct = ty.ict[0] = ty.ict[1] = IX_CT_FLOAT;
    }
    evals e = *ev; /* in registers: stores through byte pointers cannot change it */
    const uint8_t *mask = x->mask;
    for (int t = 0; t < x->nthreads; t++) {
        ix_value v;
        if (mask[t] && (!input(x, n, &e, t, &ty, &v) || !fold(x, n, &e, t, &ty, v)))
            return false;
    }
    return true;
}

static bool serial(ix_exec *x, const in_node *n, const evals *ev) {
    red_types ty = types_of(x, n);
    wf_dtype od = ty.od;
    if (n->red == KRED_SERIAL) {
        bool f32 = od == WF_F32 && (n->nin < 1 || ty.idt[0] == WF_F32) &&
                   (n->nin < 2 || ty.idt[1] == WF_F32);
        return f32 ? serial_steps(x, n, ev, &ty, true) : serial_steps(x, n, ev, &ty, false);
    }
    ix_value init = init_value(n->sub, od);
    for (int t = 0; t < x->nthreads; t++) {
        if (!x->mask[t])
            continue;
        if (n->red == KRED_INIT && n->acc > 0) {
            ix_value *acc = acc_of(x, n, t);
            if (!acc)
                return false;
            *acc = init;
            continue;
        }
        if (n->red == KRED_FINAL) { /* rounds once, as the CUDA code's store */
            const ix_value *acc = acc_of(x, n, t);
            unsigned char *p = acc ? ix_access(x, n, n->out, at(ev, 0, t), t, true) : NULL;
            if (!p)
                return false;
            ix_store_fast(od, p, *acc);
            continue;
        }
        unsigned char *p = ix_access(x, n, n->out, at(ev, 0, t), t, true); /* KRED_INIT */
        if (!p)
            return false;
        ix_store(od, p, init);
    }
    return true;
}

/* A thread's group (the coordinates of the dims not reduced) and its index r
   in the group, both x fastest, as wf_block_reduce computes them. */
static void place(const ix_exec *x, unsigned red, int t, int64_t *g, int64_t *r, int64_t *R) {
    const int64_t *b = x->l->block;
    int64_t rr = 0, gg = 0, rn = 1, gn = 1;
    for (int d = 0; d < 3; d++) {
        int64_t c = x->tid[d][t];
        if (red & (1u << d)) {
            rr += c * rn;
            rn *= b[d];
        } else {
            gg += c * gn;
            gn *= b[d];
        }
    }
    *g = gg;
    *r = rr;
    *R = rn;
}

/* The halving tree over w[0..R) in place (wf_block_reduce's shared-memory
   path, and the shuffle steps of its warp path, with R = L): for s = P/2,
   ..., 1 (P the least power of two >= R), w[r] = op(w[r], w[r + s]) for
   r < s and r + s < R. */
static void halve(ix_value *w, int64_t R, int op, wf_dtype t) {
    int64_t p = 1;
    while (p < R)
        p <<= 1;
    for (int64_t s = p >> 1; s > 0; s >>= 1)
        for (int64_t r = 0; r < s && r + s < R; r++)
            w[r] = combine(op, w[r], w[r + s], t);
}

/* The spacing S of a group's threads in linear thread order (x fastest)
   when wf_block_reduce takes its warp path, or 0: the groups' threads lie S
   apart (S divides 32), so a warp holds L = 32 / S members of each of S
   groups, and R is a multiple of L; the two slots of per-warp partials fit
   the workspace (8 bytes a thread) for the compute type's size. */
static int64_t warp_spacing(const int64_t *b, unsigned red, int64_t R, size_t size) {
    bool rx = red & 1u, ry = red & 2u, rz = red & 4u;
    int64_t S = rx ? 1 : ry ? b[0] : b[0] * b[1];
    if ((rx && !ry && rz && b[1] != 1) || S > 32 || 32 % S != 0 || R % (32 / S) != 0 ||
        size > (size_t)(4 * (32 / S)))
        return 0;
    return S;
}

/* One group's values w[0..R) (member r at w[r]) reduced into w[0] in
   wf_block_reduce's order. Warp path (S > 0): each warp's L members
   (consecutive in r) halve by shuffles into a partial; with W = R / L > 1
   partials, member j < M = min(W, L) folds partials j, j + L, j + 2L, ...
   in that order, and the M results halve by shuffles. Otherwise the
   shared-memory tree over all R. */
static void group_reduce(ix_value *w, int64_t R, int64_t S, int op, wf_dtype t) {
    if (S == 0) {
        halve(w, R, op, t);
        return;
    }
    int64_t L = 32 / S, W = R / L, M = W < L ? W : L;
    for (int64_t q = 0; q < W; q++) {
        halve(w + q * L, L, op, t);
        w[q] = w[q * L]; /* q * L >= q: partial q no longer needed in place */
    }
    if (W == 1)
        return;
    for (int64_t j = 0; j < M; j++)
        for (int64_t k = j + L; k < W; k += L)
            w[j] = combine(op, w[j], w[k], t);
    halve(w, M, op, t);
}

static void tree(const ix_exec *x, ix_value *w, unsigned red, int64_t R, int op, wf_dtype t) {
    size_t size = ir_dtype(ir_dtype(t)->compute)->size;
    int64_t S = warp_spacing(x->l->block, red, R, size), groups = x->nthreads / R;
    for (int64_t g = 0; g < groups; g++)
        group_reduce(w + g * R, R, S, op, t);
}

/* ---- grid reductions (codegen/reduce.c's wf_grid_reduce) ----
   The work buffer holds, per group of blocks that differ only in reduced
   block dims (gb) and per group of threads that differ only in reduced
   thread dims (gt), one partial result per block of the group (rb), with a
   flag per slot: a slot written twice in a launch is a work-buffer race (a
   lowering bug), reported. Blocks run in order, so the last block to
   arrive at a group's semaphore is its last block in that order. */
struct ix_grid {
    ix_value *work;
    uint8_t *written;
    int64_t *arrived; /* per gb */
    int64_t nt, nrb, ngb;
};

static void split_dims(const int64_t *ext, const int64_t *idx, unsigned red, int64_t *in,
                       int64_t *nin, int64_t *out, int64_t *nout) {
    *in = *out = 0;
    *nin = *nout = 1;
    for (int d = 0; d < 3; d++)
        if (red & (1u << d)) {
            *in += idx[d] * *nin;
            *nin *= ext[d];
        } else {
            *out += idx[d] * *nout;
            *nout *= ext[d];
        }
}

static struct ix_grid *grid_state(ix_exec *x, const in_node *n, int64_t nit) {
    if (x->grid)
        return x->grid;
    struct ix_grid *g = heap_calloc(1, sizeof *g);
    int64_t zero[3] = {0, 0, 0}, i;
    if (!g)
        return NULL;
    split_dims(x->l->grid, zero, n->red_bids, &i, &g->nrb, &i, &g->ngb);
    g->ngb *= nit;
    split_dims(x->l->block, zero, n->red_tids, &i, &i, &i, &g->nt);
    size_t slots = (size_t)(g->ngb * g->nt * g->nrb);
    g->work = heap_malloc(sizeof(ix_value) * slots);
    g->written = heap_calloc(slots, 1);
    g->arrived = heap_calloc((size_t)g->ngb, sizeof(int64_t));
    x->grid = g;
    return g->work && g->written && g->arrived ? g : NULL;
}

void ix_reduce_free(ix_exec *x) {
    free(x->acc);
    x->acc = NULL;
    x->nacc = 0;
    if (!x->grid)
        return;
    free(x->grid->work);
    free(x->grid->written);
    free(x->grid->arrived);
    free(x->grid);
    x->grid = NULL;
}

/* A value uniform over the block (a loop variable or size expression). */
static bool uniform(ix_exec *x, const in_node *n, const ix_expr *e, int64_t *v) {
    const int64_t *r;
    bool vary;
    if (!ix_eval(x, e, &r, &vary))
        return ix_fail(x, WF_ERR_SCHEDULE, "an index overflows in statement: %s", n->text);
    *v = r[0];
    return true;
}

static bool grid(ix_exec *x, const in_node *n, const evals *ev, const ix_value *bres) {
    int64_t rb, nrb, gb, ngb, r, R, gt, NT, it = 0, nit = 1;
    if (!uniform(x, n, &n->giter, &it) || !uniform(x, n, &n->gniter, &nit))
        return false;
    struct ix_grid *g = grid_state(x, n, nit);
    wf_dtype od = x->p->tensors[n->out].dtype;
    if (!g)
        return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    split_dims(x->l->grid, x->bid, n->red_bids, &rb, &nrb, &gb, &ngb);
    gb = gb * nit + it;
    for (int t = 0; t < x->nthreads; t++) {
        int64_t tid[3] = {x->tid[0][t], x->tid[1][t], x->tid[2][t]};
        split_dims(x->l->block, tid, n->red_tids, &r, &R, &gt, &NT);
        int64_t slot = (gb * g->nt + gt) * g->nrb + rb;
        if (r != 0)
            continue; /* the group's lead thread stores the block's result */
        if (g->written[slot])
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "work-buffer race: the partial result %lld of T%d's grid reduction "
                           "was written twice in one launch, in statement: %s",
                           (long long)slot, x->p->tensors[n->out].tv, n->text);
        g->written[slot] = 1;
        g->work[slot] = bres[t];
    }
    if (++g->arrived[gb] < g->nrb)
        return true; /* not the last block of its group */
    for (int t = 0; t < x->nthreads; t++) {
        int64_t tid[3] = {x->tid[0][t], x->tid[1][t], x->tid[2][t]};
        split_dims(x->l->block, tid, n->red_tids, &r, &R, &gt, &NT);
        ix_value v = init_value(n->sub, od);
        for (int64_t i = 0; i < g->nrb; i++)
            v = combine(n->sub, v, g->work[(gb * g->nt + gt) * g->nrb + i], od);
        unsigned char *p = at(ev, 3, t) ? ix_access(x, n, n->out, at(ev, 0, t), t, true) : NULL;
        if (at(ev, 3, t) && !p)
            return false;
        if (p)
            ix_store(od, p, v);
    }
    return true;
}

static bool block(ix_exec *x, const in_node *n, const evals *ev, ix_value *w) {
    red_types ty = types_of(x, n);
    wf_dtype od = ty.od;
    int64_t g, r, R = 1;
    for (int t = 0; t < x->nthreads; t++)
        if (!x->mask[t])
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "a block reduction is reached by only some threads of block (%lld, "
                           "%lld, %lld) (its barriers would hang), in statement: %s",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                           n->text);
    for (int t = 0; t < x->nthreads; t++) {
        ix_value v = init_value(n->sub, od);
        place(x, n->red_tids, t, &g, &r, &R);
        if (at(ev, 2, t) && !input(x, n, ev, t, &ty, &v))
            return false;
        w[g * R + r] = v;
    }
    tree(x, w, n->red_tids, R, n->sub, od);
    ix_value *bres = w + x->nthreads; /* every thread's block result */
    for (int t = 0; t < x->nthreads; t++) {
        place(x, n->red_tids, t, &g, &r, &R);
        bres[t] = w[g * R];
    }
    if (n->red == KRED_GRID)
        return grid(x, n, ev, bres);
    for (int t = 0; t < x->nthreads; t++)
        if (at(ev, 3, t) && !fold(x, n, ev, t, &ty, bres[t]))
            return false;
    return true;
}

bool ix_reduce_stmt(ix_exec *x, const in_node *n) {
    size_t T = (size_t)x->nthreads;
    ix_value *w = x->rwork; /* ix_exec_init: 2 x T values, 5 x T indices */
    evals ev;
    for (int i = 0; i < 5; i++)
        ev.v[i] = x->rindex + (size_t)i * T;
    bool ok = eval_all(x, n, &ev);
    ok = ok && (n->red >= KRED_BLOCK ? block(x, n, &ev, w) : serial(x, n, &ev));
    if (ok) {
        ix_record_stats(x, n, n->out, ev.v[0], ev.vary[0]);
        if (n->nin)
            ix_record_stats(x, n, n->in[0], ev.v[1], ev.vary[1]);
        if (n->nin > 1)
            ix_record_stats(x, n, n->in[1], ev.v[4], ev.vary[4]);
    }
    return ok;
}
