/*
 * mma_frag.h -- the register fragments of mma.sync.m16n8k16 with 16-bit
 * operands and an f32 accumulator (PTX ISA, "Matrix Fragments for
 * mma.m16n8k16 with floating point type"): which element of a tile lane t
 * holds in element e of its registers. The one table that lowering's check
 * (lower/mma.c) and the executor's instruction (runtime/interp_mma.c) share.
 *
 *   A, 16 x 16 (M x K), 8 elements: m = t/4 + 8 ((e/2) % 2), k = 2 (t%4) + e%2 + 8 (e/4)
 *   B, 16 x 8  (K x N), 4 elements: k = 2 (t%4) + e%2 + 8 (e/2), n = t/4
 *   C, 16 x 8  (M x N), 4 elements: m = t/4 + 8 (e/2),           n = 2 (t%4) + e%2
 *
 * Two adjacent elements (e, e + 1 for even e) share one 32-bit register.
 */
#ifndef WF_IR_MMA_FRAG_H
#define WF_IR_MMA_FRAG_H

#include <stdbool.h>
#include <stdint.h>

enum { MMA_M = 16, MMA_N = 8, MMA_K = 16, MMA_A_REGS = 8, MMA_B_REGS = 4, MMA_C_REGS = 4 };

typedef enum { MMA_ROLE_A, MMA_ROLE_B, MMA_ROLE_C } mma_role;

/* (row, column) of element e of lane t: A (m, k), B (k, n), C (m, n). */
static inline void mma_frag(mma_role r, int t, int e, int *row, int *col) {
    switch (r) {
    case MMA_ROLE_A:
        *row = t / 4 + 8 * ((e / 2) % 2);
        *col = 2 * (t % 4) + e % 2 + 8 * (e / 4);
        break;
    case MMA_ROLE_B:
        *row = 2 * (t % 4) + e % 2 + 8 * (e / 2);
        *col = t / 4;
        break;
    default:
        *row = t / 4 + 8 * (e / 2);
        *col = 2 * (t % 4) + e % 2;
        break;
    }
}

static inline int mma_frag_regs(mma_role r) {
    return r == MMA_ROLE_A ? MMA_A_REGS : r == MMA_ROLE_B ? MMA_B_REGS : MMA_C_REGS;
}

/* ---- wgmma.mma_async.m64nNk16 (sm_90a; PTX ISA "Asynchronous Warpgroup Level Matrix
   Multiply-Accumulate"): a warp group of 128 threads, N from 8 to 256 in steps of 8 ----

   The accumulator, 64 x N (M x N), N/2 f32 per thread t (warp w = t / 32, lane l = t % 32):
     m = 16 w + l/4 + 8 ((e/2) % 2),  n = 8 (e/4) + 2 (l%4) + e%2
   A (64 x 16) and B (16 x N) are read from shared memory through matrix descriptors
   (start address, leading and stride byte offsets, swizzle). In the canonical layouts
   with the 128-byte swizzle, element (r, c) -- r along M (A) or N (B), c along K -- is
   at byte
     K-major:  start + (r % 8) 128 + (r / 8) sbo + 2 c
     MN-major: start + 2 (r % 64) + (r / 64) lbo + (c % 8) 128 + (c / 8) sbo
   of shared memory, then swizzled: the 16-byte chunk (bits 4-6) XORed with the 128-byte
   row within the 1024-byte atom (bits 7-9), as TMA's 128-byte swizzle places it. */
enum { WGMMA_M = 64, WGMMA_THREADS = 128 };

static inline void wgmma_frag_c(int t, int e, int *m, int *n) {
    *m = 16 * (t / 32) + (t % 32) / 4 + 8 * ((e / 2) % 2);
    *n = 8 * (e / 4) + 2 * (t % 4) + e % 2;
}

static inline int64_t wgmma_swizzle128(int64_t byte) {
    return byte ^ (((byte >> 7) & 7) << 4);
}

static inline int64_t wgmma_smem_byte(bool mn_major, int64_t lbo, int64_t sbo, int64_t start, int r,
                                      int c) {
    int64_t b = mn_major ? start + 2 * (r % 64) + (r / 64) * lbo + (c % 8) * 128 + (c / 8) * sbo
                         : start + (r % 8) * 128 + (r / 8) * sbo + 2 * c;
    return wgmma_swizzle128(b);
}

#endif
