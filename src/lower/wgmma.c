/*
 * wgmma.c -- wgmma.mma_async.m64nNk16 (sm_90a): a warp group of 128 threads
 * multiplies a 64 x 16 tile of A by a 16 x N tile of B, both read from
 * shared memory through matrix descriptors, into a 64 x N f32 accumulator
 * in registers (ir/mma_frag.h has the layouts).
 *
 * The accumulator is checked like mma.sync's (lower/mma.c). Each operand
 * is a broadcast view of a shared-memory tile S (the view itself computes
 * and allocates nothing: kir_stmt.view); what the descriptor says is
 * inferred from S's schedule, as a TMA box is: for every element (r, c) of
 * the operand's tile (r along M or N, c along K), ordinary indexing gives
 * where S holds it, and that must be the canonical layout with the 128-byte
 * swizzle -- K-major (K contiguous: A [M, K] as stored, B [N, K]) or
 * MN-major (.trans: B [K, N] as stored) -- from which the start address and
 * the leading and stride byte offsets follow. A tile in any other layout is
 * refused with the first element that differs.
 *
 * The instructions issued back to back (the unrolled loops around the
 * statement) are fenced before (wgmma.fence) and committed as one group and
 * waited for (wgmma.wait_group 0) after, so the accumulator is complete
 * before anything else reads it and before a shared tile is overwritten;
 * in a circular-buffered loop lower/tma_cb.c relaxes that wait to keep one
 * group in flight. A tile written by threads (not TMA) gets
 * fence.proxy.async after its writes: wgmma reads through the async proxy.
 */
#include "lower/mma_int.h"

#include <stdio.h>

/* The element index expression of operand j's shared tile in the statement,
   with the accumulator's register and K positions as the point's symbols. */
static const wf_val *tile_index(mma_lanes *k, int j) {
    if (k->idx[j])
        return k->idx[j];
    const kir_node *over[2] = {k->eloop, k->kloop};
    const wf_val *vals[2] = {k->esym, k->ksym};
    const ir_op *view = k->op->in[j]->def;
    k->idx[j] = lower_index_ids(k->c, k->s, view->in[0], 2, over, vals, 0, NULL, NULL);
    return k->idx[j];
}

/* The byte in shared memory of element (r, c) of operand j: through the
   accumulator position that meets it (A's row r: thread 32 (r/16) + 4 (r%8),
   register 2 ((r%16)/8); B's column r: thread (r%8)/2, register 4 (r/8) +
   r%2) and K position c. */
static bool byte_of(mma_lanes *k, lower_point *p, int w, int j, int64_t base, int r, int c,
                    int64_t *out) {
    int t = k->role[j] == MMA_ROLE_A ? 32 * (r / 16) + 4 * (r % 8) : (r % 8) / 2;
    int e = k->role[j] == MMA_ROLE_A ? 2 * ((r % 16) / 8) : 4 * (r / 8) + r % 2;
    int64_t idx;
    if (!lower_mma_at(k, p, w, t, e, c, k->idx[j], &idx))
        return false;
    *out = base + 2 * idx;
    return true;
}

static bool fail_layout(mma_lanes *k, const wf_tv *tile, int r, int c, int64_t got, int64_t want,
                        const char *why) {
    return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                     "T%d: the shared tile T%d is not in a layout wgmma reads: %s; its element "
                     "(%d, %d) (row along %s, column along K) is at byte %lld, where the "
                     "canonical layout with the 128-byte swizzle has it at byte %lld (stage the "
                     "tile by TMA with wf_tv_tma_swizzle(T%d, 128), 64 elements of 16 bits per "
                     "row)",
                     k->op->out->id, tile->id, why, r, c, k->role[0] == MMA_ROLE_A ? "M" : "N",
                     (long long)got, (long long)want, tile->id);
}

