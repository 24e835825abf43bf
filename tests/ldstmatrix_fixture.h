/*
 * ldstmatrix_fixture.h -- seed 002's LdStMatrixSet schedule, built through the
 * public API only, with its choices as parameters (the CPU suite and the GPU
 * program share it):
 *
 *   in [M, N] bf16 (global)
 *    -> T1 shared: TMA load, boxes of [warp_m, box_n] in a swizzle_bytes swizzle
 *    -> T2 registers: reg_kind copy (WF_LDST_SET now, WF_LDST_LDMATRIX later)
 *    -> T3 shared: smem_kind copy (WF_LDST_SET now, WF_LDST_STMATRIX later),
 *       allocated as the TMA store's swizzled boxes
 *    -> out (global): TMA store
 *
 * Every tensor is block-tiled [GM (BIDx), GN (BIDy), cta_m / warp_m (TIDy),
 * cta_n / warp_n, warp_m, warp_n] (with `per` tiles a block: [GM / per (BIDx),
 * GN (BIDy), per (serial), ..], the TMA load circular-buffered over per). T2's and T3's loop
 * domains are each built from their own loop domain by the seed's scheduleLdStMatrix transforms on
 * an abstract tensor (wf_abstract_*), the wgmma accumulator layout:
 *   [.., (no * nio), (mo * mii * niiio) (TIDx), (niio * mio * niiii){8} (inner)]
 * and the whole chain is inlined with wf_inline_most: the two loop domains,
 * built independently, map through the IterDomain graph.
 */
#ifndef WF_TESTS_LDSTMATRIX_FIXTURE_H
#define WF_TESTS_LDSTMATRIX_FIXTURE_H

#include "weft.h"

typedef struct {
    int64_t m, n;           /* the input's extents */
    wf_ldst reg_kind;       /* shared -> registers (T2's definition) */
    wf_ldst smem_kind;      /* registers -> shared (T3's definition) */
    wf_ptype inner;         /* T2's and T3's 8-element axis: WF_VECTORIZE for
                               ld/stmatrix; WF_SERIAL or WF_UNROLL for plain copies
                               (their 8 elements are not adjacent in shared memory) */
    int swizzle_bytes;      /* 128, 64 or 32; the TMA boxes are swizzle_bytes wide */
    int64_t cta_m, cta_n;   /* block tile */
    int64_t warp_m, warp_n; /* one warp group's tile (warp_m = 64: TIDx = 128) */
    int64_t per;            /* > 1: each block copies `per` CTA tiles along M in a
                               serial loop (0 or 1: one tile per block) */
    int stages;             /* > 1: the TMA load circular-buffered over that loop
                               (needs cta_m == warp_m: one issuing thread) */
} lsm_params;

typedef struct {
    wf_tv *in, *smem_in, *regs, *smem_out, *out;
} lsm_tensors;

/* The seed's defaults: 128-byte swizzle, CTA tile 128 x 256, warp tile 64 x 256. */
static inline lsm_params lsm_seed_params(int64_t m, int64_t n) {
    lsm_params p = {m, n, WF_LDST_SET, WF_LDST_SET, WF_SERIAL, 128, 128, 256, 64, 256, 1, 1};
    return p;
}

/* `per` CTA tiles of 64 x 128 a block, the TMA load circular-buffered over
   them with `stages` stages (one warp group a block: one issuing thread). */
static inline void lsm_circular(lsm_params *p, int64_t per, int stages) {
    p->cta_m = p->warp_m = 64;
    p->cta_n = p->warp_n = 128;
    p->per = per;
    p->stages = stages;
}

/* swap axes -2 and -3 */
static const int lsm_swap_23[2][2] = {{-2, -3}, {-3, -2}};

/* scheduleLdStMatrix (seed 002) on an abstract copy of tv's loop domain
   [.., warp_m, warp_n]; box_n is the TMA box's width (64 in the seed). */
static inline wf_abstract *lsm_abstract(wf_tv *tv, int64_t box_n) {
    wf_abstract *a = wf_abstract_of_loop(tv);
    /* split by the TMA box: [.., no, m, ni] */
    wf_abstract_split(a, -1, box_n);
    wf_abstract_reorder(a, 2, lsm_swap_23);
    /* (16, 16) matrices of ld/stmatrix.x4: [.., no, mo, nio, mi{16}, nii{16}] */
    wf_abstract_split(a, -2, 16);
    wf_abstract_split(a, -1, 16);
    wf_abstract_reorder(a, 2, lsm_swap_23);
    /* four (8, 8) matrices, two adjacent elements per register */
    wf_abstract_split(a, -2, 8);
    wf_abstract_split(a, -1, 8);
    wf_abstract_split(a, -1, 2);
    /* [.., mio, mii, niio, niiio, niiii] -> [.., mii, niiio, niio, mio, niiii]: the
       wgmma accumulator's order of the four matrices */
    static const int order[3][2] = {{-5, -2}, {-4, -5}, {-2, -4}};
    wf_abstract_reorder(a, 3, order);
    wf_abstract_merge(a, -2, -1);
    wf_abstract_merge(a, -2, -1); /* [.., no, mo, nio, mii, niiio, (niio * mio * niiii){8}] */
    static const int swap_45[2][2] = {{-5, -4}, {-4, -5}};
    wf_abstract_reorder(a, 2, swap_45); /* [.., no, nio, mo, mii, niiio, 8] */
    wf_abstract_merge(a, -4, -3);
    wf_abstract_merge(a, -3, -2); /* [.., no, nio, (mo * mii * niiio), 8] */
    wf_abstract_merge(a, -4, -3); /* [.., (no * nio), (mo * mii * niiio), 8] */
    return a;
}

