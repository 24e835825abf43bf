/*
 * loopgraph.c -- loop groups and loop promotion (nvFuser's IdModel LOOP
 * graph, in small).
 *
 * A loop group is a set of loop IterDomains, of different tensors, that
 * inlining makes one loop: a producer's loop IDs left of its compute-at
 * position are the loops of its consumers at the same positions (the check
 * pass has made sure that they are permissively mapped). The groups live in
 * the one union-find of analysis (an_map).
 *
 * Each group gets a promoted IterDomain, the member its loop iterates: one
 * with a resolved extent. A producer inlined into a loop where its consumer
 * resolves a broadcast (bS2{1} in T1, iS5{8} in T2) runs 8 times, not once.
 * The promoted member is the one of the tensor latest in execution order,
 * preferring members that are not broadcast: a consumer is computed after
 * its producers, so it is the one that has seen every broadcast resolved.
 * Promotion needs the execution order (lower/sort.c computes it from the
 * groups), hence two steps: an_loops_unite, then an_loops_promote.
 */
#include "analysis/analysis.h"

bool an_loops_unite(an_loopgraph *lg, wf_fusion *f, ir_op *const *ops, int n, wf_arena *a) {
    memset(lg, 0, sizeof *lg);
    if (!an_map_init(&lg->map, f->ids.n, a))
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int k = 0; k < n; k++) {
        wf_tv *p = ops[k]->out;
        for (int u = 0; u < p->uses.n; u++) {
            wf_tv *con = p->uses.ptr[u]->out;
            for (int i = 0; i < p->ca_pos && i < con->loop.n; i++)
                an_unite(&lg->map, p->loop.ptr[i]->id, con->loop.ptr[i]->id);
        }
    }
    return true;
}

/* May `id` replace `cur` as its group's promoted ID, coming later in
   execution order? Yes unless it would trade a resolved extent for a
   broadcast one. */
static bool promotes(const wf_iterdomain *cur, const wf_iterdomain *id) {
    return !cur || id->itype != IT_BROADCAST || cur->itype == IT_BROADCAST;
}

bool an_loops_promote(an_loopgraph *lg, wf_fusion *f, ir_op *const *order, int n, wf_arena *a) {
    lg->group_of = ARENA_ARRAY(a, int, f->ids.n + 1);
    lg->promoted = ARENA_ARRAY(a, wf_iterdomain *, f->ids.n + 1);
    if (!lg->group_of || !lg->promoted)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < f->ids.n; i++)
        lg->group_of[i] = -1;
    lg->ngroups = 0;
    for (int k = 0; k < n; k++) {
        wf_tv *t = order[k]->out;
        for (int i = 0; i < t->loop.n; i++) {
            wf_iterdomain *id = t->loop.ptr[i];
            int root = an_find(&lg->map, id->id);
            if (lg->group_of[root] < 0)
                lg->group_of[root] = lg->ngroups++;
            int g = lg->group_of[root];
            lg->group_of[id->id] = g;
            if (promotes(lg->promoted[g], id))
                lg->promoted[g] = id;
        }
    }
    return true;
}
