/*
 * build_rfactor.c -- building rfactor's programs through the core's wf_tv_rfactor.
 *
 * TVM's rfactor leaves two reduction blocks: the partial block P, B_rf[vk_1, vi] +=
 * A[vi, vk_0 * 32 + vk_1] (vk_0 reduced), and the write-back W, B[vi] += B_rf[vk_1, vi]
 * (vk_1 reduced). Together they are one reduction of A over vk split in two, which is
 * what wf_tv_rfactor makes of a core reduction. The pair is any reduction block P whose
 * buffer X is no parameter and is read by one other block W only, W reducing a bare
 * load of X with the same op and the same T.init() value (a user's two-stage reduction
 * qualifies as well as rfactor's).
 *
 * The pair is rebuilt as the block rfactor started from, "the original" O: P's iters,
 * grouped where a load index combines them (vk_0 * 32 + vk_1: one iter of extent 256),
 * reduced over every group holding an iter that P or W reduces, writing W's buffer.
 * build.c lowers O's value to wf_reduce (tir_build_ops); here its loop domain is split
 * back into P's iters, the axes of P's reduce iters are rfactored into a producer that
 * takes P's loops, and the reduction keeps the rest and takes W's loops.
 *
 * X is never a tensor in memory of its own (the core has no global intermediates): the
 * producer is computed inside W's loops, each partial just before its use. That is what
 * P computed at W's loops means; P in a loop nest of its own is built the same way when
 * its loops line up with W's (each loop of W has a loop of P of the same extent binding
 * the same X dims the same way, bound alike or serial), which gives the same numbers.
 * A pair whose loops do not line up is refused with "not supported yet" naming both
 * blocks, unless build.c can build its blocks as two reductions (P's loads index by
 * plain iters).
 */
#include "tir/build_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The most iters a partial block may have. */
#define RF_MAX_ITERS TIR_MAX_LOOPS

typedef struct {
    tir_block *p, *w;
    tir_buffer *x;              /* written by P, read by W */
    const tir_expr *pf;         /* the value P reduces */
    const tir_expr *wload;      /* W's load of x, the value W reduces */
    int w_of_p[RF_MAX_ITERS];   /* P iter -> the W iter at the same dim of x, or -1 */
    bool reduced[RF_MAX_ITERS]; /* P iter reduced by P, or by W */
    int ngroups;                /* the iters of O */
    int nmem[WF_MAX_RANK];
    int mem[WF_MAX_RANK][RF_MAX_ITERS]; /* each group's P iters, outermost first */
    const tir_expr *gidx[WF_MAX_RANK];  /* the index combining them (NULL: one iter) */
    int64_t gext[WF_MAX_RANK];
    int group_of[RF_MAX_ITERS];
    int npl, nwl;
    tir_stmt *pl[TIR_MAX_LOOPS], *wl[TIR_MAX_LOOPS]; /* loops of P and W, outermost first */
    int sigma[TIR_MAX_LOOPS];                        /* W loop -> the P loop lining up */
    char why[768];                                   /* why the pair cannot be built */
} rf_pair;

static bool no(rf_pair *r, const char *fmt, ...) WF_PRINTF(2, 3);
static bool no(rf_pair *r, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return false;
}

static const char *expr_text(sbuf *t, const tir_expr *e) {
    tir_print_expr(t, e);
    return sbuf_str(t);
}

/* ---- finding the pair ---- */

static bool is_load_at(const tir_stmt *st, const tir_expr *e) {
    if (!e || e->kind != TE_LOAD || e->buf != st->buf || e->nargs != st->nidx)
        return false;
    for (int d = 0; d < e->nargs; d++)
        if (!tir_expr_equal(e->args[d], st->idx[d]))
            return false;
    return true;
}

/* The value a reduction block (T.init(), or decompose_reduction's init block before
   it; body B[s] = B[s] op f with op + * T.max T.min, the accumulator on either side)
   reduces, or NULL. */
static const tir_expr *reduced_value(const wf_tir *s, const tir_block *b) {
    const tir_stmt *st = b->body, *in = b->dead ? NULL : tir_init_of(s, b);
    if (b->dead || !in || !st || st->kind != TS_STORE || in->kind != TS_STORE ||
        in->buf != st->buf || !st->value)
        return NULL;
    const tir_expr acc = {.kind = TE_LOAD, .buf = st->buf, .nargs = st->nidx, .args = st->idx};
    if (!is_load_at(in, &acc)) /* the init stores at the indices the body updates */
        return NULL;
    const tir_expr *v = st->value;
    bool bin = v->kind == TE_BIN && (v->op == TB_ADD || v->op == TB_MUL);
    bool call = v->kind == TE_CALL && (v->op == TC_MAX || v->op == TC_MIN) && v->nargs == 2;
    if (!bin && !call)
        return NULL;
    for (int side = 0; side < 2; side++)
        if (is_load_at(st, v->args[side]))
            return v->args[1 - side];
    return NULL;
}

