/*
 * reduce.c -- the reduction op's constructor and the dims a consumer sees.
 *
 * A reduction's output keeps every dim of its input: the reduced ones become
 * reduction IterDomains (printed rS), which stay in the output's logical and
 * loop domains so that they can be scheduled (split, merged, parallelized,
 * rfactored) like any axis. They hold no data: allocation skips them, a
 * fusion output's buffer has only the other dims, and an op reading the
 * tensor sees only those (ir_tv_rank / ir_tv_dim). The combining op is a
 * binary op of wf_binary_op (add, mul, max, min) with a row in ir/ops.def;
 * its initial value is that row's, as PyTorch defines them: 0, 1, -inf (or
 * the type's least value), +inf (or the greatest), for every backend
 * (ir_reduce_init_value); the NaN rules (max and min propagate NaN) are each
 * backend's (codegen/reduce.c, runtime/interp_reduce.c). Sums and products of
 * integers or bools give i64, like torch.sum; max and min keep the type.
 */
#include "ir/ir.h"

#include <math.h>

static const struct {
    int op;
    const char *name;
    ir_reduce_init init;
} reductions[] = {
#define RED(op, sym, identity) {WF_##op, sym, identity},
#include "ir/ops.def"
};

/* The row of a reduction's op, or -1. */
static int row_of(int op) {
    for (int i = 0; i < (int)(sizeof reductions / sizeof *reductions); i++)
        if (reductions[i].op == op)
            return i;
    return -1;
}

ir_reduce_init ir_reduce_init_kind(int op) {
    int r = row_of(op);
    return r < 0 ? IR_INIT_ZERO : reductions[r].init;
}

ir_scalar ir_reduce_init_value(int op, wf_dtype t) {
    ir_scalar v = {.dtype = t};
    const ir_dtype_info *d = ir_dtype(t);
    ir_reduce_init k = ir_reduce_init_kind(op);
    if (k == IR_INIT_ZERO || k == IR_INIT_ONE)
        v.f = v.i = k == IR_INIT_ONE;
    else if (d->cat == IR_DT_FLOAT)
        v.f = k == IR_INIT_LOWEST ? -INFINITY : INFINITY;
    else
        v.i = k == IR_INIT_LOWEST ? d->lo : d->hi;
    return v;
}

int ir_tv_rank(const wf_tv *tv) {
    int n = 0;
    for (int i = 0; i < tv->logical.n; i++)
        n += tv->logical.ptr[i]->itype != IT_REDUCTION;
    return n;
}

int ir_tv_dim(const wf_tv *tv, int d) {
    for (int i = 0; i < tv->logical.n; i++)
        if (tv->logical.ptr[i]->itype != IT_REDUCTION && d-- == 0)
            return i;
    return -1;
}

static const char *reduce_name(int op) {
    return reductions[row_of(op)].name;
}

/* Which of a's dims are reduced; false (with the error set) on a bad list. */
static bool reduced_dims(wf_tv *a, int op, int naxes, const int *axes, bool *red) {
    wf_err *e = &a->f->err;
    int n = ir_tv_rank(a);
    if (naxes < 1 || !axes)
        return err_failb(e, WF_ERR_ARG, "%s(T%d): give at least one axis to reduce (T%d has %d)",
                         reduce_name(op), a->id, a->id, n);
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i] < 0 ? axes[i] + n : axes[i];
        if (ax < 0 || ax >= n)
            return err_failb(e, WF_ERR_ARG, "%s(T%d): axis %d is out of range for %d dims",
                             reduce_name(op), a->id, axes[i], n);
        if (red[ax])
            return err_failb(e, WF_ERR_ARG, "%s(T%d): axis %d is listed twice", reduce_name(op),
                             a->id, axes[i]);
        red[ax] = true;
    }
    return true;
}

wf_tv *ir_reduce(int op, wf_tv *a, int naxes, const int *axes) {
    wf_fusion *f = a->f;
    bool red[WF_MAX_RANK] = {false};
    const wf_val *ext[WF_MAX_RANK];
    id_itype it[WF_MAX_RANK];
    int n = ir_tv_rank(a);
    if (row_of(op) < 0)
        return err_fail(&f->err, WF_ERR_ARG,
                        "reduce(T%d): the op must be WF_ADD, WF_MUL, WF_MAX or WF_MIN, not %s",
                        a->id, (unsigned)op <= WF_GE ? ir_binary_name(op) : "unknown");
    err_assert(&f->err, n <= WF_MAX_RANK); /* ranks are checked where tensors are made */
    if (n > WF_MAX_RANK)
        return NULL;
    if (!reduced_dims(a, op, naxes, axes, red))
        return NULL;
    for (int d = 0; d < n; d++) {
        const wf_iterdomain *id = a->logical.ptr[ir_tv_dim(a, d)];
        ext[d] = id->extent;
        it[d] = red[d] ? IT_REDUCTION : id->itype;
    }
    wf_dtype t = a->dtype;
    if ((op == WF_ADD || op == WF_MUL) && !ir_dtype_is_float(t))
        t = WF_I64;
    wf_tv *out = ir_tv_new(f, t, n, ext, it);
    ir_op *o = out ? ir_op_new(f, OP_REDUCE, out, 1, &a) : NULL;
    if (!o)
        return NULL;
    o->sub = op;
    for (int d = 0; d < n; d++)
        o->in_dim[0][d] = ir_tv_dim(a, d);
    return out;
}

/* Is the u-th use of tv an op listed before it (both operands of one op)? */
static bool seen_use(const wf_tv *tv, int u) {
    for (int v = 0; v < u; v++)
        if (tv->uses.ptr[v] == tv->uses.ptr[u])
            return true;
    return false;
}

bool ir_relogical(wf_tv *tv, const id_list *logical, const id_list *loop) {
    for (int u = 0; u < tv->uses.n; u++) {
        ir_op *op = tv->uses.ptr[u];
        /* An op using tv twice (sub(x, x)) is listed twice; remapping it a
           second time would read the new positions as old ones. */
        if (seen_use(tv, u))
            continue;
        for (int k = 0; k < op->nin; k++)
            for (int d = 0; op->in[k] == tv && d < op->out->logical.n; d++) {
                int s = op->in_dim[k][d], to = -1;
                for (int j = 0; s >= 0 && j < logical->n; j++)
                    if (logical->ptr[j] == tv->logical.ptr[s])
                        to = j;
                op->in_dim[k][d] = to;
            }
    }
    tv->logical = *logical;
    tv->loop = *loop;
    return true;
}
