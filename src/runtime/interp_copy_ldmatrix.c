/*
 * interp_copy_ldmatrix.c -- the executor's 8x8-matrix copies, LdMatrix and
 * StMatrix (seed 002), run as the PTX ISA gives them ("ldmatrix",
 * "stmatrix"), not from the statement's element indices.
 *
 * Per warp (32 consecutive linear thread ids, all of which must run the
 * instruction: it is warp-collective): lane l supplies the shared-memory
 * address of row l % 8 of matrix l / 8 (the row expression lowering built,
 * kir_stmt.hw.ldm.row), and the row's 8 elements are the 16 bytes from
 * there. Element (row r, column c) of matrix j goes to (ldmatrix) or comes
 * from (stmatrix) register j of lane 4 r + c / 2, half c % 2, i.e. the
 * register tensor's element 2 j + c % 2 from the statement's index on; with
 * .trans, lane 4 c + r / 2, half r % 2. Every element goes through the
 * memory model (ix_access) as an access of the lane whose register holds
 * it: bounds, races, reads of cells never written. Each matrix is one
 * 8-lane phase of 128 bytes in shared memory: its wavefronts are the most
 * distinct 4-byte words one of the 32 banks must serve (1 when the 8 rows
 * cover all banks, as a swizzled tile does), recorded with the statement's
 * other shared-memory statistics.
 */
#include "runtime/interp_hw.h"

#include <string.h>

void ix_copy_build_ldmatrix(ix_builder *b, in_node *n, const kir_stmt *s) {
    n->ldm_count = s->hw.ldm.count;
    n->ldm_trans = s->hw.ldm.trans;
    n->ldm_row = ix_build_expr(b, s->hw.ldm.row);
}

/* The lane and register element that hold (row r, column c) of a matrix. */
static void holder(bool trans, int r, int c, int *lane, int *half) {
    *lane = trans ? 4 * c + r / 2 : 4 * r + c / 2;
    *half = trans ? r % 2 : c % 2;
}

static void phase_stats(ix_exec *x, const in_node *n, int smem, const int64_t *rows, int w) {
    it_stats *st = &x->p->stats[n->id];
    int64_t es = (int64_t)wf_dtype_size(x->p->tensors[smem].dtype), wave = 0;
    int worst = 0;
    for (int j = 0; j < n->ldm_count; j++) {
        int64_t words[32];
        int per_bank[32] = {0}, nw = 0, most = 0;
        for (int r = 0; r < 8; r++)
            for (int64_t u = 0; u < 4; u++) {
                int64_t word = (x->off[smem] + rows[w * 32 + 8 * j + r] * es) / 4 + u;
                bool seen = false;
                for (int i = 0; i < nw && !seen; i++)
                    seen = words[i] == word;
                if (seen)
                    continue;
                words[nw++] = word;
                int bank = (int)(word % 32);
                if (++per_bank[bank] > most)
                    most = per_bank[bank];
            }
        wave += most;
        worst = most > worst ? most : worst;
    }
    st->smem_accesses++;
    st->smem_wavefronts += wave;
    if (worst > st->smem_max_degree)
        st->smem_max_degree = worst;
}

static bool partial_warp(ix_exec *x, const in_node *n, int w, int lane) {
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "%s is warp-collective, but lane %d of warp %d does not run it while others "
                   "do, in statement: %s",
                   ir_ldst_name(n->copy), lane, w, n->text);
}

static bool warp(ix_exec *x, const in_node *n, const int64_t *rows, const int64_t *reg, int w) {
    bool ld = n->copy == WF_LDST_LDMATRIX;
    int smem = ld ? n->in[0] : n->out, regs = ld ? n->out : n->in[0];
    int active = 0;
    for (int i = 0; i < 32; i++)
        active += x->mask[w * 32 + i] != 0;
    if (active == 0)
        return true;
    for (int i = 0; i < 32; i++)
        if (!x->mask[w * 32 + i])
            return partial_warp(x, n, w, i);
    size_t es = wf_dtype_size(x->p->tensors[smem].dtype);
    for (int j = 0; j < n->ldm_count; j++)
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) {
                int lane, half;
                holder(n->ldm_trans, r, c, &lane, &half);
                int t = w * 32 + lane;
                int64_t at = rows[w * 32 + 8 * j + r] + c, e = reg[t] + 2 * j + half;
                unsigned char *sp = ix_access(x, n, smem, at, t, !ld);
                unsigned char *rp = sp ? ix_access(x, n, regs, e, t, ld) : NULL;
                if (!rp)
                    return false;
                memcpy(ld ? rp : sp, ld ? sp : rp, es);
            }
    phase_stats(x, n, smem, rows, w);
    return true;
}

bool ix_copy_execute_ldmatrix(ix_exec *x, const in_node *n) {
    bool ld = n->copy == WF_LDST_LDMATRIX;
    int T = x->nthreads;
    const int64_t *v;
    bool vary;
    int64_t *rows = x->saved, *reg = x->saved + T;
    if (!ix_eval(x, &n->ldm_row, &v, &vary))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    for (int t = 0; t < T; t++)
        rows[t] = v[vary ? t : 0];
    if (!ix_eval(x, ld ? &n->out_index : &n->in_index[0], &v, &vary))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    for (int t = 0; t < T; t++)
        reg[t] = v[vary ? t : 0];
    if (T % 32 != 0)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "%s is warp-collective, but the block has %d threads, not whole warps, in "
                       "statement: %s",
                       ir_ldst_name(n->copy), T, n->text);
    for (int w = 0; w < T / 32; w++)
        if (!warp(x, n, rows, reg, w))
            return false;
    return true;
}
