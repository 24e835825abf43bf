/*
 * rfactor.c -- TVM's rfactor on the TIR program: a reduction B[i] = B[i] + f(i, k)
 * split at one of its reduction loops r becomes two blocks:
 *
 *   "B_rf": B_rf[.., vr, ..] = B_rf[.., vr, ..] + f(i, k)   (vr spatial, the other
 *           reduction loops reduce), in the original loops;
 *   "B":    B[i] = B[i] + B_rf[.., vr, ..]                   (vr reduces), in a copy of
 *           the loops the spatial iters and r use, placed right after.
 *
 * B_rf's shape is B's with r's extent inserted at factor_axis. Iter order and names
 * follow TVM: the new iter "v<loop>" first, the spatial iters, then one reduction
 * iter per other reduction loop. The original block handle stays the write-back block
 * (it keeps the name); the new block is returned. Checks first (a reduction block with
 * T.init and one `B[..] = B[..] op x` store, op + * max min; r serial, used by
 * reduction iters only, the block alone in its loops), then the rewrite.
 */
#include "tir/tir.h"

#include <stdio.h>
#include <string.h>

static tir_var *named_var(wf_tir *s, const char *prefix, const char *name) {
    char buf[300];
    snprintf(buf, sizeof buf, "%s%.250s", prefix, name);
    return tir_var_new(s, arena_strdup(&s->arena, buf));
}

/* The update B[idx] = B[idx] op x: returns x and the op, or NULL. */
static tir_expr *combiner(const tir_stmt *st, int *kind, int *op) {
    const tir_expr *v = st->value;
    bool bin = v->kind == TE_BIN && (v->op == TB_ADD || v->op == TB_MUL);
    bool call = v->kind == TE_CALL && (v->op == TC_MAX || v->op == TC_MIN);
    if (!bin && !call)
        return NULL;
    const tir_expr *lhs = v->args[0];
    if (lhs->kind != TE_LOAD || lhs->buf != st->buf || lhs->nargs != st->nidx)
        return NULL;
    for (int d = 0; d < st->nidx; d++)
        if (!tir_expr_equal(lhs->args[d], st->idx[d]))
            return NULL;
    *kind = v->kind, *op = v->op;
    return v->args[1];
}

static tir_expr *combine(wf_tir *s, int kind, int op, tir_expr *a, tir_expr *b) {
    if (kind == TE_BIN)
        return tir_bin(s, (tir_binop)op, a, b);
    tir_expr *e = ARENA_NEW(&s->arena, tir_expr);
    tir_expr **args = ARENA_ARRAY(&s->arena, tir_expr *, 2);
    if (!e || !args || !a || !b)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    e->kind = TE_CALL, e->op = op, e->dtype = a->dtype, e->nargs = 2, e->args = args;
    args[0] = a, args[1] = b;
    return e;
}

/* A store buf[idx] = value. */
static tir_stmt *store(wf_tir *s, tir_buffer *buf, int n, tir_expr **idx, tir_expr *value) {
    tir_stmt *st = tir_stmt_new(s, TS_STORE);
    if (!st || !value)
        return NULL;
    st->buf = buf, st->nidx = n, st->idx = idx, st->value = value;
    return st;
}

static bool check(wf_tir *s, tir_block *b, tir_stmt *loop, tir_stmt **loops, int nl) {
    int kind, op;
    if (!b->init || b->body->kind != TS_STORE || !combiner(b->body, &kind, &op))
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "rfactor: the block \"%s\" is not a reduction block of the form "
                         "'B[..] = B[..] op x' (op: + * max min) with T.init()",
                         b->name);
    bool inside = false;
    for (int i = 0; i < nl; i++)
        inside |= loops[i] == loop;
    if (!inside || loop->for_kind != TIR_SERIAL)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "rfactor: the loop %s is not a serial loop around the block \"%s\"",
                         loop->loop_var->name, b->name);
    bool used = false;
    for (int k = 0; k < b->niters; k++) {
        bool uses = tir_expr_uses(b->iters[k].value, loop->loop_var);
        if (uses && !b->iters[k].reduce)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "rfactor: The loop to be applied rfactor is %s, which is required not "
                             "to be touched by any data parallel block iter of the block below "
                             "(%s touches it)",
                             loop->loop_var->name, b->iters[k].var->name);
        used |= uses;
    }
    if (!used)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "rfactor: no reduction iter of the block \"%s\" uses the loop %s", b->name,
                         loop->loop_var->name);
    for (int i = 0; i < nl; i++) {
        int nblocks = 0;
        for (int j = 0; j < s->blocks.n; j++)
            for (tir_stmt *p = s->blocks.ptr[j]->stmt->parent; !s->blocks.ptr[j]->dead && p;
                 p = p->parent)
                nblocks += p == loops[i];
        if (nblocks > 1)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "rfactor: not supported yet: the loop %s holds other blocks too",
                             loops[i]->loop_var->name);
    }
    return true;
}

