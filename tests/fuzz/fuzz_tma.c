/*
 * fuzz_tma.c -- random TMA copies (seed 001) for the fuzzer: a tensor of
 * 1-3 dims with extents that are multiples of nothing in particular (only
 * the innermost row often a multiple of 16 bytes, as a TMA global stride
 * must be), copied through shared memory by a TMA load, a TMA store or both
 * (wf_set, wf_cache_after or wf_cache_before marked WF_LDST_TMA), with a
 * random plan applied alike to every tensor of the chain: per dim a box by
 * partitioning (a split by a factor that need not divide the extent), the
 * whole extent as the box, or a coordinate only; element strides (a stride
 * split swapped in front of the tile, seed 001's strided tiles); a view
 * merge first. The box axes of the TMA copy's consumer go on WF_BULK; its
 * coordinates on blocks, serial loops or threads (several issuing threads);
 * the other side's tile on threads. Then a TMA swizzle of a shared tensor,
 * circular buffering (2-4 stages) at a serial coordinate loop, and inlining.
 * The case is compiled for sm_90 and checked like any other (fuzz.c): a
 * refusal must be a clean error, an accepted kernel must copy exactly on
 * the executor, which moves the data by the inferred tensor map and fails
 * a deadlock or an mbarrier whose arrivals differ from its count.
 */
#include "fuzz/fuzz.h"
#include "fuzz/known.h"

enum { ROLE_COORD, ROLE_TILE, TMA_MAX_NUMEL = 4096 };

typedef struct {
    int kind;   /* 0 coordinate, 1 whole extent as the box, 2 box by partitioning */
    int64_t f;  /* the box (kind 2) */
    int64_t es; /* element stride (> 1: a strided tile) */
} dim_plan;

typedef struct {
    int merge_at; /* -1, or merge logical dims merge_at, merge_at + 1 first */
    int n;        /* dims after the merge */
    dim_plan d[WF_MAX_RANK];
} tma_plan;

static void tr_split(fcase *c, wf_tv *tv, int ax, int64_t f) {
    fz_trace(c, "wf_tv_split(T%d, %d, %lld);", tv->id, ax, (long long)f);
    wf_tv_split(tv, ax, f);
}

static void tr_par(fcase *c, wf_tv *tv, int ax, wf_ptype p) {
    fz_trace(c, "wf_tv_parallelize(T%d, %d, %d);", tv->id, ax, (int)p);
    wf_tv_parallelize(tv, ax, p);
}

/* Applies the plan to tv: [coordinates (in the plan's order), tiles]; role[]
   gets each axis's role. Returns the number of axes. */
static int apply_plan(fcase *c, wf_tv *tv, const tma_plan *p, int *role) {
    int r[16], nax = 0;
    if (p->merge_at >= 0) {
        fz_trace(c, "wf_tv_merge(T%d, %d);", tv->id, p->merge_at);
        wf_tv_merge(tv, p->merge_at);
    }
    for (int d = 0; d < p->n; d++) {
        const dim_plan *q = &p->d[d];
        if (q->kind == 0) {
            r[nax++] = ROLE_COORD;
            continue;
        }
        if (q->kind == 2) { /* [D / f, f] */
            tr_split(c, tv, nax, q->f);
            r[nax++] = ROLE_COORD;
        }
        if (q->es > 1) { /* [.., box / es, es] -> [.., es, box / es] */
            tr_split(c, tv, nax, q->es);
            int order[16];
            for (int i = 0; i < wf_tv_ndim(tv); i++)
                order[i] = i;
            order[nax] = nax + 1;
            order[nax + 1] = nax;
            fz_trace(c, "wf_tv_reorder_all(T%d, swap %d and %d);", tv->id, nax, nax + 1);
            wf_tv_reorder_all(tv, order);
            r[nax++] = ROLE_COORD;
        }
        r[nax++] = ROLE_TILE;
    }
    if (wf_tv_ndim(tv) != nax)
        return wf_tv_ndim(tv); /* a refused step: the fusion holds the error */
    int order[16], ncoord = 0, nc = 0, nt = 0;
    for (int i = 0; i < nax; i++)
        ncoord += r[i] == ROLE_COORD;
    for (int i = 0; i < nax; i++)
        order[i] = r[i] == ROLE_COORD ? nc++ : ncoord + nt++;
    fz_trace(c, "wf_tv_reorder_all(T%d, coordinates first);", tv->id);
    wf_tv_reorder_all(tv, order);
    for (int i = 0; i < nax; i++)
        role[i] = i < ncoord ? ROLE_COORD : ROLE_TILE;
    return nax;
}

/* A box extent: anything up to 40; for the innermost dim, half the time a
   multiple of 16 bytes (TMA needs boxDim[0] * element size to be one). */
static int64_t box_factor(fcase *c, bool inner, int64_t esz) {
    if (inner && chance(&c->r, 50))
        return (16 / esz) * (1 + (int64_t)rnd(&c->r, 4));
    return 1 + (int64_t)rnd(&c->r, 40);
}

