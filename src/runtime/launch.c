/*
 * launch.c -- binding a call's buffers to a kernel's parameters.
 *
 * The buffers are checked against the fusion before anything runs: their
 * number, dtype, rank, extents (never negative) and strides (never
 * negative; the dense ones where the fusion declared a dim contiguous), and
 * that every size computed from them fits in 64 bits; symbolic extents are
 * bound from the buffers (an input's size symbol must agree everywhere it
 * appears). Then the launch is evaluated: each parallel dimension is the
 * largest of its loops' extents, checked against CUDA's limits with
 * lowering's own checks (lower_check_launch, lower_check_smem), so that the
 * CUDA backend and the CPU reference executor refuse exactly the same
 * launches with the same messages. A launch with a zero extent (a tensor
 * without elements) is empty: it succeeds without running anything.
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

/* ---- one buffer ---- */

static wf_status check_header(wf_kernel *k, const rt_param *p, const wf_buffer *buf) {
    wf_err *e = &k->err;
    if (buf->dtype != p->dtype)
        return wf_fails(e, WF_ERR_ARG, "%s %d: the buffer holds %s, but T%d is %s", which(p),
                        p->index, ir_dtype_short(buf->dtype), p->tv, ir_dtype_short(p->dtype));
    if (buf->ndim < 0 || buf->ndim > WF_MAX_RANK)
        return wf_fails(e, WF_ERR_ARG,
                        "%s %d: the buffer has rank %d, but a wf_buffer has 0 to WF_MAX_RANK = %d "
                        "dims (T%d has %d)",
                        which(p), p->index, buf->ndim, WF_MAX_RANK, p->tv, p->ndim);
    if (buf->ndim != p->ndim)
        return wf_fails(e, WF_ERR_ARG, "%s %d: the buffer has rank %d, but T%d has rank %d",
                        which(p), p->index, buf->ndim, p->tv, p->ndim);
    for (int d = 0; d < p->ndim; d++) {
        if (buf->shape[d] < 0)
            return wf_fails(e, WF_ERR_ARG,
                            "%s %d: dim %d of the buffer (for T%d) has the negative extent %lld; "
                            "an extent must be 0 or more",
                            which(p), p->index, d, p->tv, (long long)buf->shape[d]);
        if (buf->strides[d] < 0)
            return wf_fails(e, WF_ERR_ARG,
                            "%s %d: dim %d of the buffer (for T%d) has the negative stride %lld; "
                            "weft needs strides of 0 or more: copy the data into a buffer with "
                            "positive strides",
                            which(p), p->index, d, p->tv, (long long)buf->strides[d]);
    }
    return WF_OK;
}

/* The strides (the dense ones when all are 0) and, checked for overflow,
   the bytes the buffer spans: element 0 up to its last element. */
static wf_status layout(wf_kernel *k, int i, const wf_buffer *buf, rt_launch *l, bool *empty) {
    const rt_param *p = &k->params[i];
    bool dense = true, wrapped = false;
    int64_t stride = 1, last = 0, bytes = 0;
    *empty = false;
    for (int d = 0; d < p->ndim; d++) {
        dense &= buf->strides[d] == 0;
        *empty |= buf->shape[d] == 0;
    }
    for (int d = p->ndim - 1; d >= 0; d--) {
        int64_t reach;
        l->shape[i][d] = buf->shape[d];
        l->stride[i][d] = dense ? stride : buf->strides[d];
        wrapped |= dense && __builtin_mul_overflow(stride, buf->shape[d], &stride);
        wrapped |= __builtin_mul_overflow(buf->shape[d] - 1, l->stride[i][d], &reach) ||
                   __builtin_add_overflow(last, reach, &last);
    }
    if (!*empty && (wrapped || __builtin_add_overflow(last, 1, &last) ||
                    __builtin_mul_overflow(last, (int64_t)wf_dtype_size(p->dtype), &bytes)))
        return wf_fails(&k->err, WF_ERR_ARG,
                        "%s %d: the buffer (for T%d) spans more than 2^63 bytes: its shape or "
                        "strides are too large",
                        which(p), p->index, p->tv);
    return WF_OK;
}

