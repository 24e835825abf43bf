/*
 * copy_ldmatrix.c -- the 8x8-matrix copy kinds, LdMatrix (shared memory ->
 * registers) and StMatrix (registers -> shared memory) (seed 002; PTX ISA
 * "ldmatrix", "stmatrix"): their lowering hooks (copy.h).
 *
 * The instructions are warp-collective on 16-bit elements: each moves 1, 2
 * or 4 matrices of 8x8 elements (.x1/.x2/.x4), one 32-bit register (two
 * adjacent elements) per matrix and thread. Lane t holds, of matrix j, row
 * t / 4 and columns 2 (t % 4) + {0, 1} in register j; with .trans (ldmatrix
 * only) the stored row 2 (t % 4) + {0, 1} and column t / 4. Lane l supplies
 * the shared-memory address of row l % 8 of matrix l / 8: 16 contiguous,
 * 16-byte aligned bytes.
 *
 * Nothing here knows a layout. The schedule says which register elements
 * each thread holds (the register side's vectorized axis: 2, 4 or 8
 * elements, which picks .x1/.x2/.x4) and, by ordinary indexing, where each
 * of them is in shared memory: S(thread, v), with v the position in the
 * vector (TMA swizzles and any other transform of the shared allocation
 * included). The row address lane l supplies is then S evaluated for the
 * thread and vector position that holds column 0 of that row:
 *   non-trans: lane 4 (l % 8), v = 2 (l / 8);
 *   trans:     lane (l % 8) / 2, v = 2 (l / 8) + l % 2,
 * an expression of threadIdx.x (lanes are 32 consecutive threadIdx.x, so
 * blockDim.x must be a multiple of 32). .trans is chosen where the two
 * elements of a register are not adjacent in shared memory but the same
 * element of lanes t and t + 4 are. Then, for every warp of the block and
 * sample values of the loops around the copy, every element S(t, v) is
 * checked to be where the instruction moves it (the row address plus the
 * column), each row address 16-byte aligned; otherwise the lanes do not
 * form whole 8x8 matrices and the schedule is refused.
 *
 * The copy cannot be predicated per thread: its bounds predicate goes (a
 * partial tile is read or written whole inside its shared-memory tile,
 * whose allocation holds whole tiles; TMA zero-fills a partial tile's
 * cells and clips its store, and the executor's memory model reports a
 * read of a cell no one wrote), and the place hook refuses a guard that
 * differs between the lanes of a warp.
 */
#include "lower/copy.h"
#include "lower/eval.h"

#include <stdio.h>

#define LDM_VSYM  (-500) /* sym_a of the vector position's symbol */
#define LDM_LOOPS 16

static bool is_ld(const ir_op *op) {
    return op->ldst == WF_LDST_LDMATRIX;
}

static const char *kind_name(const ir_op *op) {
    return ir_ldst_name(op->ldst);
}

bool lower_copy_validate_ldmatrix(lower_ctx *c, const ir_op *op) {
    wf_err *e = &c->f->err;
    const wf_tv *in = op->in[0], *out = op->out;
    bool ld = is_ld(op);
    const wf_tv *smem = ld ? in : out, *regs = ld ? out : in;
    /* A broadcast is a copy too: a tensor-core operand's fragment is the view
       of a shared tile that wf_mma reads (lower/mma.c). */
    if (op->kind != OP_SET && !(ld && op->kind == OP_BROADCAST))
        return err_failb(e, WF_ERR_SCHEDULE, "T%d: an %s copy must be a set, not %s", out->id,
                         kind_name(op), ir_op_name(op->kind));
    if (wf_dtype_size(out->dtype) != 2)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: %s moves 8x8 matrices of 16-bit elements, but T%d is %s (%zu "
                         "bytes per element)",
                         out->id, kind_name(op), out->id, ir_dtype_short(out->dtype),
                         wf_dtype_size(out->dtype));
    if (smem->mem != WF_MEM_SHARED)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: %s %s shared memory, but its %s T%d is in %s memory", out->id,
                         kind_name(op), ld ? "reads" : "writes", ld ? "source" : "destination",
                         smem->id, ir_memtype_name(smem->mem));
    if (regs->mem != WF_MEM_LOCAL)
        return err_failb(e, WF_ERR_SCHEDULE, "T%d: %s %s registers, but its %s T%d is in %s memory",
                         out->id, kind_name(op), ld ? "writes" : "reads",
                         ld ? "destination" : "source", regs->id, ir_memtype_name(regs->mem));
    int need = ld ? 75 : 90;
    if (c->out->sm && c->out->sm < need)
        return err_failb(e, WF_ERR_UNSUPPORTED,
                         "T%d: %s (%s) needs sm_%d (%s) or newer, but the target is sm_%d", out->id,
                         kind_name(op), ld ? "ldmatrix" : "stmatrix", need,
                         ld ? "Turing" : "Hopper", c->out->sm);
    return true;
}

