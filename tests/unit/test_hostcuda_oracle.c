/*
 * test_hostcuda_oracle.c -- the generated CUDA text, compiled by the host
 * C++ compiler and run on the CPU (tests/hostcuda/), against the CPU
 * executor and the independent reference of test_ops_matrix.h.
 *
 * The executor runs the kernel IR, not the text, so before this oracle a
 * wrong operator in codegen (`-` printed for `+`, an inverted relu, a float
 * to int cast without its NaN rule) passed the CPU suite. Here every unary
 * and binary op and every cast in every dtype (120 kernels: same-type and
 * mixed pairs) and a few scheduled kernels (splits with non-divisible
 * predicates, BIDx/TIDx, inlining, local-memory arrays, vector copies,
 * symbolic extents, f16/bf16 rounding at ties, subnormals and overflow) run
 * as CUDA C++ on the host. Outputs must equal the
 * executor's bit for bit (a NaN equals any NaN: payloads are not specified)
 * and the reference exactly, except the transcendental float ops (exp, log,
 * rsqrt, sin, cos, tanh, sigmoid, pow), where the host's libm and the
 * executor's double-then-round may differ in the last bits: within 4 ulps of
 * the output type. Integers, bools and casts are exact.
 *
 * All kernels go into one host program (one compiler run, a few seconds),
 * built once and shared by the tests of this file. Without a host compiler
 * the tests skip and say so.
 */
#include "harness.h"
#include "hostcuda/hostcuda.h"
#include "test_ops_matrix.h"

#include <stdlib.h>

#define HC_ULPS 4.0 /* transcendental float ops: host libm vs the executor */

/* One kernel of the oracle's batch: its inputs and the executor's outputs. */
typedef struct {
    om_kind kind; /* OM_* for the op matrix; -1 for a scheduled kernel */
    wf_dtype t, tb;
    const char *name; /* scheduled kernels */
    int nin, nout;
    wf_buffer in[2], out[OM_NUNARY]; /* the executor's outputs */
    int hc;                          /* the case in the batch, -1 if not added */
    bool filled;                     /* inputs set by the builder, not random */
} hc_kernel;

#define HC_MAX_KERNELS 160 /* 120 of the matrix, the scheduled ones, the changed one */

static struct {
    bool built;
    hc_status status;
    char msg[2048];
    char skip[200]; /* msg, shortened for SKIP */
    om_report exec; /* the executor against the reference (setup problems too) */
    hc_kernel k[HC_MAX_KERNELS];
    int n;
    int changed; /* the kernel run with a changed operator (see below) */
    double compile_s, run_s;
    hc_batch *b;
} st;

static bool tolerant(om_kind kind, int op, wf_dtype out) {
    if (!om_is_float(out))
        return false;
    if (kind == OM_UNARY)
        return op == WF_EXP || op == WF_LOG || op == WF_RSQRT || op == WF_SIN || op == WF_COS ||
               op == WF_TANH || op == WF_SIGMOID;
    return kind == OM_BINARY && op == WF_POW;
}

static void *poisoned(size_t bytes) {
    void *p = malloc(bytes);
    if (p)
        memset(p, 0xFF, bytes);
    return p;
}

static wf_buffer buf1(wf_dtype t, int ndim, const int64_t *shape) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    size_t n = 1;
    b.dtype = t;
    b.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        n *= (size_t)(b.shape[d] = shape[d]);
    b.device = -1;
    b.data = poisoned(n * wf_dtype_size(t));
    return b;
}

static size_t buf_bytes(const wf_buffer *b) {
    size_t n = wf_dtype_size(b->dtype);
    for (int d = 0; d < b->ndim; d++)
        n *= (size_t)b->shape[d];
    return n;
}

