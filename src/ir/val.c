/*
 * val.c -- scalar expressions: construction with simplification, ranges,
 * evaluation and printing.
 *
 * Extents, indices and predicates are all wf_vals. Sums and products by
 * constants are kept in a normal form (terms in first-seen order, constant
 * last), so that index arithmetic simplifies as it is built: constants fold,
 * x*1 and x+0 vanish, and (a*c + b) / c -> a, (a*c + b) % c -> b when the
 * ranges of the symbols prove 0 <= b < c. Symbols carry an inclusive range
 * and optionally a symbolic bound (value < bound) so that the same rules
 * fire for symbolic extents: (i*S + j) / S -> i when j < S is known.
 * Division is truncating; the rules only fire for non-negative operands.
 */
#include "ir/ir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* What every constructor returns when memory runs out: a harmless 0 that
   keeps callers from crashing while the arena's `failed` flag makes the
   owner report WF_ERR_MEMORY. It is never written. */
static const wf_val oom_val = {.kind = V_CONST};
#define OOM ((wf_val *)&oom_val)

static wf_val *mk(wf_arena *a, val_kind k, const wf_val *x, const wf_val *y) {
    wf_val *v = ARENA_NEW(a, wf_val);
    if (!v)
        return OOM;
    v->kind = k;
    v->a = x;
    v->b = y;
    return v;
}

const wf_val *val_const(wf_arena *a, int64_t c) {
    wf_val *v = mk(a, V_CONST, NULL, NULL);
    if (v != OOM)
        v->c = c;
    return v;
}

const wf_val *val_sym(wf_arena *a, sym_kind k, int sa, int sb, const char *name, int64_t lo,
                      int64_t hi, const wf_val *bound) {
    wf_val *v = mk(a, V_SYM, NULL, bound);
    if (v == OOM)
        return v;
    v->sym = k;
    v->sym_a = sa;
    v->sym_b = sb;
    v->name = arena_strdup(a, name);
    v->lo = lo;
    v->hi = hi;
    return v->name ? v : OOM;
}

bool val_equal(const wf_val *x, const wf_val *y) {
    if (x == y)
        return true;
    if (!x || !y || x->kind != y->kind)
        return false;
    switch (x->kind) {
    case V_CONST:
        return x->c == y->c;
    case V_SYM:
        return x->sym == y->sym && x->sym_a == y->sym_a && x->sym_b == y->sym_b;
    default:
        return val_equal(x->a, y->a) && val_equal(x->b, y->b);
    }
}

bool val_uses_sym(const wf_val *v, sym_kind k, int a) {
    if (!v || v->kind == V_CONST)
        return false;
    if (v->kind == V_SYM)
        return v->sym == k && v->sym_a == a;
    return val_uses_sym(v->a, k, a) || val_uses_sym(v->b, k, a);
}

/* ---- ranges ---- */

