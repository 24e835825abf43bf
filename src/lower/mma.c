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
 * wgmma.m64nNk16 (sm_90a) goes the same way for its accumulator, over a
 * warp group of 128 threads (lane{128}, e{N/2}); its operands are shared
 * tiles read through descriptors, which wgmma.c infers and checks.
 *
 * Refusals: WF_ERR_SCHEDULE for a request no instruction implements (the
 * axes' shapes, the lanes); WF_ERR_UNSUPPORTED for a valid one weft does not
 * implement (f32 / tf32 or f64 operands, a target below sm_80 (sm_90a for
 * wgmma), WF_MMA on another tensor, an operand outside registers (mma.sync)
 * or not a view of a shared tile (wgmma)), each naming the tensor, the axis
 * and the shapes that would work.
 */
#include "lower/mma_int.h"

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

/* The instruction tv's axes on MMA stand for, from their layout: the two
   innermost loop axes on MMA, an iteration axis of the accumulator's
   registers then K's 16 as a reduction axis, and the lanes on TIDx: 32
   lanes with 4 registers, mma.sync.m16n8k16; 128 with N/2 (N from 8 to 256
   in steps of 8), wgmma.m64nNk16. */
typedef enum { INST_NONE, INST_MMA_SYNC, INST_WGMMA } mma_inst;

static mma_inst instruction_of(const wf_tv *tv) {
    int n = tv->loop.n, nmma = 0;
    int64_t lanes = 0;
    for (int i = 0; i < n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i];
        nmma += id->ptype == WF_MMA;
        if (id->ptype == WF_TIDX && !lanes)
            lanes = ir_id_const_extent(id);
    }
    if (n < 3 || nmma != 2)
        return INST_NONE;
    const wf_iterdomain *e = tv->loop.ptr[n - 2], *k = tv->loop.ptr[n - 1];
    int64_t regs = ir_id_const_extent(e);
    if (e->ptype != WF_MMA || e->itype == IT_REDUCTION || k->ptype != WF_MMA ||
        k->itype != IT_REDUCTION || ir_id_const_extent(k) != MMA_K)
        return INST_NONE;
    if (lanes == 32 && regs == MMA_C_REGS)
        return INST_MMA_SYNC;
    if (lanes == WGMMA_THREADS && regs >= 4 && regs <= 128 && regs % 4 == 0)
        return INST_WGMMA;
    return INST_NONE;
}

