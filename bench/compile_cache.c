/*
 * compile_cache.c -- cold versus warm kernel build: the first wf_run of a
 * freshly compiled kernel in a fresh process, once with an empty disk cache
 * (NVRTC compiles, the cubin is stored) and once with the cache it left
 * (the cubin is read and loaded; no NVRTC). The parent runs itself as a
 * child ("child") for each measurement, three rounds, each round with a new
 * WF_CACHE_DIR; the child creates the CUDA context first (untimed, it is
 * not weft's work), then times its first wf_run (build + module load +
 * launch) and its second (launch only). Target: warm >= 20x faster.
 * Last line: "RESULT compile ...".
 */
#include "bench.h"

#include <unistd.h>

enum { ROUNDS = 3, N = 1 << 20 };

static int child(void) {
    void *x = wf_device_alloc(N * sizeof(float)), *y = wf_device_alloc(N * sizeof(float));
    if (!x || !y)
        bench_die("wf_device_alloc", "failed");
    wf_kernel *k = bench_stream_kernel(N, 1, 256, 4);
    wf_buffer in = bench_buffer(x, N), out = bench_buffer(y, N);
    double t0 = bench_now_us();
    wf_status s = wf_run(k, WF_BACKEND_CUDA, &in, 1, &out, 1);
    double t1 = bench_now_us();
    s = s ? s : wf_run(k, WF_BACKEND_CUDA, &in, 1, &out, 1);
    double t2 = bench_now_us();
    if (s != WF_OK || wf_device_copy(x, y, 4) != WF_OK)
        bench_die("wf_run", wf_last_run_error(k));
    printf("%.3f %.3f\n", (t1 - t0) / 1e3, (t2 - t1) / 1e3);
    wf_kernel_free(k);
    wf_device_free(x);
    wf_device_free(y);
    return 0;
}

/* Run "self child" and read its two numbers (ms). */
static void measure(const char *self, double *first, double *second) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' child", self);
    FILE *p = popen(cmd, "r");
    if (!p || fscanf(p, "%lf %lf", first, second) != 2)
        bench_die("child", "gave no measurement");
    pclose(p);
}

int main(int argc, char **argv) {
    char self[4096], dir[64];
    double cold[ROUNDS], warm[ROUNDS], launch[ROUNDS], unused;
    bench_require_gpu();
    if (argc > 1 && strcmp(argv[1], "child") == 0)
        return child();
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(dir, sizeof dir, "/tmp/weft-bench-cache-XXXXXX");
        if (!mkdtemp(dir) || setenv("WF_CACHE_DIR", dir, 1) != 0)
            bench_die("mkdtemp", "failed");
        measure(self, &cold[r], &unused);
        measure(self, &warm[r], &launch[r]);
        printf("round %d: cold %.2f ms, warm %.2f ms (a later launch %.3f ms)\n", r, cold[r],
               warm[r], launch[r]);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    double c = bench_median(cold, ROUNDS), w = bench_median(warm, ROUNDS);
    printf("RESULT compile: cold (NVRTC) %.2f ms, warm (disk cache) %.2f ms, ratio %.1fx\n", c, w,
           c / w);
    return 0;
}
