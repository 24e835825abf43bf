/*
 * expr.c -- TIR nodes: constructors, substitution, the small simplifier, and the
 * read/write regions of a block.
 *
 * The simplifier only does what TVM's arithmetic simplifier visibly does to the index
 * expressions our primitives make (constant folding, x * 1, x + 0, 0 * x, x // 1,
 * x % 1), so that printed programs match TVM's. Regions are inferred as TVM infers a
 * block's T.reads / T.writes: every access, in terms of the block's iter variables,
 * one region per buffer in first-access order; a reduction block (one with T.init)
 * does not list the buffer it accumulates into among its reads.
 */
#include "tir/tir.h"

#include <string.h>

tir_var *tir_var_new(wf_tir *s, const char *name) {
    tir_var *v = ARENA_NEW(&s->arena, tir_var);
    if (!v)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    v->name = name;
    v->id = s->nvars++;
    return v;
}

static tir_expr *expr_new(wf_tir *s, tir_expr_kind k, int nargs) {
    tir_expr *e = ARENA_NEW(&s->arena, tir_expr);
    if (e && nargs)
        e->args = ARENA_ARRAY(&s->arena, tir_expr *, nargs);
    if (!e || (nargs && !e->args))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    e->kind = k;
    e->nargs = nargs;
    e->dtype = WF_I32;
    return e;
}

tir_expr *tir_int(wf_tir *s, int64_t v) {
    tir_expr *e = expr_new(s, TE_INT, 0);
    if (e)
        e->ival = v;
    return e;
}

tir_expr *tir_var_ref(wf_tir *s, tir_var *v) {
    tir_expr *e = expr_new(s, TE_VAR, 0);
    if (e)
        e->var = v;
    return e;
}

static bool is_float(wf_dtype t) {
    return t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64;
}

tir_expr *tir_bin(wf_tir *s, tir_binop op, tir_expr *a, tir_expr *b) {
    if (!a || !b)
        return NULL;
    tir_expr *e = expr_new(s, TE_BIN, 2);
    if (!e)
        return NULL;
    e->op = op;
    e->args[0] = a, e->args[1] = b;
    e->dtype = op >= TB_LT ? WF_BOOL : is_float(a->dtype) ? a->dtype : b->dtype;
    return e;
}

tir_expr *tir_load(wf_tir *s, tir_buffer *b, int n, tir_expr *const *idx) {
    tir_expr *e = expr_new(s, TE_LOAD, n);
    if (!e)
        return NULL;
    e->buf = b;
    e->dtype = b->dtype;
    for (int i = 0; i < n; i++)
        e->args[i] = idx[i];
    return e;
}

tir_stmt *tir_stmt_new(wf_tir *s, tir_stmt_kind kind) {
    tir_stmt *st = ARENA_NEW(&s->arena, tir_stmt);
    if (!st)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    st->kind = kind;
    return st;
}

tir_stmt *tir_for_new(wf_tir *s, tir_var *v, int64_t extent, tir_stmt *body) {
    tir_stmt *st = tir_stmt_new(s, TS_FOR);
    if (!st)
        return NULL;
    st->loop_var = v, st->extent = extent, st->body = body;
    if (!vec_push_arena(&s->arena, &s->loops, st))
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    if (body)
        body->parent = st;
    return st;
}

bool tir_seq_push(wf_tir *s, tir_stmt *seq, tir_stmt *x) {
    if (!vec_push_arena(&s->arena, &seq->seq, x))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    x->parent = seq;
    return true;
}

void tir_fix_parents(tir_stmt *st, tir_stmt *parent) {
    if (!st)
        return;
    st->parent = parent;
    if (st->kind == TS_FOR)
        tir_fix_parents(st->body, st);
    else if (st->kind == TS_SEQ)
        for (int i = 0; i < st->seq.n; i++)
            tir_fix_parents(st->seq.ptr[i], st);
    else if (st->kind == TS_BLOCK) {
        tir_fix_parents(st->block->body, st);
        tir_fix_parents(st->block->init, st);
    }
}

/* ---- substitution ---- */