/* A TMA copy's consumer or producer tile: [.., m, n] -> [.., no, m, box_n]. */
static inline void lsm_box(wf_tv *tv, int64_t box_n) {
    wf_tv_split(tv, -1, box_n);
    wf_tv_reorder(tv, 2, lsm_swap_23);
}

/* T3's allocation: its [.., m, n] as TMA boxes [.., no, m, box_n] in the swizzle
   pattern [.., no, m / 8, s, 8 / s, s, 16 bytes] with the XOR of the two s axes (what
   wf_tv_tma_swizzle does to a loop domain, here on an abstract tensor). */
static inline void lsm_swizzled_alloc(wf_tv *tv, int sw, int64_t box_n) {
    wf_abstract *a = wf_abstract_of_loop(tv);
    wf_abstract_split(a, -1, box_n);
    wf_abstract_reorder(a, 2, lsm_swap_23);
    int s = sw / 16;
    wf_abstract_split(a, -1, 8);     /* [.., m, s, 8] */
    wf_abstract_split(a, -3, 8 / s); /* [.., m / (8/s), 8 / s, s, 8] */
    wf_abstract_split(a, -4, s);     /* [.., m / 8, s, 8 / s, s, 8] */
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, -4, -2);
    int n;
    wf_iterdomain *const *ids = wf_abstract_ids(a, &n);
    wf_tv_set_allocation_domain(tv, n, ids, true);
}

static inline wf_fusion *lsm_build(const lsm_params *p, lsm_tensors *t) {
    int64_t shape[2] = {p->m, p->n}, box_n = p->swizzle_bytes / 2;
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_BF16, 2, shape), *out = wf_set(in);
    wf_output(f, out);
    wf_tv *s0 = wf_cache_after(in);
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(s0, WF_LDST_TMA);
    wf_tv *r = wf_cache_after(s0);
    wf_tv_set_ldst(r, p->reg_kind);
    wf_tv *s1 = wf_cache_before(out);
    wf_tv_set_ldst(s1, p->smem_kind);
    wf_tv_set_memory(s1, WF_MEM_SHARED);
    wf_tv_set_ldst(out, WF_LDST_TMA);

    /* block tile, then warp tile: [GM, GN, cta_m / warp_m, cta_n / warp_n, warp_m, warp_n] */
    wf_tv_split(out, 0, p->cta_m);
    wf_tv_split(out, -1, p->cta_n);
    wf_tv_reorder(out, 2, lsm_swap_23);
    wf_tv_split(out, -2, p->warp_m);
    wf_tv_split(out, -1, p->warp_n);
    wf_tv_reorder(out, 2, lsm_swap_23);
    int tidy = 2;     /* the axis cta_m / warp_m */
    if (p->per > 1) { /* [GM / per, GN, per (serial), cta_m / warp_m, ..] */
        static const int swap_12[2][2] = {{1, 2}, {2, 1}};
        wf_tv_split(out, 0, p->per);
        wf_tv_reorder(out, 2, swap_12);
        tidy = 3;
    }
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_BIDY);
    if (p->cta_m > p->warp_m || p->per <= 1)
        wf_tv_parallelize(out, tidy, WF_TIDY);
    wf_parallelize_all_like(out, 0);

    /* TMA load and store: boxes [warp_m, box_n], swizzled in shared memory */
    wf_tv *tma[2] = {s0, out};
    for (int i = 0; i < 2; i++) {
        lsm_box(tma[i], box_n);
        wf_tv_parallelize(tma[i], -2, WF_BULK);
        wf_tv_parallelize(tma[i], -1, WF_BULK);
    }
    wf_tv_tma_swizzle(s0, p->swizzle_bytes);
    lsm_swizzled_alloc(s1, p->swizzle_bytes, box_n);

    /* stmatrix side: the abstract loop domain, TIDx and the 8-element axis */
    wf_abstract *a1 = lsm_abstract(s1, box_n);
    int n1;
    wf_iterdomain *const *l1 = wf_abstract_ids(a1, &n1);
    wf_tv_set_loop_domain(s1, n1, l1);
    wf_tv_parallelize(s1, -2, WF_TIDX);
    wf_tv_parallelize(s1, -1, p->inner);

    /* ldmatrix side: the same, built independently; registers allocated as the loop */
    wf_abstract *a0 = lsm_abstract(r, box_n);
    int n0;
    wf_iterdomain *const *l0 = wf_abstract_ids(a0, &n0);
    wf_tv_set_loop_domain(r, n0, l0);
    wf_tv_set_allocation_domain(r, n0, l0, true);
    wf_tv_parallelize(r, -2, WF_TIDX);
    wf_tv_parallelize(r, -1, p->inner);

    wf_inline_most(f);
    if (p->per > 1 && p->stages > 1) { /* the load at the tile loop, `stages` ahead */
        wf_tv_inline_at(s0, 3);
        wf_tv_circular_buffer(s0, p->stages);
    }
    if (t) {
        t->in = in;
        t->smem_in = s0;
        t->regs = r;
        t->smem_out = s1;
        t->out = out;
    }
    return f;
}

#endif
