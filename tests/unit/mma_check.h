/*
 * mma_check.h -- running a matmul kernel C[M, N] = A[M, K] x B[K, N] on the
 * CPU executor against a reference: the instruction-rounded sequential sum
 * (acc = acc + fl32(a * b), k ascending), or the exact double sum where the
 * data are integers (every partial sum exact, so any order and any adder
 * agree), on the executor or the GPU. Shared by test_mma.c (CUDA cores),
 * test_mma_sync.c and test_wgmma_pipeline.c (tensor cores).
 */
#ifndef WF_TESTS_MMA_CHECK_H
#define WF_TESTS_MMA_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "harness.h"

/* Element x of an operand as the kernel reads it (the 16-bit value, widened). */
static float value(wf_dtype t, uint64_t *s, bool integer) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    float v = integer ? (float)((int)((*s >> 33) % 9) - 4)
                      : (float)((double)((*s >> 33) % 20001) / 1000.0 - 10.0);
    return t == WF_F16    ? half_to_float(float_to_half(v))
           : t == WF_BF16 ? bf16_to_float(float_to_bf16(v))
                          : v;
}

static void *pack(wf_dtype t, const float *v, int64_t n) {
    size_t es = wf_dtype_size(t);
    unsigned char *p = malloc(es * (size_t)n);
    for (int64_t i = 0; p && i < n; i++) {
        uint16_t h = t == WF_F16 ? float_to_half(v[i]) : float_to_bf16(v[i]);
        if (t == WF_F32)
            memcpy(p + (size_t)i * es, &v[i], es);
        else
            memcpy(p + (size_t)i * es, &h, es);
    }
    return p;
}

/* Run k on A[M, K] x B[K, N] (dtype t) and compare C[M, N] (f32) with the
   instruction-rounded sequential reference (acc = acc + fl32(a * b), k
   ascending), or with the exact double sum when `integer`. */
static bool run_at_on(test_state *ts_, wf_kernel *k, wf_backend be, wf_dtype t, int64_t M,
                      int64_t N, int64_t K, bool integer, const char *file, int line) {
    float *a = malloc(sizeof(float) * (size_t)(M * K)),
          *b = malloc(sizeof(float) * (size_t)(K * N));
    float *c = malloc(sizeof(float) * (size_t)(M * N));
    void *pa = NULL, *pb = NULL;
    uint64_t s = 12345;
    bool ok = a && b && c;
    for (int64_t x = 0; ok && x < M * K; x++)
        a[x] = value(t, &s, integer);
    for (int64_t x = 0; ok && x < K * N; x++)
        b[x] = value(t, &s, integer);
    for (int64_t x = 0; ok && x < M * N; x++)
        c[x] = NAN;
    pa = ok ? pack(t, a, M * K) : NULL;
    pb = ok ? pack(t, b, K * N) : NULL;
    ok = ok && pa && pb;
    if (ok) {
        wf_buffer in[2] = {{pa, t, 2, {M, K}, {0}, -1}, {pb, t, 2, {K, N}, {0}, -1}};
        wf_buffer out[1] = {{c, WF_F32, 2, {M, N}, {0}, -1}};
        if (wf_run(k, be, in, 2, out, 1) != WF_OK) {
            printf("  %s:%d: the %s failed: %s\n", file, line,
                   be == WF_BACKEND_INTERP ? "executor" : "GPU run", wf_last_run_error(k));
            ok = false;
        }
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; ok && i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.0f;
            double exact = 0;
            for (int64_t kk = 0; kk < K; kk++) {
                double p = (double)a[i * K + kk] * (double)b[kk * N + j];
                acc = (float)((double)acc + (double)(float)p);
                exact += p;
            }
            float want = integer ? (float)exact : acc;
            if (memcmp(&c[i * N + j], &want, sizeof want) != 0 && bad++ == 0)
                first = i * N + j;
        }
    if (ok && bad) {
        printf("  %s:%d: %lld of %lld elements differ from the reference, first at %lld\n", file,
               line, (long long)bad, (long long)(M * N), (long long)first);
        ok = false;
    }
    if (!ok)
        ts_->failed = true;
    free(a);
    free(b);
    free(c);
    free(pa);
    free(pb);
    return ok;
}
static bool run_at(test_state *ts_, wf_kernel *k, wf_dtype t, int64_t M, int64_t N, int64_t K,
                   bool integer, const char *file, int line) {
    return run_at_on(ts_, k, WF_BACKEND_INTERP, t, M, N, K, integer, file, line);
}
#define run_mm(k, t, M, N, K, integer)                                                             \
    run_at(ts_, (k), (t), (M), (N), (K), (integer), __FILE__, __LINE__)
/* The same on the GPU (the CUDA backend copies the host buffers there and back). */
#define run_mm_gpu(k, t, M, N, K, integer)                                                         \
    run_at_on(ts_, (k), WF_BACKEND_CUDA, (t), (M), (N), (K), (integer), __FILE__, __LINE__)

typedef struct {
    wf_fusion *f;
    wf_tv *a, *b, *c;
} mm;

static inline mm make_mm(wf_dtype t, int64_t M, int64_t N, int64_t K) {
    mm m;
    int64_t sa[2] = {M, K}, sb[2] = {K, N};
    m.f = wf_fusion_new();
    m.a = wf_input(m.f, t, 2, sa);
    m.b = wf_input(m.f, t, 2, sb);
    m.c = wf_matmul(m.a, m.b);
    wf_output(m.f, m.c);
    return m;
}

#endif