bool lower_wgmma_operand(mma_lanes *k, lower_point *p, int w, int j) {
    lower_ctx *c = k->c;
    const wf_tv *tile = k->op->in[j]->def->in[0];
    const kir_node *al = c->alloc_of[tile->id];
    if (!tile_index(k, j))
        return false;
    if (!al || !val_is_const(al->u.alloc.smem_offset))
        return lower_mma_runtime_sizes(k);
    int64_t base = al->u.alloc.smem_offset->c;
    int rows = k->role[j] == MMA_ROLE_A ? WGMMA_M : 2 * k->cregs;
    int64_t start, b01, b10;
    if (!byte_of(k, p, w, j, base, 0, 0, &start) || !byte_of(k, p, w, j, base, 0, 1, &b01) ||
        !byte_of(k, p, w, j, base, 1, 0, &b10))
        return lower_mma_runtime_sizes(k);
    bool mn = wgmma_swizzle128(b10) - start == 2;
    if (!mn && wgmma_swizzle128(b01) - start != 2)
        return fail_layout(k, tile, 1, 0, b10, start + 2,
                           "neither its rows nor its K are contiguous in 16-bit elements");
    int64_t lbo = 16, sbo = 1024, b;
    if (!mn && rows > 8 && byte_of(k, p, w, j, base, 8, 0, &b))
        sbo = wgmma_swizzle128(b) - start;
    if (mn && byte_of(k, p, w, j, base, 0, 8, &b))
        sbo = wgmma_swizzle128(b) - start;
    if (mn && rows > 64 && byte_of(k, p, w, j, base, 64, 0, &b))
        lbo = wgmma_swizzle128(b) - start;
    if (start % 16 || lbo <= 0 || sbo <= 0 || lbo % 16 || sbo % 16 || lbo >= (1 << 18) ||
        sbo >= (1 << 18))
        return fail_layout(k, tile, 0, 0, start, start - start % 16,
                           "its strides do not fit a descriptor (multiples of 16 bytes)");
    for (int r = 0; r < rows; r++)
        for (int col = 0; col < MMA_K; col++) {
            int64_t want = wgmma_smem_byte(mn, lbo, sbo, start, r, col);
            if (!byte_of(k, p, w, j, base, r, col, &b))
                return lower_mma_runtime_sizes(k);
            if (b != want)
                return fail_layout(k, tile, r, col, b, want, "an element is out of place");
        }
    int jj = k->role[j] == MMA_ROLE_A ? 0 : 1;
    kir_stmt *s = &k->s->u.stmt;
    if (s->hw.wg.smem[jj] &&
        (s->hw.wg.mn_major[jj] != mn || s->hw.wg.lbo[jj] != lbo || s->hw.wg.sbo[jj] != sbo))
        return fail_layout(k, tile, 0, 0, start, start,
                           "its strides differ between warp groups or iterations");
    s->hw.wg.smem[jj] = tile;
    s->hw.wg.mn_major[jj] = mn;
    s->hw.wg.lbo[jj] = lbo;
    s->hw.wg.sbo[jj] = sbo;
    s->hw.wg.base[jj] = base;
    return true;
}

static bool insert(lower_ctx *c, kir_node *at, bool after, kir_sync_kind kind) {
    kir_node *parent = at->parent;
    kir_list *body = parent ? kir_body(parent) : &c->out->top;
    int pos = -1;
    for (int i = 0; i < body->n && pos < 0; i++)
        if (body->ptr[i] == at)
            pos = i;
    kir_node *n = kir_new_sync(c->a, kind);
    return (pos >= 0 && n && kir_insert(c->a, body, pos + after, n, parent)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* Loops that issue no instruction of their own between the wgmmas: the
   instruction's axes, unrolled loops and thread indices. */
static bool issues_back_to_back(const kir_node *n) {
    const kir_for *l = &n->u.loop;
    return n->kind == KIR_FOR &&
           (l->vector || l->ptype == WF_UNROLL || lower_pdim_index(l->ptype) >= 0);
}

bool lower_wgmma_place(lower_ctx *c, kir_node *s) {
    kir_stmt *st = &s->u.stmt;
    const ir_op *op = st->op;
    st->mma = 2;
    st->hw.wg.n = 2 * (int)ir_id_const_extent(op->out->loop.ptr[op->out->loop.n - 2]);
    for (int j = 0; j < 2; j++) {
        const wf_tv *x = op->in[j], *tile = x->def->in[0];
        int jj = st->hw.wg.smem[0] == tile ? 0 : 1;
        /* the descriptor is the warp group's: its first thread's index */
        const wf_val *start = lower_index_ids(c, s, (wf_tv *)tile, 0, NULL, NULL, 0, NULL, NULL);
        const wf_val *tx = val_sym(c->a, SYM_TID, 0, 0, "threadIdx.x", 0, c->pdim[0]->c - 1, NULL);
        const wf_val *g = val_mul(c->a, val_div(c->a, tx, val_const(c->a, WGMMA_THREADS)),
                                  val_const(c->a, WGMMA_THREADS));
        if (!start || !(st->hw.wg.start[jj] = val_subst(c->a, start, SYM_TID, 0, g)))
            return false;
        if (jj == 0)
            st->mma_a = j;
        kir_node *view = c->stmt_of[c->op_pos[x->id]];
        view->u.stmt.view = true;
        if (c->alloc_of[x->id])
            c->alloc_of[x->id]->u.alloc.view = true;
        lower_mma_fill(c, tile);
        kir_node *w = c->op_pos[tile->id] >= 0 ? c->stmt_of[c->op_pos[tile->id]] : NULL;
        if (w && w->u.stmt.copy != WF_LDST_TMA && !insert(c, w, true, KSYNC_FENCE_PROXY_ASYNC))
            return false;
    }
    kir_node *outer = s;
    while (outer->parent && issues_back_to_back(outer->parent))
        outer = outer->parent;
    return insert(c, outer, false, KSYNC_WGMMA_FENCE) && insert(c, outer, true, KSYNC_WGMMA_WAIT) &&
           insert(c, outer, true, KSYNC_WGMMA_COMMIT);
}
