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
    return t == WF_BOOL ? 0 : (t >= WF_I8 && t <= WF_U8) ? 1 : 2;
}

static int width(wf_dtype t) {
    return t == WF_BOOL ? 1 : (int)wf_dtype_size(t);
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
    bool au = a == WF_U8, bu = b == WF_U8;
    if (au || bu) { /* u8 with a signed type: a signed type holding 0..255 */
        wf_dtype s = au ? b : a;
        return s == WF_I8 ? WF_I16 : s;
    }
    return width(a) >= width(b) ? a : b;
}

/* The output type of a unary op: a float-only op on integers or bools gives
   PyTorch's default float type. */
static wf_dtype unary_dtype(int op, wf_dtype t) {
    return unary_ops[op].float_only && category(t) < 2 ? WF_F32 : t;
}

/* The fixed per-dim arrays below hold WF_MAX_RANK dims; the API keeps every
   rank within it, and this check keeps them safe should that ever change. */
static bool rank_ok(wf_tv *a, int n) {
    if (n >= 0 && n <= WF_MAX_RANK)
        return true;
    return wf_failb(&a->f->err, WF_ERR_ARG, "T%d: rank %d is not in 0..%d (WF_MAX_RANK)", a->id, n,
                    WF_MAX_RANK);
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

wf_tv *ir_binary(int bop, wf_tv *a, wf_tv *b) {
    wf_fusion *f = a->f;
    int n = ir_tv_rank(a);
    if (ir_tv_rank(b) != n)
        return wf_fail(&f->err, WF_ERR_ARG,
                       "%s(T%d, T%d): ranks differ (%d and %d); broadcast one operand first",
                       ir_binary_name(bop), a->id, b->id, n, ir_tv_rank(b));
    const wf_val *ext[WF_MAX_RANK];
    id_itype it[WF_MAX_RANK];
    if (!rank_ok(a, n))
        return NULL;
    for (int d = 0; d < n; d++) {
        wf_iterdomain *x = a->logical.ptr[ir_tv_dim(a, d)], *y = b->logical.ptr[ir_tv_dim(b, d)];
        bool xb = x->itype == IT_BROADCAST, yb = y->itype == IT_BROADCAST;
        if (!xb && !yb && val_is_const(x->extent) && val_is_const(y->extent) &&
            x->extent->c != y->extent->c)
            return wf_fail(&f->err, WF_ERR_ARG,
                           "%s(T%d, T%d): dim %d has extent %lld in T%d but %lld in T%d",
                           ir_binary_name(bop), a->id, b->id, d, (long long)x->extent->c, a->id,
                           (long long)y->extent->c, b->id);
        ext[d] = xb ? y->extent : x->extent;
        it[d] = xb ? y->itype : x->itype;
    }
    wf_dtype t = promote(a->dtype, b->dtype);
    wf_tv *out = ir_tv_new(f, t, n, ext, it);
    wf_tv *in[2] = {a, b};
    ir_op *op = out ? ir_op_new(f, OP_BINARY, out, 2, in) : NULL;
    if (!op)
        return NULL;
    op->sub = bop;
    for (int d = 0; d < n; d++) {
        op->in_dim[0][d] = ir_tv_dim(a, d);
        op->in_dim[1][d] = ir_tv_dim(b, d);
    }
    return out;
}

wf_tv *ir_broadcast(wf_tv *a, int ndim_out, const bool *is_bcast) {
    wf_fusion *f = a->f;
    int map[WF_MAX_RANK], k = 0;
    if (!rank_ok(a, ndim_out))
        return NULL;
    for (int d = 0; d < ndim_out; d++)
        map[d] = is_bcast[d] ? -1 : k++;
    if (k != ir_tv_rank(a))
        return wf_fail(&f->err, WF_ERR_ARG,
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
                return wf_fail(&a->f->err, extent[d] > 0 ? WF_ERR_MEMORY : WF_ERR_ARG,
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
            return wf_fail(&f->err, WF_ERR_ARG,
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
