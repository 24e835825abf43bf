/*
 * fixtures.c -- shared schedules (see fixtures.h).
 */
#include "fixtures.h"

/* Allocate the tile as [row, row ^ col] while still looping over [row, col]. */
static void swizzle_allocation(wf_tv *s) {
    int n;
    wf_iterdomain *const *loop = wf_tv_loop_domain(s, &n);
    wf_iterdomain *plain[4] = {loop[0], loop[1], loop[2], loop[3]};
    wf_tv_swizzle(s, WF_SWIZZLE_XOR, 2, 3);
    wf_tv_set_allocation_domain(s, 4, wf_tv_loop_domain(s, &n), true);
    wf_tv_set_loop_domain(s, 4, plain);
}

wf_fusion *fx_tiled_transpose(int64_t rows, int64_t cols, fx_swizzle how, wf_tv **smem) {
    int64_t shape[2] = {rows, cols};
    static const int tiles[4] = {0, 2, 1, 3}, inner[4] = {0, 1, 3, 2};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *t = wf_transpose(a, 0, 1);
    wf_output(f, t);
    wf_tv *s = wf_cache_after(a);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_split(t, 0, 32);
    wf_tv_split(t, 2, 32);
    wf_tv_reorder_all(t, tiles); /* [row tile, col tile, row, col] */
    wf_propagate_transforms(t);
    wf_tv_parallelize(t, 0, WF_BIDY);
    wf_tv_parallelize(t, 1, WF_BIDX);
    wf_tv_parallelize(t, 2, WF_TIDY);
    wf_tv_parallelize(t, 3, WF_TIDX);
    wf_parallelize_all_like(t, (1u << WF_BIDX) | (1u << WF_BIDY));
    wf_tv_reorder_all(s, inner); /* coalesced reads of the input */
    if (how == FX_SWIZZLE_LOOP)
        wf_tv_swizzle(s, WF_SWIZZLE_XOR, 2, 3);
    if (how == FX_SWIZZLE_ALLOC)
        swizzle_allocation(s); /* before parallelizing: a parallel axis is not transformed */
    wf_tv_parallelize(s, 2, WF_TIDY);
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv_inline_at(s, 2);
    if (smem)
        *smem = s;
    return f;
}
