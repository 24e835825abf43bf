/*
 * copy_tmem.c -- the tensor-memory copy kinds, StTMem and LdTMem (seed 000):
 * their lowering hooks (copy.h).
 *
 * validate: registers are the only way in and out of tensor memory, and it
 * needs Blackwell (sm 100; the default target when none was asked for).
 * place: each access is followed by its tcgen05.wait (KHW_TMEM_WAIT_ST/LD),
 * inside the same predicate.
 *
 * index: requires index and pdims. Every StTMem and LdTMem statement must
 * be a warp-collective tcgen05.st/ld in the 32x32b shape. Rather than
 * matching the IterDomain graph against patterns, the check evaluates the
 * lane and column each thread of each warp computes, for the statement's
 * loop iterations: a warp must touch 32 consecutive lanes (lane stride 1
 * across its threads) in one column, and warp i only the lanes of
 * sub-partition i % 4 (32 * (i % 4) .. 32 * (i % 4) + 31). The 16x64b,
 * 16x128b, 16x256b and 16x32bx2 shapes are not implemented; a schedule that
 * needs them is reported with the pattern prefix alone and one line per
 * shape. Each access moves a whole number of 32-bit cells per thread
 * (vectorized up to 128 cells). Provides each statement's lane and 32-bit
 * column expressions (kir_stmt.hw.tmem) for code generation.
 */
#include "lower/copy.h"
#include "lower/eval.h"

#include <stdio.h>
#include <string.h>

#define PREFIX "Invalid data access pattern in TMem load/store:"

typedef struct {
    lower_ctx *c;
    const kir_stmt *s;
    const wf_tv *tmem;
    const wf_val *lane, *col;
    int64_t block[3];
    int nwarps;
} tmem_check;

static bool fail(tmem_check *t, const char *what) {
    return err_failb(&t->c->f->err, WF_ERR_SCHEDULE, "T%d: " PREFIX " %s", t->s->op->out->id, what);
}

static bool fail_shapes(tmem_check *t, const char *why) {
    return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                     "T%d: " PREFIX "\nNot 32x32b because %s.\n"
                     "Not 16x64b because it is not implemented in weft yet.\n"
                     "Not 16x128b because it is not implemented in weft yet.\n"
                     "Not 16x256b because it is not implemented in weft yet.\n"
                     "Not 16x32bx2 because it is not implemented in weft yet.",
                     t->s->op->out->id, why);
}

/* Lanes and columns of the 32 threads of warp w at one loop iteration. */
static bool eval_warp(tmem_check *t, lower_point *p, int w, int64_t lane[32], int64_t col[32]) {
    for (int i = 0; i < 32; i++) {
        lower_point_thread(p, t->block, (int64_t)w * 32 + i);
        if (!lower_point_eval(p, t->lane, &lane[i]) || !lower_point_eval(p, t->col, &col[i]))
            return err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: cannot evaluate the tensor-memory lane of each thread (the "
                             "index depends on run-time sizes)",
                             t->s->op->out->id);
    }
    return true;
}

static bool check_warp(tmem_check *t, lower_point *p, int w) {
    int64_t lane[32], col[32];
    if (!eval_warp(t, p, w, lane, col))
        return false;
    int64_t stride = lane[1] - lane[0];
    for (int i = 0; i < 32; i++)
        if (lane[i] != lane[0] + i * stride)
            return fail_shapes(t, "warps are not linearly accessing the lane allocation");
    if (stride == 0)
        return fail_shapes(t, "each warp accesses a single lane");
    for (int i = 0; i < 32; i++)
        if (col[i] != col[0])
            return fail_shapes(t, "the threads of a warp access different columns");
    if (stride != 1)
        return fail(t, "Warp linearly accessing lanes, but not with stride 1.");
    if (lane[0] != 32 * (w % 4))
        return fail(t, "Warps are not accessing the correct sub-partition.");
    return true;
}

/* Every warp at every combination of the statement's serial loop values (at
   most a few thousand: the first and last values of long loops suffice,
   since lane indices are affine in them or built by XOR of bounded values). */
static bool each_warp(void *ctx, lower_point *p) {
    tmem_check *t = ctx;
    for (int w = 0; w < t->nwarps; w++)
        if (!check_warp(t, p, w))
            return false;
    return true;
}

static bool check_cells(tmem_check *t) {
    const kir_stmt *s = t->s;
    int64_t es = (int64_t)wf_dtype_size(t->tmem->dtype), bytes = es * s->vec;
    if (bytes % 4 != 0) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "T%d: Vectorize size is not a multiple of 4 bytes. vec_size: %d, dtype_size: "
                 "%lld, vec_size_in_bytes: %lld",
                 s->op->out->id, s->vec, (long long)es, (long long)bytes);
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE, "%s", msg);
    }
    if (bytes > 512)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: a tensor-memory access moves %lld bytes per thread; at most 512 "
                         "(128 cells) are allowed",
                         s->op->out->id, (long long)bytes);
    return true;
}

