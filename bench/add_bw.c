/*
 * add_bw.c -- bandwidth of a vectorized pointwise f32 add c = a + b over
 * 1 GiB per tensor (2^28 floats), scheduled by hand (bench.h), against a
 * device-to-device copy of 1 GiB timed in the same process. The add moves
 * 3 GiB (two reads, one write), the copy 2 GiB; the ratio compares the two
 * bandwidths. Tries block sizes 128 and 256 and unroll factors 1, 2 and 4,
 * checks each result against a + b computed on the CPU (IEEE float adds
 * give the same bits), and reports the best. Last line: "RESULT add ...".
 */
#include "bench.h"

enum { WARMUP = 3, REPS = 20 };

static const int64_t N = (int64_t)1 << 28;

static double gbps(double bytes, double us) {
    return bytes / (us * 1e3);
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)N * sizeof(float), nchunk = BENCH_CHUNK / sizeof(float);
    static const int threads[] = {128, 256}, unrolls[] = {1, 2, 4};
    float *ca = bench_random_chunk(2), *cb = bench_random_chunk(3), *cc = malloc(BENCH_CHUNK);
    if (!cc)
        bench_die("malloc", "out of host memory");
    for (size_t i = 0; i < nchunk; i++)
        cc[i] = ca[i] + cb[i];
    void *a = bench_device_fill(bytes, ca), *b = bench_device_fill(bytes, cb);
    void *c = bench_device_fill(bytes, ca);
    double d2d_us = 0, best_us = 1e30;
    char best[64] = "";
    if (wf_device_memcpy_time(c, a, bytes, WARMUP, REPS, &d2d_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    printf("f32 add over %zu bytes per tensor; bandwidth = 3 x bytes / median time\n", bytes);
    printf("%-28s %10.1f us %8.1f GB/s (2 x bytes moved)\n", "device-to-device copy", d2d_us,
           gbps(2.0 * bytes, d2d_us));
    for (int t = 0; t < 2; t++)
        for (int u = 0; u < 3; u++) {
            wf_kernel *k = bench_stream_kernel(N, 2, threads[t], unrolls[u]);
            wf_buffer in[2] = {bench_buffer(a, N), bench_buffer(b, N)}, out = bench_buffer(c, N);
            double us = 0;
            char name[64];
            bench_device_poison(c, bytes);
            if (wf_time(k, in, 2, &out, 1, WARMUP, REPS, &us) != WF_OK)
                bench_die("wf_time", wf_last_run_error(k));
            int ok = bench_device_equals(c, bytes, cc);
            double ratio = gbps(3.0 * bytes, us) / gbps(2.0 * bytes, d2d_us);
            snprintf(name, sizeof name, "block %d, unroll %d", threads[t], unrolls[u]);
            printf("%-28s %10.1f us %8.1f GB/s  %5.1f%% of D2D  %s\n", name, us,
                   gbps(3.0 * bytes, us), 100.0 * ratio, ok ? "exact" : "WRONG");
            if (!ok)
                return 1;
            if (us < best_us) {
                best_us = us;
                snprintf(best, sizeof best, "%s", name);
            }
            wf_kernel_free(k);
        }
    printf("RESULT add 3x1GiB: best %s %.1f us %.1f GB/s; D2D %.1f GB/s; ratio %.1f%%\n", best,
           best_us, gbps(3.0 * bytes, best_us), gbps(2.0 * bytes, d2d_us),
           100.0 * gbps(3.0 * bytes, best_us) / gbps(2.0 * bytes, d2d_us));
    wf_device_free(a);
    wf_device_free(b);
    wf_device_free(c);
    free(ca);
    free(cb);
    free(cc);
    return 0;
}
