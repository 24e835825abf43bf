/*
 * inplace.c -- which (input, output) pairs of a kernel may share one buffer.
 *
 * A kernel reads its inputs while it writes its outputs, so a caller who
 * passes an input's buffer as an output's (an in-place run) gets a wrong
 * answer wherever one thread writes a cell that another thread, or a later
 * iteration, still reads: a transpose in place loses the elements it
 * overwrote first. The runtime (runtime/launch.c) refuses every overlap of
 * an output with an input or another output, except for the pairs this
 * analysis proves safe, and then only when the two buffers are the same
 * array (same address, shape and strides), never a partial overlap.
 *
 * The proof, per pair (input Ti, output To), from the kernel IR after
 * lowering (indices, loops and predicates in place):
 *  - To is written by one statement S, a plain elementwise one (no
 *    reduction step, a synchronous set) with the same element type as Ti;
 *  - every read of Ti in the kernel is in S, or in a plain statement before
 *    S in the same loop body (a cache of Ti in registers), at the index S
 *    writes To at, once both buffers are taken to be the same dense array
 *    (Ti's stride symbols become the dense strides, To's size symbols Ti's):
 *    each thread reads a cell just before it writes that same cell;
 *  - no two iterations or threads write one cell (so none reads a cell
 *    another one already wrote): every loop around S iterates To's own loop
 *    domain (same extents, so no broadcast resolved by a consumer repeats
 *    it) and its index appears in the written index, and every launched
 *    thread or block dimension either appears there or is narrowed to one
 *    writer by a predicate around S.
 * Anything else -- a permute, a broadcast read, a stencil-like reuse, a
 * reduction, an input read by a second statement -- is not proved safe.
 */
#include "lower/lower_int.h"

typedef VEC(kir_node *) stmt_list;

static bool collect(wf_arena *a, const kir_list *l, stmt_list *out) {
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        if (n->kind == KIR_STMT && !vec_push_arena(a, out, n))
            return false;
        const kir_list *body = kir_body(n);
        if (body && !collect(a, body, out))
            return false;
    }
    return true;
}

/* The dense stride of ti's dim d in its own extents: what both buffers'
   strides are when they are one array (an output is always dense). */
static const wf_val *dense_stride(wf_arena *a, const wf_tv *ti, int d) {
    const wf_val *s = val_const(a, 1);
    for (int e = ir_tv_rank(ti) - 1; e > d; e--)
        s = val_mul(a, s, ti->logical.ptr[ir_tv_dim(ti, e)]->extent);
    return s;
}

/* v with both buffers taken to be one array, rebuilt through the
   simplifying constructors (so x / n * n + x % n folds back to x). */
static const wf_val *same_array(wf_arena *a, const wf_val *v, const wf_tv *ti, const wf_tv *to) {
    if (!v || v->kind == V_CONST)
        return v;
    if (v->kind == V_SYM) {
        if (v->sym == SYM_STRIDE && (v->sym_a == ti->id || v->sym_a == to->id))
            return v->sym_b < ir_tv_rank(ti) ? dense_stride(a, ti, v->sym_b) : NULL;
        if (v->sym == SYM_SIZE && v->sym_a == to->id)
            return v->sym_b < ir_tv_rank(ti) ? ti->logical.ptr[ir_tv_dim(ti, v->sym_b)]->extent
                                             : NULL;
        return v;
    }
    const wf_val *x = same_array(a, v->a, ti, to), *y = same_array(a, v->b, ti, to);
    if (!x || !y)
        return NULL;
    return val_binary(a, v->kind, x, y);
}

static bool reads(const kir_stmt *s, const wf_tv *tv) {
    for (int j = 0; j < s->op->nin; j++)
        if (s->op->in[j] == tv)
            return true;
    return false;
}

/* Is loop n one of to's own loops, with to's extent (not a promoted one)? */
static bool own_loop(lower_ctx *c, const kir_node *n, const wf_tv *to) {
    for (int i = 0; i < to->loop.n; i++) {
        const wf_iterdomain *id = to->loop.ptr[i];
        if (c->loops.group_of[id->id] == n->u.loop.group)
            return val_equal(n->u.loop.extent, id->extent);
    }
    return false;
}

