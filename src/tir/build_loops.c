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

/* The binding of one iter: terms outermost first, each a loop or a fused part X //
   div % mod (loop -1), with their strides and extents. */
#define TIR_MAX_TERMS (TIR_MAX_LOOPS + 1)
typedef struct {
    int loop[TIR_MAX_TERMS]; /* indices into the block's loops, -1: a fused part */
    int64_t stride[TIR_MAX_TERMS];
    int n;
    const tir_expr *x[TIR_MAX_TERMS];               /* a fused part's fused value */
    int64_t div[TIR_MAX_TERMS], mod[TIR_MAX_TERMS]; /* mod 0: none */
    int64_t comp[TIR_MAX_TERMS];                    /* a fused part's extent */
    bool zero;                                      /* bound to 0: an extent-1 iter of a fuse */
} binding;

static int loop_index(tir_stmt *const *loops, int nl, const tir_var *v) {
    for (int i = 0; i < nl; i++)
        if (loops[i]->loop_var == v)
            return i;
    return -1;
}

/* A term var or var * c: a loop term; X // n, X % n, X % m // n (times c): a fused
   part. */
static bool add_term(binding *bd, const tir_expr *t, tir_stmt *const *loops, int nl) {
    int64_t k = 1;
    if (t->kind == TE_BIN && t->op == TB_MUL && t->args[1]->kind == TE_INT)
        k = t->args[1]->ival, t = t->args[0];
    if (bd->n == TIR_MAX_TERMS)
        return false;
    int j = bd->n++;
    bd->stride[j] = k;
    bd->loop[j] = t->kind == TE_VAR ? loop_index(loops, nl, t->var) : -1;
    if (bd->loop[j] >= 0)
        return true;
    if (k < 1)
        return false;
    bd->div[j] = 1, bd->mod[j] = 0;
    if (t->kind == TE_BIN && t->op == TB_FLOORDIV && t->args[1]->kind == TE_INT)
        bd->div[j] = t->args[1]->ival, t = t->args[0];
    if (t->kind == TE_BIN && t->op == TB_MOD && t->args[1]->kind == TE_INT)
        bd->mod[j] = t->args[1]->ival, t = t->args[0];
    bd->x[j] = t;
    return bd->div[j] != 1 || bd->mod[j] != 0;
}

static bool add_sum(binding *bd, const tir_expr *v, tir_stmt *const *loops, int nl) {
    if (v->kind == TE_INT && v->ival == 0) /* an extent-1 iter of a fuse: no term */
        return true;
    if (v->kind == TE_BIN && v->op == TB_ADD)
        return add_sum(bd, v->args[0], loops, nl) && add_sum(bd, v->args[1], loops, nl);
    return add_term(bd, v, loops, nl);
}

/* Parses iter k's binding; the terms must have a split's strides (the innermost 1,
   each other the product of the extents inside it). A fused part's extent is the
   ratio of the next outer term's stride (or of the iter's extent) to its own. */
