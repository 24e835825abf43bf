/*
 * fusion.c -- public entry points for fusions, tensors, ops and errors.
 */
#include "api/api.h"

const char *wf_version(void) {
    return "0.1.0";
}

wf_fusion *wf_fusion_new(void) {
    return ir_fusion_new();
}

void wf_fusion_free(wf_fusion *f) {
    ir_fusion_free(f);
}

wf_status wf_fusion_status(const wf_fusion *f) {
    if (!f)
        return WF_ERR_ARG;
    return f->err.code == WF_OK && f->arena.failed ? WF_ERR_MEMORY : f->err.code;
}

const char *wf_fusion_error(const wf_fusion *f) {
    if (!f)
        return "no fusion (NULL)";
    return f->err.code == WF_OK && f->arena.failed ? "out of memory" : f->err.msg;
}

/* Clearing also forgets a failed allocation: what it left half-built stays, as
   after any error, but the fusion may be used again. */
void wf_fusion_clear_error(wf_fusion *f) {
    if (f) {
        err_clear(&f->err);
        f->arena.failed = false;
    }
}

const char *wf_status_name(wf_status s) {
    static const char *const names[] = {"WF_OK",          "WF_ERR_ARG",  "WF_ERR_SCHEDULE",
                                        "WF_ERR_COMPILE", "WF_ERR_CUDA", "WF_ERR_UNSUPPORTED",
                                        "WF_ERR_MEMORY"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "WF_ERR_UNKNOWN";
}

/* what: the public call that got the dtype, so that the message says where. */
static bool valid_dtype(wf_fusion *f, wf_dtype t, const char *what) {
    if ((unsigned)t < IR_NDTYPES)
        return true;
    return err_failb(&f->err, WF_ERR_ARG,
                     "%s: unknown dtype %d; a dtype is one of WF_F32 ... WF_BOOL (0 to %d)", what,
                     (int)t, IR_NDTYPES - 1);
}

wf_tv *wf_input_strided(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape,
                        const int8_t *contiguity) {
    WF_GATE(f, NULL);
    if (!valid_dtype(f, t, "wf_input"))
        return NULL;
    if (ndim < 0 || ndim > WF_MAX_RANK)
        return err_fail(&f->err, WF_ERR_ARG,
                        "wf_input: rank %d is not in 0..%d (WF_MAX_RANK, the rank of wf_buffer)",
                        ndim, WF_MAX_RANK);
    if (ndim > 0 && !shape)
        return err_fail(&f->err, WF_ERR_ARG, "wf_input: the shape of a rank-%d input is NULL",
                        ndim);
    int64_t bytes = (int64_t)wf_dtype_size(t);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0 || shape[i] < -1)
            return err_fail(&f->err, WF_ERR_ARG,
                            "wf_input: extent %lld of dim %d must be positive, or -1 for symbolic",
                            (long long)shape[i], i);
        if (shape[i] > 0 && __builtin_mul_overflow(bytes, shape[i], &bytes))
            return err_fail(&f->err, WF_ERR_ARG,
                            "wf_input: a %s tensor of this shape needs more than 2^63 bytes (the "
                            "size overflows at dim %d, extent %lld); no buffer is that large",
                            ir_dtype_short(t), i, (long long)shape[i]);
    }
    return ir_input(f, t, ndim, shape, contiguity);
}

wf_tv *wf_input(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape) {
    return wf_input_strided(f, t, ndim, shape, NULL);
}

