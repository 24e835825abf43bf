/*
 * reduction.c -- the "reduction" and "normalization" schedulers.
 *
 * reduction: every reduction of the fusion reduces the same dims; the
 * reference (the first reduction) is laid out [kept, reduced] (inner: the
 * reduced dims are the innermost) or [reduced, kept] (outer), each group
 * merged, then as the hand schedules of bench/reduce_bw.c:
 *  - inner, long rows: one block per row, the row split [serial, threads on
 *    TIDx], rfactored: each thread sums its strided (coalesced) elements,
 *    then a block reduction;
 *  - inner, short rows (<= 32 elements): several rows per block, one row per
 *    TIDy, its elements on TIDx;
 *  - outer: the kept dim on BIDx x 32 TIDx (coalesced 128-byte rows), the
 *    reduced one [serial, TIDy], rfactored: serial sums, then a block
 *    reduction over TIDy;
 *  - no kept dim: one block.
 * normalization (a reduction whose result is broadcast back and combined with
 * its input: softmax, layer norm): test_reduce_softmax.c's persistent
 * schedule: every tensor [row on BIDx, serial, TIDx] (short rows: several
 * rows per block on TIDy), each reduction rfactored into a block all-reduce;
 * what inline_most leaves outside the row loop stays in registers.
 * The transforms are made on the reference and propagated to every tensor.
 */
#include "heur/heur.h"

#include <stdio.h>
#include <string.h>

typedef enum { R_INNER, R_SHORT, R_OUTER, R_FULL } rows_kind;

typedef struct {
    rows_kind kind;
    int64_t threads;    /* TIDx */
    int64_t rows;       /* rows per block (TIDy) for R_SHORT, TIDy for R_OUTER */
    int64_t row_extent; /* the reduced extent (-1 when generic) */
} red_params;

/* Is logical dim d of tv (rank = logical.n, reductions included) reduced by r? */
static bool reduced(const wf_tv *r, int d) {
    return r->logical.ptr[d]->itype == IT_REDUCTION;
}

/* Do all reductions reduce the same dims of same-rank tensors? */
static bool same_pattern(const heur_facts *hf, char *why, size_t whysize) {
    const wf_tv *r0 = hf->red[0];
    for (int i = 1; i < hf->nred; i++) {
        const wf_tv *r = hf->red[i];
        bool same = r->logical.n == r0->logical.n;
        for (int d = 0; same && d < r->logical.n; d++)
            same = reduced(r, d) == reduced(r0, d);
        if (!same) {
            snprintf(why, whysize, "reductions T%d and T%d reduce different dims", r0->id, r->id);
            return false;
        }
    }
    return true;
}

/* inner: every reduced dim right of every kept dim; outer: left of. */
static bool is_inner(const wf_tv *r) {
    bool seen_red = false;
    for (int d = 0; d < r->logical.n; d++) {
        if (reduced(r, d))
            seen_red = true;
        else if (seen_red)
            return false;
    }
    return true;
}

static bool is_outer(const wf_tv *r) {
    bool seen_kept = false;
    for (int d = 0; d < r->logical.n; d++) {
        if (!reduced(r, d))
            seen_kept = true;
        else if (seen_kept)
            return false;
    }
    return true;
}

static int nkept(const wf_tv *r) {
    int k = 0;
    for (int d = 0; d < r->logical.n; d++)
        k += !reduced(r, d);
    return k;
}

static int64_t product(const heur_facts *hf, const wf_tv *r, bool red) {
    int64_t p = 1;
    for (int d = 0; d < r->logical.n; d++)
        if (reduced(r, d) == red) {
            int64_t e = heur_extent(hf, r->logical.ptr[d]);
            if (e < 0)
                return -1;
            p *= e;
        }
    return p;
}

static bool red_can(const heur_facts *hf, char *why, size_t whysize) {
    if (!hf->nred) {
        snprintf(why, whysize, "no reduction");
        return false;
    }
    if (hf->red_broadcast_back) {
        snprintf(why, whysize, "a reduction's result is broadcast back (a normalization)");
        return false;
    }
    if (hf->has_permute) {
        snprintf(why, whysize, "T%d permutes dims", hf->permute->id);
        return false;
    }
    if (!same_pattern(hf, why, whysize))
        return false;
    int rank = ir_tv_rank(hf->red[0]);
    for (int i = 0; i < hf->f->outputs.n; i++) {
        wf_tv *o = hf->f->outputs.ptr[i];
        if (ir_tv_rank(o) != rank) {
            snprintf(why, whysize, "output T%d is not reduced like T%d", o->id, hf->red[0]->id);
            return false;
        }
    }
    return true;
}