static bool parse_binding(wf_tir *s, const tir_block *b, int k, tir_stmt *const *loops, int nl,
                          int pos, binding *bd) {
    memset(bd, 0, sizeof *bd);
    if (!add_sum(bd, b->iters[k].value, loops, nl) || (bd->n == 0 && b->iters[k].extent != 1)) {
        sbuf t = {0};
        tir_print_expr(&t, b->iters[k].value);
        err_fail(&s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" binds %s to %s, which is not a sum of "
                 "its loops and of parts of fused loops (x // n, x %% n) as split and fuse make "
                 "them",
                 b->name, b->iters[k].var->name, sbuf_str(&t));
        sbuf_free(&t);
        return false;
    }
    bd->zero = bd->n == 0;
    /* Placed at pos loops by compute_at (the core's wf_compute_at gave those): the
       terms over them lead, and what remains is the binding of the dim's region
       inside them, of the last dropped term's stride. */
    int64_t top = b->iters[k].extent;
    int drop = 0;
    while (drop < bd->n && bd->loop[drop] >= 0 && bd->loop[drop] < pos)
        top = bd->stride[drop++];
    for (int j = drop; j < bd->n; j++)
        if (bd->loop[j] >= 0 && bd->loop[j] < pos)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: iter %s of block \"%s\" uses the loop %s "
                             "inside a loop of its own",
                             b->iters[k].var->name, b->name, loops[bd->loop[j]]->loop_var->name);
    if (drop) {
        bd->n -= drop;
        memmove(bd->loop, bd->loop + drop, sizeof bd->loop[0] * (size_t)bd->n);
        memmove(bd->stride, bd->stride + drop, sizeof bd->stride[0] * (size_t)bd->n);
        memmove(bd->x, bd->x + drop, sizeof bd->x[0] * (size_t)bd->n);
        memmove(bd->div, bd->div + drop, sizeof bd->div[0] * (size_t)bd->n);
        memmove(bd->mod, bd->mod + drop, sizeof bd->mod[0] * (size_t)bd->n);
    }
    for (int j = 0; j < bd->n; j++) {
        int64_t outer = j > 0 ? bd->stride[j - 1] : top;
        if (bd->loop[j] < 0)
            bd->comp[j] =
                j > 0 || drop ? outer / bd->stride[j] : (outer + bd->stride[j] - 1) / bd->stride[j];
    }
    int64_t expect = 1;
    for (int j = bd->n - 1; j >= 0; j--) {
        if (bd->stride[j] != expect)
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: the strides of iter %s of block \"%s\" "
                             "are not those of a split",
                             b->iters[k].var->name, b->name);
        expect *= bd->loop[j] >= 0 ? loops[bd->loop[j]]->extent : bd->comp[j];
    }
    return true;
}

/* A fused part: iter k's term j. */
typedef struct {
    int k, j;
} part;

/* The fused parts run[0..n) (outermost first: X // inner % (inner * comp), the
   innermost last) are X's mixed-radix digits, as fuse makes them. */
static bool fused_run_ok(const binding *bd, const part *run, int n) {
    int64_t inner = 1;
    for (int i = n - 1; i >= 0; i--) {
        const binding *x = &bd[run[i].k];
        int j = run[i].j;
        if (x->div[j] != inner || (i > 0 && x->mod[j] != inner * x->comp[j]) ||
            (i == 0 && x->mod[j]))
            return false;
        inner *= x->comp[j];
    }
    return true;
}

/* The tensor's axes, tagged: a loop index (>= 0), iter k's dim (iter_tag) or, once
   split, iter k's fused part j (part_tag). */
typedef struct {
    int tag[2 * TIR_MAX_LOOPS];
    int n;
} tags;

static int iter_tag(int k) {
    return -(k + 1);
}

static int part_tag(part p) {
    return -(TIR_MAX_LOOPS + 1 + p.k * TIR_MAX_TERMS + p.j);
}

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
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: more than %d axes in one tensor",
                         2 * TIR_MAX_LOOPS);
    for (int j = m - 1; j >= 1; j--)
        wf_tv_split(tv, d, ext[j]);
    memmove(t->tag + d + m, t->tag + d + 1, sizeof t->tag[0] * (size_t)(t->n - d - 1));
    memcpy(t->tag + d, tg, sizeof tg[0] * (size_t)m);
    t->n += m - 1;
    return true;
}

/* An extent-1 iter bound to 0 (TVM's fuse of an extent-1 loop) has no loop: its axis
   is merged into the next axis (the previous one for the last), which keeps that axis's
   loop, as fuse merged the loops. */
static bool drop_unit(wf_tir *s, const tir_block *b, wf_tv *tv, tags *t, int k, int pos) {
    int p = find_tag(t, iter_tag(k));
    int q = p + 1 < t->n ? p + 1 : p - 1;
    /* (the tags may outnumber tv's axes where compute_at left it fewer loops); a
       reduce iter merged into a spatial axis would make it a reduction: the core
       merges reduction axes only with reduction axes */
    if (b->iters[k].reduce)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: block \"%s\" binds its extent-1 reduce iter "
                         "%s to 0, which has no loop of its own; keep its loop "
                         "(preserve_unit_loops=True)",
                         b->name, b->iters[k].var->name);
    if (q < pos || p >= wf_tv_ndim(tv) || q >= wf_tv_ndim(tv))
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: block \"%s\" binds its extent-1 iter %s to 0 "
                         "and has no loop of its own to join it to",
                         b->name, b->iters[k].var->name);
    wf_tv_merge_axes(tv, p < q ? p : q, p < q ? q : p);
    t->tag[p < q ? p : q] = t->tag[q];
    int hi = p < q ? q : p;
    memmove(t->tag + hi, t->tag + hi + 1, sizeof t->tag[0] * (size_t)(t->n - hi - 1));
    t->n--;
    return true;
}