void wf_output(wf_fusion *f, wf_tv *tv) {
    WF_GATE(f, );
    if (!tv || tv->f != f) {
        err_fail(&f->err, WF_ERR_ARG, "wf_output: the tensor is NULL or from another fusion");
        return;
    }
    if (tv->scalar) {
        api_scalar_refused(tv);
        return;
    }
    if (tv->is_output) {
        int i = 0;
        while (i < f->outputs.n && f->outputs.ptr[i] != tv)
            i++;
        err_fail(&f->err, WF_ERR_ARG,
                 "wf_output(T%d): T%d is already output %d; to return the same values twice, "
                 "output a copy of it (wf_set(T%d))",
                 tv->id, tv->id, i, tv->id);
        return;
    }
    char what[48];
    snprintf(what, sizeof what, "wf_output(T%d)", tv->id);
    tv->is_output = true;
    if (!sched_check_io_alloc(tv, what, tv->alloc.n, tv->alloc.ptr)) {
        tv->is_output = false;
        return;
    }
    tv->mem = WF_MEM_GLOBAL;
    if (!vec_push_arena(&f->arena, &f->outputs, tv))
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
}

wf_tv *wf_set(wf_tv *a) {
    TV_GATE(a, NULL);
    return ir_set(a);
}

wf_tv *wf_cast(wf_tv *a, wf_dtype t) {
    TV_GATE(a, NULL);
    return valid_dtype(a->f, t, "wf_cast") ? ir_cast(a, t) : NULL;
}

wf_tv *wf_unary(wf_unary_op op, wf_tv *a) {
    TV_GATE(a, NULL);
    if ((unsigned)op > WF_RECIPROCAL)
        return err_fail(&a->f->err, WF_ERR_ARG, "wf_unary: unknown op %d", (int)op);
    return ir_unary(op, a);
}

wf_tv *wf_binary(wf_binary_op op, wf_tv *a, wf_tv *b) {
    OPERAND_GATE(a, NULL);
    if (!b || b->f != a->f)
        return err_fail(&a->f->err, WF_ERR_ARG, "wf_binary: operands are from different fusions");
    if ((unsigned)op > WF_GE)
        return err_fail(&a->f->err, WF_ERR_ARG, "wf_binary: unknown op %d", (int)op);
    return ir_binary(op, a, b);
}

wf_tv *wf_add(wf_tv *a, wf_tv *b) {
    return wf_binary(WF_ADD, a, b);
}

wf_tv *wf_sub(wf_tv *a, wf_tv *b) {
    return wf_binary(WF_SUB, a, b);
}

wf_tv *wf_mul(wf_tv *a, wf_tv *b) {
    return wf_binary(WF_MUL, a, b);
}

wf_tv *wf_div(wf_tv *a, wf_tv *b) {
    return wf_binary(WF_DIV, a, b);
}

wf_tv *wf_broadcast(wf_tv *a, int ndim_out, const bool *is_broadcast_dim) {
    TV_GATE(a, NULL);
    if (ndim_out < 0 || ndim_out > WF_MAX_RANK)
        return err_fail(&a->f->err, WF_ERR_ARG,
                        "broadcast(T%d): output rank %d is not in 0..%d (WF_MAX_RANK)", a->id,
                        ndim_out, WF_MAX_RANK);
    if (!is_broadcast_dim)
        return err_fail(&a->f->err, WF_ERR_ARG, "broadcast(T%d): is_broadcast_dim is NULL", a->id);
    return ir_broadcast(a, ndim_out, is_broadcast_dim);
}

wf_tv *wf_permute(wf_tv *a, const int *new2old) {
    TV_GATE(a, NULL);
    if (!new2old)
        return err_fail(&a->f->err, WF_ERR_ARG, "permute(T%d): new2old is NULL", a->id);
    return ir_permute(a, new2old);
}

wf_tv *wf_transpose(wf_tv *a, int dim0, int dim1) {
    TV_GATE(a, NULL);
    int n = a->logical.n, perm[WF_MAX_RANK]; /* every tensor's rank is at most WF_MAX_RANK */
    if (dim0 < 0)
        dim0 += n;
    if (dim1 < 0)
        dim1 += n;
    if (dim0 < 0 || dim0 >= n || dim1 < 0 || dim1 >= n || n > WF_MAX_RANK)
        return err_fail(&a->f->err, WF_ERR_ARG,
                        "transpose(T%d): dims %d and %d are not both in 0..%d", a->id, dim0, dim1,
                        n - 1);
    for (int i = 0; i < n; i++)
        perm[i] = i;
    perm[dim0] = dim1;
    perm[dim1] = dim0;
    return ir_permute(a, perm);
}

