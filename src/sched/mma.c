/*
 * mma.c -- WF_MMA on a tile's axes lays the tile out as an mma.sync
 * fragment (ir/mma_frag.h): the 32 lanes of a warp on TIDx and the
 * registers of each lane, by ordinary split, reorder and merge, so that
 * indexing, allocation and the printers see nothing new.
 *
 * wf_tv_parallelize(tv, axis, WF_MMA) calls sched_mma_layout once the
 * axes on MMA make a whole tile:
 *  - the wf_mma result (the accumulator): M 16 and N 8 iteration axes and a
 *    K 16 reduction axis -> [.., lane{32} TIDx, e{4} MMA, k{16} MMA], the
 *    instruction's axes (lower/mma.c);
 *  - an operand of a wf_mma: its K axis (the one that comes from the dim the
 *    wf_mma sums) and M 16 (A) or N 8 (B) -> [.., lane{32} TIDx, e{8 or 4}];
 *  - any other tensor (the accumulator's consumers: an epilogue): M 16 and
 *    N 8 iteration axes -> [.., lane{32} TIDx, e{2}, pair{2}], as the
 *    accumulator, the columns of a register pair on an axis of their own
 *    (WF_VECTORIZE on it: one store of both);
 *  - wgmma (sm_90a): the accumulator's M 64 and N (8 to 256, in steps of 8)
 *    iteration axes and K 16 -> [.., lane{128} TIDx, e{N/2} MMA, k{16} MMA],
 *    an epilogue's M 64 and N -> [.., lane{128} TIDx, e{N/4}, pair{2}]; the operands
 *    stay in shared memory (no layout: lower/mma.c reads their tiles).
 * The tile's axes move to the end of the loop domain (M before N, or the
 * operand's row before its column), in the table's order. A set of MMA axes
 * that makes no tile is left as it is: compiling names what would work.
 */
#include "ir/mma_frag.h"
#include "sched/sched.h"

enum { MAX_AXES = 64 }; /* a loop domain longer than this is never a tile's */

/* The logical dim of tv that id comes from through splits, or -1. */
static int source_dim(const wf_tv *tv, const wf_iterdomain *id) {
    while (id->def) {
        if (id->def->kind != TF_SPLIT)
            return -1;
        id = id->def->in[0];
    }
    for (int d = 0; d < tv->logical.n; d++)
        if (tv->logical.ptr[d] == id)
            return d;
    return -1;
}

/* Moves the axes at[0..n) to the end of tv's loop domain, in that order;
   returns the position of the first. */
static int move_to_end(wf_tv *tv, const int *at, int n) {
    int total = tv->loop.n, old2new[MAX_AXES], next = 0;
    for (int i = 0; i < total; i++) {
        old2new[i] = -1;
        for (int j = 0; j < n; j++)
            if (at[j] == i)
                old2new[i] = total - n + j;
        if (old2new[i] < 0)
            old2new[i] = next++;
    }
    return sched_reorder(tv, old2new) ? total - n : -1;
}

/* A fragment layout as transforms of a tile [.., rows, cols] at position b:
   inner splits (at b + at, by factor), in order; a reorder of the window of
   n axes at b (old position b + i goes to b + perm[i]); then merges of
   b + m and b + m + 1, in order, which leave [lane, registers]. The tables
   of ir/mma_frag.h, written as schedules. */
typedef struct {
    int nsplit, split[4][2];
    int n, perm[6];
    int nmerge, merge[4];
} frag_layout;

