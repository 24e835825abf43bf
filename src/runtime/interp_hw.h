/*
 * interp_hw.h -- the executor's typed hardware statements: copy kinds
 * (their execute hooks, a table keyed by ir/ldst.def), mbarrier operations
 * and proxy fences, and the hardware nodes of kir_hw (warp 0's region,
 * tensor memory's life cycle).
 */
#ifndef WF_RUNTIME_INTERP_HW_H
#define WF_RUNTIME_INTERP_HW_H

#include "runtime/interp_int.h"

/* The payload of an IN_SYNC (other than a block barrier) or IN_HW node. */
struct ix_hw {
    bool is_sync;
    kir_sync_kind sync;
    kir_hw_kind hw;
    int mbar;
    int64_t count, phase;
    const wf_val *bytes; /* in the kernel's arena; uniform (launch symbols only) */
};

/* Build-time: the payload of a kir sync or hw node, in k's arena (NULL on OOM). */
struct ix_hw *ix_hw_of_sync(wf_kernel *k, const kir_sync *s);
struct ix_hw *ix_hw_of_node(wf_kernel *k, const kir_hw *h);

/* Run-time. run_body executes a node's kids (interp_exec.c's run_list). */
typedef bool (*ix_run_body)(ix_exec *x, const in_node *n);
bool ix_hw_sync(ix_exec *x, const in_node *n);
bool ix_hw_run(ix_exec *x, const in_node *n, ix_run_body run_body);
void ix_hw_free(ix_exec *x);
/* An asynchronous copy's bytes arrive: complete_tx on mbarrier `mbar` of the block. The
   shared-memory bytes [lo, hi) it wrote are in flight (ix_cell.written == 2: reading them is
   an error) until a wait on the mbarrier sees the phase complete. */
bool ix_mbar_complete_tx(ix_exec *x, int mbar, int64_t bytes, int64_t lo, int64_t hi);
/* At the end of a block: every mbarrier it initialized is between phases. */
bool ix_hw_block_end(ix_exec *x);

/* A statement by its copy kind's execute hook. */
bool ix_copy_execute(ix_exec *x, const in_node *n);
/* Build-time (interp_build.c): the kind's payload of statement n from the
   kernel IR's kir_stmt.hw, by its build hook; expressions are compiled with
   ix_build_expr. */
typedef struct ix_builder ix_builder;
ix_expr ix_build_expr(ix_builder *b, const wf_val *v);
void ix_copy_build(ix_builder *b, in_node *n, const kir_stmt *s);
#define LDST(kind, name, hooks, wide)                                                              \
    bool ix_copy_execute_##hooks(ix_exec *x, const in_node *n);                                    \
    void ix_copy_build_##hooks(ix_builder *b, in_node *n, const kir_stmt *s);
#include "ir/ldst.def"
#undef LDST

#endif
