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

/* A fresh tensor shaped like tv: all its logical dims, or (for a tensor
   reading it) only those that are not reductions, which hold no data. */
static wf_tv *clone_shape(wf_tv *tv, bool all) {
    int n = all ? tv->logical.n : ir_tv_rank(tv);
    const wf_val **ext = ARENA_ARRAY(&tv->f->arena, const wf_val *, n > 0 ? n : 1);
    id_itype *it = ARENA_ARRAY(&tv->f->arena, id_itype, n > 0 ? n : 1);
    if (!ext || !it)
        return err_fail(&tv->f->err, WF_ERR_MEMORY, "out of memory");
    for (int d = 0; d < n; d++) {
        const wf_iterdomain *id = tv->logical.ptr[all ? d : ir_tv_dim(tv, d)];
        ext[d] = id->extent;
        it[d] = id->itype;
    }
    return ir_tv_new(tv->f, tv->dtype, n, ext, it);
}

/* A copy reads the dims of its input that are not reductions, in order. */
static bool identity_dims(ir_op *op, int n) {
    for (int d = 0; d < n; d++)
        op->in_dim[0][d] = ir_tv_dim(op->in[0], d);
    return true;
}

/* A reader of tv (operand k) now reads its cache c, whose logical domain is
   tv's without the reductions: the positions the reader names (tv's
   logical positions, in_dim) become c's, the count of tv's non-reduction
   dims before them. A reader never reads a reduction dim (it holds no data). */
static void reader_dims(ir_op *u, int k, const wf_tv *tv) {
    for (int d = 0; d < u->out->logical.n; d++) {
        int s = u->in_dim[k][d], to = -1;
        if (s >= 0 && s < tv->logical.n && tv->logical.ptr[s]->itype != IT_REDUCTION) {
            to = 0;
            for (int j = 0; j < s; j++)
                to += tv->logical.ptr[j]->itype != IT_REDUCTION;
        }
        u->in_dim[k][d] = to;
    }
}

/* tv becomes a copy of a reduction computed by its cache: its reduction IDs
   (and loop axes derived from them) go; its consumers follow. */
static bool drop_reductions(wf_tv *tv) {
    id_list logical = {0}, loop = {0};
    for (int d = 0; d < tv->logical.n; d++)
        if (tv->logical.ptr[d]->itype != IT_REDUCTION &&
            !ir_push_id(tv->f, &logical, tv->logical.ptr[d]))
            return false;
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->itype != IT_REDUCTION && !ir_push_id(tv->f, &loop, tv->loop.ptr[i]))
            return false;
    return ir_relogical(tv, &logical, &loop);
}

/* An rfactor producer's consumer reads its partial results from its loop IDs
   (iteration IDs made from its logical reduction IDs). A copy holds only
   logical dims, and the cache of its definition would start again from the
   logical domain, reducing the partials too: both would count the partials
   again, so both caches are refused. Caching the reduction before
   rfactoring it works (the cache is then the tensor rfactored). */
static bool refuse_rfactor_producer(wf_tv *tv, const char *what) {
    const ir_op *op = sched_rfactor_reader(tv);
    if (!op)
        return true;
    sbuf b = {0};
    for (int d = 0; d < op->out->logical.n; d++)
        if (op->in_dim[0][d] < 0 && op->rf_in[d]) {
            sbuf_puts(&b, b.len ? ", " : "");
            ir_print_id(&b, op->rf_in[d]);
        }
    err_failb(&tv->f->err, WF_ERR_UNSUPPORTED,
              "%s(T%d): not supported yet: T%d is an rfactor producer (wf_tv_rfactor) and T%d "
              "reads its partial results from its loop axes %s, which a cache would not keep; "
              "call %s on the reduction before rfactoring it",
              what, tv->id, tv->id, op->out->id, sbuf_str(&b), what);
    sbuf_free(&b);
    return false;
}

wf_tv *sched_cache_after(wf_tv *tv) {
    wf_fusion *f = tv->f;
    if (!refuse_rfactor_producer(tv, "cache_after"))
        return NULL;
    int nuses = tv->uses.n;
    ir_op **old_uses = ARENA_ARRAY(&f->arena, ir_op *, nuses > 0 ? nuses : 1);
    if (!old_uses)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < nuses; i++)
        old_uses[i] = tv->uses.ptr[i];
    wf_tv *c = clone_shape(tv, false);
    ir_op *op = c ? ir_op_new(f, OP_SET, c, 1, &tv) : NULL;
    if (!op)
        return NULL;
    identity_dims(op, c->logical.n);
    for (int i = 0; i < nuses; i++) {
        ir_op *u = old_uses[i];
        for (int k = 0; k < u->nin; k++)
            if (u->in[k] == tv) {
                u->in[k] = c;
                reader_dims(u, k, tv);
            }
        ir_remove_use(tv, u);
        if (!ir_add_use(c, u))
            return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    return c;
}

wf_tv *sched_cache_before(wf_tv *tv) {
    wf_fusion *f = tv->f;
    if (!tv->def)
        return err_fail(&f->err, WF_ERR_ARG,
                        "cache_before(T%d): T%d has no definition (it is a fusion input)", tv->id,
                        tv->id);
    if (!refuse_rfactor_producer(tv, "cache_before"))
        return NULL;
    if (tv->ca_pos > 0 || tv->max_producer_pos > 0)
        return err_fail(&f->err, WF_ERR_SCHEDULE,
                        "cache_before(T%d): call it before inlining T%d or its producers", tv->id,
                        tv->id);
    ir_op *def = tv->def;
    wf_tv *c = clone_shape(tv, true);
    if (!c)
        return NULL;
    def->out = c;
    c->def = def;
    if (def->kind == OP_REDUCE && !drop_reductions(tv))
        return NULL;
    ir_op *op = ir_op_new(f, OP_SET, tv, 1, &c);
    if (!op)
        return NULL;
    identity_dims(op, tv->logical.n);
    return c;
}
