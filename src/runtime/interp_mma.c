/*
 * interp_mma.c -- the executor's tensor-core instruction, mma.sync
 * .m16n8k16 with f16 or bf16 operands and an f32 accumulator, run as the PTX
 * ISA gives it: per warp (32 consecutive linear thread ids, all of which
 * must run it), the A (16 x 16), B (16 x 8) and accumulator (16 x 8) tiles
 * are gathered from the lanes' registers by the fragment table
 * (ir/mma_frag.h), from each lane's first register on (the statement's
 * indices), D = C + A B computed, and D scattered back. Every register goes
 * through the memory model (ix_access) as an access of the lane that holds
 * it, so a register no statement wrote (an operand tile loaded only in
 * part) is reported.
 *
 * Rounding (docs/tutorial-gemm.md): each product of two 16-bit floats is
 * exact in f32; each element of D is C plus the 16 products summed in
 * double, rounded once to f32. The hardware's adder keeps fewer bits than
 * double, so on data whose sums are not exact in f32 the GPU may differ in
 * the last bits; on data whose partial sums are exact (the tests' integer
 * values) both are exact.
 */
#include "base/heap.h"
#include "ir/mma_frag.h"
#include "runtime/interp_int.h"

#include <stdlib.h>

static bool partial_warp(ix_exec *x, const in_node *n, int w, int lane) {
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "mma.sync is warp-collective, but lane %d of warp %d does not run it while "
                   "others do, in statement: %s",
                   lane, w, n->text);
}

/* Element e of lane t's fragment of tensor `tensor`, from register index base[t]. */
static bool reg(ix_exec *x, const in_node *n, int tensor, const int64_t *base, int w, int t, int e,
                bool write, unsigned char **p) {
    int th = w * 32 + t;
    *p = ix_access(x, n, tensor, base[th] + e, th, write);
    return *p != NULL;
}

static bool warp(ix_exec *x, const in_node *n, const int64_t *const idx[3], int w) {
    int active = 0;
    for (int i = 0; i < 32; i++)
        active += x->mask[w * 32 + i] != 0;
    if (active == 0)
        return true;
    for (int i = 0; i < 32; i++)
        if (!x->mask[w * 32 + i])
            return partial_warp(x, n, w, i);
    int ia = n->mma_a, ib = 1 - n->mma_a;
    wf_dtype ta = x->p->tensors[n->in[ia]].dtype, tb = x->p->tensors[n->in[ib]].dtype;
    double a[MMA_M][MMA_K], b[MMA_K][MMA_N], c[MMA_M][MMA_N];
    unsigned char *p;
    for (int t = 0; t < 32; t++) {
        for (int e = 0; e < MMA_A_REGS; e++) {
            int r, col;
            mma_frag(MMA_ROLE_A, t, e, &r, &col);
            if (!reg(x, n, n->in[ia], idx[1 + ia], w, t, e, false, &p))
                return false;
            a[r][col] = ix_load(ta, p).f;
        }
        for (int e = 0; e < MMA_B_REGS; e++) {
            int r, col;
            mma_frag(MMA_ROLE_B, t, e, &r, &col);
            if (!reg(x, n, n->in[ib], idx[1 + ib], w, t, e, false, &p))
                return false;
            b[r][col] = ix_load(tb, p).f;
        }
        for (int e = 0; e < MMA_C_REGS; e++) {
            int r, col;
            mma_frag(MMA_ROLE_C, t, e, &r, &col);
            if (!reg(x, n, n->out, idx[0], w, t, e, false, &p))
                return false;
            c[r][col] = ix_load(WF_F32, p).f;
        }
    }
    for (int t = 0; t < 32; t++)
        for (int e = 0; e < MMA_C_REGS; e++) {
            int r, col;
            mma_frag(MMA_ROLE_C, t, e, &r, &col);
            double s = c[r][col];
            for (int k = 0; k < MMA_K; k++)
                s += (double)(float)(a[r][k] * b[k][col]); /* exact: 16-bit x 16-bit */
            if (!reg(x, n, n->out, idx[0], w, t, e, true, &p))
                return false;
            ix_value v = {.f = (float)s};
            ix_store(WF_F32, p, v);
        }
    return true;
}

/* wgmma for warp group g: A and B from their shared tiles by the
   descriptors' canonical layouts (ir/mma_frag.h), the accumulator from and
   to the 128 threads' registers. Every element goes through the memory
   model as an access of the group's first thread (shared) or of the thread
   holding it (registers). */
static bool wgmma_tiles(ix_exec *x, const in_node *n, const int64_t *const idx[3], int th0, int N,
                        double (*a)[MMA_K], double (*b)[256], double (*c)[256]);

