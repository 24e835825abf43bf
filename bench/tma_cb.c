/*
 * tma_cb.c -- a circular-buffered TMA copy (seed 001, wf_tv_circular_buffer)
 * of 1 GiB of f32 (2^28 floats viewed as [2^28 / 256, 256]): each block
 * walks PER tiles of [8 x 256] over a serial loop, loading them by TMA into
 * 1 (no circular buffering), 2, 3 or 4 stages of shared memory, and stores
 * them with 16-byte vector stores; against a device-to-device copy of the
 * same bytes timed in the same process. Checks the copy exactly. Last line:
 * "RESULT tma_cb ...". Unverified until run on a Hopper GPU.
 */
#include "bench.h"

enum { WARMUP = 3, REPS = 20 };

static const int64_t N = (int64_t)1 << 28, W = 256, ROWS = 8, PER = 16;

static wf_kernel *cb_copy_kernel(int stages) {
    int64_t shape[2] = {N / W, W};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *out = wf_set(a);
    wf_output(f, out);
    wf_tv *s = wf_cache_after(a);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv *t[2] = {s, out};
    for (int i = 0; i < 2; i++) { /* [blocks (BIDx), PER, ROWS, 256] */
        wf_tv_split(t[i], 0, ROWS);
        wf_tv_split(t[i], 0, PER);
        wf_tv_parallelize(t[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_split(out, 3, 4); /* [BIDx, PER, ROWS (TIDy), 64 (TIDx), 4 (V)] */
    wf_tv_parallelize(out, 2, WF_TIDY);
    wf_tv_parallelize(out, 3, WF_TIDX);
    wf_tv_parallelize(out, 4, WF_VECTORIZE);
    wf_tv_inline_at(s, 2);
    wf_tv_circular_buffer(s, stages);
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
    size_t bytes = (size_t)N * sizeof(float);
    float *ca = bench_random_chunk(5);
    void *a = bench_device_fill(bytes, ca), *c = bench_device_fill(bytes, ca);
    double d2d_us = 0, best_us = 1e30;
    int best = 0;
    if (wf_device_memcpy_time(c, a, bytes, WARMUP, REPS, &d2d_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    printf("%-28s %10.1f us %8.1f GB/s\n", "device-to-device copy", d2d_us,
           gbps(2.0 * bytes, d2d_us));
    for (int stages = 1; stages <= 4; stages++) {
        wf_kernel *k = cb_copy_kernel(stages);
        wf_buffer in = {a, WF_F32, 2, {N / W, W}, {0}, 0}, out = {c, WF_F32, 2, {N / W, W}, {0}, 0};
        double us = 0;
        bench_device_poison(c, bytes);
        if (wf_time(k, &in, 1, &out, 1, WARMUP, REPS, &us) != WF_OK)
            bench_die("wf_time", wf_last_run_error(k));
        int ok = bench_device_equals(c, bytes, ca);
        printf("%d stage(s) %17s %10.1f us %8.1f GB/s  %5.1f%% of D2D  %s\n", stages, "", us,
               gbps(2.0 * bytes, us), 100.0 * d2d_us / us, ok ? "exact" : "WRONG");
        if (!ok)
            return 1;
        if (us < best_us) {
            best_us = us;
            best = stages;
        }
        wf_kernel_free(k);
    }
    printf("RESULT tma_cb 1GiB copy: best %d stage(s) %.1f us %.1f GB/s; D2D %.1f GB/s; ratio "
           "%.1f%%\n",
           best, best_us, gbps(2.0 * bytes, best_us), gbps(2.0 * bytes, d2d_us),
           100.0 * d2d_us / best_us);
    wf_device_free(a);
    wf_device_free(c);
    free(ca);
    return 0;
}
