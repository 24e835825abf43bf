/*
 * param.h -- codegen's kernel-parameter declarations, by parameter kind
 * (kir_param_kind): one row per kind in param.c.
 */
#ifndef WF_CODEGEN_PARAM_H
#define WF_CODEGEN_PARAM_H

#include "codegen/codegen.h"

/* The declaration of one kernel parameter in the signature. */
void cg_emit_param(sbuf *b, const lower_param *p);

#endif
