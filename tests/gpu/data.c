/*
 * data.c -- host tensors, random data, poisoned outputs and the checked
 * runs of the GPU test program (see gpu.h).
 *
 * A run is checked twice: once on host buffers (the runtime stages them
 * through device memory) and once on device buffers made with
 * wf_device_alloc (used in place, the launch asynchronous until the copy
 * back). Outputs are filled with 0xFF bytes first, so an element the kernel
 * never wrote reads as NaN (for floats) and fails any comparison.
 */
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void) {
    /* xorshift64*: fast, and good enough to make every element different. */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

int64_t gt_numel(const gt_tensor *x) {
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++)
        n *= x->shape[d];
    return n;
}

static bool is_dense(const gt_tensor *x) {
    for (int d = 0; d < x->ndim; d++)
        if (x->strides[d] != 0)
            return false;
    return true;
}

int64_t gt_span(const gt_tensor *x) {
    if (is_dense(x))
        return gt_numel(x);
    int64_t last = 0;
    for (int d = 0; d < x->ndim; d++)
        last += (x->shape[d] - 1) * x->strides[d];
    return gt_numel(x) ? last + 1 : 0;
}

int64_t gt_offset(const gt_tensor *x, int64_t i) {
    if (is_dense(x))
        return i;
    int64_t off = 0;
    for (int d = x->ndim - 1; d >= 0; d--) {
        off += (i % x->shape[d]) * x->strides[d];
        i /= x->shape[d];
    }
    return off;
}

gt_tensor gt_strided(wf_dtype t, int ndim, const int64_t *shape, const int64_t *strides) {
    gt_tensor x;
    memset(&x, 0, sizeof x);
    x.dtype = t;
    x.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        x.shape[d] = shape[d];
        x.strides[d] = strides ? strides[d] : 0;
    }
    size_t bytes = (size_t)gt_span(&x) * wf_dtype_size(t);
    x.data = malloc(bytes ? bytes : 1);
    memset(x.data, 0xFF, bytes); /* the gaps of a strided tensor too */
    return x;
}

gt_tensor gt_dense(wf_dtype t, int ndim, const int64_t *shape) {
    return gt_strided(t, ndim, shape, NULL);
}

void gt_tensor_free(gt_tensor *x) {
    free(x->data);
    x->data = NULL;
}

float gt_half_to_float(uint16_t h) {
    int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
    float v;
    if (exp == 0)
        v = ldexpf((float)man, -24);
    else if (exp == 31)
        v = man ? NAN : INFINITY;
    else
        v = ldexpf((float)(man | 1024), exp - 25);
    return sign ? -v : v;
}

/* bfloat16 is the top half of a float: widening is exact. */
static float bf16_to_float(uint16_t h) {
    uint32_t b = (uint32_t)h << 16;
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* bfloat16 bits of v, rounded to nearest even. */
static uint16_t float_to_bf16(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    if (isnan(v))
        return (uint16_t)(b >> 16 | 0x40);
    return (uint16_t)((b + 0x7fff + (b >> 16 & 1)) >> 16);
}

float gt_get_f32(const gt_tensor *x, int64_t i) {
    int64_t o = gt_offset(x, i);
    if (x->dtype == WF_F16)
        return gt_half_to_float(((const uint16_t *)x->data)[o]);
    if (x->dtype == WF_BF16)
        return bf16_to_float(((const uint16_t *)x->data)[o]);
    return ((const float *)x->data)[o];
}

/* binary16 bits of v, rounded to nearest even (written here: the library's
   conversion is not exported). */
static uint16_t float_to_half(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    uint16_t sign = (uint16_t)(b >> 16 & 0x8000);
    if (isnan(v))
        return sign | 0x7e00;
    float a = fabsf(v);
    if (a >= 65520.0f) /* rounds past the largest half */
        return sign | 0x7c00;
    if (a < 0x1p-14f) { /* subnormal: units of 2^-24, nearest even */
        float u = a * 0x1p24f, r = nearbyintf(u);
        return sign | (uint16_t)r;
    }
    int e;
    float m = frexpf(a, &e);           /* a = m * 2^e, m in [0.5, 1) */
    float r = nearbyintf(m * 2048.0f); /* 11 significant bits */
    if (r == 2048.0f)
        r = 1024.0f, e++;
    return sign | (uint16_t)((e + 14) << 10 | ((uint32_t)r & 1023));
}

/* Rounded once (to nearest even) where x holds halves: an f32 store into a
   half tensor wrote past its end. */
void gt_set_f32(gt_tensor *x, int64_t i, float v) {
    if (x->dtype == WF_F16)
        ((uint16_t *)x->data)[gt_offset(x, i)] = float_to_half(v);
    else if (x->dtype == WF_BF16)
        ((uint16_t *)x->data)[gt_offset(x, i)] = float_to_bf16(v);
    else
        ((float *)x->data)[gt_offset(x, i)] = v;
}

static uint32_t bits_of(float v) {
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

void gt_fill_random(gt_tensor *x) {
    int64_t n = gt_numel(x);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        float v = (float)((double)(r >> 11) / 9007199254740992.0 * 4.0 - 2.0);
        if (x->dtype == WF_F16) /* a random finite half: sign, exponent 1..29, mantissa */
            ((uint16_t *)x->data)[gt_offset(x, i)] =
                (uint16_t)((r >> 40 & 0x8000) | ((1 + (r >> 20) % 29) << 10) | (r & 1023));
        else if (x->dtype == WF_BF16) /* the top half of a float in [-2, 2): finite */
            ((uint16_t *)x->data)[gt_offset(x, i)] = (uint16_t)(bits_of(v) >> 16);
        else
            gt_set_f32(x, i, v);
    }
}

wf_buffer gt_host_buffer(const gt_tensor *x) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = x->data;
    b.dtype = x->dtype;
    b.ndim = x->ndim;
    b.device = -1;
    for (int d = 0; d < x->ndim; d++) {
        b.shape[d] = x->shape[d];
        b.strides[d] = x->strides[d];
    }
    return b;
}