static int loads_in(const tir_expr *e, const tir_buffer *x) {
    if (!e)
        return 0;
    int n = e->kind == TE_LOAD && e->buf == x;
    for (int i = 0; i < e->nargs; i++)
        n += loads_in(e->args[i], x);
    return n;
}

/* Loads of x in a block's statements (nested blocks are blocks of their own). */
static int stmt_loads(const tir_stmt *st, const tir_buffer *x, bool *writes) {
    int n = 0;
    if (!st)
        return 0;
    if (st->kind == TS_STORE) {
        *writes |= st->buf == x;
        for (int d = 0; d < st->nidx; d++)
            n += loads_in(st->idx[d], x);
        return n + loads_in(st->value, x);
    }
    if (st->kind == TS_SEQ)
        for (int i = 0; i < st->seq.n; i++)
            n += stmt_loads(st->seq.ptr[i], x, writes);
    if (st->kind == TS_FOR)
        n += stmt_loads(st->body, x, writes);
    return n;
}

static int block_loads(const tir_block *b, const tir_buffer *x, bool *writes) {
    *writes = false;
    return stmt_loads(b->init, x, writes) + stmt_loads(b->body, x, writes) + loads_in(b->where, x);
}

/* Is x written by p alone (and p's split init block) and read by w alone, once (p
   reads it as its accumulator)? */
static bool only_link(const wf_tir *s, const tir_block *p, const tir_block *w,
                      const tir_buffer *x) {
    const tir_block *pinit = tir_split_init(s, p);
    for (int i = 0; i < s->blocks.n; i++) {
        const tir_block *o = s->blocks.ptr[i];
        bool writes;
        int n = o->dead ? 0 : block_loads(o, x, &writes);
        if (o->dead || o == pinit)
            continue;
        if ((o == p && (n != 1 || !writes)) || (o == w && (n != 1 || writes)) ||
            (o != p && o != w && (n || writes)))
            return false;
    }
    return true;
}

/* The pair b belongs to, as partial or as write-back; false if none. */
static bool find_pair(const wf_tir *s, const tir_block *b, rf_pair *r) {
    const tir_expr *f = reduced_value(s, b);
    if (!f)
        return false;
    tir_block *p = NULL, *w = NULL;
    for (int i = 0; i < s->blocks.n && !p && f->kind == TE_LOAD && !f->buf->is_param; i++) {
        tir_block *o = s->blocks.ptr[i];
        if (o != b && reduced_value(s, o) && o->body->buf == f->buf)
            p = o, w = (tir_block *)b;
    }
    for (int i = 0; i < s->blocks.n && !p && !b->body->buf->is_param; i++) {
        tir_block *o = s->blocks.ptr[i];
        const tir_expr *g = o != b ? reduced_value(s, o) : NULL;
        if (g && g->kind == TE_LOAD && g->buf == b->body->buf)
            p = (tir_block *)b, w = o;
    }
    if (!p)
        return false;
    const tir_expr *pv = p->body->value, *wv = w->body->value;
    r->p = p, r->w = w, r->x = p->body->buf;
    r->pf = reduced_value(s, p), r->wload = reduced_value(s, w);
    return pv->kind == wv->kind && pv->op == wv->op &&
           tir_expr_equal(tir_init_of(s, p)->value, tir_init_of(s, w)->value) &&
           only_link(s, p, w, r->x);
}

/* ---- the iters: x's dims link P's and W's; load indices group P's ---- */

static int iter_index(const tir_block *b, const tir_expr *e) {
    for (int k = 0; e && e->kind == TE_VAR && k < b->niters; k++)
        if (b->iters[k].var == e->var)
            return k;
    return -1;
}

static bool link_dims(rf_pair *r) {
    const tir_block *p = r->p, *w = r->w;
    const tir_stmt *ps = p->body;
    int nsp = 0, nd = r->x->ndim;
    bool used_w[WF_MAX_RANK] = {false};
    if (p->niters > RF_MAX_ITERS || w->niters > WF_MAX_RANK)
        return no(r, "block \"%s\" has more than %d iters, or block \"%s\" more than %d", p->name,
                  RF_MAX_ITERS, w->name, WF_MAX_RANK);
    for (int j = 0; j < p->niters; j++) {
        r->w_of_p[j] = -1, r->reduced[j] = p->iters[j].reduce;
        nsp += !p->iters[j].reduce;
    }
    bool ok = ps->nidx == nd && r->wload->nargs == nd && nsp == nd && w->niters == nd;
    for (int d = 0; ok && d < nd; d++) {
        int jp = iter_index(p, ps->idx[d]), jw = iter_index(w, r->wload->args[d]);
        ok = jp >= 0 && jw >= 0 && !p->iters[jp].reduce && r->w_of_p[jp] < 0 && !used_w[jw] &&
             p->iters[jp].extent == r->x->shape[d] && w->iters[jw].extent == r->x->shape[d];
        if (ok)
            r->w_of_p[jp] = jw, used_w[jw] = true, r->reduced[jp] = w->iters[jw].reduce;
    }
    if (!ok)
        return no(r,
                  "block \"%s\" must write %s at its spatial iters and block \"%s\" read it at "
                  "its iters, each iter at one whole dim of %s",
                  p->name, r->x->name, w->name, r->x->name);
    return true;
}

