/*
 * tma_cb.c -- circular buffering of a TMA load (seed 001; nvFuser's
 * circularBuffer(stages) for TMA, pipelined form).
 *
 * A shared-memory tensor S loaded by TMA with `stages` = D > 1 is computed
 * at a serial loop L (`for i < N`, the loop at S's inline position). alloc.c
 * gave S D copies of its buffer, stage_elems apart; here, after the sync
 * pass, the loads are pipelined with one mbarrier per stage
 * (wf_mbar[first + s]), all operated by one elected thread:
 *   before L:  init the D mbarriers; issue iterations 0 .. D-2 into stages
 *              0 .. D-2 (each under `p < N` and the load's own predicate)
 *   in L:      issue iteration j = i + D - 1 into stage j % D (if j < N);
 *              wait on stage i % D for its phase i / D (PTX tests the
 *              parity, (i / D) % 2: the phase flips each time the stage is
 *              reused); then the sync pass's barrier publishes the tile and
 *              the readers read stage i % D
 *   after L:   invalidate the D mbarriers.
 * Several boxes per stage (serial loops between L and the load) are issued
 * together: those loops are repeated around the load in each issue, under
 * one arrive.expect_tx of the stage's bytes.
 * The load of iteration j overwrites stage (i - 1) % D, which iteration
 * i - 1 read: the sync pass's barrier at the end of L orders that (WAR).
 * A stage that wgmma reads is read asynchronously, until a wgmma.wait_group
 * retires the instruction's group; L's wait then keeps the iteration's own
 * group in flight (wait_group 1, so the tensor cores work while the next
 * iteration waits for its stage), which retires iteration i - 1's, and the
 * load of j moves to the end of L, after that wait and a block barrier (the
 * other warp groups' retirement); a wait_group 0 after L retires the last.
 * The statement keeps its tensor map and box; only the loop index moves
 * (substituted in its coordinates, index and predicate) and the stage's
 * offset and mbarrier are added. The executor models the stages' mbarriers,
 * transaction counts and parity waits (runtime/interp_hw.c) and reports a
 * read of a stage before its wait, or a load over a stage still being read.
 */
#include "lower/copy.h"

#include <string.h>

#define LOWER_CB_MAX_INNER 8 /* serial loops between a circular buffer's loop and its load */

/* ---- substituting the loop index ---- */

typedef struct {
    lower_ctx *c;
    int group;                      /* the loop whose index is replaced */
    const wf_val *to;               /* its value */
    VEC(const wf_val *) from, into; /* memo: shared subexpressions stay shared */
} subst_env;

static const wf_val *subst(subst_env *e, const wf_val *v) {
    if (!v || v->kind == V_CONST)
        return v;
    if (v->kind == V_SYM)
        return v->sym == SYM_LOOP && v->sym_a == e->group ? e->to : v;
    for (int i = 0; i < e->from.n; i++)
        if (e->from.ptr[i] == v)
            return e->into.ptr[i];
    const wf_val *x = subst(e, v->a), *y = subst(e, v->b);
    const wf_val *r = x && y ? val_binary(e->c->a, v->kind, x, y) : NULL;
    if (r && (!vec_push_arena(e->c->a, &e->from, v) || !vec_push_arena(e->c->a, &e->into, r)))
        return NULL;
    return r;
}

/* v with loop L's index replaced by `to` (v itself where L has no index). */
static const wf_val *at(lower_ctx *c, const kir_node *L, const wf_val *v, const wf_val *to) {
    const wf_val *var = L->u.loop.var;
    if (!v || var->kind != V_SYM)
        return v;
    subst_env e = {.c = c, .group = var->sym_a, .to = to};
    return subst(&e, v);
}

/* ---- validation ---- */

static bool fail_loop(lower_ctx *c, const wf_tv *tv, const wf_iterdomain *id, const char *why) {
    sbuf b = {0};
    ir_print_id(&b, id);
    err_failb(&c->f->err, WF_ERR_SCHEDULE,
              "T%d: circular buffering (%d stages) pipelines the serial loop at T%d's inline "
              "position, but that loop, %s, %s; inline T%d into its consumer at a serial loop",
              tv->id, tv->stages, tv->id, sbuf_str(&b), why, tv->id);
    sbuf_free(&b);
    return false;
}

