/*
 * tma_issue.c -- the thread that issues TMA copies and operates their
 * mbarriers (seed 001; PTX ISA "elect.sync").
 *
 * One thread of the block issues a box (unless the consumer's non-tile
 * axes are on threads: copy_tma.c). Where the block has at least one full
 * warp, elect.sync picks it among the 32 threads of warp 0 (KHW_ELECT; the
 * executor elects lane 0), reached by the whole warp under a predicate that
 * does not depend on the thread; otherwise the predicate
 * `threadIdx.x == 0 && ...` over the launched thread dimensions does.
 */
#include "lower/copy.h"

/* `if (threadIdx.x == 0 && ...) { n }` over the launched thread dimensions. */
kir_node *lower_tma_one_thread(lower_ctx *c, kir_node *n) {
    wf_arena *a = c->a;
    const wf_val *cond = NULL;
    for (int d = 0; d < 3; d++) {
        if (val_is_const_eq(c->pdim[d], 1))
            continue;
        const lower_pdim *p = &lower_pdim_table[d];
        const wf_val *tid = val_sym(a, SYM_TID, p->axis, 0, p->cuda, 0, lower_pdim_max(d), NULL);
        const wf_val *eq = val_eq(a, tid, val_const(a, 0));
        cond = cond ? val_and(a, cond, eq) : eq;
    }
    kir_node *f = kir_new(a, KIR_IF);
    if (!f)
        return NULL;
    f->u.cond.cond = cond ? cond : val_const(a, 1);
    return !n || kir_append(a, &f->u.cond.body, n, f) ? f : NULL;
}

/* Is the block at least one full warp, so that elect.sync can pick the issuer? */
bool lower_tma_full_warp(lower_ctx *c) {
    int64_t n = 1;
    for (int d = 0; d < 3; d++) {
        if (!val_is_const(c->pdim[d]))
            return false;
        n *= c->pdim[d]->c;
    }
    return n >= 32;
}

kir_node *lower_tma_issuer(lower_ctx *c) {
    if (lower_tma_full_warp(c))
        return kir_new_hw(c->a, KHW_ELECT);
    return lower_tma_one_thread(c, NULL);
}

/* The conjuncts of cond that mention no thread index. */
const wf_val *lower_tma_uniform_cond(lower_ctx *c, const wf_val *cond) {
    if (!cond)
        return NULL;
    if (cond->kind == V_AND) {
        const wf_val *x = lower_tma_uniform_cond(c, cond->a),
                     *y = lower_tma_uniform_cond(c, cond->b);
        return x && y ? val_and(c->a, x, y) : x ? x : y;
    }
    for (int d = 0; d < 3; d++)
        if (val_uses_sym(cond, SYM_TID, d))
            return NULL;
    return cond;
}
