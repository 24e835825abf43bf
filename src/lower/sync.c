/*
 * sync.c -- __syncthreads for shared and tensor memory, and for fusion
 * outputs that another op of the kernel reads (global memory: the read must
 * stay in the writing block; across threads it needs a barrier too).
 *
 * Requires predicate (so that syncs land outside IF nodes). Provides SYNC
 * nodes. No barrier is needed when every thread reads only what it wrote
 * itself: writer and reader use the same thread dimensions on exactly
 * mapped IterDomains. Otherwise, for each statement reading the tensor, find the
 * innermost node enclosing both the writer and the reader: a read after
 * write (RAW) sync goes in that body right before the child holding the
 * reader. If a serial loop encloses both, the next iteration rewrites the
 * buffer while slower threads may still read it, so a write-after-read (WAR)
 * sync goes at the end of the innermost such loop. Syncs are only placed in
 * loop bodies or at top level, never under a predicate, so every thread of
 * the block reaches them.
 */
#include "lower/lower_int.h"

static int depth_of(const kir_node *n) {
    int d = 0;
    for (; n; n = n->parent)
        d++;
    return d;
}

/* The lowest common ancestor (NULL = top level), and the children of it on
   the way to a and b. */
static kir_node *lca(kir_node *a, kir_node *b, kir_node **ca, kir_node **cb) {
    int da = depth_of(a), db = depth_of(b);
    while (da > db) {
        *ca = a;
        a = a->parent;
        da--;
    }
    while (db > da) {
        *cb = b;
        b = b->parent;
        db--;
    }
    while (a != b) {
        *ca = a;
        *cb = b;
        a = a->parent;
        b = b->parent;
    }
    return a;
}

static int index_in(const kir_list *l, const kir_node *n) {
    for (int i = 0; i < l->n; i++)
        if (l->ptr[i] == n)
            return i;
    return -1;
}

static bool has_sync_between(const kir_list *l, int from, int to) {
    for (int i = from + 1; i < to; i++)
        if (kir_is_barrier(l->ptr[i]))
            return true;
    return false;
}

static bool insert_sync(lower_ctx *c, kir_node *parent, int at) {
    kir_list *body = parent ? kir_body(parent) : &c->out->top;
    kir_node *n = kir_new_sync(c->a, KSYNC_BLOCK);
    return (n && kir_insert(c->a, body, at, n, parent)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

static bool is_serial_loop(const kir_node *n) {
    return n->kind == KIR_FOR && lower_pdim_index(n->u.loop.ptype) < 0 && !n->u.loop.vector &&
           !val_is_const(n->u.loop.var);
}

static bool sync_pair(lower_ctx *c, kir_node *w, kir_node *r) {
    kir_node *cw = w, *cr = r;
    kir_node *l = lca(w, r, &cw, &cr);
    kir_list *body = l ? kir_body(l) : &c->out->top;
    int iw = index_in(body, cw), ir = index_in(body, cr);
    /* sort.c orders producers first and loops.c only reuses open loops (it refuses
       reopening one), so the writer's child of the common loop precedes the reader's */
    err_assert(&c->f->err, iw >= 0 && ir >= 0 && iw < ir);
    if (iw < 0 || ir < 0 || iw >= ir)
        return false;
    if (!has_sync_between(body, iw, ir) && !insert_sync(c, l, ir))
        return false;
    for (kir_node *n = l; n; n = n->parent) {
        if (!is_serial_loop(n))
            continue;
        kir_list *lb = kir_body(n);
        if (lb->n && kir_is_barrier(lb->ptr[lb->n - 1]))
            return true;
        return insert_sync(c, n, lb->n);
    }
    return true;
}

/* The loop ID of tv parallelized on launch dimension d (0..5), or NULL. A
   written tensor's reduction axis holds no data: a block reduction leaves
   its result in every thread of the reduced dims (lower/reduce.c); a
   reader's reduction axis indexes what it reads like any axis. A broadcast
   axis of extent 1 neither holds data nor indexes it (every thread of its
   loop computes the one value; not so a split one, bS{4}, whose iterations
   past the first the split's bound keeps from writing: fuzz -s 20261130 -c
   382050): the axis that spreads the data over the dimension may come
   after it (T3 = T1 + T1 [bS{1}, 32], its bS{1} in a loop on threadIdx.z
   that a consumer's broadcast gave it and its 32 on threadIdx.z too: a
   reader of all 32 from registers was taken, by the bS{1}s, for one that
   reads its own thread's cell, and a max came out as each thread's own
   value: fuzz -s 20261135 -c 380635). A loop-only broadcast sits in a
   parallel loop without indexing by it (sched/loopbc.c): it is no axis of
   tv on that dimension. */
static const wf_iterdomain *axis_of(lower_ctx *c, const wf_tv *tv, int d, bool writer) {
    for (int i = 0; i < tv->loop.n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i];
        bool one = id->itype == IT_BROADCAST && val_is_const_eq(id->extent, 1);
        if (!(writer && id->itype == IT_REDUCTION) && !one && !id->loop_only &&
            lower_pdim_index(lower_loop_ptype(c, id)) == d)
            return id;
    }
    return NULL;
}

/* Do two loop IDs run on the same threads: one shared loop, or exactly
   mapped IterDomains (the same index everywhere)? */
static bool same_axis(lower_ctx *c, const wf_iterdomain *a, const wf_iterdomain *b) {
    return an_loop_group(&c->loops, a) == an_loop_group(&c->loops, b) ||
           an_mapped(&c->g.exact, a, b);
}

/* Does every thread read only the cells it wrote itself? True when, on every
   launched thread dimension, writer and reader loop over exactly mapped
   IterDomains and the written index depends on it (otherwise one thread
   writes for all, see predicate.c). */
static bool same_thread(lower_ctx *c, const kir_stmt *w, const wf_tv *reader) {
    for (int d = 0; d < 3; d++) {
        if (val_is_const_eq(c->pdim[d], 1))
            continue;
        const wf_iterdomain *wa = axis_of(c, w->op->out, d, true),
                            *ra = axis_of(c, reader, d, false);
        if (!wa || !ra || !same_axis(c, wa, ra) || !val_uses_sym(w->out_index, SYM_TID, d))
            return false;
    }
    return true;
}

/* The launched dimension (from..5) on which a reader of `written` would read
   cells another thread or block wrote, or -1: the writer loops over an axis
   on that dimension that the reader's axis on it is not exactly mapped to. */
static int crossed_dim(lower_ctx *c, const wf_tv *written, const wf_tv *reader, int from) {
    for (int d = from; d < NPDIMS; d++) {
        const wf_iterdomain *wa = axis_of(c, written, d, true), *ra = axis_of(c, reader, d, false);
        if (wa && !val_is_const_eq(c->pdim[d], 1) && (!ra || !same_axis(c, wa, ra)))
            return d;
    }
    return -1;
}

/* Registers are per thread and shared memory is per block: a producer read
   across those boundaries is a schedule error, not something a barrier fixes. */
static bool check_visibility(lower_ctx *c, const wf_tv *p, const wf_tv *reader) {
    /* Registers are private to a thread; shared and tensor memory to a block. */
    int d = crossed_dim(c, p, reader, p->mem == WF_MEM_LOCAL ? 0 : 3);
    if (d < 0)
        return true;
    return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                     "T%d is in %s memory, but T%d reads it across %s on %s; a producer read by "
                     "other %s must be in %s memory",
                     p->id, ir_memtype_name(p->mem), reader->id, d < 3 ? "threads" : "blocks",
                     lower_pdim_table[d].name, d < 3 ? "threads" : "blocks",
                     d < 3 ? "shared" : "global");
}

