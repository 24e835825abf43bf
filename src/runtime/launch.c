/*
 * launch.c -- binding a call's buffers to a kernel's parameters.
 *
 * The buffers are checked against the fusion before anything runs: their
 * number, dtype, rank, extents (never negative) and strides (never
 * negative; the dense ones where the fusion declared a dim contiguous), and
 * that every size computed from them fits in 64 bits; symbolic extents are
 * bound from the buffers (an input's size symbol must agree everywhere it
 * appears), and no output may share memory with an input or another output
 * unless lowering proved the pair safe in place and the buffers are the
 * same array. Then the launch is evaluated: each parallel dimension is the
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
        return err_fails(e, WF_ERR_ARG, "%s %d: the buffer holds %s, but T%d is %s", which(p),
                         p->index, ir_dtype_short(buf->dtype), p->tv, ir_dtype_short(p->dtype));
    if (buf->ndim < 0 || buf->ndim > WF_MAX_RANK)
        return err_fails(e, WF_ERR_ARG,
                         "%s %d: the buffer has rank %d, but a wf_buffer has 0 to WF_MAX_RANK = %d "
                         "dims (T%d has %d)",
                         which(p), p->index, buf->ndim, WF_MAX_RANK, p->tv, p->ndim);
    if (buf->ndim != p->ndim)
        return err_fails(e, WF_ERR_ARG, "%s %d: the buffer has rank %d, but T%d has rank %d",
                         which(p), p->index, buf->ndim, p->tv, p->ndim);
    for (int d = 0; d < p->ndim; d++) {
        if (buf->shape[d] < 0)
            return err_fails(e, WF_ERR_ARG,
                             "%s %d: dim %d of the buffer (for T%d) has the negative extent %lld; "
                             "an extent must be 0 or more",
                             which(p), p->index, d, p->tv, (long long)buf->shape[d]);
        if (buf->strides[d] < 0)
            return err_fails(e, WF_ERR_ARG,
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
        return err_fails(&k->err, WF_ERR_ARG,
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
        return err_fails(&k->err, WF_ERR_ARG, "%s %d: the buffer's data is NULL", which(p),
                         p->index);
    l->buf[i] = buf;
    return WF_OK;
}

static wf_status check_extents(wf_kernel *k, int i, rt_launch *l) {
    const rt_param *p = &k->params[i];
    for (int d = 0; d < p->ndim; d++) {
        int64_t want;
        if (!rt_eval(k, l, p->extent[d], &want)) {
            /* A logical extent is a constant or the size of an input (weft has no op that
               computes an extent), which rt_bind bound before: it always evaluates. */
            err_assert(&k->err, !"a parameter's extent that does not evaluate");
            return k->err.code;
        }
        if (want != l->shape[i][d])
            return err_fails(&k->err, WF_ERR_ARG,
                             "%s %d: dim %d of the buffer has extent %lld, but T%d needs %lld",
                             which(p), p->index, d, (long long)l->shape[i][d], p->tv,
                             (long long)want);
    }
    /* Where the fusion assumes contiguity, the buffer's stride must be the dense one. */
    int64_t dense = 1;
    for (int d = p->ndim - 1; d >= 0; d--) {
        bool must = p->is_output || p->contig[d];
        if (must && l->stride[i][d] != dense && l->shape[i][d] > 1 && p->is_output)
            return err_fails(&k->err, WF_ERR_ARG,
                             "%s %d: dim %d has stride %lld, but T%d is contiguous there (stride "
                             "%lld expected); an output is always dense: pass a contiguous buffer",
                             which(p), p->index, d, (long long)l->stride[i][d], p->tv,
                             (long long)dense);
        if (must && l->stride[i][d] != dense && l->shape[i][d] > 1)
            return err_fails(&k->err, WF_ERR_ARG,
                             "%s %d: dim %d has stride %lld, but T%d is contiguous there (stride "
                             "%lld expected); pass a contiguous copy (np.ascontiguousarray in "
                             "Python), or declare T%d with wf_input_strided (Python: "
                             "input_strided), contiguity 0 in dim %d",
                             which(p), p->index, d, (long long)l->stride[i][d], p->tv,
                             (long long)dense, p->tv, d);
        if (__builtin_mul_overflow(l->stride[i][d], l->shape[i][d], &dense))
            dense = INT64_MAX; /* no stride matches it: the span check refused real overflow */
    }
    return WF_OK;
}

/* ---- overlapping buffers ----
   A kernel reads its inputs while it writes its outputs, with no order
   between threads: an output that shares bytes with an input or another
   output gives a wrong answer (an in-place transpose overwrites cells it
   has yet to read). Every overlap is refused, except an output that is the
   very same array as an input (address, shape, strides) where lowering
   proved the pair safe (lower/inplace.c: elementwise, each thread reads the
   cell it then writes). Byte ranges are compared (element 0 up to the last
   element), so two interleaved strided views count as overlapping. */

static bool is_user_buffer(const rt_param *p) {
    return p->kind == KP_TENSOR;
}

/* Start address and one past the last byte; false for a buffer without elements. */
static bool byte_range(const wf_kernel *k, const rt_launch *l, int i, uintptr_t *lo,
                       uintptr_t *hi) {
    const rt_param *p = &k->params[i];
    int64_t last = 0; /* fits: layout() checked the span */
    for (int d = 0; d < p->ndim; d++) {
        if (l->shape[i][d] == 0)
            return false;
        last += (l->shape[i][d] - 1) * l->stride[i][d];
    }
    *lo = (uintptr_t)l->buf[i]->data;
    *hi = *lo + (uintptr_t)((last + 1) * (int64_t)wf_dtype_size(p->dtype));
    return true;
}

