/*
 * ops.c -- op constructors: each builds the output tensor and records how
 * its root dims correspond to its inputs' logical dims.
 *
 * Constructors only build the graph. They check shapes (ranks, broadcast
 * compatibility, permutations) and set the sticky error on a mismatch.
 * Types: a binary op's output has the operands' promoted type and a unary
 * op's output its input's type, except float-only ops on integers or bools
 * (f32), as in PyTorch. Every backend converts an op's operands to its
 * output type before computing (the one rule codegen, the executor and the
 * tests share; include/weft.h states it for users).
 */
#include "ir/ir.h"

/* The unary and binary tables follow wf_unary_op / wf_binary_op: checked here. */
enum {
#define UOP(name, sym, float_only) UOP_AT_##name,
#include "ir/ops.def"
};
enum {
#define BOP(name, sym) BOP_AT_##name,
#include "ir/ops.def"
};
#define UOP(name, sym, float_only) _Static_assert((int)WF_##name == UOP_AT_##name, "ops.def order");
#define BOP(name, sym)             _Static_assert((int)WF_##name == BOP_AT_##name, "ops.def order");
#include "ir/ops.def"

static const struct {
    bool float_only;
} unary_ops[] = {
#define UOP(name, sym, float_only) {float_only},
#include "ir/ops.def"
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ---- type promotion (PyTorch's torch.result_type for two tensors) ----
   Categories bool < integer < floating: the higher category wins; within one,
   the wider type; f16 with bf16 gives f32 and u8 with i8 gives i16 (the
   smallest type holding both). */

static int category(wf_dtype t) {
    ir_dtype_cat c = ir_dtype(t)->cat;
    return c == IR_DT_BOOL ? 0 : c == IR_DT_FLOAT ? 2 : 1;
}

static wf_dtype promote(wf_dtype a, wf_dtype b) {
    if (a == b)
        return a;
    if (category(a) != category(b))
        return category(a) > category(b) ? a : b;
    if (category(a) == 2) {
        if (a == WF_F64 || b == WF_F64)
            return WF_F64;
        return WF_F32; /* f32 with a 16-bit type, or f16 with bf16 */
    }
    bool au = ir_dtype(a)->cat == IR_DT_UINT, bu = ir_dtype(b)->cat == IR_DT_UINT;
    if (au || bu) { /* u8 with a signed type: a signed type holding 0..255 */
        wf_dtype s = au ? b : a;
        return s == WF_I8 ? WF_I16 : s;
    }
    return wf_dtype_size(a) >= wf_dtype_size(b) ? a : b;
}

/* The output type of a unary op: a float-only op on integers or bools gives
   PyTorch's default float type. */
static wf_dtype unary_dtype(int op, wf_dtype t) {
    return unary_ops[op].float_only && category(t) < 2 ? WF_F32 : t;
}

/* The fixed per-dim arrays below hold WF_MAX_RANK dims; the API keeps every
   rank within it (wf_input, wf_broadcast refuse others), so a rank beyond it
   here is a bug: an internal error, and the arrays stay safe. */
static bool rank_ok(wf_tv *a, int n) {
    bool ok = n >= 0 && n <= WF_MAX_RANK;
    err_assert(&a->f->err, ok);
    return ok;
}

/* A new tensor shaped like `like` (dims in the order of map, -1 = broadcast). */
static wf_tv *new_like(wf_tv *like, wf_dtype t, int ndim, const int *map) {
    const wf_val *ext[WF_MAX_RANK];
    id_itype it[WF_MAX_RANK];
    wf_fusion *f = like->f;
    for (int d = 0; d < ndim; d++) {
        if (map[d] < 0) {
            ext[d] = val_const(&f->arena, 1);
            it[d] = IT_BROADCAST;
        } else {
            const wf_iterdomain *id = like->logical.ptr[ir_tv_dim(like, map[d])];
            ext[d] = id->extent;
            it[d] = id->itype;
        }
    }
    return ir_tv_new(f, t, ndim, ext, it);
}

static wf_tv *unary_like(wf_tv *a, op_kind k, wf_dtype t, int sub) {
    int map[WF_MAX_RANK];
    int n = ir_tv_rank(a);
    if (!rank_ok(a, n))
        return NULL;
    for (int d = 0; d < n; d++)
        map[d] = d;
    wf_tv *out = new_like(a, t, n, map);
    if (!out)
        return NULL;
    ir_op *op = ir_op_new(a->f, k, out, 1, &a);
    if (!op)
        return NULL;
    op->sub = sub;
    for (int d = 0; d < n; d++)
        op->in_dim[0][d] = ir_tv_dim(a, d);
    return out;
}

wf_tv *ir_set(wf_tv *a) {
    return unary_like(a, OP_SET, a->dtype, 0);
}

wf_tv *ir_cast(wf_tv *a, wf_dtype t) {
    return unary_like(a, OP_CAST, t, 0);
}

wf_tv *ir_unary(int op, wf_tv *a) {
    return unary_like(a, OP_UNARY, unary_dtype(op, a->dtype), op);
}

/* PyTorch's promotion with 0-dim operands: a scalar decides the type only when
   its category is higher than the tensor's (then it gives its own type). */
wf_dtype ir_promote(const wf_tv *a, const wf_tv *b) {
    if (!a->scalar == !b->scalar)
        return promote(a->dtype, b->dtype);
    const wf_tv *t = a->scalar ? b : a, *s = a->scalar ? a : b;
    return category(s->dtype) > category(t->dtype) ? s->dtype : t->dtype;
}

/* The broadcast shape of the tensor operands (same ranks; a broadcast dim takes the
   other's extent) into ext/it; false with the sticky error on a mismatch. */
bool ir_operand_shape(const char *name, wf_tv *const *ts, int nt, const wf_val **ext, id_itype *it,
                      int *rank) {
    wf_fusion *f = ts[0]->f;
    int n = ir_tv_rank(ts[0]);
    for (int k = 1; k < nt; k++)
        if (ir_tv_rank(ts[k]) != n)
            return err_failb(&f->err, WF_ERR_ARG,
                             "%s(T%d, T%d): ranks differ (%d and %d); broadcast one operand first",
                             name, ts[0]->id, ts[k]->id, n, ir_tv_rank(ts[k]));
    if (!rank_ok(ts[0], n))
        return false;
    for (int d = 0; d < n; d++) {
        const wf_iterdomain *x = ts[0]->logical.ptr[ir_tv_dim(ts[0], d)];
        int xt = 0;
        for (int k = 1; k < nt; k++) {
            const wf_iterdomain *y = ts[k]->logical.ptr[ir_tv_dim(ts[k], d)];
            bool xb = x->itype == IT_BROADCAST, yb = y->itype == IT_BROADCAST;
            if (!xb && !yb && val_is_const(x->extent) && val_is_const(y->extent) &&
                x->extent->c != y->extent->c)
                return err_failb(&f->err, WF_ERR_ARG,
                                 "%s(T%d, T%d): dim %d has extent %lld in T%d but %lld in T%d",
                                 name, ts[xt]->id, ts[k]->id, d, (long long)x->extent->c,
                                 ts[xt]->id, (long long)y->extent->c, ts[k]->id);
            if (xb && !yb)
                x = y, xt = k;
        }
        ext[d] = x->extent;
        it[d] = x->itype;
    }
    *rank = n;
    return true;
}

/* An elementwise op over operands that are tensors or scalars (at least one tensor);
   every scalar must convert to the compute type cdt. */
static wf_tv *elementwise(op_kind k, int sub, const char *name, int nargs, wf_tv *const *args,
                          wf_dtype cdt, wf_dtype odt) {
    wf_tv *ts[IR_MAX_OP_INPUTS];
    const ir_scalar *sc[IR_MAX_OP_INPUTS] = {NULL};
    int nt = 0, n = 0;
    wf_fusion *f = args[0]->f;
    for (int i = 0; i < nargs; i++) {
        if (args[i]->scalar) {
            ir_scalar *v = ARENA_NEW(&f->arena, ir_scalar);
            if (!v)
                return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
            if (!ir_scalar_to(f, args[i]->scalar, cdt, v))
                return NULL;
            sc[i] = v;
        } else
            ts[nt++] = args[i];
    }
    if (nt == 0)
        return err_fail(&f->err, WF_ERR_ARG,
                        "%s: every operand is a scalar constant; give at least one tensor (the "
                        "scalars take its shape)",
                        name);
    const wf_val *ext[WF_MAX_RANK];
    id_itype it[WF_MAX_RANK];
    if (!ir_operand_shape(name, ts, nt, ext, it, &n))
        return NULL;
    wf_tv *out = ir_tv_new(f, odt, n, ext, it);
    ir_op *op = out ? ir_op_new(f, k, out, nt, ts) : NULL;
    if (!op)
        return NULL;
    op->sub = sub;
    op->nargs = nargs;
    op->cdtype = cdt;
    for (int i = 0; i < nargs; i++) {
        op->sc[i] = sc[i];
        op->sc_given[i] = sc[i] ? args[i]->scalar : NULL;
    }
    for (int i = 0; i < nt; i++)
        for (int d = 0; d < n; d++)
            op->in_dim[i][d] = ir_tv_dim(ts[i], d);
    return out;
}

wf_tv *ir_binary(int bop, wf_tv *a, wf_tv *b) {
    wf_tv *args[2] = {a, b};
    wf_dtype t = ir_promote(a, b);
    return elementwise(OP_BINARY, bop, ir_binary_name(bop), 2, args, t,
                       ir_binary_is_compare(bop) ? WF_BOOL : t);
}

wf_tv *ir_where(wf_tv *cond, wf_tv *a, wf_tv *b) {
    wf_fusion *f = cond->f;
    if (cond->scalar)
        return err_fail(&f->err, WF_ERR_ARG,
                        "where: the condition is a scalar constant; it must be a bool tensor "
                        "(choose between the operands on the host instead)");
    if (cond->dtype != WF_BOOL)
        return err_fail(&f->err, WF_ERR_ARG,
                        "where(T%d, ...): the condition T%d is %s, not bool; compare it "
                        "(wf_binary(WF_NE, T%d, zero)) or cast it (wf_cast(T%d, WF_BOOL)) first",
                        cond->id, cond->id, ir_dtype_short(cond->dtype), cond->id, cond->id);
    wf_tv *args[3] = {cond, a, b};
    wf_dtype t = ir_promote(a, b);
    return elementwise(OP_WHERE, 0, "where", 3, args, t, t);
}

wf_tv *ir_broadcast(wf_tv *a, int ndim_out, const bool *is_bcast) {
    wf_fusion *f = a->f;
    int map[WF_MAX_RANK], k = 0;
    if (!rank_ok(a, ndim_out))
        return NULL;
    for (int d = 0; d < ndim_out; d++)
        map[d] = is_bcast[d] ? -1 : k++;
    if (k != ir_tv_rank(a))
        return err_fail(&f->err, WF_ERR_ARG,
                        "broadcast(T%d): %d output dims are not broadcast, but T%d has %d dims",
                        a->id, k, a->id, ir_tv_rank(a));
    wf_tv *out = new_like(a, a->dtype, ndim_out, map);
    ir_op *op = out ? ir_op_new(f, OP_BROADCAST, out, 1, &a) : NULL;
    if (!op)
        return NULL;
    for (int d = 0; d < ndim_out; d++)
        op->in_dim[0][d] = map[d] < 0 ? -1 : ir_tv_dim(a, map[d]);
    return out;
}

wf_tv *ir_expand(wf_tv *a, int ndim_out, const bool *is_bcast, const int64_t *extent) {
    wf_tv *out = ir_broadcast(a, ndim_out, is_bcast);
    for (int d = 0; out && d < ndim_out; d++)
        if (is_bcast[d] && extent[d] != 1) {
            wf_iterdomain *id = out->logical.ptr[d];
            const wf_val *e = extent[d] > 0 ? val_const(&a->f->arena, extent[d]) : NULL;
            if (!e)
                return err_fail(&a->f->err, extent[d] > 0 ? WF_ERR_MEMORY : WF_ERR_ARG,
                                "expand(T%d): dim %d has extent %lld (want > 0)", a->id, d,
                                (long long)extent[d]);
            id->itype = IT_ITER, id->extent = e;
        }
    return out;
}

wf_tv *ir_permute(wf_tv *a, const int *new2old) {
    wf_fusion *f = a->f;
    int n = ir_tv_rank(a);
    bool seen[WF_MAX_RANK] = {false};
    if (!rank_ok(a, n))
        return NULL;
    for (int d = 0; d < n; d++) {
        int o = new2old[d];
        if (o < 0 || o >= n || seen[o])
            return err_fail(&f->err, WF_ERR_ARG,
                            "permute(T%d): new2old is not a permutation of 0..%d (entry %d is %d)",
                            a->id, n - 1, d, o);
        seen[o] = true;
    }
    wf_tv *out = new_like(a, a->dtype, n, new2old);
    ir_op *op = out ? ir_op_new(f, OP_PERMUTE, out, 1, &a) : NULL;
    if (!op)
        return NULL;
    for (int d = 0; d < n; d++)
        op->in_dim[0][d] = ir_tv_dim(a, new2old[d]);
    return out;
}
