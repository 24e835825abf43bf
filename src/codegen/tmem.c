/*
 * tmem.c -- CUDA for tensor memory (Blackwell tcgen05, PTX ISA "Tensor
 * Memory"): allocation, the 32x32b loads and stores, and deallocation.
 *
 * Warp 0 allocates each region with tcgen05.alloc, which writes the region's
 * address into shared memory; after a fenced barrier every thread reads it.
 * A StTMem statement becomes tcgen05.st.sync.aligned.32x32b.x<N>.b32 from
 * the thread's registers (N 32-bit cells) followed by tcgen05.wait::st, an
 * LdTMem statement tcgen05.ld ... then tcgen05.wait::ld. The address of a
 * warp-collective access is the warp's first lane (lane & ~31, in the high
 * 16 bits) plus the column. At the end warp 0 deallocates after a barrier.
 */
#include "codegen/codegen_int.h"

#include <string.h>

static int cells_of(const kir_stmt *s) {
    const wf_tv *t = s->op->ldst == WF_LDST_TMEM_STORE ? s->op->out : s->op->in[0];
    return (int)((int64_t)s->vec * (int64_t)wf_dtype_size(t->dtype) / 4);
}

static void collect(const kir_list *l, bool st[8], bool ld[8]) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        kir_list *body = kir_body((kir_node *)n);
        if (body) {
            collect(body, st, ld);
            continue;
        }
        if (n->kind != KIR_STMT || !n->u.stmt.tmem_lane)
            continue;
        int k = __builtin_ctz((unsigned)cells_of(&n->u.stmt));
        if (n->u.stmt.op->ldst == WF_LDST_TMEM_STORE)
            st[k] = true;
        else
            ld[k] = true;
    }
}

static void emit_st(sbuf *b, int n) {
    sbuf_printf(b,
                "__device__ inline void wf_tmem_st_x%d(unsigned taddr, const unsigned *r) {\n"
                "  asm volatile(\"tcgen05.st.sync.aligned.32x32b.x%d.b32 [%%0], {",
                n, n);
    for (int i = 0; i < n; i++)
        sbuf_printf(b, "%s%%%d", i ? ", " : "", i + 1);
    sbuf_puts(b, "};\" :: \"r\"(taddr)");
    for (int i = 0; i < n; i++)
        sbuf_printf(b, ", \"r\"(r[%d])", i);
    sbuf_puts(b, " : \"memory\");\n}\n");
}

static void emit_ld(sbuf *b, int n) {
    sbuf_printf(b,
                "__device__ inline void wf_tmem_ld_x%d(unsigned taddr, unsigned *r) {\n"
                "  asm volatile(\"tcgen05.ld.sync.aligned.32x32b.x%d.b32 {",
                n, n);
    for (int i = 0; i < n; i++)
        sbuf_printf(b, "%s%%%d", i ? ", " : "", i);
    sbuf_printf(b, "}, [%%%d];\" : ", n);
    for (int i = 0; i < n; i++)
        sbuf_printf(b, "%s\"=r\"(r[%d])", i ? ", " : "", i);
    sbuf_puts(b, " : \"r\"(taddr) : \"memory\");\n}\n");
}

void cg_tmem_helpers(sbuf *b, const lower_result *r) {
    bool st[8] = {false}, ld[8] = {false};
    if (!r->launch.ntmem_regions)
        return;
    collect(&r->top, st, ld);
    sbuf_puts(b, "__device__ inline unsigned wf_smem_addr(const void *p) {\n"
                 "  unsigned a;\n"
                 "  asm(\"{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }\" : "
                 "\"=r\"(a) : \"l\"(p));\n"
                 "  return a;\n}\n"
                 "__device__ inline unsigned wf_tmem_offset(wf_index lane, wf_index col) {\n"
                 "  return (unsigned)(((lane & ~31LL) << 16) + col);\n}\n"
                 "__device__ inline void wf_tmem_sync() {\n"
                 "  asm volatile(\"tcgen05.fence::before_thread_sync;\" ::: \"memory\");\n"
                 "  __syncthreads();\n"
                 "  asm volatile(\"tcgen05.fence::after_thread_sync;\" ::: \"memory\");\n}\n");
    for (int k = 0; k < 8; k++) {
        if (st[k])
            emit_st(b, 1 << k);
        if (ld[k])
            emit_ld(b, 1 << k);
    }
}

/* Warp 0 is the threads with linear index < 32. */
static const char warp0[] =
    "threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y < 32";

void cg_tmem_prologue(sbuf *b, const lower_result *r) {
    const wf_launch_info *li = &r->launch;
    if (!li->ntmem_regions)
        return;
    sbuf_puts(b, "  unsigned *wf_tmem_slots = reinterpret_cast<unsigned *>(wf_smem + ");
    val_print_cuda(b, r->tmem_slot);
    sbuf_puts(b, ");\n");
    sbuf_printf(b, "  if (%s) {\n", warp0);
    for (int i = 0; i < li->ntmem_regions; i++)
        sbuf_printf(b,
                    "    asm volatile(\"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 "
                    "[%%0], %%1;\" :: \"r\"(wf_smem_addr(&wf_tmem_slots[%d])), \"r\"(%lld) : "
                    "\"memory\");\n",
                    i, (long long)li->tmem_columns[i]);
    sbuf_puts(b, "    asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\" "
                 "::: \"memory\");\n  }\n  wf_tmem_sync();\n");
}

void cg_tmem_epilogue(sbuf *b, const lower_result *r) {
    const wf_launch_info *li = &r->launch;
    if (!li->ntmem_regions)
        return;
    sbuf_printf(b, "  wf_tmem_sync();\n  if (%s) {\n", warp0);
    for (int i = 0; i < li->ntmem_regions; i++)
        sbuf_printf(b,
                    "    asm volatile(\"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%0, %%1;\" "
                    ":: \"r\"(wf_tmem_slots[%d]), \"r\"(%lld) : \"memory\");\n",
                    i, (long long)li->tmem_columns[i]);
    sbuf_puts(b, "  }\n");
}

void cg_tmem_alloc(sbuf *b, const lower_result *r, const kir_alloc *a, int depth) {
    sbuf_indent(b, depth);
    sbuf_printf(b, "const unsigned T%d_tmem = wf_tmem_slots[%d]; // %lld lanes x %lld columns\n",
                a->tv->id, a->region, (long long)r->launch.tmem_lanes[a->region],
                (long long)r->launch.tmem_columns[a->region]);
}

void cg_tmem_stmt(sbuf *b, const kir_stmt *s, int depth) {
    bool st = s->op->ldst == WF_LDST_TMEM_STORE;
    const wf_tv *tmem = st ? s->op->out : s->op->in[0], *regs = st ? s->op->in[0] : s->op->out;
    const wf_val *ridx = st ? s->in_index[0] : s->out_index;
    sbuf_indent(b, depth);
    sbuf_printf(b, "wf_tmem_%s_x%d(T%d_tmem + wf_tmem_offset(", st ? "st" : "ld", cells_of(s),
                tmem->id);
    val_print_cuda(b, s->tmem_lane);
    sbuf_puts(b, ", ");
    val_print_cuda(b, s->tmem_col);
    sbuf_printf(b, "), reinterpret_cast<%sunsigned *>(&T%d[", st ? "const " : "", regs->id);
    val_print_cuda(b, ridx);
    sbuf_puts(b, "]));\n");
    sbuf_indent(b, depth);
    sbuf_printf(b, "asm volatile(\"tcgen05.wait::%s.sync.aligned;\" ::: \"memory\");\n",
                st ? "st" : "ld");
}