static bool same_array(const wf_kernel *k, const rt_launch *l, int i, int j) {
    const rt_param *p = &k->params[i], *q = &k->params[j];
    if (l->buf[i]->data != l->buf[j]->data || p->dtype != q->dtype || p->ndim != q->ndim)
        return false;
    for (int d = 0; d < p->ndim; d++)
        if (l->shape[i][d] != l->shape[j][d] || l->stride[i][d] != l->stride[j][d])
            return false;
    return true;
}

static bool proved_in_place(const wf_kernel *k, int in, int out) {
    for (int i = 0; i < k->nin_place; i++)
        if (k->in_place[i].in == in && k->in_place[i].out == out)
            return true;
    return false;
}

/* Output o overlaps parameter j: refuse, saying how. */
static wf_status overlap_error(wf_kernel *k, const rt_launch *l, int o, int j, uintptr_t olo,
                               uintptr_t jlo) {
    const rt_param *po = &k->params[o], *pj = &k->params[j];
    sbuf how = {0};
    if (same_array(k, l, o, j) && !pj->is_output)
        sbuf_printf(&how,
                    "they are the same buffer, and weft cannot prove that the kernel reads each "
                    "element of T%d only in the thread that then writes that element of T%d "
                    "(an elementwise kernel with the same indexing)",
                    pj->tv, po->tv);
    else if (same_array(k, l, o, j))
        sbuf_puts(&how, "they are the same buffer");
    else if (olo == jlo)
        sbuf_printf(&how,
                    "T%d's buffer starts at the same address as T%d's, and their bytes overlap",
                    po->tv, pj->tv);
    else
        sbuf_printf(&how, "T%d's buffer starts %llu bytes %s T%d's, and their bytes overlap",
                    po->tv, (unsigned long long)(olo > jlo ? olo - jlo : jlo - olo),
                    olo > jlo ? "after" : "before", pj->tv);
    err_fails(&k->err, WF_ERR_ARG, "output %d (T%d) overlaps %s %d (T%d): %s; %s", po->index,
              po->tv, which(pj), pj->index, pj->tv, sbuf_str(&how),
              pj->is_output ? "two outputs cannot share memory: pass a separate buffer for each"
                            : "a kernel reads its inputs while it writes its outputs: pass a "
                              "separate output buffer");
    sbuf_free(&how);
    return k->err.code;
}

/* Each output against every input, then against the outputs before it. */
static wf_status check_overlaps(wf_kernel *k, const rt_launch *l) {
    for (int o = 0; o < k->nparams; o++) {
        const rt_param *po = &k->params[o];
        uintptr_t olo, ohi;
        if (!po->is_output || !is_user_buffer(po) || !byte_range(k, l, o, &olo, &ohi))
            continue;
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < k->nparams; j++) {
                const rt_param *pj = &k->params[j];
                uintptr_t jlo, jhi;
                if (j == o || !is_user_buffer(pj) || pj->is_output != (pass == 1) ||
                    (pj->is_output && pj->index >= po->index) || !byte_range(k, l, j, &jlo, &jhi) ||
                    olo >= jhi || jlo >= ohi)
                    continue;
                if (!pj->is_output && same_array(k, l, o, j) && proved_in_place(k, j, o))
                    continue;
                return overlap_error(k, l, o, j, olo, jlo);
            }
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
            return err_fails(&k->err, WF_ERR_SCHEDULE,
                             "%s: for these sizes, the extent of %s (%s) does not fit in 64 bits; "
                             "use smaller split factors",
                             lower_pdim_table[d].grid ? "invalid grid"
                                                      : "invalid number of threads",
                             lower_pdim_table[d].name, dim->axis[i]);
        /* products and quotients of extents of 0 or more (rt_bind refuses
           negative ones): a negative extent is a bug */
        err_assert(&k->err, v >= 0);
        if (v < 0)
            return k->err.code;
        if (i == 0 || v > *ext) {
            *ext = v;
            *axis = dim->axis[i];
        }
    }
    return WF_OK;
}

/* A failed check's message, its {0} and {1} replaced by the values they show. */
static wf_status check_failed(wf_kernel *k, const rt_launch *l, const rt_check *chk) {
    char msg[1024];
    size_t n = 0;
    for (const char *s = chk->message; *s && n + 24 < sizeof msg; s++) {
        int64_t v;
        if (s[0] == '{' && (s[1] == '0' || s[1] == '1') && s[2] == '}' && chk->vals[s[1] - '0'] &&
            rt_eval(k, l, chk->vals[s[1] - '0'], &v)) {
            n += (size_t)snprintf(msg + n, sizeof msg - n, "%lld", (long long)v);
            s += 2;
        } else {
            msg[n++] = *s;
        }
    }
    msg[n] = '\0';
    return err_fails(&k->err, chk->buffers ? WF_ERR_ARG : WF_ERR_SCHEDULE, "%s", msg);
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
        return err_fails(&k->err, WF_ERR_SCHEDULE,
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
            return check_failed(k, l, &k->checks[i]);
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
        return err_fails(&k->err, WF_ERR_ARG,
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
    if (check_overlaps(k, l) != WF_OK)
        return k->err.code;
    return eval_launch(k, l);
}
