/*
 * ops.c -- op constructors: each builds the output tensor and records how
 * its root dims correspond to its inputs' logical dims.
 *
 * Constructors only build the graph. They check shapes (ranks, broadcast
 * compatibility, permutations) and set the sticky error on a mismatch.
 */
#include "ir/ir.h"

static const char *const op_names[] = {
#define OP(name, sym, nin) sym,
#include "ir/ops.def"
#undef OP
};

const char *ir_op_name(op_kind k) {
    return (unsigned)k < OP_COUNT ? op_names[k] : "?";
}

const char *ir_unary_name(int op) {
    static const char *const names[] = {"neg", "abs", "exp",  "log",     "sqrt", "rsqrt",
                                        "sin", "cos", "tanh", "sigmoid", "relu", "reciprocal"};
    return (unsigned)op < sizeof names / sizeof *names ? names[op] : "?";
}

const char *ir_binary_name(int op) {
    static const char *const names[] = {"add", "sub", "mul", "div", "max", "min", "pow"};
    return (unsigned)op < sizeof names / sizeof *names ? names[op] : "?";
}

/* A new tensor shaped like `like` (dims in the order of map, -1 = broadcast). */
static wf_tv *new_like(wf_tv *like, wf_dtype t, int ndim, const int *map) {
    const wf_val *ext[16];
    id_itype it[16];
    wf_fusion *f = like->f;
    for (int d = 0; d < ndim; d++) {
        if (map[d] < 0) {
            ext[d] = val_const(&f->arena, 1);
            it[d] = IT_BROADCAST;
        } else {
            ext[d] = like->logical.ptr[map[d]]->extent;
            it[d] = like->logical.ptr[map[d]]->itype;
        }
    }
    return ir_tv_new(f, t, ndim, ext, it);
}

static wf_tv *unary_like(wf_tv *a, op_kind k, wf_dtype t, int sub) {
    int map[16];
    for (int d = 0; d < a->logical.n; d++)
        map[d] = d;
    wf_tv *out = new_like(a, t, a->logical.n, map);
    if (!out)
        return NULL;
    ir_op *op = ir_op_new(a->f, k, out, 1, &a);
    if (!op)
        return NULL;
    op->sub = sub;
    for (int d = 0; d < a->logical.n; d++)
        op->in_dim[0][d] = d;
    return out;
}

wf_tv *ir_set(wf_tv *a) {
    return unary_like(a, OP_SET, a->dtype, 0);
}

wf_tv *ir_cast(wf_tv *a, wf_dtype t) {
    return unary_like(a, OP_CAST, t, 0);
}

wf_tv *ir_unary(int op, wf_tv *a) {
    return unary_like(a, OP_UNARY, a->dtype, op);
}

wf_tv *ir_binary(int bop, wf_tv *a, wf_tv *b) {
    wf_fusion *f = a->f;
    int n = a->logical.n;
    if (b->logical.n != n)
        return wf_fail(&f->err, WF_ERR_ARG,
                       "%s(T%d, T%d): ranks differ (%d and %d); broadcast one operand first",
                       ir_binary_name(bop), a->id, b->id, n, b->logical.n);
    const wf_val *ext[16];
    id_itype it[16];
    for (int d = 0; d < n; d++) {
        wf_iterdomain *x = a->logical.ptr[d], *y = b->logical.ptr[d];
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
    wf_dtype t = a->dtype == WF_F64 || b->dtype == WF_F64 ? WF_F64 : a->dtype;
    wf_tv *out = ir_tv_new(f, t, n, ext, it);
    wf_tv *in[2] = {a, b};
    ir_op *op = out ? ir_op_new(f, OP_BINARY, out, 2, in) : NULL;
    if (!op)
        return NULL;
    op->sub = bop;
    for (int d = 0; d < n; d++)
        op->in_dim[0][d] = op->in_dim[1][d] = d;
    return out;
}

wf_tv *ir_broadcast(wf_tv *a, int ndim_out, const bool *is_bcast) {
    wf_fusion *f = a->f;
    int map[16], k = 0;
    for (int d = 0; d < ndim_out; d++)
        map[d] = is_bcast[d] ? -1 : k++;
    if (k != a->logical.n)
        return wf_fail(&f->err, WF_ERR_ARG,
                       "broadcast(T%d): %d output dims are not broadcast, but T%d has %d dims",
                       a->id, k, a->id, a->logical.n);
    wf_tv *out = new_like(a, a->dtype, ndim_out, map);
    ir_op *op = out ? ir_op_new(f, OP_BROADCAST, out, 1, &a) : NULL;
    if (!op)
        return NULL;
    for (int d = 0; d < ndim_out; d++)
        op->in_dim[0][d] = map[d];
    return out;
}

wf_tv *ir_permute(wf_tv *a, const int *new2old) {
    wf_fusion *f = a->f;
    int n = a->logical.n;
    bool seen[16] = {false};
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
        op->in_dim[0][d] = new2old[d];
    return out;
}
