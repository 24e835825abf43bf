/*
 * tma_examples.c -- the three worked examples of seed 001, on the CPU
 * reference executor (and on the GPU when there is one):
 *   1. a pointwise add whose inputs are TMA-loaded, its output stored with
 *      16-byte vector stores;
 *   2. the same add with one input broadcast and the other discontiguous
 *      (contiguity T, F, T, T), each TMA-loaded along its own TMA domain;
 *   3. a transpose of 32-bit data through 128-byte-swizzled tiles, TMA load
 *      and TMA store: a warp reads rows of the first tile and writes 16-byte
 *      chunks of the second, bank-conflict free with the swizzle (the
 *      executor's statistics, printed for the swizzled and the plain layout).
 * Each result is compared with one computed here on the CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

static float *numbers(int64_t n, float scale) {
    float *p = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        p[i] = scale * (float)(i % 977);
    return p;
}

static int report(const char *what, wf_kernel *k, const float *got, const float *want, int64_t n) {
    int bad = memcmp(got, want, sizeof(float) * (size_t)n) != 0;
    printf("  %s: %s (%d tensor maps)\n", what, bad ? "WRONG" : "exact", wf_kernel_tma_count(k));
    return bad;
}

/* Runs k on the executor (and the GPU), checking out against want each time. */
static int run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, const float *want,
               int64_t n) {
    int bad = 0;
    for (int b = 0; b < (wf_cuda_available() ? 2 : 1); b++) {
        memset(out->data, 0xff, sizeof(float) * (size_t)n);
        wf_status s = wf_run(k, b ? WF_BACKEND_CUDA : WF_BACKEND_INTERP, in, nin, out, 1);
        if (s != WF_OK) {
            printf("  %s failed: %s\n", b ? "GPU" : "executor", wf_last_run_error(k));
            bad = 1;
            continue;
        }
        bad |= report(b ? "GPU" : "CPU executor", k, out->data, want, n);
    }
    return bad;
}

static int pointwise(void) {
    enum { M = 64, N = 512 };
    int64_t shape[2] = {M, N};
    printf("1. pointwise add, TMA loads, vectorized store\n");
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_tv *out = wf_add(a, b);
    wf_output(f, out);
    wf_tv *s[2] = {wf_cache_after(a), wf_cache_after(b)}, *r = wf_cache_before(out);
    for (int i = 0; i < 2; i++) {
        wf_tv_set_memory(s[i], WF_MEM_SHARED);
        wf_tv_set_ldst(s[i], WF_LDST_TMA);
        wf_tv_merge(s[i], 0);
        wf_tv_split(s[i], 0, 256);
        wf_tv_parallelize(s[i], 0, WF_BIDX);
        wf_tv_parallelize(s[i], 1, WF_BULK);
    }
    wf_tv *t[2] = {r, out};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(t[i], 0);
        wf_tv_split(t[i], 0, 256);
        wf_tv_split(t[i], 1, 4);
        wf_tv_parallelize(t[i], 0, WF_BIDX);
        wf_tv_parallelize(t[i], 1, WF_TIDX);
    }
    wf_tv_parallelize(out, 2, WF_VECTORIZE);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("  refused: %s\n", wf_fusion_error(f));
        return 1;
    }
    float *x = numbers(M * N, 0.5f), *y = numbers(M * N, 0.25f), *want = numbers(M * N, 0);
    float *got = malloc(sizeof(float) * M * N);
    for (int64_t i = 0; i < M * N; i++)
        want[i] = x[i] + y[i];
    wf_buffer in[2] = {{x, WF_F32, 2, {M, N}, {0}, -1}, {y, WF_F32, 2, {M, N}, {0}, -1}};
    wf_buffer o = {got, WF_F32, 2, {M, N}, {0}, -1};
    int bad = run(k, in, 2, &o, want, M * N);
    free(x), free(y), free(want), free(got);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

static void bcast_schedule(wf_tv *t, bool has_i0) {
    int i1 = has_i0 ? 1 : 0;
    wf_tv_merge(t, i1 + 1);
    wf_tv_split(t, i1 + 1, 256);
    if (has_i0)
        wf_tv_reorder_all(t, (const int[]){2, 0, 1, 3});
    wf_tv_parallelize(t, 0, WF_BIDX);
    wf_tv_parallelize(t, 1, WF_BIDY);
}

