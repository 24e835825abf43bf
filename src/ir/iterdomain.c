/*
 * iterdomain.c -- IterDomains and the transforms that relate them.
 *
 * A transform is a node with inputs and outputs: split (one input, outer and
 * inner outputs; an inner split's factor is the inner extent, an outer
 * split's factor the outer extent), merge (outer, inner -> one output) and
 * XOR swizzle ((x, y) -> (x, x ^ y)). Outputs are new IterDomains; inputs
 * keep a list of their uses so that graphs can be walked both ways.
 */
#include "ir/ir.h"

#include <stdio.h>

static bool oom(wf_fusion *f) {
    return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
}

wf_iterdomain *ir_id_new(wf_fusion *f, wf_tv *tv, const wf_val *extent, id_itype it) {
    wf_iterdomain *id = ARENA_NEW(&f->arena, wf_iterdomain);
    if (!id || !extent) {
        oom(f);
        return NULL;
    }
    id->id = f->ids.n;
    if (!vec_push_arena(&f->arena, &f->ids, id)) {
        oom(f);
        return NULL;
    }
    id->extent = extent;
    id->itype = it;
    id->ptype = WF_SERIAL;
    id->tv = tv;
    return id;
}

static id_transform *new_transform(wf_fusion *f, tf_kind k, int nin, wf_iterdomain *in0,
                                   wf_iterdomain *in1) {
    id_transform *t = ARENA_NEW(&f->arena, id_transform);
    if (!t) {
        oom(f);
        return NULL;
    }
    t->id = f->transforms.n;
    if (!vec_push_arena(&f->arena, &f->transforms, t)) {
        oom(f);
        return NULL;
    }
    t->kind = k;
    t->nin = nin;
    t->in[0] = in0;
    t->in[1] = in1;
    for (int i = 0; i < nin; i++) {
        if (!vec_push_arena(&f->arena, &t->in[i]->uses, t)) {
            oom(f);
            return NULL;
        }
    }
    return t;
}

/* The iteration type of an output: broadcast only if every input is. */
static id_itype out_itype(const id_transform *t) {
    id_itype it = t->in[0]->itype;
    if (t->nin == 2 && t->in[1]->itype != it)
        it = (it == IT_REDUCTION || t->in[1]->itype == IT_REDUCTION) ? IT_REDUCTION : IT_ITER;
    return it;
}

id_transform *ir_split(wf_fusion *f, wf_iterdomain *in, int64_t factor, bool inner) {
    id_transform *t = new_transform(f, TF_SPLIT, 1, in, NULL);
    if (!t)
        return NULL;
    wf_arena *a = &f->arena;
    const wf_val *fv = val_const(a, factor);
    const wf_val *rest = val_ceildiv(a, in->extent, fv);
    t->factor = factor;
    t->inner = inner;
    t->divisible = val_is_const(in->extent) && in->extent->c % factor == 0;
    t->nout = 2;
    t->out[0] = ir_id_new(f, in->tv, inner ? rest : fv, in->itype);
    t->out[1] = ir_id_new(f, in->tv, inner ? fv : rest, in->itype);
    if (!t->out[0] || !t->out[1])
        return NULL;
    t->out[0]->def = t->out[1]->def = t;
    return t;
}

/* A merge of two constant extents whose product overflows int64 would get an
   unfolded (so "symbolic") extent and wrap at run time: refuse it. */
static bool merge_fits(wf_fusion *f, const wf_iterdomain *outer, const wf_iterdomain *inner) {
    int64_t eo = ir_id_const_extent(outer), ei = ir_id_const_extent(inner), prod;
    if (eo < 0 || ei < 0 || !__builtin_mul_overflow(eo, ei, &prod))
        return true;
    sbuf a = {0}, b = {0};
    ir_print_id(&a, outer);
    ir_print_id(&b, inner);
    err_failb(&f->err, WF_ERR_ARG,
              "T%d.merge: merging %s and %s gives %lld x %lld elements, more than a 64-bit "
              "extent holds; no tensor has that many elements",
              outer->tv ? outer->tv->id : -1, sbuf_str(&a), sbuf_str(&b), (long long)eo,
              (long long)ei);
    sbuf_free(&a);
    sbuf_free(&b);
    return false;
}

id_transform *ir_merge(wf_fusion *f, wf_iterdomain *outer, wf_iterdomain *inner) {
    if (!merge_fits(f, outer, inner))
        return NULL;
    id_transform *t = new_transform(f, TF_MERGE, 2, outer, inner);
    if (!t)
        return NULL;
    t->nout = 1;
    t->out[0] =
        ir_id_new(f, outer->tv, val_mul(&f->arena, outer->extent, inner->extent), out_itype(t));
    if (!t->out[0])
        return NULL;
    t->out[0]->def = t;
    return t;
}

id_transform *ir_swizzle(wf_fusion *f, wf_iterdomain *x, wf_iterdomain *y) {
    id_transform *t = new_transform(f, TF_SWIZZLE, 2, x, y);
    if (!t)
        return NULL;
    t->nout = 2;
    t->out[0] = ir_id_new(f, x->tv, x->extent, x->itype);
    t->out[1] = ir_id_new(f, y->tv, y->extent, y->itype);
    if (!t->out[0] || !t->out[1])
        return NULL;
    t->out[0]->def = t->out[1]->def = t;
    return t;
}

static bool is_pow2(int64_t x) {
    return x > 0 && (x & (x - 1)) == 0;
}

bool ir_swizzle_ok(const wf_iterdomain *x, const wf_iterdomain *y) {
    int64_t ex = ir_id_const_extent(x), ey = ir_id_const_extent(y);
    return is_pow2(ex) && is_pow2(ey) && ex <= ey && x->itype == IT_ITER && y->itype == IT_ITER;
}

id_transform *ir_find_use(wf_iterdomain *in0, wf_iterdomain *in1, tf_kind k, int64_t factor,
                          bool inner) {
    for (int i = 0; i < in0->uses.n; i++) {
        id_transform *t = in0->uses.ptr[i];
        if (t->kind != k || t->in[0] != in0 || (t->nin == 2 && t->in[1] != in1))
            continue;
        if (k == TF_SPLIT && (t->factor != factor || t->inner != inner))
            continue;
        return t;
    }
    return NULL;
}

int64_t ir_id_const_extent(const wf_iterdomain *id) {
    return val_is_const(id->extent) ? id->extent->c : -1;
}
