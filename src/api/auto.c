/*
 * auto.c -- automatic scheduling: wf_schedule_auto (src/heur's schedulers on
 * the caller's fusion) and wf_auto_kernel, a fusion that schedules a copy of
 * itself and compiles it once per input signature.
 *
 * A signature is what the heuristics' choices depend on: per input its dtype,
 * rank, its innermost extent and, per other dim, the power-of-two bucket of
 * its size; the widest vector every buffer allows (the alignment of the
 * pointers and the divisibility of the innermost extents). The kernel of a
 * signature is made for its innermost extents (constant in the fusion's copy:
 * vectors and rows kept in registers need them) and scheduled for the sizes
 * of its first run with the other extents kept symbolic, so it is correct for
 * every size of the signature. Compiled kernels also go through the disk cache (runtime/cache.c).
 */
#include "api/api.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void device_of(const wf_compile_options *opt, heur_device *d) {
    int sm = 0, count = 0, regs = 0;
    int64_t smem = 0;
    memset(d, 0, sizeof *d);
    if (rt_device_facts(&sm, &count, &smem, &regs)) {
        d->sm = sm;
        d->sm_count = count;
        d->smem_per_block = smem > 0 ? smem : HEUR_DEFAULT_SMEM;
        d->regs_per_block = regs > 0 ? regs : HEUR_DEFAULT_REGS;
    } else {
        d->sm = 90;
        d->sm_count = HEUR_DEFAULT_SM_COUNT;
        d->smem_per_block = HEUR_DEFAULT_SMEM;
        d->regs_per_block = HEUR_DEFAULT_REGS;
    }
    if (opt && opt->sm)
        d->sm = opt->sm;
    d->max_vector_bytes = 16;
}

static bool check_sizes(wf_fusion *f, const int64_t *sizes) {
    int k = 0;
    for (int i = 0; i < f->inputs.n; i++) {
        wf_tv *in = f->inputs.ptr[i];
        for (int d = 0; d < in->logical.n; d++, k++) {
            const wf_val *e = in->logical.ptr[d]->extent;
            if (sizes[k] < 1)
                return err_failb(&f->err, WF_ERR_ARG,
                                 "wf_schedule_auto: sizes[%d] (T%d dim %d) is %lld; a size is "
                                 "positive",
                                 k, in->id, d, (long long)sizes[k]);
            if (val_is_const(e) && e->c != sizes[k])
                return err_failb(&f->err, WF_ERR_ARG,
                                 "wf_schedule_auto: sizes[%d] is %lld, but dim %d of T%d is %lld",
                                 k, (long long)sizes[k], d, in->id, (long long)e->c);
        }
    }
    return true;
}

static wf_status schedule(wf_fusion *f, const int64_t *sizes, const heur_device *dev,
                          wf_auto_info *info) {
    heur_result r;
    if (sizes && !check_sizes(f, sizes))
        return f->err.code;
    wf_status s = heur_schedule(f, sizes, dev, &r);
    if (info) {
        memset(info, 0, sizeof *info);
        if (s == WF_OK) {
            memcpy(info->scheduler, r.scheduler, sizeof info->scheduler);
            memcpy(info->summary, r.summary, sizeof info->summary);
        }
    }
    return s;
}

wf_status wf_schedule_auto(wf_fusion *f, const int64_t *sizes, const wf_compile_options *opt,
                           wf_auto_info *info) {
    if (info)
        memset(info, 0, sizeof *info);
    if (!f)
        return WF_ERR_ARG;
    if (api_failed(f))
        return wf_fusion_status(f);
    heur_device dev;
    device_of(opt, &dev);
    return schedule(f, sizes, &dev, info);
}

/* ---- wf_auto_kernel ---- */

typedef struct {
    int8_t dtype, ndim, bucket[WF_MAX_RANK];
    int64_t inner; /* the innermost extent, when the kernel is made for it (vectors); else 0 */
} sig_input;

typedef struct {
    sig_input *in;
    int nin;
    int vec_bytes; /* the widest vector access every buffer allows */
    wf_fusion *copy;
    wf_kernel *k;
    wf_auto_info info;
} auto_entry;

struct wf_auto_kernel {
    wf_fusion *f;
    wf_compile_options opt;
    bool has_opt;
    auto_entry *e;
    int n, cap;
    int last; /* the last run's entry, -1 before */
    char err[1024];
    wf_auto_info none;
};

wf_auto_kernel *wf_auto_compile(wf_fusion *f, const wf_compile_options *opt) {
    if (!f || api_failed(f))
        return NULL;
    wf_auto_kernel *k = calloc(1, sizeof *k);
    if (!k) {
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
        return NULL;
    }
    k->f = f;
    k->has_opt = opt != NULL;
    if (opt)
        k->opt = *opt;
    k->last = -1;
    return k;
}

