/*
 * copy_tma.c -- the TMA copy kind, CpAsyncBulkTensorTile (seed 001): its
 * lowering hooks (copy.h).
 *
 * validate: a TMA copy moves global -> shared (a load) or shared -> global
 * (a store), needs Hopper (sm 90 or newer) and at least one Bulk axis on
 * its consumer (circular buffering is checked by tma_cb.c, from check.c).
 * index: requires index. The tensor map is inferred (lower/tma.c) and kept
 * in lower_result.tmas, in issue order; the statement names its entry.
 * place: requires sync, so that the predicate (one elected thread: the
 * predicate pass lets only index 0 of every thread dimension the box does
 * not depend on write; where the block has a full warp, elect.sync picks it
 * instead, tma_issue.c) and the barriers are in place. The predicate has no
 * bounds terms (predicate.c): TMA zero-fills or clips a box past the
 * tensor's end, and every issuing thread must arrive on the mbarrier, at
 * every size. A circular-buffered
 * load is pipelined by tma_cb.c. Any other load becomes
 *   mbarrier.init(1); arrive.expect_tx(box bytes); cp.async.bulk.tensor;
 *   try_wait(phase 0); mbarrier.inval
 * in the elected thread, whose wait orders the tile before the block
 * barrier the sync pass put before its readers. A loop of boxes (serial
 * loops of constant extent whose bodies hold nothing but the copy, under
 * guards that test only the thread) issues all its boxes under one
 * mbarrier phase: init and one arrive.expect_tx with the bytes of every
 * box (TMA fills a box's out-of-bounds part with zeros, so each counts
 * fully) before the outermost such loop, the copies in it, one wait and
 * the inval after it, in the same issuing thread (box_loop). A store is
 * preceded by fence.proxy.async (in every thread, before the barrier that
 * orders the threads' shared-memory writes before the copy, and in the
 * issuing thread) and followed by commit_group and wait_group.read 0, so
 * that the shared memory may be written again afterwards; in a loop of
 * boxes each copy is committed and the one wait_group.read 0 follows the
 * loop (nothing in the loop writes the tile).
 */
#include "lower/copy.h"

static bool serial(const kir_node *n);

static const char *mem_name(wf_memtype m) {
    return ir_memtype_name(m);
}

bool lower_copy_validate_tma(lower_ctx *c, const ir_op *op) {
    wf_err *e = &c->f->err;
    const wf_tv *in = op->in[0], *out = op->out;
    bool load = in->mem == WF_MEM_GLOBAL && out->mem == WF_MEM_SHARED;
    bool store = in->mem == WF_MEM_SHARED && out->mem == WF_MEM_GLOBAL;
    if (op->kind != OP_SET)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: a TMA copy (CpAsyncBulkTensorTile) must be a set, not %s", out->id,
                         ir_op_name(op->kind));
    if (!load && !store)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: a TMA copy moves global -> shared (load) or shared -> global "
                         "(store), but T%d is in %s memory and T%d in %s memory",
                         out->id, in->id, mem_name(in->mem), out->id, mem_name(out->mem));
    if (c->out->sm && c->out->sm < 90)
        return err_failb(e, WF_ERR_UNSUPPORTED,
                         "T%d: TMA needs sm_90 (Hopper) or newer, but the target is sm_%d", out->id,
                         c->out->sm);
    bool bulk = false;
    for (int i = 0; i < out->loop.n; i++) {
        wf_ptype p = out->loop.ptr[i]->ptype;
        if (p == WF_VECTORIZE || p == WF_MMA || p == WF_DIDX || p == WF_DIDY || p == WF_DIDZ)
            return err_failb(e, WF_ERR_SCHEDULE,
                             "T%d: axis %d of a TMA copy's consumer: Invalid parallel type for "
                             "cp.async.bulk: %s. Parallelize the tile axes with WF_BULK, the "
                             "others on blocks or serially",
                             out->id, i, ir_ptype_name(p));
        bulk |= p == WF_BULK;
    }
    if (bulk)
        return true;
    return err_failb(e, WF_ERR_SCHEDULE,
                     "T%d is defined by a TMA copy, but none of its loop axes is parallelized on "
                     "Bulk; parallelize its tile axes (the inner outputs of the boxing splits) "
                     "with WF_BULK",
                     out->id);
}