/* The seed's rule: one elected thread issues a circular buffer's loads, so
   the TMA consumer cannot have axes on threads (each would issue a box). */
static bool elect_conflict(lower_ctx *c, const wf_tv *tv, const wf_iterdomain *id) {
    sbuf b = {0};
    ir_print_id(&b, id);
    err_failb(&c->f->err, WF_ERR_SCHEDULE,
              "T%d: circular buffering issues its loads from one elected thread, but T%d's axis %s "
              "is parallelized on %s, so the TMA copy of T%d is incorrectly contained within a "
              "If-Then-Else with the ElectSync predicate. Parallelize T%d's non-tile axes on "
              "blocks or serially",
              tv->id, tv->id, sbuf_str(&b), ir_ptype_name(id->ptype), tv->id, tv->id);
    sbuf_free(&b);
    return false;
}

bool lower_tma_check_stages(lower_ctx *c, const wf_tv *tv) {
    wf_err *e = &c->f->err;
    if (tv->stages <= 1)
        return true;
    const ir_op *d = tv->def;
    bool tma = d && d->ldst == WF_LDST_TMA && d->nin == 1 && d->in[0]->mem == WF_MEM_GLOBAL;
    if (!tma || tv->mem != WF_MEM_SHARED)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: circular buffering (%d stages) applies to a shared-memory tensor "
                         "loaded by TMA, but T%d is %s; make its definition a TMA copy from global "
                         "memory (WF_LDST_TMA) or do not circular-buffer it",
                         tv->id, tv->stages, tv->id,
                         tv->mem != WF_MEM_SHARED ? "not in shared memory"
                                                  : "not defined by a TMA load");
    for (int i = 0; i < tv->loop.n; i++)
        if (ir_id_is_thread(tv->loop.ptr[i]->ptype))
            return elect_conflict(c, tv, tv->loop.ptr[i]);
    if (tv->stages > LOWER_TMA_MAX_STAGES)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: circular buffering with %d stages; weft allows at most %d", tv->id,
                         tv->stages, LOWER_TMA_MAX_STAGES);
    if (tv->ca_pos == 0)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: circular buffering (%d stages) pipelines the serial loop at T%d's "
                         "inline position, but T%d is not inlined (compute-at position 0); inline "
                         "it into its consumer at a serial loop",
                         tv->id, tv->stages, tv->id, tv->id);
    const wf_iterdomain *id = tv->loop.ptr[tv->ca_pos - 1];
    if (id->ptype != WF_SERIAL)
        return fail_loop(c, tv, id, "is not serial");
    return true;
}

/* ---- the pipeline ---- */

typedef struct {
    lower_ctx *c;
    kir_node *stmt; /* the TMA load, reused for the main loop's issue */
    kir_node *L;    /* the circular-buffer loop */
    const lower_tma *m;
    int stages;
    const wf_val *i, *n; /* L's index and extent */
    const wf_val *cond;  /* the load's uniform predicate at iteration i (NULL: none) */
    const wf_val *stage_elems;
    kir_stmt orig; /* the statement as indexing made it, for the prologue's copies */
    /* Several boxes per stage: the serial loops between L and the load, outer
       first, which each issue repeats around its copy of the load */
    const kir_node *inner[LOWER_CB_MAX_INNER];
    int ninner;
    const wf_val *bytes; /* the stage's bytes: the box's times the boxes per stage */
} cb_env;

static kir_node *mbar_sync(cb_env *e, kir_sync_kind k, int stage, const wf_val *off) {
    kir_node *n = kir_new_sync(e->c->a, k);
    if (!n)
        return NULL;
    n->u.sync.mbar = e->m->mbar + stage;
    n->u.sync.mbar_off = off;
    n->u.sync.count = 1;
    n->u.sync.bytes = e->bytes;
    return n;
}

/* `if (cond) { issuer { kids } }`, or just the issuer when cond is NULL or 1;
   NULL for a condition that is always false (no node), and on OOM. */
