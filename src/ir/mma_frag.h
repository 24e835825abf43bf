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

#endif