/* The P iters an index combines, as a split makes them (sum of iter * stride: the
   innermost stride 1, each other the product of the extents inside it), outermost
   first; false if the index is not of that form. */
static bool split_terms(const tir_block *p, const tir_expr *e, int *it, int64_t *st, int *n) {
    if (e->kind == TE_BIN && e->op == TB_ADD)
        return split_terms(p, e->args[0], it, st, n) && split_terms(p, e->args[1], it, st, n);
    int64_t k = 1;
    if (e->kind == TE_BIN && e->op == TB_MUL && e->args[1]->kind == TE_INT)
        k = e->args[1]->ival, e = e->args[0];
    else if (e->kind == TE_BIN && e->op == TB_MUL && e->args[0]->kind == TE_INT)
        k = e->args[0]->ival, e = e->args[1];
    int j = iter_index(p, e);
    if (j < 0 || *n == RF_MAX_ITERS)
        return false;
    for (int i = 0; i < *n; i++)
        if (it[i] == j)
            return false;
    int i = (*n)++;
    for (; i > 0 && st[i - 1] < k; i--)
        it[i] = it[i - 1], st[i] = st[i - 1];
    it[i] = j, st[i] = k;
    return true;
}

static bool is_split(const tir_block *p, const tir_expr *e, int *it, int *n) {
    int64_t st[RF_MAX_ITERS];
    *n = 0;
    if (!split_terms(p, e, it, st, n) || st[*n - 1] != 1)
        return false;
    for (int i = 0; i + 1 < *n; i++)
        if (st[i] != st[i + 1] * p->iters[it[i + 1]].extent)
            return false;
    return true;
}

/* The group whose members an index combines (two or more), or -1. */
static int group_at(const rf_pair *r, const tir_expr *e) {
    int it[RF_MAX_ITERS], n;
    if (!is_split(r->p, e, it, &n) || n < 2)
        return -1;
    for (int g = 0; g < r->ngroups; g++)
        if (r->nmem[g] == n && !memcmp(r->mem[g], it, sizeof it[0] * (size_t)n))
            return g;
    return -1;
}

/* A load index of P: one iter, or a new or known group of iters. */
static bool add_index(rf_pair *r, const tir_expr *load, int d, bool *alone) {
    const tir_block *p = r->p;
    const tir_expr *e = load->args[d];
    int it[RF_MAX_ITERS], n, j = iter_index(p, e), g = group_at(r, e);
    sbuf t = {0};
    bool ok = j >= 0 || is_split(p, e, it, &n);
    if (ok && j < 0 && n == 1)
        j = it[0];
    if (j >= 0 && r->group_of[j] < 0)
        alone[j] = true;
    for (int i = 0; ok && j < 0 && g < 0 && i < n; i++)
        ok = r->group_of[it[i]] < 0 && !alone[it[i]];
    if (ok && j < 0 && g < 0) {
        if (r->ngroups == WF_MAX_RANK)
            return no(r, "block \"%s\" combines its iters in more than %d ways", p->name,
                      WF_MAX_RANK);
        g = r->ngroups++;
        r->nmem[g] = n, r->gidx[g] = e, r->gext[g] = 1;
        for (int i = 0; i < n; i++)
            r->mem[g][i] = it[i], r->group_of[it[i]] = g, r->gext[g] *= p->iters[it[i]].extent;
    }
    if (ok && g >= 0 && load->buf->shape[d] < r->gext[g])
        r->gext[g] = load->buf->shape[d]; /* T.where: the split is over the dim */
    ok &= j < 0 || r->group_of[j] < 0;
    if (!ok)
        no(r,
           "block \"%s\" reads %s at %s, which is neither one iter nor a split of iters that "
           "its other reads use the same way",
           p->name, load->buf->name, expr_text(&t, e));
    sbuf_free(&t);
    return ok;
}

static bool add_loads(rf_pair *r, const tir_expr *e, bool *alone) {
    for (int d = 0; e->kind == TE_LOAD && d < e->nargs; d++)
        if (!add_index(r, e, d, alone))
            return false;
    for (int i = 0; e->kind != TE_LOAD && i < e->nargs; i++)
        if (!add_loads(r, e->args[i], alone))
            return false;
    return true;
}