static tir_expr *subst(wf_tir *s, const tir_expr *e, int n, tir_var *const *from,
                       tir_expr *const *to, bool simplify) {
    if (!e)
        return NULL;
    if (e->kind == TE_VAR)
        for (int i = 0; i < n; i++)
            if (from[i] == e->var)
                return to[i];
    tir_expr *c = expr_new(s, e->kind, e->nargs);
    if (!c)
        return NULL;
    tir_expr **args = c->args;
    *c = *e;
    c->args = args;
    for (int i = 0; i < e->nargs; i++)
        if (!(c->args[i] = subst(s, e->args[i], n, from, to, simplify)))
            return NULL;
    return simplify ? tir_simplify(s, c) : c;
}

tir_expr *tir_subst(wf_tir *s, const tir_expr *e, int n, tir_var *const *from,
                    tir_expr *const *to) {
    return subst(s, e, n, from, to, true);
}

tir_expr *tir_subst_raw(wf_tir *s, const tir_expr *e, int n, tir_var *const *from,
                        tir_expr *const *to) {
    return subst(s, e, n, from, to, false);
}

/* ---- simplification ---- */

static bool is_const(const tir_expr *e, int64_t v) {
    return e->kind == TE_INT && e->ival == v;
}

static int64_t fold(tir_binop op, int64_t a, int64_t b, bool *done) {
    *done = true;
    switch (op) {
    case TB_ADD:
        return a + b;
    case TB_SUB:
        return a - b;
    case TB_MUL:
        return a * b;
    case TB_FLOORDIV:
        if (b == 0)
            break;
        return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
    case TB_MOD:
        if (b == 0)
            break;
        return ((a % b) + b) % b;
    default:
        break;
    }
    *done = false;
    return 0;
}

/* An affine form: sum of coef * atom plus a constant; atoms are variables or
   non-affine subexpressions (a floordiv), kept in first-appearance order. */
#define TIR_MAX_TERMS 16
typedef struct {
    int n;
    const tir_expr *atom[TIR_MAX_TERMS];
    int64_t coef[TIR_MAX_TERMS];
    int64_t k;
} affine;

static bool add_term(affine *f, const tir_expr *atom, int64_t c) {
    for (int i = 0; i < f->n; i++)
        if (tir_expr_equal(f->atom[i], atom)) {
            f->coef[i] += c;
            return true;
        }
    if (f->n == TIR_MAX_TERMS)
        return false;
    f->atom[f->n] = atom, f->coef[f->n++] = c;
    return true;
}

static bool collect(const tir_expr *e, int64_t scale, affine *f) {
    if (e->kind == TE_INT) {
        f->k += scale * e->ival;
        return true;
    }
    if (e->kind == TE_BIN && e->dtype == WF_I32) {
        const tir_expr *a = e->args[0], *b = e->args[1];
        if (e->op == TB_ADD)
            return collect(a, scale, f) && collect(b, scale, f);
        if (e->op == TB_SUB)
            return collect(a, scale, f) && collect(b, -scale, f);
        if (e->op == TB_MUL && b->kind == TE_INT)
            return collect(a, scale * b->ival, f);
        if (e->op == TB_MUL && a->kind == TE_INT)
            return collect(b, scale * a->ival, f);
    }
    return add_term(f, e, scale);
}

/* Rebuilds an affine form flat, as TVM prints it: a * 256 + b * 4 + c + 1. */
static tir_expr *rebuild(wf_tir *s, const affine *f) {
    tir_expr *acc = NULL;
    for (int i = 0; i < f->n; i++) {
        int64_t c = f->coef[i];
        if (c == 0)
            continue;
        tir_expr *t = (tir_expr *)f->atom[i];
        int64_t mag = acc && c < 0 ? -c : c;
        if (mag != 1)
            t = tir_bin(s, TB_MUL, t, tir_int(s, mag));
        acc = acc ? tir_bin(s, c < 0 ? TB_SUB : TB_ADD, acc, t) : t;
    }
    if (!acc)
        return tir_int(s, f->k);
    if (f->k != 0)
        acc = tir_bin(s, f->k < 0 ? TB_SUB : TB_ADD, acc, tir_int(s, f->k < 0 ? -f->k : f->k));
    return acc;
}

/* A digit of X: X // d, X % m or X % m // d (m 0: none); false if a is none. */
typedef struct {
    const tir_expr *x;
    int64_t d, m;
} digit;