static kir_node *guarded(cb_env *e, const wf_val *cond, int nkids, kir_node *const *kids) {
    wf_arena *a = e->c->a;
    kir_node *is = lower_tma_issuer(e->c);
    for (int k = 0; is && k < nkids; k++)
        if (!kir_append(a, kir_body(is), kids[k], is))
            return NULL;
    if (!is || !cond || val_is_const_eq(cond, 1))
        return is;
    kir_node *f = kir_new(a, KIR_IF);
    if (!f)
        return NULL;
    f->u.cond.cond = cond;
    return kir_append(a, &f->u.cond.body, is, f) ? f : NULL;
}

static const wf_val *and_cond(wf_arena *a, const wf_val *p, const wf_val *q) {
    return p && q ? val_and(a, p, q) : p ? p : q;
}

/* The load of iteration `it` into stage `stage`: s is the statement to fill (the
   original for the main loop, a new one for the prologue). */
static bool retarget(cb_env *e, kir_stmt *s, const wf_val *it, const wf_val *stage) {
    wf_arena *a = e->c->a;
    s->out_index =
        val_add(a, at(e->c, e->L, e->orig.out_index, it), val_mul(a, stage, e->stage_elems));
    for (int d = 0; d < s->hw.tma.rank; d++)
        if (!(s->hw.tma.coord[d] = at(e->c, e->L, e->orig.hw.tma.coord[d], it)))
            return false;
    s->hw.tma.mbar_off = stage;
    s->pred = at(e->c, e->L, e->orig.pred, it);
    s->in_index[0] = at(e->c, e->L, e->orig.in_index[0], it); /* printed, not used: coords are */
    return s->out_index && s->in_index[0];
}

/* `if (cond(it) && it < n) { issuer { arrive_tx(stage); load } }` into *out,
   or nothing (*out NULL) where that condition is always false. */
static bool issue(cb_env *e, kir_node *load, const wf_val *it, const wf_val *stage,
                  kir_node **out) {
    wf_arena *a = e->c->a;
    const wf_val *cond = and_cond(a, at(e->c, e->L, e->cond, it), val_lt(a, it, e->n));
    *out = NULL;
    if (!cond || val_is_const_eq(cond, 0))
        return cond != NULL;
    kir_node *tx = mbar_sync(e, KSYNC_MBAR_ARRIVE_TX, 0, stage);
    if (!tx || !retarget(e, &load->u.stmt, it, stage))
        return false;
    kir_node *kids[2] = {tx, load};
    for (int k = e->ninner - 1; k >= 0; k--) { /* each box of the stage */
        kir_node *l = kir_new(a, KIR_FOR);
        if (!l)
            return false;
        l->u.loop = e->inner[k]->u.loop;
        memset(&l->u.loop.body, 0, sizeof l->u.loop.body);
        if (!kir_append(a, &l->u.loop.body, kids[1], l))
            return false;
        kids[1] = l;
    }
    return (*out = guarded(e, cond, 2, kids)) != NULL;
}

static bool prologue(cb_env *e, kir_list *outer, int at_pos) {
    wf_arena *a = e->c->a;
    kir_node *inits[LOWER_TMA_MAX_STAGES];
    for (int s = 0; s < e->stages; s++)
        if (!(inits[s] = mbar_sync(e, KSYNC_MBAR_INIT, s, NULL)))
            return false;
    /* the barrier makes the initialization visible to whichever thread the next
       elections pick */
    kir_node *g = guarded(e, NULL, e->stages, inits), *sync = kir_new_sync(a, KSYNC_BLOCK);
    if (!g || !sync || !kir_insert(a, outer, at_pos++, g, e->L->parent) ||
        !kir_insert(a, outer, at_pos++, sync, e->L->parent))
        return false;
    for (int p = 0; p < e->stages - 1; p++) {
        kir_node *load = kir_new(a, KIR_STMT);
        if (!load)
            return false;
        load->u.stmt = e->orig;
        const wf_val *pv = val_const(a, p);
        kir_node *n;
        if (!issue(e, load, pv, pv, &n) || (n && !kir_insert(a, outer, at_pos++, n, e->L->parent)))
            return false;
    }
    return true;
}

static bool epilogue(cb_env *e, kir_list *outer, int at_pos) {
    kir_node *invals[LOWER_TMA_MAX_STAGES];
    for (int s = 0; s < e->stages; s++)
        if (!(invals[s] = mbar_sync(e, KSYNC_MBAR_INVAL, s, NULL)))
            return false;
    kir_node *g = guarded(e, NULL, e->stages, invals);
    return g && kir_insert(e->c->a, outer, at_pos, g, e->L->parent);
}

