/*
 * mma.c -- tensor cores: the axes parallelized WF_MMA of a wf_mma result,
 * lowered to mma.sync.aligned.m16n8k16 (sm_80 and later, f16 or bf16
 * operands, f32 accumulator; PTX ISA "mma").
 *
 * The instruction is warp-collective: the 32 lanes of a warp (32
 * consecutive threadIdx.x) hold, in registers, fragments of a 16 x 16 A
 * tile, a 16 x 8 B tile and the 16 x 8 accumulator, laid out as
 * ir/mma_frag.h says. In weft these layouts are ordinary schedules:
 *  - the accumulator (the wf_mma result, in registers) is
 *    [.., lane{32} on TIDx, e{4} on MMA, k{16} on MMA], its M 16 x N 8 tile
 *    split and merged into the lane and the 4 registers of each thread, K's
 *    16 the instruction's reduction axis (wf_tv_parallelize lays a tile of
 *    M 16, N 8, K 16 axes on MMA out this way: sched/mma.c);
 *  - each operand (a register tensor read by the wf_mma) holds its tile the
 *    same way: a lane axis on TIDx and the registers of each thread.
 * The MMA axes make no loop (loops.c): the statement is the instruction,
 * issued at the tile's first element. Nothing here knows how a layout was
 * built: for every lane and register element, the check evaluates ordinary
 * indexing (which tile element the accumulator's register is, which thread
 * and register of each operand hold the A and B elements the instruction
 * takes from that lane) and compares with the table, as copy_ldmatrix.c
 * checks its lanes. A schedule whose lanes do not hold the fragments is
 * refused with the first element that differs.
 *
 * The operands' own statements write 0 where their bounds fail (kir_stmt
 * .fill): the instruction reads the whole tile, and a tile past the end of
 * M, N or K must add nothing. The instruction itself is not predicated (the
 * accumulator's cells past the end are never stored).
 *
 * Refusals: WF_ERR_SCHEDULE for a request no instruction implements (the
 * axes' shapes, the lanes); WF_ERR_UNSUPPORTED for a valid one weft does not
 * implement (f32 / tf32 or f64 operands, a target below sm_80, WF_MMA on
 * another tensor, an operand outside registers), each naming the tensor, the
 * axis and the shapes that would work.
 */
#include "ir/mma_frag.h"
#include "lower/copy.h"
#include "lower/eval.h"

#include <stdio.h>

#define MMA_ESYM  (-600) /* sym_a of the accumulator's register position */
#define MMA_KSYM  (-601) /* sym_a of the position along K */
#define MMA_LOOPS 16

static const char *const works = "mma.sync.m16n8k16 (sm_80 and later) takes f16 or bf16 operands "
                                 "with an f32 accumulator";

/* "iS3{16}, rS5{16}": tv's WF_MMA axes, in loop order, into b. */
static void mma_axes(sbuf *b, const wf_tv *tv) {
    bool first = true;
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->ptype == WF_MMA) {
            if (!first)
                sbuf_puts(b, ", ");
            ir_print_id(b, tv->loop.ptr[i]);
            first = false;
        }
}

static bool fail_axis(lower_ctx *c, wf_status st, const wf_tv *tv, int axis, const char *why) {
    sbuf s = {0};
    ir_print_id(&s, tv->loop.ptr[axis]);
    err_failb(&c->f->err, st, "T%d: axis %d (%s) is parallelized on MMA, but %s", tv->id, axis,
              sbuf_str(&s), why);
    sbuf_free(&s);
    return false;
}

/* The fragment form: the two innermost loop axes are on MMA, an iteration
   axis of 4 (the accumulator's registers) then a reduction axis of 16 (K),
   and some axis of 32 is on TIDx (the lanes). */
