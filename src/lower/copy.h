/*
 * copy.h -- the lowering layer's copy-kind table (rows: ir/ldst.def).
 *
 * Each copy kind has three lowering hooks, in its own file copy_<hooks>.c:
 * validate (the capability check, run for every op before lowering starts:
 * memory types in and out, target sm), index (after the index pass: extra
 * lowering, e.g. tensor memory's lane and column) and place (after the sync
 * pass, once the tree is final: the hardware statements that go with the
 * copy, e.g. tcgen05.wait after a tensor-memory access). Non-copy ops use
 * the WF_LDST_SET row. Kinds not implemented yet have the "unsupported"
 * hooks: validate refuses them with WF_ERR_UNSUPPORTED.
 */
#ifndef WF_LOWER_COPY_H
#define WF_LOWER_COPY_H

#include "lower/lower_int.h"

typedef struct {
    bool (*validate)(lower_ctx *c, const ir_op *op); /* before lowering: may it be lowered? */
    bool (*index)(lower_ctx *c, kir_node *stmt);     /* after index: the kind's own lowering */
    bool (*place)(lower_ctx *c, kir_node *stmt);     /* after sync: its hardware statements */
    bool wide; /* accesses may exceed 16 bytes per thread (the index hook checks widths) */
} lower_copy_kind;

const lower_copy_kind *lower_copy_kind_of(wf_ldst k);
/* The capability check of op's copy kind (WF_LDST_SET for non-copies), from check.c. */
bool lower_copy_validate(lower_ctx *c, const ir_op *op);
/* May a vectorized access of op move more than 16 bytes per thread? (index.c)
   Inline, from the table's `wide` column: indexing must not call into the
   hooks' files, whose TMA inference calls indexing (lower/tma.c). */
static inline bool lower_copy_wide(const ir_op *op) {
    static const bool wide[IR_NLDST] = {
#define LDST(kind, name, hooks, w) [kind] = w,
#include "ir/ldst.def"
#undef LDST
    };
    return (unsigned)op->ldst < IR_NLDST && wide[op->ldst];
}
/* Is op an 8x8-matrix copy (LdMatrix, StMatrix)? Its shared-memory side is not
   one vector per thread: the lanes of a warp supply each other's rows, so
   index.c leaves that side's shape to the kind's index hook (copy_ldmatrix.c). */
static inline bool lower_copy_matrix(const ir_op *op) {
    return op->ldst == WF_LDST_LDMATRIX || op->ldst == WF_LDST_STMATRIX;
}
/* The refusal of a warp-collective instruction (`what` of out, e.g. "LdMatrix
   copy", "mma.sync") whose lanes cannot be checked at compile time because
   the index of tensor `of` depends on run-time sizes: false (lanes.c). */
bool lower_lanes_unknown(lower_ctx *c, const wf_tv *out, const char *what, const wf_tv *of);
/* Passes: every statement's index hook (after index), then place hook (after sync). */
bool lower_copy_index(lower_ctx *c);
bool lower_copy_place(lower_ctx *c);

/* The hooks, by the `hooks` column of ir/ldst.def (rows may share hooks). */
#define LDST(kind, name, hooks, wide)                                                              \
    bool lower_copy_validate_##hooks(lower_ctx *c, const ir_op *op);                               \
    bool lower_copy_index_##hooks(lower_ctx *c, kir_node *stmt);                                   \
    bool lower_copy_place_##hooks(lower_ctx *c, kir_node *stmt);
#include "ir/ldst.def"
#undef LDST

/* TMA (lower/tma.c, seed 001): may axis `axis` of tv be WF_BULK (check.c),
   and the tensor map of a TMA statement, inferred from the schedule. */
bool lower_tma_check_bulk(lower_ctx *c, const wf_tv *tv, int axis);
bool lower_tma_infer(lower_ctx *c, kir_node *stmt, lower_tma *out);
/* After placement: every reader of a TMA load's tile with holes (an element
   stride that does not divide the box) must be guarded to the box. */
bool lower_tma_check_holes(lower_ctx *c);

/* TMA's issuing thread (tma_issue.c): a KHW_ELECT node (elect.sync) where the
   block has a full warp, else `if (threadIdx.x == 0 && ...)`; put the
   statements in its kir_body. `if (threadIdx.x == 0 && ...) { n }` (n may be
   NULL). And the conjuncts of a predicate that do not depend on the thread
   (the issuer replaces the others). */
bool lower_tma_full_warp(lower_ctx *c);
kir_node *lower_tma_issuer(lower_ctx *c);
kir_node *lower_tma_one_thread(lower_ctx *c, kir_node *n);
const wf_val *lower_tma_uniform_cond(lower_ctx *c, const wf_val *cond);
/* Circular buffering (tma_cb.c): may tv have its stages (check.c), and the
   pipelined loads of a circular-buffered TMA load (the place hook). */
bool lower_tma_check_stages(lower_ctx *c, const wf_tv *tv);
/* mma.c: the check of tv's axis `axis`, parallelized WF_MMA (false, with the error);
   the pass after the copy kinds' index hooks: each wf_mma step on MMA axes becomes
   mma.sync once its lanes are checked (kir_stmt.mma), its operands' writes fill. */
bool lower_mma_check(lower_ctx *c, const wf_tv *tv, int axis);
bool lower_mma(lower_ctx *c);
bool lower_tma_cb_place(lower_ctx *c, kir_node *stmt, const lower_tma *m);

/* Tensor memory (lower/tmem.c): its allocation, address table and release, around the kernel. */
bool lower_tmem(lower_ctx *c);

#endif
