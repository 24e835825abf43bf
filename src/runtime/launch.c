/*
 * launch.c -- binding a call's buffers to a kernel's parameters.
 *
 * The buffers are checked against the fusion before anything runs: their
 * number, dtype, rank and concrete extents; symbolic extents are bound from
 * the buffers (an input's size symbol must agree everywhere it appears);
 * strides must be the dense ones where the fusion declared a dim contiguous.
 * Then the grid and block extents and the launch-time checks are evaluated.
 */
#include "runtime/param.h"

#include <string.h>

typedef struct {
    const wf_kernel *k;
    const rt_launch *l;
} binding;

static int param_of_tv(const wf_kernel *k, int tv) {
    for (int i = 0; i < k->nparams; i++)
        if (k->params[i].tv == tv)
            return i;
    return -1;
}

static bool bind_sym(void *ctx, const wf_val *sym, int64_t *out) {
    const binding *b = ctx;
    int p = param_of_tv(b->k, sym->sym_a);
    if (p < 0 || sym->sym_b < 0 || sym->sym_b >= b->k->params[p].ndim)
        return false;
    if (sym->sym == SYM_SIZE)
        *out = b->l->shape[p][sym->sym_b];
    else if (sym->sym == SYM_STRIDE)
        *out = b->l->stride[p][sym->sym_b];
    else
        return false;
    return true;
}

bool rt_eval(const wf_kernel *k, const rt_launch *l, const wf_val *v, int64_t *out) {
    binding b = {k, l};
    return val_eval(v, bind_sym, &b, out);
}

static const char *which(const rt_param *p) {
    return p->is_output ? "output" : "input";
}

static wf_status check_buffer(wf_kernel *k, int i, const wf_buffer *buf, rt_launch *l) {
    const rt_param *p = &k->params[i];
    wf_err *e = &k->err;
    if (!buf->data)
        return wf_fails(e, WF_ERR_ARG, "%s %d: the buffer's data is NULL", which(p), p->index);
    if (buf->dtype != p->dtype)
        return wf_fails(e, WF_ERR_ARG, "%s %d: the buffer holds %s, but T%d is %s", which(p),
                        p->index, ir_dtype_short(buf->dtype), p->tv, ir_dtype_short(p->dtype));
    if (buf->ndim != p->ndim)
        return wf_fails(e, WF_ERR_ARG, "%s %d: the buffer has rank %d, but T%d has rank %d",
                        which(p), p->index, buf->ndim, p->tv, p->ndim);
    bool dense = true;
    for (int d = 0; d < p->ndim; d++)
        dense &= buf->strides[d] == 0;
    int64_t stride = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        l->shape[i][d] = buf->shape[d];
        l->stride[i][d] = dense ? stride : buf->strides[d];
        stride *= buf->shape[d];
    }
    l->buf[i] = buf;
    return WF_OK;
}

static wf_status check_extents(wf_kernel *k, int i, rt_launch *l) {
    const rt_param *p = &k->params[i];
    for (int d = 0; d < p->ndim; d++) {
        int64_t want;
        if (!rt_eval(k, l, p->extent[d], &want))
            return wf_fails(&k->err, WF_ERR_ARG, "%s %d: cannot evaluate the extent of dim %d",
                            which(p), p->index, d);
        if (want != l->shape[i][d])
            return wf_fails(&k->err, WF_ERR_ARG,
                            "%s %d: dim %d of the buffer has extent %lld, but T%d needs %lld",
                            which(p), p->index, d, (long long)l->shape[i][d], p->tv,
                            (long long)want);
    }
    /* Where the fusion assumes contiguity, the buffer's stride must be the dense one. */
    int64_t dense = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        bool must = p->is_output || p->contig[d];
        if (must && l->stride[i][d] != dense && l->shape[i][d] > 1)
            return wf_fails(&k->err, WF_ERR_ARG,
                            "%s %d: dim %d has stride %lld, but T%d is contiguous there (stride "
                            "%lld expected)",
                            which(p), p->index, d, (long long)l->stride[i][d], p->tv,
                            (long long)dense);
        dense = l->stride[i][d] * l->shape[i][d];
    }
    return WF_OK;
}

static wf_status eval_launch(wf_kernel *k, rt_launch *l) {
    for (int d = 0; d < 3; d++)
        if (!rt_eval(k, l, k->grid[d], &l->grid[d]) || !rt_eval(k, l, k->block[d], &l->block[d]))
            return wf_fails(&k->err, WF_ERR_ARG, "cannot evaluate the launch dimensions");
    if (!rt_eval(k, l, k->smem, &l->smem_bytes))
        return wf_fails(&k->err, WF_ERR_ARG, "cannot evaluate the shared-memory size");
    int64_t threads = l->block[0] * l->block[1] * l->block[2];
    if (threads > 1024 || threads <= 0 || l->grid[0] <= 0 || l->grid[1] <= 0 || l->grid[2] <= 0)
        return wf_fails(&k->err, WF_ERR_SCHEDULE,
                        "for these sizes the launch needs a grid of %lld x %lld x %lld blocks of "
                        "%lld x %lld x %lld threads; a block may have 1 to 1024 threads",
                        (long long)l->grid[0], (long long)l->grid[1], (long long)l->grid[2],
                        (long long)l->block[0], (long long)l->block[1], (long long)l->block[2]);
    for (int i = 0; i < k->nchecks; i++) {
        int64_t ok = 0;
        if (!rt_eval(k, l, k->checks[i].cond, &ok) || !ok)
            return wf_fails(&k->err, WF_ERR_SCHEDULE, "%s", k->checks[i].message);
    }
    return WF_OK;
}

wf_status rt_bind(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                  rt_launch *l) {
    memset(l, 0, sizeof *l);
    err_clear(&k->err);
    if (nin != k->ninputs || nout != k->noutputs || (nin && !in) || (nout && !out))
        return wf_fails(&k->err, WF_ERR_ARG,
                        "the kernel takes %d inputs and %d outputs, but %d and %d were given",
                        k->ninputs, k->noutputs, nin, nout);
    for (int i = 0; i < k->nparams; i++) {
        const rt_param *p = &k->params[i];
        const wf_buffer *buf = p->is_output ? &out[p->index] : &in[p->index];
        if (rt_param_check(k, i) != WF_OK || check_buffer(k, i, buf, l) != WF_OK)
            return k->err.code;
    }
    for (int i = 0; i < k->nparams; i++)
        if (check_extents(k, i, l) != WF_OK)
            return k->err.code;
    return eval_launch(k, l);
}
