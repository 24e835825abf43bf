/*
 * cache.c -- cache_after and cache_before: insert a copy next to a tensor.
 *
 * cache_after(t) makes c = set(t) and redirects t's other uses to read c,
 * the usual way to stage an input through shared memory or registers.
 * cache_before(t) makes t's definition compute a new tensor c instead and
 * redefines t = set(c), so an output can be computed in registers and then
 * stored. The new tensor has fresh logical IDs and a local memory type.
 */
#include "sched/sched.h"

static wf_tv *clone_shape(wf_tv *tv) {
    int n = tv->logical.n;
    const wf_val **ext = ARENA_ARRAY(&tv->f->arena, const wf_val *, n > 0 ? n : 1);
    id_itype *it = ARENA_ARRAY(&tv->f->arena, id_itype, n > 0 ? n : 1);
    if (!ext || !it)
        return wf_fail(&tv->f->err, WF_ERR_MEMORY, "out of memory");
    for (int d = 0; d < tv->logical.n; d++) {
        ext[d] = tv->logical.ptr[d]->extent;
        it[d] = tv->logical.ptr[d]->itype;
    }
    return ir_tv_new(tv->f, tv->dtype, tv->logical.n, ext, it);
}

static bool identity_dims(ir_op *op, int n) {
    for (int d = 0; d < n; d++)
        op->in_dim[0][d] = d;
    return true;
}

wf_tv *sched_cache_after(wf_tv *tv) {
    wf_fusion *f = tv->f;
    int nuses = tv->uses.n;
    ir_op **old_uses = ARENA_ARRAY(&f->arena, ir_op *, nuses > 0 ? nuses : 1);
    if (!old_uses)
        return wf_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < nuses; i++)
        old_uses[i] = tv->uses.ptr[i];
    wf_tv *c = clone_shape(tv);
    ir_op *op = c ? ir_op_new(f, OP_SET, c, 1, &tv) : NULL;
    if (!op)
        return NULL;
    identity_dims(op, tv->logical.n);
    for (int i = 0; i < nuses; i++) {
        ir_op *u = old_uses[i];
        for (int k = 0; k < u->nin; k++)
            if (u->in[k] == tv)
                u->in[k] = c;
        ir_remove_use(tv, u);
        if (!ir_add_use(c, u))
            return wf_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    return c;
}

wf_tv *sched_cache_before(wf_tv *tv) {
    wf_fusion *f = tv->f;
    if (!tv->def)
        return wf_fail(&f->err, WF_ERR_ARG,
                       "cache_before(T%d): T%d has no definition (it is a fusion input)", tv->id,
                       tv->id);
    if (tv->ca_pos > 0 || tv->max_producer_pos > 0)
        return wf_fail(&f->err, WF_ERR_SCHEDULE,
                       "cache_before(T%d): call it before inlining T%d or its producers", tv->id,
                       tv->id);
    ir_op *def = tv->def;
    wf_tv *c = clone_shape(tv);
    if (!c)
        return NULL;
    def->out = c;
    c->def = def;
    ir_op *op = ir_op_new(f, OP_SET, tv, 1, &c);
    if (!op)
        return NULL;
    identity_dims(op, tv->logical.n);
    return c;
}