static wf_status check_buffer(wf_kernel *k, int i, const wf_buffer *buf, rt_launch *l) {
    const rt_param *p = &k->params[i];
    bool empty;
    if (check_header(k, p, buf) != WF_OK || layout(k, i, buf, l, &empty) != WF_OK)
        return k->err.code;
    if (!buf->data && !empty)
        return wf_fails(&k->err, WF_ERR_ARG, "%s %d: the buffer's data is NULL", which(p),
                        p->index);
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
        if (__builtin_mul_overflow(l->stride[i][d], l->shape[i][d], &dense))
            dense = INT64_MAX; /* no stride matches it: the span check refused real overflow */
    }
    return WF_OK;
}

/* ---- the launch ---- */

/* Dimension d's launch extent: the largest of its loops' extents (1 if none). */
static wf_status eval_dim(wf_kernel *k, const rt_launch *l, int d, int64_t *ext,
                          const char **axis) {
    const rt_dim *dim = &k->dims[d];
    *ext = 1;
    *axis = NULL;
    for (int i = 0; i < dim->n; i++) {
        int64_t v;
        /* An extent is a product of sizes and factors; only int64 overflow
           stops its evaluation, and such an extent is past every limit. */
        if (!rt_eval(k, l, dim->extent[i], &v))
            return wf_fails(&k->err, WF_ERR_SCHEDULE,
                            "%s: for these sizes, the extent of %s (%s) does not fit in 64 bits; "
                            "use smaller split factors",
                            lower_pdim_table[d].grid ? "invalid grid" : "invalid number of threads",
                            lower_pdim_table[d].name, dim->axis[i]);
        if (v < 0)
            return wf_fails(&k->err, WF_ERR_ARG, "for these sizes, %s (%s) has the extent %lld",
                            lower_pdim_table[d].name, dim->axis[i], (long long)v);
        if (i == 0 || v > *ext) {
            *ext = v;
            *axis = dim->axis[i];
        }
    }
    return WF_OK;
}

static wf_status eval_launch(wf_kernel *k, rt_launch *l) {
    int64_t ext[LOWER_NPDIMS];
    const char *axis[LOWER_NPDIMS];
    for (int d = 0; d < LOWER_NPDIMS; d++) {
        const lower_pdim *pd = &lower_pdim_table[d];
        if (eval_dim(k, l, d, &ext[d], &axis[d]) != WF_OK)
            return k->err.code;
        (pd->grid ? l->grid : l->block)[pd->axis] = ext[d];
        l->empty |= ext[d] == 0;
    }
    /* The size is a product of extents; only int64 overflow stops its evaluation. */
    if (!rt_eval(k, l, k->smem, &l->smem_bytes))
        return wf_fails(&k->err, WF_ERR_SCHEDULE,
                        "for these sizes, the kernel needs more than %lld bytes of shared memory "
                        "per block (the size does not fit in 64 bits), but CUDA allows at most "
                        "%d (227 KiB); use smaller shared-memory tiles",
                        (long long)INT64_MAX, LOWER_MAX_SMEM_BYTES);
    if (l->empty)
        return WF_OK;
    if (!lower_check_launch(ext, axis, &k->err) || !lower_check_smem(l->smem_bytes, NULL, &k->err))
        return k->err.code;
    for (int i = 0; i < k->nchecks; i++) {
        int64_t ok = 0;
        if (!rt_eval(k, l, k->checks[i].cond, &ok) || !ok)
            return wf_fails(&k->err, k->checks[i].buffers ? WF_ERR_ARG : WF_ERR_SCHEDULE, "%s",
                            k->checks[i].message);
    }
    return WF_OK;
}

wf_status rt_bind(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                  rt_launch *l) {
    memset(l, 0, sizeof *l);
    l->buf = k->bound;
    l->shape = k->shapes;
    l->stride = k->strides;
    err_clear(&k->err);
    if (nin != k->ninputs || nout != k->noutputs || (nin && !in) || (nout && !out))
        return wf_fails(&k->err, WF_ERR_ARG,
                        "the kernel takes %d input%s and %d output%s, but %d and %d were given",
                        k->ninputs, k->ninputs == 1 ? "" : "s", k->noutputs,
                        k->noutputs == 1 ? "" : "s", nin, nout);
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