/* Is loop l used by a spatial iter of b? */
static bool spatial_loop(const tir_block *b, const tir_stmt *l) {
    for (int k = 0; k < b->niters; k++)
        if (!b->iters[k].reduce && tir_expr_uses(b->iters[k].value, l->loop_var))
            return true;
    return false;
}

static bool reduce_loop(const tir_block *b, const tir_stmt *l) {
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].reduce && tir_expr_uses(b->iters[k].value, l->loop_var))
            return true;
    return false;
}

/* Builds B_rf's iters and the substitution old reduce iter -> its value in new iters. */
static tir_block *rf_block(wf_tir *s, tir_block *b, tir_stmt *loop, tir_stmt **loops, int nl,
                           tir_var **from, tir_expr **to, int *nsub) {
    tir_block *rf = ARENA_NEW(&s->arena, tir_block);
    tir_iter *its = ARENA_ARRAY(&s->arena, tir_iter, b->niters + nl + 1);
    tir_var *lv[TIR_MAX_LOOPS];
    tir_expr *lx[TIR_MAX_LOOPS];
    if (!rf || !its)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    int n = 0;
    its[n++] = (tir_iter){named_var(s, "v", loop->loop_var->name), loop->extent, false,
                          tir_var_ref(s, loop->loop_var)};
    for (int k = 0; k < b->niters; k++)
        if (!b->iters[k].reduce)
            its[n++] = b->iters[k];
    for (int i = 0; i < nl; i++) {
        lv[i] = loops[i]->loop_var, lx[i] = NULL;
        if (loops[i] == loop)
            lx[i] = tir_var_ref(s, its[0].var);
        else if (reduce_loop(b, loops[i])) {
            its[n] = (tir_iter){named_var(s, "v", loops[i]->loop_var->name), loops[i]->extent, true,
                                tir_var_ref(s, loops[i]->loop_var)};
            lx[i] = tir_var_ref(s, its[n++].var);
        } else
            lx[i] = tir_var_ref(s, loops[i]->loop_var);
    }
    *nsub = 0;
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].reduce) {
            from[*nsub] = b->iters[k].var;
            to[(*nsub)++] = tir_subst(s, b->iters[k].value, nl, lv, lx);
        }
    char name[300];
    snprintf(name, sizeof name, "%.250s_rf", b->name);
    rf->name = arena_strdup(&s->arena, name);
    rf->iters = its, rf->niters = n;
    rf->where = b->where; /* the same loops: a split's bound still holds */
    return err_set(&s->err) ? NULL : rf;
}

static int64_t extent_of(tir_stmt *const *loops, int nl, const tir_var *v) {
    for (int i = 0; i < nl; i++)
        if (loops[i]->loop_var == v)
            return loops[i]->extent;
    return 1;
}

/* The write-back: b itself, moved into a copy of the loops its spatial iters and the
   rfactor loop use, reading B_rf; the original loops now hold rf. */