/* ---- asynchronous readers (wgmma) ---- */

static bool is_sync(const kir_node *n, kir_sync_kind k) {
    return n && n->kind == KIR_SYNC && n->u.sync.kind == k;
}

/* Does the subtree n touch tensor tv other than by wgmma? */
static bool touches_not_by_wgmma(const kir_node *n, const wf_tv *tv) {
    if (n->kind == KIR_STMT) {
        const kir_stmt *s = &n->u.stmt;
        if (s->mma == 2 || !s->op)
            return false;
        for (int q = 0; q < s->op->nin; q++)
            if (s->op->in[q] == tv)
                return true;
        return s->op->out == tv;
    }
    const kir_list *l = kir_body((kir_node *)n); /* loops, IFs, warp regions */
    for (int i = 0; l && i < l->n; i++)
        if (touches_not_by_wgmma(l->ptr[i], tv))
            return true;
    return false;
}

/* The wgmma.wait_group in L's body that may keep one group in flight: the
   one wait of L, after the wgmma that reads S, whose accumulator nothing
   else in L touches (it is read after L). NULL: L waits for every group. */
static kir_node *async_wait(cb_env *e, const wf_tv *S) {
    kir_list *body = kir_body(e->L);
    kir_node *wait = NULL;
    for (int i = 0; i < body->n; i++)
        if (is_sync(body->ptr[i], KSYNC_WGMMA_WAIT)) {
            if (wait)
                return NULL;
            wait = body->ptr[i];
        }
    const kir_stmt *mma = NULL;
    for (int k = 0; k < e->c->order.n && wait; k++) {
        const kir_stmt *s = e->c->stmt_of[k] ? &e->c->stmt_of[k]->u.stmt : NULL;
        if (s && s->mma == 2 && (s->hw.wg.smem[0] == S || s->hw.wg.smem[1] == S)) {
            if (mma)
                return NULL;
            mma = s;
        }
    }
    return mma && !touches_not_by_wgmma(e->L, mma->op->out) ? wait : NULL;
}

/* L's wait keeps a group in flight; a barrier at the end of L follows it
   and the loads go after both (main_loop); wait_group 0 after L. */
static bool pipeline_async(cb_env *e, kir_node *wait, kir_list *outer, int pos) {
    wf_arena *a = e->c->a;
    kir_list *body = kir_body(e->L);
    if (wait->u.sync.count == 1)
        return true; /* the other operand's circular buffer did it */
    wait->u.sync.count = 1;
    if (!is_sync(body->ptr[body->n - 1], KSYNC_BLOCK)) {
        kir_node *b = kir_new_sync(a, KSYNC_BLOCK);
        if (!b || !kir_append(a, body, b, e->L))
            return false;
    }
    kir_node *all = kir_new_sync(a, KSYNC_WGMMA_WAIT);
    return all && kir_insert(a, outer, pos + 1, all, e->L->parent);
}

/* `if (cond) wait` without the issuer: every thread waits on the mbarrier
   itself, so no barrier needs to publish the stage (drop_publish). */
static kir_node *every_thread(cb_env *e, kir_node *wait) {
    if (!e->cond || val_is_const_eq(e->cond, 1))
        return wait;
    kir_node *f = kir_new(e->c->a, KIR_IF);
    if (!f)
        return NULL;
    f->u.cond.cond = e->cond;
    return kir_append(e->c->a, &f->u.cond.body, wait, f) ? f : NULL;
}

/* Is n a wait on an mbarrier (under a condition) or wgmma.fence? */
static bool waits_only(const kir_node *n) {
    if (n->kind == KIR_IF) {
        for (int i = 0; i < n->u.cond.body.n; i++)
            if (!waits_only(n->u.cond.body.ptr[i]))
                return false;
        return true;
    }
    return is_sync(n, KSYNC_MBAR_WAIT) || is_sync(n, KSYNC_WGMMA_FENCE);
}

/* The sync pass's barrier that publishes the loaded stages, when every thread
   waits on their mbarriers before it and nothing else precedes it in L: the
   waits publish the stages, and the barrier would only stall. */
