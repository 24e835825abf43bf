/*
 * copy_ldmatrix.c -- the 8x8-matrix copy kinds' CUDA (seed 002; PTX ISA
 * "ldmatrix", "stmatrix"). An LdMatrix statement becomes
 *   ldmatrix.sync.aligned.x<N>[.trans].m8n8.shared.b16 {r0, ..}, [addr]
 * into the thread's registers (N 32-bit registers, two elements each, from
 * the register tensor's element at the statement's index on), a StMatrix
 * statement
 *   stmatrix.sync.aligned.x<N>.m8n8.shared.b16 [addr], {r0, ..}
 * from them. addr is the 32-bit shared-memory address of the row this
 * thread's lane supplies (kir_stmt.hw.ldm.row, lower/copy_ldmatrix.c).
 */
#include "codegen/copy.h"

bool cg_copy_emit_ldmatrix(sbuf *b, const kir_stmt *s, int depth) {
    bool ld = s->copy == WF_LDST_LDMATRIX;
    const wf_tv *smem = ld ? s->op->in[0] : s->op->out, *regs = ld ? s->op->out : s->op->in[0];
    int n = s->hw.ldm.count;
    sbuf_indent(b, depth);
    sbuf_printf(b, "{ %sunsigned *wf_m = reinterpret_cast<%sunsigned *>(&T%d[", ld ? "" : "const ",
                ld ? "" : "const ", regs->id);
    cg_print_val(b, ld ? s->out_index : s->in_index[0]);
    sbuf_puts(b, "]);\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b, "asm volatile(\"%smatrix.sync.aligned.x%d%s.m8n8.shared.b16 ", ld ? "ld" : "st",
                n, s->hw.ldm.trans ? ".trans" : "");
    int addr = ld ? n : 0, first = ld ? 0 : 1;
    if (!ld)
        sbuf_puts(b, "[%0], ");
    sbuf_puts(b, "{");
    for (int i = 0; i < n; i++)
        sbuf_printf(b, "%s%%%d", i ? ", " : "", first + i);
    sbuf_puts(b, "}");
    if (ld)
        sbuf_printf(b, ", [%%%d]", addr);
    sbuf_puts(b, ";\"");
    if (ld) {
        sbuf_puts(b, " : ");
        for (int i = 0; i < n; i++)
            sbuf_printf(b, "%s\"=r\"(wf_m[%d])", i ? ", " : "", i);
        sbuf_puts(b, " : ");
    } else {
        sbuf_puts(b, " :: ");
    }
    sbuf_printf(b, "\"r\"((unsigned)__cvta_generic_to_shared(&T%d[", smem->id);
    cg_print_val(b, s->hw.ldm.row);
    sbuf_puts(b, "]))");
    for (int i = 0; !ld && i < n; i++)
        sbuf_printf(b, ", \"r\"(wf_m[%d])", i);
    sbuf_puts(b, " : \"memory\"); }\n");
    return true;
}