static bool digit_of(const tir_expr *a, digit *g) {
    g->d = 1, g->m = 0;
    if (a->kind == TE_BIN && a->op == TB_FLOORDIV && a->args[1]->kind == TE_INT &&
        a->args[1]->ival > 0)
        g->d = a->args[1]->ival, a = a->args[0];
    if (a->kind == TE_BIN && a->op == TB_MOD && a->args[1]->kind == TE_INT && a->args[1]->ival > 0)
        g->m = a->args[1]->ival, a = a->args[0];
    g->x = a;
    return (g->d != 1 || g->m != 0) && (g->m == 0 || g->m % g->d == 0);
}

/* Joins adjacent digits of one value, as fuse writes them: with m2 = d1 (d2 | m2 | m1),
   (X % m1 // d1) * c2 * (m2 / d2) + (X % m2 // d2) * c2 = (X % m1 // d2) * c2, where
   X // 1 % 0 is X itself (f // 4 * 4 + f % 4 = f: the loops of a split fused again).
   Returns whether two were joined. */
static bool join_digits(wf_tir *s, affine *f) {
    for (int i = 0; i < f->n; i++)
        for (int j = 0; j < f->n; j++) {
            digit o, n;
            if (i == j || !f->coef[i] || !f->coef[j] || !digit_of(f->atom[i], &o) ||
                !digit_of(f->atom[j], &n) || !tir_expr_equal(o.x, n.x) || n.m == 0 || o.d != n.m ||
                (o.m && o.m % n.m) || f->coef[i] != f->coef[j] * (n.m / n.d))
                continue;
            tir_expr *x = (tir_expr *)o.x;
            if (o.m)
                x = tir_bin(s, TB_MOD, x, tir_int(s, o.m));
            if (n.d != 1)
                x = tir_bin(s, TB_FLOORDIV, x, tir_int(s, n.d));
            if (!x)
                return false;
            f->atom[j] = x, f->coef[i] = 0;
            return true;
        }
    return false;
}

tir_expr *tir_simplify(wf_tir *s, tir_expr *e) {
    if (!e || e->kind != TE_BIN || e->dtype != WF_I32)
        return e;
    if (e->op == TB_ADD || e->op == TB_SUB || e->op == TB_MUL) {
        affine f = {0};
        if (!collect(e, 1, &f))
            return e;
        bool joined = false;
        while (join_digits(s, &f))
            joined = true;
        if (joined) /* a joined value may be a sum itself: flatten it */
            return tir_simplify(s, rebuild(s, &f));
        if (!(f.n == 1 && f.atom[0] == e))
            return rebuild(s, &f);
        return e;
    }
    tir_expr *a = e->args[0], *b = e->args[1];
    bool done;
    if (a->kind == TE_INT && b->kind == TE_INT) {
        int64_t v = fold((tir_binop)e->op, a->ival, b->ival, &done);
        if (done)
            return tir_int(s, v);
    }
    switch (e->op) {
    case TB_ADD:
        return is_const(b, 0) ? a : is_const(a, 0) ? b : e;
    case TB_SUB:
        return is_const(b, 0) ? a : e;
    case TB_MUL:
        if (is_const(a, 0) || is_const(b, 0))
            return tir_int(s, 0);
        return is_const(b, 1) ? a : is_const(a, 1) ? b : e;
    case TB_FLOORDIV:
        return is_const(b, 1) ? a : e;
    case TB_MOD:
        return is_const(b, 1) ? tir_int(s, 0) : e;
    default:
        return e;
    }
}

bool tir_expr_equal(const tir_expr *a, const tir_expr *b) {
    if (a->kind != b->kind || a->nargs != b->nargs || a->op != b->op || a->dtype != b->dtype)
        return false;
    if (a->kind == TE_INT && a->ival != b->ival)
        return false;
    if (a->kind == TE_FLOAT && a->fval != b->fval)
        return false;
    if (a->var != b->var || a->buf != b->buf)
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!tir_expr_equal(a->args[i], b->args[i]))
            return false;
    return true;
}

bool tir_expr_uses(const tir_expr *e, const tir_var *v) {
    if (e->kind == TE_VAR)
        return e->var == v;
    for (int i = 0; i < e->nargs; i++)
        if (tir_expr_uses(e->args[i], v))
            return true;
    return false;
}