/* mma.sync's roles (mma_role order) and wgmma's accumulator. */
static const frag_layout layouts[] = {
    /* A [m16, k16] -> [mh2, m8, kh2, kq4, kp2] -> [m8, kq4 | kh2, mh2, kp2] */
    [MMA_ROLE_A] = {3, {{0, 8}, {2, 8}, {3, 2}}, 5, {3, 0, 2, 1, 4}, 3, {0, 1, 1}},
    /* B [n8, k16] -> [n8, kh2, kq4, kp2] -> [n8, kq4 | kh2, kp2] */
    [MMA_ROLE_B] = {2, {{1, 8}, {2, 2}}, 4, {0, 2, 1, 3}, 2, {0, 1}},
    /* C [m16, n8] -> [mh2, m8, nq4, np2] -> [m8, nq4 | mh2, np2] */
    [MMA_ROLE_C] = {2, {{0, 8}, {2, 2}}, 4, {2, 0, 1, 3}, 2, {0, 1}},
};
/* wgmma's accumulator [m64, nN] -> [w4, mh2, m8, nj, nq4, np2] ->
   [w4, m8, nq4 | nj, mh2, np2]: 128 lanes, N/2 registers. */
static const frag_layout wgmma_acc = {
    4, {{0, 16}, {1, 8}, {3, 8}, {4, 2}}, 6, {0, 4, 1, 3, 2, 5}, 4, {0, 0, 1, 1}};

/* An epilogue's layouts: the accumulator's without the last merge, which
   leaves the two columns of a register pair an axis of their own (adjacent
   in memory along N: WF_VECTORIZE on it stores them with one instruction). */
static const frag_layout epilogue_c = {2, {{0, 8}, {2, 2}}, 4, {2, 0, 1, 3}, 1, {0}};
static const frag_layout epilogue_wgmma = {
    4, {{0, 16}, {1, 8}, {3, 8}, {4, 2}}, 6, {0, 4, 1, 3, 2, 5}, 3, {0, 0, 1}};

/* Lays the tile at b out by l: [.., lane (TIDx), registers (UNROLL)], the
   registers in one axis or (an epilogue's) two. */
static bool lay_out(wf_tv *tv, int b, const frag_layout *l) {
    for (int i = b; i < tv->loop.n; i++) /* the marks said "a tile"; the layout says how */
        tv->loop.ptr[i]->ptype = WF_SERIAL;
    bool ok = true;
    for (int i = 0; ok && i < l->nsplit; i++)
        ok = sched_split(tv, b + l->split[i][0], l->split[i][1], true);
    int o2n[MAX_AXES];
    for (int i = 0; i < tv->loop.n; i++)
        o2n[i] = i >= b && i < b + l->n ? b + l->perm[i - b] : i;
    ok = ok && sched_reorder(tv, o2n);
    for (int i = 0; ok && i < l->nmerge; i++)
        ok = sched_merge(tv, b + l->merge[i], b + l->merge[i] + 1);
    if (!ok)
        return false;
    tv->loop.ptr[b]->ptype = WF_TIDX;
    for (int i = b + 1; i < tv->loop.n; i++)
        tv->loop.ptr[i]->ptype = WF_UNROLL;
    return true;
}

/* The wf_mma that reads tv, and which input tv is; NULL if none. */
static const ir_op *mma_reader(const wf_tv *tv, int *j) {
    for (int u = 0; u < tv->uses.n; u++) {
        const ir_op *op = tv->uses.ptr[u];
        for (int k = 0; ir_op_is_mma(op) && k < 2; k++)
            if (op->in[k] == tv) {
                *j = k;
                return op;
            }
    }
    return NULL;
}

/* Is e a wgmma N: 8 to 256 in steps of 8? */
static bool wgmma_n(int64_t e) {
    return e >= 8 && e <= 256 && e % 8 == 0;
}

