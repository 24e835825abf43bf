/*
 * ldstmatrix_set.c -- seed 002's LdStMatrixSet example: a bf16 copy
 *
 *   T0 (global) -> T2 (shared): TMA load, 64 x 64 boxes, 128-byte swizzle
 *               -> T3 (registers): ldmatrix.x4, the wgmma accumulator layout
 *               -> T4 (shared): stmatrix.x4 into TMA's 128-byte swizzle
 *               -> T1 (global, the output): TMA store
 *
 * built through the public API alone, the loop domains of T3 and T4 set from
 * abstract tensors (wf_abstract_*) that follow the seed's scheduleLdStMatrix.
 * It prints the kernel's ldmatrix / stmatrix instructions (weft derives each
 * lane's shared-memory row address from the schedule by ordinary indexing:
 * no layout-specific index function), runs the copy on the CPU reference
 * executor at 512 x 512 and checks it bit for bit, with the executor's bank
 * conflict count, and, where there is a GPU, at 8192 x 8192 (checked bit for
 * bit, and timed against a device-to-device copy). docs/tutorial-ldmatrix.md
 * walks through the same schedule.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

/* The seed's tiles: CTA 128 x 256, one warp group (128 threads) per 64 x 256,
   TMA boxes 64 x 64 (64 bf16 = 128 bytes: the swizzle's width). */
enum { CTA_M = 128, CTA_N = 256, WARP_M = 64, WARP_N = 256, SWIZZLE = 128, BOX_N = SWIZZLE / 2 };

static const int swap_23[2][2] = {{-2, -3}, {-3, -2}}; /* exchange axes -2 and -3 */

/* scheduleLdStMatrix: tv's loop domain [.., warp_m{64}, warp_n{256}] as an
   abstract tensor [.., (no * nio){16}, (mo * mii * niiio){128}, (niio * mio *
   niiii){8}]: 128 threads each holding 8 elements of the wgmma accumulator
   layout, four 16 x 16 ldmatrix.x4 / stmatrix.x4 tiles per step. */
static wf_abstract *schedule_ldst_matrix(wf_tv *tv) {
    wf_abstract *a = wf_abstract_of_loop(tv);
    wf_abstract_split(a, -1, BOX_N); /* by the TMA box: [.., no, m, ni] */
    wf_abstract_reorder(a, 2, swap_23);
    wf_abstract_split(a, -2, 16); /* 16 x 16 tiles: [.., no, mo, nio, mi, nii] */
    wf_abstract_split(a, -1, 16);
    wf_abstract_reorder(a, 2, swap_23);
    wf_abstract_split(a, -2, 8); /* four 8 x 8 matrices, two adjacent elements per register */
    wf_abstract_split(a, -1, 8);
    wf_abstract_split(a, -1, 2); /* [.., mio, mii, niio, niiio, niiii] */
    static const int wgmma_order[3][2] = {{-5, -2}, {-4, -5}, {-2, -4}};
    wf_abstract_reorder(a, 3, wgmma_order); /* [.., mii, niiio, niio, mio, niiii] */
    wf_abstract_merge(a, -2, -1);
    wf_abstract_merge(a, -2, -1); /* [.., mii, niiio, (niio * mio * niiii){8}] */
    static const int swap_45[2][2] = {{-5, -4}, {-4, -5}};
    wf_abstract_reorder(a, 2, swap_45); /* [.., no, nio, mo, mii, niiio, 8] */
    wf_abstract_merge(a, -4, -3);
    wf_abstract_merge(a, -3, -2); /* [.., no, nio, (mo * mii * niiio){128}, 8] */
    wf_abstract_merge(a, -4, -3); /* [.., (no * nio){16}, 128, 8] */
    return a;
}

/* A TMA side's tile: [.., m, n] -> [.., no, m, box_n], the box on WF_BULK. */
static void tma_box(wf_tv *tv) {
    wf_tv_split(tv, -1, BOX_N);
    wf_tv_reorder(tv, 2, swap_23);
    wf_tv_parallelize(tv, -2, WF_BULK);
    wf_tv_parallelize(tv, -1, WF_BULK);
}

/* T4's allocation: TMA boxes [.., no, m{64}, 64] in the 128-byte swizzle
   pattern [.., no, m / 8, 8 (row), 1, 8 (16-byte chunk), 8] with the chunk
   XORed by the row: the layout a TMA store with swizzle 128 reads. */