/* A fusion output read by another op of the kernel: each cell must be read
   by the block that wrote it (a block that did not write it would need a
   grid-wide sync, i.e. a second kernel). Without a block axis on a launched
   block dimension only block 0 writes (predicate.c); so too where the
   written index does not use that dimension, though an axis of one value
   sits in a loop on it (T4 = sum(T2), T2 = broadcast(T0) an output, both
   bS{1} in the loop on blockIdx.x that T6 = T5 - T1 gives them: every
   block summed T2, which block 0 alone wrote: fuzz -s 20261129 -c
   322620). Within a block, a read of cells other threads wrote gets a
   barrier like shared memory. */
static bool check_global_read(lower_ctx *c, const kir_stmt *w, const wf_tv *reader) {
    const wf_tv *p = w->op->out;
    for (int d = 3; d < NPDIMS; d++) {
        const wf_iterdomain *wa = axis_of(c, p, d, true), *ra = axis_of(c, reader, d, false);
        if (!val_uses_sym(w->out_index, SYM_BID, d - 3))
            wa = NULL;
        if (val_is_const_eq(c->pdim[d], 1) || (wa && ra && same_axis(c, wa, ra)))
            continue;
        /* Neither on the dimension and the reader an output too: only block 0
           writes either, so only block 0's read is ever used. */
        if (!wa && !ra && reader->mem == WF_MEM_GLOBAL)
            continue;
        sbuf sw = {0}, sr = {0};
        if (wa)
            ir_print_id(&sw, wa);
        if (ra)
            ir_print_id(&sr, ra);
        err_failb(&c->f->err, WF_ERR_SCHEDULE,
                  "T%d reads global T%d across blocks on %s (T%d's axis %s, T%d's axis %s): "
                  "other blocks write the cells it reads, which needs a grid-wide sync; "
                  "parallelize exactly mapped axes of both on %s, or compute T%d in a separate "
                  "fusion",
                  reader->id, p->id, lower_pdim_table[d].name, p->id, wa ? sbuf_str(&sw) : "none",
                  reader->id, ra ? sbuf_str(&sr) : "none", lower_pdim_table[d].name, reader->id);
        sbuf_free(&sw);
        sbuf_free(&sr);
        return false;
    }
    return true;
}

bool lower_sync(lower_ctx *c) {
    for (int k = 0; k < c->order.n; k++) {
        ir_op *op = c->order.ptr[k];
        for (int i = 0; i < op->nin; i++) {
            wf_tv *p = op->in[i];
            if (p->is_input)
                continue;
            if (p->mem == WF_MEM_GLOBAL) {
                kir_node *w = c->stmt_of[c->op_pos[p->id]];
                if (!check_global_read(c, &w->u.stmt, op->out) ||
                    (!same_thread(c, &w->u.stmt, op->out) && !sync_pair(c, w, c->stmt_of[k])))
                    return false;
                continue;
            }
            /* mma.sync reads the other lanes' registers itself (lower/mma.c checked them). */
            bool by_instruction = c->stmt_of[k]->u.stmt.mma && p->mem == WF_MEM_LOCAL;
            if (!by_instruction && !check_visibility(c, p, op->out))
                return false;
            if (p->mem != WF_MEM_SHARED && p->mem != WF_MEM_TENSOR)
                continue;
            kir_node *w = c->stmt_of[c->op_pos[p->id]];
            if (!same_thread(c, &w->u.stmt, op->out) && !sync_pair(c, w, c->stmt_of[k]))
                return false;
        }
    }
    return true;
}
