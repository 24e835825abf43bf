/*
 * tmem.c -- CUDA for tensor memory (Blackwell tcgen05, PTX ISA "Tensor
 * Memory"): the device helpers, the region variables, and the life-cycle
 * nodes of lower/tmem.c: the address table, warp 0's region, allocation,
 * relinquish, deallocation and the waits after accesses.
 *
 * Warp 0 allocates each region with tcgen05.alloc, which writes the region's
 * address into shared memory; after a fenced barrier (wf_tmem_sync: every
 * block barrier of a kernel with tensor memory is fenced) every thread reads
 * it. At the end warp 0 deallocates after a barrier. The copies themselves
 * are codegen/copy_tmem.c.
 */
#include "codegen/copy.h"

#include <string.h>

static void collect(const kir_list *l, bool st[8], bool ld[8]) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        kir_list *body = kir_body((kir_node *)n);
        if (body) {
            collect(body, st, ld);
            continue;
        }
        bool store = n->kind == KIR_STMT && n->u.stmt.copy == WF_LDST_TMEM_STORE;
        if (n->kind != KIR_STMT || (!store && n->u.stmt.copy != WF_LDST_TMEM_LOAD))
            continue;
        int k = __builtin_ctz((unsigned)cg_tmem_cells(&n->u.stmt));
        if (store)
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

static void region_op(sbuf *b, const kir_hw *h, int depth) {
    sbuf_indent(b, depth);
    if (h->kind == KHW_TMEM_ALLOC)
        sbuf_printf(b,
                    "asm volatile(\"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 "
                    "[%%0], %%1;\" :: \"r\"(wf_smem_addr(&wf_tmem_slots[%d])), \"r\"(%lld) : "
                    "\"memory\");\n",
                    h->region, (long long)h->columns);
    else
        sbuf_printf(b,
                    "asm volatile(\"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %%0, %%1;\" "
                    ":: \"r\"(wf_tmem_slots[%d]), \"r\"(%lld) : \"memory\");\n",
                    h->region, (long long)h->columns);
}

bool cg_emit_hw(sbuf *b, const kir_hw *h, int depth) {
    switch (h->kind) {
    case KHW_WARP0:
        sbuf_indent(b, depth);
        sbuf_printf(b, "if (%s) {\n", warp0);
        return true;
    case KHW_ELECT: /* TMA's issuing thread (codegen/copy_tma.c) */
        sbuf_indent(b, depth);
        sbuf_puts(b, "if (wf_elect_one()) {\n");
        return true;
    case KHW_TMEM_SLOTS:
        sbuf_indent(b, depth);
        sbuf_puts(b, "unsigned *wf_tmem_slots = reinterpret_cast<unsigned *>(wf_smem + ");
        cg_print_val(b, h->offset);
        sbuf_puts(b, ");\n");
        break;
    case KHW_TMEM_ALLOC:
    case KHW_TMEM_DEALLOC:
        region_op(b, h, depth);
        break;
    case KHW_TMEM_RELINQUISH:
        sbuf_indent(b, depth);
        sbuf_puts(b, "asm volatile(\"tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\" "
                     "::: \"memory\");\n");
        break;
    case KHW_TMEM_WAIT_LD:
    case KHW_TMEM_WAIT_ST:
        sbuf_indent(b, depth);
        sbuf_printf(b, "asm volatile(\"tcgen05.wait::%s.sync.aligned;\" ::: \"memory\");\n",
                    h->kind == KHW_TMEM_WAIT_ST ? "st" : "ld");
        break;
    }
    return false;
}

void cg_tmem_alloc(sbuf *b, const lower_result *r, const kir_alloc *a, int depth) {
    sbuf_indent(b, depth);
    sbuf_printf(b, "const unsigned T%d_tmem = wf_tmem_slots[%d]; // %lld lanes x %lld columns\n",
                a->tv->id, a->region, (long long)r->launch.tmem_lanes[a->region],
                (long long)r->launch.tmem_columns[a->region]);
}
