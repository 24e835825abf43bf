/*
 * transpose.c -- the "transpose" scheduler: inputs and outputs disagree on
 * their innermost dim. As tests/fixtures.c's tiled transpose: the output
 * tiled [row tile (BIDy), column tile (BIDx), 32 rows (TIDy), 32 columns
 * (TIDx)], every tensor taking that layout; the permuted input read through
 * a 32 x 32 shared-memory tile in its own order (coalesced reads), the tile
 * XOR-swizzled so that the column reads of the transposed side are free of
 * bank conflicts. Rank 2 (the fusion's outputs and the permuted input).
 */
#include "heur/heur.h"

#include <stdio.h>

typedef struct {
    int64_t tile;
} tr_params;

static bool tr_can(const heur_facts *hf, char *why, size_t whysize) {
    if (!hf->has_permute) {
        snprintf(why, whysize, "no permute");
        return false;
    }
    if (hf->nred) {
        snprintf(why, whysize, "T%d is a reduction", hf->red[0]->id);
        return false;
    }
    const ir_op *op = hf->permute->def;
    wf_tv *in = op->in[0];
    if (!in->is_input || in->logical.n != 2 || hf->permute->logical.n != 2 ||
        op->in_dim[0][1] != 0) {
        snprintf(why, whysize, "T%d is not a rank-2 transpose of a fusion input", hf->permute->id);
        return false;
    }
    for (int i = 0; i < hf->f->outputs.n; i++)
        if (hf->f->outputs.ptr[i]->logical.n != 2) {
            snprintf(why, whysize, "output T%d is not rank 2", hf->f->outputs.ptr[i]->id);
            return false;
        }
    return true;
}

static void tr_heuristics(const heur_facts *hf, void *params) {
    (void)hf;
    ((tr_params *)params)->tile = 32;
}

static bool tr_apply(const heur_facts *hf, const void *params, heur_result *out) {
    const tr_params *p = params;
    wf_fusion *f = hf->f;
    wf_tv *t = hf->ref, *in = hf->permute->def->in[0];
    static const int tiles[4] = {0, 2, 1, 3}, inner[4] = {0, 1, 3, 2};
    wf_tv *s = sched_cache_after(in);
    if (!s)
        return false;
    s->mem = WF_MEM_SHARED;
    if (!sched_split(t, 0, p->tile, true) || !sched_split(t, 2, p->tile, true) ||
        !sched_reorder(t, tiles) || !sched_propagate(t))
        return false;
    if (!sched_parallelize(t, 0, WF_BIDY) || !sched_parallelize(t, 1, WF_BIDX) ||
        !sched_parallelize(t, 2, WF_TIDY) || !sched_parallelize(t, 3, WF_TIDX))
        return false;
    if (!sched_parallelize_all_like(t, 0))
        return false;
    /* The shared tile in the input's order; its thread axes follow it. */
    for (int a = 2; a < 4; a++)
        if (!sched_parallelize(s, a, WF_SERIAL))
            return false;
    if (!sched_reorder(s, inner) || !sched_swizzle(s, 2, 3) || !sched_parallelize(s, 2, WF_TIDY) ||
        !sched_parallelize(s, 3, WF_TIDX))
        return false;
    if (!sched_inline_most(f) || !sched_inline_at(s, 2))
        return false;
    snprintf(out->summary, sizeof out->summary,
             "shared tile %lld x %lld, XOR swizzle, threads %lld x %lld", (long long)p->tile,
             (long long)p->tile, (long long)p->tile, (long long)p->tile);
    return true;
}

const heur_scheduler heur_transpose = {"transpose", tr_can, tr_heuristics, tr_apply};
