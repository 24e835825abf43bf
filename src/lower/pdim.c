/*
 * pdim.c -- the parallel dimensions: one table of threadIdx.x..blockIdx.z
 * (name, CUDA spelling, grid or block, axis, CUDA's limit), which one a
 * loop runs on, and the pdims pass. Every pass, launch and codegen read them
 * from here; this file calls no other lowering file, so the passes form no
 * call cycle with the pass list (make check-cycles).
 *
 * lower_pdims: requires loops; provides, per thread/block dimension, the
 * launch extent (the largest extent of a loop parallelized on it) and
 * whether every such loop has that same extent (if not, the smaller loops
 * are predicated).
 */
#include "lower/lower_int.h"

/* The THREAD rows of ir/ptype.def, then its BLOCK rows: the launch order. */
#define ROW(p, name, cuda, grid, axis, limit) {p, name, cuda, grid, axis, limit},
#define ROW_SERIAL(...)
#define ROW_DEVICE(...)
#define ROW_OTHER(...)
const lower_pdim lower_pdim_table[] = {
#define ROW_THREAD(p, name, cuda, axis, limit) ROW(p, name, cuda, false, axis, limit)
#define ROW_BLOCK(...)
#define PTYPE(p, name, cuda, kind, axis, limit) ROW_##kind(p, name, cuda, axis, limit)
#include "ir/ptype.def"
#undef ROW_THREAD
#undef ROW_BLOCK
#define ROW_THREAD(...)
#define ROW_BLOCK(p, name, cuda, axis, limit) ROW(p, name, cuda, true, axis, limit)
#include "ir/ptype.def"
#undef PTYPE
};
_Static_assert(sizeof lower_pdim_table / sizeof *lower_pdim_table == LOWER_NPDIMS,
               "ir/ptype.def: three THREAD and three BLOCK rows");

int lower_pdim_index(wf_ptype p) {
    for (int d = 0; d < LOWER_NPDIMS; d++)
        if (lower_pdim_table[d].ptype == p)
            return d;
    return -1;
}

int64_t lower_pdim_max(int d) {
    return lower_pdim_table[d].limit - 1;
}

/* The ptype a tensor's loop ID runs on: its loop group's, once the loop
   exists (a group takes the first non-serial type among its members). */
wf_ptype lower_loop_ptype(lower_ctx *c, const wf_iterdomain *id) {
    int g = c->loops.group_of[id->id];
    if (g < 0 || !c->group_loop[g])
        return id->ptype;
    return c->group_loop[g]->u.loop.ptype;
}

static const wf_val *max_extent(lower_ctx *c, const wf_val *x, const wf_val *y, bool *exact) {
    if (!x)
        return y;
    if (val_equal(x, y))
        return x;
    *exact = false;
    if (val_is_const(x) && val_is_const(y))
        return x->c > y->c ? x : y;
    /* Symbolic and different: the launch extent is found at run time. */
    (void)c;
    return val_is_const(x) ? y : x;
}

bool lower_pdims(lower_ctx *c) {
    for (int d = 0; d < NPDIMS; d++)
        c->pdim_exact[d] = true;
    for (int g = 0; g < c->loops.ngroups; g++) {
        kir_node *n = c->group_loop[g];
        int d = n ? lower_pdim_index(n->u.loop.ptype) : -1;
        if (d < 0)
            continue;
        c->pdim[d] = max_extent(c, c->pdim[d], n->u.loop.extent, &c->pdim_exact[d]);
        if (c->pdim[d] == n->u.loop.extent)
            c->pdim_id[d] = n->u.loop.id;
    }
    for (int d = 0; d < NPDIMS; d++)
        if (!c->pdim[d])
            c->pdim[d] = val_const(c->a, 1);
    return true;
}
