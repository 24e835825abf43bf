/*
 * tir_rfactor.c -- bandwidth of TVM's cross-thread row sum written in TensorIR and
 * built by wf_tir_build: B[i] = sum_k A[i, k] over a 16384 x 16384 f32 tensor (1 GiB),
 * k split [None, T], rfactor at the inner loop, the write-back's i on blockIdx.x and
 * its k_1 on threadIdx.x (B_rf lines up with it: each thread sums its strided
 * elements, coalesced, then one block reduction). Compared with a device-to-device
 * copy timed in the same process, as bench/reduce_bw.c does for the hand-scheduled
 * core sum (the same kernel shape). Each result is checked against a double reference
 * (within 1e-5 of the sum of magnitudes). Last line: "RESULT tir-rfactor-sum ...".
 */
#include "bench.h"

#include <math.h>

enum { WARMUP = 3, REPS = 20 };

#define N 16384

static const char *const SRC =
    "@T.prim_func\n"
    "def rsum(A: T.Buffer((16384, 16384), \"float32\"), B: T.Buffer((16384,), \"float32\")):\n"
    "    for i, k in T.grid(16384, 16384):\n"
    "        with T.block(\"B\"):\n"
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
    "            with T.init():\n"
    "                B[vi] = T.float32(0)\n"
    "            B[vi] = B[vi] + A[vi, vk]\n";

static wf_kernel *tir_sum(int64_t threads) {
    wf_tir *s = wf_tir_parse(SRC);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *k[2], *w[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, threads};
    wf_tir_split(s, l[1], 2, f, k);
    wf_tir_rfactor(s, k[1], 0);
    wf_tir_get_loops(s, b, w, 2);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    wf_kernel *kk = wf_tir_build(s, NULL);
    if (!kk)
        bench_die("tir rfactor sum", wf_tir_error(s));
    wf_tir_free(s);
    return kk;
}

/* The input is the chunk repeated: row r equals row r % rows_per_chunk. */
static int check(const void *dev, const float *chunk) {
    int64_t rows = (int64_t)(BENCH_CHUNK / sizeof(float)) / N;
    float *got = malloc(sizeof(float) * N);
    int ok = got && wf_device_copy(got, dev, sizeof(float) * N) == WF_OK;
    for (int64_t r = 0; ok && r < rows; r++) {
        double want = 0, mag = 0;
        for (int64_t c = 0; c < N; c++)
            want += chunk[r * N + c], mag += fabs(chunk[r * N + c]);
        for (int64_t i = r; ok && i < N; i += rows)
            ok = fabs(got[i] - want) <= 1e-5 * mag + 1e-6;
    }
    free(got);
    return ok;
}

static double run(wf_kernel *k, void *x, void *out, const float *chunk) {
    wf_buffer in, ob;
    memset(&in, 0, sizeof in);
    memset(&ob, 0, sizeof ob);
    in.data = x, ob.data = out;
    in.dtype = ob.dtype = WF_F32;
    in.ndim = 2, ob.ndim = 1;
    in.shape[0] = in.shape[1] = ob.shape[0] = N;
    double us = 0;
    if (wf_time(k, &in, 1, &ob, 1, WARMUP, REPS, &us) != WF_OK)
        bench_die("wf_time", wf_last_run_error(k));
    if (!check(out, chunk))
        bench_die("tir rfactor sum", "WRONG result");
    return us;
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)N * N * sizeof(float);
    float *chunk = bench_random_chunk(11);
    void *x = bench_device_fill(bytes, chunk), *y = bench_device_fill(bytes, chunk);
    void *out = wf_device_alloc(sizeof(float) * N);
    double d2d = 0;
    if (!out || wf_device_memcpy_time(y, x, bytes, WARMUP, REPS, &d2d) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    double copy_bw = 2.0 * bytes / (d2d * 1e3), best = 1e30;
    printf("%-34s %10.1f us %8.1f GB/s\n", "device-to-device copy (2 x bytes)", d2d, copy_bw);
    static const int64_t threads[] = {128, 256, 512, 1024};
    int64_t arg = 0;
    for (int i = 0; i < 4; i++) {
        wf_kernel *k = tir_sum(threads[i]);
        double us = run(k, x, out, chunk), bw = bytes / (us * 1e3);
        printf("tir rfactor sum, threads %-9lld %10.1f us %8.1f GB/s  %5.1f%% of copy\n",
               (long long)threads[i], us, bw, 100 * bw / copy_bw);
        if (us < best)
            best = us, arg = threads[i];
        wf_kernel_free(k);
    }
    printf(
        "RESULT tir-rfactor-sum 16384x16384 f32: threads %lld, %.1f us, %.1f GB/s, %.3f of copy\n",
        (long long)arg, best, bytes / (best * 1e3), bytes / (best * 1e3) / copy_bw);
    wf_device_free(x);
    wf_device_free(y);
    wf_device_free(out);
    free(chunk);
    return 0;
}
