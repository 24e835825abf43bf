/*
 * copy.c -- codegen's copy-kind table, generated from ir/ldst.def, and the
 * emit hook of the kinds not implemented yet (validation refuses them, so
 * it is never reached; if it were, NVRTC would refuse the kernel by name).
 */
#include "codegen/copy.h"

typedef bool (*cg_copy_emit_fn)(sbuf *b, const kir_stmt *s, int depth);

static const cg_copy_emit_fn emitters[IR_NLDST] = {
#define LDST(kind, name, hooks, wide) [kind] = cg_copy_emit_##hooks,
#include "ir/ldst.def"
#undef LDST
};

bool cg_copy_emit(sbuf *b, const kir_stmt *s, int depth) {
    return (unsigned)s->copy < IR_NLDST && emitters[s->copy](b, s, depth);
}

bool cg_copy_emit_set(sbuf *b, const kir_stmt *s, int depth) {
    (void)b;
    (void)s;
    (void)depth;
    return false;
}

bool cg_copy_emit_unsupported(sbuf *b, const kir_stmt *s, int depth) {
    (void)depth;
    sbuf_printf(b, "\n#error \"weft cannot emit %s copies yet\"\n", ir_ldst_name(s->copy));
    return true;
}
