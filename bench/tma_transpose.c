/*
 * tma_transpose.c -- the seed's transpose of 32-bit data (seed 001, example
 * 3) on 16384 x 16384 f32 (1 GiB): 32 x 32 tiles TMA-loaded into 128-byte
 * swizzled shared memory, transposed through registers into a second
 * swizzled tile (16-byte chunk writes, bank-conflict free), TMA-stored; against a device-to-device
 * copy of 1 GiB in the same process (both move 2 GiB). The result is copied back and checked
 * element by element. Last line: "RESULT tma_transpose ...". Unverified
 * until run on a Hopper GPU.
 */
#include "bench.h"

enum { WARMUP = 3, REPS = 10 };

static const int64_t N = 16384;

static wf_kernel *transpose_kernel(void) {
    int64_t shape[2] = {N, N};
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
    wf_tv_tma_swizzle(s0, 128);
    wf_tv_tma_swizzle(s1, 128);
    wf_tv *thr[2] = {r, s1};
    for (int i = 0; i < 2; i++) { /* [.., I1i (TIDx), I0i -> 8 (TIDy) x 4] */
        wf_tv_split(thr[i], 3, 4);
        wf_tv_parallelize(thr[i], 2, WF_TIDX);
        wf_tv_parallelize(thr[i], 3, WF_TIDY);
    }
    wf_tv_parallelize(s1, 4, WF_VECTORIZE); /* each thread writes a 16-byte chunk */
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("wf_compile", wf_fusion_error(f));
    wf_fusion_free(f);
    return k;
}

int main(void) {
    bench_require_gpu();
    size_t bytes = (size_t)(N * N) * sizeof(float);
    float *h = malloc(bytes), *back = malloc(bytes);
    if (!h || !back)
        bench_die("malloc", "out of host memory");
    for (int64_t i = 0; i < N * N; i++)
        h[i] = (float)(i % 1000003);
    void *a = wf_device_alloc(bytes), *c = wf_device_alloc(bytes);
    if (!a || !c || wf_device_copy(a, h, bytes) != WF_OK)
        bench_die("wf_device_alloc", "failed");
    double d2d_us = 0, us = 0;
    if (wf_device_memcpy_time(c, a, bytes, WARMUP, REPS, &d2d_us) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    wf_kernel *k = transpose_kernel();
    wf_buffer in = {a, WF_F32, 2, {N, N}, {0}, 0}, out = {c, WF_F32, 2, {N, N}, {0}, 0};
    bench_device_poison(c, bytes);
    if (wf_time(k, &in, 1, &out, 1, WARMUP, REPS, &us) != WF_OK)
        bench_die("wf_time", wf_last_run_error(k));
    if (wf_device_copy(back, c, bytes) != WF_OK)
        bench_die("wf_device_copy", "failed");
    int64_t bad = -1;
    for (int64_t i = 0; i < N && bad < 0; i++)
        for (int64_t j = 0; j < N && bad < 0; j++)
            if (back[i * N + j] != h[j * N + i])
                bad = i * N + j;
    double gb = 2.0 * (double)bytes / 1e3;
    printf("device-to-device copy %10.1f us %8.1f GB/s\n", d2d_us, gb / d2d_us);
    printf("tma transpose         %10.1f us %8.1f GB/s  %s\n", us, gb / us,
           bad < 0 ? "exact" : "WRONG");
    printf("RESULT tma_transpose 16384^2 f32: %.1f us %.1f GB/s; D2D %.1f GB/s; ratio %.1f%%%s\n",
           us, gb / us, gb / d2d_us, 100.0 * d2d_us / us, bad < 0 ? "" : " (WRONG)");
    wf_kernel_free(k);
    wf_device_free(a);
    wf_device_free(c);
    free(h);
    free(back);
    return bad < 0 ? 0 : 1;
}
