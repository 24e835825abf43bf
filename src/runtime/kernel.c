/*
 * kernel.c -- building a self-contained kernel from a lowering result.
 *
 * Every expression the kernel keeps is deep-copied into its own arena (one
 * memo, so shared subexpressions stay shared), because the lowering's arena
 * and the fusion may both be freed while the kernel lives on.
 */
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

static bool copy_param(wf_kernel *k, rt_param *p, const lower_param *lp, val_memo *m) {
    const wf_tv *tv = lp->tv;
    p->tv = tv->id;
    p->dtype = tv->dtype;
    p->ndim = ir_tv_rank(tv); /* a reduction output's buffer has only its other dims */
    p->is_output = lp->is_output;
    p->index = lp->index;
    p->kind = lp->kind;
    for (int d = 0; d < p->ndim && d < WF_MAX_RANK; d++) {
        p->extent[d] = val_clone(&k->arena, tv->logical.ptr[ir_tv_dim(tv, d)]->extent, m);
        p->contig[d] = tv->contig ? tv->contig[d] : 1;
        if (!p->extent[d])
            return false;
    }
    return true;
}

static bool copy_dim(wf_kernel *k, rt_dim *dim, const lower_extents *v, val_memo *m) {
    dim->n = v->n;
    dim->extent = ARENA_ARRAY(&k->arena, const wf_val *, v->n + 1);
    dim->axis = ARENA_ARRAY(&k->arena, const char *, v->n + 1);
    if (!dim->extent || !dim->axis)
        return false;
    for (int i = 0; i < v->n; i++) {
        dim->extent[i] = val_clone(&k->arena, v->ptr[i].extent, m);
        dim->axis[i] = arena_strdup(&k->arena, v->ptr[i].axis);
        if (!dim->extent[i] || !dim->axis[i])
            return false;
    }
    return true;
}

static bool copy_tmas(wf_kernel *k, const lower_result *r, val_memo *m) {
    k->ntmas = r->tmas.n;
    k->tmas = ARENA_ARRAY(&k->arena, rt_tma, r->tmas.n + 1);
    if (!k->tmas)
        return false;
    for (int i = 0; i < r->tmas.n; i++) {
        const lower_tma *t = &r->tmas.ptr[i];
        rt_tma *o = &k->tmas[i];
        o->info = t->info;
        o->box_bytes = t->box_bytes;
        o->mbar = t->mbar;
        o->param = t->param;
        for (int d = 0; d < t->info.rank; d++)
            if (!(o->gdim[d] = val_clone(&k->arena, t->gdim[d], m)) ||
                !(o->gstride[d] = val_clone(&k->arena, t->gstride[d], m)))
                return false;
    }
    return true;
}

static bool copy_all(wf_kernel *k, const lower_result *r, const char *source, val_memo *m) {
    k->source = arena_strdup(&k->arena, source);
    k->nparams = r->params.n;
    k->params = ARENA_ARRAY(&k->arena, rt_param, r->params.n + 1);
    k->nchecks = r->checks.n;
    k->checks = ARENA_ARRAY(&k->arena, rt_check, r->checks.n + 1);
    k->bound = ARENA_ARRAY(&k->arena, const wf_buffer *, r->params.n + 1);
    k->shapes = ARENA_ARRAY(&k->arena, rt_dims, r->params.n + 1);
    k->strides = ARENA_ARRAY(&k->arena, rt_dims, r->params.n + 1);
    if (!k->source || !k->params || !k->checks || !k->bound || !k->shapes || !k->strides)
        return false;
    for (int i = 0; i < r->params.n; i++) {
        if (!copy_param(k, &k->params[i], &r->params.ptr[i], m))
            return false;
        if (r->params.ptr[i].kind == KP_TENSOR_MAP)
            continue; /* describes a buffer that a tensor parameter passes */
        if (r->params.ptr[i].is_output)
            k->noutputs++;
        else
            k->ninputs++;
    }
    for (int i = 0; i < r->checks.n; i++) {
        k->checks[i].cond = val_clone(&k->arena, r->checks.ptr[i].cond, m);
        k->checks[i].message = arena_strdup(&k->arena, r->checks.ptr[i].message);
        k->checks[i].buffers = r->checks.ptr[i].buffers;
        if (!k->checks[i].cond || !k->checks[i].message)
            return false;
        for (int j = 0; j < 2; j++)
            if (r->checks.ptr[i].vals[j] &&
                !(k->checks[i].vals[j] = val_clone(&k->arena, r->checks.ptr[i].vals[j], m)))
                return false;
    }
    k->nin_place = r->in_place.n;
    k->in_place = ARENA_ARRAY(&k->arena, lower_in_place_pair, r->in_place.n + 1);
    if (!k->in_place)
        return false;
    for (int i = 0; i < r->in_place.n; i++)
        k->in_place[i] = r->in_place.ptr[i];
    if (!(k->smem = val_clone(&k->arena, r->smem, m)))
        return false;
    for (int d = 0; d < LOWER_NPDIMS; d++)
        if (!copy_dim(k, &k->dims[d], &r->dims[d], m))
            return false;
    return copy_tmas(k, r, m);
}

wf_kernel *rt_kernel_new(const lower_result *r, const char *source) {
    wf_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    arena_init(&k->arena);
    k->launch = r->launch;
    k->sm = r->sm;
    val_memo m = {0};
    bool ok = copy_all(k, r, source, &m);
    val_memo_free(&m);
    if (!ok) {
        rt_kernel_free(k);
        return NULL;
    }
    return k;
}

void rt_kernel_free(wf_kernel *k) {
    if (!k)
        return;
    rt_cuda_release(k); /* unloads the module, releases the context */
    free(k->ptx);
    arena_free(&k->arena);
    free(k);
}
