/*
 * check.c -- capability checks that run before lowering starts, so that a
 * schedule this build cannot lower fails at once with a clear message
 * instead of midway (ggml's supports_op).
 *
 * Requires: a fusion. Provides: the guarantee that every tensor is one the
 * later passes handle: inputs and outputs in global memory, no global
 * intermediates, hardware copies only where their hooks allow, compute-at positions
 * that the inlining rules allow; no tensor mapped to itself, no two axes of
 * one tensor on one parallel type, vectorization only on copies; and the target: the one asked for,
 * else sm_100a where tensor memory is used and sm_90a otherwise.
 */
#include "lower/copy.h"

#include <stdio.h>

static bool check_memory(lower_ctx *c, const wf_tv *tv) {
    wf_err *e = &c->f->err;
    /* wf_tv_set_memory refuses inputs and outputs, and wf_output moves its
       tensor to global memory: another memory here is a bug */
    bool global = !(tv->is_input || tv->is_output) || tv->mem == WF_MEM_GLOBAL;
    err_assert(e, global);
    if (!global)
        return false;
    if (tv->is_input && tv->is_output)
        return err_failb(e, WF_ERR_UNSUPPORTED, "T%d is both a fusion input and an output", tv->id);
    if (!tv->is_input && !tv->is_output && tv->mem == WF_MEM_GLOBAL)
        return err_failb(e, WF_ERR_UNSUPPORTED,
                         "T%d is an intermediate tensor in global memory; this build supports "
                         "local and shared memory for intermediates",
                         tv->id);
    return true;
}

/* Copy kinds (and tensor memory's rules) are checked by their own hooks (copy.h). */
static bool check_op(lower_ctx *c, const ir_op *op) {
    return lower_copy_validate(c, op);
}

/* Does a loop ID bind its parallel index (its index is not always 0)? */
static bool binds_index(const wf_iterdomain *id) {
    return id->itype != IT_BROADCAST && !val_is_const_eq(id->extent, 1);
}

/* A vector access is a copy of adjacent elements; arithmetic is not. */
static bool check_vectorized_op(lower_ctx *c, const wf_tv *tv, int i) {
    if (tv->loop.ptr[i]->ptype != WF_VECTORIZE || !tv->def || ir_op_moves(tv->def))
        return true;
    return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                     "T%d: axis %d is vectorized, but T%d is defined by %s, not by a copy (set or "
                     "permute); vectorize a wf_set copy of it, or use WF_UNROLL",
                     tv->id, i, tv->id, ir_op_name(tv->def->kind));
}

/* At most one vectorized axis follows from "innermost": a second one would
   not be the innermost and is refused by name. */
static bool check_axes(lower_ctx *c, const wf_tv *tv) {
    for (int i = 0; i < tv->loop.n; i++)
        if (!check_vectorized_op(c, tv, i))
            return false;
    for (int i = 0; i < tv->loop.n; i++) {
        wf_ptype p = tv->loop.ptr[i]->ptype;
        if (p == WF_BULK && !lower_tma_check_bulk(c, tv, i))
            return false;
        if (p == WF_MMA && !lower_mma_check(c, tv, i))
            return false;
        if (p == WF_DIDX || p == WF_DIDY || p == WF_DIDZ)
            return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: axis %d is parallelized on %s, which this build cannot lower "
                             "yet",
                             tv->id, i, ir_ptype_name(p));
        if (p == WF_VECTORIZE && i != tv->loop.n - 1)
            return err_failb(
                &c->f->err, WF_ERR_SCHEDULE,
                "T%d: the vectorized axis %d must be the innermost loop axis (axis %d)", tv->id, i,
                tv->loop.n - 1);
    }
    return true;
}

static bool check_inline(lower_ctx *c, const wf_tv *tv) {
    char why[256];
    int max = an_max_inline_pos(&c->g, tv, why, sizeof why);
    if (tv->ca_pos > max)
        return err_failb(
            &c->f->err, WF_ERR_SCHEDULE,
            "T%d is inlined at position %d, but the schedule now allows at most %d: %s", tv->id,
            tv->ca_pos, max, why);
    return true;
}

/* One side of an extent check, for its message: the fusion input whose size the
   extent is ("input 0 (T0) has extent {0} in dim 1"), else the operand itself. */
static void describe_extent(sbuf *s, const wf_fusion *f, const wf_tv *operand, int dim,
                            const wf_val *extent, int slot, bool first) {
    const char *has = first ? "has extent " : "has ";
    if (extent->kind == V_SYM && extent->sym == SYM_SIZE)
        for (int i = 0; i < f->inputs.n; i++)
            if (f->inputs.ptr[i]->id == extent->sym_a) {
                sbuf_printf(s, "input %d (T%d) %s{%d} in dim %d", i, extent->sym_a, has, slot,
                            extent->sym_b);
                return;
            }
    if (val_is_const(extent))
        sbuf_printf(s, "T%d %s%lld in dim %d", operand->id, has, (long long)extent->c, dim);
    else
        sbuf_printf(s, "T%d %s{%d} in dim %d", operand->id, has, slot, dim);
}

/* Operands of an elementwise op must agree on every non-broadcast extent; when the
   extents are different symbols, that is checked at launch, and a failure
   there is the caller's buffers' fault (WF_ERR_ARG), not the schedule's. The
   message names the inputs whose sizes disagree, with the sizes given. */