/* Run k on the executor, check nothing failed, add it to the batch. */
static void add_kernel(hc_kernel *h, wf_kernel *k, const char *source) {
    char msg[512], why[300];
    h->hc = -1;
    wf_status s = wf_run(k, WF_BACKEND_INTERP, h->in, h->nin, h->out, h->nout);
    if (s != WF_OK) {
        snprintf(msg, sizeof msg, "%s: executor: %s: %.300s", h->name ? h->name : "op kernel",
                 wf_status_name(s), wf_last_run_error(k));
        om_note(&st.exec, msg);
        return;
    }
    h->hc = hc_add(st.b, k, source, h->in, h->nin, h->out, h->nout, why, sizeof why);
    if (h->hc < 0) {
        snprintf(msg, sizeof msg, "%s: not added: %s", h->name ? h->name : "op kernel", why);
        om_note(&st.exec, msg);
    }
}

/* One kernel of the op matrix (as om_run_case builds it). */
static wf_kernel *op_kernel(hc_kernel *h, om_kind kind, wf_dtype t, wf_dtype tb, wf_fusion **fp) {
    int64_t shape[1] = {OM_N};
    wf_fusion *f = *fp = wf_fusion_new();
    wf_tv *a = wf_input(f, t, 1, shape), *b = kind == OM_BINARY ? wf_input(f, tb, 1, shape) : NULL;
    h->kind = kind;
    h->t = t;
    h->tb = tb;
    h->nin = kind == OM_BINARY ? 2 : 1;
    h->nout = kind == OM_UNARY ? OM_NUNARY : kind == OM_BINARY ? OM_NBINARY : OM_NTYPE;
    for (int o = 0; o < h->nout; o++) {
        wf_tv *out = kind == OM_UNARY    ? wf_unary((wf_unary_op)o, a)
                     : kind == OM_BINARY ? wf_binary((wf_binary_op)o, a, b)
                                         : wf_cast(a, (wf_dtype)o);
        wf_output(f, out);
        wf_tv_parallelize(out, 0, WF_TIDX);
        wf_dtype ot = (wf_dtype)o;
        om_val z = {0, 0};
        if (kind == OM_UNARY)
            om_ref_unary(o, t, z, &ot);
        else if (kind == OM_BINARY)
            om_ref_binary(o, t, z, tb, z, &ot);
        h->out[o] = buf1(ot, 1, shape);
    }
    h->in[0] = buf1(t, 1, shape);
    om_fill(t, h->in[0].data, 0);
    if (kind == OM_BINARY) {
        h->in[1] = buf1(tb, 1, shape);
        om_fill(tb, h->in[1].data, 1);
    }
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s kernel %d: wf_compile failed: %.300s", om_names[t], kind,
                 wf_fusion_error(f));
        om_note(&st.exec, msg);
    }
    return k;
}

