/*
 * inline.c -- how deep a tensor may be inlined, and the allocation rules.
 *
 * A producer can share its first p loops with every consumer when, for each
 * consumer, loop IDs 0..p-1 are mapped in order (permissively, so broadcast
 * producers can sit inside the loops of the dims they are broadcast to), and
 * none of them is a reduction or a vectorized, bulk or MMA axis. A
 * loop-only broadcast of the producer (sched/loopbc.c) shares whatever loop
 * its consumers have at its position, provided they all have the same one;
 * a consumer's loop-only broadcast only takes producer axes that index
 * nothing (broadcasts, extent 1). Fusion inputs are never inlined. The
 * allocation rules are seed 000's "Review of inlining and parallelization":
 * distributed -> never allocated, shared -> always allocated, otherwise
 * allocated only right of the compute-at position. Which axis of a consumer
 * a producer axis may share is partner.c's; the rules on the loops that
 * several tensors' positions make one, inline_groups.c's.
 */
#include "analysis/inline_int.h"

#include <stdio.h>

static bool stops_inlining(const wf_iterdomain *id) {
    return id->itype == IT_REDUCTION || id->ptype == WF_VECTORIZE || id->ptype == WF_BULK ||
           id->ptype == WF_MMA;
}

static int own_limit(const wf_tv *tv, char *why, size_t whysize) {
    for (int i = 0; i < tv->loop.n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i];
        if (stops_inlining(id)) {
            if (why)
                snprintf(why, whysize, "axis %d of T%d is %s", i, tv->id,
                         id->itype == IT_REDUCTION   ? "a reduction"
                         : id->ptype == WF_VECTORIZE ? "vectorized"
                                                     : "bulk or MMA");
            return i;
        }
    }
    return tv->loop.n;
}

/* The reason a producer axis that indexes its data cannot share a consumer's
   loop-only broadcast: the consumer has no such loop. */
static void loop_only_why(const wf_tv *tv, const wf_tv *c, int i, char *why, size_t whysize) {
    sbuf sp = {0}, sc = {0};
    ir_print_id(&sp, tv->loop.ptr[i]);
    ir_print_id(&sc, c->loop.ptr[i]);
    snprintf(why, whysize,
             "axis %d of T%d (%s) is a loop broadcast in its consumer T%d (%s), which iterates "
             "no loop there; give T%d a loop broadcast at %d too",
             i, tv->id, sbuf_str(&sp), c->id, sbuf_str(&sc), tv->id, i);
    sbuf_free(&sp);
    sbuf_free(&sc);
}

/* x or one of the IDs it was made from, other than mine and not a broadcast,
   exactly mapped to loop_id; NULL if none. */
static const wf_iterdomain *mapped_in_history(an_idgraph *g, const wf_iterdomain *x,
                                              const wf_iterdomain *mine,
                                              const wf_iterdomain *loop_id) {
    if (x != mine && x->itype != IT_BROADCAST && an_mapped(&g->exact, x, loop_id))
        return x;
    for (int k = 0; x->def && k < x->def->nin; k++) {
        const wf_iterdomain *y = mapped_in_history(g, x->def->in[k], mine, loop_id);
        if (y)
            return y;
    }
    return NULL;
}

const wf_iterdomain *an_own_id_mapped(an_idgraph *g, const wf_tv *tv, int i,
                                      const wf_iterdomain *loop_id) {
    const wf_iterdomain *mine = tv->loop.ptr[i];
    /* A loop-only broadcast takes its consumer's loop. On a thread or block
       position that loop is only a position (a cooperative fetch binds its own
       axes to the same threads); a loop that runs serially would iterate one of
       tv's own axes twice, once around tv (fuzz -s 777 -c 836191: tv's
       producer was placed in that loop and tv read cells not yet written). */
    ir_ptype_kind where = ir_ptype(loop_id->ptype)->kind;
    if (mine->loop_only && (where == IR_PT_THREAD || where == IR_PT_BLOCK))
        return NULL;
    if (!an_always_zero(mine) || an_mapped(&g->exact, mine, loop_id))
        return NULL;
    for (int k = 0; k < tv->logical.n; k++) {
        const wf_iterdomain *x = mapped_in_history(g, tv->logical.ptr[k], mine, loop_id);
        if (x)
            return x;
    }
    for (int k = 0; k < tv->loop.n; k++) {
        const wf_iterdomain *x = mapped_in_history(g, tv->loop.ptr[k], mine, loop_id);
        if (x)
            return x;
    }
    return NULL;
}

