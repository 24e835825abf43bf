/*
 * build_loops.c -- the loops around a TIR block become the loop domain of a tensor of
 * the core (the block's op, or an op inside its value).
 *
 * Each iter of the block is bound to an affine value of the loops (TVM's binding):
 * a mixed-radix sum of loop variables, as split makes it (`i_0 * 16 + i_1`), possibly
 * ending in a part of a fused value (`X // 8`, `X % 8`, `X % 64 // 8`, where X is itself
 * such a sum: the loops of a fuse, split again). The tensor's dim for the iter is split
 * as the sum's loops are, its fused part last; the fused parts of consecutive iters that
 * share X are merged (fuse) and split as X's loops are (`i_0 * 16 + (f_0 * 256 + f_1 *
 * 16 + f_2) // 8`: the cooperative fetch of a tile). The axes are then reordered as the
 * loops are nested and parallelized as they are bound. A loop no dim of the tensor uses
 * becomes a loop-domain broadcast IterDomain (wf_tv_loop_broadcast) where the caller
 * allows it: the tensor is computed in that loop without being indexed by it. A shared
 * buffer whose dims were fused and split again is allocated over the dims as split
 * before the fuse (wf_tv_set_allocation_domain): a 16 x 8 tile fetched by 16 x 16
 * threads takes 128 cells, not 256.
 */
#include "tir/tir.h"
#include "ir/ir.h"

#include <string.h>

/* The binding of one iter: loop terms (outermost first, with their strides) and an
   optional fused part X // div % mod whose extent is comp. */
typedef struct {
    int loop[TIR_MAX_LOOPS]; /* indices into the block's loops */
    int64_t stride[TIR_MAX_LOOPS];
    int n;
    const tir_expr *x; /* the fused value, or NULL */
    int64_t div, mod;  /* mod 0: none */
    int64_t comp;      /* the extent of the fused part */
} binding;

static int loop_index(tir_stmt *const *loops, int nl, const tir_var *v) {
    for (int i = 0; i < nl; i++)
        if (loops[i]->loop_var == v)
            return i;
    return -1;
}

/* A term var or var * c: a loop term; X // n, X % n, X % m // n: the fused part. */
static bool add_term(binding *bd, const tir_expr *t, tir_stmt *const *loops, int nl) {
    int64_t k = 1;
    if (t->kind == TE_BIN && t->op == TB_MUL && t->args[1]->kind == TE_INT)
        k = t->args[1]->ival, t = t->args[0];
    if (t->kind == TE_VAR && loop_index(loops, nl, t->var) >= 0 && bd->n < TIR_MAX_LOOPS) {
        bd->loop[bd->n] = loop_index(loops, nl, t->var);
        bd->stride[bd->n++] = k;
        return true;
    }
    if (k != 1 || bd->x)
        return false;
    bd->div = 1, bd->mod = 0;
    if (t->kind == TE_BIN && t->op == TB_FLOORDIV && t->args[1]->kind == TE_INT)
        bd->div = t->args[1]->ival, t = t->args[0];
    if (t->kind == TE_BIN && t->op == TB_MOD && t->args[1]->kind == TE_INT)
        bd->mod = t->args[1]->ival, t = t->args[0];
    bd->x = t;
    return bd->div != 1 || bd->mod != 0;
}

static bool add_sum(binding *bd, const tir_expr *v, tir_stmt *const *loops, int nl) {
    if (v->kind == TE_BIN && v->op == TB_ADD)
        return add_sum(bd, v->args[0], loops, nl) && add_sum(bd, v->args[1], loops, nl);
    return add_term(bd, v, loops, nl);
}

/* Parses iter k's binding; the loop terms must have a split's strides, the innermost
   being the fused part's extent (or 1 without one). */
static bool parse_binding(wf_tir *s, const tir_block *b, int k, tir_stmt *const *loops, int nl,
                          binding *bd) {
    memset(bd, 0, sizeof *bd);
    if (!add_sum(bd, b->iters[k].value, loops, nl) || (bd->n == 0 && !bd->x))
        return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: block \"%s\" binds %s to a value that is not "
                        "a split or fuse of loops",
                        b->name, b->iters[k].var->name);
    bd->comp = !bd->x ? 1 : bd->n ? bd->stride[bd->n - 1] : b->iters[k].extent;
    int64_t expect = bd->x ? bd->comp : 1;
    for (int j = bd->n - 1; j >= 0; j--) {
        if (bd->stride[j] != expect)
            return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                            "build: not supported yet: the strides of iter %s of block \"%s\" "
                            "are not those of a split",
                            b->iters[k].var->name, b->name);
        expect *= loops[bd->loop[j]]->extent;
    }
    return true;
}

