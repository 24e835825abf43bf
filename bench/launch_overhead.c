/*
 * launch_overhead.c -- host time of one wf_run on device buffers for a tiny
 * kernel (c = a + b over 256 floats, one block): the hot path of the CUDA
 * runtime (rt_bind, argument packing, cuLaunchKernel; no allocation, no
 * NVRTC). 100 warm-up runs, then 1000 runs each timed with the wall clock;
 * prints the median (target <= 5 us), the 10th and 90th percentiles, and
 * the mean of 1000 runs issued back to back. Checks the result at the end.
 * Last line: "RESULT launch ...".
 */
#include "bench.h"

enum { WARMUP = 100, RUNS = 1000, N = 256 };

static wf_kernel *tiny_add(void) {
    int64_t shape[1] = {N};
    wf_fusion *f = wf_fusion_new();
    wf_tv *c = wf_add(wf_input(f, WF_F32, 1, shape), wf_input(f, WF_F32, 1, shape));
    wf_output(f, c);
    wf_tv_parallelize(c, 0, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("wf_compile", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

static void run(wf_kernel *k, const wf_buffer *in, wf_buffer *out) {
    if (wf_run(k, WF_BACKEND_CUDA, in, 2, out, 1) != WF_OK)
        bench_die("wf_run", wf_last_run_error(k));
}

int main(void) {
    bench_require_gpu();
    float ha[N], hb[N], hc[N];
    static double us[RUNS];
    for (int i = 0; i < N; i++) {
        ha[i] = (float)i * 0.5f - 3;
        hb[i] = 1.0f / (float)(i + 1);
    }
    wf_kernel *k = tiny_add();
    void *a = wf_device_alloc(sizeof ha), *b = wf_device_alloc(sizeof hb);
    void *c = wf_device_alloc(sizeof hc);
    if (!a || !b || !c || wf_device_copy(a, ha, sizeof ha) || wf_device_copy(b, hb, sizeof hb))
        bench_die("device buffers", "allocation or copy failed");
    wf_buffer in[2] = {bench_buffer(a, N), bench_buffer(b, N)}, out = bench_buffer(c, N);
    for (int i = 0; i < WARMUP; i++)
        run(k, in, &out);
    for (int i = 0; i < RUNS; i++) {
        double t0 = bench_now_us();
        run(k, in, &out);
        us[i] = bench_now_us() - t0;
    }
    double t0 = bench_now_us();
    for (int i = 0; i < RUNS; i++)
        run(k, in, &out);
    double mean = (bench_now_us() - t0) / RUNS;
    if (wf_device_copy(hc, c, sizeof hc) != WF_OK)
        bench_die("wf_device_copy", "failed");
    for (int i = 0; i < N; i++)
        if (hc[i] != ha[i] + hb[i])
            bench_die("result", "wrong");
    double med = bench_median(us, RUNS);
    printf("wf_run on device buffers, tiny add (256 floats), %d runs: median %.2f us, p10 %.2f us, "
           "p90 %.2f us; back to back: %.2f us per run\n",
           RUNS, med, us[RUNS / 10], us[RUNS * 9 / 10], mean);
    printf(
        "RESULT launch overhead: median %.2f us (p10 %.2f, p90 %.2f), back-to-back mean %.2f us\n",
        med, us[RUNS / 10], us[RUNS * 9 / 10], mean);
    wf_device_free(a);
    wf_device_free(b);
    wf_device_free(c);
    wf_kernel_free(k);
    return 0;
}