/* Does splitting group g's extent by its inner members' extents give its outer one? */
static bool splits_back(const rf_pair *r, int g) {
    int64_t outer = r->gext[g];
    for (int m = r->nmem[g] - 1; m >= 1; m--) {
        int64_t f = r->p->iters[r->mem[g][m]].extent;
        outer = (outer + f - 1) / f;
    }
    return outer == r->p->iters[r->mem[g][0]].extent;
}

/* O's iters: the groups and the single iters, in the order of P's iters. */
static bool make_groups(rf_pair *r) {
    const tir_block *p = r->p;
    bool alone[RF_MAX_ITERS] = {false};
    for (int j = 0; j < p->niters; j++)
        r->group_of[j] = -1;
    if (!add_loads(r, r->pf, alone))
        return false;
    rf_pair t = *r; /* the groups found, renumbered below in P's iter order */
    int map[WF_MAX_RANK];
    for (int g = 0; g < t.ngroups; g++)
        map[g] = -1;
    r->ngroups = 0;
    for (int j = 0; j < p->niters; j++) {
        int g0 = t.group_of[j];
        if (g0 >= 0 && map[g0] >= 0)
            continue;
        if (r->ngroups == WF_MAX_RANK)
            return no(r, "block \"%s\" has more than %d iters apart from those its reads combine",
                      p->name, WF_MAX_RANK);
        int g = r->ngroups++;
        r->nmem[g] = g0 >= 0 ? t.nmem[g0] : 1, r->gidx[g] = g0 >= 0 ? t.gidx[g0] : NULL;
        r->gext[g] = g0 >= 0 ? t.gext[g0] : p->iters[j].extent;
        if (g0 >= 0)
            memcpy(r->mem[g], t.mem[g0], sizeof r->mem[g]), map[g0] = g;
        else
            r->mem[g][0] = j;
    }
    for (int g = 0; g < r->ngroups; g++)
        for (int m = 0; m < r->nmem[g]; m++)
            r->group_of[r->mem[g][m]] = g;
    return true;
}

static bool group_reduced(const rf_pair *r, int g) {
    for (int m = 0; m < r->nmem[g]; m++)
        if (r->reduced[r->mem[g][m]])
            return true;
    return false;
}

/* Every group can be split back, reduces or keeps all its iters, and the kept ones are
   W's output dims in order. */
static bool check_groups(rf_pair *r) {
    const tir_stmt *ws = r->w->body;
    int d = 0;
    bool ok = ws->nidx == ws->buf->ndim && r->x->dtype == ws->buf->dtype;
    for (int g = 0; g < r->ngroups; g++) {
        bool red = group_reduced(r, g);
        for (int m = 0; m < r->nmem[g]; m++)
            if (r->reduced[r->mem[g][m]] != red || !splits_back(r, g)) {
                sbuf t = {0};
                no(r,
                   "block \"%s\" reads %s, which combines iters that block \"%s\" keeps with "
                   "iters reduced, or is not a split of one extent",
                   r->p->name, expr_text(&t, r->gidx[g]), r->w->name);
                sbuf_free(&t);
                return false;
            }
        if (red)
            continue;
        int jw = r->w_of_p[r->mem[g][0]];
        ok = ok && d < ws->nidx && iter_index(r->w, ws->idx[d]) == jw &&
             r->w->iters[jw].extent == ws->buf->shape[d];
        d++;
    }
    if (!ok || d != ws->nidx)
        return no(r,
                  "block \"%s\" must write %s (of %s's dtype) at its spatial iters, in the "
                  "order block \"%s\" keeps them",
                  r->w->name, ws->buf->name, r->x->name, r->p->name);
    return true;
}

/* ---- the loops ---- */

static int loop_index(tir_stmt *const *loops, int n, const tir_var *v) {
    for (int i = 0; i < n; i++)
        if (loops[i]->loop_var == v)
            return i;
    return -1;
}

/* Is W's iter value ew P's value ep with W's loops replaced by P's (sigma)? */
static bool match(rf_pair *r, const tir_expr *ew, const tir_expr *ep) {
    if (ew->kind != ep->kind || ew->nargs != ep->nargs || ew->op != ep->op)
        return false;
    if (ew->kind == TE_INT)
        return ew->ival == ep->ival;
    if (ew->kind == TE_VAR) {
        int a = loop_index(r->wl, r->nwl, ew->var), b = loop_index(r->pl, r->npl, ep->var);
        if (a < 0 || b < 0 || r->wl[a]->extent != r->pl[b]->extent)
            return false;
        for (int i = 0; i < r->nwl && r->sigma[a] < 0; i++)
            if (r->sigma[i] == b)
                return false;
        if (r->sigma[a] < 0)
            r->sigma[a] = b;
        return r->sigma[a] == b;
    }
    for (int i = 0; i < ew->nargs; i++)
        if (!match(r, ew->args[i], ep->args[i]))
            return false;
    return ew->kind == TE_BIN;
}

