/*
 * mma.c -- wf_mma (a fused multiply-sum, nvFuser's fusedMultiplySum) and
 * wf_matmul.
 *
 * wf_mma(a, b, axes) is one op: an OP_REDUCE with two inputs and sub WF_ADD
 * (ir_op_is_mma). It is a reduction for everything that schedules, lowers or
 * analyses reductions (its summed dims are reduction IDs of the output; split,
 * reorder, rfactor and parallelize treat it like wf_sum); only the backends'
 * reduction steps differ: a step folds the product a * b, rounded once to the
 * compute type, where a wf_sum step folds its input (codegen/reduce.c,
 * runtime/interp_reduce.c; docs/reductions.md, "wf_mma", has the rounding).
 * The compute and output type: f32 for 16-bit and f32 operands (a product of
 * two 16-bit floats is exact in f32, so 16-bit inputs accumulate exact
 * products in f32), f64 for f64. Integer and bool operands are refused.
 */
#include "ir/ir.h"

static wf_dtype mma_dtype(wf_tv *a, wf_tv *b, const char *name) {
    wf_tv *bad = !ir_dtype_is_float(a->dtype) ? a : !ir_dtype_is_float(b->dtype) ? b : NULL;
    if (bad) {
        err_failb(&a->f->err, WF_ERR_UNSUPPORTED,
                  "%s(T%d, T%d): T%d is %s; only float operands (f16, bf16, f32, f64) are "
                  "supported: cast it to a float type first",
                  name, a->id, b->id, bad->id, ir_dtype_short(bad->dtype));
        return WF_BOOL;
    }
    wf_dtype t = ir_promote(a, b);
    return t == WF_F64 ? WF_F64 : WF_F32;
}

static wf_tv *mma(const char *name, wf_tv *a, wf_tv *b, int naxes, const int *axes) {
    wf_fusion *f = a->f;
    wf_tv *ts[2] = {a, b};
    const wf_val *ext[WF_MAX_RANK];
    id_itype it[WF_MAX_RANK];
    bool red[WF_MAX_RANK] = {false};
    int n = 0;
    wf_dtype t = mma_dtype(a, b, name);
    if (t == WF_BOOL || !ir_operand_shape(name, ts, 2, ext, it, &n))
        return NULL;
    if (naxes < 1 || !axes)
        return err_fail(&f->err, WF_ERR_ARG,
                        "%s(T%d, T%d): give at least one axis to sum over (the operands have %d "
                        "dims)",
                        name, a->id, b->id, n);
    for (int i = 0; i < naxes; i++) {
        int ax = axes[i] < 0 ? axes[i] + n : axes[i];
        if (ax < 0 || ax >= n)
            return err_fail(&f->err, WF_ERR_ARG,
                            "%s(T%d, T%d): axis %d is out of range for %d dims", name, a->id, b->id,
                            axes[i], n);
        if (red[ax])
            return err_fail(&f->err, WF_ERR_ARG, "%s(T%d, T%d): axis %d is listed twice", name,
                            a->id, b->id, axes[i]);
        red[ax] = true;
    }
    for (int d = 0; d < n; d++)
        if (red[d])
            it[d] = IT_REDUCTION;
    wf_tv *out = ir_tv_new(f, t, n, ext, it);
    ir_op *o = out ? ir_op_new(f, OP_REDUCE, out, 2, ts) : NULL;
    if (!o)
        return NULL;
    o->sub = WF_ADD;
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < n; d++)
            o->in_dim[k][d] = ir_tv_dim(ts[k], d);
    return out;
}

wf_tv *ir_mma(wf_tv *a, wf_tv *b, int naxes, const int *axes) {
    return mma("mma", a, b, naxes, axes);
}

wf_tv *ir_matmul(wf_tv *a, wf_tv *b) {
    wf_fusion *f = a->f;
    int ra = ir_tv_rank(a), rb = ir_tv_rank(b);
    if (ra < 2 || rb < 2)
        return err_fail(&f->err, WF_ERR_ARG,
                        "matmul(T%d, T%d): each operand needs at least 2 dims ([..., M, K] x "
                        "[..., K, N]); T%d has %d",
                        a->id, b->id, ra < 2 ? a->id : b->id, ra < 2 ? ra : rb);
    if (ra != rb)
        return err_fail(&f->err, WF_ERR_ARG,
                        "matmul(T%d, T%d): ranks differ (%d and %d); broadcast the batch dims "
                        "of one operand first",
                        a->id, b->id, ra, rb);
    if (ra + 1 > WF_MAX_RANK)
        return err_fail(&f->err, WF_ERR_ARG,
                        "matmul(T%d, T%d): rank %d leaves no room for the broadcast dim (at "
                        "most %d, WF_MAX_RANK - 1)",
                        a->id, b->id, ra, WF_MAX_RANK - 1);
    if (mma_dtype(a, b, "matmul") == WF_BOOL)
        return NULL;
    const wf_iterdomain *ka = a->logical.ptr[ir_tv_dim(a, ra - 1)];
    const wf_iterdomain *kb = b->logical.ptr[ir_tv_dim(b, rb - 2)];
    if (val_is_const(ka->extent) && val_is_const(kb->extent) && ka->extent->c != kb->extent->c)
        return err_fail(&f->err, WF_ERR_ARG,
                        "matmul(T%d, T%d): K differs: T%d's dim %d has extent %lld but T%d's "
                        "dim %d has %lld",
                        a->id, b->id, a->id, ra - 1, (long long)ka->extent->c, b->id, rb - 2,
                        (long long)kb->extent->c);
    bool isb[WF_MAX_RANK] = {false};
    int perm[WF_MAX_RANK];
    for (int d = 0; d < rb; d++)
        perm[d] = d;
    perm[rb - 2] = rb - 1;
    perm[rb - 1] = rb - 2;
    isb[ra - 1] = true; /* a: [..., M, 1, K] */
    wf_tv *av = ir_broadcast(a, ra + 1, isb);
    wf_tv *bt = av ? ir_permute(b, perm) : NULL; /* [..., N, K] */
    isb[ra - 1] = false;
    isb[ra - 2] = true; /* b: [..., 1, N, K] */
    wf_tv *bv = bt ? ir_broadcast(bt, ra + 1, isb) : NULL;
    int k = -1;
    return bv ? mma("matmul", av, bv, 1, &k) : NULL;
}