static void add_op_kernel(om_kind kind, wf_dtype t, wf_dtype tb) {
    wf_fusion *f;
    hc_kernel *h = &st.k[st.n++];
    wf_kernel *k = op_kernel(h, kind, t, tb, &f);
    if (k)
        add_kernel(h, k, NULL);
    else
        h->hc = -1;
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The f32 binary kernel again, its text changed: `+` printed as `-`. The
   oracle must report its add output (and only that one) as different. */
static void add_changed_kernel(void) {
    wf_fusion *f;
    hc_kernel *h = &st.k[st.changed = st.n++];
    wf_kernel *k = op_kernel(h, OM_BINARY, WF_F32, WF_F32, &f);
    if (k) {
        const char *src = wf_kernel_source(k);
        char *text = strdup(src), *plus = text ? strstr(text, "] + T") : NULL;
        if (plus)
            plus[2] = '-';
        else
            om_note(&st.exec, "the f32 binary kernel has no `] + T`: update the changed kernel");
        add_kernel(h, k, text);
        free(text);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- scheduled kernels ---- */

static void fill_random(wf_buffer *b, uint64_t seed) {
    size_t n = buf_bytes(b) / wf_dtype_size(b->dtype);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = om_rand(&seed);
        double x = (double)(r % 100000) / 12500.0 - 4.0;
        unsigned char *p = (unsigned char *)b->data + i * wf_dtype_size(b->dtype);
        float f = (float)x;
        uint16_t h;
        switch (b->dtype) {
        case WF_F32:
            memcpy(p, &f, 4);
            break;
        case WF_F64:
            memcpy(p, &x, 8);
            break;
        case WF_F16: /* exponents 2^-4 .. 2^1, either sign */
            h = (uint16_t)((r & 0x8000) | ((11 + (r >> 16) % 6) << 10) | (r & 1023));
            memcpy(p, &h, 2);
            break;
        case WF_BF16:
            h = (uint16_t)((r & 0x8000) | ((123 + (r >> 16) % 6) << 7) | (r & 127));
            memcpy(p, &h, 2);
            break;
        default: /* integers: any bits (wrapping); bools 0/1 */
            r = b->dtype == WF_BOOL ? r & 1 : r;
            memcpy(p, &r, wf_dtype_size(b->dtype));
            break;
        }
    }
}

typedef wf_fusion *(*sched_fn)(hc_kernel *h);

/* relu(a * b + a) on [37, 45] f32: merged, split by 128 (1665 = 13 x 128 + 1:
   a predicate), BIDx x TIDx, intermediates inlined. */
static wf_fusion *s_merge_split(hc_kernel *h) {
    int64_t shape[2] = {37, 45};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_tv *c = wf_unary(WF_RELU, wf_binary(WF_ADD, wf_binary(WF_MUL, a, b), a));
    wf_output(f, c);
    wf_tv_merge(c, 0);
    wf_tv_split(c, 0, 128);
    wf_propagate_transforms(c);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_parallelize_all_like(c, 0);
    wf_inline_most(f);
    h->name = "merge_split_bidx_tidx";
    h->nin = 2;
    h->nout = 1;
    h->in[0] = buf1(WF_F32, 2, shape);
    h->in[1] = buf1(WF_F32, 2, shape);
    h->out[0] = buf1(WF_F32, 2, shape);
    return f;
}

/* i32 [64, 40]: t = neg(a) kept in a local array of 40 per block (inlined at
   1, not fully), out = t * b + t; blocks on axis 0, the row loop serial. */
static wf_fusion *s_local_array(hc_kernel *h) {
    int64_t shape[2] = {64, 40};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_I32, 2, shape), *b = wf_input(f, WF_I32, 2, shape);
    wf_tv *t = wf_unary(WF_NEG, a);
    wf_tv *out = wf_binary(WF_ADD, wf_binary(WF_MUL, t, b), t);
    wf_output(f, out);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    wf_tv_inline_at(t, 1);
    h->name = "local_array_inlined_at_1";
    h->nin = 2;
    h->nout = 1;
    h->in[0] = buf1(WF_I32, 2, shape);
    h->in[1] = buf1(WF_I32, 2, shape);
    h->out[0] = buf1(WF_I32, 2, shape);
    return f;
}

/* transpose(a i8 [24, 33]) + broadcast(b i16 [33]) -> i16 [33, 24]; the
   inner axis split by 16 (24 = 16 + 8: a predicate), BIDx, serial, TIDx. */
static wf_fusion *s_transpose_broadcast(hc_kernel *h) {
    int64_t sa[2] = {24, 33}, sb[1] = {33}, sc[2] = {33, 24};
    bool bc[2] = {false, true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_I8, 2, sa), *b = wf_input(f, WF_I16, 1, sb);
    wf_tv *c = wf_binary(WF_SUB, wf_transpose(a, 0, 1), wf_broadcast(b, 2, bc));
    wf_output(f, c);
    wf_tv_split(c, 1, 16);
    wf_propagate_transforms(c);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 2, WF_TIDX);
    wf_parallelize_all_like(c, 0);
    wf_inline_most(f);
    h->name = "transpose_broadcast_split_16";
    h->nin = 2;
    h->nout = 1;
    h->in[0] = buf1(WF_I8, 2, sa);
    h->in[1] = buf1(WF_I16, 1, sb);
    h->out[0] = buf1(WF_I16, 2, sc);
    return f;
}

/* A symbolic [n] f16 (n = 1000 at run time): out = cast(a * a - a, bf16)
   and max(a, 0.5 * a) in f16; outer split by 8 blocks, TIDx inside. */
