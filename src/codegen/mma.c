/*
 * mma.c -- the CUDA of a tensor-core statement (lower/mma.c):
 *   mma.sync.aligned.m16n8k16.row.col.f32.<bf16|f16>.<bf16|f16>.f32
 *     {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}
 * with d = c the accumulator's 4 floats, a the A operand's 8 16-bit
 * elements as 4 registers and b the B operand's 4 as 2, each from the
 * statement's index on (the fragment's first register). Every operand is
 * named as an array element (a pair of 16-bit elements packed by
 * wf_pack2): no address of a register array is taken, so that, once the
 * loops around are unrolled, the arrays stay in registers.
 */
#include "codegen/copy.h"

/* T<id>[index + k] */
static void element(sbuf *b, const wf_tv *tv, const wf_val *index, int k) {
    sbuf_printf(b, "T%d[", tv->id);
    cg_print_val(b, index);
    if (k)
        sbuf_printf(b, " + %d", k);
    sbuf_puts(b, "]");
}

static void pairs(sbuf *b, const wf_tv *tv, const wf_val *index, int n) {
    for (int r = 0; r < n; r++) {
        sbuf_puts(b, r ? ", \"r\"(wf_pack2(" : "\"r\"(wf_pack2(");
        element(b, tv, index, 2 * r);
        sbuf_puts(b, ", ");
        element(b, tv, index, 2 * r + 1);
        sbuf_puts(b, "))");
    }
}

void cg_mma_emit(sbuf *b, const kir_stmt *s, int depth) {
    const wf_tv *a = s->op->in[s->mma_a], *bt = s->op->in[1 - s->mma_a], *d = s->op->out;
    const char *t = a->dtype == WF_BF16 ? "bf16" : "f16";
    sbuf_indent(b, depth);
    sbuf_printf(b,
                "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, "
                "%%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\"\n",
                t, t);
    sbuf_indent(b, depth + 1);
    sbuf_puts(b, ": ");
    for (int r = 0; r < 4; r++) {
        sbuf_puts(b, r ? ", \"+f\"(" : "\"+f\"(");
        element(b, d, s->out_index, r);
        sbuf_puts(b, ")");
    }
    sbuf_puts(b, "\n");
    sbuf_indent(b, depth + 1);
    sbuf_puts(b, ": ");
    pairs(b, a, s->in_index[s->mma_a], 4);
    sbuf_puts(b, ", ");
    pairs(b, bt, s->in_index[1 - s->mma_a], 2);
    sbuf_puts(b, ");\n");
}
