/*
 * verify.c -- the kernel-IR verifier, run after every pass in test builds.
 *
 * It checks the invariants later passes and codegen rely on: parent links
 * match the tree, loops have an index and an extent, each tensor is
 * allocated before any statement touches it, statements are indexed once
 * the index pass ran, a statement's copy kind is its op's, and no block
 * barrier sits under an IF or WARP0 (threads that skip it would deadlock the
 * block); hardware statements of warp-collective kinds (tensor-memory
 * allocation) sit in a WARP0 region, and a WARP0 holds only those. A
 * violation is a bug in weft: err_assert.
 */
#include "lower/lower_int.h"

typedef struct {
    lower_ctx *c;
    char *allocated; /* per tensor id */
    bool ok;
} verifier;

static void verify_list(verifier *v, const kir_list *l, const kir_node *parent, bool under_if);

static void verify_stmt(verifier *v, const kir_stmt *s) {
    ir_op *op = s->op;
    wf_tv *out = op->out;
    if (out->mem != WF_MEM_GLOBAL && v->c->alloc_of[out->id] && !v->allocated[out->id])
        v->ok = false;
    for (int i = 0; i < (kir_red_no_input(s->red) ? 0 : op->nin); i++)
        if (!op->in[i]->is_input && v->c->alloc_of[op->in[i]->id] && !v->allocated[op->in[i]->id])
            v->ok = false;
    if (s->out_index && op->nin > 0 && !s->in_index[0] && !kir_red_no_input(s->red))
        v->ok = false;
    if (s->copy != op->ldst)
        v->ok = false;
}

/* Mbarrier operations name a barrier; init counts arrivals, tx kinds carry bytes. */
static void verify_sync(verifier *v, const kir_node *n, bool under_if) {
    const kir_sync *s = &n->u.sync;
    bool tx = s->kind == KSYNC_MBAR_ARRIVE_TX || s->kind == KSYNC_MBAR_COMPLETE_TX;
    if (s->kind == KSYNC_BLOCK && under_if)
        v->ok = false;
    bool mbar = kir_sync_uses_mbar(s->kind);
    if (mbar && s->mbar < 0)
        v->ok = false;
    if ((s->kind == KSYNC_MBAR_INIT && s->count <= 0) || (tx && !s->bytes))
        v->ok = false;
}

static bool warp_collective(kir_hw_kind k) {
    return k == KHW_TMEM_ALLOC || k == KHW_TMEM_RELINQUISH || k == KHW_TMEM_DEALLOC;
}

static void verify_hw(verifier *v, const kir_node *n) {
    const kir_hw *h = &n->u.hw;
    bool in_warp0 = n->parent && n->parent->kind == KIR_HW && n->parent->u.hw.kind == KHW_WARP0;
    if (warp_collective(h->kind) != in_warp0)
        v->ok = false;
    if (h->kind == KHW_TMEM_SLOTS && !h->offset)
        v->ok = false;
    if (h->kind == KHW_WARP0 || h->kind == KHW_ELECT)
        verify_list(v, &h->body, n, true);
}

static void verify_node(verifier *v, const kir_node *n, const kir_node *parent, bool under_if) {
    if (n->parent != parent)
        v->ok = false;
    switch (n->kind) {
    case KIR_FOR:
        if (!n->u.loop.var || !n->u.loop.extent)
            v->ok = false;
        verify_list(v, &n->u.loop.body, n, under_if);
        break;
    case KIR_IF:
        if (!n->u.cond.cond)
            v->ok = false;
        verify_list(v, &n->u.cond.body, n, true);
        break;
    case KIR_ALLOC:
        v->allocated[n->u.alloc.tv->id] = 1;
        break;
    case KIR_STMT:
        if (n->u.stmt.red >= KRED_BLOCK && under_if) /* a collective every thread reaches */
            v->ok = false;
        verify_stmt(v, &n->u.stmt);
        break;
    case KIR_SYNC:
        verify_sync(v, n, under_if);
        break;
    case KIR_HW:
        verify_hw(v, n);
        break;
    }
}

static void verify_list(verifier *v, const kir_list *l, const kir_node *parent, bool under_if) {
    for (int i = 0; i < l->n; i++)
        verify_node(v, l->ptr[i], parent, under_if);
}

bool lower_verify(lower_ctx *c) {
    verifier v = {c, ARENA_ARRAY(c->a, char, c->f->tvs.n + 1), true};
    if (!v.allocated)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    verify_list(&v, &c->out->top, NULL, false);
    err_assert(&c->f->err, v.ok);
    return v.ok;
}
