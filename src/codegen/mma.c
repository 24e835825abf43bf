/*
 * mma.c -- the CUDA of a tensor-core statement (lower/mma.c):
 *   mma.sync.aligned.m16n8k16.row.col.f32.<bf16|f16>.<bf16|f16>.f32
 *     {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}
 * with d = c the accumulator's 4 floats, a the A operand's 8 16-bit
 * elements as 4 registers and b the B operand's 4 as 2, each from the
 * statement's index on (the fragment's first register). The register
 * arrays are 16-byte aligned (cuda.c) so that pairs read as 32 bits.
 */
#include "codegen/copy.h"

void cg_mma_emit(sbuf *b, const kir_stmt *s, int depth) {
    const wf_tv *a = s->op->in[s->mma_a], *bt = s->op->in[1 - s->mma_a], *d = s->op->out;
    const char *t = a->dtype == WF_BF16 ? "bf16" : "f16";
    sbuf_indent(b, depth);
    sbuf_printf(b, "{ const unsigned *wf_a = reinterpret_cast<const unsigned *>(&T%d[", a->id);
    cg_print_val(b, s->in_index[s->mma_a]);
    sbuf_printf(b, "]);\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b, "const unsigned *wf_b = reinterpret_cast<const unsigned *>(&T%d[", bt->id);
    cg_print_val(b, s->in_index[1 - s->mma_a]);
    sbuf_printf(b, "]);\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b, "float *wf_d = &T%d[", d->id);
    cg_print_val(b, s->out_index);
    sbuf_puts(b, "];\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b,
                "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, "
                "%%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\"\n",
                t, t);
    sbuf_indent(b, depth + 2);
    sbuf_puts(b, ": \"+f\"(wf_d[0]), \"+f\"(wf_d[1]), \"+f\"(wf_d[2]), \"+f\"(wf_d[3])\n");
    sbuf_indent(b, depth + 2);
    sbuf_puts(b, ": \"r\"(wf_a[0]), \"r\"(wf_a[1]), \"r\"(wf_a[2]), \"r\"(wf_a[3]), "
                 "\"r\"(wf_b[0]), \"r\"(wf_b[1])); }\n");
}