static wf_status fail(wf_auto_kernel *k, wf_status s, const char *fmt, ...) WF_PRINTF(3, 4);
static wf_status fail(wf_auto_kernel *k, wf_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->err, sizeof k->err, fmt, ap);
    va_end(ap);
    return s;
}

static int bucket(int64_t x) {
    int b = 0;
    while (b < 62 && ((int64_t)1 << b) < x)
        b++;
    return b;
}

/* The largest power of two (<= 16) dividing the address. */
static int ptr_align(const void *p) {
    uintptr_t a = (uintptr_t)p;
    int w = 16;
    while (w > 1 && a % (uintptr_t)w)
        w /= 2;
    return w;
}

static bool check_buffers(wf_auto_kernel *k, const wf_buffer *in, int nin, const wf_buffer *out,
                          int nout) {
    wf_fusion *f = k->f;
    if (nin != f->inputs.n || (nin && !in))
        return fail(k, WF_ERR_ARG, "wf_auto_run: %d input buffers%s; the fusion has %d inputs", nin,
                    nin && !in ? " but the array is NULL" : "", f->inputs.n),
               false;
    if (nout != f->outputs.n || (nout && !out))
        return fail(k, WF_ERR_ARG, "wf_auto_run: %d output buffers%s; the fusion has %d outputs",
                    nout, nout && !out ? " but the array is NULL" : "", f->outputs.n),
               false;
    for (int i = 0; i < nin + nout; i++) {
        const wf_buffer *b = i < nin ? &in[i] : &out[i - nin];
        const wf_tv *tv = i < nin ? f->inputs.ptr[i] : f->outputs.ptr[i - nin];
        const char *what = i < nin ? "input" : "output";
        int idx = i < nin ? i : i - nin, rank = i < nin ? tv->logical.n : ir_tv_rank(tv);
        if (b->dtype != tv->dtype)
            return fail(k, WF_ERR_ARG, "wf_auto_run: %s %d (T%d) is %s, but the buffer is %s", what,
                        idx, tv->id, ir_dtype_short(tv->dtype),
                        (unsigned)b->dtype < IR_NDTYPES ? ir_dtype_short(b->dtype) : "unknown"),
                   false;
        if (b->ndim != rank)
            return fail(k, WF_ERR_ARG,
                        "wf_auto_run: %s %d (T%d) has rank %d, but the buffer has rank %d", what,
                        idx, tv->id, rank, b->ndim),
                   false;
        if (!b->data)
            return fail(k, WF_ERR_ARG, "wf_auto_run: the data of %s %d (T%d) is NULL", what, idx,
                        tv->id),
                   false;
        if (i < nin)
            for (int d = 0; d < rank; d++) {
                const wf_val *e = tv->logical.ptr[d]->extent;
                if (b->shape[d] < 1 || (val_is_const(e) && e->c != b->shape[d]))
                    return fail(k, WF_ERR_ARG,
                                "wf_auto_run: dim %d of input %d (T%d) is %lld in the buffer; "
                                "the fusion says %lld",
                                d, i, tv->id, (long long)b->shape[d],
                                val_is_const(e) ? (long long)e->c : -1LL),
                           false;
            }
    }
    return true;
}

static int vec_bytes_of(const wf_buffer *in, int nin, const wf_buffer *out, int nout) {
    int w = 16;
    for (int i = 0; i < nin + nout; i++) {
        const wf_buffer *b = i < nin ? &in[i] : &out[i - nin];
        int a = ptr_align(b->data);
        w = a < w ? a : w;
        for (int d = 0; d < b->ndim; d++)
            if (b->strides[d] != 0)
                w = 1; /* strided: no vectors */
        if (b->ndim > 0) {
            int64_t inner = b->shape[b->ndim - 1] * (int64_t)wf_dtype_size(b->dtype);
            while (w > 1 && inner % w)
                w /= 2;
        }
    }
    return w;
}

static bool same_sig(const auto_entry *e, const sig_input *s, int nin, int vb) {
    return e->nin == nin && e->vec_bytes == vb && memcmp(e->in, s, sizeof *s * (size_t)nin) == 0;
}