static void swizzled_store_tile(wf_tv *tv) {
    int s = SWIZZLE / 16;
    wf_abstract *a = wf_abstract_of_loop(tv);
    wf_abstract_split(a, -1, BOX_N);
    wf_abstract_reorder(a, 2, swap_23);
    wf_abstract_split(a, -1, 8);     /* [.., m, s, 8] */
    wf_abstract_split(a, -3, 8 / s); /* [.., m / (8 / s), 8 / s, s, 8] */
    wf_abstract_split(a, -4, s);     /* [.., m / 8, s, 8 / s, s, 8] */
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, -4, -2);
    int n;
    wf_iterdomain *const *ids = wf_abstract_ids(a, &n);
    wf_tv_set_allocation_domain(tv, n, ids, true);
}

static wf_fusion *ldstmatrix_set(int64_t m, int64_t n) {
    int64_t shape[2] = {m, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_BF16, 2, shape), *out = wf_set(in);
    wf_output(f, out);
    wf_tv *smem_in = wf_cache_after(in); /* T2: TMA load */
    wf_tv_set_memory(smem_in, WF_MEM_SHARED);
    wf_tv_set_ldst(smem_in, WF_LDST_TMA);
    wf_tv *regs = wf_cache_after(smem_in); /* T3: ldmatrix */
    wf_tv_set_ldst(regs, WF_LDST_LDMATRIX);
    wf_tv *smem_out = wf_cache_before(out); /* T4: stmatrix */
    wf_tv_set_ldst(smem_out, WF_LDST_STMATRIX);
    wf_tv_set_memory(smem_out, WF_MEM_SHARED);
    wf_tv_set_ldst(out, WF_LDST_TMA); /* T1: TMA store */

    /* [GM (BIDx), GN (BIDy), cta_m / warp_m (TIDy), cta_n / warp_n, warp_m, warp_n] */
    wf_tv_split(out, 0, CTA_M);
    wf_tv_split(out, -1, CTA_N);
    wf_tv_reorder(out, 2, swap_23);
    wf_tv_split(out, -2, WARP_M);
    wf_tv_split(out, -1, WARP_N);
    wf_tv_reorder(out, 2, swap_23);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_BIDY);
    wf_tv_parallelize(out, 2, WF_TIDY);
    wf_parallelize_all_like(out, 0);

    /* TMA load into a 128-byte-swizzled tile; the TMA store's tile likewise */
    tma_box(smem_in);
    tma_box(out);
    wf_tv_tma_swizzle(smem_in, SWIZZLE);
    swizzled_store_tile(smem_out);

    /* stmatrix: T4's loop domain from the abstract tensor */
    int nl;
    wf_iterdomain *const *loop = wf_abstract_ids(schedule_ldst_matrix(smem_out), &nl);
    wf_tv_set_loop_domain(smem_out, nl, loop);
    wf_tv_parallelize(smem_out, -2, WF_TIDX);
    wf_tv_parallelize(smem_out, -1, WF_VECTORIZE);

    /* ldmatrix: the same transforms, built independently; the registers are
       allocated as the loop */
    loop = wf_abstract_ids(schedule_ldst_matrix(regs), &nl);
    wf_tv_set_loop_domain(regs, nl, loop);
    wf_tv_set_allocation_domain(regs, nl, loop, true);
    wf_tv_parallelize(regs, -2, WF_TIDX);
    wf_tv_parallelize(regs, -1, WF_VECTORIZE);

    wf_inline_most(f); /* the two loop domains map: one loop nest */
    return f;
}

/* The instructions the kernel issues for ldmatrix / stmatrix (the PTX
   template of each asm statement) and where their row address points. */
static void print_matrix_lines(const char *src) {
    for (const char *p = src; (p = strstr(p, "asm volatile(\"")) != NULL;) {
        p += strlen("asm volatile(\"");
        const char *q = strchr(p, '"'), *addr = strstr(p, "__cvta_generic_to_shared(&");
        if (!q)
            break;
        if (strncmp(p, "ldmatrix", 8) && strncmp(p, "stmatrix", 8))
            continue;
        const char *tensor = addr ? addr + strlen("__cvta_generic_to_shared(&") : NULL;
        int tlen = 0;
        while (tensor && tensor[tlen] && tensor[tlen] != '[')
            tlen++;
        printf("  %.*s    (row address: %.*s[...], an index of threadIdx.x)\n", (int)(q - p), p,
               tlen, tensor ? tensor : "");
    }
}

