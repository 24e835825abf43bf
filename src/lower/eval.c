/*
 * eval.c -- an index at concrete values, and the TMA swizzle (eval.h).
 */
#include "lower/eval.h"

static bool bound(void *ctx, const wf_val *v, int64_t *out) {
    const lower_point *p = ctx;
    /* an explicit binding first: a thread loop's index may be bound like any
       loop's (the TMA box-start check visits each loop around the copy) */
    for (int i = 0; i < p->n; i++)
        if (p->b[i].sym && val_equal(p->b[i].sym, v)) {
            *out = p->b[i].val;
            return true;
        }
    if (v->sym == SYM_TID && v->sym_a >= 0 && v->sym_a < 3) {
        *out = p->tid[v->sym_a];
        return true;
    }
    *out = 0;
    if (v->sym == SYM_BID)
        return true;
    if (v->sym == SYM_SIZE && p->size) {
        *out = p->size;
        return true;
    }
    if ((v->sym == SYM_SIZE || v->sym == SYM_STRIDE) && !p->size)
        return false;
    return p->zero;
}

bool lower_point_eval(const lower_point *p, const wf_val *v, int64_t *out) {
    return val_eval(v, bound, (void *)p, out);
}

bool lower_point_bind(lower_point *p, const wf_val *sym, int64_t ext) {
    if (p->n == LOWER_POINT_BINDS)
        return false;
    p->b[p->n++] = (lower_bind){sym, 0, ext};
    return true;
}

void lower_point_loops(lower_point *p, const kir_node *s, int most) {
    for (const kir_node *k = s->parent; k && most > 0; k = k->parent) {
        if (k->kind != KIR_FOR)
            continue;
        const kir_for *l = &k->u.loop;
        if (l->var->kind != V_SYM || l->var->sym != SYM_LOOP)
            continue;
        if (!lower_point_bind(p, l->var, val_is_const(l->extent) ? l->extent->c : 1))
            return;
        most--;
    }
}

void lower_point_thread(lower_point *p, const int64_t block[3], int64_t lin) {
    p->tid[0] = lin % block[0];
    p->tid[1] = lin / block[0] % block[1];
    p->tid[2] = lin / (block[0] * block[1]);
}

bool lower_point_each(lower_point *p, int first, int64_t full, lower_point_visit visit, void *ctx) {
    if (first >= p->n)
        return visit(ctx, p);
    lower_bind *b = &p->b[first];
    for (int64_t i = 0; i < b->ext; i++) {
        if (b->ext > full && i > 3 && i < b->ext - 4)
            continue;
        b->val = i;
        if (!lower_point_each(p, first + 1, full, visit, ctx))
            return false;
    }
    return true;
}

/* ---- the TMA swizzle ---- */

int64_t lower_tma_swizzle(int64_t x, int sw) {
    return sw ? x ^ (((x >> 7) & (sw / 16 - 1)) << 4) : x;
}

int64_t lower_tma_smem_offset(int64_t lin, int64_t es, int sw) {
    return lower_tma_swizzle(lin * es, sw) / es;
}