static wf_status build_entry(wf_auto_kernel *k, const wf_buffer *in, sig_input *sig, int vb) {
    wf_fusion *f = k->f;
    int64_t sizes[WF_MAX_RANK * 64];
    int ns = 0;
    for (int i = 0; i < f->inputs.n; i++)
        for (int d = 0; d < in[i].ndim; d++) {
            if (ns >= (int)(sizeof sizes / sizeof *sizes))
                return fail(k, WF_ERR_UNSUPPORTED, "wf_auto_run: too many input dims");
            sizes[ns++] = in[i].shape[d];
        }
    /* Vectors need rows that provably start at multiples of the width, and a
       row kept in registers a constant length: a kernel is made for its
       innermost extents (the other dims stay symbolic). */
    int64_t concrete[WF_MAX_RANK * 64];
    int nc = 0;
    for (int i = 0; i < f->inputs.n; i++)
        for (int d = 0; d < in[i].ndim; d++, nc++)
            concrete[nc] = d == in[i].ndim - 1 && sig[i].inner > 0 ? in[i].shape[d] : -1;
    wf_fusion *copy = api_fusion_copy(f, concrete);
    if (!copy)
        return fail(k, WF_ERR_MEMORY, "wf_auto_run: copying the fusion failed (out of memory)");
    heur_device dev;
    device_of(k->has_opt ? &k->opt : NULL, &dev);
    dev.max_vector_bytes = vb;
    wf_auto_info info;
    wf_status s = schedule(copy, sizes, &dev, &info);
    wf_kernel *kern = s == WF_OK ? wf_compile(copy, k->has_opt ? &k->opt : NULL) : NULL;
    if (!kern) {
        s = wf_fusion_status(copy);
        fail(k, s ? s : WF_ERR_SCHEDULE, "%s", wf_fusion_error(copy));
        wf_fusion_free(copy);
        return s ? s : WF_ERR_SCHEDULE;
    }
    if (k->n == k->cap) {
        int cap = k->cap ? 2 * k->cap : 4;
        auto_entry *e = realloc(k->e, sizeof *e * (size_t)cap);
        if (!e) {
            wf_kernel_free(kern);
            wf_fusion_free(copy);
            return fail(k, WF_ERR_MEMORY, "out of memory");
        }
        k->e = e, k->cap = cap;
    }
    auto_entry *e = &k->e[k->n];
    e->in = malloc(sizeof *sig * (size_t)(f->inputs.n ? f->inputs.n : 1));
    if (!e->in) {
        wf_kernel_free(kern);
        wf_fusion_free(copy);
        return fail(k, WF_ERR_MEMORY, "out of memory");
    }
    memcpy(e->in, sig, sizeof *sig * (size_t)f->inputs.n);
    e->nin = f->inputs.n;
    e->vec_bytes = vb;
    e->copy = copy;
    e->k = kern;
    e->info = info;
    k->n++;
    return WF_OK;
}

wf_status wf_auto_run(wf_auto_kernel *k, wf_backend b, const wf_buffer *in, int nin, wf_buffer *out,
                      int nout) {
    if (!k)
        return WF_ERR_ARG;
    k->err[0] = '\0';
    if (!check_buffers(k, in, nin, out, nout))
        return WF_ERR_ARG;
    sig_input sig[64];
    if (nin > 64)
        return fail(k, WF_ERR_UNSUPPORTED, "wf_auto_run: more than 64 inputs");
    memset(sig, 0, sizeof sig);
    for (int i = 0; i < nin; i++) {
        sig[i].dtype = (int8_t)in[i].dtype;
        sig[i].ndim = (int8_t)in[i].ndim;
        for (int d = 0; d < in[i].ndim; d++)
            sig[i].bucket[d] = (int8_t)bucket(in[i].shape[d]);
    }
    int vb = vec_bytes_of(in, nin, out, nout);
    for (int i = 0; i < nin; i++)
        if (in[i].ndim > 0)
            sig[i].inner = in[i].shape[in[i].ndim - 1];
    int hit = -1;
    for (int i = 0; i < k->n && hit < 0; i++)
        if (same_sig(&k->e[i], sig, nin, vb))
            hit = i;
    if (hit < 0) {
        wf_status s = build_entry(k, in, sig, vb);
        if (s != WF_OK)
            return s;
        hit = k->n - 1;
    }
    k->last = hit;
    wf_status s = wf_run(k->e[hit].k, b, in, nin, out, nout);
    if (s != WF_OK)
        fail(k, s, "%s", wf_last_run_error(k->e[hit].k));
    return s;
}

const char *wf_auto_last_error(const wf_auto_kernel *k) {
    return k ? k->err : "no auto kernel (NULL)";
}

const wf_auto_info *wf_auto_last_info(const wf_auto_kernel *k) {
    if (!k)
        return NULL;
    return k->last >= 0 ? &k->e[k->last].info : &k->none;
}

int wf_auto_kernel_count(const wf_auto_kernel *k) {
    return k ? k->n : 0;
}

void wf_auto_kernel_free(wf_auto_kernel *k) {
    if (!k)
        return;
    for (int i = 0; i < k->n; i++) {
        wf_kernel_free(k->e[i].k);
        wf_fusion_free(k->e[i].copy);
        free(k->e[i].in);
    }
    free(k->e);
    free(k);
}