static int64_t sat_add(int64_t x, int64_t y) {
    int64_t r;
    if (x == INT64_MIN || y == INT64_MIN)
        return INT64_MIN;
    if (x == INT64_MAX || y == INT64_MAX)
        return INT64_MAX;
    if (__builtin_add_overflow(x, y, &r))
        return x > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_mul(int64_t x, int64_t y) {
    int64_t r;
    if (x == 0 || y == 0)
        return 0;
    if (__builtin_mul_overflow(x, y, &r) || x == INT64_MAX || y == INT64_MAX || x == INT64_MIN ||
        y == INT64_MIN)
        return (x > 0) == (y > 0) ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t neg(int64_t x) {
    return x == INT64_MIN ? INT64_MAX : x == INT64_MAX ? INT64_MIN : -x;
}

/* ceil(x / y) for x >= 0, y > 0, without the overflow of (x + y - 1) / y. */
static int64_t ceildiv_pos(int64_t x, int64_t y) {
    return x / y + (x % y != 0);
}

static void range_mul(int64_t al, int64_t ah, int64_t bl, int64_t bh, int64_t *lo, int64_t *hi) {
    int64_t c[4] = {sat_mul(al, bl), sat_mul(al, bh), sat_mul(ah, bl), sat_mul(ah, bh)};
    *lo = *hi = c[0];
    for (int i = 1; i < 4; i++) {
        if (c[i] < *lo)
            *lo = c[i];
        if (c[i] > *hi)
            *hi = c[i];
    }
}

static int64_t pow2_mask(int64_t x) {
    int64_t m = 0;
    while (m < x)
        m = m * 2 + 1;
    return m;
}

void val_range(const wf_val *v, int64_t *lo, int64_t *hi) {
    int64_t al, ah, bl, bh;
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (v->kind == V_CONST) {
        *lo = *hi = v->c;
        return;
    }
    if (v->kind == V_SYM) {
        *lo = v->lo;
        *hi = v->hi;
        return;
    }
    val_range(v->a, &al, &ah);
    val_range(v->b, &bl, &bh);
    switch (v->kind) {
    case V_ADD:
        *lo = sat_add(al, bl);
        *hi = sat_add(ah, bh);
        break;
    case V_SUB:
        *lo = sat_add(al, neg(bh));
        *hi = sat_add(ah, neg(bl));
        break;
    case V_MUL:
        range_mul(al, ah, bl, bh, lo, hi);
        break;
    case V_DIV:
    case V_CEILDIV:
        if (al >= 0 && bl > 0) {
            *lo = v->kind == V_DIV ? al / bh : ceildiv_pos(al, bh);
            *hi = ah == INT64_MAX ? INT64_MAX : v->kind == V_DIV ? ah / bl : ceildiv_pos(ah, bl);
        }
        break;
    case V_MOD:
        if (al >= 0 && bl > 0) {
            *lo = 0;
            *hi = ah < bh - 1 ? ah : (bh == INT64_MAX ? INT64_MAX : bh - 1);
        }
        break;
    case V_XOR:
        if (al >= 0 && bl >= 0) {
            *lo = 0;
            *hi = (ah == INT64_MAX || bh == INT64_MAX) ? INT64_MAX : pow2_mask(ah > bh ? ah : bh);
        }
        break;
    case V_LT:
    case V_EQ:
    case V_AND:
        *lo = 0;
        *hi = 1;
        break;
    default:
        break;
    }
}

/* A range is known for a constant (even INT64_MAX) and where no bound
   saturated (a tensor size's range is unknown: [0, INT64_MAX]). */
static bool known_range(const wf_val *v, int64_t lo, int64_t hi) {
    return v->kind == V_CONST || (lo != INT64_MIN && hi != INT64_MAX);
}

bool val_may_overflow(const wf_val *v) {
    int64_t al, ah, bl, bh, r;
    if (!v || v->kind == V_CONST || v->kind == V_SYM)
        return false;
    if (val_may_overflow(v->a) || val_may_overflow(v->b))
        return true;
    val_range(v->a, &al, &ah);
    val_range(v->b, &bl, &bh);
    if (!known_range(v->a, al, ah) || !known_range(v->b, bl, bh))
        return false;
    switch (v->kind) {
    case V_ADD:
        return __builtin_add_overflow(al, bl, &r) || __builtin_add_overflow(ah, bh, &r);
    case V_SUB:
        return __builtin_sub_overflow(al, bh, &r) || __builtin_sub_overflow(ah, bl, &r);
    case V_MUL:
        return __builtin_mul_overflow(al, bl, &r) || __builtin_mul_overflow(al, bh, &r) ||
               __builtin_mul_overflow(ah, bl, &r) || __builtin_mul_overflow(ah, bh, &r);
    default:
        return false;
    }
}

static bool nonneg(const wf_val *v) {
    int64_t lo, hi;
    val_range(v, &lo, &hi);
    return lo >= 0;
}

/* x < y from a symbol's symbolic bound: loop index i over extent E has bound E. */
static bool bounded_by(const wf_val *x, const wf_val *y) {
    return x->kind == V_SYM && x->b && val_equal(x->b, y);
}

bool val_prove_lt(const wf_val *x, const wf_val *y) {
    int64_t xl, xh, yl, yh;
    if (x->kind == V_MOD && val_equal(x->b, y) && nonneg(x->a) && nonneg(y))
        return true;
    val_range(x, &xl, &xh);
    val_range(y, &yl, &yh);
    if (xh != INT64_MAX && xh < yl)
        return true;
    return bounded_by(x, y);
}

/* ---- normal form of sums: terms coef * base, plus a constant ---- */

enum { MAXTERMS = 24 };
typedef struct {
    const wf_val *base[MAXTERMS];
    int64_t coef[MAXTERMS];
    int n;
    int64_t cst;
    bool overflow; /* too many terms or an overflowing constant: do not normalize */
} terms;

static void add_term(terms *t, const wf_val *base, int64_t coef) {
    for (int i = 0; i < t->n; i++) {
        if (val_equal(t->base[i], base)) {
            if (__builtin_add_overflow(t->coef[i], coef, &t->coef[i]))
                t->overflow = true;
            return;
        }
    }
    if (t->n == MAXTERMS) {
        t->overflow = true;
        return;
    }
    t->base[t->n] = base;
    t->coef[t->n++] = coef;
}

static void collect(terms *t, const wf_val *v, int64_t scale) {
    int64_t s;
    switch (v->kind) {
    case V_CONST:
        if (__builtin_mul_overflow(v->c, scale, &s) || __builtin_add_overflow(t->cst, s, &t->cst))
            t->overflow = true;
        return;
    case V_ADD:
        collect(t, v->a, scale);
        collect(t, v->b, scale);
        return;
    case V_SUB:
        collect(t, v->a, scale);
        if (scale == INT64_MIN)
            t->overflow = true;
        else
            collect(t, v->b, -scale);
        return;
    case V_MUL:
        if (v->b->kind == V_CONST) {
            if (__builtin_mul_overflow(v->b->c, scale, &s))
                t->overflow = true;
            else
                collect(t, v->a, s);
            return;
        }
        break;
    default:
        break;
    }
    add_term(t, v, scale);
}

/* rebuild negates negative coefficients and constants: INT64_MIN cannot be. */
static bool unbuildable(const terms *t) {
    if (t->overflow || t->cst == INT64_MIN)
        return true;
    for (int i = 0; i < t->n; i++)
        if (t->coef[i] == INT64_MIN)
            return true;
    return false;
}

static const wf_val *term_val(wf_arena *a, const wf_val *base, int64_t coef) {
    if (coef == 1)
        return base;
    return mk(a, V_MUL, base, val_const(a, coef));
}

static const wf_val *rebuild(wf_arena *a, const terms *t) {
    const wf_val *r = NULL;
    for (int i = 0; i < t->n; i++) {
        if (t->coef[i] <= 0)
            continue;
        const wf_val *x = term_val(a, t->base[i], t->coef[i]);
        r = r ? mk(a, V_ADD, r, x) : x;
    }
    for (int i = 0; i < t->n; i++) {
        if (t->coef[i] >= 0)
            continue;
        const wf_val *x = term_val(a, t->base[i], -t->coef[i]);
        r = mk(a, V_SUB, r ? r : val_const(a, 0), x);
    }
    if (!r)
        return val_const(a, t->cst);
    if (t->cst > 0)
        r = mk(a, V_ADD, r, val_const(a, t->cst));
    else if (t->cst < 0)
        r = mk(a, V_SUB, r, val_const(a, -t->cst));
    return r;
}

/* Is base (x / y) * y with coefficient cq, and base2 x % y with coefficient
   cr, such that together they are cr * x? (Euclid: x / y * y + x % y == x.) */
static const wf_val *div_mod_pair(const wf_val *q, int64_t cq, const wf_val *r, int64_t cr) {
    int64_t prod;
    if (r->kind != V_MOD || cr == 0)
        return NULL;
    if (q->kind == V_DIV && r->b->kind == V_CONST &&
        val_equal(q, &(wf_val){.kind = V_DIV, .a = r->a, .b = r->b}))
        return !__builtin_mul_overflow(cr, r->b->c, &prod) && cq == prod ? r->a : NULL;
    if (q->kind == V_MUL && q->a->kind == V_DIV && val_equal(q->b, r->b) &&
        val_equal(q->a->a, r->a) && val_equal(q->a->b, r->b))
        return cq == cr ? r->a : NULL;
    return NULL;
}

/* Fold x / y * y + x % y back into x, wherever such a pair appears. */
static void fold_div_mod(terms *t) {
    for (int i = 0; i < t->n; i++) {
        for (int j = 0; j < t->n; j++) {
            const wf_val *x =
                i != j ? div_mod_pair(t->base[i], t->coef[i], t->base[j], t->coef[j]) : NULL;
            if (!x)
                continue;
            int64_t c = t->coef[j];
            t->coef[i] = t->coef[j] = 0;
            collect(t, x, c);
            fold_div_mod(t);
            return;
        }
    }
}

static const wf_val *linear(wf_arena *a, const wf_val *x, const wf_val *y, int64_t ys, val_kind k) {
    terms t = {.n = 0};
    collect(&t, x, 1);
    collect(&t, y, ys);
    if (unbuildable(&t))
        return mk(a, k, x, y);
    fold_div_mod(&t);
    return unbuildable(&t) ? mk(a, k, x, y) : rebuild(a, &t);
}

const wf_val *val_add(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    return linear(a, x, y, 1, V_ADD);
}

const wf_val *val_sub(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    return linear(a, x, y, -1, V_SUB);
}

const wf_val *val_mul(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (x->kind == V_CONST) {
        const wf_val *s = x;
        x = y;
        y = s;
    }
    if (y->kind != V_CONST)
        return mk(a, V_MUL, x, y);
    if (y->c == 0)
        return y;
    terms t = {.n = 0};
    collect(&t, x, y->c);
    if (unbuildable(&t))
        return mk(a, V_MUL, x, y);
    return rebuild(a, &t);
}

/* Split the terms of x into a part divisible by the constant c (returned as
   its quotient) and a remainder. */
static void split_by_const(wf_arena *a, const wf_val *x, int64_t c, const wf_val **quot,
                           const wf_val **rem) {
    terms t = {.n = 0}, q = {.n = 0}, r = {.n = 0};
    collect(&t, x, 1);
    if (unbuildable(&t)) {
        *quot = NULL;
        *rem = x;
        return;
    }
    for (int i = 0; i < t.n; i++) {
        if (t.coef[i] % c == 0)
            add_term(&q, t.base[i], t.coef[i] / c);
        else
            add_term(&r, t.base[i], t.coef[i]);
    }
    q.cst = t.cst / c * c == t.cst ? t.cst / c : 0;
    r.cst = t.cst - q.cst * c;
    *quot = (q.n || q.cst) && !unbuildable(&q) ? rebuild(a, &q) : NULL;
    *rem = *quot ? rebuild(a, &r) : x;
}

/* x == q * y + r with q, r returned, for a symbolic y: terms of the form
   base*y (or y itself) go to q. */
static bool split_by_sym(wf_arena *a, const wf_val *x, const wf_val *y, const wf_val **quot,
                         const wf_val **rem) {
    terms t = {.n = 0}, q = {.n = 0}, r = {.n = 0};
    collect(&t, x, 1);
    if (unbuildable(&t))
        return false;
    for (int i = 0; i < t.n; i++) {
        const wf_val *b = t.base[i];
        if (val_equal(b, y) && __builtin_add_overflow(q.cst, t.coef[i], &q.cst))
            return false;
        if (val_equal(b, y))
            continue;
        if (b->kind == V_MUL && val_equal(b->b, y))
            add_term(&q, b->a, t.coef[i]);
        else if (b->kind == V_MUL && val_equal(b->a, y))
            add_term(&q, b->b, t.coef[i]);
        else
            add_term(&r, b, t.coef[i]);
    }
    r.cst = t.cst;
    if ((!q.n && !q.cst) || unbuildable(&q) || unbuildable(&r))
        return false;
    *quot = rebuild(a, &q);
    *rem = rebuild(a, &r);
    return true;
}

static bool rem_below(const wf_val *r, const wf_val *y) {
    return nonneg(r) && (val_prove_lt(r, y) || (r->kind == V_MOD && val_equal(r->b, y)));
}

const wf_val *val_div(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (val_is_const_eq(y, 1))
        return x;
    int64_t c;
    if (x->kind == V_CONST && y->kind == V_CONST && val_apply(V_DIV, x->c, y->c, &c))
        return val_const(a, c);
    if (!nonneg(x) || !nonneg(y))
        return mk(a, V_DIV, x, y);
    if (val_prove_lt(x, y) || val_is_const_eq(x, 0))
        return val_const(a, 0);
    const wf_val *q, *r;
    if (y->kind == V_CONST && y->c > 0) {
        if (x->kind == V_DIV && x->b->kind == V_CONST && x->b->c > 0 &&
            !__builtin_mul_overflow(x->b->c, y->c, &(int64_t){0}))
            return val_div(a, x->a, val_const(a, x->b->c * y->c));
        split_by_const(a, x, y->c, &q, &r);
        if (q && nonneg(q) && nonneg(r))
            return val_add(a, q, val_div(a, r, y));
    } else if (split_by_sym(a, x, y, &q, &r) && nonneg(q) && rem_below(r, y)) {
        return q;
    }
    return mk(a, V_DIV, x, y);
}

const wf_val *val_mod(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (val_is_const_eq(y, 1))
        return val_const(a, 0);
    int64_t c;
    if (x->kind == V_CONST && y->kind == V_CONST && val_apply(V_MOD, x->c, y->c, &c))
        return val_const(a, c);
    if (!nonneg(x) || !nonneg(y))
        return mk(a, V_MOD, x, y);
    if (val_prove_lt(x, y))
        return x;
    const wf_val *q, *r;
    if (y->kind == V_CONST && y->c > 0) {
        if (x->kind == V_MOD && x->b->kind == V_CONST && x->b->c % y->c == 0)
            return val_mod(a, x->a, y);
        split_by_const(a, x, y->c, &q, &r);
        if (q && nonneg(q) && nonneg(r))
            return val_mod(a, r, y);
    } else if (split_by_sym(a, x, y, &q, &r) && nonneg(q) && nonneg(r)) {
        return rem_below(r, y) ? r : mk(a, V_MOD, r, y);
    }
    return mk(a, V_MOD, x, y);
}

const wf_val *val_ceildiv(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (val_is_const_eq(y, 1))
        return x;
    if (x->kind == V_CONST && y->kind == V_CONST && x->c >= 0 && y->c > 0)
        return val_const(a, ceildiv_pos(x->c, y->c));
    return mk(a, V_CEILDIV, x, y);
}

const wf_val *val_xor(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (x->kind == V_CONST && y->kind == V_CONST)
        return val_const(a, x->c ^ y->c);
    if (val_is_const_eq(x, 0))
        return y;
    if (val_is_const_eq(y, 0))
        return x;
    return mk(a, V_XOR, x, y);
}

const wf_val *val_lt(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (val_prove_lt(x, y))
        return val_const(a, 1);
    int64_t xl, xh, yl, yh;
    val_range(x, &xl, &xh);
    val_range(y, &yl, &yh);
    if (yh != INT64_MAX && xl >= yh)
        return val_const(a, 0);
    return mk(a, V_LT, x, y);
}

const wf_val *val_eq(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (x->kind == V_CONST && y->kind == V_CONST)
        return val_const(a, x->c == y->c);
    return mk(a, V_EQ, x, y);
}

/* Is v 0 or 1 (a predicate), so that 1 && v == v? */
static bool is_bool(const wf_val *v) {
    int64_t lo, hi;
    val_range(v, &lo, &hi);
    return lo >= 0 && hi <= 1;
}

const wf_val *val_and(wf_arena *a, const wf_val *x, const wf_val *y) {
    if (!x || !y)
        return OOM;
    if (val_is_const_eq(y, 0) || (val_is_const_eq(x, 1) && is_bool(y)))
        return y;
    if (val_is_const_eq(x, 0) || (val_is_const_eq(y, 1) && is_bool(x)))
        return x;
    return mk(a, V_AND, x, y);
}

/* The binary value of kind k over x and y, through the simplifying
   constructor of that kind (a rebuilt expression folds again); NULL for a
   kind that is not binary. */
const wf_val *val_binary(wf_arena *a, val_kind k, const wf_val *x, const wf_val *y) {
    switch (k) {
    case V_ADD:
        return val_add(a, x, y);
    case V_SUB:
        return val_sub(a, x, y);
    case V_MUL:
        return val_mul(a, x, y);
    case V_DIV:
        return val_div(a, x, y);
    case V_MOD:
        return val_mod(a, x, y);
    case V_CEILDIV:
        return val_ceildiv(a, x, y);
    case V_XOR:
        return val_xor(a, x, y);
    case V_LT:
        return val_lt(a, x, y);
    case V_EQ:
        return val_eq(a, x, y);
    case V_AND:
        return val_and(a, x, y);
    default:
        return NULL;
    }
}

/* ---- copying ---- */

static size_t slot(const val_memo *m, const wf_val *v) {
    size_t h = ((uintptr_t)v >> 4) * 0x9E3779B97F4A7C15ull;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
        if (!m->from[i] || m->from[i] == v)
            return i;
}

static bool memo_grow(val_memo *m) {
    val_memo big = {calloc(m->cap ? m->cap * 2 : 256, sizeof(wf_val *)), NULL, 0, 0};
    big.cap = m->cap ? m->cap * 2 : 256;
    big.to = calloc(big.cap, sizeof(wf_val *));
    if (!big.from || !big.to) {
        val_memo_free(&big);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->from[i])
            continue;
        size_t j = slot(&big, m->from[i]);
        big.from[j] = m->from[i];
        big.to[j] = m->to[i];
        big.n++;
    }
    val_memo_free(m);
    *m = big;
    return true;
}

void val_memo_free(val_memo *m) {
    free((void *)m->from);
    free((void *)m->to);
    m->from = m->to = NULL;
    m->cap = m->n = 0;
}

const wf_val *val_clone(wf_arena *dst, const wf_val *v, val_memo *m) {
    if (!v)
        return NULL;
    if ((m->n + 1) * 2 > m->cap && !memo_grow(m))
        return NULL;
    size_t i = slot(m, v);
    if (m->from[i])
        return m->to[i];
    wf_val *c = ARENA_NEW(dst, wf_val);
    if (!c)
        return NULL;
    *c = *v;
    if (v->kind == V_SYM && !(c->name = arena_strdup(dst, v->name)))
        return NULL;
    if ((v->a && !(c->a = val_clone(dst, v->a, m))) || (v->b && !(c->b = val_clone(dst, v->b, m))))
        return NULL;
    if ((m->n + 1) * 2 > m->cap && !memo_grow(m))
        return NULL;
    i = slot(m, v); /* the table may have grown while copying the operands */
    m->from[i] = v;
    m->to[i] = c;
    m->n++;
    return c;
}

/* ---- evaluation ---- */

bool val_eval(const wf_val *v, val_binding bind, void *ctx, int64_t *out) {
    int64_t x, y;
    if (v->kind == V_CONST) {
        *out = v->c;
        return true;
    }
    if (v->kind == V_SYM)
        return bind && bind(ctx, v, out);
    return val_eval(v->a, bind, ctx, &x) && val_eval(v->b, bind, ctx, &y) &&
           val_apply(v->kind, x, y, out);
}

/* ---- printing ---- */

static int prec(const wf_val *v) {
    switch (v->kind) {
    case V_AND:
        return 1;
    case V_XOR:
        return 2;
    case V_LT:
    case V_EQ:
        return 3;
    case V_ADD:
    case V_SUB:
        return 4;
    case V_MUL:
    case V_DIV:
    case V_MOD:
        return 5;
    default:
        return 6;
    }
}

static const char *op_text(val_kind k) {
    switch (k) {
    case V_ADD:
        return " + ";
    case V_SUB:
        return " - ";
    case V_MUL:
        return " * ";
    case V_DIV:
        return " / ";
    case V_MOD:
        return " % ";
    case V_XOR:
        return " ^ ";
    case V_LT:
        return " < ";
    case V_EQ:
        return " == ";
    case V_AND:
        return " && ";
    default:
        return " ? ";
    }
}

static void print_prec(sbuf *b, const wf_val *v, int min_prec, val_sym_printer sym) {
    if (v->kind == V_CONST) {
        if (v->c < 0 && min_prec > 4)
            sbuf_printf(b, "(%lld)", (long long)v->c);
        else
            sbuf_printf(b, "%lld", (long long)v->c);
        return;
    }
    if (v->kind == V_SYM) {
        if (sym)
            sym(b, v);
        else
            sbuf_puts(b, v->name);
        return;
    }
    if (v->kind == V_CEILDIV) {
        sbuf_puts(b, "wf_ceildiv(");
        print_prec(b, v->a, 0, sym);
        sbuf_puts(b, ", ");
        print_prec(b, v->b, 0, sym);
        sbuf_puts(b, ")");
        return;
    }
    int p = prec(v);
    /* C's precedence of ^ surprises readers: parenthesize it and its operands. */
    bool paren = p < min_prec || v->kind == V_XOR;
    int operand_prec = v->kind == V_XOR ? 6 : p;
    if (paren)
        sbuf_puts(b, "(");
    print_prec(b, v->a, operand_prec, sym);
    sbuf_puts(b, op_text(v->kind));
    /* The right operand of a non-commutative op needs parentheses at equal precedence. */
    print_prec(b, v->b, operand_prec + 1, sym);
    if (paren)
        sbuf_puts(b, ")");
}

void val_print(sbuf *b, const wf_val *v) {
    print_prec(b, v, 0, NULL);
}

void val_print_with(sbuf *b, const wf_val *v, val_sym_printer sym) {
    print_prec(b, v, 0, sym);
}

const wf_val *val_subst(wf_arena *a, const wf_val *v, sym_kind sym, int sym_a, const wf_val *to) {
    if (!v || v->kind == V_CONST)
        return v;
    if (v->kind == V_SYM)
        return v->sym == sym && v->sym_a == sym_a ? to : v;
    const wf_val *x = val_subst(a, v->a, sym, sym_a, to), *y = val_subst(a, v->b, sym, sym_a, to);
    return x && y ? val_binary(a, v->kind, x, y) : NULL;
}
