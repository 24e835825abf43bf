/*
 * copy_tmem.c -- the tensor-memory copy kinds' emit hook (seed 000): a
 * StTMem statement becomes tcgen05.st.sync.aligned.32x32b.x<N>.b32 from the
 * thread's registers (N 32-bit cells), an LdTMem statement tcgen05.ld into
 * them (the helpers wf_tmem_st_x<N> / wf_tmem_ld_x<N> of codegen/tmem.c).
 * The address of a warp-collective access is the warp's first lane (lane &
 * ~31, in the high 16 bits) plus the column. The tcgen05.wait that follows
 * is a node of its own (KHW_TMEM_WAIT_ST/LD).
 */
#include "codegen/copy.h"

int cg_tmem_cells(const kir_stmt *s) {
    const wf_tv *t = s->copy == WF_LDST_TMEM_STORE ? s->op->out : s->op->in[0];
    return (int)((int64_t)s->vec * (int64_t)wf_dtype_size(t->dtype) / 4);
}

bool cg_copy_emit_tmem(sbuf *b, const kir_stmt *s, int depth) {
    bool st = s->copy == WF_LDST_TMEM_STORE;
    const wf_tv *tmem = st ? s->op->out : s->op->in[0], *regs = st ? s->op->in[0] : s->op->out;
    const wf_val *ridx = st ? s->in_index[0] : s->out_index;
    sbuf_indent(b, depth);
    sbuf_printf(b, "wf_tmem_%s_x%d(T%d_tmem + wf_tmem_offset(", st ? "st" : "ld", cg_tmem_cells(s),
                tmem->id);
    cg_print_val(b, s->hw.tmem.lane);
    sbuf_puts(b, ", ");
    cg_print_val(b, s->hw.tmem.col);
    sbuf_printf(b, "), reinterpret_cast<%sunsigned *>(&T%d[", st ? "const " : "", regs->id);
    cg_print_val(b, ridx);
    sbuf_puts(b, "]));\n");
    return true;
}