/* ---- regions ---- */

/* e = base + c with a constant c: returns base (NULL for a constant) and sets *c. */
static const tir_expr *split_offset(const tir_expr *e, int64_t *c) {
    *c = 0;
    if (e->kind == TE_INT) {
        *c = e->ival;
        return NULL;
    }
    if (e->kind == TE_BIN && e->op == TB_ADD && e->args[1]->kind == TE_INT) {
        *c = e->args[1]->ival;
        return e->args[0];
    }
    if (e->kind == TE_BIN && e->op == TB_SUB && e->args[1]->kind == TE_INT) {
        *c = -e->args[1]->ival;
        return e->args[0];
    }
    return e;
}

/* Widens region r (dimension d) to cover index e; false when it cannot be expressed. */
static bool widen(wf_tir *s, tir_region *r, int d, tir_expr *e) {
    int64_t c0, c1;
    const tir_expr *b0 = split_offset(r->lo[d], &c0), *b1 = split_offset(e, &c1);
    if (tir_expr_equal(r->lo[d], e) && r->ext[d] == 1)
        return true;
    if (!((b0 == NULL && b1 == NULL) || (b0 && b1 && tir_expr_equal(b0, b1))))
        return false;
    int64_t lo = c0 < c1 ? c0 : c1, hi = c0 + r->ext[d] > c1 + 1 ? c0 + r->ext[d] : c1 + 1;
    tir_expr *base = b0 ? (tir_expr *)b0 : tir_int(s, 0);
    r->lo[d] = b0 ? tir_simplify(s, tir_bin(s, TB_ADD, base, tir_int(s, lo))) : tir_int(s, lo);
    r->ext[d] = hi - lo;
    return r->lo[d] != NULL;
}

static bool add_access(wf_tir *s, tir_regions *rs, tir_buffer *b, tir_expr *const *idx) {
    for (int i = 0; i < rs->n; i++) {
        tir_region *r = &rs->ptr[i];
        if (r->buf != b)
            continue;
        for (int d = 0; d < b->ndim; d++)
            if (!widen(s, r, d, idx[d])) /* not an offset of the first: the whole extent */
                r->lo[d] = tir_int(s, 0), r->ext[d] = b->shape[d];
        return true;
    }
    tir_region r = {.buf = b};
    for (int d = 0; d < b->ndim; d++)
        r.lo[d] = idx[d], r.ext[d] = 1;
    if (!vec_push_arena(&s->arena, rs, r))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

static bool expr_reads(wf_tir *s, const tir_expr *e, tir_regions *reads) {
    for (int i = 0; i < e->nargs; i++)
        if (!expr_reads(s, e->args[i], reads))
            return false;
    return e->kind != TE_LOAD || add_access(s, reads, e->buf, e->args);
}

static bool stmt_regions(wf_tir *s, const tir_stmt *st, tir_regions *reads, tir_regions *writes) {
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            if (!stmt_regions(s, st->seq.ptr[i], reads, writes))
                return false;
        return true;
    case TS_FOR:
        return stmt_regions(s, st->body, reads, writes);
    case TS_STORE:
        for (int i = 0; i < st->nidx; i++)
            if (!expr_reads(s, st->idx[i], reads))
                return false;
        return expr_reads(s, st->value, reads) && add_access(s, writes, st->buf, st->idx);
    case TS_BLOCK:
        return tir_block_regions(s, st->block, reads, writes);
    }
    return true;
}

bool tir_block_regions(wf_tir *s, const tir_block *b, tir_regions *reads, tir_regions *writes) {
    tir_regions r = {0}, w = {0};
    if (!stmt_regions(s, b->body, &r, &w))
        return false;
    if (b->init && !stmt_regions(s, b->init, &r, &w))
        return false;
    for (int i = 0; i < r.n; i++) {
        bool written = false;
        for (int j = 0; j < w.n; j++)
            written |= b->init && w.ptr[j].buf == r.ptr[i].buf;
        if (!written && !vec_push_arena(&s->arena, reads, r.ptr[i]))
            return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    }
    for (int j = 0; j < w.n; j++)
        if (!vec_push_arena(&s->arena, writes, w.ptr[j]))
            return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}