/* ---- comparing ---- */

static bool close_enough(float got, float want, gt_compare how) {
    if (how == GT_EXACT)
        return memcmp(&got, &want, sizeof got) == 0;
    if (isnan(got) || isnan(want))
        return false;
    return fabs((double)got - (double)want) <= 1e-6 * fabs((double)want) + 1e-30;
}

bool gt_compare_out(const gt_tensor *got, const gt_tensor *want, gt_compare how, const char *what) {
    int64_t n = gt_numel(want), bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float g = gt_get_f32(got, i), w = gt_get_f32(want, i);
        if (close_enough(g, w, how))
            continue;
        uint32_t gb, wb;
        memcpy(&gb, &g, sizeof gb);
        memcpy(&wb, &w, sizeof wb);
        if (bad++ < 5)
            printf("  %s: element %lld is %.9g (0x%08x), expected %.9g (0x%08x)\n", what,
                   (long long)i, g, gb, w, wb);
    }
    if (bad)
        printf("  %s: %lld of %lld elements wrong\n", what, (long long)bad, (long long)n);
    return bad == 0;
}

/* ---- checked runs ---- */

static gt_tensor poisoned_like(const gt_tensor *want) {
    return gt_dense(want->dtype, want->ndim, want->shape); /* gt_strided fills with 0xFF */
}

static void check_outputs(gt_state *ts, const gt_case *c, gt_tensor *got, const char *mode) {
    char what[64];
    for (int i = 0; i < c->nout; i++) {
        snprintf(what, sizeof what, "%s run, output %d", mode, i);
        if (!gt_compare_out(&got[i], &c->expected[i], c->compare, what))
            ts->failed = true;
    }
}

static void run_host(gt_state *ts, const gt_case *c, const char *file, int line) {
    wf_buffer in[8], out[8];
    gt_tensor got[8];
    for (int i = 0; i < c->nin; i++)
        in[i] = gt_host_buffer(&c->in[i]);
    for (int i = 0; i < c->nout; i++) {
        got[i] = poisoned_like(&c->expected[i]);
        out[i] = gt_host_buffer(&got[i]);
    }
    wf_status s = wf_run(c->k, WF_BACKEND_CUDA, in, c->nin, out, c->nout);
    if (s != WF_OK) {
        printf("  %s:%d: host-buffer run: %s: %s\n", file, line, wf_status_name(s),
               wf_last_run_error(c->k));
        ts->failed = true;
    } else {
        check_outputs(ts, c, got, "host-buffer");
    }
    for (int i = 0; i < c->nout; i++)
        gt_tensor_free(&got[i]);
}

/* A device copy of a host tensor (its whole span, gaps included). */
static bool to_device(const gt_tensor *x, wf_buffer *b) {
    size_t bytes = (size_t)gt_span(x) * wf_dtype_size(x->dtype);
    *b = gt_host_buffer(x);
    b->device = 0;
    b->data = wf_device_alloc(bytes);
    return b->data && wf_device_copy(b->data, x->data, bytes) == WF_OK;
}

static void free_device(wf_buffer *b, int n) {
    for (int i = 0; i < n; i++)
        wf_device_free(b[i].data);
}

static bool fetch(gt_tensor *got, const wf_buffer *out, int n) {
    for (int i = 0; i < n; i++) {
        size_t bytes = (size_t)gt_numel(&got[i]) * wf_dtype_size(got[i].dtype);
        if (wf_device_copy(got[i].data, out[i].data, bytes) != WF_OK)
            return false;
    }
    return true;
}

static void run_device(gt_state *ts, const gt_case *c, const char *file, int line) {
    wf_buffer in[8], out[8];
    gt_tensor got[8];
    bool ok = true;
    for (int i = 0; i < c->nin; i++)
        ok &= to_device(&c->in[i], &in[i]);
    for (int i = 0; i < c->nout; i++) {
        got[i] = poisoned_like(&c->expected[i]);
        ok &= to_device(&got[i], &out[i]);
    }
    wf_status s = ok ? wf_run(c->k, WF_BACKEND_CUDA, in, c->nin, out, c->nout) : WF_ERR_CUDA;
    if (s != WF_OK || !fetch(got, out, c->nout)) {
        printf("  %s:%d: device-buffer run: %s: %s\n", file, line, wf_status_name(s),
               ok ? wf_last_run_error(c->k) : "device allocation or copy failed");
        ts->failed = true;
    } else {
        check_outputs(ts, c, got, "device-buffer");
    }
    free_device(in, c->nin);
    free_device(out, c->nout);
    for (int i = 0; i < c->nout; i++)
        gt_tensor_free(&got[i]);
}

void gt_check(gt_state *ts, const gt_case *c, const char *file, int line) {
    if (!c->k) {
        ts->failed = true;
        return;
    }
    run_host(ts, c, file, line);
    run_device(ts, c, file, line);
}

wf_kernel *gt_compile(gt_state *ts, wf_fusion *f, const wf_compile_options *opt, const char *file,
                      int line) {
    wf_kernel *k = wf_compile(f, opt);
    if (!k) {
        printf("  %s:%d: wf_compile failed: %s: %s\n", file, line,
               wf_status_name(wf_fusion_status(f)), wf_fusion_error(f));
        ts->failed = true;
    }
    return k;
}
