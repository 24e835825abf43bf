/*
 * interp_expr.c -- evaluating index and predicate programs (interp_build.c
 * compiles them) for all threads of a block at once: a uniform instruction
 * is computed once, a varying one per thread, with the GPU's 64-bit integer
 * semantics (val_apply). Depends on nothing else of the executor.
 */
#include "runtime/interp_int.h"

static int64_t leaf(const ix_exec *x, const ix_ins *in, int t) {
    switch (in->op) {
    case IX_CONST:
        return in->c;
    case IX_LOOP:
        return x->loopv[in->a];
    case IX_TID:
        return x->tid[in->a][t];
    case IX_BID:
        return x->bid[in->a];
    default:
        return x->symv[in->a];
    }
}

/* Evaluates e; returns the register array of the result (length T, or 1 if
   uniform: *vary says which). False on a division by zero. */
bool ix_eval(ix_exec *x, const ix_expr *e, const int64_t **res, bool *vary) {
    int T = x->nthreads;
    for (int i = 0; i < e->n; i++) {
        const ix_ins *in = &e->ins[i];
        int64_t *r = x->regs + (size_t)i * (size_t)T;
        int n = in->vary ? T : 1;
        if (in->op <= IX_SYM) {
            for (int t = 0; t < n; t++)
                r[t] = leaf(x, in, t);
            continue;
        }
        const int64_t *a = x->regs + (size_t)in->a * (size_t)T;
        const int64_t *b = x->regs + (size_t)in->b * (size_t)T;
        bool va = e->ins[in->a].vary, vb = e->ins[in->b].vary;
        for (int t = 0; t < n; t++)
            if (!val_apply((val_kind)in->kind, a[va ? t : 0], b[vb ? t : 0], &r[t]))
                return false;
    }
    *res = x->regs + (size_t)(e->n - 1) * (size_t)T;
    *vary = e->ins[e->n - 1].vary;
    return true;
}