static bool rfactor_finish(wf_tir *s, tir_block *b, tir_block *rf, tir_buffer *buf, tir_stmt *loop,
                           tir_stmt **loops, int nl, int factor_axis, int kind, int op) {
    tir_stmt *st = b->body;
    tir_var *lv[TIR_MAX_LOOPS], *nv[TIR_MAX_LOOPS];
    tir_expr *nx[TIR_MAX_LOOPS];
    int m = 0;
    for (int i = 0; i < nl; i++)
        if (loops[i] == loop || spatial_loop(b, loops[i])) {
            lv[m] = loops[i]->loop_var;
            nv[m] = tir_var_new(s, loops[i]->loop_var->name);
            nx[m] = nv[m] ? tir_var_ref(s, nv[m]) : NULL;
            m++;
        }
    int ns = 0;
    tir_iter *its = ARENA_ARRAY(&s->arena, tir_iter, b->niters + 1);
    tir_var *sold[TIR_MAX_LOOPS + 1];
    tir_expr *snew[TIR_MAX_LOOPS + 1];
    if (!its || err_set(&s->err))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    int n = 0;
    its[n++] = (tir_iter){named_var(s, "v", loop->loop_var->name), loop->extent, true,
                          tir_subst(s, rf->iters[0].value, m, lv, nx)};
    for (int k = 0; k < b->niters; k++)
        if (!b->iters[k].reduce && ns < TIR_MAX_LOOPS) {
            tir_iter it = b->iters[k];
            sold[ns] = it.var;
            it.var = tir_var_new(s, it.var->name);
            it.value = tir_subst(s, it.value, m, lv, nx);
            snew[ns++] = it.var ? tir_var_ref(s, it.var) : NULL;
            its[n++] = it;
        }
    int ndim = st->nidx;
    tir_expr **widx = ARENA_ARRAY(&s->arena, tir_expr *, ndim);
    tir_expr **ridx = ARENA_ARRAY(&s->arena, tir_expr *, ndim + 1);
    if (!widx || !ridx || err_set(&s->err))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    for (int d = 0; d < ndim; d++)
        widx[d] = tir_subst(s, st->idx[d], ns, sold, snew);
    for (int d = 0, e = 0; d <= ndim; d++) {
        bool ins = d == factor_axis;
        ridx[d] = ins ? tir_var_ref(s, its[0].var) : widx[e];
        e += !ins;
    }
    tir_stmt *init = store(s, st->buf, ndim, widx, b->init->value);
    tir_stmt *body = store(
        s, st->buf, ndim, widx,
        combine(s, kind, op, tir_load(s, st->buf, ndim, widx), tir_load(s, buf, ndim + 1, ridx)));
    tir_stmt *rst = tir_stmt_new(s, TS_BLOCK);
    if (!init || !body || !rst || err_set(&s->err))
        return false;
    /* rf takes b's place in the original loops; b moves to the new nest */
    rst->block = rf, rf->stmt = rst;
    tir_replace(s, b->stmt, rst);
    tir_fix_parents(rst, rst->parent);
    b->iters = its, b->niters = n, b->init = init, b->body = body, b->where = NULL;
    tir_fix_parents(b->stmt, NULL);
    tir_stmt *top = b->stmt;
    for (int i = m - 1; i >= 0 && top; i--)
        top = tir_for_new(s, nv[i], extent_of(loops, nl, lv[i]), top);
    if (!top || !vec_push_arena(&s->arena, &s->root_allocs, buf) ||
        !vec_push_arena(&s->arena, &s->blocks, rf))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    return tir_insert_after(s, rst, top);
}

tir_block *tir_rfactor(wf_tir *s, tir_stmt *loop, int factor_axis) {
    tir_block *b = NULL;
    for (int i = 0; i < s->blocks.n && !b; i++) {
        tir_block *x = s->blocks.ptr[i];
        for (tir_stmt *p = x->stmt->parent; !x->dead && p && !b; p = p->parent)
            b = p == loop ? x : NULL;
    }
    /* a live loop holds a live block: primitives that remove a block remove the loops
       left empty with it */
    err_assert(&s->err, b != NULL);
    if (!b)
        return NULL;
    tir_stmt *loops[TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    if (!check(s, b, loop, loops, nl))
        return NULL;
    tir_stmt *st = b->body;
    int ndim = st->buf->ndim;
    if (factor_axis < 0)
        factor_axis += ndim + 1;
    if (factor_axis < 0 || factor_axis > ndim || ndim + 1 > WF_MAX_RANK)
        return err_fail(&s->err, WF_ERR_ARG,
                        "rfactor: The input `factor_axis` is out of range. It is required to be in "
                        "range [-(ndim + 1), ndim] where `ndim` is the number of dimensions of the "
                        "write buffer %s (%d)",
                        st->buf->name, ndim);
    int kind, op;
    tir_expr *x = combiner(st, &kind, &op), *init = b->init->value;
    tir_var *from[TIR_MAX_LOOPS];
    tir_expr *to[TIR_MAX_LOOPS];
    int nsub = 0;
    tir_block *rf = rf_block(s, b, loop, loops, nl, from, to, &nsub);
    tir_buffer *buf = rf ? ARENA_NEW(&s->arena, tir_buffer) : NULL;
    if (!buf)
        return NULL;
    /* B_rf: B's shape with the loop's extent at factor_axis */
    char name[300];
    snprintf(name, sizeof name, "%.250s_rf", st->buf->name);
    *buf = *st->buf;
    buf->is_param = false, buf->scope = TIR_GLOBAL, buf->name = arena_strdup(&s->arena, name);
    buf->ndim = ndim + 1;
    tir_expr **idx = ARENA_ARRAY(&s->arena, tir_expr *, ndim + 1);
    if (!idx)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    for (int d = 0, e = 0; d <= ndim; d++) {
        bool ins = d == factor_axis;
        buf->shape[d] = ins ? loop->extent : st->buf->shape[e];
        idx[d] = ins ? tir_var_ref(s, rf->iters[0].var) : st->idx[e];
        e += !ins;
    }
    rf->init = store(s, buf, ndim + 1, idx, init);
    rf->body = store(
        s, buf, ndim + 1, idx,
        combine(s, kind, op, tir_load(s, buf, ndim + 1, idx), tir_subst(s, x, nsub, from, to)));
    if (!rf->init || !rf->body)
        return NULL;
    return rfactor_finish(s, b, rf, buf, loop, loops, nl, factor_axis, kind, op) ? rf : NULL;
}
