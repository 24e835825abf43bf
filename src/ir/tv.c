/*
 * tv.c -- TensorViews and the fusion container.
 *
 * A tensor starts with fresh logical IterDomains, and its loop domain equals
 * its logical domain until it is scheduled. Fusion inputs get symbolic
 * extents (T0.size[i]) where the user passed -1, and stay in global memory.
 */
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>

wf_fusion *ir_fusion_new(void) {
    wf_fusion *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    arena_init(&f->arena);
    return f;
}

void ir_fusion_free(wf_fusion *f) {
    if (!f)
        return;
    arena_free(&f->arena);
    free(f->text);
    free(f);
}

bool ir_push_id(wf_fusion *f, id_list *l, wf_iterdomain *id) {
    if (vec_push_arena(&f->arena, l, id))
        return true;
    return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
}

bool ir_copy_ids(wf_fusion *f, id_list *dst, wf_iterdomain *const *src, int n) {
    dst->n = 0;
    for (int i = 0; i < n; i++)
        if (!ir_push_id(f, dst, src[i]))
            return false;
    return true;
}

wf_tv *ir_tv_new(wf_fusion *f, wf_dtype t, int ndim, const wf_val *const *extents,
                 const id_itype *itypes) {
    wf_tv *tv = ARENA_NEW(&f->arena, wf_tv);
    if (!tv || !vec_push_arena(&f->arena, &f->tvs, tv))
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    tv->id = f->tvs.n - 1;
    tv->f = f;
    tv->dtype = t;
    tv->mem = WF_MEM_LOCAL;
    tv->dimsep = -1;
    for (int i = 0; i < ndim; i++) {
        wf_iterdomain *id = ir_id_new(f, tv, extents[i], itypes ? itypes[i] : IT_ITER);
        if (!id || !ir_push_id(f, &tv->logical, id) || !ir_push_id(f, &tv->loop, id))
            return NULL;
    }
    return tv;
}

wf_tv *ir_input(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape, const int8_t *contig) {
    const wf_val **ext = ARENA_ARRAY(&f->arena, const wf_val *, ndim > 0 ? ndim : 1);
    int tvid = f->tvs.n;
    if (!ext)
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < ndim; i++) {
        char name[48];
        snprintf(name, sizeof name, "T%d.size[%d]", tvid, i);
        ext[i] = shape[i] >= 0 ? val_const(&f->arena, shape[i])
                               : val_sym(&f->arena, SYM_SIZE, tvid, i, name, 0, INT64_MAX, NULL);
    }
    wf_tv *tv = ir_tv_new(f, t, ndim, ext, NULL);
    if (!tv)
        return NULL;
    tv->mem = WF_MEM_GLOBAL;
    tv->is_input = true;
    tv->contig = ARENA_ARRAY(&f->arena, int8_t, ndim > 0 ? ndim : 1);
    if (!tv->contig || !vec_push_arena(&f->arena, &f->inputs, tv))
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < ndim; i++)
        tv->contig[i] = contig ? contig[i] : 1;
    return tv;
}

ir_op *ir_op_new(wf_fusion *f, op_kind k, wf_tv *out, int nin, wf_tv *const *in) {
    ir_op *op = ARENA_NEW(&f->arena, ir_op);
    if (!op || !vec_push_arena(&f->arena, &f->ops, op))
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    op->id = f->ops.n - 1;
    op->kind = k;
    op->out = out;
    op->nin = nin;
    op->nargs = nin;
    op->cdtype = out->dtype;
    for (int i = 0; i < nin; i++) {
        op->in[i] = in[i];
        op->in_dim[i] = ARENA_ARRAY(&f->arena, int, out->logical.n + 1);
        if (!op->in_dim[i] || !ir_add_use(in[i], op))
            return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    out->def = op;
    return op;
}

bool ir_add_use(wf_tv *tv, ir_op *op) {
    return vec_push_arena(&tv->f->arena, &tv->uses, op);
}

void ir_remove_use(wf_tv *tv, ir_op *op) {
    int j = 0;
    for (int i = 0; i < tv->uses.n; i++)
        if (tv->uses.ptr[i] != op)
            tv->uses.ptr[j++] = tv->uses.ptr[i];
    tv->uses.n = j;
}

const id_list *ir_alloc_domain(const wf_tv *tv) {
    if (tv->alloc.n)
        return &tv->alloc;
    return tv->mem == WF_MEM_GLOBAL ? &tv->logical : &tv->loop;
}