static bool all_loops_used(rf_pair *r, const tir_block *b, tir_stmt *const *loops, int n) {
    for (int i = 0; i < n; i++) {
        bool used = false;
        for (int k = 0; k < b->niters; k++)
            used |= tir_expr_uses(b->iters[k].value, loops[i]->loop_var);
        if (!used)
            return no(r, "block \"%s\" sits under the loop %s, which none of its iters uses",
                      b->name, loops[i]->loop_var->name);
    }
    return true;
}

static const char *loop_kind(const tir_stmt *l) {
    static const char *const kinds[] = {"serial", "unrolled", "vectorized", "", "parallel"};
    return l->for_kind == TIR_THREAD ? l->thread : kinds[l->for_kind];
}

static bool line_up_fail(rf_pair *r, const char *detail) {
    char d[400];
    snprintf(d, sizeof d, "%s", detail);
    return no(r,
              "block \"%s\" computes %s in a loop nest whose loops do not line up with those "
              "of block \"%s\", which reads it (%s): %s would be an intermediate tensor in "
              "global memory between two reductions, which the core does not support yet; "
              "compute_at \"%s\" into a loop of \"%s\", or split and bind both loop nests alike",
              r->p->name, r->x->name, r->w->name, d, r->x->name, r->p->name, r->w->name);
}

static bool line_up(rf_pair *r) {
    r->npl = tir_loops_of(r->p, r->pl, TIR_MAX_LOOPS);
    r->nwl = tir_loops_of(r->w, r->wl, TIR_MAX_LOOPS);
    if (!all_loops_used(r, r->p, r->pl, r->npl) || !all_loops_used(r, r->w, r->wl, r->nwl))
        return false;
    for (int i = 0; i < r->nwl; i++)
        r->sigma[i] = -1;
    char d[400];
    for (int j = 0; j < r->p->niters; j++) {
        int jw = r->w_of_p[j];
        if (jw < 0 || match(r, r->w->iters[jw].value, r->p->iters[j].value))
            continue;
        snprintf(d, sizeof d, "%.60s of \"%.60s\" and %.60s of \"%.60s\" are bound differently",
                 r->w->iters[jw].var->name, r->w->name, r->p->iters[j].var->name, r->p->name);
        return line_up_fail(r, d);
    }
    for (int i = 0; i < r->nwl; i++) {
        const tir_stmt *lw = r->wl[i], *lp = r->pl[r->sigma[i]];
        if (lp == lw || lp->for_kind == TIR_SERIAL ||
            (lp->for_kind == lw->for_kind &&
             (lp->for_kind != TIR_THREAD || !strcmp(lp->thread, lw->thread))))
            continue;
        snprintf(d, sizeof d, "its loop %.60s is %.20s, the loop %.60s of \"%.60s\" %.20s",
                 lp->loop_var->name, loop_kind(lp), lw->loop_var->name, r->w->name, loop_kind(lw));
        return line_up_fail(r, d);
    }
    return true;
}

static bool plain_loads(const rf_pair *r, const tir_expr *e) {
    for (int i = 0; i < e->nargs; i++)
        if (e->kind == TE_LOAD ? iter_index(r->p, e->args[i]) < 0 : !plain_loads(r, e->args[i]))
            return false;
    return true;
}

/* Could build.c build P as a reduction of its own: its loads index by plain iters, and
   it writes at its spatial iters in order? */
static bool plain(const rf_pair *r) {
    const tir_stmt *st = r->p->body;
    int d = 0;
    for (int k = 0; k < r->p->niters; k++)
        if (!r->p->iters[k].reduce && (d >= st->nidx || iter_index(r->p, st->idx[d++]) != k))
            return false;
    return d == st->nidx && plain_loads(r, r->pf);
}

/* Is in_iters (an expression of b's iters) in_loops once each iter is replaced by its
   binding? */
static bool bound_as(const tir_block *b, const tir_expr *in_iters, const tir_expr *in_loops) {
    int k = iter_index(b, in_iters);
    if (k >= 0)
        return tir_expr_equal(b->iters[k].value, in_loops);
    if (in_iters->kind != in_loops->kind || in_iters->nargs != in_loops->nargs ||
        in_iters->op != in_loops->op || (in_iters->kind != TE_BIN && in_iters->kind != TE_INT))
        return false;
    for (int i = 0; i < in_iters->nargs; i++)
        if (!bound_as(b, in_iters->args[i], in_loops->args[i]))
            return false;
    return in_iters->kind == TE_BIN || in_iters->ival == in_loops->ival;
}

/* Is e (T.where) the bound of splits the core makes: `x < n` (and such terms joined by
   `and`) where x binds an iter of extent n, or combines a group of extent n? */