/* wgmma's operand x: a broadcast view of a shared-memory tile, or NULL. */
static const wf_tv *shared_tile_of(const wf_tv *x) {
    const ir_op *d = x->def;
    return d && d->kind == OP_BROADCAST && d->in[0]->mem == WF_MEM_SHARED ? d->in[0] : NULL;
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
    mma_inst inst = instruction_of(tv);
    if (inst == INST_WGMMA && sm < 90) {
        snprintf(why, sizeof why,
                 "the target is sm_%d; wgmma.m64nNk16 needs sm_90a (a Hopper GPU); mma.sync "
                 "(m16n8k16: M 16 x N 8 tiles on MMA) runs from sm_80",
                 sm);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    if (inst == INST_NONE) {
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
    for (int k = 0; k < 2 && inst == INST_WGMMA; k++)
        if (!shared_tile_of(op->in[k])) {
            snprintf(why, sizeof why,
                     "its operand T%d is not a broadcast view of a shared-memory tile; wgmma "
                     "reads both operands from shared memory (stage them with wf_cache_after "
                     "and WF_MEM_SHARED, ideally by TMA with a 128-byte swizzle)",
                     op->in[k]->id);
            return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
        }
    for (int k = 0; k < 2 && inst == INST_MMA_SYNC; k++)
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

/* (m, n) of the accumulator's element e in lane t (of the warp or warp group). */
static void acc_frag(const mma_lanes *k, int t, int e, int *m, int *n) {
    if (k->wg)
        wgmma_frag_c(t, e, m, n);
    else
        mma_frag(MMA_ROLE_C, t, e, m, n);
}

/* The accumulator: lane t's element e is (m, n) of the tile, in register base + e. */
static bool check_acc(mma_lanes *k, lower_point *p, int w) {
    int64_t m0, n0, base, m, n, r;
    if (!lower_mma_at(k, p, w, 0, 0, 0, k->cm, &m0) ||
        !lower_mma_at(k, p, w, 0, 0, 0, k->cn, &n0) ||
        !lower_mma_at(k, p, w, 0, 0, 0, k->cidx, &base))
        return lower_mma_runtime_sizes(k);
    for (int t = 0; t < k->lanes; t++)
        for (int e = 0; e < k->cregs; e++) {
            int wm, wn;
            acc_frag(k, t, e, &wm, &wn);
            if (!lower_mma_at(k, p, w, t, e, 0, k->cm, &m) ||
                !lower_mma_at(k, p, w, t, e, 0, k->cn, &n) ||
                !lower_mma_at(k, p, w, t, e, 0, k->cidx, &r))
                return lower_mma_runtime_sizes(k);
            if (m - m0 != wm)
                return lower_mma_fail_lane(k, "the accumulator's row (M)", t, e, m - m0, wm);
            if (n - n0 != wn)
                return lower_mma_fail_lane(k, "the accumulator's column (N)", t, e, n - n0, wn);
            if (r - base != e)
                return lower_mma_fail_lane(k, "the accumulator's register", t, e, r - base, e);
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
    if (!lower_mma_at(k, p, w, 0, 0, 0, k->idx[j], &base))
        return lower_mma_runtime_sizes(k);
    for (int t = 0; t < 32; t++)
        for (int e = 0; e < mma_frag_regs(r); e++) {
            int row, col, ct, ce, kk;
            mma_frag(r, t, e, &row, &col);
            if (r ==
                MMA_ROLE_A) /* (m, k): accumulator row m is lane 4 (m % 8), element 2 (m / 8) */
                ct = 4 * (row % 8), ce = 2 * (row / 8), kk = col;
            else /* (k, n): accumulator column n is lane n / 2, element n % 2 */
                ct = col / 2, ce = col % 2, kk = row;
            int64_t lin = (int64_t)w * 32 + t;
            int64_t want[3] = {lin % k->block[0], lin / k->block[0] % k->block[1],
                               lin / (k->block[0] * k->block[1])};
            for (int d = 0; d < 3; d++) {
                if (!k->tid[j][d])
                    continue;
                if (!lower_mma_at(k, p, w, ct, ce, kk, k->tid[j][d], &v))
                    return lower_mma_runtime_sizes(k);
                if (v != want[d]) {
                    char what[96];
                    snprintf(what, sizeof what, "the threadIdx.%c holding operand T%d", "xyz"[d],
                             k -> op -> in[j] -> id);
                    return lower_mma_fail_lane(k, what, t, e, v, want[d]);
                }
            }
            if (!lower_mma_at(k, p, w, ct, ce, kk, k->idx[j], &v))
                return lower_mma_runtime_sizes(k);
            if (v - base != e) {
                char what[96];
                snprintf(what, sizeof what, "the register of operand T%d", k->op->in[j]->id);
                return lower_mma_fail_lane(k, what, t, e, v - base, e);
            }
        }
    return true;
}

/* Every warp (warp group) of the block at the point p of the loops around. */
static bool each_unit(void *ctx, lower_point *p) {
    mma_lanes *k = ctx;
    int units = (int)(k->block[0] * k->block[1] * k->block[2] / k->lanes);
    for (int w = 0; w < units; w++) {
        if (!check_acc(k, p, w))
            return false;
        for (int j = 0; j < 2; j++)
            if (!(k->wg ? lower_wgmma_operand(k, p, w, j) : check_operand(k, p, w, j)))
                return false;
    }
    return true;
}

/* The accumulator's M and N: its logical iteration dims that the lanes move
   along (lane 4 one row down, lane 1 two columns right). */
static bool find_tile_dims(mma_lanes *k, lower_point *p, const wf_val **idx, int n) {
    k->dm = k->dn = -1;
    for (int d = 0; d < n; d++) {
        int64_t v0, v1, v4;
        if (!idx[d] || !lower_mma_at(k, p, 0, 0, 0, 0, idx[d], &v0) ||
            !lower_mma_at(k, p, 0, 1, 0, 0, idx[d], &v1) ||
            !lower_mma_at(k, p, 0, 4, 0, 0, idx[d], &v4))
            continue;
        if (v4 != v0)
            k->dm = d;
        else if (v1 != v0)
            k->dn = d;
    }
    if (k->dm < 0 || k->dn < 0)
        return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the lanes of a %s do not hold %s's fragments: its lanes do not "
                         "move along two of its dims (rows and columns of the accumulator tile)",
                         k->op->out->id, k->wg ? "warp group" : "warp",
                         k->wg ? "wgmma.m64nNk16" : "mma.sync.m16n8k16");
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

static kir_node *mma_loop(kir_node *s, bool reduction) {
    for (kir_node *n = s->parent; n; n = n->parent)
        if (n->kind == KIR_FOR && n->u.loop.ptype == WF_MMA && n->u.loop.vector &&
            (n->u.loop.id->itype == IT_REDUCTION) == reduction)
            return n;
    return NULL;
}

/* mma.sync's operand j: its register tile's thread axes and register index,
   as functions of the accumulator's lanes (check_operand compares them with
   the table). */
static bool register_operand(mma_lanes *k, int j, const kir_node *const *over,
                             const wf_val *const *vals) {
    lower_ctx *c = k->c;
    wf_tv *x = k->op->in[j];
    const wf_iterdomain *tids[3] = {NULL, NULL, NULL};
    for (int i = 0; i < x->loop.n; i++) {
        /* A broadcast on a thread dim: each thread along it holds its own copy. */
        if (x->loop.ptr[i]->itype == IT_BROADCAST || x->loop.ptr[i]->loop_only)
            continue;
        int d = lower_pdim_index(lower_loop_ptype(c, x->loop.ptr[i]));
        if (d >= 0 && d < 3 && !tids[d])
            tids[d] = x->loop.ptr[i];
    }
    if (!tids[0])
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: its operand T%d has no axis on TIDx: mma.sync's operands are "
                         "fragments held by the 32 lanes of a warp (WF_MMA on T%d's two tile "
                         "axes lays it out so)",
                         k->op->out->id, x->id, x->id);
    const wf_iterdomain *ids[3];
    const wf_val *got[3];
    int nids = 0;
    for (int d = 0; d < 3; d++)
        if (tids[d])
            ids[nids++] = tids[d];
    k->idx[j] = lower_index_ids(c, k->s, x, 2, over, vals, nids, ids, got);
    if (!k->idx[j])
        return false;
    for (int d = 0, i = 0; d < 3; d++)
        if (tids[d] && !(k->tid[j][d] = got[i++]))
            return lower_mma_runtime_sizes(k);
    return true;
}

static bool lower_one(lower_ctx *c, kir_node *s) {
    wf_arena *a = c->a;
    mma_lanes k = {.c = c, .s = s, .op = s->u.stmt.op};
    k.eloop = mma_loop(s, false);
    k.kloop = mma_loop(s, true);
    k.cregs = (int)ir_id_const_extent(k.eloop->u.loop.id);
    k.wg = instruction_of(k.op->out) == INST_WGMMA;
    k.lanes = k.wg ? WGMMA_THREADS : 32;
    const char *inst = k.wg ? "wgmma" : "mma.sync";
    for (int d = 0; d < 3; d++) {
        if (!val_is_const(c->pdim[d]))
            return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: %s needs a block size known at compile time", k.op->out->id,
                             inst);
        k.block[d] = c->pdim[d]->c;
    }
    int64_t threads = k.block[0] * k.block[1] * k.block[2];
    if (k.block[0] % 32 != 0 || threads % k.lanes != 0)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: %s is collective over %s: %d consecutive threads, so blockDim.x "
                         "must be a multiple of 32 and the block whole %ss, but it is %lld x "
                         "%lld x %lld",
                         k.op->out->id, inst, k.wg ? "a warp group" : "a warp", k.lanes,
                         k.wg ? "warp group" : "warp", (long long)k.block[0], (long long)k.block[1],
                         (long long)k.block[2]);
    k.esym = val_sym(a, SYM_LOOP, MMA_ESYM, 0, "e", 0, k.cregs - 1, NULL);
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
    for (int j = 0; j < 2; j++)
        if (!find_role(&k, j) || (!k.wg && !register_operand(&k, j, over, vals)))
            return false;
    if (!lower_point_each(&p, 2, 8, each_unit, &k))
        return false;
    s->u.stmt.pred = NULL; /* collective; the cells past the end are never stored */
    if (k.wg)
        return lower_wgmma_place(c, s);
    s->u.stmt.mma = 1;
    s->u.stmt.mma_a = k.role[0] == MMA_ROLE_A ? 0 : 1;
    for (int j = 0; j < 2; j++)
        lower_mma_fill(c, k.op->in[j]);
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