wf_tv *wf_reduce(wf_binary_op op, wf_tv *a, int naxes, const int *axes) {
    TV_GATE(a, NULL);
    return ir_reduce(op, a, naxes, axes);
}

wf_tv *wf_mma(wf_tv *a, wf_tv *b, int naxes, const int *axes) {
    TV_GATE(a, NULL);
    TV_GATE(b, NULL);
    if (b->f != a->f)
        return err_fail(&a->f->err, WF_ERR_ARG, "mma: operands are from different fusions");
    return ir_mma(a, b, naxes, axes);
}

wf_tv *wf_matmul(wf_tv *a, wf_tv *b) {
    TV_GATE(a, NULL);
    TV_GATE(b, NULL);
    if (b->f != a->f)
        return err_fail(&a->f->err, WF_ERR_ARG, "matmul: operands are from different fusions");
    return ir_matmul(a, b);
}

wf_tv *wf_sum(wf_tv *a, int naxes, const int *axes) {
    return wf_reduce(WF_ADD, a, naxes, axes);
}

wf_tv *wf_max(wf_tv *a, int naxes, const int *axes) {
    return wf_reduce(WF_MAX, a, naxes, axes);
}

int wf_tv_ndim(const wf_tv *tv) {
    return tv ? tv->loop.n : -1;
}

wf_iterdomain *wf_tv_axis(wf_tv *tv, int axis) {
    TV_GATE(tv, NULL);
    if (!api_axis(tv, &axis, "axis"))
        return NULL;
    return tv->loop.ptr[axis];
}

wf_iterdomain *const *wf_tv_loop_domain(const wf_tv *tv, int *n) {
    if (n)
        *n = tv ? tv->loop.n : 0;
    return tv ? tv->loop.ptr : NULL;
}

wf_iterdomain *const *wf_tv_logical_domain(const wf_tv *tv, int *n) {
    if (n)
        *n = tv ? tv->logical.n : 0;
    return tv ? tv->logical.ptr : NULL;
}

wf_tv *wf_tv_definition_input(const wf_tv *tv, int i) {
    if (!tv || !tv->def || i < 0 || i >= tv->def->nin)
        return NULL;
    return tv->def->in[i];
}

int64_t wf_iterdomain_extent(const wf_iterdomain *id) {
    return id ? ir_id_const_extent(id) : -1;
}

bool wf_iterdomain_is_reduction(const wf_iterdomain *id) {
    return id && id->itype == IT_REDUCTION;
}

bool wf_iterdomain_extent_input(const wf_iterdomain *id, int *input, int *dim) {
    const wf_val *v = id ? id->extent : NULL;
    if (!v || v->kind != V_SYM || v->sym != SYM_SIZE)
        return false;
    const wf_fusion *f = id->tv ? id->tv->f : NULL;
    for (int i = 0; f && i < f->inputs.n; i++)
        if (f->inputs.ptr[i]->id == v->sym_a) {
            if (input)
                *input = i;
            if (dim)
                *dim = v->sym_b;
            return true;
        }
    return false;
}

wf_fusion *wf_tv_fusion(const wf_tv *tv) {
    return tv ? tv->f : NULL;
}

int wf_tv_name(const wf_tv *tv) {
    return tv ? tv->id : -1;
}

wf_tv *wf_fusion_tensor(const wf_fusion *f, int name) {
    return f && name >= 0 && name < f->tvs.n ? f->tvs.ptr[name] : NULL;
}

wf_dtype wf_tv_dtype(const wf_tv *tv) {
    return tv ? tv->dtype : WF_F32;
}

int wf_tv_compute_at(const wf_tv *tv) {
    return tv ? tv->ca_pos : -1;
}
