/*
 * copy.c -- a copy of a fusion's definition (inputs, ops, outputs), without
 * its schedule: what wf_auto_kernel schedules per input signature, so that
 * the caller's fusion never changes. Ops are replayed through the same
 * constructors the public calls use.
 */
#include "api/api.h"

#include <stdlib.h>

/* Rank position (ir_tv_dim's inverse) of logical position p of tv. */
static int rank_pos(const wf_tv *tv, int p) {
    for (int d = 0; d < ir_tv_rank(tv); d++)
        if (ir_tv_dim(tv, d) == p)
            return d;
    return -1;
}

static wf_tv *scalar_copy(wf_fusion *g, const ir_scalar *s) {
    bool is_int = !ir_dtype_is_float(s->dtype);
    return ir_full(g, s->dtype, s->f, s->i, is_int);
}

/* The operands of op (tensors mapped, scalars recreated) into args. */
static bool operands(wf_fusion *g, const ir_op *op, wf_tv **map, wf_tv **args, int *nargs) {
    int n = op->nargs > 0 ? op->nargs : op->nin;
    for (int k = 0; k < n; k++) {
        const ir_scalar *sc = NULL;
        int t = ir_op_operand(op, k, &sc);
        if (t >= 0)
            args[k] = map[op->in[t]->id];
        else
            args[k] = scalar_copy(g, op->sc_given[k] ? op->sc_given[k] : sc);
        if (!args[k])
            return false;
    }
    *nargs = n;
    return true;
}

static wf_tv *replay(wf_fusion *g, const ir_op *op, wf_tv **map) {
    wf_tv *a = op->nin > 0 ? map[op->in[0]->id] : NULL, *args[IR_MAX_OP_INPUTS];
    const wf_tv *out = op->out;
    int n = 0, axes[WF_MAX_RANK], na = 0;
    switch (op->kind) {
    case OP_SET:
        return ir_set(a);
    case OP_CAST:
        return ir_cast(a, out->dtype);
    case OP_UNARY:
        return ir_unary(op->sub, a);
    case OP_BINARY:
        return operands(g, op, map, args, &n) ? ir_binary(op->sub, args[0], args[1]) : NULL;
    case OP_WHERE:
        return operands(g, op, map, args, &n) ? ir_where(args[0], args[1], args[2]) : NULL;
    case OP_BROADCAST: {
        bool bc[WF_MAX_RANK];
        int64_t ext[WF_MAX_RANK];
        bool expand = false;
        int r = out->logical.n;
        if (r > WF_MAX_RANK)
            return NULL;
        for (int d = 0; d < r; d++) {
            const wf_iterdomain *id = out->logical.ptr[d];
            bc[d] = op->in_dim[0][d] < 0;
            ext[d] = 1;
            if (bc[d] && id->itype != IT_BROADCAST) {
                /* ir_expand (the only maker of an expand) gives constant extents */
                err_assert(&g->err, val_is_const(id->extent));
                if (!val_is_const(id->extent))
                    return NULL;
                ext[d] = id->extent->c;
                expand = true;
            }
        }
        return expand ? ir_expand(a, r, bc, ext) : ir_broadcast(a, r, bc);
    }
    case OP_PERMUTE: {
        int new2old[WF_MAX_RANK];
        for (int d = 0; d < out->logical.n && d < WF_MAX_RANK; d++)
            new2old[d] = rank_pos(op->in[0], op->in_dim[0][d]);
        return ir_permute(a, new2old);
    }
    case OP_REDUCE:
        for (int d = 0; d < out->logical.n && na < WF_MAX_RANK; d++)
            if (out->logical.ptr[d]->itype == IT_REDUCTION)
                axes[na++] = d;
        if (op->nin == 2) /* wf_mma: a multiply-sum of both operands */
            return ir_mma(a, map[op->in[1]->id], na, axes);
        return ir_reduce(op->sub, a, na, axes);
    default: /* every kind of ops.def has a case above */
        err_assert(&g->err, false);
        return NULL;
    }
}

wf_fusion *api_fusion_copy(wf_fusion *f, const int64_t *concrete) {
    wf_fusion *g = ir_fusion_new();
    wf_tv **map = g ? calloc((size_t)f->tvs.n + 1, sizeof *map) : NULL;
    bool ok = map != NULL;
    int k = 0;
    for (int i = 0; ok && i < f->inputs.n; i++) {
        wf_tv *in = f->inputs.ptr[i];
        int64_t shape[WF_MAX_RANK];
        for (int d = 0; d < in->logical.n; d++, k++) {
            shape[d] =
                val_is_const(in->logical.ptr[d]->extent) ? in->logical.ptr[d]->extent->c : -1;
            if (concrete && concrete[k] > 0)
                shape[d] = concrete[k];
        }
        ok = (map[in->id] = ir_input(g, in->dtype, in->logical.n, shape, in->contig)) != NULL;
    }
    /* Ops in dependency order (caching may have appended ops out of order). */
    for (bool progress = true; ok && progress;) {
        progress = false;
        for (int i = 0; ok && i < f->ops.n; i++) {
            ir_op *op = f->ops.ptr[i];
            if (map[op->out->id])
                continue;
            bool ready = true;
            for (int j = 0; j < op->nin; j++)
                ready = ready && map[op->in[j]->id];
            if (!ready)
                continue;
            ok = (map[op->out->id] = replay(g, op, map)) != NULL;
            progress = true;
        }
    }
    for (int i = 0; ok && i < f->outputs.n; i++) {
        wf_tv *o = map[f->outputs.ptr[i]->id];
        ok = o != NULL;
        if (ok) {
            o->is_output = true;
            o->mem = WF_MEM_GLOBAL;
            ok = vec_push_arena(&g->arena, &g->outputs, o);
        }
    }
    free(map);
    if (!ok || !g || err_set(&g->err) || g->arena.failed) {
        ir_fusion_free(g);
        return NULL;
    }
    return g;
}