/* Iter k's dim split as its terms. */
static bool split_iter(wf_tir *s, wf_tv *tv, tags *t, const binding *bd, int k,
                       tir_stmt *const *loops) {
    int tg[TIR_MAX_TERMS];
    int64_t ext[TIR_MAX_TERMS];
    for (int j = 0; j < bd->n; j++) {
        tg[j] = bd->loop[j] >= 0 ? bd->loop[j] : part_tag((part){k, j});
        ext[j] = bd->loop[j] >= 0 ? loops[bd->loop[j]]->extent : bd->comp[j];
    }
    return split_axis(s, tv, t, find_tag(t, iter_tag(k)), tg, ext, bd->n);
}

/* The fused parts run[0..n) (outermost first) merged into X, then split as X's loops
   are. */
static bool unfuse_run(wf_tir *s, const tir_block *b, wf_tv *tv, tags *t, const binding *bd,
                       const part *run, int n, tir_stmt *const *loops, int nl) {
    const tir_expr *x = bd[run[0].k].x[run[0].j];
    if (!fused_run_ok(bd, run, n)) {
        sbuf xs = {0};
        tir_print_expr(&xs, x);
        err_fail(&s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" binds its iters to parts of the fused "
                 "loop %s that are not its digits as fuse makes them (%s // n, %s %% n)",
                 b->name, sbuf_str(&xs), sbuf_str(&xs), sbuf_str(&xs));
        sbuf_free(&xs);
        return false;
    }
    int t0 = part_tag(run[0]);
    for (int i = 1; i < n; i++) {
        int p0 = find_tag(t, t0), pj = find_tag(t, part_tag(run[i]));
        wf_tv_merge_axes(tv, p0, pj);
        int hi = p0 > pj ? p0 : pj;
        memmove(t->tag + hi, t->tag + hi + 1, sizeof t->tag[0] * (size_t)(t->n - hi - 1));
        t->n--;
        t->tag[p0 < pj ? p0 : pj] = t0;
    }
    binding xb;
    memset(&xb, 0, sizeof xb);
    bool ok = add_sum(&xb, x, loops, nl);
    int64_t expect = 1;
    for (int j = xb.n - 1; ok && j >= 0; j--) {
        ok = xb.loop[j] >= 0 && xb.stride[j] == expect;
        expect *= ok ? loops[xb.loop[j]]->extent : 1;
    }
    if (!ok) {
        sbuf xs = {0};
        tir_print_expr(&xs, x);
        err_fail(&s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" binds its iters to parts of %s, which "
                 "is not a loop or a split of one",
                 b->name, sbuf_str(&xs));
        sbuf_free(&xs);
        return false;
    }
    int64_t ext[TIR_MAX_TERMS];
    for (int j = 0; j < xb.n; j++)
        ext[j] = loops[xb.loop[j]]->extent;
    return split_axis(s, tv, t, find_tag(t, t0), xb.loop, ext, xb.n);
}

/* The iters of the fused parts run[0..n) are all spatial or all reduced, and the tensor
   (whose dims hold `held` of the parts' iters) holds all or none of them. */
