/*
 * pdim.c -- the parallel dimensions: one table of threadIdx.x..blockIdx.z
 * (name, CUDA spelling, grid or block, axis, CUDA's limit), and which one a
 * loop runs on. Every pass, launch and codegen read them from here; this
 * file calls no other lowering file, so the passes form no call cycle with
 * the pass list (make check-cycles).
 */
#include "lower/lower_int.h"

// clang-format off
const lower_pdim lower_pdim_table[LOWER_NPDIMS] = {
    {WF_TIDX, "TIDx", "threadIdx.x", false, 0, 1024},
    {WF_TIDY, "TIDy", "threadIdx.y", false, 1, 1024},
    {WF_TIDZ, "TIDz", "threadIdx.z", false, 2, 64},
    {WF_BIDX, "BIDx", "blockIdx.x",  true,  0, 2147483647},
    {WF_BIDY, "BIDy", "blockIdx.y",  true,  1, 65535},
    {WF_BIDZ, "BIDz", "blockIdx.z",  true,  2, 65535},
};
// clang-format on

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
