/*
 * inline.c -- how deep a tensor may be inlined, and the allocation rules.
 *
 * A producer can share its first p loops with every consumer when, for each
 * consumer, loop IDs 0..p-1 are mapped in order (permissively, so broadcast
 * producers can sit inside the loops of the dims they are broadcast to), and
 * none of them is a reduction or a vectorized, bulk or MMA axis. Fusion
 * inputs are never inlined. The allocation rules are seed 000's "Review of
 * inlining and parallelization": distributed -> never allocated, shared ->
 * always allocated, otherwise allocated only right of the compute-at position.
 */
#include "analysis/analysis.h"

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

static int consumer_limit(an_idgraph *g, const wf_tv *tv, const wf_tv *c, int limit, char *why,
                          size_t whysize) {
    for (int i = 0; i < limit; i++) {
        const wf_iterdomain *p = tv->loop.ptr[i];
        if (i >= c->loop.n || !an_mapped(&g->permissive, p, c->loop.ptr[i])) {
            if (why)
                snprintf(why, whysize,
                         "axis %d of T%d is not mapped to axis %d of its consumer T%d", i, tv->id,
                         i, c->id);
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
        limit = consumer_limit(g, tv, tv->uses.ptr[u]->out, limit, why, whysize);
    return limit;
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