bool lower_copy_index_tma(lower_ctx *c, kir_node *stmt) {
    lower_tma m;
    if (!lower_tma_infer(c, stmt, &m))
        return false;
    if (!m.info.is_store) { /* after the earlier loads' mbarriers, one per stage */
        m.mbar = 0;
        for (int i = 0; i < c->out->tmas.n; i++) {
            const lower_tma *p = &c->out->tmas.ptr[i];
            m.mbar += p->info.is_store                ? 0
                      : p->info.shared_tv->stages > 1 ? p->info.shared_tv->stages
                                                      : 1;
        }
    }
    stmt->u.stmt.hw.tma.index = c->out->tmas.n;
    stmt->u.stmt.hw.tma.mbar = m.mbar;
    stmt->u.stmt.hw.tma.rank = m.info.rank;
    for (int d = 0; d < m.info.rank; d++)
        stmt->u.stmt.hw.tma.coord[d] = m.coord[d];
    return vec_push_arena(c->a, &c->out->tmas, m) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

static kir_node *mbar_node(lower_ctx *c, kir_sync_kind k, const lower_tma *m) {
    kir_node *n = kir_new_sync(c->a, k);
    if (!n)
        return NULL;
    n->u.sync.mbar = m->mbar;
    n->u.sync.count = 1;
    n->u.sync.phase = 0;
    n->u.sync.bytes = val_const(c->a, m->box_bytes);
    return n;
}

static int position(const kir_list *l, const kir_node *n) {
    int at = 0;
    while (at < l->n && l->ptr[at] != n)
        at++;
    return at;
}

static kir_node *holder_of(kir_node *stmt);

/* The largest transaction count one mbarrier phase may expect (PTX ISA:
   2^20 - 1 bytes). */
#define MBAR_TX_MAX ((1 << 20) - 1)

static bool thread_only(lower_ctx *c, const wf_val *cond) {
    const wf_val *u = lower_tma_uniform_cond(c, cond);
    return !u || val_is_const_eq(u, 1);
}

/* A loop of boxes around stmt: the outermost of the serial loops of
   constant extent reached from stmt through nodes whose bodies hold nothing
   else (its guards, if they test only the thread, elect.sync, Bulk, thread
   and one-iteration loops). *boxes: the boxes one issuing thread copies in
   it. NULL where stmt is in no such loop. */
static kir_node *box_loop(lower_ctx *c, kir_node *stmt, int64_t *boxes) {
    kir_node *loop = NULL;
    int64_t n = 1;
    for (kir_node *k = stmt; k->parent; k = k->parent) {
        kir_node *p = k->parent;
        const kir_list *b = kir_body(p);
        if (!b || b->n != 1 || (p->kind == KIR_IF && !thread_only(c, p->u.cond.cond)) ||
            (p->kind == KIR_HW && p->u.hw.kind != KHW_ELECT))
            break;
        if (!serial(p))
            continue;
        const wf_val *e = p->u.loop.extent;
        if (!val_is_const(e) || e->c < 1 || n > INT64_MAX / e->c)
            break;
        n *= e->c;
        loop = p;
    }
    *boxes = n;
    return loop;
}

/* n under the guards that pick stmt's issuing thread inside loop (its IFs
   and elect.sync, innermost first), for the issuer's operations outside
   the loop. */
static kir_node *guarded(lower_ctx *c, kir_node *stmt, const kir_node *loop, kir_node *n) {
    for (kir_node *k = stmt->parent; n && k != loop; k = k->parent) {
        kir_node *g = NULL;
        if (k->kind == KIR_IF) {
            g = kir_new(c->a, KIR_IF);
            if (g)
                g->u.cond.cond = k->u.cond.cond;
        } else if (k->kind == KIR_HW) {
            g = kir_new_hw(c->a, k->u.hw.kind);
        } else {
            continue;
        }
        n = g && kir_append(c->a, kir_body(g), n, g) ? g : NULL;
    }
    return n;
}

/* A loop of boxes (box_loop): issued under one mbarrier phase. With one
   issuer, [init, arrive.expect_tx(all boxes' bytes)] before the loop and
   [wait, inval] after it, in the issuing thread; with several (each its own
   boxes), the init and the inval in one thread behind block barriers, as
   place_load_many does, and each issuer's arrive before and wait after. */
static bool place_load_loop(lower_ctx *c, kir_node *stmt, const lower_tma *m, kir_node *loop,
                            int64_t boxes) {
    kir_node *init = mbar_node(c, KSYNC_MBAR_INIT, m), *tx = mbar_node(c, KSYNC_MBAR_ARRIVE_TX, m);
    kir_node *wait = mbar_node(c, KSYNC_MBAR_WAIT, m), *inval = mbar_node(c, KSYNC_MBAR_INVAL, m);
    if (!init || !tx || !wait || !inval)
        return false;
    tx->u.sync.bytes = val_const(c->a, boxes * m->box_bytes);
    kir_list *lb = loop->parent ? kir_body(loop->parent) : &c->out->top;
    if (m->issuers == 1) {
        kir_node *before = guarded(c, stmt, loop, init), *after = guarded(c, stmt, loop, wait);
        int at = position(lb, loop);
        if (!before || !after)
            return false;
        if (before == init) /* no guard: the block is one thread */
            return kir_insert(c->a, lb, at + 1, inval, loop->parent) &&
                   kir_insert(c->a, lb, at + 1, wait, loop->parent) &&
                   kir_insert(c->a, lb, at, tx, loop->parent) &&
                   kir_insert(c->a, lb, at, init, loop->parent);
        return kir_append(c->a, kir_body(init->parent), tx, init->parent) &&
               kir_append(c->a, kir_body(wait->parent), inval, wait->parent) &&
               kir_insert(c->a, lb, at + 1, after, loop->parent) &&
               kir_insert(c->a, lb, at, before, loop->parent);
    }
    init->u.sync.count = m->issuers;
    kir_node *h = holder_of(loop);
    kir_list *outer = h->parent ? kir_body(h->parent) : &c->out->top;
    kir_node *ti = lower_tma_one_thread(c, init), *tv = lower_tma_one_thread(c, inval);
    kir_node *s0 = kir_new_sync(c->a, KSYNC_BLOCK), *s1 = kir_new_sync(c->a, KSYNC_BLOCK);
    kir_node *gtx = guarded(c, stmt, loop, tx), *gw = guarded(c, stmt, loop, wait);
    if (!ti || !tv || !s0 || !s1 || !gtx || !gw)
        return false;
    int at = position(outer, h);
    if (!kir_insert(c->a, outer, at + 1, tv, h->parent) ||
        !kir_insert(c->a, outer, at + 1, s1, h->parent) ||
        !kir_insert(c->a, outer, at, s0, h->parent) || !kir_insert(c->a, outer, at, ti, h->parent))
        return false;
    at = position(lb, loop);
    return kir_insert(c->a, lb, at + 1, gw, loop->parent) &&
           kir_insert(c->a, lb, at, gtx, loop->parent);
}

/* Several threads issue a box each (non-tile axes on threads): one thread
   initializes the mbarrier for all their arrivals before a barrier, each
   issuing thread arrives with its bytes, copies and waits, and after a
   second barrier (every wait done) one thread invalidates it. */
static bool place_load_many(lower_ctx *c, kir_node *stmt, const lower_tma *m) {
    kir_node *h = holder_of(stmt);
    kir_list *outer = h->parent ? kir_body(h->parent) : &c->out->top;
    kir_node *init = mbar_node(c, KSYNC_MBAR_INIT, m), *inval = mbar_node(c, KSYNC_MBAR_INVAL, m);
    if (!init || !inval)
        return false;
    init->u.sync.count = m->issuers;
    kir_node *ti = lower_tma_one_thread(c, init), *tv = lower_tma_one_thread(c, inval);
    kir_node *s0 = kir_new_sync(c->a, KSYNC_BLOCK), *s1 = kir_new_sync(c->a, KSYNC_BLOCK);
    if (!ti || !tv || !s0 || !s1)
        return false;
    int at = position(outer, h);
    if (!kir_insert(c->a, outer, at + 1, tv, h->parent) ||
        !kir_insert(c->a, outer, at + 1, s1, h->parent) ||
        !kir_insert(c->a, outer, at, s0, h->parent) || !kir_insert(c->a, outer, at, ti, h->parent))
        return false;
    kir_list *body = stmt->parent ? kir_body(stmt->parent) : &c->out->top;
    int k = position(body, stmt);
    kir_node *tx = mbar_node(c, KSYNC_MBAR_ARRIVE_TX, m), *wait = mbar_node(c, KSYNC_MBAR_WAIT, m);
    return tx && wait && kir_insert(c->a, body, k + 1, wait, stmt->parent) &&
           kir_insert(c->a, body, k, tx, stmt->parent);
}

/* The predicate pass picked the issuing thread with `threadIdx.x == 0 &&
   ...`: where the block has a full warp, elect.sync picks it instead, inside
   what remains of the predicate (uniform over the warp, so that the whole
   warp reaches the election). */
static bool elect(lower_ctx *c, kir_node *stmt) {
    kir_node *f = stmt->parent;
    if (!lower_tma_full_warp(c) || !f || f->kind != KIR_IF || f->u.cond.body.n != 1)
        return true;
    kir_node *e = kir_new_hw(c->a, KHW_ELECT);
    if (!e || !kir_append(c->a, &e->u.hw.body, stmt, e))
        return false;
    const wf_val *cond = lower_tma_uniform_cond(c, f->u.cond.cond);
    if (cond && !val_is_const_eq(cond, 1)) {
        f->u.cond.cond = cond;
        f->u.cond.body.ptr[0] = e;
        e->parent = f;
        return true;
    }
    kir_list *body = f->parent ? kir_body(f->parent) : &c->out->top;
    body->ptr[position(body, f)] = e;
    e->parent = f->parent;
    return true;
}

static bool place_load(lower_ctx *c, kir_node *stmt, const lower_tma *m) {
    if (m->info.shared_tv->stages > 1)
        return lower_tma_cb_place(c, stmt, m);
    if (m->issuers == 1 && !elect(c, stmt))
        return false;
    int64_t boxes = 1;
    kir_node *loop = box_loop(c, stmt, &boxes);
    if (loop && boxes > 1 && boxes <= MBAR_TX_MAX / m->box_bytes)
        return place_load_loop(c, stmt, m, loop, boxes);
    if (m->issuers > 1)
        return place_load_many(c, stmt, m);
    kir_list *body = stmt->parent ? kir_body(stmt->parent) : &c->out->top;
    int at = position(body, stmt);
    kir_node *init = mbar_node(c, KSYNC_MBAR_INIT, m), *tx = mbar_node(c, KSYNC_MBAR_ARRIVE_TX, m);
    kir_node *wait = mbar_node(c, KSYNC_MBAR_WAIT, m), *inval = mbar_node(c, KSYNC_MBAR_INVAL, m);
    return init && tx && wait && inval && kir_insert(c->a, body, at + 1, inval, stmt->parent) &&
           kir_insert(c->a, body, at + 1, wait, stmt->parent) &&
           kir_insert(c->a, body, at, tx, stmt->parent) &&
           kir_insert(c->a, body, at, init, stmt->parent);
}

static bool serial(const kir_node *n) {
    return n->kind == KIR_FOR && lower_pdim_index(n->u.loop.ptype) < 0 &&
           !val_is_const(n->u.loop.var);
}

/* The node that holds stmt among serial loops: above its predicate and the
   loops that print as nothing (thread, block, Bulk, extent 1). */
static kir_node *holder_of(kir_node *stmt) {
    kir_node *holder = stmt;
    while (holder->parent && (holder->parent->kind == KIR_IF || !serial(holder->parent)))
        holder = holder->parent;
    return holder;
}

static bool has_barrier(const kir_list *body) {
    for (int i = 0; i < body->n; i++)
        if (kir_is_barrier(body->ptr[i]))
            return true;
    return false;
}

/* The threads' writes to the tile (st.shared, stmatrix: generic proxy) are
   ordered before the copy by a block barrier (sync pass) right before the
   store or one of the nodes that hold it, up to the innermost serial loop
   around it (a block loop, a Bulk loop or a loop of one iteration around the
   store may come between), or before that loop when the store opens its body
   and the body has no barrier of its own (a loop of stores, one box per
   iteration, after the writes): each thread fences its writes against the
   async proxy before that barrier. */
static bool fence_before_barrier(lower_ctx *c, kir_node *stmt) {
    for (kir_node *n = stmt;; n = n->parent) {
        kir_list *body = n->parent ? kir_body(n->parent) : &c->out->top;
        int at = position(body, n);
        if (at > 0 && kir_is_barrier(body->ptr[at - 1])) {
            kir_node *f = kir_new_sync(c->a, KSYNC_FENCE_PROXY_ASYNC);
            return f && kir_insert(c->a, body, at - 1, f, n->parent);
        }
        if (!n->parent || (serial(n->parent) && (at > 0 || has_barrier(body))))
            return true;
    }
}

static bool place_store(lower_ctx *c, kir_node *stmt, const lower_tma *m) {
    if (m->issuers == 1 && !elect(c, stmt))
        return false;
    int64_t boxes = 1;
    kir_node *loop = box_loop(c, stmt, &boxes); /* before the fences change the bodies */
    if (!fence_before_barrier(c, stmt))
        return false;
    kir_list *body = stmt->parent ? kir_body(stmt->parent) : &c->out->top;
    int at = position(body, stmt);
    kir_node *f = kir_new_sync(c->a, KSYNC_FENCE_PROXY_ASYNC);
    kir_node *commit = kir_new_sync(c->a, KSYNC_BULK_COMMIT);
    kir_node *wait = kir_new_sync(c->a, KSYNC_BULK_WAIT_READ);
    if (!f || !commit || !wait || !kir_insert(c->a, body, at + 1, commit, stmt->parent) ||
        !kir_insert(c->a, body, at, f, stmt->parent))
        return false;
    if (!loop || boxes < 2) /* the wait right after the commit */
        return kir_insert(c->a, body, at + 3, wait, stmt->parent);
    /* A loop of stores reads the tile and writes nothing to it: the issuing
       thread waits for all its copies' reads once, after the loop. */
    kir_node *g = guarded(c, stmt, loop, wait);
    kir_list *lb = loop->parent ? kir_body(loop->parent) : &c->out->top;
    return g && kir_insert(c->a, lb, position(lb, loop) + 1, g, loop->parent);
}

bool lower_copy_place_tma(lower_ctx *c, kir_node *stmt) {
    const lower_tma *m = &c->out->tmas.ptr[stmt->u.stmt.hw.tma.index];
    bool ok = m->info.is_store ? place_store(c, stmt, m) : place_load(c, stmt, m);
    return ok || err_set(&c->f->err) || err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}