static bool split_bound(const rf_pair *r, const tir_block *b, const tir_expr *e) {
    if (e->kind == TE_BIN && e->op == TB_AND)
        return split_bound(r, b, e->args[0]) && split_bound(r, b, e->args[1]);
    if (e->kind != TE_BIN || e->op != TB_LT || e->args[1]->kind != TE_INT)
        return false;
    for (int k = 0; k < b->niters; k++)
        if (b->iters[k].extent == e->args[1]->ival && tir_expr_equal(b->iters[k].value, e->args[0]))
            return true;
    for (int g = 0; b == r->p && g < r->ngroups; g++)
        if (r->gidx[g] && r->gext[g] == e->args[1]->ival && bound_as(b, r->gidx[g], e->args[0]))
            return true;
    return false;
}

static bool check_where(rf_pair *r) {
    for (int i = 0; i < 2; i++) {
        const tir_block *b = i ? r->w : r->p;
        if (b->where && !split_bound(r, b, b->where)) {
            sbuf t = {0};
            no(r,
               "the predicate T.where(%s) of block \"%s\" is not the bound of a split of its "
               "loops, the only predicate the core reproduces",
               expr_text(&t, b->where), b->name);
            sbuf_free(&t);
            return false;
        }
    }
    return true;
}

static bool analyze(rf_pair *r) {
    r->why[0] = 0;
    return link_dims(r) && make_groups(r) && check_groups(r) && check_where(r) && line_up(r);
}

/* The block of the pair that is also in another pair, as its partial block or its
   write-back (rfactor applied to rfactor's write-back), or NULL. */
static const tir_block *chained(const wf_tir *s, const rf_pair *r) {
    rf_pair o;
    memset(&o, 0, sizeof o);
    if (find_pair(s, r->p, &o) && o.w == r->p)
        return r->p;
    memset(&o, 0, sizeof o);
    return find_pair(s, r->w, &o) && o.p == r->w ? r->w : NULL;
}

tir_rf_role tir_rf_role_of(wf_tir *s, const tir_block *b) {
    rf_pair r;
    memset(&r, 0, sizeof r);
    if (!find_pair(s, b, &r))
        return TIR_RF_NONE;
    const tir_block *mid = chained(s, &r);
    if (mid) {
        err_failb(&s->err, WF_ERR_UNSUPPORTED,
                  "build: not supported yet: block \"%s\" is the write-back of one rfactor and "
                  "the partial block of another (rfactor applied to rfactor's write-back): the "
                  "core splits a reduction in two once (rfactor one loop of the original block)",
                  mid->name);
        return TIR_RF_REFUSED;
    }
    if (!analyze(&r)) {
        if (plain(&r))
            return TIR_RF_NONE;
        err_failb(&s->err, WF_ERR_UNSUPPORTED, "build: not supported yet: %s", r.why);
        return TIR_RF_REFUSED;
    }
    return b == r.p ? TIR_RF_PARTIAL : TIR_RF_WRITEBACK;
}

/* ---- the original block ---- */

/* e with each index that combines a group's iters replaced by the group's iter. */
static tir_expr *rewrite(wf_tir *s, const rf_pair *r, tir_var *const *gv, const tir_expr *e) {
    if (e->nargs == 0)
        return (tir_expr *)e;
    tir_expr *n = ARENA_NEW(&s->arena, tir_expr);
    tir_expr **a = ARENA_ARRAY(&s->arena, tir_expr *, e->nargs);
    if (!n || !a)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    *n = *e, n->args = a;
    for (int i = 0; i < e->nargs; i++) {
        int g = e->kind == TE_LOAD ? group_at(r, e->args[i]) : -1;
        a[i] = g >= 0 ? tir_var_ref(s, gv[g]) : rewrite(s, r, gv, e->args[i]);
        if (!a[i])
            return NULL;
    }
    return n;
}

static tir_var *group_var(wf_tir *s, const rf_pair *r, int g) {
    if (r->nmem[g] == 1)
        return r->p->iters[r->mem[g][0]].var;
    sbuf t = {0};
    char *name = arena_strdup(&s->arena, expr_text(&t, r->gidx[g]));
    sbuf_free(&t);
    return name ? tir_var_new(s, name) : err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
}

static tir_stmt *store(wf_tir *s, tir_buffer *buf, int n, tir_expr **idx, tir_expr *v) {
    tir_stmt *st = v ? tir_stmt_new(s, TS_STORE) : NULL;
    if (st)
        st->buf = buf, st->nidx = n, st->idx = idx, st->value = v;
    return st;
}

/* The block rfactor started from: O's iters, P's reduced value over them, reduced
   with P's op into W's buffer from W's T.init() value. */
