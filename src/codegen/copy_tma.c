/*
 * copy_tma.c -- the TMA copy kind's CUDA (seed 001; PTX ISA
 * "cp.async.bulk.tensor"). A load becomes
 *   cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
 *     [smem], [tensor map, {c0, ..., c<r-1>}], [mbarrier]
 * and a store
 *   cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group [tensor map, {...}], [smem]
 * with the box's first coordinates (dimension 0 innermost) and the box's
 * first element in shared memory. The tensor map is a kernel parameter,
 * `const __grid_constant__ wf_tensor_map wf_tmap<i>` (param.c), encoded on
 * the host by cuTensorMapEncodeTiled; wf_tensor_map is the driver's
 * 128-byte, 64-byte-aligned CUtensorMap, declared here because NVRTC sees
 * no driver headers. The mbarrier operations and fences around the copy are
 * nodes of their own (sync.c); a circular buffer's copy names its stage's
 * mbarrier, wf_mbar[first + stage]. The issuing thread is elected by
 * wf_elect_one (elect.sync) where the block has a full warp.
 */
#include "codegen/copy.h"

/* elect.sync (PTX ISA "elect.sync") picks one lane of warp 0, the first
   32 threads in linear order, which are all there: lowering emits it only
   for blocks of at least 32 threads (KHW_ELECT), reached by the whole warp. */
static const char elect_one[] =
    "__device__ __forceinline__ bool wf_elect_one() {\n"
    "  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z), p = 0;\n"
    "  if (t < 32)\n"
    "    asm volatile(\"{ .reg .pred q; elect.sync _|q, 0xffffffff; selp.u32 %0, 1, 0, q; }\" "
    ": \"=r\"(p));\n"
    "  return p != 0;\n"
    "}\n";

void cg_tma_helpers(sbuf *b, const lower_result *r) {
    if (!r->tmas.n)
        return;
    sbuf_puts(b, "struct __align__(64) wf_tensor_map { unsigned long long opaque[16]; };\n");
    sbuf_puts(b, elect_one);
}

static void coords(sbuf *b, const kir_stmt *s, int first) {
    sbuf_puts(b, "{");
    for (int d = 0; d < s->hw.tma.rank; d++)
        sbuf_printf(b, "%s%%%d", d ? ", " : "", first + d);
    sbuf_puts(b, "}");
}

static void operands(sbuf *b, const kir_stmt *s) {
    for (int d = 0; d < s->hw.tma.rank; d++) {
        sbuf_puts(b, ", \"r\"((int)(");
        cg_print_val(b, s->hw.tma.coord[d]);
        sbuf_puts(b, "))");
    }
}

static void smem_address(sbuf *b, const wf_tv *smem, const wf_val *index) {
    sbuf_printf(b, "\"r\"((unsigned)__cvta_generic_to_shared(&T%d[", smem->id);
    cg_print_val(b, index);
    sbuf_puts(b, "]))");
}

bool cg_copy_emit_tma(sbuf *b, const kir_stmt *s, int depth) {
    bool load = s->hw.tma.mbar >= 0;
    int r = s->hw.tma.rank;
    sbuf_indent(b, depth);
    if (load) {
        sbuf_printf(b,
                    "asm volatile(\"cp.async.bulk.tensor.%dd.shared::cluster.global.tile."
                    "mbarrier::complete_tx::bytes [%%0], [%%1, ",
                    r);
        coords(b, s, 3);
        sbuf_puts(b, "], [%2];\" :: ");
        smem_address(b, s->op->out, s->out_index);
        sbuf_printf(b,
                    ", \"l\"((unsigned long long)&wf_tmap%d), \"r\"((unsigned)"
                    "__cvta_generic_to_shared(&wf_mbar[%d",
                    s->hw.tma.index, s->hw.tma.mbar);
        if (s->hw.tma.mbar_off) { /* a circular buffer's stage */
            sbuf_puts(b, " + (");
            cg_print_val(b, s->hw.tma.mbar_off);
            sbuf_puts(b, ")");
        }
        sbuf_puts(b, "]))");
    } else {
        sbuf_printf(b,
                    "asm volatile(\"cp.async.bulk.tensor.%dd.global.shared::cta.tile.bulk_group "
                    "[%%0, ",
                    r);
        coords(b, s, 2);
        sbuf_puts(b, "], [%1];\" :: ");
        sbuf_printf(b, "\"l\"((unsigned long long)&wf_tmap%d), ", s->hw.tma.index);
        smem_address(b, s->op->in[0], s->in_index[0]);
    }
    operands(b, s);
    sbuf_puts(b, " : \"memory\");\n");
    return true;
}
