/*
 * interp_time.c -- how long the CPU reference executor takes for a
 * 4096 x 4096 f32 copy: a coalesced [BIDx, TIDx{128}] schedule over 2^24
 * elements, and the same copy staged through registers with 4-wide vector
 * accesses. The target is under 10 s each on the CI machine (2 cores).
 * Prints seconds per run and elements per second.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft.h"

enum { N = 4096 };

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static wf_fusion *copy(bool vector) {
    int64_t shape[2] = {N, N};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *in = vector ? wf_cache_after(a) : a;
    wf_tv *b = wf_set(in);
    wf_output(f, b);
    wf_tv *staged = vector ? wf_cache_before(b) : NULL;
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
    (void)staged;
    wf_inline_most(f);
    return f;
}

static int measure(const char *name, bool vector, float *src, float *dst) {
    wf_fusion *f = copy(vector);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        fprintf(stderr, "%s: %s\n", name, wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    wf_buffer in = {src, WF_F32, 2, {N, N}, {0}, -1}, out = {dst, WF_F32, 2, {N, N}, {0}, -1};
    memset(dst, 0xff, sizeof(float) * N * N);
    double t0 = now_s();
    wf_status s = wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1);
    double t = now_s() - t0;
    int bad = s != WF_OK || memcmp(src, dst, sizeof(float) * N * N) != 0;
    printf("%-34s %6.2f s   %6.1f M elements/s   %s\n", name, t, N * (double)N / t / 1e6,
           bad ? wf_last_run_error(k) : "exact");
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

int main(void) {
    float *src = malloc(sizeof(float) * N * N), *dst = malloc(sizeof(float) * N * N);
    if (!src || !dst)
        return 1;
    for (int i = 0; i < N * N; i++)
        src[i] = (float)(i % 1000) * 0.5f;
    printf("CPU reference executor, 4096 x 4096 f32 copy:\n");
    int bad = measure("copy [BIDx, TIDx{128}]", false, src, dst);
    bad += measure("copy via registers, 4-wide vectors", true, src, dst);
    free(src);
    free(dst);
    return bad;
}