static tir_block *original(wf_tir *s, const rf_pair *r) {
    tir_block *o = ARENA_NEW(&s->arena, tir_block);
    tir_iter *its = ARENA_ARRAY(&s->arena, tir_iter, r->ngroups);
    const tir_stmt *ws = r->w->body;
    tir_expr **idx = ARENA_ARRAY(&s->arena, tir_expr *, ws->nidx + 1);
    tir_expr *v = ARENA_NEW(&s->arena, tir_expr);
    tir_expr **args = ARENA_ARRAY(&s->arena, tir_expr *, 2);
    tir_var *gv[WF_MAX_RANK];
    if (!o || !its || !idx || !v || !args)
        return err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    int d = 0;
    for (int g = 0; g < r->ngroups; g++) {
        if (!(gv[g] = group_var(s, r, g)))
            return NULL;
        its[g] = (tir_iter){gv[g], r->gext[g], group_reduced(r, g), NULL};
        if (!its[g].reduce && !(idx[d++] = tir_var_ref(s, gv[g])))
            return NULL;
    }
    *v = *r->p->body->value, v->args = args, v->nargs = 2;
    args[0] = tir_load(s, ws->buf, ws->nidx, idx);
    args[1] = rewrite(s, r, gv, r->pf);
    o->name = r->p->name, o->iters = its, o->niters = r->ngroups;
    o->init = store(s, ws->buf, ws->nidx, idx, tir_init_of(s, r->w)->value);
    o->body = args[0] && args[1] ? store(s, ws->buf, ws->nidx, idx, v) : NULL;
    return o->init && o->body ? o : NULL;
}

/* ---- lowering ---- */

static bool has(uint32_t mask, int k) {
    return k >= 32 || ((mask >> k) & 1);
}

/* tv's loop domain, one axis per group of O in omask (bit g: group g), in order,
   becomes one axis per iter of P those groups hold, in P's order; returns their mask
   (bit j: P's iter j). */
static uint32_t to_p_iters(const rf_pair *r, wf_tv *tv, uint32_t omask) {
    int pos[WF_MAX_RANK], n = 0;
    for (int g = 0; g < r->ngroups; g++)
        pos[g] = has(omask, g) ? n++ : -1;
    for (int g = r->ngroups - 1; g >= 0; g--)
        for (int m = r->nmem[g] - 1; m >= 1 && pos[g] >= 0; m--)
            wf_tv_split(tv, pos[g], r->p->iters[r->mem[g][m]].extent);
    uint32_t pmask = 0;
    for (int g = 0; g < r->ngroups; g++)
        for (int m = 0; m < r->nmem[g] && pos[g] >= 0; m++)
            pmask |= 1u << r->mem[g][m];
    int old2new[RF_MAX_ITERS], a = 0;
    bool same = true;
    for (int g = 0; g < r->ngroups; g++)
        for (int m = 0; m < r->nmem[g] && pos[g] >= 0; m++, a++) {
            int j = r->mem[g][m], rank = 0; /* j's place among the P iters tv holds */
            for (int i = 0; i < j; i++)
                rank += has(pmask, i);
            old2new[a] = rank, same &= rank == a;
        }
    if (!same)
        wf_tv_reorder_all(tv, old2new);
    return pmask;
}

/* tv (an axis per iter of P in pmask) takes P's loops; those lining up with W's loops
   come first, in W's order, and run as W's do. */
static bool take_p_loops(tir_bctx *c, const rf_pair *r, const tir_build_ops *ops, wf_tv *tv,
                         uint32_t pmask, bool inner) {
    if (!ops->schedule(c, r->p, tv, pmask, inner))
        return false;
    int old2new[TIR_MAX_LOOPS], n = r->nwl;
    bool same = true;
    for (int j = 0; j < r->npl; j++) {
        int a = -1;
        for (int i = 0; i < r->nwl; i++)
            a = r->sigma[i] == j ? i : a;
        old2new[j] = a >= 0 ? a : n++;
        same &= old2new[j] == j;
    }
    if (!same)
        wf_tv_reorder_all(tv, old2new);
    for (int i = 0; i < r->nwl; i++)
        wf_tv_parallelize(tv, i, ops->ptype(r->wl[i]));
    return true;
}

/* tv (an axis per iter of P in pmask, all of them iters P keeps, in order) takes W's
   loops. */
static bool take_w_loops(tir_bctx *c, const rf_pair *r, const tir_build_ops *ops, wf_tv *tv,
                         uint32_t pmask, bool inner) {
    int old2new[WF_MAX_RANK], a = 0;
    uint32_t wmask = 0;
    bool same = true;
    for (int j = 0; j < r->p->niters; j++)
        if (!r->p->iters[j].reduce && has(pmask, j))
            wmask |= 1u << r->w_of_p[j];
    for (int j = 0; j < r->p->niters; j++)
        if (!r->p->iters[j].reduce && has(pmask, j)) {
            int rank = 0; /* the W iter's place among those tv holds */
            for (int i = 0; i < r->w_of_p[j]; i++)
                rank += has(wmask, i);
            old2new[a] = rank, same &= rank == a, a++;
        }
    if (!same)
        wf_tv_reorder_all(tv, old2new);
    return ops->schedule(c, r->w, tv, wmask, inner);
}

/* Are P's loops W's, in the same order (each lining up with the one at its place)? */
static bool same_loops(const rf_pair *r) {
    if (r->npl != r->nwl)
        return false;
    for (int i = 0; i < r->nwl; i++)
        if (r->sigma[i] != i)
            return false;
    return true;
}