static int consumer_limit(an_idgraph *g, const wf_tv *tv, const ir_op *op, int limit, char *why,
                          size_t whysize) {
    const wf_tv *c = op->out;
    for (int i = 0; i < limit; i++) {
        const wf_iterdomain *p = tv->loop.ptr[i];
        if (i < c->loop.n && c->loop.ptr[i]->loop_only &&
            !an_shares_loop(g, op, p, c->loop.ptr[i])) {
            if (why)
                loop_only_why(tv, c, i, why, whysize);
            return i;
        }
        bool one = i < c->loop.n && val_is_const_eq(p->extent, 1) &&
                   val_is_const_eq(c->loop.ptr[i]->extent, 1);
        if (i >= c->loop.n || (!one && !an_shares_loop(g, op, p, c->loop.ptr[i]))) {
            if (why)
                snprintf(why, whysize,
                         "axis %d of T%d is not mapped to axis %d of its consumer T%d", i, tv->id,
                         i, c->id);
            return i;
        }
        const wf_iterdomain *own = an_own_id_mapped(g, tv, i, c->loop.ptr[i]);
        /* a loop of one iteration has one index, 0, whatever it stands for */
        if (own && val_is_const_eq(c->loop.ptr[i]->extent, 1) && val_is_const_eq(own->extent, 1))
            own = NULL;
        if (own) {
            if (why) {
                sbuf sp = {0}, so = {0};
                ir_print_id(&sp, p);
                ir_print_id(&so, own);
                snprintf(why, whysize,
                         "axis %d of T%d (%s) would run in the loop of axis %d of its consumer "
                         "T%d, which is exactly mapped to T%d's own %s: one loop index cannot "
                         "stand for both",
                         i, tv->id, sbuf_str(&sp), i, c->id, tv->id, sbuf_str(&so));
                sbuf_free(&sp);
                sbuf_free(&so);
            }
            return i;
        }
        /* A consumer's reduction axis can be shared: the producer is computed
           per step of the reduction (only the producer's own reductions stop). */
        if (c->loop.ptr[i]->itype != IT_REDUCTION && stops_inlining(c->loop.ptr[i])) {
            if (why)
                snprintf(why, whysize, "axis %d of consumer T%d cannot be shared", i, c->id);
            return i;
        }
        wf_ptype pp = p->ptype, cp = c->loop.ptr[i]->ptype;
        if (pp != cp && pp != WF_SERIAL && cp != WF_SERIAL) {
            if (why)
                snprintf(why, whysize,
                         "axis %d is parallelized on %s in T%d but on %s in its consumer T%d", i,
                         ir_ptype_name(pp), tv->id, ir_ptype_name(cp), c->id);
            return i;
        }
    }
    return limit;
}

/* Is a and b one loop for every consumer sharing a producer's loop-only
   broadcast: mapped, or both only ever at index 0? */
static bool same_loop(an_idgraph *g, const wf_iterdomain *a, const wf_iterdomain *b) {
    return (an_always_zero(a) && an_always_zero(b)) ||
           (!a->loop_only && !b->loop_only && an_mapped(&g->permissive, a, b));
}

/* A loop-only broadcast maps to nothing, so nothing else makes the loops of
   two consumers at its position one loop; inlined there, it would make them
   one (an_loops_unite): they must already be the same loop. */
