/*
 * build_int.h -- what build.c shares with the files that lower particular block
 * shapes through the core (build_rfactor.c: rfactor's pair of blocks).
 *
 * build.c owns the lowering context; a hook file gets build.c's steps as a table of
 * functions (tir_build_ops) rather than calling them by name, so that calls between the
 * files go one way only (make check-cycles). Invariant: a hook lowers whole blocks and
 * leaves every tensor it makes registered with set_tv, as build.c's own blocks are.
 */
#ifndef WF_TIR_BUILD_INT_H
#define WF_TIR_BUILD_INT_H

#include "tir/tir.h"

typedef struct tir_bctx tir_bctx; /* build.c's lowering context */

/* The most ops one block's value may make. */
#define TIR_MAX_OPS 64

typedef struct {
    /* The ops of block b's value, reduction included, in creation order (*made, *nmade;
       valid until the next call), and per op the iters its dims hold, in order (*iters:
       bit k for iter k; a load's permuted view holds only the iters it reads); the last
       one is the block's tensor, whose logical domain is b's iters in order. */
    wf_tv *(*value)(tir_bctx *c, tir_block *b, wf_tv *const **made, const uint32_t **iters,
                    int *nmade);
    /* tv, one loop axis per iter of b in mask (bit k: iter k), in order, takes b's loops
       (split, merge, reorder, parallelize): its loop axes are then b's loops, outermost
       first. A loop no axis of tv uses is a loop-domain broadcast if inner (an op inlined
       into the block's last one), else an error. */
    bool (*schedule)(tir_bctx *c, const tir_block *b, wf_tv *tv, uint32_t mask, bool inner);
    /* buf is now held by tv. */
    bool (*set_tv)(tir_bctx *c, tir_buffer *buf, wf_tv *tv);
    /* The parallel type a loop's kind and thread binding give. */
    wf_ptype (*ptype)(const tir_stmt *loop);
} tir_build_ops;

/* ---- build_rfactor.c: a reduction block whose result only a reduction block of the
   same op reads (rfactor's B_rf and its write-back B), lowered as one reduction
   split by wf_tv_rfactor ---- */
typedef enum {
    TIR_RF_NONE,      /* not such a pair: build.c lowers the block itself */
    TIR_RF_PARTIAL,   /* the partial block (B_rf): lowered with its write-back */
    TIR_RF_WRITEBACK, /* the write-back block: tir_rf_lower lowers the pair */
    TIR_RF_REFUSED    /* such a pair the core cannot build yet (the error is set) */
} tir_rf_role;

tir_rf_role tir_rf_role_of(wf_tir *s, const tir_block *b);
/* Lowers the pair whose write-back block is w (tir_rf_role_of said TIR_RF_WRITEBACK). */
bool tir_rf_lower(tir_bctx *c, wf_tir *s, const tir_block *w, const tir_build_ops *ops);

#endif
