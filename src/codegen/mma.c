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
 *
 * A wgmma statement becomes
 *   wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<t>.<t> {d0..d(N/2-1)}, descA, descB,
 *     p, 1, 1, transA, transB;
 * with p true (D = A B + D), the descriptors made by wf_wgmma_desc from the
 * tiles' addresses (at the statement's start indices) and the byte offsets
 * lowering inferred (lower/wgmma.c), trans 1 for an MN-major tile.
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

/* The descriptor of shared tile `which` (0 = A, 1 = B) of a wgmma statement. */
static void descriptor(sbuf *b, const kir_stmt *s, int which) {
    sbuf_printf(b, "wf_wgmma_desc(&T%d[", s->hw.wg.smem[which]->id);
    cg_print_val(b, s->hw.wg.start[which]);
    sbuf_printf(b, "], %lldu, %lldu)", (long long)s->hw.wg.lbo[which],
                (long long)s->hw.wg.sbo[which]);
}

void cg_wgmma_emit(sbuf *b, const kir_stmt *s, int depth) {
    const wf_tv *a = s->hw.wg.smem[0], *d = s->op->out;
    const char *t = a->dtype == WF_BF16 ? "bf16" : "f16";
    int n = s->hw.wg.n, nd = n / 2;
    sbuf_indent(b, depth);
    sbuf_puts(b, "{ unsigned long long wf_da = ");
    descriptor(b, s, 0);
    sbuf_puts(b, ", wf_db = ");
    descriptor(b, s, 1);
    sbuf_puts(b, ";\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b,
                "asm volatile(\"{ .reg .pred p; setp.ne.b32 p, %%%d, 0; "
                "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s {",
                nd + 2, n, t, t);
    for (int r = 0; r < nd; r++)
        sbuf_printf(b, "%s%%%d", r ? ", " : "", r);
    sbuf_printf(b, "}, %%%d, %%%d, p, 1, 1, %d, %d; }\"\n", nd, nd + 1,
                s->hw.wg.mn_major[0] ? 1 : 0, s->hw.wg.mn_major[1] ? 1 : 0);
    sbuf_indent(b, depth + 2);
    sbuf_puts(b, ": ");
    for (int r = 0; r < nd; r++) {
        sbuf_puts(b, r ? ", \"+f\"(" : "\"+f\"(");
        element(b, d, s->out_index, r);
        sbuf_puts(b, ")");
    }
    sbuf_puts(b, "\n");
    sbuf_indent(b, depth + 2);
    sbuf_puts(b, ": \"l\"(wf_da), \"l\"(wf_db), \"r\"(1) : \"memory\"); }\n");
}
