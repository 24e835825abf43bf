/*
 * inline.c -- compute-at positions: inline_at, inline_most, inline_all_at.
 *
 * A position is legal up to an_max_inline_pos (analysis/inline.c). Setting a
 * producer's position also records, on each consumer, the deepest position a
 * producer is inlined at (max_producer_pos): those consumer axes are shared
 * loops and may no longer be transformed.
 */
#include "sched/sched.h"

#include <stdio.h>

/* Each consumer's max_producer_pos is the deepest position of its producers,
   recomputed (not only raised) so that moving a producer's position back,
   down to 0, frees the consumer's axes again. */
void sched_update_consumers(wf_tv *tv) {
    for (int u = 0; u < tv->uses.n; u++) {
        wf_tv *c = tv->uses.ptr[u]->out;
        c->max_producer_pos = 0;
        for (int k = 0; k < c->def->nin; k++)
            if (c->def->in[k]->ca_pos > c->max_producer_pos)
                c->max_producer_pos = c->def->in[k]->ca_pos;
    }
}

static bool inline_with(an_idgraph *g, wf_tv *tv, int pos, bool best_effort) {
    char why[256];
    int max = an_max_inline_pos(g, tv, why, sizeof why);
    if (pos > max) {
        if (!best_effort)
            return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                             "T%d.inline_at(%d): position %d is beyond the maximum inline position "
                             "%d: %s",
                             tv->id, pos, pos, max, why);
        pos = max;
    }
    if (tv->is_input)
        return true;
    tv->ca_pos = pos;
    sched_update_consumers(tv);
    return true;
}

static bool with_graph(wf_fusion *f, bool (*fn)(an_idgraph *, void *), void *arg) {
    wf_arena scratch;
    arena_init(&scratch);
    an_idgraph g;
    bool ok = an_idgraph_build(&g, f, &scratch) && fn(&g, arg);
    arena_free(&scratch);
    return ok;
}

typedef struct {
    wf_tv *tv;
    int pos;
} inline_req;

static bool do_inline_at(an_idgraph *g, void *arg) {
    inline_req *r = arg;
    return inline_with(g, r->tv, r->pos, false);
}

bool sched_inline_at(wf_tv *tv, int pos) {
    inline_req r = {tv, pos};
    return with_graph(tv->f, do_inline_at, &r);
}

/* Best-effort positions for every tensor, toward target(tv), in tensor
   order. A position can be refused for the positions the later tensors do
   not have yet: a loop holding a reduction's input and its reader is
   orderable once the reduction's own loops join it (analysis/inline.c,
   loop_order_limit). So after the first pass (which sets each position,
   lowering it if need be), passes that only raise positions run until none
   rises; each raise is checked as the first pass's were. */
static bool inline_passes(an_idgraph *g, wf_fusion *f, int (*target)(an_idgraph *, wf_tv *, void *),
                          void *arg) {
    bool changed = true;
    for (int pass = 0; changed && pass <= f->tvs.n; pass++) {
        changed = false;
        for (int i = 0; i < f->tvs.n; i++) {
            wf_tv *tv = f->tvs.ptr[i];
            int want = target(g, tv, arg), was = tv->ca_pos;
            if (pass > 0 && (tv->is_input || want <= was))
                continue;
            if (pass > 0) {
                int max = an_max_inline_pos(g, tv, NULL, 0);
                if (max <= was)
                    continue;
            }
            if (!inline_with(g, tv, want, true))
                return false;
            changed |= pass > 0 && tv->ca_pos > was;
        }
        if (pass == 0)
            changed = true;
    }
    return true;
}

static int whole(an_idgraph *g, wf_tv *tv, void *arg) {
    (void)g, (void)arg;
    return tv->loop.n;
}

static bool do_inline_most(an_idgraph *g, void *arg) {
    return inline_passes(g, arg, whole, NULL);
}

bool sched_inline_most(wf_fusion *f) {
    return with_graph(f, do_inline_most, f);
}

/* The number of leading loop axes of tv that map to one of ref's first pos axes. */
static int mapped_prefix(an_idgraph *g, const wf_tv *tv, const wf_tv *ref, int pos) {
    int k = 0;
    while (k < tv->loop.n) {
        bool found = false;
        for (int r = 0; r < pos && !found; r++)
            found = an_mapped(&g->permissive, tv->loop.ptr[k], ref->loop.ptr[r]);
        if (!found)
            break;
        k++;
    }
    return k;
}

static int all_at(an_idgraph *g, wf_tv *tv, void *arg) {
    inline_req *r = arg;
    return tv == r->tv ? r->pos : mapped_prefix(g, tv, r->tv, r->pos);
}

static bool do_inline_all_at(an_idgraph *g, void *arg) {
    return inline_passes(g, ((inline_req *)arg)->tv->f, all_at, arg);
}

bool sched_inline_all_at(wf_tv *ref, int pos) {
    inline_req r = {ref, pos};
    return with_graph(ref->f, do_inline_all_at, &r);
}
