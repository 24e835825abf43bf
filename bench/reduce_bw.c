/*
 * reduce_bw.c -- bandwidth of hand-scheduled inner and outer sums of a
 * 16384 x 16384 f32 tensor (1 GiB), against a device-to-device copy of the
 * same bytes timed in the same process (the copy moves 2 x bytes, a sum
 * reads 1 x bytes; the ratio compares bandwidths).
 *
 * Inner sum (out[i] = sum_j x[i, j]): one block per row, the row split into
 * [serial, B on threadIdx.x], rfactored: each thread sums its strided
 * elements (coalesced), then a block reduction. Outer sum (out[j] = sum_i
 * x[i, j]): columns split onto blockIdx.x x 32 threadIdx.x (coalesced rows
 * of 128 bytes), rows onto [serial, TY on threadIdx.y], rfactored: per
 * thread serial sums, then a block reduction over threadIdx.y. Each result
 * is checked against a double reference (within 1e-5 of the sum of
 * magnitudes). PyTorch's numbers (0.96 inner, 1.01 outer of copy bandwidth
 * on an H100) come from a separate Python run; this program prints weft's.
 * Last lines: "RESULT sum-inner ..." and "RESULT sum-outer ...".
 */
#include "bench.h"

#include <math.h>

enum { WARMUP = 3, REPS = 20 };

static const int64_t N = 16384;

static double gbps(double bytes, double us) {
    return bytes / (us * 1e3);
}

static wf_kernel *inner_sum(int64_t b) {
    int64_t shape[2] = {N, N};
    int ax = 1, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, b);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, &rf);
    wf_tv_inline_at(p, 1);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("inner sum", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

static wf_kernel *outer_sum(int64_t ty) {
    int64_t shape[2] = {N, N};
    int ax = 0, rf = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 32); /* [r, i/32, i32] */
    wf_tv_split(s, 0, ty); /* [r/ty, r_ty, i/32, i32] */
    wf_tv_parallelize(s, 1, WF_TIDY);
    wf_tv_parallelize(s, 2, WF_BIDX);
    wf_tv_parallelize(s, 3, WF_TIDX);
    if (!wf_tv_rfactor(s, 1, &rf))
        bench_die("outer sum", wf_fusion_error(f));
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("outer sum", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

/* The input is the chunk repeated: rows r and r + rows_per_chunk are equal. */
static void reference(const float *chunk, bool inner, double *want, double *mag) {
    int64_t rows = (int64_t)(BENCH_CHUNK / sizeof(float)) / N, reps = N / rows;
    for (int64_t i = 0; i < N; i++)
        want[i] = mag[i] = 0;
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < N; c++) {
            double v = chunk[r * N + c];
            int64_t o = inner ? r : c;
            want[o] += inner ? v : v * (double)reps;
            mag[o] += inner ? fabs(v) : fabs(v) * (double)reps;
        }
    for (int64_t i = rows; inner && i < N; i++) {
        want[i] = want[i % rows];
        mag[i] = mag[i % rows];
    }
}

static int check(const void *dev, const float *chunk, bool inner) {
    float *got = malloc(sizeof(float) * (size_t)N);
    double *want = malloc(sizeof(double) * (size_t)N), *mag = malloc(sizeof(double) * (size_t)N);
    int ok = got && want && mag && wf_device_copy(got, dev, sizeof(float) * (size_t)N) == WF_OK;
    if (ok)
        reference(chunk, inner, want, mag);
    for (int64_t i = 0; ok && i < N; i++)
        ok = fabs(got[i] - want[i]) <= 1e-5 * mag[i] + 1e-6;
    free(got);
    free(want);
    free(mag);
    return ok;
}

static double run(wf_kernel *k, void *x, void *out, const float *chunk, bool inner) {
    wf_buffer in, ob;
    memset(&in, 0, sizeof in);
    memset(&ob, 0, sizeof ob);
    in.data = x;
    in.dtype = ob.dtype = WF_F32;
    in.ndim = 2;
    in.shape[0] = in.shape[1] = N;
    ob.data = out;
    ob.ndim = 1;
    ob.shape[0] = N;
    double us = 0;
    if (wf_time(k, &in, 1, &ob, 1, WARMUP, REPS, &us) != WF_OK)
        bench_die("wf_time", wf_last_run_error(k));
    if (!check(out, chunk, inner))
        bench_die(inner ? "inner sum" : "outer sum", "WRONG result");
    return us;
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)(N * N) * sizeof(float);
    float *chunk = bench_random_chunk(11);
    void *x = bench_device_fill(bytes, chunk), *y = bench_device_fill(bytes, chunk);
    void *out = wf_device_alloc(sizeof(float) * (size_t)N);
    double d2d = 0;
    if (!out || wf_device_memcpy_time(y, x, bytes, WARMUP, REPS, &d2d) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    double copy_bw = gbps(2.0 * bytes, d2d);
    printf("%-34s %10.1f us %8.1f GB/s\n", "device-to-device copy (2 x bytes)", d2d, copy_bw);
    static const int64_t blocks[] = {128, 256, 512, 1024}, tys[] = {4, 8, 16, 32};
    double best[2] = {1e30, 1e30};
    int64_t arg[2] = {0, 0};
    for (int i = 0; i < 4; i++) {
        wf_kernel *k = inner_sum(blocks[i]);
        double us = run(k, x, out, chunk, true);
        printf("inner sum, block %-17lld %10.1f us %8.1f GB/s  %5.1f%% of copy\n",
               (long long)blocks[i], us, gbps(bytes, us), 100 * gbps(bytes, us) / copy_bw);
        if (us < best[0])
            best[0] = us, arg[0] = blocks[i];
        wf_kernel_free(k);
        k = outer_sum(tys[i]);
        us = run(k, x, out, chunk, false);
        printf("outer sum, 32 x %-16lld %10.1f us %8.1f GB/s  %5.1f%% of copy\n", (long long)tys[i],
               us, gbps(bytes, us), 100 * gbps(bytes, us) / copy_bw);
        if (us < best[1])
            best[1] = us, arg[1] = tys[i];
        wf_kernel_free(k);
    }
    printf("RESULT sum-inner 16384x16384 f32: block %lld, %.1f us, %.1f GB/s, %.3f of copy\n",
           (long long)arg[0], best[0], gbps(bytes, best[0]), gbps(bytes, best[0]) / copy_bw);
    printf("RESULT sum-outer 16384x16384 f32: 32 x %lld, %.1f us, %.1f GB/s, %.3f of copy\n",
           (long long)arg[1], best[1], gbps(bytes, best[1]), gbps(bytes, best[1]) / copy_bw);
    wf_device_free(x);
    wf_device_free(y);
    wf_device_free(out);
    free(chunk);
    return 0;
}