static node *input_node(fcase *c, wf_dtype dt, int nd, const int64_t *shape) {
    node *n = add_node(c, wf_input(c->f, dt, nd, shape), nd);
    fz_trace(c, "wf_tv *t0 = wf_input(f, %d, %d, {%lld, %lld, %lld});", (int)dt, nd,
             (long long)shape[0], (long long)(nd > 1 ? shape[1] : 0),
             (long long)(nd > 2 ? shape[2] : 0));
    for (int d = 0; n && d < nd; d++) {
        n->shape[d] = shape[d];
        n->orig[d] = 1u << d;
        c->sym[d] = shape[d];
    }
    c->nin = 1;
    return n;
}

/* A node for a tensor the chain made (same shape as the input). */
static wf_tv *chain_node(fcase *c, wf_tv *tv, const char *how, int from) {
    node *n = add_node(c, tv, c->n[0].ndim);
    if (n) {
        memcpy(n->shape, c->n[0].shape, sizeof n->shape);
        memcpy(n->orig, c->n[0].orig, sizeof n->orig);
        fz_trace(c, "wf_tv *t%d = %s(t%d); (T%d)", c->nn - 1, how, from, tv->id);
    }
    return tv;
}

static wf_tv *copy_or_neg(fcase *c, wf_tv *a, int from) {
    if (chance(&c->r, 50))
        return chain_node(c, wf_unary(WF_NEG, a), "wf_neg", from);
    return chain_node(c, wf_set(a), "wf_set", from);
}

