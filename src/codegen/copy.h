/*
 * copy.h -- codegen's copy-kind table (rows: ir/ldst.def) and the emitters
 * of the other typed hardware nodes (barriers, mbarriers, fences, tensor
 * memory's life cycle) that cuda.c calls by node kind.
 *
 * A kind's emit hook (codegen/copy_<hooks>.c) prints its statement and
 * returns true, or returns false to leave the statement to cuda.c's generic
 * one (the plain copy and every computing op).
 */
#ifndef WF_CODEGEN_COPY_H
#define WF_CODEGEN_COPY_H

#include "codegen/codegen_int.h"

#define LDST(kind, name, hooks, wide)                                                              \
    bool cg_copy_emit_##hooks(sbuf *b, const kir_stmt *s, int depth);
#include "ir/ldst.def"
#undef LDST

/* mma.c: a tensor-core statement (kir_stmt.mma): mma.sync, wgmma. */
void cg_mma_emit(sbuf *b, const kir_stmt *s, int depth);
void cg_wgmma_emit(sbuf *b, const kir_stmt *s, int depth);
/* The statement's copy kind prints it (true), or it is a generic statement (false). */
bool cg_copy_emit(sbuf *b, const kir_stmt *s, int depth);
/* 32-bit cells one thread moves in a tensor-memory access. */
int cg_tmem_cells(const kir_stmt *s);

/* sync.c: barriers, mbarrier operations and fences; the mbarriers' shared
   declaration at kernel start (nothing when the kernel has none). */
void cg_emit_sync(sbuf *b, const lower_result *r, const kir_sync *s, int depth);
void cg_sync_decls(sbuf *b, const lower_result *r);
/* tmem.c: a hardware node. True when it opened a region (WARP0) whose body
   the caller emits at depth + 1, then closes with "}". */
bool cg_emit_hw(sbuf *b, const kir_hw *h, int depth);

#endif