static int broadcast(void) {
    enum { I0 = 4, I1 = 8, I2 = 16, I3 = 32 };
    int64_t s0[3] = {I1, I2, I3}, s1[4] = {I0, I1, I2, I3};
    int8_t c1[4] = {1, 0, 1, 1};
    bool bc[4] = {true, false, false, false};
    printf("2. broadcast add, one input discontiguous, both TMA-loaded\n");
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 3, s0), *t1 = wf_input_strided(f, WF_F32, 4, s1, c1);
    wf_tv *t2 = wf_broadcast(t0, 4, bc), *t3 = wf_add(t1, t2);
    wf_output(f, t3);
    wf_tv *a = wf_cache_after(t0), *b = wf_cache_after(t1);
    wf_tv_set_memory(a, WF_MEM_SHARED);
    wf_tv_set_memory(b, WF_MEM_SHARED);
    wf_tv_set_ldst(a, WF_LDST_TMA);
    wf_tv_set_ldst(b, WF_LDST_TMA);
    bcast_schedule(a, false);
    bcast_schedule(b, true);
    bcast_schedule(t2, true);
    bcast_schedule(t3, true);
    wf_tv_parallelize(a, 2, WF_BULK);
    wf_tv_parallelize(b, 3, WF_BULK);
    wf_tv_parallelize(t2, 3, WF_TIDX);
    wf_tv_parallelize(t3, 3, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("  refused: %s\n", wf_fusion_error(f));
        return 1;
    }
    /* T1 stored with I1's stride padded to 1024 elements (16 KiB apart is TMA-legal) */
    int64_t n1 = (int64_t)I0 * I1 * 1024, n = (int64_t)I0 * I1 * I2 * I3;
    float *x0 = numbers(I1 * I2 * I3, 1), *x1 = numbers(n1, 0.5f), *want = numbers(n, 0);
    float *got = malloc(sizeof(float) * (size_t)n);
    for (int64_t i0 = 0; i0 < I0; i0++)
        for (int64_t i1 = 0; i1 < I1; i1++)
            for (int64_t j = 0; j < I2 * I3; j++)
                want[(i0 * I1 + i1) * I2 * I3 + j] =
                    x1[(i0 * I1 + i1) * 1024 + j] + x0[i1 * I2 * I3 + j];
    wf_buffer in[2] = {{x0, WF_F32, 3, {I1, I2, I3}, {0}, -1},
                       {x1, WF_F32, 4, {I0, I1, I2, I3}, {I1 * 1024, 1024, I3, 1}, -1}};
    wf_buffer o = {got, WF_F32, 4, {I0, I1, I2, I3}, {0}, -1};
    int bad = run(k, in, 2, &o, want, n);
    free(x0), free(x1), free(want), free(got);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

static wf_fusion *transpose(int64_t n, bool swizzle) {
    int64_t shape[2] = {n, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *out = wf_transpose(in, 0, 1);
    wf_output(f, out);
    wf_tv *s0 = wf_cache_after(in), *s1 = wf_cache_before(out), *r = wf_cache_before(s1);
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_memory(s1, WF_MEM_SHARED);
    wf_tv_set_ldst(s0, WF_LDST_TMA);
    wf_tv_set_ldst(out, WF_LDST_TMA);
    wf_tv *all[4] = {s0, r, s1, out};
    for (int i = 0; i < 4; i++) {
        wf_tv_split(all[i], 1, 32);
        wf_tv_split(all[i], 0, 32);
        wf_tv_reorder_all(all[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(all[i], 0, i == 0 ? WF_BIDY : WF_BIDX);
        wf_tv_parallelize(all[i], 1, i == 0 ? WF_BIDX : WF_BIDY);
    }
    for (int i = 2; i < 4; i++) {
        wf_tv_parallelize(s0, i, WF_BULK);
        wf_tv_parallelize(out, i, WF_BULK);
    }
    if (swizzle) {
        wf_tv_tma_swizzle(s0, 128);
        wf_tv_tma_swizzle(s1, 128);
    } else {
        int nd;
        wf_tv_set_allocation_domain(s1, 4, wf_tv_loop_domain(s1, &nd), true);
    }
    wf_tv *thr[2] = {r, s1};
    for (int i = 0; i < 2; i++) { /* [.., I1i (TIDx), I0i -> 8 (TIDy) x 4] */
        wf_tv_split(thr[i], 3, 4);
        wf_tv_parallelize(thr[i], 2, WF_TIDX);
        wf_tv_parallelize(thr[i], 3, WF_TIDY);
    }
    wf_tv_parallelize(s1, 4, WF_VECTORIZE); /* each thread writes a 16-byte chunk */
    wf_inline_most(f);
    return f;
}

static int transposes(void) {
    enum { N = 256 };
    int bad = 0;
    printf("3. transpose of 32-bit data, TMA load and store\n");
    for (int sw = 1; sw >= 0; sw--) {
        wf_fusion *f = transpose(N, sw);
        wf_kernel *k = wf_compile(f, NULL);
        if (!k) {
            printf("  refused: %s\n", wf_fusion_error(f));
            return 1;
        }
        float *x = numbers(N * N, 1), *want = numbers(N * N, 0),
              *got = malloc(sizeof(float) * N * N);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                want[i * N + j] = x[j * N + i];
        wf_buffer in = {x, WF_F32, 2, {N, N}, {0}, -1}, o = {got, WF_F32, 2, {N, N}, {0}, -1};
        printf(" %s shared memory (swizzle %d bytes):\n", sw ? "swizzled" : "plain",
               wf_kernel_tma(k, 0)->swizzle_bytes);
        bad |= run(k, &in, 1, &o, want, N * N);
        wf_access_stats st;
        memset(got, 0xff, sizeof(float) * N * N);
        if (wf_run(k, WF_BACKEND_INTERP, &in, 1, &o, 1) == WF_OK &&
            wf_interp_stats(k, &st) == WF_OK)
            printf("  shared-memory accesses %lld, wavefronts %lld, worst conflict %d-way\n",
                   (long long)st.smem_accesses, (long long)st.smem_wavefronts,
                   st.smem_max_conflict_degree);
        free(x), free(want), free(got);
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
    return bad;
}

int main(void) {
    int bad = pointwise();
    bad |= broadcast();
    bad |= transposes();
    return bad;
}