/* ---- the lanes ---- */

/* The point the lanes are evaluated at: binding 0 is the vector position
   (LDM_VSYM), the others the loops around the copy. */
enum { LDM_V = 0 };

/* v with threadIdx.x replaced by tid and the vector position by vpos. */
static const wf_val *subst(wf_arena *a, const wf_val *v, const wf_val *tid, const wf_val *vpos) {
    return val_subst(a, val_subst(a, v, SYM_TID, 0, tid), SYM_LOOP, LDM_VSYM, vpos);
}

typedef struct {
    lower_ctx *c;
    kir_node *n;
    const ir_op *op;
    const wf_tv *smem;
    const wf_iterdomain *vid; /* the vectorized axis */
    const wf_val *s;          /* S(threadIdx, v) */
    const wf_val *row;        /* the row address each thread supplies */
    int vec, count;
    bool trans;
    int64_t block[3];
    int nwarps;
} ldm_check;

static bool runtime_sizes(ldm_check *k) {
    char what[64];
    snprintf(what, sizeof what, "%s copy", kind_name(k->op));
    return lower_lanes_unknown(k->c, k->op->out, what, k->smem);
}

/* The element of the matrices that (lane, register element e) holds: matrix,
   row and column as stored. */
static void element_of(const ldm_check *k, int lane, int e, int *m, int *r, int *col) {
    *m = e / 2;
    *r = k->trans ? 2 * (lane % 4) + e % 2 : lane / 4;
    *col = k->trans ? lane / 4 : 2 * (lane % 4) + e % 2;
}

static bool fail_lanes(ldm_check *k, int lane, int e, int64_t at, int64_t want, int m, int r,
                       int col) {
    sbuf b = {0};
    ir_print_id(&b, k->vid);
    err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
              "T%d: the lanes of a warp do not form whole 8x8 matrices of T%d for %s.x%d%s "
              "(vectorized axis %s, extent %d): lane %d's element %d is T%d[%lld], but the "
              "instruction moves T%d[%lld] there (row %d, column %d of matrix %d)",
              k->op->out->id, k->smem->id, is_ld(k->op) ? "ldmatrix" : "stmatrix", k->count,
              k->trans ? ".trans" : "", sbuf_str(&b), k->vec, lane, e, k->smem->id, (long long)at,
              k->smem->id, (long long)want, r, col, m);
    sbuf_free(&b);
    return false;
}

static bool fail_align(ldm_check *k, int m, int r, int64_t start) {
    sbuf b = {0};
    ir_print_id(&b, k->vid);
    err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
              "T%d: the lanes of a warp do not form whole 8x8 matrices of T%d for %s.x%d%s "
              "(vectorized axis %s, extent %d): row %d of matrix %d starts at T%d[%lld], which "
              "is not on 16 bytes",
              k->op->out->id, k->smem->id, is_ld(k->op) ? "ldmatrix" : "stmatrix", k->count,
              k->trans ? ".trans" : "", sbuf_str(&b), k->vec, r, m, k->smem->id, (long long)start);
    sbuf_free(&b);
    return false;
}