static bool check_run(wf_tir *s, const tir_block *b, const binding *bd, const part *run, int n,
                      int held) {
    int nred = 0, kr = run[0].k, ks = run[0].k;
    for (int i = 0; i < n; i++) {
        nred += b->iters[run[i].k].reduce;
        if (b->iters[run[i].k].reduce)
            kr = run[i].k;
        else
            ks = run[i].k;
    }
    if ((!nred || nred == n) && (!held || held == n))
        return true;
    sbuf x = {0}, it = {0};
    tir_print_expr(&x, bd[run[0].k].x[run[0].j]);
    int ks_[TIR_MAX_LOOPS], nk = 0; /* the iters, each once, in iter order */
    for (int k = 0; k < b->niters; k++)
        for (int i = 0; i < n; i++)
            if (run[i].k == k) {
                ks_[nk++] = k;
                break;
            }
    for (int i = 0; i < nk; i++)
        sbuf_printf(&it, "%s%s",
                    i == 0        ? ""
                    : i == nk - 1 ? " and "
                                  : ", ",
                    b->iters[ks_[i]].var->name);
    if (nred && nred != n)
        err_fail(&s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" binds the spatial iter %s and the "
                 "reduction iter %s to one fused loop (%s): the core reduces over loops that "
                 "fuse reduction iters only (fuse spatial loops and reduction loops separately)",
                 b->name, b->iters[ks].var->name, b->iters[kr].var->name, sbuf_str(&x));
    else
        err_fail(&s->err, WF_ERR_UNSUPPORTED,
                 "build: not supported yet: block \"%s\" binds %s to one fused loop (%s), but "
                 "reads an operand indexed by some of them only: the core fuses the dims of one "
                 "tensor, so every operand must be indexed by all the iters of a fused loop "
                 "(fuse loops whose iters every operand indexes, as in a cache_read stage, or "
                 "leave these loops unfused)",
                 b->name, sbuf_str(&it), sbuf_str(&x));
    sbuf_free(&x);
    sbuf_free(&it);
    return false;
}