/* The fused parts of iters k0..k (X // inner % (inner * comp), innermost last) are
   X's mixed-radix digits, as fuse makes them. */
static bool fused_run_ok(const binding *bd, int k0, int k) {
    int64_t inner = 1;
    for (int j = k; j >= k0; j--) {
        if (bd[j].div != inner || (j > k0 && bd[j].mod != inner * bd[j].comp) ||
            (j == k0 && bd[j].mod))
            return false;
        inner *= bd[j].comp;
    }
    return true;
}

/* The tensor's axes, tagged: a loop index (>= 0), or -(k + 1) for iter k's dim (whole,
   or its fused part once split). */
typedef struct {
    int tag[2 * TIR_MAX_LOOPS];
    int n;
} tags;

static int find_tag(const tags *t, int tag) {
    for (int i = 0; i < t->n; i++)
        if (t->tag[i] == tag)
            return i;
    return -1;
}

/* Replaces the axis at d by m axes tagged tg[0..m): split as their extents say. */
static bool split_axis(wf_tir *s, wf_tv *tv, tags *t, int d, const int *tg, const int64_t *ext,
                       int m) {
    if (t->n + m - 1 > 2 * TIR_MAX_LOOPS)
        return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: more than %d axes in one tensor",
                        2 * TIR_MAX_LOOPS);
    for (int j = m - 1; j >= 1; j--)
        wf_tv_split(tv, d, ext[j]);
    memmove(t->tag + d + m, t->tag + d + 1, sizeof t->tag[0] * (size_t)(t->n - d - 1));
    memcpy(t->tag + d, tg, sizeof tg[0] * (size_t)m);
    t->n += m - 1;
    return true;
}

/* Iter k's dim split as its loop terms, its fused part (if any) last. */
static bool split_iter(wf_tir *s, wf_tv *tv, tags *t, const binding *bd, int k,
                       tir_stmt *const *loops) {
    int tg[TIR_MAX_LOOPS + 1];
    int64_t ext[TIR_MAX_LOOPS + 1];
    int m = 0;
    for (int j = 0; j < bd->n; j++)
        tg[m] = bd->loop[j], ext[m++] = loops[bd->loop[j]]->extent;
    if (bd->x)
        tg[m] = -(k + 1), ext[m++] = bd->comp;
    return split_axis(s, tv, t, find_tag(t, -(k + 1)), tg, ext, m);
}

/* The fused parts of iters k0..k merged into X, then split as X's loops are. */
static bool unfuse_run(wf_tir *s, const tir_block *b, wf_tv *tv, tags *t, const binding *bd, int k0,
                       int k, tir_stmt *const *loops, int nl) {
    if (!fused_run_ok(bd, k0, k))
        return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: the iters of block \"%s\" bound with // "
                        "and %% are not a fuse of consecutive iters",
                        b->name);
    for (int j = k0 + 1; j <= k; j++) {
        int p0 = find_tag(t, -(k0 + 1)), pj = find_tag(t, -(j + 1));
        wf_tv_merge_axes(tv, p0, pj);
        int hi = p0 > pj ? p0 : pj;
        memmove(t->tag + hi, t->tag + hi + 1, sizeof t->tag[0] * (size_t)(t->n - hi - 1));
        t->n--;
        t->tag[p0 < pj ? p0 : pj] = -(k0 + 1);
    }
    binding xb;
    memset(&xb, 0, sizeof xb);
    bool ok = add_sum(&xb, bd[k0].x, loops, nl) && !xb.x;
    int64_t expect = 1;
    for (int j = xb.n - 1; ok && j >= 0; j--) {
        ok = xb.stride[j] == expect;
        expect *= loops[xb.loop[j]]->extent;
    }
    if (!ok)
        return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: block \"%s\" binds %s to a value that is not "
                        "a split or fuse of loops",
                        b->name, b->iters[k0].var->name);
    int64_t ext[TIR_MAX_LOOPS];
    for (int j = 0; j < xb.n; j++)
        ext[j] = loops[xb.loop[j]]->extent;
    return split_axis(s, tv, t, find_tag(t, -(k0 + 1)), xb.loop, ext, xb.n);
}

