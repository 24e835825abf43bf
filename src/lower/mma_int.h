/*
 * mma_int.h -- what the tensor-core lowering's two files share: the lanes
 * being checked (lower/mma.c: the accumulator, mma.sync's register
 * operands; lower/wgmma.c: wgmma's shared-memory operands).
 */
#ifndef WF_LOWER_MMA_INT_H
#define WF_LOWER_MMA_INT_H

#include "ir/mma_frag.h"
#include "lower/copy.h"
#include "lower/eval.h"

/* One instruction statement being checked: the point binds 0 = the
   accumulator's register position, 1 = the position along K, then the
   loops around. A unit is a warp (mma.sync) or a warp group (wgmma). */
typedef struct {
    lower_ctx *c;
    kir_node *s;
    const ir_op *op;
    bool wg;                       /* wgmma (else mma.sync) */
    int lanes, cregs;              /* threads of a unit; accumulator registers per thread */
    const kir_node *eloop, *kloop; /* the instruction's register and K axes */
    const wf_val *esym, *ksym;
    int64_t block[3];
    /* The accumulator: the tile's M and N logical dims, their indices, its register. */
    int dm, dn;
    const wf_val *cm, *cn, *cidx;
    /* Per operand: its role, the index of each thread axis, its register. */
    mma_role role[2];
    const wf_val *tid[2][3], *idx[2];
} mma_lanes;

/* v at thread t of unit w, accumulator register e, K position kk. */
bool lower_mma_at(mma_lanes *k, lower_point *p, int w, int t, int e, int kk, const wf_val *v,
                  int64_t *out);
/* The refusals: a lane holding the wrong element; an index of run-time sizes. */
bool lower_mma_fail_lane(mma_lanes *k, const char *what, int lane, int e, int64_t got,
                         int64_t want);
bool lower_mma_runtime_sizes(mma_lanes *k);
/* The statement that first writes tile x where its bounds fail writes 0 instead. */
void lower_mma_fill(lower_ctx *c, const wf_tv *x);

/* wgmma.c: operand j's shared-memory tile and its descriptor (into the
   statement's hw.wg), checked at point p for unit w; and, once the
   statement is wgmma, its fences, commit and wait around it. */
bool lower_wgmma_operand(mma_lanes *k, lower_point *p, int w, int j);
bool lower_wgmma_place(lower_ctx *c, kir_node *s);

#endif