static bool norm_can(const heur_facts *hf, char *why, size_t whysize) {
    if (!hf->nred) {
        snprintf(why, whysize, "no reduction");
        return false;
    }
    if (!hf->red_broadcast_back) {
        snprintf(why, whysize, "no reduction result is broadcast back");
        return false;
    }
    if (hf->has_permute) {
        snprintf(why, whysize, "T%d permutes dims", hf->permute->id);
        return false;
    }
    if (!same_pattern(hf, why, whysize))
        return false;
    const wf_tv *r0 = hf->red[0];
    if (!is_inner(r0) || nkept(r0) == 0) {
        snprintf(why, whysize,
                 "T%d reduces dims that are not the innermost ones of a row (an outer or "
                 "full normalization)",
                 r0->id);
        return false;
    }
    for (int i = 0; i < hf->f->outputs.n; i++) {
        wf_tv *o = hf->f->outputs.ptr[i];
        if (o->logical.n != r0->logical.n) {
            snprintf(why, whysize, "output T%d has rank %d, the rows have %d", o->id, o->logical.n,
                     r0->logical.n);
            return false;
        }
    }
    return true;
}

/* Threads of a row of `c` elements (-1 generic): about 4 to 8 elements per
   thread, 32 to 512 threads (bench/reduce_bw.c: 512 for rows of 16384). */
static int64_t row_threads(int64_t c, int64_t max) {
    if (c < 0)
        return 256;
    int64_t t = heur_pow2_ceil((c + 3) / 4);
    return t < 32 ? 32 : t > max ? max : t;
}

static void rows_heuristics(const heur_facts *hf, red_params *p, bool norm) {
    const wf_tv *r = hf->red[0];
    int64_t c = product(hf, r, true), k = product(hf, r, false);
    p->row_extent = c;
    if (nkept(r) == 0) {
        p->kind = R_FULL;
        p->threads = row_threads(c, 1024);
        return;
    }
    if (!norm && is_outer(r) && !is_inner(r)) {
        p->kind = R_OUTER;
        p->threads = 32;
        p->rows = c < 0 ? 16 : c >= 256 ? 16 : c >= 64 ? 8 : 4;
        (void)k;
        return;
    }
    if (c > 0 && c <= 32) {
        p->kind = R_SHORT;
        p->threads = heur_pow2_ceil(c);
        p->rows = 128 / p->threads;
        return;
    }
    p->kind = R_INNER;
    /* A normalization keeps the row in registers: more threads for long rows. */
    p->threads = row_threads(c, norm ? 1024 : 512);
}

static void red_heuristics(const heur_facts *hf, void *params) {
    rows_heuristics(hf, params, false);
}

static void norm_heuristics(const heur_facts *hf, void *params) {
    rows_heuristics(hf, params, true);
}

/* Lay out tv (rank = r's logical rank) as [kept, reduced] (or [reduced,
   kept] for R_OUTER) with each group merged: false on error. */
static bool group(wf_tv *tv, const wf_tv *r, rows_kind kind) {
    int n = tv->loop.n, perm[64], pos = 0;
    if (n > 64 || n != r->logical.n)
        return false;
    bool red_first = kind == R_OUTER;
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < n; d++)
            if (reduced(r, d) == (red_first ? pass == 0 : pass == 1))
                perm[d] = pos++;
    if (!sched_reorder(tv, perm))
        return false;
    int nk = nkept(r), nr = n - nk;
    int first = red_first ? nr : nk, second = n - first;
    if (second > 1 && !heur_merge_range(tv, first, n))
        return false;
    return first <= 1 || heur_merge_range(tv, 0, first);
}

