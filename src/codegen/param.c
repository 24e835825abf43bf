/*
 * param.c -- codegen's kernel-parameter table (rows: KIR_PARAM_KINDS in
 * lower/kir.h): how the kernel's signature declares each kind. Only
 * tensors exist today; a kind without a declaration yet makes the source
 * say so to NVRTC, by name (no lowering pass produces one).
 */
#include "codegen/codegen_int.h"
#include "codegen/param.h"

static void decl_tensor(sbuf *b, const lower_param *p) {
    sbuf_printf(b, "Tensor<%s, %d> T%d", cg_dtype_name(p->tv->dtype), ir_tv_rank(p->tv), p->tv->id);
}

static void decl_tensor_map(sbuf *b, const lower_param *p) {
    sbuf_printf(b, "const __grid_constant__ wf_tensor_map wf_tmap%d", p->tma);
}

static void decl_unsupported(sbuf *b, const lower_param *p) {
    sbuf_printf(b, "\n#error \"weft cannot declare a %s parameter yet\"\n",
                kir_param_name(p->kind));
}

typedef void (*cg_param_decl_fn)(sbuf *b, const lower_param *p);

static const cg_param_decl_fn decls[KIR_NPARAM_KINDS] = {
    [KP_TENSOR] = decl_tensor,
    [KP_SCALAR] = decl_unsupported,
    [KP_TENSOR_MAP] = decl_tensor_map,
    [KP_WORK_BUFFER] = decl_unsupported,
};

void cg_emit_param(sbuf *b, const lower_param *p) {
    decls[(unsigned)p->kind < KIR_NPARAM_KINDS ? p->kind : KP_SCALAR](b, p);
}