static bool check_stmt(lower_ctx *c, kir_node *n) {
    const kir_stmt *s = &n->u.stmt;
    bool st = s->copy == WF_LDST_TMEM_STORE;
    tmem_check t = {c, s, st ? s->op->out : s->op->in[0], NULL, NULL, {0}, 0};
    const kir_alloc *a = &c->alloc_of[t.tmem->id]->u.alloc;
    const wf_val *idx = st ? s->out_index : s->in_index[0];
    int64_t es = (int64_t)wf_dtype_size(t.tmem->dtype);
    t.lane = val_div(c->a, idx, val_const(c->a, a->row));
    t.col = val_mod(c->a, idx, val_const(c->a, a->row));
    n->u.stmt.hw.tmem.lane = t.lane;
    n->u.stmt.hw.tmem.col =
        val_div(c->a, val_mul(c->a, t.col, val_const(c->a, es)), val_const(c->a, 4));
    for (int d = 0; d < 3; d++) {
        if (!val_is_const(c->pdim[d]))
            return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: tensor-memory accesses need a block size known at compile time",
                             s->op->out->id);
        t.block[d] = c->pdim[d]->c;
    }
    int64_t threads = t.block[0] * t.block[1] * t.block[2];
    if (threads % 32 != 0)
        return fail(&t, "TMem load/store must be warp-collective, but the innermost extent is "
                        "not a multiple of 32.");
    if (!check_cells(&t))
        return false;
    lower_point p = {.n = 0};
    lower_point_loops(&p, n, 16);
    t.nwarps = (int)(threads / 32);
    return lower_point_each(&p, 0, 16, each_warp, &t);
}

bool lower_copy_index_tmem(lower_ctx *c, kir_node *stmt) {
    return check_stmt(c, stmt);
}

bool lower_copy_place_tmem(lower_ctx *c, kir_node *stmt) {
    kir_list *body = stmt->parent ? kir_body(stmt->parent) : &c->out->top;
    int at = 0;
    while (at < body->n && body->ptr[at] != stmt)
        at++;
    bool st = stmt->u.stmt.copy == WF_LDST_TMEM_STORE;
    kir_node *w = kir_new_hw(c->a, st ? KHW_TMEM_WAIT_ST : KHW_TMEM_WAIT_LD);
    return (w && kir_insert(c->a, body, at + 1, w, stmt->parent)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* Registers are the only way in and out of tensor memory: StTMem writes a
   tensor-memory tensor from registers, LdTMem reads one into registers. */
static bool check_tmem_op(lower_ctx *c, const ir_op *op) {
    wf_err *e = &c->f->err;
    const wf_tv *in = op->in[0], *out = op->out;
    bool st = op->ldst == WF_LDST_TMEM_STORE, ld = op->ldst == WF_LDST_TMEM_LOAD;
    if (out->mem == WF_MEM_TENSOR && !st)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d is in tensor memory, so its definition must be a StTMem copy "
                         "(wf_tv_set_ldst(T%d, WF_LDST_TMEM_STORE))",
                         out->id, out->id);
    if (in->mem == WF_MEM_TENSOR && !ld)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d reads T%d from tensor memory, so it must be an LdTMem copy "
                         "(wf_tv_set_ldst(T%d, WF_LDST_TMEM_LOAD))",
                         out->id, in->id, out->id);
    if (st && (out->mem != WF_MEM_TENSOR || in->mem != WF_MEM_LOCAL))
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: StTMem copies registers to tensor memory, but T%d is in %s memory "
                         "and T%d in %s memory",
                         out->id, in->id, ir_memtype_name(in->mem), out->id,
                         ir_memtype_name(out->mem));
    if (ld && (in->mem != WF_MEM_TENSOR || out->mem != WF_MEM_LOCAL))
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d: LdTMem copies tensor memory to registers, but T%d is in %s memory "
                         "and T%d in %s memory",
                         out->id, in->id, ir_memtype_name(in->mem), out->id,
                         ir_memtype_name(out->mem));
    if ((st || ld) && c->out->sm == 0)
        c->out->sm = 100; /* no target asked for: the kernel needs Blackwell */
    if ((st || ld) && c->out->sm < 100)
        return err_failb(e, WF_ERR_SCHEDULE,
                         "T%d uses tensor memory, which needs Blackwell: compile for sm 100 or "
                         "later (wf_compile_options.sm), not %d",
                         out->id, c->out->sm);
    return true;
}

/* Also run for any op that touches tensor memory, whatever its kind (copy.c). */
bool lower_copy_validate_tmem(lower_ctx *c, const ir_op *op) {
    if (!ir_op_is_copy(op))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: only StTMem and LdTMem copies can access tensor memory",
                         op->out->id);
    return check_tmem_op(c, op);
}