static wf_fusion *s_symbolic(hc_kernel *h) {
    int64_t n = -1, run[1] = {1000};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F16, 1, &n);
    wf_tv *o1 = wf_cast(wf_binary(WF_SUB, wf_binary(WF_MUL, a, a), a), WF_BF16);
    wf_tv *o2 = wf_binary(WF_MAX, a, wf_unary(WF_NEG, wf_unary(WF_RELU, a)));
    wf_output(f, o1);
    wf_output(f, o2);
    wf_tv_split_outer(o1, 0, 8);
    wf_propagate_transforms(o1);
    wf_tv_parallelize(o1, 0, WF_BIDX);
    wf_tv_parallelize(o1, 1, WF_TIDX);
    wf_parallelize_all_like(o1, 0);
    wf_inline_most(f);
    h->name = "symbolic_extent_split_outer_f16";
    h->nin = 1;
    h->nout = 2;
    h->in[0] = buf1(WF_F16, 1, run);
    h->out[0] = buf1(WF_BF16, 1, run);
    h->out[1] = buf1(WF_F16, 1, run);
    return f;
}

/* A vectorized f16 copy through local memory: in -> cache (8-wide vector
   loads) -> set -> cache -> out (8-wide stores), [4096/8/128, 128, 8]. */
static wf_fusion *s_vector_copy(hc_kernel *h) {
    int64_t n = 4096;
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F16, 1, &n);
    wf_tv *out = wf_set(in);
    wf_output(f, out);
    wf_tv *load = wf_cache_after(in);
    wf_cache_before(out);
    wf_tv_split(out, 0, 8);
    wf_tv_split(out, 0, 128);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    wf_tv_parallelize(load, 2, WF_VECTORIZE);
    wf_tv_parallelize(out, 2, WF_VECTORIZE);
    wf_inline_most(f);
    h->name = "vectorized_local_copy_f16";
    h->nin = 1;
    h->nout = 1;
    h->in[0] = buf1(WF_F16, 1, &n);
    h->out[0] = buf1(WF_F16, 1, &n);
    return f;
}

/* Rounding to f16 and bf16 where it is hard: x f32 [4096] holds, for f16
   values spread over every exponent (subnormals included) and both signs,
   the value itself, the midpoint to the next one (a tie: to even) and the
   floats just above and below it, plus overflow and NaN; y the same for
   bf16. Outputs: cast(x, f16), cast(y, bf16), cast(cast(x, f16), f32). */
#define HR_N 4096
static float hr_pick(double lo, double hi, int mode) {
    float mid = (float)((lo + hi) / 2); /* exact: 11 or 8 bits need no more than 24 */
    return mode == 0 ? (float)lo : mode == 1 ? mid : nextafterf(mid, mode == 2 ? INFINITY : 0.0f);
}

static void hr_fill(float *x, float *y) {
    for (int i = 0; i < HR_N; i++) {
        int mode = i % 4;
        uint16_t h = (uint16_t)((i / 4) * 67 % 0x7c00), sign = (uint16_t)(i & 8 ? 0x8000 : 0);
        uint16_t b = (uint16_t)((i / 4) * 131 % 0x7f80);
        float fx = hr_pick(om_h2d(h), om_h2d((uint16_t)(h + 1)), mode);
        float fy = hr_pick(om_b2d(b), om_b2d((uint16_t)(b + 1)), mode);
        x[i] = sign ? -fx : fx;
        y[i] = sign ? -fy : fy;
    }
    x[0] = 65520.0f; /* the midpoint of f16's max and 2^16: a tie rounds to infinity */
    x[4] = 65519.99f;
    x[1] = y[1] = NAN;
    y[2] = 3.4e38f;
}

static wf_fusion *s_half_rounding(hc_kernel *h) {
    int64_t n = HR_N;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, &n), *y = wf_input(f, WF_F32, 1, &n);
    wf_tv *hx = wf_cast(x, WF_F16), *by = wf_cast(y, WF_BF16), *back = wf_cast(hx, WF_F32);
    wf_output(f, hx);
    wf_output(f, by);
    wf_output(f, back);
    wf_tv_split(back, 0, 256);
    wf_propagate_transforms(back);
    wf_tv_parallelize(back, 0, WF_BIDX);
    wf_tv_parallelize(back, 1, WF_TIDX);
    wf_parallelize_all_like(back, 0);
    wf_inline_most(f);
    h->name = "f16_bf16_rounding_ties_subnormals";
    h->nin = 2;
    h->nout = 3;
    h->in[0] = buf1(WF_F32, 1, &n);
    h->in[1] = buf1(WF_F32, 1, &n);
    h->out[0] = buf1(WF_F16, 1, &n);
    h->out[1] = buf1(WF_BF16, 1, &n);
    h->out[2] = buf1(WF_F32, 1, &n);
    hr_fill(h->in[0].data, h->in[1].data);
    h->filled = true;
    return f;
}

