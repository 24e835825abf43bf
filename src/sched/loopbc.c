/*
 * loopbc.c -- loop-domain broadcast IterDomains (nvFuser's TensorView::broadcast on the
 * loop domain).
 *
 * A producer with fewer dimensions than its consumer (A[i, k] read as [i, (j), k] by a
 * matmul) cannot share the consumer's loops past the j loop: position by position, its
 * loop IDs must be the consumer's. A loop-only broadcast ID fills the gap: an ID of
 * extent 1 that no logical domain holds and no op maps, inserted into the producer's
 * loop domain where the consumer has the loop the producer lacks. Inlined past it
 * (analysis/inline.c says when that is safe), the producer is computed once per
 * iteration of that consumer loop; its index does not depend on the loop (lower/index.c
 * does not seed it), it is allocated without it (lower/alloc.c does not promote it),
 * and on a parallel loop one thread writes (lower/predicate.c) unless the producer's
 * own axes are bound to that thread dimension: TVM's cooperative fetch into shared
 * memory, where the consumer's thread loop is then just a position.
 * Requires: a tensor that is not a fusion input, pos not left of a shared position.
 */
#include "sched/sched.h"

bool sched_loop_broadcast(wf_tv *tv, int pos) {
    wf_fusion *f = tv->f;
    if (tv->is_input)
        return err_failb(&f->err, WF_ERR_ARG,
                         "T%d.loop_broadcast(%d): T%d is a fusion input, which is never inlined, "
                         "so a loop broadcast would share no loop; add it to a tensor that reads "
                         "T%d (or to a cache of it, wf_cache_after)",
                         tv->id, pos, tv->id, tv->id);
    int shared = tv->ca_pos > tv->max_producer_pos ? tv->ca_pos : tv->max_producer_pos;
    if (pos < shared)
        return err_failb(&f->err, WF_ERR_SCHEDULE,
                         "T%d.loop_broadcast(%d): position %d is left of position %d, up to which "
                         "T%d's loops are shared with %s; add loop broadcasts before inlining",
                         tv->id, pos, pos, shared, tv->id,
                         tv->ca_pos >= tv->max_producer_pos ? "its consumers" : "a producer");
    wf_iterdomain *id = ir_id_new(f, tv, val_const(&f->arena, 1), IT_BROADCAST);
    if (!id)
        return false;
    id->loop_only = true;
    id_list next = {0};
    bool ok = true;
    for (int i = 0; ok && i <= tv->loop.n; i++) {
        if (i == pos)
            ok = ir_push_id(f, &next, id);
        if (ok && i < tv->loop.n)
            ok = ir_push_id(f, &next, tv->loop.ptr[i]);
    }
    if (ok)
        tv->loop = next;
    return ok;
}

/* The loop-only broadcast that id is, or is made from by splits and merges; NULL
   if none. */
static const wf_iterdomain *loop_broadcast_source(const wf_iterdomain *id) {
    if (id->loop_only)
        return id;
    for (int k = 0; id->def && k < id->def->nin; k++) {
        const wf_iterdomain *s = loop_broadcast_source(id->def->in[k]);
        if (s)
            return s;
    }
    return NULL;
}

bool sched_check_no_loop_broadcast(wf_tv *tv, const char *what) {
    for (int i = 0; i < tv->loop.n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i], *src = loop_broadcast_source(id);
        if (!src)
            continue;
        sbuf b = {0}, m = {0};
        ir_print_id(&b, src);
        if (src == id) {
            err_failb(&tv->f->err, WF_ERR_UNSUPPORTED,
                      "T%d.%s: not supported yet: axis %d of T%d is the loop broadcast %s, which "
                      "no logical IterDomain derives; %s before adding loop broadcasts",
                      tv->id, what, i, tv->id, sbuf_str(&b), what);
        } else { /* merged with another axis (and split): the same, one step removed */
            ir_print_id(&m, id);
            err_failb(&tv->f->err, WF_ERR_UNSUPPORTED,
                      "T%d.%s: not supported yet: axis %d of T%d (%s) is made from the loop "
                      "broadcast %s, which no logical IterDomain derives; %s before adding loop "
                      "broadcasts",
                      tv->id, what, i, tv->id, sbuf_str(&m), sbuf_str(&b), what);
        }
        sbuf_free(&b);
        sbuf_free(&m);
        return false;
    }
    return true;
}
