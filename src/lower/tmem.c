/*
 * tmem.c -- tensor memory's life cycle around the kernel (seed 000; PTX ISA
 * "Tensor Memory": tcgen05.alloc, relinquish_alloc_permit, dealloc).
 *
 * Requires alloc (the regions and the shared-memory address table, in the
 * launch info) and sync (so that the barriers added here are not taken for
 * the sync pass's own). Provides typed hardware nodes: at the start of the
 * kernel the address table (TMEM_SLOTS), then on warp 0 one TMEM_ALLOC per
 * region and TMEM_RELINQUISH, then a barrier after which every thread reads
 * the addresses; at the end a barrier, then on warp 0 one TMEM_DEALLOC per
 * region. Nothing is added to kernels without tensor memory.
 */
#include "lower/copy.h"

static kir_node *region_node(lower_ctx *c, kir_hw_kind k, int region) {
    kir_node *n = kir_new_hw(c->a, k);
    if (n) {
        n->u.hw.region = region;
        n->u.hw.columns = c->out->launch.tmem_columns[region];
    }
    return n;
}

/* A WARP0 node holding one `k` per region, then `last` unless it is -1. */
static kir_node *warp0(lower_ctx *c, kir_hw_kind k, int last) {
    kir_node *w = kir_new_hw(c->a, KHW_WARP0);
    for (int i = 0; w && i < c->out->launch.ntmem_regions; i++)
        if (!kir_append(c->a, &w->u.hw.body, region_node(c, k, i), w))
            return NULL;
    if (w && last >= 0 && !kir_append(c->a, &w->u.hw.body, kir_new_hw(c->a, (kir_hw_kind)last), w))
        return NULL;
    return w;
}

bool lower_tmem(lower_ctx *c) {
    kir_list *top = &c->out->top;
    if (!c->out->launch.ntmem_regions)
        return true;
    kir_node *slots = kir_new_hw(c->a, KHW_TMEM_SLOTS);
    if (slots)
        slots->u.hw.offset = c->out->tmem_slot;
    bool ok = slots && kir_insert(c->a, top, 0, slots, NULL) &&
              kir_insert(c->a, top, 1, warp0(c, KHW_TMEM_ALLOC, KHW_TMEM_RELINQUISH), NULL) &&
              kir_insert(c->a, top, 2, kir_new_sync(c->a, KSYNC_BLOCK), NULL) &&
              kir_append(c->a, top, kir_new_sync(c->a, KSYNC_BLOCK), NULL) &&
              kir_append(c->a, top, warp0(c, KHW_TMEM_DEALLOC, -1), NULL);
    return ok || err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}
