/*
 * codegen_int.h -- what the CUDA emitter's files share: the tensor-memory
 * pieces (codegen/tmem.c) that cuda.c calls at the right places.
 */
#ifndef WF_CODEGEN_CODEGEN_INT_H
#define WF_CODEGEN_CODEGEN_INT_H

#include "codegen/codegen.h"

void cg_tmem_helpers(sbuf *b, const lower_result *r); /* device functions, before the kernel */
void cg_tmem_alloc(sbuf *b, const lower_result *r, const kir_alloc *a, int depth);

#endif
