/*
 * interp_expr.c -- evaluating index and predicate programs (interp_build.c
 * compiles them) for all threads of a block at once: a uniform instruction
 * is computed once, a varying one per thread, with the GPU's 64-bit integer
 * semantics (val_apply); a varying one that no loop variable reaches is the
 * same all block long and is computed once per block (its cache slot).
 * Depends on nothing else of the executor.
 */
#include "runtime/interp_int.h"

#include <string.h>

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

/* r[t] = a[t * sa] <k> b[t * sb] for t < T, as val_apply (false as soon as
   one fails): the operator chosen once, not per thread. */
static bool apply_all(val_kind k, const int64_t *a, int sa, const int64_t *b, int sb, int64_t *r,
                      int T) {
    bool bad = false;
    switch (k) {
    case V_ADD:
        for (int t = 0; t < T; t++)
            bad |= __builtin_add_overflow(a[t * sa], b[t * sb], &r[t]);
        return !bad;
    case V_SUB:
        for (int t = 0; t < T; t++)
            bad |= __builtin_sub_overflow(a[t * sa], b[t * sb], &r[t]);
        return !bad;
    case V_MUL:
        for (int t = 0; t < T; t++)
            bad |= __builtin_mul_overflow(a[t * sa], b[t * sb], &r[t]);
        return !bad;
    case V_DIV:
    case V_MOD:
        if (sb == 0 && b[0] > 0) { /* a positive divisor for every thread: never fails */
            int64_t d = b[0];
            if (k == V_DIV)
                for (int t = 0; t < T; t++)
                    r[t] = a[t * sa] / d;
            else
                for (int t = 0; t < T; t++)
                    r[t] = a[t * sa] % d;
            return true;
        }
        break;
    default:
        break;
    }
    for (int t = 0; t < T; t++)
        if (!val_apply(k, a[t * sa], b[t * sb], &r[t]))
            return false;
    return true;
}

/* One instruction over the block into r (T registers, or 1 if uniform). */
static bool apply(const ix_exec *x, const ix_expr *e, const ix_ins *in, int64_t *r, int T) {
    const int64_t *a = x->regp[in->a], *b = x->regp[in->b];
    if (!in->vary)
        return val_apply((val_kind)in->kind, a[0], b[0], &r[0]);
    return apply_all((val_kind)in->kind, a, e->ins[in->a].vary, b, e->ins[in->b].vary, r, T);
}

/* Evaluates e; returns the register array of the result (length T, or 1 if
   uniform: *vary says which). False on a division by zero. A varying
   instruction that does not depend on loops is computed once per block
   (x->cache); a thread index is read where it is (x->tid). */
bool ix_eval(ix_exec *x, const ix_expr *e, const int64_t **res, bool *vary) {
    int T = x->nthreads;
    for (int i = 0; i < e->n; i++) {
        const ix_ins *in = &e->ins[i];
        int64_t *r = x->regs + (size_t)i * (size_t)T;
        if (in->op == IX_TID) { /* the only varying leaf */
            x->regp[i] = x->tid[in->a];
            continue;
        }
        if (in->op <= IX_SYM) {
            r[0] = leaf(x, in, 0);
        } else if (in->cache >= 0) {
            r = x->cache + (size_t)in->cache * (size_t)T;
            if (x->cache_gen[in->cache] != x->gen) {
                if (!apply(x, e, in, r, T))
                    return false;
                x->cache_gen[in->cache] = x->gen;
            }
        } else if (!apply(x, e, in, r, T)) {
            return false;
        }
        x->regp[i] = r;
    }
    *res = x->regp[e->n - 1];
    *vary = e->ins[e->n - 1].vary;
    return true;
}
