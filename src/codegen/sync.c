/*
 * sync.c -- CUDA for the synchronisation nodes (kir_sync): block barriers,
 * mbarriers and proxy fences (PTX ISA "mbarrier", "membar/fence").
 *
 * A block barrier is __syncthreads(), fenced for tensor memory in kernels
 * that use it (wf_tmem_sync, codegen/tmem.c). The mbarriers are 64-bit
 * words of static shared memory, wf_mbar[0..n-1], declared at kernel start
 * when the kernel has any. A wait spins on mbarrier.try_wait.parity with the
 * parity of the phase it waits for (a phase completes when its arrivals and
 * transaction bytes reach zero).
 */
#include "codegen/copy.h"

#include <stdio.h>

static int max_mbar(const kir_list *l) {
    int m = -1;
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        const kir_list *body = kir_body((kir_node *)n);
        kir_sync_kind sk = n->kind == KIR_SYNC ? n->u.sync.kind : KSYNC_BLOCK;
        bool uses_mbar = n->kind == KIR_SYNC && kir_sync_uses_mbar(sk);
        int k = body ? max_mbar(body) : uses_mbar ? n->u.sync.mbar : -1;
        m = k > m ? k : m;
    }
    return m;
}

void cg_sync_decls(sbuf *b, const lower_result *r) {
    int n = max_mbar(&r->top) + 1;
    if (n > 0)
        sbuf_printf(b, "  __shared__ __align__(8) unsigned long long wf_mbar[%d];\n", n);
}

/* The mbarrier's shared address: wf_mbar[mbar], plus a circular buffer's stage. */
static void mbar_addr(sbuf *b, const kir_sync *s) {
    sbuf_printf(b, "\"r\"((unsigned)__cvta_generic_to_shared(&wf_mbar[%d", s->mbar);
    if (s->mbar_off) {
        sbuf_puts(b, " + (");
        cg_print_val(b, s->mbar_off);
        sbuf_puts(b, ")");
    }
    sbuf_puts(b, "]))");
}

static void mbar_op(sbuf *b, const char *ptx, const kir_sync *s, const char *operand) {
    sbuf_printf(b, "asm volatile(\"%s [%%0], %%1;\" :: ", ptx);
    mbar_addr(b, s);
    sbuf_puts(b, ", \"r\"((unsigned)(");
    if (operand)
        sbuf_puts(b, operand);
    else
        cg_print_val(b, s->bytes);
    sbuf_puts(b, ")) : \"memory\");\n");
}

/* The parity of the phase waited for: a constant, or (phase & 1) in a circular buffer. */
static void parity(sbuf *b, const kir_sync *s) {
    if (!s->phase_val) {
        sbuf_printf(b, "\"r\"(%lldu)", (long long)(s->phase & 1));
        return;
    }
    sbuf_puts(b, "\"r\"((unsigned)((");
    cg_print_val(b, s->phase_val);
    sbuf_puts(b, ") & 1))");
}

static void mbar_wait(sbuf *b, const kir_sync *s, int depth) {
    sbuf_puts(b, "for (unsigned wf_done = 0; !wf_done;) {\n");
    sbuf_indent(b, depth + 1);
    sbuf_puts(b, "asm volatile(\"{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, "
                 "[%1], %2; selp.u32 %0, 1, 0, p; }\" : \"=r\"(wf_done) : ");
    mbar_addr(b, s);
    sbuf_puts(b, ", ");
    parity(b, s);
    sbuf_puts(b, " : \"memory\");\n");
    sbuf_indent(b, depth);
    sbuf_puts(b, "}\n");
}

void cg_emit_sync(sbuf *b, const lower_result *r, const kir_sync *s, int depth) {
    char count[32];
    sbuf_indent(b, depth);
    switch (s->kind) {
    case KSYNC_BLOCK:
        /* Tensor-memory accesses are ordered around barriers by tcgen05 fences. */
        sbuf_puts(b, r->launch.ntmem_regions ? "wf_tmem_sync();\n" : "__syncthreads();\n");
        break;
    case KSYNC_MBAR_INIT:
        snprintf(count, sizeof count, "%lld", (long long)s->count);
        mbar_op(b, "mbarrier.init.shared::cta.b64", s, count);
        /* the initialization, visible to the async proxy that completes transactions */
        sbuf_indent(b, depth);
        sbuf_puts(b, "asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n");
        break;
    case KSYNC_MBAR_ARRIVE_TX:
        mbar_op(b, "mbarrier.arrive.expect_tx.shared::cta.b64 _,", s, NULL);
        break;
    case KSYNC_MBAR_COMPLETE_TX:
        mbar_op(b, "mbarrier.complete_tx.shared::cta.b64", s, NULL);
        break;
    case KSYNC_MBAR_WAIT:
        mbar_wait(b, s, depth);
        break;
    case KSYNC_FENCE_PROXY_ASYNC:
        sbuf_puts(b, "asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n");
        break;
    case KSYNC_MBAR_INVAL:
        sbuf_puts(b, "asm volatile(\"mbarrier.inval.shared::cta.b64 [%0];\" :: ");
        mbar_addr(b, s);
        sbuf_puts(b, " : \"memory\");\n");
        break;
    case KSYNC_BULK_COMMIT:
        sbuf_puts(b, "asm volatile(\"cp.async.bulk.commit_group;\" ::: \"memory\");\n");
        break;
    case KSYNC_BULK_WAIT_READ:
        sbuf_puts(b, "asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");\n");
        break;
    case KSYNC_WGMMA_FENCE:
        sbuf_puts(b, "asm volatile(\"wgmma.fence.sync.aligned;\" ::: \"memory\");\n");
        break;
    case KSYNC_WGMMA_COMMIT:
        sbuf_puts(b, "asm volatile(\"wgmma.commit_group.sync.aligned;\" ::: \"memory\");\n");
        break;
    case KSYNC_WGMMA_WAIT:
        sbuf_printf(b, "asm volatile(\"wgmma.wait_group.sync.aligned %lld;\" ::: \"memory\");\n",
                    (long long)s->count);
        break;
    }
}
