/*
 * partner.c -- may a producer's loop axis run in its consumer's loop?
 *
 * The consumer's own image of a producer loop ID through the op (its
 * partner: the logical ID the op's dim map gives, or the consumer's own
 * transform of the same kind and factor on the partners of its inputs,
 * forwarded through merges with axes of extent 1) is the one axis whose
 * loop the producer may share and still be read at the index it was
 * written at. An axis whose index is always 0 may share any permissively
 * mapped loop. The inlining rules (inline.c, inline_groups.c) ask this.
 */
#include "analysis/inline_int.h"

static bool index_zero(const wf_iterdomain *id) {
    return val_is_const_eq(id->extent, 1) && !id->loop_only; /* as analysis/idgraph.c's */
}

bool an_always_zero(const wf_iterdomain *id) {
    return id->itype == IT_BROADCAST || val_is_const_eq(id->extent, 1);
}

/* The merge of x with an axis whose index is always 0 that uses x, or NULL:
   merge(b{1}, x) iterates x (a broadcast's new axis merged in: forwarding). */
static const wf_iterdomain *trivial_merge_of(const wf_iterdomain *x) {
    for (int u = 0; u < x->uses.n; u++) {
        const id_transform *t = x->uses.ptr[u];
        if (t->kind == TF_MERGE && index_zero(t->in[t->in[0] == x ? 1 : 0]))
            return t->out[0];
    }
    return NULL;
}

static const wf_iterdomain *partner(const ir_op *op, const wf_iterdomain *id);

/* The consumer's transform like t on in0 (and in1), each forwarded through
   the consumer's trivial merges where no such transform uses it directly. */
static const wf_iterdomain *partner_of_transform(const id_transform *t, const wf_iterdomain *id,
                                                 const wf_iterdomain *in0,
                                                 const wf_iterdomain *in1) {
    for (int u = 0; u < in0->uses.n; u++) {
        const id_transform *ct = in0->uses.ptr[u];
        if (ct->kind != t->kind || ct->in[0] != in0 || (t->nin > 1 && ct->in[1] != in1) ||
            (t->kind == TF_SPLIT && (ct->factor != t->factor || ct->inner != t->inner)))
            continue;
        return ct->out[t->out[0] == id ? 0 : 1];
    }
    const wf_iterdomain *f0 = trivial_merge_of(in0), *f1 = in1 ? trivial_merge_of(in1) : NULL;
    const wf_iterdomain *r = f0 ? partner_of_transform(t, id, f0, in1) : NULL;
    return r || !f1 ? r : partner_of_transform(t, id, in0, f1);
}

/* The consumer's IterDomain that op makes of the producer's id: a logical ID
   through the op's dim map, a transformed one through the consumer's own
   transform of the same kind and factor on the partners of its inputs. NULL
   when the consumer did not transform alike. */
static const wf_iterdomain *partner(const ir_op *op, const wf_iterdomain *id) {
    const wf_tv *p = id->tv, *c = op->out;
    const id_transform *t = id->def;
    if (!t) {
        for (int k = 0; k < op->nin; k++)
            for (int d = 0; op->in[k] == p && d < c->logical.n; d++)
                if (op->in_dim[k][d] >= 0 && p->logical.ptr[op->in_dim[k][d]] == id)
                    return c->logical.ptr[d];
        return NULL;
    }
    const wf_iterdomain *in0 = partner(op, t->in[0]);
    const wf_iterdomain *in1 = t->nin > 1 ? partner(op, t->in[1]) : NULL;
    const wf_iterdomain *r =
        in0 && (t->nin == 1 || in1) ? partner_of_transform(t, id, in0, in1) : NULL;
    /* The producer's own trivial merge, where the consumer has none alike: a
       merge of an iteration axis with an axis whose index is always 0
       iterates the iteration axis, whose image is the merge's (a TensorIR
       block's extent-1 iter joins the dim next to it, vk in C_rf[vk, vi, vj]
       and vj in its reader's loops: fuzz -s 20261135 -c 88144). Not when
       both hold one value: merge(i{1}, bS{8}) of a broadcast split by 8 is
       an iteration axis of 8 whose index is not the loop's (the producer,
       put in its consumer's loop over bS{8}, was computed in the first
       iteration only: fuzz -s 20261128 -c 795514). */
    if (!r && t->kind == TF_MERGE && index_zero(t->in[1]) && !an_always_zero(t->in[0]))
        return in0;
    if (!r && t->kind == TF_MERGE && index_zero(t->in[0]) && !an_always_zero(t->in[1]))
        return in1;
    return r;
}

/* The consumer's image of producer loop ID p, forwarded through the
   consumer's trivial merges (merge(b{1}, I) is I's image). */
static bool partner_is(const ir_op *op, const wf_iterdomain *p, const wf_iterdomain *cid) {
    const wf_iterdomain *x = partner(op, p);
    for (int k = 0; x && k < 8; k++, x = trivial_merge_of(x))
        if (x == cid)
            return true;
    return false;
}

/* May producer loop ID p share its loop with consumer loop ID cid? An axis
   whose index is always 0 may sit in any permissively mapped loop (it is
   computed again in each iteration). Any other must be the consumer's own
   image of it through op: mapped only through other tensors (a broadcast
   chain makes the permissive map transitive), the consumer would read the
   producer's value of another iteration (fuzz -s 1000 -c 276730: T5 =
   broadcast(T3) read T3[0], computed for T7's loop i1, inside its own loop
   i2). */
bool an_shares_loop(an_idgraph *g, const ir_op *op, const wf_iterdomain *p,
                    const wf_iterdomain *cid) {
    bool zero = an_always_zero(p);
    /* A loop-only broadcast takes whatever loop its consumer has there (the
       consumers must agree: consumers_agree); a consumer's loop-only broadcast
       is a loop only producers that do not index it may share. */
    if (p->loop_only || cid->loop_only)
        return p->loop_only || zero;
    if (!an_mapped(&g->permissive, p, cid))
        return false;
    return zero || an_mapped(&g->exact, p, cid) || partner_is(op, p, cid);
}