/* No two iterations or threads of s write one cell of its output. */
static bool one_writer_per_cell(lower_ctx *c, const kir_node *s) {
    const wf_val *idx = s->u.stmt.out_index;
    for (const kir_node *n = s->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || val_is_const(n->u.loop.var))
            continue; /* a vector access or a loop without iterations */
        const wf_val *var = n->u.loop.var;
        if (!own_loop(c, n, s->u.stmt.op->out) || !val_uses_sym(idx, var->sym, var->sym_a))
            return false;
    }
    for (int d = 0; d < NPDIMS; d++) {
        sym_kind k = lower_pdim_table[d].grid ? SYM_BID : SYM_TID;
        int axis = lower_pdim_table[d].axis;
        if (val_is_const_eq(c->pdim[d], 1) || val_uses_sym(idx, k, axis))
            continue;
        bool guarded = false; /* predicate.c's single writer, or a bounds predicate picking one */
        for (const kir_node *n = s->parent; n && !guarded; n = n->parent)
            guarded = n->kind == KIR_IF && val_uses_sym(n->u.cond.cond, k, axis);
        if (!guarded)
            return false;
    }
    return true;
}

static int index_of(const stmt_list *stmts, const kir_node *n) {
    for (int i = 0; i < stmts->n; i++)
        if (stmts->ptr[i] == n)
            return i;
    return -1;
}

/* The loop (or warp region) whose body holds n, past the IFs of predicates;
   NULL at the top level. Statements with one body run in one iteration, in
   program order (the order collect lists them in). */
static const kir_node *body_of(const kir_node *n) {
    const kir_node *p = n->parent;
    while (p && p->kind == KIR_IF)
        p = p->parent;
    return p;
}

static bool pair_safe(lower_ctx *c, const stmt_list *stmts, const wf_tv *ti, const wf_tv *to) {
    if (ti->dtype != to->dtype || ir_tv_rank(ti) != ir_tv_rank(to))
        return false;
    const kir_node *w = NULL;
    for (int i = 0; i < stmts->n; i++) {
        const kir_stmt *s = &stmts->ptr[i]->u.stmt;
        if (s->op->out == to) {
            if (w)
                return false; /* a reduction's init, steps and store */
            w = stmts->ptr[i];
        }
    }
    if (!w)
        return false;
    const kir_stmt *ws = &w->u.stmt;
    if (ws->red != KRED_NONE || ws->copy != WF_LDST_SET || !ws->out_index)
        return false;
    const wf_val *out = same_array(c->a, ws->out_index, ti, to);
    bool read = false;
    for (int i = 0; i < stmts->n; i++) {
        const kir_node *r = stmts->ptr[i];
        if (!reads(&r->u.stmt, ti))
            continue;
        /* the write itself, or a statement before it in the same iteration */
        if (r != w && (i > index_of(stmts, w) || body_of(r) != body_of(w) ||
                       r->u.stmt.red != KRED_NONE || r->u.stmt.copy != WF_LDST_SET))
            return false;
        for (int j = 0; j < r->u.stmt.op->nin; j++) {
            if (r->u.stmt.op->in[j] != ti)
                continue;
            const wf_val *in = same_array(c->a, r->u.stmt.in_index[j], ti, to);
            if (!in || !out || !val_equal(in, out))
                return false;
        }
        read = true;
    }
    return read && one_writer_per_cell(c, w);
}

bool lower_in_place(lower_ctx *c) {
    lower_result *r = c->out;
    stmt_list stmts = {0};
    if (!collect(c->a, &r->top, &stmts))
        return false;
    for (int i = 0; i < r->params.n; i++) {
        const lower_param *pi = &r->params.ptr[i];
        if (pi->is_output || pi->kind != KP_TENSOR)
            continue;
        for (int o = 0; o < r->params.n; o++) {
            const lower_param *po = &r->params.ptr[o];
            if (!po->is_output || po->kind != KP_TENSOR || !pair_safe(c, &stmts, pi->tv, po->tv))
                continue;
            lower_in_place_pair p = {i, o};
            if (!vec_push_arena(c->a, &r->in_place, p))
                return false;
        }
    }
    return !c->a->failed;
}
