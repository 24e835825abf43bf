/*
 * codegen_int.h -- what the CUDA emitter's files share: the CUDA spellings
 * of the IR (codegen/spell.c) and the tensor-memory pieces (codegen/tmem.c)
 * that cuda.c calls at the right places.
 */
#ifndef WF_CODEGEN_CODEGEN_INT_H
#define WF_CODEGEN_CODEGEN_INT_H

#include "codegen/codegen.h"

/* spell.c: CUDA C++ spellings of the IR. */
const char *cg_dtype_name(wf_dtype t);   /* "float", "wf_half", ... */
const char *cg_compute_name(wf_dtype t); /* what an op on t computes in: "float" for wf_half */
/* An index expression as C, thread and block indices widened to 64 bits
   where 32-bit arithmetic could overflow. */
void cg_print_val(sbuf *b, const wf_val *v);
/* A scalar operand (already in an op's compute type) as a CUDA literal of the type
   the op computes in: 2.0f, 0.10000000000000001, 5LL, (char)-3, true (scalar.c). */
void cg_scalar_literal(sbuf *b, const ir_scalar *s);

void cg_tmem_helpers(sbuf *b, const lower_result *r); /* device functions, before the kernel */
void cg_tma_helpers(sbuf *b, const lower_result *r);  /* the tensor-map type (copy_tma.c) */
/* reduce.c: the reductions' device helpers (only if the kernel has one), and
   one reduction statement (init, serial step or block reduction). */
void cg_reduce_helpers(sbuf *b, const lower_result *r);
void cg_reduce_decls(sbuf *b, const lower_result *r);
void cg_reduce_emit(sbuf *b, const lower_result *r, const kir_stmt *s, int depth);
void cg_tmem_alloc(sbuf *b, const lower_result *r, const kir_alloc *a, int depth);

#endif