void fz_tma_build(fcase *c) {
    static const wf_dtype types[] = {WF_F32, WF_F32, WF_F16, WF_BF16, WF_F64, WF_I32};
    wf_dtype dt = types[rnd(&c->r, sizeof types / sizeof *types)];
    int64_t esz = (int64_t)wf_dtype_size(dt);
    int nd = 1 + (int)rnd(&c->r, 3);
    int64_t shape[WF_MAX_RANK], numel = 1;
    for (int d = nd - 1; d >= 0; d--) {
        if (d == nd - 1 && nd > 1 && chance(&c->r, 75))
            shape[d] = (16 / esz) * (1 + (int64_t)rnd(&c->r, 5));
        else
            shape[d] = 1 + (int64_t)rnd(&c->r, d == nd - 1 ? 70 : 40);
        while (numel * shape[d] > TMA_MAX_NUMEL)
            shape[d] = 1 + shape[d] / 3;
        numel *= shape[d];
    }
    wf_tv *in = input_node(c, dt, nd, shape)->tv;
    /* 0: TMA load, 1: TMA store, 2: both */
    int variant = (int)rnd(&c->r, 3);
    wf_tv *load = NULL, *store = NULL, *smem[2] = {NULL, NULL}, *chain[4];
    int nchain = 0, ns = 0;
    if (variant != 1) {
        load = chance(&c->r, 30) ? chain_node(c, wf_cache_after(in), "wf_cache_after", 0)
                                 : chain_node(c, wf_set(in), "wf_set", 0);
        smem[ns++] = chain[nchain++] = load;
    }
    wf_tv *src = load ? load : in, *out;
    if (variant == 0) {
        out = copy_or_neg(c, src, c->nn - 1);
    } else if (chance(&c->r, 30)) { /* the TMA store's source made by wf_cache_before */
        out = copy_or_neg(c, src, c->nn - 1);
        wf_tv *cb = wf_cache_before(out);
        fz_trace(c, "wf_cache_before(T%d); (T%d)", out->id, cb ? cb->id : -1);
        if (!cb)
            return;
        smem[ns++] = chain[nchain++] = cb;
    } else {
        smem[ns++] = chain[nchain++] = copy_or_neg(c, src, c->nn - 1);
        out = chain_node(c, wf_set(smem[ns - 1]), "wf_set", c->nn - 1);
    }
    wf_output(c->f, out);
    fz_trace(c, "wf_output(f, T%d);", out->id);
    chain[nchain++] = out;
    if (variant != 0)
        store = out;
    for (int i = 0; i < 2; i++)
        if (smem[i]) {
            fz_trace(c, "wf_tv_set_memory(T%d, shared);", smem[i]->id);
            wf_tv_set_memory(smem[i], WF_MEM_SHARED);
        }
    wf_tv *tma[2] = {load, store};
    for (int i = 0; i < 2; i++)
        if (tma[i]) {
            fz_trace(c, "wf_tv_set_ldst(T%d, TMA);", tma[i]->id);
            wf_tv_set_ldst(tma[i], WF_LDST_TMA);
        }

    /* the plan */
    tma_plan p = {.merge_at = nd > 1 && chance(&c->r, 20) ? (int)rnd(&c->r, (unsigned)nd - 1) : -1};
    p.n = nd - (p.merge_at >= 0);
    bool nondivisible = false;
    int64_t row_bytes = 0; /* of the innermost box */
    for (int d = 0; d < p.n; d++) {
        bool inner = d == p.n - 1;
        dim_plan *q = &p.d[d];
        unsigned k = rnd(&c->r, 10);
        q->kind = k < 5 ? 2 : k < 8 ? 1 : 0;
        if (inner && q->kind == 0)
            q->kind = 1; /* a box needs the innermost dim */
        q->f = q->kind == 2 ? box_factor(c, inner, esz) : 0;
        q->es = !inner && q->kind && chance(&c->r, 20) ? 2 + (int64_t)rnd(&c->r, 4) : 1;
        int64_t ext = p.merge_at == d ? shape[d] * shape[d + 1]
                                      : shape[d + (p.merge_at >= 0 && d > p.merge_at)];
        nondivisible |= (q->kind == 2 && ext % q->f) || (q->es > 1 && (q->f ? q->f : ext) % q->es);
        if (inner)
            row_bytes = (q->kind == 2 ? q->f : ext) * esz;
    }
    /* a swizzled shared tile: mostly with a plan TMA can swizzle (rows of
       exactly the swizzle's bytes, a multiple of 8 of them) */
    bool swizzle = chance(&c->r, 20);
    int sw = 32 << rnd(&c->r, 3);
    if (swizzle && p.n >= 2 && chance(&c->r, 70)) {
        dim_plan *rows = &p.d[p.n - 2], *inner = &p.d[p.n - 1];
        *inner = (dim_plan){2, sw / esz, 1};
        *rows = (dim_plan){2, 8 * (1 + (int64_t)rnd(&c->r, 2)), 1};
        row_bytes = sw;
        for (int d = p.n - 2; d < p.n; d++) {
            int64_t ext = p.merge_at == d ? shape[d] * shape[d + 1]
                                          : shape[d + (p.merge_at >= 0 && d > p.merge_at)];
            nondivisible |= ext % p.d[d].f != 0;
        }
    }
    int role[16], n = 0;
    for (int i = 0; i < nchain; i++)
        n = apply_plan(c, chain[i], &p, role);
    if (wf_fusion_status(c->f) != WF_OK)
        return;
    int ncoord = 0;
    while (ncoord < n && role[ncoord] == ROLE_COORD)
        ncoord++;
    /* coordinates: blocks, serial, or (on the TMA side) issuing threads */
    static const wf_ptype cp[] = {WF_BIDX, WF_BIDY, WF_SERIAL, WF_SERIAL, WF_TIDX};
    wf_ptype coord[16];
    unsigned used = 0;
    int first_serial = -1;
    for (int i = 0; i < ncoord; i++) {
        wf_ptype t = cp[rnd(&c->r, sizeof cp / sizeof *cp)];
        if (t != WF_SERIAL && (used & (1u << t)))
            t = WF_SERIAL;
        used |= 1u << t;
        coord[i] = t;
        if (t == WF_SERIAL && first_serial < 0)
            first_serial = i;
    }
    c->tma_thread_issue = (used & (1u << WF_TIDX)) && nondivisible;
    for (int i = 0; i < nchain; i++) {
        wf_tv *tv = chain[i];
        bool is_tma = tv == load || tv == store;
        for (int a = 0; a < ncoord && a < wf_tv_ndim(tv); a++)
            if (coord[a] != WF_SERIAL)
                tr_par(c, tv, a, coord[a] == WF_TIDX && !is_tma ? WF_TIDZ : coord[a]);
        for (int a = ncoord, tid = 0; a < n && a < wf_tv_ndim(tv); a++) {
            if (is_tma) {
                tr_par(c, tv, a, WF_BULK);
                continue;
            }
            /* the other side: the two innermost tile axes on TIDx, TIDy */
            int from_end = n - 1 - a;
            if (from_end < 2 && tid < 2 && chance(&c->r, 80))
                tr_par(c, tv, a, from_end == 0 ? WF_TIDX : WF_TIDY), tid++;
        }
    }
    if (swizzle) {
        wf_tv *s = smem[smem[1] && chance(&c->r, 50) ? 1 : 0];
        if (row_bytes == 32 || row_bytes == 64 || row_bytes == 128)
            sw = (int)row_bytes;
        fz_trace(c, "wf_tv_tma_swizzle(T%d, %d);", s->id, sw);
        wf_tv_tma_swizzle(s, sw);
    }
    /* circular buffering of the load at a serial coordinate loop, or inlining */
    if (load && first_serial >= 0 && chance(&c->r, 40)) {
        int stages = 2 + (int)rnd(&c->r, 3);
        fz_trace(c, "wf_tv_inline_at(T%d, %d); wf_tv_circular_buffer(T%d, %d);", load->id,
                 first_serial + 1, load->id, stages);
        wf_tv_inline_at(load, first_serial + 1);
        wf_tv_circular_buffer(load, stages);
        c->tma_circular = true;
    } else if (chance(&c->r, 50)) {
        fz_trace(c, "wf_inline_most(f);");
        wf_inline_most(c->f);
    } else {
        wf_tv *s = smem[rnd(&c->r, smem[1] ? 2 : 1)];
        int pos = (int)rnd(&c->r, (unsigned)ncoord + 1);
        fz_trace(c, "wf_tv_inline_at(T%d, %d);", s->id, pos);
        wf_tv_inline_at(s, pos);
    }
}