/* The loops tv's dims use, outermost first, in dom[]; -1 with the error set. */
static int split_dims(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                      tir_stmt *const *loops, int nl, int *dom) {
    binding bd[TIR_MAX_LOOPS];
    tags t = {.n = 0};
    if (b->niters > TIR_MAX_LOOPS)
        return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                        "build: not supported yet: more than %d iters in block \"%s\"",
                        TIR_MAX_LOOPS, b->name),
               -1;
    for (int k = 0; k < b->niters; k++)
        if ((mask >> k) & 1)
            t.tag[t.n++] = -(k + 1);
    for (int k = b->niters - 1; k >= 0; k--)
        if (((mask >> k) & 1) && (!parse_binding(s, b, k, loops, nl, &bd[k]) ||
                                  !split_iter(s, tv, &t, &bd[k], k, loops)))
            return -1;
    /* Before the fused parts are merged and split again (over threads, with a tail):
       a shared buffer is laid out as these split dims, each cell once, not over the
       loops of the fuse (16 x 16 threads for a 128-element tile). */
    int nsplit;
    wf_iterdomain *const *split = wf_tv_loop_domain(tv, &nsplit);
    wf_iterdomain *layout[2 * TIR_MAX_LOOPS];
    bool fused = false;
    for (int i = 0; i < nsplit && i < 2 * TIR_MAX_LOOPS; i++)
        layout[i] = split[i];
    for (int k = b->niters - 1; k >= 0; k--) {
        if (!((mask >> k) & 1) || !bd[k].x)
            continue;
        int k0 = k;
        while (k0 > 0 && bd[k0 - 1].x && tir_expr_equal(bd[k0 - 1].x, bd[k].x))
            k0--;
        for (int j = k0; j <= k; j++)
            if (!((mask >> j) & 1))
                return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                                "build: not supported yet: the fused iters of block \"%s\" are "
                                "not all indexed by one operand",
                                b->name),
                       -1;
        if (!unfuse_run(s, b, tv, &t, bd, k0, k, loops, nl))
            return -1;
        fused = true;
        k = k0;
    }
    if (fused && tv->mem == WF_MEM_SHARED && nsplit <= 2 * TIR_MAX_LOOPS)
        wf_tv_set_allocation_domain(tv, nsplit, layout, true);
    for (int i = 0; i < t.n; i++) {
        dom[i] = t.tag[i];
        for (int j = 0; j < i; j++)
            if (dom[i] == dom[j])
                return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                                "build: not supported yet: the loop %s binds two iters of block "
                                "\"%s\"",
                                loops[dom[i]]->loop_var->name, b->name),
                       -1;
    }
    return t.n;
}

wf_ptype tir_loop_ptype(const tir_stmt *l) {
    static const char *const th[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                     "threadIdx.x", "threadIdx.y", "threadIdx.z"};
    static const wf_ptype pt[] = {WF_BIDX, WF_BIDY, WF_BIDZ, WF_TIDX, WF_TIDY, WF_TIDZ};
    if (l->for_kind == TIR_UNROLL)
        return WF_UNROLL;
    if (l->for_kind == TIR_VECTORIZED)
        return WF_VECTORIZE;
    for (int i = 0; l->for_kind == TIR_THREAD && i < 6; i++)
        if (!strcmp(l->thread, th[i]))
            return pt[i];
    return WF_SERIAL;
}

static bool in_list(const int *l, int n, int x) {
    for (int i = 0; i < n; i++)
        if (l[i] == x)
            return true;
    return false;
}

bool tir_build_loop_domain(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                           const bool *may_broadcast) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    int dom[2 * TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    int nd = split_dims(s, b, tv, mask, loops, nl, dom);
    if (nd < 0)
        return false;
    for (int j = 0; j < nl; j++)
        if (!in_list(dom, nd, j) && !may_broadcast[j])
            return wf_failb(&s->err, WF_ERR_UNSUPPORTED,
                            "build: not supported yet: the loop %s around block \"%s\" that no "
                            "iter uses",
                            loops[j]->loop_var->name, b->name);
    int old2new[2 * TIR_MAX_LOOPS];
    for (int i = 0; i < nd; i++) {
        old2new[i] = 0;
        for (int j = 0; j < dom[i]; j++)
            old2new[i] += in_list(dom, nd, j);
    }
    if (nd > 1)
        wf_tv_reorder_all(tv, old2new);
    for (int j = 0; j < nl; j++)
        if (!in_list(dom, nd, j))
            wf_tv_loop_broadcast(tv, j);
        else if (tir_loop_ptype(loops[j]) != WF_SERIAL)
            wf_tv_parallelize(tv, j, tir_loop_ptype(loops[j]));
    return true;
}