static int consumers_agree(an_idgraph *g, const wf_tv *tv, int limit, char *why, size_t whysize) {
    for (int i = 0; i < limit; i++) {
        if (!tv->loop.ptr[i]->loop_only)
            continue;
        const wf_tv *c0 = tv->uses.ptr[0]->out;
        for (int u = 1; u < tv->uses.n; u++) {
            const wf_tv *c = tv->uses.ptr[u]->out;
            if (same_loop(g, c0->loop.ptr[i], c->loop.ptr[i]))
                continue;
            if (why) {
                sbuf sp = {0}, sa = {0}, sb = {0};
                ir_print_id(&sp, tv->loop.ptr[i]);
                ir_print_id(&sa, c0->loop.ptr[i]);
                ir_print_id(&sb, c->loop.ptr[i]);
                snprintf(why, whysize,
                         "axis %d of T%d is the loop broadcast %s, but its consumers T%d and T%d "
                         "have different loops there (%s and %s)",
                         i, tv->id, sbuf_str(&sp), c0->id, c->id, sbuf_str(&sa), sbuf_str(&sb));
                sbuf_free(&sp);
                sbuf_free(&sa);
                sbuf_free(&sb);
            }
            return i;
        }
    }
    return limit;
}

/* A loop holding a consumer's reduction axis runs the reduction once per
   iteration: every consumer sharing it must iterate that very axis (exactly
   mapped). A broadcast axis reduced by one consumer (extent 1) and resolved
   to 32 by another made one loop of 32 that summed the one value 32 times
   (fuzz -s 1 -c 140743). */
static int reductions_agree(an_idgraph *g, const wf_tv *tv, int limit, char *why, size_t whysize) {
    for (int i = 0; i < limit; i++)
        for (int u = 0; u < tv->uses.n; u++) {
            const wf_tv *r = tv->uses.ptr[u]->out;
            const wf_iterdomain *rid = r->loop.ptr[i];
            if (rid->itype != IT_REDUCTION)
                continue;
            for (int v = 0; v < tv->uses.n; v++) {
                const wf_tv *c = tv->uses.ptr[v]->out;
                if (c == r || an_mapped(&g->exact, rid, c->loop.ptr[i]))
                    continue;
                if (why) {
                    sbuf sr = {0}, sc = {0};
                    ir_print_id(&sr, rid);
                    ir_print_id(&sc, c->loop.ptr[i]);
                    snprintf(why, whysize,
                             "axis %d of T%d would make one loop of the reduction axis %s of T%d "
                             "and axis %s of T%d, which it does not reduce: the reduction would "
                             "run again in every iteration",
                             i, tv->id, sbuf_str(&sr), r->id, sbuf_str(&sc), c->id);
                    sbuf_free(&sr);
                    sbuf_free(&sc);
                }
                return i;
            }
        }
    return limit;
}

int an_max_inline_pos(an_idgraph *g, const wf_tv *tv, char *why, size_t whysize) {
    if (why && whysize)
        why[0] = 0;
    if (tv->is_input) {
        if (why)
            snprintf(why, whysize, "T%d is a fusion input, and inputs are not inlined", tv->id);
        return 0;
    }
    int limit = own_limit(tv, why, whysize);
    for (int u = 0; u < tv->uses.n; u++)
        limit = consumer_limit(g, tv, tv->uses.ptr[u], limit, why, whysize);
    if (tv->uses.n > 1)
        limit = reductions_agree(g, tv, consumers_agree(g, tv, limit, why, whysize), why, whysize);
    return an_group_limit(g, tv, limit, why, whysize);
}

bool an_mem_distributed(wf_memtype m, wf_ptype p) {
    bool tid = ir_id_is_thread(p), bid = ir_id_is_block(p);
    switch (m) {
    case WF_MEM_LOCAL:
        return tid || bid;
    case WF_MEM_SHARED:
    case WF_MEM_TENSOR:
        return bid;
    default:
        return false;
    }
}

bool an_mem_shared(wf_memtype m, wf_ptype p) {
    bool tid = ir_id_is_thread(p), bid = ir_id_is_block(p);
    switch (m) {
    case WF_MEM_SHARED:
    case WF_MEM_TENSOR:
        return tid;
    case WF_MEM_GLOBAL:
        return tid || bid;
    default:
        return false;
    }
}