static bool wgmma_group(ix_exec *x, const in_node *n, const int64_t *const idx[3], int g) {
    int N = n->wg_n, th0 = g * WGMMA_THREADS;
    for (int i = 0; i < WGMMA_THREADS; i++)
        if (!x->mask[th0 + i])
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "wgmma is collective over a warp group, but thread %d of warp group %d "
                           "does not run it while others do, in statement: %s",
                           i, g, n->text);
    double(*a)[MMA_K] = heap_malloc(sizeof(double) * WGMMA_M * MMA_K);
    double(*b)[256] = heap_malloc(sizeof(double) * MMA_K * 256);
    double(*c)[256] = heap_malloc(sizeof(double) * WGMMA_M * 256);
    x->in_wgmma = true; /* its own accumulator, in flight or not */
    bool ok = a && b && c
                  ? wgmma_tiles(x, n, idx, th0, N, a, b, c)
                  : ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    x->in_wgmma = false;
    free(a);
    free(b);
    free(c);
    return ok;
}

/* The products of wgmma_group: a, b, c are its scratch tiles. */
static bool wgmma_tiles(ix_exec *x, const in_node *n, const int64_t *const idx[3], int th0, int N,
                        double (*a)[MMA_K], double (*b)[256], double (*c)[256]) {
    for (int j = 0; j < 2; j++) {
        int tile = n->wg_tile[j], rows = j ? N : WGMMA_M;
        wf_dtype t = x->p->tensors[tile].dtype;
        int64_t start = n->wg_base[j] + 2 * idx[1 + j][th0];
        for (int r = 0; r < rows; r++)
            for (int k = 0; k < MMA_K; k++) {
                int64_t byte =
                    wgmma_smem_byte(n->wg_mn[j], n->wg_lbo[j], n->wg_sbo[j], start, r, k);
                int64_t e = (byte - n->wg_base[j]) / 2;
                unsigned char *p = ix_access(x, n, tile, e, th0, false);
                if (!p || !ix_wgmma_note_read(x, th0 / WGMMA_THREADS,
                                              x->view[tile].off + e * x->view[tile].es))
                    return false;
                double v = ix_load(t, p).f;
                if (j)
                    b[k][r] = v;
                else
                    a[r][k] = v;
            }
    }
    unsigned char *p;
    for (int t = 0; t < WGMMA_THREADS; t++)
        for (int e = 0; e < N / 2; e++) {
            int m, col;
            wgmma_frag_c(t, e, &m, &col);
            if (!(p = ix_access(x, n, n->out, idx[0][th0 + t] + e, th0 + t, false)))
                return false;
            c[m][col] = ix_load(WF_F32, p).f;
        }
    for (int t = 0; t < WGMMA_THREADS; t++)
        for (int e = 0; e < N / 2; e++) {
            int m, col;
            wgmma_frag_c(t, e, &m, &col);
            double s = c[m][col];
            for (int k = 0; k < MMA_K; k++)
                s += (double)(float)(a[m][k] * b[k][col]); /* exact: 16-bit x 16-bit */
            int64_t at = idx[0][th0 + t] + e;
            if (!(p = ix_access(x, n, n->out, at, th0 + t, true)) ||
                !ix_wgmma_note_acc(x, th0 / WGMMA_THREADS, n->out,
                                   (int64_t)(th0 + t) * x->view[n->out].size + at))
                return false;
            ix_store(WF_F32, p, (ix_value){.f = (float)s});
        }
    return true;
}

bool ix_mma_stmt(ix_exec *x, const in_node *n) {
    int T = x->nthreads;
    int64_t *copy[3];
    bool wg = n->mma == 2;
    const ix_expr *e[3] = {&n->out_index, wg ? &n->wg_start[0] : &n->in_index[0],
                           wg ? &n->wg_start[1] : &n->in_index[1]};
    for (int i = 0; i < 3; i++) {
        const int64_t *v;
        bool vary;
        if (!ix_eval(x, e[i], &v, &vary))
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "an index divides by zero or overflows int64 in statement: %s", n->text);
        copy[i] = x->rindex + (size_t)i * (size_t)T; /* 5 x T: ix_exec_init */
        for (int t = 0; t < T; t++)
            copy[i][t] = v[vary ? t : 0];
    }
    int unit = wg ? WGMMA_THREADS : 32;
    if (T % unit != 0)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "%s is collective, but the block has %d threads, not whole %ss, in "
                       "statement: %s",
                       wg ? "wgmma" : "mma.sync", T, wg ? "warp group" : "warp", n->text);
    const int64_t *const idx[3] = {copy[0], copy[1], copy[2]};
    for (int w = 0; w < T / unit; w++)
        if (!(wg ? wgmma_group(x, n, idx, w) : warp(x, n, idx, w)))
            return false;
    ix_record_stats(x, n, n->out, copy[0], true);
    for (int i = 1; i < 3 && !wg; i++)
        ix_record_stats(x, n, n->in[i - 1], copy[i], true);
    return true;
}