static bool check_warp(ldm_check *k, lower_point *p, int w) {
    int64_t at[32][8], row[32];
    for (int i = 0; i < 32; i++) {
        lower_point_thread(p, k->block, (int64_t)w * 32 + i);
        p->b[LDM_V].val = 0;
        if (!lower_point_eval(p, k->row, &row[i]))
            return runtime_sizes(k);
        for (int e = 0; e < k->vec; e++) {
            p->b[LDM_V].val = e;
            if (!lower_point_eval(p, k->s, &at[i][e]))
                return runtime_sizes(k);
        }
    }
    for (int lane = 0; lane < 32; lane++)
        for (int e = 0; e < k->vec; e++) {
            int m, r, col;
            element_of(k, lane, e, &m, &r, &col);
            int64_t start = row[8 * m + r];
            if (at[lane][e] != start + col)
                return fail_lanes(k, lane, e, at[lane][e], start + col, m, r, col);
            if (start % 8 != 0)
                return fail_align(k, m, r, start);
        }
    return true;
}

/* Every warp at every combination of the serial loops' values (long loops:
   their first and last four), as copy_tmem.c checks tensor-memory lanes. */
static bool each_warp(void *ctx, lower_point *p) {
    ldm_check *k = ctx;
    for (int w = 0; w < k->nwarps; w++)
        if (!check_warp(k, p, w))
            return false;
    return true;
}

/* The vector position's symbol, then the loops around the copy. */
static void point_of(const kir_node *stmt, const wf_val *vsym, lower_point *p) {
    *p = (lower_point){.n = 0};
    lower_point_bind(p, vsym, 1);
    lower_point_loops(p, stmt, LDM_LOOPS);
}

/* The row address lane l = threadIdx.x % 32 supplies, as an expression. */
static const wf_val *row_address(ldm_check *k) {
    wf_arena *a = k->c->a;
    const wf_val *tx = val_sym(a, SYM_TID, 0, 0, "threadIdx.x", 0, k->block[0] - 1, NULL);
    const wf_val *c32 = val_const(a, 32), *c8 = val_const(a, 8), *c2 = val_const(a, 2);
    const wf_val *l = val_mod(a, tx, c32), *warp0 = val_sub(a, tx, l);
    const wf_val *r = val_mod(a, l, c8), *m = val_mod(a, val_div(a, l, c8), val_const(a, k->count));
    const wf_val *lane, *v = val_mul(a, m, c2);
    if (k->trans) {
        lane = val_div(a, r, c2);
        v = val_add(a, v, val_mod(a, r, c2));
    } else {
        lane = val_mul(a, r, val_const(a, 4));
    }
    return subst(a, k->s, val_add(a, warp0, lane), v);
}

/* .trans where a register's two elements are not adjacent in shared memory
   but lanes 0 and 4 hold adjacent ones (ldmatrix only). */
static bool pick_trans(ldm_check *k, lower_point *p, bool *trans) {
    int64_t s00, s01, s40;
    for (int i = 0; i < p->n; i++)
        p->b[i].val = 0;
    lower_point_thread(p, k->block, 0);
    p->b[LDM_V].val = 0;
    bool ok = lower_point_eval(p, k->s, &s00);
    p->b[LDM_V].val = 1;
    ok = ok && lower_point_eval(p, k->s, &s01);
    lower_point_thread(p, k->block, 4);
    p->b[LDM_V].val = 0;
    ok = ok && lower_point_eval(p, k->s, &s40);
    if (!ok)
        return runtime_sizes(k);
    *trans = is_ld(k->op) && s01 - s00 != 1 && s40 - s00 == 1;
    return true;
}

static kir_node *vector_loop(kir_node *s) {
    kir_node *p = s->parent;
    return p && p->kind == KIR_FOR && p->u.loop.ptype == WF_VECTORIZE && p->u.loop.vector ? p
                                                                                          : NULL;
}