/* The loops tv's dims use, outermost first, in dom[]; -1 with the error set. */
static int split_dims(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                      tir_stmt *const *loops, int nl, int pos, int *dom) {
    binding bd[TIR_MAX_LOOPS];
    tags t = {.n = 0};
    err_assert(&s->err, b->niters <= TIR_MAX_LOOPS); /* check_block: at most WF_MAX_RANK */
    for (int j = 0; j < pos; j++)
        t.tag[t.n++] = j;
    if (b->niters > TIR_MAX_LOOPS)
        return -1;
    for (int k = 0; k < b->niters; k++)
        if ((mask >> k) & 1)
            t.tag[t.n++] = iter_tag(k);
    for (int k = b->niters - 1; k >= 0; k--) {
        if (!parse_binding(s, b, k, loops, nl, pos, &bd[k]))
            return -1;
        if (!((mask >> k) & 1))
            continue;
        /* t got iter k's tag above, and only split_iter(k) (below) replaces it */
        err_assert(&s->err, find_tag(&t, iter_tag(k)) >= 0);
        if (find_tag(&t, iter_tag(k)) < 0)
            return -1;
        if (bd[k].zero ? !drop_unit(s, b, tv, &t, k, pos)
                       : !split_iter(s, tv, &t, &bd[k], k, loops))
            return -1;
    }
    /* Before the fused parts are merged and split again (over threads, with a tail):
       a shared buffer is laid out as these split dims, each cell once, not over the
       loops of the fuse (16 x 16 threads for a 128-element tile). */
    int nsplit;
    wf_iterdomain *const *split = wf_tv_loop_domain(tv, &nsplit);
    wf_iterdomain *layout[2 * TIR_MAX_LOOPS];
    bool fused = false;
    for (int i = 0; i < nsplit && i < 2 * TIR_MAX_LOOPS; i++)
        layout[i] = split[i];
    part run[TIR_MAX_LOOPS * 2];
    bool done[TIR_MAX_LOOPS][TIR_MAX_TERMS];
    memset(done, 0, sizeof done);
    for (int k = b->niters - 1; k >= 0; k--)
        for (int j = 0; j < bd[k].n; j++) {
            if (bd[k].loop[j] >= 0 || done[k][j])
                continue;
            /* the parts of X, outermost (largest divisor) first */
            const tir_expr *x = bd[k].x[j];
            int n = 0, held = 0;
            for (int k2 = 0; k2 < b->niters; k2++)
                for (int j2 = 0; j2 < bd[k2].n; j2++) {
                    if (bd[k2].loop[j2] >= 0 || !tir_expr_equal(bd[k2].x[j2], x) ||
                        n == TIR_MAX_LOOPS * 2)
                        continue;
                    int i = n++;
                    for (; i > 0 && bd[run[i - 1].k].div[run[i - 1].j] < bd[k2].div[j2]; i--)
                        run[i] = run[i - 1];
                    run[i] = (part){k2, j2}, done[k2][j2] = true;
                    held += (mask >> k2) & 1;
                }
            if (!check_run(s, b, bd, run, n, held) ||
                (held && !unfuse_run(s, b, tv, &t, bd, run, n, loops, nl)))
                return -1;
            fused |= held > 0;
        }
    if (fused && tv->mem == WF_MEM_SHARED && nsplit <= 2 * TIR_MAX_LOOPS && !pos)
        wf_tv_set_allocation_domain(tv, nsplit, layout, true);
    for (int i = 0; i < t.n; i++) {
        dom[i] = t.tag[i];
        for (int j = 0; j < i; j++)
            if (dom[i] == dom[j])
                return err_failb(&s->err, WF_ERR_UNSUPPORTED,
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

/* The logical dim of tv that id is made from (the first, for a merge). */
static int dim_of(const wf_tv *tv, const wf_iterdomain *id) {
    for (int i = 0; i < tv->logical.n; i++)
        if (tv->logical.ptr[i] == id)
            return i;
    for (int k = 0; id->def && k < id->def->nin; k++) {
        int d = dim_of(tv, id->def->in[k]);
        if (d >= 0)
            return d;
    }
    return -1;
}

/* After wf_compute_at(tv, reader, pos): tv's axes inside pos (its dims' parts, in
   dim order) merged into one region axis per dim, as TVM's compute_at makes one
   loop per buffer dim; a shared tile is allocated over the parts (each cell once,
   whatever the loops that fetch it). */
static bool merge_regions(wf_tv *tv, int pos) {
    int n = wf_tv_ndim(tv);
    wf_iterdomain *layout[2 * TIR_MAX_LOOPS];
    int nl = 0;
    for (int i = 0; i < n && nl < 2 * TIR_MAX_LOOPS; i++)
        if (!(tv->loop.ptr[i]->itype == IT_BROADCAST && tv->loop.ptr[i]->loop_only))
            layout[nl++] = tv->loop.ptr[i];
    for (int i = pos; i + 1 < wf_tv_ndim(tv);)
        if (dim_of(tv, tv->loop.ptr[i]) == dim_of(tv, tv->loop.ptr[i + 1]))
            wf_tv_merge_axes(tv, i, i + 1);
        else
            i++;
    if (tv->mem == WF_MEM_SHARED && nl < 2 * TIR_MAX_LOOPS)
        wf_tv_set_allocation_domain(tv, nl, layout, true);
    return !wf_fusion_status(tv->f);
}

bool tir_build_loop_domain(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                           const bool *may_broadcast) {
    return tir_build_loop_domain_at(s, b, tv, mask, may_broadcast, 0);
}

bool tir_build_loop_domain_at(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                              const bool *may_broadcast, int pos) {
    tir_stmt *loops[TIR_MAX_LOOPS];
    int dom[2 * TIR_MAX_LOOPS];
    int nl = tir_loops_of(b, loops, TIR_MAX_LOOPS);
    if (pos > 0 && !merge_regions(tv, pos))
        return false;
    int nd = split_dims(s, b, tv, mask, loops, nl, pos, dom);
    if (nd < 0)
        return false;
    for (int j = pos; j < nl; j++)
        if (!in_list(dom, nd, j) && !may_broadcast[j])
            return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                             "build: not supported yet: the loop %s around block \"%s\" that no "
                             "iter uses",
                             loops[j]->loop_var->name, b->name);
    int ndim = 0;
    wf_tv_loop_domain(tv, &ndim);
    if (nd > 1 && ndim != nd) /* axes the loops do not account for (fuzz -s 20261123 -c 2057) */
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "build: not supported yet: block \"%s\" has %d loop axes but its loops "
                         "give %d",
                         b->name, ndim, nd);
    int old2new[2 * TIR_MAX_LOOPS];
    for (int i = 0; i < nd; i++) {
        old2new[i] = 0;
        for (int j = 0; j < dom[i]; j++)
            old2new[i] += in_list(dom, nd, j);
    }
    if (nd > 1)
        wf_tv_reorder_all(tv, old2new);
    for (int j = pos; j < nl; j++)
        if (!in_list(dom, nd, j))
            wf_tv_loop_broadcast(tv, j);
        else if (tir_loop_ptype(loops[j]) != WF_SERIAL)
            wf_tv_parallelize(tv, j, tir_loop_ptype(loops[j]));
    return true;
}