static void drop_publish(cb_env *e) {
    kir_list *body = kir_body(e->L);
    for (int i = 0; i < body->n; i++) {
        if (is_sync(body->ptr[i], KSYNC_BLOCK)) {
            memmove(&body->ptr[i], &body->ptr[i + 1],
                    sizeof *body->ptr * (size_t)(body->n - i - 1));
            body->n--;
            return;
        }
        if (!waits_only(body->ptr[i]))
            return;
    }
}

/* In L: the issue of iteration i + D - 1 and the wait for iteration i, where h was
   (the issue at L's end where the stage's readers are asynchronous). */
static bool main_loop(cb_env *e, kir_node *h, bool at_end) {
    wf_arena *a = e->c->a;
    kir_list *body = kir_body(e->L);
    int pos = 0;
    while (body->ptr[pos] != h)
        pos++;
    memmove(&body->ptr[pos], &body->ptr[pos + 1], sizeof *body->ptr * (size_t)(body->n - pos - 1));
    body->n--;
    const wf_val *D = val_const(a, e->stages);
    const wf_val *j = val_add(a, e->i, val_const(a, e->stages - 1));
    kir_node *wait = mbar_sync(e, KSYNC_MBAR_WAIT, 0, val_mod(a, e->i, D));
    if (!wait)
        return false;
    wait->u.sync.phase_val = val_div(a, e->i, D);
    kir_node *w = at_end ? every_thread(e, wait) : guarded(e, e->cond, 1, &wait);
    if (!w || !kir_insert(a, body, pos, w, e->L))
        return false;
    kir_node *load;
    if (!issue(e, e->stmt, j, val_mod(a, j, D), &load))
        return false;
    if (at_end)
        drop_publish(e);
    return !load || kir_insert(a, body, at_end ? body->n : pos, load, e->L);
}

/* Every statement reading S reads the stage of its iteration, i % D: its
   index, and an 8x8-matrix copy's row address too (the address its
   instruction takes, copy_ldmatrix.c; without the offset ldmatrix read stage
   0 in every iteration, and the executor reported the read of a stage still
   being loaded). */
static bool readers(cb_env *e, const wf_tv *S) {
    wf_arena *a = e->c->a;
    const wf_val *off = val_mul(a, val_mod(a, e->i, val_const(a, e->stages)), e->stage_elems);
    for (int k = 0; k < e->c->order.n; k++) {
        const ir_op *op = e->c->order.ptr[k];
        kir_stmt *s = e->c->stmt_of[k] ? &e->c->stmt_of[k]->u.stmt : NULL;
        for (int q = 0; s && q < op->nin; q++) {
            if (op->in[q] != S)
                continue;
            if (!(s->in_index[q] = val_add(a, s->in_index[q], off)))
                return false;
            if (lower_copy_matrix(op) && !(s->hw.ldm.row = val_add(a, s->hw.ldm.row, off)))
                return false;
        }
        /* wgmma reads S through its descriptors' start (lower/wgmma.c) */
        for (int j = 0; s && s->mma == 2 && j < 2; j++)
            if (s->hw.wg.smem[j] == S && !(s->hw.wg.start[j] = val_add(a, s->hw.wg.start[j], off)))
                return false;
    }
    return true;
}

/* The loop-invariant part of the load's predicate: what the predicate pass
   wrote without its one-thread terms (the issuer replaces them). */
static const wf_val *load_cond(lower_ctx *c, kir_node *stmt) {
    kir_node *p = stmt->parent;
    if (!p || p->kind != KIR_IF)
        return NULL;
    return lower_tma_uniform_cond(c, p->u.cond.cond);
}

/* Does v use loop variable var? */
static bool uses_var(const wf_val *v, const wf_val *var) {
    if (!v || v->kind == V_CONST)
        return false;
    if (v->kind == V_SYM)
        return v->sym == var->sym && v->sym_a == var->sym_a;
    return uses_var(v->a, var) || uses_var(v->b, var);
}

/* The conjuncts of the load's condition that hold for a whole stage: those
   that use no index of the loops between L and the load. The others bound
   single boxes, which TMA needs no guard for: a box past the tensor's end is
   zero-filled, and its bytes arrive all the same. */