static bool fragment_form(const wf_tv *tv) {
    int n = tv->loop.n, nmma = 0;
    bool lanes = false;
    for (int i = 0; i < n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i];
        nmma += id->ptype == WF_MMA;
        lanes |= id->ptype == WF_TIDX && ir_id_const_extent(id) == 32;
    }
    if (n < 3 || nmma != 2 || !lanes)
        return false;
    const wf_iterdomain *e = tv->loop.ptr[n - 2], *k = tv->loop.ptr[n - 1];
    return e->ptype == WF_MMA && e->itype != IT_REDUCTION && ir_id_const_extent(e) == 4 &&
           k->ptype == WF_MMA && k->itype == IT_REDUCTION && ir_id_const_extent(k) == MMA_K;
}

bool lower_mma_check(lower_ctx *c, const wf_tv *tv, int axis) {
    char why[640];
    const ir_op *op = tv->def;
    if (!op || !ir_op_is_mma(op)) {
        snprintf(why, sizeof why,
                 "T%d is not a wf_mma result; WF_MMA marks the instruction's axes of a wf_mma "
                 "(an operand's register tile takes the fragment layout from "
                 "wf_tv_parallelize on MMA of its two tile axes, or from its own transforms)",
                 tv->id);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    for (int k = 0; k < 2; k++) {
        wf_dtype t = op->in[k]->dtype;
        if (t == WF_F16 || t == WF_BF16)
            continue;
        snprintf(why, sizeof why,
                 "its operand T%d is %s: no tensor-core path for %s operands is implemented; %s",
                 op->in[k]->id, ir_dtype_short(t), ir_dtype_short(t), works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    if (op->in[0]->dtype != op->in[1]->dtype) {
        snprintf(why, sizeof why, "its operands T%d and T%d are %s and %s; %s, both of one type",
                 op->in[0]->id, op->in[1]->id, ir_dtype_short(op->in[0]->dtype),
                 ir_dtype_short(op->in[1]->dtype), works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    int sm = c->out->sm ? c->out->sm : 90;
    if (sm < 80) {
        snprintf(why, sizeof why, "the target is sm_%d; %s", sm, works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    if (!fragment_form(tv)) {
        sbuf s = {0};
        mma_axes(&s, tv);
        snprintf(why, sizeof why,
                 "T%d's MMA axes (%s) form no instruction's tile: mma.sync takes m16n8k16, two "
                 "iteration axes of extents 16 (M) and 8 (N) and one reduction axis of extent 16 "
                 "(K), the innermost axes, which wf_tv_parallelize lays out as 32 lanes on TIDx "
                 "and 4 registers",
                 tv->id, sbuf_str(&s));
        sbuf_free(&s);
        return fail_axis(c, WF_ERR_SCHEDULE, tv, axis, why);
    }
    if (tv->mem != WF_MEM_LOCAL) {
        snprintf(why, sizeof why,
                 "T%d is in %s memory: the accumulator of mma.sync is in registers; compute it "
                 "in a register tensor (wf_cache_before of the output)",
                 tv->id, ir_memtype_name(tv->mem));
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    for (int k = 0; k < 2; k++)
        if (op->in[k]->mem != WF_MEM_LOCAL) {
            snprintf(why, sizeof why,
                     "its operand T%d is in %s memory; mma.sync reads its operands from "
                     "registers: cache T%d in registers laid out as the fragment "
                     "(wf_cache_after, then WF_MMA on its two tile axes)",
                     op->in[k]->id, ir_memtype_name(op->in[k]->mem), op->in[k]->id);
            return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
        }
    return true;
}

/* ---- the lanes ---- */

typedef struct {
    lower_ctx *c;
    kir_node *s;
    const ir_op *op;
    const kir_node *eloop, *kloop; /* the instruction's register and K axes */
    const wf_val *esym, *ksym;
    int64_t block[3];
    /* The accumulator: the tile's M and N logical dims, their indices, its register. */
    int dm, dn;
    const wf_val *cm, *cn, *cidx;
    /* Per operand: its role, the index of each thread axis, its register. */
    mma_role role[2];
    const wf_val *tid[2][3], *idx[2];
} mma_lanes;

static bool runtime_sizes(mma_lanes *k) {
    return lower_lanes_unknown(k->c, k->op->out, "mma.sync", k->op->out);
}

static bool fail_lane(mma_lanes *k, const char *what, int lane, int e, int64_t got, int64_t want) {
    return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                     "T%d: the lanes of a warp do not hold mma.sync.m16n8k16's fragments: %s of "
                     "lane %d's element %d is %lld, but the instruction needs %lld (the layouts: "
                     "docs/tutorial-gemm.md)",
                     k->op->out->id, what, lane, e, (long long)got, (long long)want);
}

/* The value of v at lane t of warp w, register position e, K position kk. */
static bool at(mma_lanes *k, lower_point *p, int w, int t, int e, int kk, const wf_val *v,
               int64_t *out) {
    lower_point_thread(p, k->block, (int64_t)w * 32 + t);
    p->b[0].val = e;
    p->b[1].val = kk;
    return lower_point_eval(p, v, out);
}

/* The accumulator: lane t's element e is (m, n) of the tile, in register base + e. */
static bool check_acc(mma_lanes *k, lower_point *p, int w) {
    int64_t m0, n0, base, m, n, r;
    if (!at(k, p, w, 0, 0, 0, k->cm, &m0) || !at(k, p, w, 0, 0, 0, k->cn, &n0) ||
        !at(k, p, w, 0, 0, 0, k->cidx, &base))
        return runtime_sizes(k);
    for (int t = 0; t < 32; t++)
        for (int e = 0; e < MMA_C_REGS; e++) {
            int wm, wn;
            mma_frag(MMA_ROLE_C, t, e, &wm, &wn);
            if (!at(k, p, w, t, e, 0, k->cm, &m) || !at(k, p, w, t, e, 0, k->cn, &n) ||
                !at(k, p, w, t, e, 0, k->cidx, &r))
                return runtime_sizes(k);
            if (m - m0 != wm)
                return fail_lane(k, "the accumulator's row (M)", t, e, m - m0, wm);
            if (n - n0 != wn)
                return fail_lane(k, "the accumulator's column (N)", t, e, n - n0, wn);
            if (r - base != e)
                return fail_lane(k, "the accumulator's register", t, e, r - base, e);
        }
    return true;
}

/* Operand j: the thread that holds each element the instruction takes from
   lane t's register e is lane t of this warp, in register base + e. The
   element is reached through an accumulator position with its row (A) or
   column (B) and the K position. */
static bool check_operand(mma_lanes *k, lower_point *p, int w, int j) {
    mma_role r = k->role[j];
    int64_t base, v;
    if (!at(k, p, w, 0, 0, 0, k->idx[j], &base))
        return runtime_sizes(k);
    for (int t = 0; t < 32; t++)
        for (int e = 0; e < mma_frag_regs(r); e++) {
            int row, col, ct, ce, kk;
            mma_frag(r, t, e, &row, &col);
            if (r == MMA_ROLE_A) /* (m, k): accumulator row m is lane 4 (m % 8), element 2 (m / 8) */
                ct = 4 * (row % 8), ce = 2 * (row / 8), kk = col;
            else /* (k, n): accumulator column n is lane n / 2, element n % 2 */
                ct = col / 2, ce = col % 2, kk = row;
            int64_t lin = (int64_t)w * 32 + t;
            int64_t want[3] = {lin % k->block[0], lin / k->block[0] % k->block[1],
                               lin / (k->block[0] * k->block[1])};
            for (int d = 0; d < 3; d++) {
                if (!k->tid[j][d])
                    continue;
                if (!at(k, p, w, ct, ce, kk, k->tid[j][d], &v))
                    return runtime_sizes(k);
                if (v != want[d]) {
                    char what[96];
                    snprintf(what, sizeof what, "the threadIdx.%c holding operand T%d", "xyz"[d],
                             k->op->in[j]->id);
                    return fail_lane(k, what, t, e, v, want[d]);
                }
            }
            if (!at(k, p, w, ct, ce, kk, k->idx[j], &v))
                return runtime_sizes(k);
            if (v - base != e) {
                char what[96];
                snprintf(what, sizeof what, "the register of operand T%d", k->op->in[j]->id);
                return fail_lane(k, what, t, e, v - base, e);
            }
        }
    return true;
}

static bool each_warp(void *ctx, lower_point *p) {
    mma_lanes *k = ctx;
    int nwarps = (int)(k->block[0] * k->block[1] * k->block[2] / 32);
    for (int w = 0; w < nwarps; w++)
        if (!check_acc(k, p, w) || !check_operand(k, p, w, 0) || !check_operand(k, p, w, 1))
            return false;
    return true;
}

/* The accumulator's M and N: its logical iteration dims that the lanes move
   along (lane 4 one row down, lane 1 two columns right). */
static bool find_tile_dims(mma_lanes *k, lower_point *p, const wf_val **idx, int n) {
    k->dm = k->dn = -1;
    for (int d = 0; d < n; d++) {
        int64_t v0, v1, v4;
        if (!idx[d] || !at(k, p, 0, 0, 0, 0, idx[d], &v0) || !at(k, p, 0, 1, 0, 0, idx[d], &v1) ||
            !at(k, p, 0, 4, 0, 0, idx[d], &v4))
            continue;
        if (v4 != v0)
            k->dm = d;
        else if (v1 != v0)
            k->dn = d;
    }
    if (k->dm < 0 || k->dn < 0)
        return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the lanes of a warp do not hold mma.sync.m16n8k16's fragments: "
                         "its lanes do not move along two of its dims (rows and columns of the "
                         "16 x 8 accumulator tile)",
                         k->op->out->id);
    k->cm = idx[k->dm];
    k->cn = idx[k->dn];
    return true;
}

/* Operand j's role: A lacks N (a broadcast where the accumulator has N), B lacks M. */
static bool find_role(mma_lanes *k, int j) {
    const ir_op *op = k->op;
    const wf_tv *x = op->in[j];
    int xm = op->in_dim[j][k->dm], xn = op->in_dim[j][k->dn];
    bool bm = xm < 0 || x->logical.ptr[xm]->itype == IT_BROADCAST;
    bool bn = xn < 0 || x->logical.ptr[xn]->itype == IT_BROADCAST;
    if (bm == bn)
        return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: its operand T%d %s both the M and the N dim of the tile; mma.sync "
                         "multiplies an M x K tile by a K x N tile",
                         op->out->id, x->id, bm ? "lacks" : "has");
    k->role[j] = bn ? MMA_ROLE_A : MMA_ROLE_B;
    return true;
}

/* The statement that first writes operand x's tile where its bounds fail
   writes 0 instead: x's own, or, where x is loaded by ldmatrix (which reads
   whole tiles, unpredicated), its shared tile's. A TMA load zero-fills by
   itself. */
static void fill_operand(lower_ctx *c, const wf_tv *x) {
    for (int hops = 0; hops < 2 && c->op_pos[x->id] >= 0; hops++) {
        kir_node *w = c->stmt_of[c->op_pos[x->id]];
        if (w->u.stmt.copy == WF_LDST_SET && w->u.stmt.red == KRED_NONE) {
            w->u.stmt.fill = true;
            return;
        }
        if (w->u.stmt.copy != WF_LDST_LDMATRIX)
            return;
        x = w->u.stmt.op->in[0];
    }
}

static kir_node *mma_loop(kir_node *s, bool reduction) {
    for (kir_node *n = s->parent; n; n = n->parent)
        if (n->kind == KIR_FOR && n->u.loop.ptype == WF_MMA && n->u.loop.vector &&
            (n->u.loop.id->itype == IT_REDUCTION) == reduction)
            return n;
    return NULL;
}

static bool lower_one(lower_ctx *c, kir_node *s) {
    wf_arena *a = c->a;
    mma_lanes k = {.c = c, .s = s, .op = s->u.stmt.op};
    k.eloop = mma_loop(s, false);
    k.kloop = mma_loop(s, true);
    for (int d = 0; d < 3; d++) {
        if (!val_is_const(c->pdim[d]))
            return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: mma.sync needs a block size known at compile time",
                             k.op->out->id);
        k.block[d] = c->pdim[d]->c;
    }
    if (k.block[0] % 32 != 0)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: mma.sync is warp-collective: a warp is 32 consecutive threadIdx.x, "
                         "so blockDim.x must be a multiple of 32, but it is %lld",
                         k.op->out->id, (long long)k.block[0]);
    k.esym = val_sym(a, SYM_LOOP, MMA_ESYM, 0, "e", 0, 3, NULL);
    k.ksym = val_sym(a, SYM_LOOP, MMA_KSYM, 0, "k", 0, MMA_K - 1, NULL);
    const kir_node *over[2] = {k.eloop, k.kloop};
    const wf_val *vals[2] = {k.esym, k.ksym};
    wf_tv *out = k.op->out;
    int n = out->logical.n;
    const wf_val *cidx[WF_MAX_RANK];
    k.cidx = lower_index_ids(c, s, out, 2, over, vals, n,
                             (const wf_iterdomain *const *)out->logical.ptr, cidx);
    if (!k.cidx)
        return false;
    lower_point p = {.n = 0};
    lower_point_bind(&p, k.esym, 1);
    lower_point_bind(&p, k.ksym, 1);
    lower_point_loops(&p, s, MMA_LOOPS);
    for (int d = 0; d < n; d++)
        if (out->logical.ptr[d]->itype == IT_REDUCTION)
            cidx[d] = NULL;
    if (!find_tile_dims(&k, &p, cidx, n))
        return false;
    for (int j = 0; j < 2; j++) {
        wf_tv *x = k.op->in[j];
        const wf_iterdomain *tids[3] = {NULL, NULL, NULL};
        for (int i = 0; i < x->loop.n; i++) {
            /* A broadcast on a thread dim: each thread along it holds its own copy. */
            if (x->loop.ptr[i]->itype == IT_BROADCAST || x->loop.ptr[i]->loop_only)
                continue;
            int d = lower_pdim_index(lower_loop_ptype(c, x->loop.ptr[i]));
            if (d >= 0 && d < 3 && !tids[d])
                tids[d] = x->loop.ptr[i];
        }
        if (!find_role(&k, j))
            return false;
        if (!tids[0])
            return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                             "T%d: its operand T%d has no axis on TIDx: mma.sync's operands are "
                             "fragments held by the 32 lanes of a warp (WF_MMA on T%d's two tile "
                             "axes lays it out so)",
                             out->id, x->id, x->id);
        const wf_iterdomain *ids[3];
        const wf_val *got[3];
        int nids = 0;
        for (int d = 0; d < 3; d++)
            if (tids[d])
                ids[nids++] = tids[d];
        k.idx[j] = lower_index_ids(c, s, x, 2, over, vals, nids, ids, got);
        if (!k.idx[j])
            return false;
        for (int d = 0, i = 0; d < 3; d++)
            if (tids[d] && !(k.tid[j][d] = got[i++]))
                return runtime_sizes(&k);
    }
    if (!lower_point_each(&p, 2, 8, each_warp, &k))
        return false;
    s->u.stmt.mma = 1;
    s->u.stmt.mma_a = k.role[0] == MMA_ROLE_A ? 0 : 1;
    s->u.stmt.pred = NULL; /* warp-collective; the cells past the end are never stored */
    for (int j = 0; j < 2; j++)
        fill_operand(c, k.op->in[j]);
    return true;
}

bool lower_mma(lower_ctx *c) {
    for (int i = 0; i < c->order.n; i++) {
        kir_node *s = c->stmt_of[i];
        if (ir_op_is_mma(s->u.stmt.op) && mma_loop(s, true) && !lower_one(c, s))
            return false;
    }
    return true;
}