static bool apply_rows(const heur_facts *hf, const red_params *p, wf_tv *ref, heur_result *out,
                       bool norm) {
    wf_fusion *f = hf->f;
    const wf_tv *r0 = hf->red[0];
    if (!group(ref, r0, p->kind))
        return false;
    int rf_axis;
    wf_ptype pt[4];
    int npt;
    switch (p->kind) {
    case R_INNER: /* [K, C] -> [K, C/T, T] */
        if (!sched_split(ref, 1, p->threads, true))
            return false;
        pt[0] = WF_BIDX, pt[1] = WF_SERIAL, pt[2] = WF_TIDX, npt = 3, rf_axis = 1;
        break;
    case R_SHORT: /* [K, C] -> [K/Y, Y, C/T, T] */
        if (!sched_split(ref, 1, p->threads, true) || !sched_split(ref, 0, p->rows, true))
            return false;
        pt[0] = WF_BIDX, pt[1] = WF_TIDY, pt[2] = WF_SERIAL, pt[3] = WF_TIDX, npt = 4;
        rf_axis = 2;
        break;
    case R_OUTER: /* [C, K] -> [C/Y, Y, K/32, 32] */
        if (!sched_split(ref, 1, 32, true) || !sched_split(ref, 0, p->rows, true))
            return false;
        pt[0] = WF_SERIAL, pt[1] = WF_TIDY, pt[2] = WF_BIDX, pt[3] = WF_TIDX, npt = 4;
        rf_axis = 0;
        break;
    default: /* R_FULL: [C] -> [C/T, T] */
        if (!sched_split(ref, 0, p->threads, true))
            return false;
        pt[0] = WF_SERIAL, pt[1] = WF_TIDX, npt = 2, rf_axis = 0;
        break;
    }
    if (!sched_propagate(ref))
        return false;
    for (int i = 0; i < npt; i++)
        if (pt[i] != WF_SERIAL && !sched_parallelize(ref, i, pt[i]))
            return false;
    if (!sched_parallelize_all_like(ref, 0))
        return false;
    for (int i = 0; i < hf->nred; i++)
        if (!sched_rfactor(hf->red[i], 1, &rf_axis))
            return false;
    if (!sched_inline_most(f))
        return false;
    static const char *const kinds[] = {"inner", "inner", "outer", "full"};
    if (p->kind == R_OUTER)
        snprintf(out->summary, sizeof out->summary,
                 "outer, kept dim on blocks x threads 32, reduced dim on threads %lld (TIDy)",
                 (long long)p->rows);
    else
        snprintf(out->summary, sizeof out->summary, "%s%s, rows per block %lld, threads %lld%s",
                 kinds[p->kind], norm ? " rows" : "",
                 p->kind == R_SHORT  ? (long long)p->rows
                 : p->kind == R_FULL ? 0LL
                                     : 1LL,
                 (long long)p->threads, norm ? ", row persistent in registers" : "");
    return true;
}

static bool red_apply(const heur_facts *hf, const void *params, heur_result *out) {
    return apply_rows(hf, params, hf->red[0], out, false);
}

/* The row values a thread keeps (what inline_most left outside the row
   loop): registers when their count is a constant of at most 64; else shared
   memory, when the rows of a block fit (an_smem_fits; a generic row is
   assumed to). */
static bool persist(const heur_facts *hf, const red_params *p, heur_result *out) {
    wf_fusion *f = hf->f;
    int64_t per_thread = p->row_extent < 0 ? -1 : (p->row_extent + p->threads - 1) / p->threads;
    if (per_thread >= 0 && per_thread <= 64)
        return true;
    int64_t rows = p->kind == R_SHORT ? p->rows : 1;
    int nshared = 0;
    for (int i = 0; i < f->tvs.n; i++) {
        wf_tv *tv = f->tvs.ptr[i];
        if (tv->is_input || tv->is_output || tv->mem != WF_MEM_LOCAL || tv->ca_pos >= tv->loop.n)
            continue;
        bool red = false;
        for (int a = 0; a < tv->loop.n; a++)
            red = red || tv->loop.ptr[a]->itype == IT_REDUCTION;
        if (red)
            continue;
        int64_t bytes = p->row_extent * rows * (int64_t)wf_dtype_size(tv->dtype);
        if (p->row_extent > 0 && !an_smem_fits(bytes, hf->dev->smem_per_block))
            return err_failb(&f->err, WF_ERR_UNSUPPORTED,
                             "wf_schedule_auto: normalization: a row of T%d (%lld bytes) fits "
                             "neither in registers nor in shared memory (%lld bytes per block)",
                             tv->id, (long long)bytes, (long long)hf->dev->smem_per_block);
        tv->mem = WF_MEM_SHARED;
        nshared++;
    }
    if (nshared) {
        char *s = strstr(out->summary, "registers");
        if (s)
            snprintf(s, sizeof out->summary - (size_t)(s - out->summary), "shared memory");
    }
    return true;
}

static bool norm_apply(const heur_facts *hf, const void *params, heur_result *out) {
    return apply_rows(hf, params, hf->ref, out, true) && persist(hf, params, out);
}

const heur_scheduler heur_reduction = {"reduction", red_can, red_heuristics, red_apply};
const heur_scheduler heur_normalization = {"normalization", norm_can, norm_heuristics, norm_apply};
