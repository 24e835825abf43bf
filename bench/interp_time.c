/*
 * interp_time.c -- how long the CPU reference executor (WF_BACKEND_INTERP)
 * takes on four typical kernels, every check on:
 *   copy       a 4096 x 4096 f32 copy, coalesced [BIDx, TIDx{128}] over 2^24
 *              elements;
 *   copy-vec   the same copy staged through registers with 4-wide vectors;
 *   matmul     a 256^3 f32 wf_matmul tiled for the CUDA cores: 32 x 32 output
 *              tiles per block of 16 x 16 threads (2 x 2 results each, in
 *              registers), K in steps of 16 with A's and B's tiles staged in
 *              shared memory by all threads (two barriers per step);
 *   rowsum     out[i] = sum_j x[i, j] over a 4096 x 4096 f32 tensor: one block
 *              per row, 256 threads sum strided elements (rfactor), then a
 *              block reduction.
 * Results are checked (copies bit for bit, the matmul and the sum against a
 * double reference within 1e-4 relative).
 *
 * Output (format-stable: one line per case after a title line):
 *   <case>  <wall> s  <cpu> s cpu  <M statement executions/s> M stmt/s  <M elements/s> M elem/s
 * <check> where the rates are per CPU second of the process (steadier than wall time on a shared
 * machine; the executor runs on one thread), "statement executions" is the executor's work count
 * (wf_interp_report's "executed:" line: statements, loop steps and predicates, per thread), the
 * elements are output elements (matmul: multiply-adds), and <check> is "exact",
 * "ok" or the failure. The target is under 10 s per case on the CI machine
 * (2 cores). Exit status: the number of failed cases.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft.h"

enum { N = 4096, MM = 256 };

static double now_s(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static wf_fusion *copy(bool vector) {
    int64_t shape[2] = {N, N};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *in = vector ? wf_cache_after(a) : a;
    wf_tv *b = wf_set(in);
    wf_output(f, b);
    if (vector)
        wf_cache_before(b);
    wf_tv_merge(b, 0);
    if (vector)
        wf_tv_split(b, 0, 4);
    wf_tv_split(b, 0, 128);
    wf_propagate_transforms(b);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_parallelize_all_like(b, 0);
    if (vector) {
        wf_tv_parallelize(in, 2, WF_VECTORIZE);
        wf_tv_parallelize(b, 2, WF_VECTORIZE);
    }
    wf_inline_most(f);
    return f;
}

/* i and j split by 2 then 16 (2 x 2 results per thread, 16 x 16 threads), k by
   16; A and B in shared memory computed at k's outer loop and fetched by all
   threads; the accumulator (cache_before of C) in registers. */
static wf_fusion *matmul(void) {
    int64_t sa[2] = {MM, MM}, sb[2] = {MM, MM};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa), *b = wf_input(f, WF_F32, 2, sb);
    wf_tv *c = wf_matmul(a, b);
    wf_output(f, c);
    wf_tv *as = wf_cache_after(a), *bs = wf_cache_after(b);
    wf_tv_set_memory(as, WF_MEM_SHARED);
    wf_tv_set_memory(bs, WF_MEM_SHARED);
    wf_tv *cl = wf_cache_before(c);
    wf_tv_split(cl, 0, 2);
    wf_tv_split(cl, 0, 16);
    wf_tv_split(cl, 3, 2);
    wf_tv_split(cl, 3, 16);
    wf_tv_split(cl, 6, 16);
    int o2n[8] = {0, 2, 6, 1, 3, 7, 4, 5};
    wf_tv_reorder_all(cl, o2n);
    wf_propagate_transforms(cl);
    wf_tv_parallelize(cl, 0, WF_BIDY);
    wf_tv_parallelize(cl, 1, WF_BIDX);
    wf_tv_parallelize(cl, 2, WF_TIDY);
    wf_tv_parallelize(cl, 3, WF_TIDX);
    wf_parallelize_all_like(cl, 0);
    wf_tv_inline_at(cl, 4);
    wf_compute_at(as, cl, 5);
    wf_compute_at(bs, cl, 5);
    wf_tv *st[2] = {as, bs};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(st[i], 5);
        wf_tv_merge(st[i], 5);
        wf_tv_split(st[i], 5, 16);
        wf_tv_split(st[i], 5, 16);
        wf_tv_parallelize(st[i], 6, WF_TIDY);
        wf_tv_parallelize(st[i], 7, WF_TIDX);
    }
    return f;
}