/* The accumulator: [m16, n8, rk16] on MMA (mma.sync), or [m64, nN, rk16] (wgmma). */
static bool accumulator(wf_tv *tv, const int *at, int n) {
    int m = -1, nn = -1, k = -1, its = 0;
    int64_t em = -1;
    for (int i = 0; i < n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[at[i]];
        int64_t e = ir_id_const_extent(id);
        if (id->itype == IT_REDUCTION && e == MMA_K && k < 0)
            k = at[i];
        else if (id->itype != IT_REDUCTION && its++ == 0)
            m = at[i], em = e;
        else if (id->itype != IT_REDUCTION)
            nn = at[i];
    }
    /* M is the first iteration axis on MMA in loop order, N the second */
    int64_t en = nn >= 0 ? ir_id_const_extent(tv->loop.ptr[nn]) : -1;
    bool wg = em == WGMMA_M && wgmma_n(en);
    if (!wg && !(em == MMA_M && en == MMA_N)) {
        if (em == MMA_N && en == MMA_M) { /* mma.sync's tile in the other order */
            int t = m;
            m = nn, nn = t;
        } else {
            m = -1;
        }
    }
    const ir_op *op = tv->def;
    bool sixteen = op->in[0]->dtype == op->in[1]->dtype &&
                   (op->in[0]->dtype == WF_F16 || op->in[0]->dtype == WF_BF16);
    if (n != 3 || m < 0 || nn < 0 || k < 0 || !sixteen)
        return true; /* no tile, or no instruction for the operands: lower/mma.c says */
    int order[3] = {m, nn, k};
    int b = move_to_end(tv, order, 3);
    if (b < 0 || !lay_out(tv, b, wg ? &wgmma_acc : &layouts[MMA_ROLE_C]))
        return false;
    tv->loop.ptr[b + 1]->ptype = WF_MMA;
    tv->loop.ptr[b + 2]->ptype = WF_MMA;
    return true;
}

/* An operand: its K axis and its M 16 (A) or N 8 (B) axis on MMA. */
static bool operand(wf_tv *tv, const ir_op *op, int j, const int *at, int n) {
    const wf_tv *out = op->out;
    int dk = -1;
    for (int d = 0; d < out->logical.n; d++)
        if (out->logical.ptr[d]->itype == IT_REDUCTION)
            dk = dk < 0 ? op->in_dim[j][d] : -2;
    if (n != 2 || dk < 0)
        return true;
    int k = source_dim(tv, tv->loop.ptr[at[0]]) == dk   ? 0
            : source_dim(tv, tv->loop.ptr[at[1]]) == dk ? 1
                                                        : -1;
    if (k < 0 || ir_id_const_extent(tv->loop.ptr[at[k]]) != MMA_K)
        return true;
    int64_t other = ir_id_const_extent(tv->loop.ptr[at[1 - k]]);
    if (other != MMA_M && other != MMA_N)
        return true;
    mma_role role = other == MMA_M ? MMA_ROLE_A : MMA_ROLE_B;
    int order[2] = {at[1 - k], at[k]}; /* A: [m, k]; B: [n, k] */
    int b = move_to_end(tv, order, 2);
    return b >= 0 && lay_out(tv, b, &layouts[role]);
}

/* Any other tensor: an M 16 and an N 8 iteration axis. */
static bool epilogue(wf_tv *tv, const int *at, int n) {
    if (n != 2)
        return true;
    int64_t e0 = ir_id_const_extent(tv->loop.ptr[at[0]]),
            e1 = ir_id_const_extent(tv->loop.ptr[at[1]]);
    bool iter = tv->loop.ptr[at[0]]->itype == IT_ITER && tv->loop.ptr[at[1]]->itype == IT_ITER;
    if (iter && e0 == WGMMA_M && wgmma_n(e1)) { /* wgmma's accumulator: M first */
        int b = move_to_end(tv, at, 2);
        return b >= 0 && lay_out(tv, b, &epilogue_wgmma);
    }
    if (!iter || !((e0 == MMA_M && e1 == MMA_N) || (e0 == MMA_N && e1 == MMA_M)))
        return true;
    int order[2] = {e0 == MMA_M ? at[0] : at[1], e0 == MMA_M ? at[1] : at[0]};
    int b = move_to_end(tv, order, 2);
    return b >= 0 && lay_out(tv, b, &epilogue_c);
}

bool sched_mma_layout(wf_tv *tv) {
    int at[MAX_AXES], n = 0, j;
    if (tv->loop.n + 3 > MAX_AXES)
        return true;
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->ptype == WF_MMA)
            at[n++] = i;
    if (tv->def && ir_op_is_mma(tv->def))
        return accumulator(tv, at, n); /* laid out already: 2 axes on MMA, left alone */
    const ir_op *op = mma_reader(tv, &j);
    return op ? operand(tv, op, j, at, n) : epilogue(tv, at, n);
}