/* The TMA tensor maps, outermost dimension first. */
static void print_tma(const wf_kernel *k) {
    for (int i = 0; i < wf_kernel_tma_count(k); i++) {
        const wf_tma_info *t = wf_kernel_tma(k, i);
        printf("  TMA %s: box [", t->is_store ? "store" : "load");
        for (int d = t->rank - 1; d >= 0; d--)
            printf("%lld%s", (long long)t->box[d], d ? ", " : "]");
        printf(", swizzle %d\n", t->swizzle_bytes);
    }
}

/* Finite random bf16 values: the top halves of floats in [-2, 2). */
static uint16_t *random_bf16(int64_t count) {
    uint16_t *x = malloc(sizeof(uint16_t) * (size_t)count);
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int64_t i = 0; x && i < count; i++) {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        float v = (float)((s * 0x2545f4914f6cdd1dull) >> 40) / (float)(1 << 24) * 4.0f - 2.0f;
        uint32_t bits;
        memcpy(&bits, &v, sizeof bits);
        x[i] = (uint16_t)(bits >> 16);
    }
    return x;
}

/* Compile for m x n, run on backend b, compare bit for bit. */
static int run(int64_t m, int64_t n, wf_backend b, int show) {
    wf_fusion *f = ldstmatrix_set(m, n);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("refused: %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    const char *src = wf_kernel_source(k);
    if (show) {
        const wf_launch_info *li = wf_kernel_launch(k);
        printf("%lld x %lld: %lld x %lld blocks of %lld x %lld threads, %lld bytes of shared "
               "memory; the matrix instructions:\n",
               (long long)m, (long long)n, (long long)li->grid[0], (long long)li->grid[1],
               (long long)li->block[0], (long long)li->block[1], (long long)li->smem_bytes);
        print_matrix_lines(src);
        print_tma(k);
    }
    int64_t count = m * n;
    uint16_t *x = random_bf16(count), *y = malloc(sizeof(uint16_t) * (size_t)count);
    int bad = 1;
    if (x && y) {
        memset(y, 0xff, sizeof(uint16_t) * (size_t)count);
        wf_buffer in = {x, WF_BF16, 2, {m, n}, {0}, -1}, out = {y, WF_BF16, 2, {m, n}, {0}, -1};
        wf_status st = wf_run(k, b, &in, 1, &out, 1);
        bad = st != WF_OK || memcmp(x, y, sizeof(uint16_t) * (size_t)count) != 0;
        printf("%s %lld x %lld: %s%s\n", b == WF_BACKEND_CUDA ? "GPU" : "CPU executor",
               (long long)m, (long long)n,
               st != WF_OK ? "failed: "
               : bad       ? "WRONG"
                           : "bit-exact",
               st != WF_OK ? wf_last_run_error(k) : "");
        wf_access_stats s;
        if (st == WF_OK && b == WF_BACKEND_INTERP && wf_interp_stats(k, &s) == WF_OK)
            printf("  shared memory: %lld accesses in %lld wavefronts, worst bank conflict "
                   "%d-way\n",
                   (long long)s.smem_accesses, (long long)s.smem_wavefronts,
                   s.smem_max_conflict_degree);
    }
    if (!bad && b == WF_BACKEND_CUDA) { /* device buffers: the copy alone, timed */
        size_t bytes = sizeof(uint16_t) * (size_t)count;
        void *dx = wf_device_alloc(bytes), *dy = wf_device_alloc(bytes);
        double us = 0, d2d = 0;
        wf_buffer in = {dx, WF_BF16, 2, {m, n}, {0}, 0}, out = {dy, WF_BF16, 2, {m, n}, {0}, 0};
        if (dx && dy && wf_time(k, &in, 1, &out, 1, 3, 20, &us) == WF_OK &&
            wf_device_memcpy_time(dy, dx, bytes, 3, 20, &d2d) == WF_OK)
            printf("  %.1f us, %.0f GB/s; a device-to-device copy %.1f us, %.0f GB/s\n", us,
                   2.0 * (double)bytes / us / 1e3, d2d, 2.0 * (double)bytes / d2d / 1e3);
        wf_device_free(dx);
        wf_device_free(dy);
    }
    free(x);
    free(y);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

int main(void) {
    int bad = run(512, 512, WF_BACKEND_INTERP, 1);
    bad |= run(320, 200, WF_BACKEND_INTERP, 0); /* tiles the size does not divide */
    if (wf_cuda_available())
        bad |= run(8192, 8192, WF_BACKEND_CUDA, 1);
    else
        printf("GPU: none here (wf_cuda_available() is false): skipped\n");
    return bad;
}
