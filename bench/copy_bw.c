/*
 * copy_bw.c -- bandwidth of a vectorized f32 copy over 1 GiB (2^28 floats)
 * scheduled by hand (bench.h), against a device-to-device cudaMemcpy-style
 * copy of the same bytes timed in the same process (wf_device_memcpy_time).
 * Tries block sizes 128 and 256 and unroll factors 1, 2 and 4, checks each
 * result bit for bit against the input, and reports the best. Bandwidth
 * counts bytes read plus bytes written. Target: >= 90% of the D2D copy.
 * The last line, "RESULT copy ...", is what tools/gpu-check.sh tabulates.
 */
#include "bench.h"

enum { WARMUP = 3, REPS = 20 };

static const int64_t N = (int64_t)1 << 28;

static double gbps(double bytes, double us) {
    return bytes / (us * 1e3);
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)N * sizeof(float);
    static const int threads[] = {128, 256}, unrolls[] = {1, 2, 4};
    float *chunk = bench_random_chunk(1);
    void *x = bench_device_fill(bytes, chunk), *y = bench_device_fill(bytes, chunk);
    double d2d_us = 0, d2d_after_us = 0, best_us = 1e30;
    char best[64] = "";
    if (wf_device_memcpy_time(y, x, bytes, WARMUP, REPS, &d2d_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    printf("f32 copy of %zu bytes (2^28 floats); bandwidth = 2 x bytes / median time\n", bytes);
    printf("%-28s %10.1f us %8.1f GB/s\n", "device-to-device copy", d2d_us,
           gbps(2.0 * bytes, d2d_us));
    for (int t = 0; t < 2; t++)
        for (int u = 0; u < 3; u++) {
            wf_kernel *k = bench_stream_kernel(N, 1, threads[t], unrolls[u]);
            wf_buffer in = bench_buffer(x, N), out = bench_buffer(y, N);
            double us = 0;
            char name[64];
            bench_device_poison(y, bytes);
            if (wf_time(k, &in, 1, &out, 1, WARMUP, REPS, &us) != WF_OK)
                bench_die("wf_time", wf_last_run_error(k));
            int ok = bench_device_equals(y, bytes, chunk);
            snprintf(name, sizeof name, "block %d, unroll %d", threads[t], unrolls[u]);
            printf("%-28s %10.1f us %8.1f GB/s  %5.1f%% of D2D  %s\n", name, us,
                   gbps(2.0 * bytes, us), 100.0 * d2d_us / us, ok ? "exact" : "WRONG");
            if (!ok)
                return 1;
            if (us < best_us) {
                best_us = us;
                snprintf(best, sizeof best, "%s", name);
            }
            wf_kernel_free(k);
        }
    if (wf_device_memcpy_time(y, x, bytes, WARMUP, REPS, &d2d_after_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    printf("%-28s %10.1f us %8.1f GB/s (again, after)\n", "device-to-device copy", d2d_after_us,
           gbps(2.0 * bytes, d2d_after_us));
    printf("RESULT copy 1GiB: best %s %.1f us %.1f GB/s; D2D %.1f us %.1f GB/s; ratio %.1f%%\n",
           best, best_us, gbps(2.0 * bytes, best_us), d2d_us, gbps(2.0 * bytes, d2d_us),
           100.0 * d2d_us / best_us);
    wf_device_free(x);
    wf_device_free(y);
    free(chunk);
    return 0;
}