static wf_fusion *rowsum(void) {
    int64_t shape[2] = {N, N};
    int ax = 1, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 256);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, &rf);
    wf_tv_inline_at(p, 1);
    return f;
}

/* The "executed:" count of wf_interp_report, or -1. */
static double work_of(const wf_kernel *k) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m)
        return -1;
    wf_interp_report(k, m);
    fclose(m);
    const char *at = text ? strstr(text, "executed: ") : NULL;
    double w = at ? strtod(at + 10, NULL) : -1;
    free(text);
    return w;
}

typedef enum { COPY, COPY_VEC, MATMUL, ROWSUM } which;

/* Within 1e-4 of the reference, relative to the sum of magnitudes. */
static int near(const float *got, const double *want, const double *mag, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (fabs(got[i] - want[i]) > 1e-4 * (mag[i] + 1))
            return 0;
    return 1;
}

static int check(which w, const float *a, const float *b, const float *out) {
    if (w == COPY || w == COPY_VEC)
        return memcmp(a, out, sizeof(float) * N * N) == 0;
    int64_t rows = w == MATMUL ? MM : N, cols = w == MATMUL ? MM : 1;
    double *want = calloc((size_t)(rows * cols), sizeof(double));
    double *mag = calloc((size_t)(rows * cols), sizeof(double));
    int ok = want && mag;
    for (int64_t i = 0; ok && i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            for (int64_t k = 0; k < (w == MATMUL ? MM : N); k++) {
                double v = w == MATMUL ? (double)a[i * MM + k] * b[k * MM + j] : a[i * N + k];
                want[i * cols + j] += v;
                mag[i * cols + j] += fabs(v);
            }
    ok = ok && near(out, want, mag, rows * cols);
    free(want);
    free(mag);
    return ok;
}

static int measure(const char *name, which w, const float *src, float *dst) {
    wf_fusion *f = w == MATMUL ? matmul() : w == ROWSUM ? rowsum() : copy(w == COPY_VEC);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        fprintf(stderr, "%s: %s\n", name, wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    wf_buffer in[2] = {{(void *)src, WF_F32, 2, {N, N}, {0}, -1},
                       {(void *)(src + MM * MM), WF_F32, 2, {MM, MM}, {0}, -1}};
    wf_buffer out = {dst, WF_F32, 2, {N, N}, {0}, -1};
    double elems = N * (double)N;
    if (w == MATMUL) {
        in[0].shape[0] = in[0].shape[1] = out.shape[0] = out.shape[1] = MM;
        elems = (double)MM * MM * MM;
    } else if (w == ROWSUM) {
        out.ndim = 1;
    }
    memset(dst, 0xff, sizeof(float) * N * N);
    double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
    wf_status s = wf_run(k, WF_BACKEND_INTERP, in, w == MATMUL ? 2 : 1, &out, 1);
    double t = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0, wall = now_s(CLOCK_MONOTONIC) - w0;
    int good = s == WF_OK && check(w, src, src + MM * MM, dst);
    printf("%-10s %7.2f s %7.2f s cpu  %8.1f M stmt/s  %7.1f M elem/s  %s\n", name, wall, t,
           work_of(k) / t / 1e6, elems / t / 1e6,
           s != WF_OK      ? wf_last_run_error(k)
           : !good         ? "WRONG RESULT"
           : w <= COPY_VEC ? "exact"
                           : "ok");
    wf_kernel_free(k);
    wf_fusion_free(f);
    return !good;
}

int main(int argc, char **argv) {
    float *src = malloc(sizeof(float) * N * N), *dst = malloc(sizeof(float) * N * N);
    if (!src || !dst)
        return 1;
    for (int i = 0; i < N * N; i++)
        src[i] = (float)(i % 1000) * 0.5f - 200.0f;
    static const struct {
        const char *name;
        which w;
    } cases[] = {{"copy", COPY}, {"copy-vec", COPY_VEC}, {"matmul", MATMUL}, {"rowsum", ROWSUM}};
    printf("CPU reference executor (copy 4096^2 f32, matmul 256^3 f32, rowsum 4096^2 f32):\n");
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (argc < 2 || strstr(cases[i].name, argv[1]))
            bad += measure(cases[i].name, cases[i].w, src, dst);
    free(src);
    free(dst);
    return bad;
}