static const wf_val *stage_cond(cb_env *e, const wf_val *p) {
    if (!p)
        return NULL;
    if (p->kind == V_AND) {
        const wf_val *x = stage_cond(e, p->a), *y = stage_cond(e, p->b);
        return and_cond(e->c->a, x, y);
    }
    for (int k = 0; k < e->ninner; k++)
        if (uses_var(p, e->inner[k]->u.loop.var))
            return NULL;
    return p;
}

/* Does the subtree n hold a statement other than stmt? */
static bool holds_other(const kir_node *n, const kir_node *stmt) {
    if (n == stmt)
        return false;
    const kir_list *l = n->kind == KIR_FOR  ? &n->u.loop.body
                        : n->kind == KIR_IF ? &n->u.cond.body
                                            : NULL;
    if (!l)
        return true;
    for (int i = 0; i < l->n; i++)
        if (holds_other(l->ptr[i], stmt))
            return true;
    return false;
}

/* The child of L's body that holds stmt, through IFs and loops; the serial
   loops on the way (several boxes per stage) go to e->inner, outer first. */
static kir_node *holder_in(cb_env *e, kir_node *stmt, const wf_tv *S) {
    lower_ctx *c = e->c;
    kir_node *h = stmt;
    e->ninner = 0;
    while (h->parent && h->parent != e->L) {
        kir_node *p = h->parent;
        if (p->kind == KIR_FOR && lower_pdim_index(p->u.loop.ptype) < 0 &&
            !val_is_const(p->u.loop.var)) {
            if (e->ninner == LOWER_CB_MAX_INNER || holds_other(p, stmt)) {
                sbuf b = {0};
                ir_print_id(&b, p->u.loop.id);
                err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                          "T%d: not supported yet: circular buffering with several boxes per "
                          "stage where the serial loop %s between T%d's inline position and its "
                          "TMA load %s; inline T%d deeper",
                          S->id, sbuf_str(&b), S->id,
                          e->ninner == LOWER_CB_MAX_INNER ? "is one of more than 8 such loops"
                                                          : "holds other statements too",
                          S->id);
                sbuf_free(&b);
                return NULL;
            }
            memmove(&e->inner[1], &e->inner[0], sizeof *e->inner * (size_t)e->ninner);
            e->inner[0] = p;
            e->ninner++;
        }
        h = h->parent;
    }
    return h->parent == e->L ? h : NULL;
}

bool lower_tma_cb_place(lower_ctx *c, kir_node *stmt, const lower_tma *m) {
    wf_tv *S = stmt->u.stmt.op->out;
    kir_node *L = c->group_loop[c->loops.group_of[S->loop.ptr[S->ca_pos - 1]->id]];
    kir_node *alloc = c->alloc_of[S->id];
    err_assert(&c->f->err, L && alloc && alloc->u.alloc.stage_elems); /* lower_tma_check_stages */
    if (!L || !alloc || !alloc->u.alloc.stage_elems)
        return false;
    if (lower_pdim_index(L->u.loop.ptype) >= 0 || L->u.loop.ptype == WF_BULK)
        return fail_loop(c, S, L->u.loop.id, "runs in parallel");
    cb_env e = {.c = c,
                .stmt = stmt,
                .L = L,
                .m = m,
                .stages = S->stages,
                .i = L->u.loop.var,
                .n = L->u.loop.extent,
                .stage_elems = alloc->u.alloc.stage_elems,
                .orig = stmt->u.stmt};
    kir_node *h = holder_in(&e, stmt, S);
    if (!h) {
        err_assert(&c->f->err, err_set(&c->f->err)); /* S's loops are inside L */
        return false;
    }
    e.cond = stage_cond(&e, load_cond(c, stmt));
    e.bytes = val_const(c->a, m->box_bytes);
    for (int k = 0; k < e.ninner; k++)
        e.bytes = val_mul(c->a, e.bytes, e.inner[k]->u.loop.extent);
    kir_list *outer = L->parent ? kir_body(L->parent) : &c->out->top;
    int pos = 0;
    while (outer->ptr[pos] != L)
        pos++;
    kir_node *wait = async_wait(&e, S);
    if (wait && !pipeline_async(&e, wait, outer, pos))
        return false;
    return readers(&e, S) && main_loop(&e, h, wait != NULL) &&
           epilogue(&e, outer, pos + (wait ? 2 : 1)) && prologue(&e, outer, pos);
}
