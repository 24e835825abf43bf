/*
 * tma_add.c -- the seed's TMA pointwise add (seed 001, example 1) on 1 GiB
 * per f32 tensor (2^28 floats): both inputs TMA-loaded into shared memory
 * by boxes of [rows x 256] of the flattened tensor viewed as [2^28 / 256, 256],
 * the sum stored with 16-byte vector stores, against a device-to-device copy
 * of 1 GiB timed in the same process (the add moves 3 GiB, the copy 2).
 * Checks the result against a + b computed on the CPU. Last line:
 * "RESULT tma_add ...". Unverified until run on a Hopper GPU.
 */
#include "bench.h"

enum { WARMUP = 3, REPS = 20 };

static const int64_t N = (int64_t)1 << 28, W = 256;

static wf_kernel *tma_add_kernel(int rows) {
    int64_t shape[2] = {N / W, W};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_tv *out = wf_add(a, b);
    wf_output(f, out);
    wf_tv *s[2] = {wf_cache_after(a), wf_cache_after(b)}, *r = wf_cache_before(out);
    for (int i = 0; i < 2; i++) {
        wf_tv_set_memory(s[i], WF_MEM_SHARED);
        wf_tv_set_ldst(s[i], WF_LDST_TMA);
        wf_tv_split(s[i], 0, rows); /* [N / W / rows (BIDx), rows, 256] */
        wf_tv_parallelize(s[i], 0, WF_BIDX);
        wf_tv_parallelize(s[i], 1, WF_BULK);
        wf_tv_parallelize(s[i], 2, WF_BULK);
    }
    wf_tv *t[2] = {r, out};
    for (int i = 0; i < 2; i++) { /* [BIDx, rows, 64 (TIDx), 4] */
        wf_tv_split(t[i], 0, rows);
        wf_tv_split(t[i], 2, 4);
        wf_tv_parallelize(t[i], 0, WF_BIDX);
        wf_tv_parallelize(t[i], 2, WF_TIDX);
    }
    wf_tv_parallelize(out, 3, WF_VECTORIZE);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("wf_compile", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

static double gbps(double bytes, double us) {
    return bytes / (us * 1e3);
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)N * sizeof(float), nchunk = BENCH_CHUNK / sizeof(float);
    static const int rows[] = {4, 8, 16};
    float *ca = bench_random_chunk(2), *cb = bench_random_chunk(3), *cc = malloc(BENCH_CHUNK);
    if (!cc)
        bench_die("malloc", "out of host memory");
    for (size_t i = 0; i < nchunk; i++)
        cc[i] = ca[i] + cb[i];
    void *a = bench_device_fill(bytes, ca), *b = bench_device_fill(bytes, cb);
    void *c = bench_device_fill(bytes, ca);
    double d2d_us = 0, best_us = 1e30;
    int best = 0;
    if (wf_device_memcpy_time(c, a, bytes, WARMUP, REPS, &d2d_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    printf("%-28s %10.1f us %8.1f GB/s\n", "device-to-device copy", d2d_us,
           gbps(2.0 * bytes, d2d_us));
    for (int i = 0; i < 3; i++) {
        wf_kernel *k = tma_add_kernel(rows[i]);
        wf_buffer in[2] = {{a, WF_F32, 2, {N / W, W}, {0}, 0}, {b, WF_F32, 2, {N / W, W}, {0}, 0}};
        wf_buffer out = {c, WF_F32, 2, {N / W, W}, {0}, 0};
        double us = 0;
        bench_device_poison(c, bytes);
        if (wf_time(k, in, 2, &out, 1, WARMUP, REPS, &us) != WF_OK)
            bench_die("wf_time", wf_last_run_error(k));
        int ok = bench_device_equals(c, bytes, cc);
        printf("box %2d x 256 %15s %10.1f us %8.1f GB/s  %5.1f%% of D2D  %s\n", rows[i], "", us,
               gbps(3.0 * bytes, us), 100.0 * gbps(3.0 * bytes, us) / gbps(2.0 * bytes, d2d_us),
               ok ? "exact" : "WRONG");
        if (!ok)
            return 1;
        if (us < best_us) {
            best_us = us;
            best = rows[i];
        }
        wf_kernel_free(k);
    }
    printf("RESULT tma_add 3x1GiB: best box %d x 256 %.1f us %.1f GB/s; D2D %.1f GB/s; ratio "
           "%.1f%%\n",
           best, best_us, gbps(3.0 * bytes, best_us), gbps(2.0 * bytes, d2d_us),
           100.0 * gbps(3.0 * bytes, best_us) / gbps(2.0 * bytes, d2d_us));
    wf_device_free(a);
    wf_device_free(b);
    wf_device_free(c);
    free(ca);
    free(cb);
    free(cc);
    return 0;
}
