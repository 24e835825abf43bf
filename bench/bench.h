/*
 * bench.h -- what the GPU benchmarks share (each bench/NAME.c is its own
 * program): a wall clock, a median, device buffers filled with random data
 * (never zeros, which can run faster than real data), and the hand
 * schedules of the bandwidth kernels.
 *
 * The bandwidth schedule: the input(s) cached in registers (cache_after),
 * the result computed in registers (cache_before), the element axis split
 * by 4 (Vectorize: 16-byte loads and stores), by the block size (TIDx) and,
 * when unroll > 1, by the unroll factor, with BIDx outermost. With unroll >
 * 1 the register caches are computed outside the unrolled axis, so each
 * thread issues all its loads before its first store.
 */
#ifndef WF_BENCH_BENCH_H
#define WF_BENCH_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft.h"

#define BENCH_CHUNK ((size_t)64 << 20) /* random data is made 64 MiB at a time */

static inline double bench_now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void bench_die(const char *what, const char *why) {
    fprintf(stderr, "%s: %s\n", what, why);
    exit(1);
}

/* The GPU benchmarks measure nothing without a device: they say so and
   succeed, so that `make bench` runs (and a script can run them) anywhere. */
static inline void bench_require_gpu(void) {
    if (!wf_cuda_available()) {
        printf("skipped: no CUDA device\n");
        exit(0);
    }
}

/* A host chunk of random finite floats in [-2, 2). */
static inline float *bench_random_chunk(uint64_t seed) {
    float *h = malloc(BENCH_CHUNK);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    if (!h)
        bench_die("malloc", "out of host memory");
    for (size_t i = 0; i < BENCH_CHUNK / sizeof(float); i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        h[i] = (float)((s * 0x2545f4914f6cdd1dull) >> 40) / (float)(1 << 22) - 2.0f;
    }
    return h;
}

/* Device memory of bytes (a multiple of BENCH_CHUNK) holding chunk repeated. */
static inline void *bench_device_fill(size_t bytes, const void *chunk) {
    char *d = wf_device_alloc(bytes);
    if (!d)
        bench_die("wf_device_alloc", "failed (no GPU, or out of device memory)");
    for (size_t off = 0; off < bytes; off += BENCH_CHUNK)
        if (wf_device_copy(d + off, chunk, BENCH_CHUNK) != WF_OK)
            bench_die("wf_device_copy", "failed");
    return d;
}

/* Fill device memory of bytes with 0xFF (a NaN in every float), so that an
   output the kernel does not write fails the check. */
static inline void bench_device_poison(void *dev, size_t bytes) {
    char *h = malloc(BENCH_CHUNK);
    if (!h)
        bench_die("malloc", "out of host memory");
    memset(h, 0xFF, BENCH_CHUNK);
    for (size_t off = 0; off < bytes; off += BENCH_CHUNK)
        if (wf_device_copy((char *)dev + off, h, BENCH_CHUNK) != WF_OK)
            bench_die("wf_device_copy", "failed");
    free(h);
}

/* Check device memory of bytes against the chunk expected in every slot. */
static inline int bench_device_equals(const void *dev, size_t bytes, const void *chunk) {
    char *h = malloc(BENCH_CHUNK);
    int ok = h != NULL;
    for (size_t off = 0; ok && off < bytes; off += BENCH_CHUNK)
        ok = wf_device_copy(h, (const char *)dev + off, BENCH_CHUNK) == WF_OK &&
             memcmp(h, chunk, BENCH_CHUNK) == 0;
    free(h);
    return ok;
}

static inline wf_buffer bench_buffer(void *dev, int64_t n) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = dev;
    b.dtype = WF_F32;
    b.ndim = 1;
    b.shape[0] = n;
    b.device = 0;
    return b;
}

/* out = in (nin = 1) or out = in0 + in1 (nin = 2) over n floats, scheduled
   as the header comment says. */
static inline wf_kernel *bench_stream_kernel(int64_t n, int nin, int threads, int unroll) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *c[2] = {NULL, NULL};
    for (int i = 0; i < nin; i++)
        c[i] = wf_cache_after(wf_input(f, WF_F32, 1, shape));
    wf_tv *out = nin == 2 ? wf_add(c[0], c[1]) : wf_set(c[0]);
    wf_output(f, out);
    wf_tv *r = wf_cache_before(out);
    int v = unroll > 1 ? 3 : 2; /* the vectorized axis */
    wf_tv_split(out, 0, 4);
    wf_tv_split(out, 0, threads);
    if (unroll > 1)
        wf_tv_split(out, 0, unroll);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, v - 1, WF_TIDX);
    if (unroll > 1)
        wf_tv_parallelize(out, 1, WF_UNROLL);
    wf_parallelize_all_like(out, 0);
    wf_tv_parallelize(out, v, WF_VECTORIZE);
    for (int i = 0; i < nin; i++)
        wf_tv_parallelize(c[i], v, WF_VECTORIZE);
    wf_inline_most(f);
    if (unroll > 1) {
        for (int i = 0; i < nin; i++)
            wf_tv_inline_at(c[i], 1);
        wf_tv_inline_at(r, 1);
    }
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("wf_compile", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

#endif