/* The live block other than the pair's (and their split init blocks, lowered with
   them) in the loop (a consumer computed there), or NULL. */
static const tir_block *other_in(const wf_tir *s, const rf_pair *r, const tir_stmt *loop) {
    const tir_block *pinit = tir_split_init(s, r->p), *winit = tir_split_init(s, r->w);
    for (int i = 0; i < s->blocks.n; i++) {
        const tir_block *o = s->blocks.ptr[i];
        bool mine = o == r->p || o == r->w || o == pinit || o == winit;
        for (const tir_stmt *q = o->stmt->parent; !o->dead && !mine && q; q = q->parent)
            if (q == loop)
                return o;
    }
    return NULL;
}

static bool holds_other(const wf_tir *s, const rf_pair *r, const tir_stmt *loop) {
    return other_in(s, r, loop) != NULL;
}

/* W shares none of its reduce loops (the first pos of its loops) with a consumer. */
static bool consumer_outside(wf_tir *s, const rf_pair *r, int pos) {
    const tir_block *w = r->w;
    for (int j = 0; j < pos; j++)
        for (int k = 0; k < w->niters; k++)
            if (w->iters[k].reduce && tir_expr_uses(w->iters[k].value, r->wl[j]->loop_var))
                return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                                 "build: not supported yet: block \"%s\" sits inside the loop "
                                 "%s, over which block \"%s\" reduces (its reduction iter %s): "
                                 "the core finishes a reduction before its result is read "
                                 "(reverse_compute_at \"%s\" at a loop outside %s)",
                                 other_in(s, r, r->wl[j])->name, r->wl[j]->loop_var->name, w->name,
                                 w->iters[k].var->name, other_in(s, r, r->wl[j])->name,
                                 r->wl[j]->loop_var->name);
    return true;
}

bool tir_rf_lower(tir_bctx *c, wf_tir *s, const tir_block *w, const tir_build_ops *ops) {
    rf_pair r;
    memset(&r, 0, sizeof r);
    if (!find_pair(s, w, &r) || !analyze(&r))
        return err_failb(&s->err, WF_ERR_UNSUPPORTED, "build: not supported yet: %s", r.why);
    tir_block *o = original(s, &r);
    wf_tv *const *made;
    const uint32_t *iters;
    uint32_t pmask[TIR_MAX_OPS];
    int nmade = 0, axes[RF_MAX_ITERS], nred = 0;
    if (!o && !err_set(&s->err))
        err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    if (!o)
        return false;
    wf_tv *red = ops->value(c, o, &made, &iters, &nmade);
    if (!red)
        return false;
    for (int i = 0; i < nmade; i++)
        pmask[i] = to_p_iters(&r, made[i], iters[i]);
    for (int j = 0; j < r.p->niters; j++)
        if (r.p->iters[j].reduce)
            axes[nred++] = j;
    /* the producer of the partials (P), if P reduces anything itself */
    wf_tv *part = nred ? wf_tv_rfactor(red, nred, axes) : NULL;
    bool ok = !nred || part;
    uint32_t all = UINT32_MAX, kept = 0; /* red keeps the iters P keeps */
    for (int j = 0; j < r.p->niters; j++)
        kept |= (uint32_t)!r.p->iters[j].reduce << j;
    for (int i = 0; ok && i + 1 < nmade; i++)
        ok = part ? take_p_loops(c, &r, ops, made[i], pmask[i], true)
                  : take_w_loops(c, &r, ops, made[i], pmask[i], true);
    ok = ok && (!part || take_p_loops(c, &r, ops, part, all, false)) &&
         take_w_loops(c, &r, ops, red, kept, false);
    if (!ok)
        return false;
    for (int i = 0; i + 1 < nmade; i++)
        wf_tv_inline_at(made[i], wf_tv_ndim(made[i]));
    if (part && r.x->scope != TIR_GLOBAL)
        wf_tv_set_memory(part, r.x->scope == TIR_SHARED ? WF_MEM_SHARED : WF_MEM_LOCAL);
    if (part)
        wf_tv_inline_at(part, r.nwl);
    int pos = 0;
    while (pos < r.nwl && holds_other(s, &r, r.wl[pos]))
        pos++;
    if (!consumer_outside(s, &r, pos))
        return false;
    if (pos > 0)
        wf_tv_inline_at(red, pos);
    /* X's tensor (where a block computed at P's loops is placed: build.c's
       place_blocks): the producer of the partials; where P reduces nothing, the
       reduction itself, whose steps are P's values, in W's loops: P's own only
       if they are W's in order. Else X has none, and such a block is refused. */
    wf_tv *xtv = part ? part : same_loops(&r) ? red : NULL;
    return (!xtv || ops->set_tv(c, r.x, xtv)) && ops->set_tv(c, r.w->body->buf, red);
}