static bool check_operand_pair(lower_ctx *c, const ir_op *op, int j, int k) {
    wf_arena *a = c->a;
    for (int d = 0; d < op->out->logical.n; d++) {
        const wf_iterdomain *x = op->in[j]->logical.ptr[op->in_dim[j][d]];
        const wf_iterdomain *y = op->in[k]->logical.ptr[op->in_dim[k][d]];
        if (x->itype == IT_BROADCAST || y->itype == IT_BROADCAST || val_equal(x->extent, y->extent))
            continue;
        sbuf msg = {0};
        describe_extent(&msg, c->f, op->in[j], op->in_dim[j][d], x->extent, 0, true);
        sbuf_puts(&msg, " but ");
        describe_extent(&msg, c->f, op->in[k], op->in_dim[k][d], y->extent, 1, false);
        sbuf_printf(&msg, "; they must be equal, as T%d and T%d are operands of T%d (its dim %d)",
                    op->in[j]->id, op->in[k]->id, op->out->id, d);
        lower_check chk = {val_eq(a, x->extent, y->extent),
                           arena_strdup(a, sbuf_str(&msg)),
                           true,
                           {x->extent, y->extent}};
        sbuf_free(&msg);
        if (!chk.cond || !chk.message || !vec_push_arena(a, &c->out->checks, chk))
            return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    return true;
}

static bool check_operand_extents(lower_ctx *c, const ir_op *op) {
    bool elementwise = op->kind == OP_BINARY || op->kind == OP_WHERE || ir_op_is_mma(op);
    for (int j = 0; elementwise && j < op->nin; j++)
        for (int k = j + 1; k < op->nin; k++)
            if (!check_operand_pair(c, op, j, k))
                return false;
    return true;
}

bool lower_check_fusion(lower_ctx *c) {
    wf_fusion *f = c->f;
    if (f->outputs.n == 0)
        return err_failb(&f->err, WF_ERR_ARG, "the fusion has no outputs");
    if (!an_check_self_mapping(&c->g, f))
        return false;
    for (int i = 0; i < f->tvs.n; i++) {
        wf_tv *tv = f->tvs.ptr[i];
        if (!check_memory(c, tv) || (!tv->is_input && !check_axes(c, tv)) || !check_inline(c, tv) ||
            !lower_tma_check_stages(c, tv))
            return false;
    }
    for (int i = 0; i < f->ops.n; i++)
        if (!check_op(c, f->ops.ptr[i]) || !check_operand_extents(c, f->ops.ptr[i]))
            return false;
    if (c->out->sm == 0)
        c->out->sm = 90; /* the default target: Hopper */
    return true;
}

/* threadIdx.x is one value per thread: two loops around one statement on
   it would both take that value and cover only their diagonal. The loop's
   parallel type is its group's (a loop shared with a producer or a sibling
   through inlining runs on the type any member has). */
static bool check_ptype_once(lower_ctx *c, const wf_tv *tv, int i) {
    const wf_iterdomain *a = tv->loop.ptr[i];
    wf_ptype p = lower_loop_ptype(c, a);
    if (lower_pdim_index(p) < 0 || !binds_index(a))
        return true;
    for (int j = i + 1; j < tv->loop.n; j++) {
        const wf_iterdomain *b = tv->loop.ptr[j];
        if (lower_loop_ptype(c, b) != p || !binds_index(b))
            continue;
        sbuf sa = {0}, sb = {0};
        ir_print_id(&sa, a);
        ir_print_id(&sb, b);
        err_failb(&c->f->err, WF_ERR_SCHEDULE,
                  "T%d: the loops of axes %d (%s) and %d (%s) both run on %s, so both would take "
                  "the same index; parallelize one of them on another type, merge them first, or "
                  "do not inline a producer whose loop brings %s",
                  tv->id, i, sbuf_str(&sa), j, sbuf_str(&sb), ir_ptype_name(p), ir_ptype_name(p));
        sbuf_free(&sa);
        sbuf_free(&sb);
        return false;
    }
    return true;
}

/* The inlining rules keep a reduction axis out of loops over other axes
   (analysis/inline.c, reductions_agree); a loop's promoted ID may come from
   further away than a producer's consumers, so the loop actually built is
   checked too: a reduction that would run again in every iteration of a
   longer loop is refused, never computed. */
static bool check_reduction_loop(lower_ctx *c, const wf_tv *tv, int i) {
    const wf_iterdomain *rid = tv->loop.ptr[i];
    int g = an_loop_group(&c->loops, rid);
    const wf_iterdomain *loop_id = g >= 0 ? c->loops.promoted[g] : NULL;
    if (rid->itype != IT_REDUCTION || !loop_id || an_mapped(&c->g.exact, rid, loop_id))
        return true;
    sbuf sr = {0}, sl = {0};
    ir_print_id(&sr, rid);
    ir_print_id(&sl, loop_id);
    err_failb(&c->f->err, WF_ERR_SCHEDULE,
              "T%d: the reduction axis %d (%s) is in a loop over %s, which it does not reduce: "
              "the reduction would run again in every iteration; inline its producers less "
              "deeply",
              tv->id, i, sbuf_str(&sr), sbuf_str(&sl));
    sbuf_free(&sr);
    sbuf_free(&sl);
    return false;
}

bool lower_check_loops(lower_ctx *c) {
    for (int k = 0; k < c->order.n; k++) {
        const wf_tv *tv = c->order.ptr[k]->out;
        for (int i = 0; i < tv->loop.n; i++)
            if (!check_ptype_once(c, tv, i) || !check_reduction_loop(c, tv, i))
                return false;
    }
    return true;
}