static const sched_fn sched[] = {s_merge_split, s_local_array, s_transpose_broadcast,
                                 s_symbolic,    s_vector_copy, s_half_rounding};
#define NSCHED ((int)(sizeof sched / sizeof *sched))

static void add_scheduled(int i) {
    hc_kernel *h = &st.k[st.n++];
    h->kind = (om_kind)-1;
    h->hc = -1;
    wf_fusion *f = sched[i](h);
    for (int j = 0; j < h->nin && !h->filled; j++)
        fill_random(&h->in[j], 1234567u * (uint64_t)(i + 1) + (uint64_t)j);
    wf_kernel *k = wf_compile(f, NULL);
    char msg[512];
    if (!k) {
        snprintf(msg, sizeof msg, "%s: wf_compile failed: %.300s", h->name, wf_fusion_error(f));
        om_note(&st.exec, msg);
    } else {
        char log[2048];
        wf_status s = wf_kernel_check_nvrtc(k, 90, log, sizeof log);
        if (s != WF_OK && s != WF_ERR_UNSUPPORTED) {
            snprintf(msg, sizeof msg, "%s: NVRTC rejected it: %.300s", h->name, log);
            om_note(&st.exec, msg);
        }
        add_kernel(h, k, NULL);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Build every kernel, run it on the executor, run the batch on the host. */
static void build(void) {
    if (st.built)
        return;
    st.built = true;
    st.b = hc_new();
    if (!st.b) {
        st.status = HC_FAILED;
        snprintf(st.msg, sizeof st.msg, "out of memory");
        return;
    }
    for (int t = 0; t < OM_NTYPE; t++)
        for (int kind = OM_UNARY; kind <= OM_CAST; kind++)
            add_op_kernel((om_kind)kind, (wf_dtype)t, (wf_dtype)t);
    for (int a = 0; a < OM_NTYPE; a++)
        for (int b = 0; b < OM_NTYPE; b++)
            if (a != b)
                add_op_kernel(OM_BINARY, (wf_dtype)a, (wf_dtype)b);
    for (int i = 0; i < NSCHED; i++)
        add_scheduled(i);
    add_changed_kernel();
    st.status = hc_run(st.b, st.msg, sizeof st.msg);
    hc_times(st.b, &st.compile_s, &st.run_s);
    snprintf(st.skip, sizeof st.skip, "%.150s", st.msg);
    printf("  host-CUDA oracle: %d kernels, compile %.1f s, run %.2f s\n", st.n, st.compile_s,
           st.run_s);
}

/* ---- comparisons ---- */

static bool same_element(wf_dtype t, const void *x, const void *y, int e, double ulps) {
    om_val a = om_get(t, x, e), b = om_get(t, y, e);
    if (om_is_float(t))
        return om_close(t, a.d, b.d, ulps);
    return a.i == b.i;
}

/* Output o of kernel h on the host against the executor's; returns the
   number of differing elements (the first one noted in r, unless quiet). */
static int compare_exec_q(om_report *r, const hc_kernel *h, int o, double ulps, bool quiet) {
    const void *got = hc_output(st.b, h->hc, o);
    const wf_buffer *want = &h->out[o];
    int64_t n = (int64_t)(buf_bytes(want) / wf_dtype_size(want->dtype)), bad = 0;
    for (int64_t e = 0; e < n; e++) {
        if (same_element(want->dtype, got, want->data, (int)e, ulps) || bad++ || quiet)
            continue;
        om_val g = om_get(want->dtype, got, (int)e), w = om_get(want->dtype, want->data, (int)e);
        char what[64], msg[512];
        if (h->name)
            snprintf(what, sizeof what, "%s", h->name);
        else
            snprintf(what, sizeof what, "%s (%s, %s)",
                     h->kind == OM_UNARY    ? om_unary_names[o]
                     : h->kind == OM_BINARY ? om_binary_names[o]
                                            : "cast",
                     om_names[h->t], om_names[h->tb]);
        snprintf(msg, sizeof msg,
                 "%s output %d element %lld: host CUDA %.17g | %lld, executor %.17g | %lld", what,
                 o, (long long)e, g.d, (long long)g.i, w.d, (long long)w.i);
        om_note(r, msg);
    }
    return (int)bad;
}

static int compare_exec(om_report *r, const hc_kernel *h, int o, double ulps) {
    return compare_exec_q(r, h, o, ulps, false);
}

static void compare_matrix(om_report *r, bool mixed) {
    for (int i = 0; i < st.n; i++) {
        const hc_kernel *h = &st.k[i];
        if (i == st.changed || (int)h->kind < 0 || (h->t != h->tb) != mixed)
            continue;
        r->kernels++;
        if (h->hc < 0 || !hc_output(st.b, h->hc, 0)) {
            om_note(r, "a kernel of the matrix did not run on the host (see above)");
            continue;
        }
        for (int o = 0; o < h->nout; o++) {
            double ulps = tolerant(h->kind, o, h->out[o].dtype) ? HC_ULPS : 0;
            compare_exec(r, h, o, ulps);
            om_check_output(r, h->kind, o, h->t, h->tb, h->in[0].data,
                            h->kind == OM_BINARY ? h->in[1].data : NULL, h->out[o].dtype,
                            hc_output(st.b, h->hc, o), ulps);
        }
    }
}

#define NEED_ORACLE()                                                                              \
    do {                                                                                           \
        build();                                                                                   \
        if (st.status == HC_NO_COMPILER)                                                           \
            SKIP(st.skip);                                                                         \
        if (st.status != HC_OK) {                                                                  \
            printf("  host-CUDA oracle: %s\n", st.msg);                                            \
            CHECK(st.status == HC_OK);                                                             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

TEST(hostcuda_every_op_and_cast_in_every_dtype_matches_the_executor_and_the_reference) {
    NEED_ORACLE();
    CHECK_EQ_I64(st.exec.failed, 0); /* every kernel built, ran on the executor, was added */
    om_report r = {0, 0, {0}};
    compare_matrix(&r, false);
    CHECK_EQ_I64(r.kernels, 30);
    CHECK_EQ_I64(r.failed, 0);
}

TEST(hostcuda_binary_ops_on_mixed_dtypes_match_the_executor_and_the_reference) {
    NEED_ORACLE();
    CHECK_EQ_I64(st.exec.failed, 0);
    om_report r = {0, 0, {0}};
    compare_matrix(&r, true);
    CHECK_EQ_I64(r.kernels, 90);
    CHECK_EQ_I64(r.failed, 0);
}

/* Exact: no transcendental op in these kernels. The merge/split kernel is
   also checked against float arithmetic written here, the transpose one
   against wrapping 16-bit integer arithmetic. */
TEST(hostcuda_scheduled_kernels_match_the_executor_bit_for_bit) {
    NEED_ORACLE();
    CHECK_EQ_I64(st.exec.failed, 0);
    om_report r = {0, 0, {0}};
    int checked = 0;
    for (int i = 0; i < st.n; i++) {
        const hc_kernel *h = &st.k[i];
        if ((int)h->kind >= 0 || h->hc < 0)
            continue;
        checked++;
        for (int o = 0; o < h->nout; o++)
            CHECK_EQ_I64(compare_exec(&r, h, o, 0), 0);
        const void *got = hc_output(st.b, h->hc, 0);
        if (strcmp(h->name, "merge_split_bidx_tidx") == 0) {
            const float *a = h->in[0].data, *b = h->in[1].data, *c = got;
            int bad = 0;
            for (int e = 0; e < 37 * 45; e++) {
                float v = a[e] * b[e] + a[e];
                bad += memcmp(&c[e], &(float){v > 0 ? v : 0.0f}, 4) != 0;
            }
            CHECK_EQ_I64(bad, 0);
        } else if (strcmp(h->name, "f16_bf16_rounding_ties_subnormals") == 0) {
            int bad = 0;
            for (int e = 0; e < HR_N; e++) {
                double x = om_get(WF_F32, h->in[0].data, e).d,
                       y = om_get(WF_F32, h->in[1].data, e).d;
                bad += !om_close(WF_F16, om_get(WF_F16, got, e).d, om_round(WF_F16, x), 0);
                bad += !om_close(WF_BF16, om_get(WF_BF16, hc_output(st.b, h->hc, 1), e).d,
                                 om_round(WF_BF16, y), 0);
                bad += !om_close(WF_F32, om_get(WF_F32, hc_output(st.b, h->hc, 2), e).d,
                                 om_round(WF_F16, x), 0);
            }
            CHECK_EQ_I64(bad, 0);
        } else if (strcmp(h->name, "transpose_broadcast_split_16") == 0) {
            const int8_t *a = h->in[0].data;
            const int16_t *b = h->in[1].data, *c = got;
            int bad = 0;
            for (int i0 = 0; i0 < 33; i0++)
                for (int i1 = 0; i1 < 24; i1++)
                    bad += c[i0 * 24 + i1] != (int16_t)(uint16_t)(a[i1 * 33 + i0] - b[i0]);
            CHECK_EQ_I64(bad, 0);
        }
    }
    CHECK_EQ_I64(checked, NSCHED);
    CHECK_EQ_I64(r.failed, 0);
}

/* The oracle can fail: the f32 binary kernel with `+` printed as `-` differs
   from the executor in its add output (and nowhere else). */
TEST(hostcuda_sees_a_changed_operator_in_the_cuda_text) {
    NEED_ORACLE();
    const hc_kernel *h = &st.k[st.changed];
    CHECK(h->hc >= 0);
    if (h->hc < 0)
        return;
    om_report r = {0, 0, {0}};
    int bad_add = compare_exec_q(&r, h, WF_ADD, 0, true);
    CHECK(bad_add > 40); /* of 64: not where the operands make a - b = a + b */
    int bad_other = 0;
    for (int o = 1; o < h->nout; o++)
        bad_other += compare_exec(&r, h, o, tolerant(OM_BINARY, o, WF_F32) ? HC_ULPS : 0);
    CHECK_EQ_I64(bad_other, 0);
}

/* Shared memory and barriers are out of the oracle's scope: refused, with the
   reason, never run as if serial threads could model them. */
TEST(hostcuda_refuses_a_kernel_with_shared_memory_and_says_why) {
    int64_t shape[2] = {64, 64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *t = wf_transpose(a, 0, 1);
    wf_output(f, t);
    wf_tv *tile = wf_cache_after(a);
    wf_tv_set_memory(tile, WF_MEM_SHARED);
    wf_tv_split(t, 1, 32);
    wf_tv_split(t, 0, 32);
    wf_propagate_transforms(t);
    wf_tv_parallelize(t, 0, WF_BIDY);
    wf_tv_parallelize(t, 2, WF_BIDX);
    wf_tv_parallelize(t, 3, WF_TIDX);
    wf_parallelize_all_like(t, 1u << WF_BIDX | 1u << WF_BIDY);
    wf_tv_parallelize(tile, 3, WF_TIDX);
    wf_inline_all_at(t, 2);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    float in[64 * 64] = {0}, out[64 * 64];
    wf_buffer ib = {in, WF_F32, 2, {64, 64}, {0}, -1}, ob = {out, WF_F32, 2, {64, 64}, {0}, -1};
    hc_batch *b = hc_new();
    char why[400] = "";
    CHECK_EQ_I64(hc_add(b, k, NULL, &ib, 1, &ob, 1, why, sizeof why), -1);
    CHECK_HAS(why, "the host-CUDA oracle cannot run this kernel: it uses ");
    CHECK(strstr(why, "shared memory") || strstr(why, "__syncthreads"));
    hc_free(b);
    wf_kernel_free(k);
    wf_fusion_free(f);
    (void)om_run_matrix;
    (void)om_run_mixed;
}