bool lower_copy_index_ldmatrix(lower_ctx *c, kir_node *stmt) {
    wf_err *er = &c->f->err;
    kir_stmt *s = &stmt->u.stmt;
    ldm_check k = {.c = c, .n = stmt, .op = s->op};
    bool ld = is_ld(s->op);
    k.smem = ld ? s->op->in[0] : s->op->out;
    kir_node *vl = vector_loop(stmt);
    k.vec = vl ? s->vec : 1;
    if (k.vec != 2 && k.vec != 4 && k.vec != 8) {
        sbuf b = {0};
        if (vl) {
            sbuf_puts(&b, "its vectorized axis ");
            ir_print_id(&b, vl->u.loop.id);
            sbuf_printf(&b, " has extent %d", k.vec);
        } else {
            sbuf_puts(&b, "it has no vectorized axis");
        }
        err_failb(er, WF_ERR_SCHEDULE,
                  "T%d: %s moves one register (2 elements) per 8x8 matrix and thread, 1, 2 or 4 "
                  "matrices at a time, so the innermost axis of T%d must be vectorized by 2, 4 "
                  "or 8, but %s",
                  s->op->out->id, kind_name(s->op), s->op->out->id, sbuf_str(&b));
        sbuf_free(&b);
        return false;
    }
    k.vid = vl->u.loop.id;
    k.count = k.vec / 2;
    for (int d = 0; d < 3; d++) {
        if (!val_is_const(c->pdim[d]))
            return err_failb(er, WF_ERR_UNSUPPORTED,
                             "T%d: an %s copy needs a block size known at compile time",
                             s->op->out->id, kind_name(s->op));
        k.block[d] = c->pdim[d]->c;
    }
    if (k.block[0] % 32 != 0)
        return err_failb(er, WF_ERR_SCHEDULE,
                         "T%d: an %s copy is warp-collective: a warp is 32 consecutive "
                         "threadIdx.x, so blockDim.x must be a multiple of 32, but it is %lld",
                         s->op->out->id, kind_name(s->op), (long long)k.block[0]);
    const wf_val *vsym = val_sym(c->a, SYM_LOOP, LDM_VSYM, 0, "v", 0, k.vec - 1, NULL);
    const kir_node *over[1] = {vl};
    const wf_val *vals[1] = {vsym};
    k.s = lower_index_ids(c, stmt, (wf_tv *)k.smem, 1, over, vals, 0, NULL, NULL);
    if (!k.s)
        return false;
    lower_point p;
    point_of(stmt, vsym, &p);
    if (!pick_trans(&k, &p, &k.trans))
        return false;
    k.row = row_address(&k);
    k.nwarps = (int)(k.block[0] * k.block[1] * k.block[2] / 32);
    if (!lower_point_each(&p, LDM_V + 1, 8, each_warp, &k))
        return false;
    s->hw.ldm.count = k.count;
    s->hw.ldm.trans = k.trans;
    s->hw.ldm.row = k.row;
    s->pred = NULL; /* warp-collective: see the comment atop */
    return true;
}

/* ---- placement: the guards around the copy ---- */

/* Every IF around the copy must hold for all lanes of a warp alike. */
bool lower_copy_place_ldmatrix(lower_ctx *c, kir_node *stmt) {
    const ir_op *op = stmt->u.stmt.op;
    ldm_check k = {.c = c, .op = op};
    for (int d = 0; d < 3; d++)
        k.block[d] = c->pdim[d]->c; /* constant: the index hook checked */
    lower_point p = {.n = 0};
    lower_point_loops(&p, stmt, LDM_LOOPS);
    int64_t threads = k.block[0] * k.block[1] * k.block[2];
    for (const kir_node *n = stmt->parent; n; n = n->parent) {
        if (n->kind != KIR_IF)
            continue;
        for (int64_t w = 0; w < threads / 32; w++) {
            int64_t first = 0, v;
            for (int i = 0; i < 32; i++) {
                lower_point_thread(&p, k.block, w * 32 + i);
                if (!lower_point_eval(&p, n->u.cond.cond, &v))
                    break; /* run-time values: the lanes' threadIdx.x are not all it uses */
                if (i == 0)
                    first = v;
                if ((v != 0) == (first != 0))
                    continue;
                sbuf b = {0};
                val_print(&b, n->u.cond.cond);
                err_failb(&c->f->err, WF_ERR_SCHEDULE,
                          "T%d: an %s copy is warp-collective, but its guard %s holds for some "
                          "lanes of warp %lld and not for others; parallelize the axes around "
                          "it so that whole warps run it",
                          op->out->id, kind_name(op), sbuf_str(&b), (long long)w);
                sbuf_free(&b);
                return false;
            }
        }
    }
    return true;
}
