/*
 * mma.c -- the capability check of axes parallelized WF_MMA (tensor cores).
 *
 * The axes on WF_MMA of a wf_mma's output stand for one tensor-core
 * instruction: its iteration axes the tile's M and N, its reduction axis K.
 * The one instruction this check knows is mma.sync.aligned.m16n8k16 (sm_80
 * and later, f16 or bf16 operands, f32 accumulator). A request no
 * instruction implements is WF_ERR_SCHEDULE; a valid one weft does not
 * implement (f32 / tf32 or f64 operands, a target below sm_80, the lowering
 * of a valid m16n8k16 tile, which is not in this build yet, WF_MMA on
 * another tensor) is WF_ERR_UNSUPPORTED, each naming the tensor, the axis
 * and the shapes that would work.
 */
#include "lower/copy.h"

/* "iS3{16}, rS5{16}": tv's WF_MMA axes, in loop order, into b. */
static void mma_axes(sbuf *b, const wf_tv *tv) {
    bool first = true;
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->ptype == WF_MMA) {
            if (!first)
                sbuf_puts(b, ", ");
            ir_print_id(b, tv->loop.ptr[i]);
            first = false;
        }
}

static bool fail_axis(lower_ctx *c, wf_status st, const wf_tv *tv, int axis, const char *why) {
    sbuf s = {0};
    ir_print_id(&s, tv->loop.ptr[axis]);
    err_failb(&c->f->err, st, "T%d: axis %d (%s) is parallelized on MMA, but %s", tv->id, axis,
              sbuf_str(&s), why);
    sbuf_free(&s);
    return false;
}

/* The tile's shape: M x N from the iteration axes (in loop order), K from the
   reduction axis; false when the axes are not two iteration axes and one
   reduction axis of constant extents. */
static bool tile_shape(const wf_tv *tv, int64_t *mn, int *nmn, int64_t *k, int *nk) {
    bool ok = true;
    *nmn = *nk = 0;
    for (int i = 0; i < tv->loop.n; i++) {
        const wf_iterdomain *id = tv->loop.ptr[i];
        if (id->ptype != WF_MMA)
            continue;
        ok &= val_is_const(id->extent);
        int64_t e = val_is_const(id->extent) ? id->extent->c : -1;
        if (id->itype == IT_REDUCTION)
            *k = e, ++*nk;
        else if (*nmn < 2)
            mn[(*nmn)++] = e;
        else
            ok = false;
    }
    return ok && *nmn == 2 && *nk == 1;
}

bool lower_mma_check(lower_ctx *c, const wf_tv *tv, int axis) {
    static const char *const works =
        "mma.sync.m16n8k16 (sm_80 and later) takes f16 or bf16 operands with an f32 "
        "accumulator";
    char why[512];
    const ir_op *op = tv->def;
    if (!op || !ir_op_is_mma(op)) {
        snprintf(why, sizeof why,
                 "T%d is not a wf_mma result; this build implements WF_MMA only on the axes of a "
                 "wf_mma (operand register tiles laid out as fragments are not supported yet)",
                 tv->id);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    for (int k = 0; k < 2; k++) {
        wf_dtype t = op->in[k]->dtype;
        if (t == WF_F16 || t == WF_BF16)
            continue;
        snprintf(why, sizeof why,
                 "its operand T%d is %s: no tensor-core path for %s operands is implemented; %s",
                 op->in[k]->id, ir_dtype_short(t), ir_dtype_short(t), works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    if (op->in[0]->dtype != op->in[1]->dtype) {
        snprintf(why, sizeof why, "its operands T%d and T%d are %s and %s; %s, both of one type",
                 op->in[0]->id, op->in[1]->id, ir_dtype_short(op->in[0]->dtype),
                 ir_dtype_short(op->in[1]->dtype), works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    int sm = c->out->sm ? c->out->sm : 90;
    if (sm < 80) {
        snprintf(why, sizeof why, "the target is sm_%d; %s", sm, works);
        return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis, why);
    }
    int64_t mn[2] = {-1, -1}, k = -1;
    int nmn, nk;
    bool shaped = tile_shape(tv, mn, &nmn, &k, &nk);
    if (!shaped || !((mn[0] == 16 && mn[1] == 8) || (mn[0] == 8 && mn[1] == 16)) || k != 16) {
        sbuf s = {0};
        mma_axes(&s, tv);
        snprintf(why, sizeof why,
                 "T%d's MMA axes (%s) form no instruction's tile: mma.sync takes m16n8k16, two "
                 "iteration axes of extents 16 (M) and 8 (N) and one reduction axis of extent 16 "
                 "(K)",
                 tv->id, sbuf_str(&s));
        sbuf_free(&s);
        return fail_axis(c, WF_ERR_SCHEDULE, tv, axis, why);
    }
    return fail_axis(c, WF_ERR_UNSUPPORTED, tv, axis,
                     "the lowering of an m16n8k16 tile to mma.sync is not implemented in this "
                     "build yet; run the tile on CUDA cores (parallelize its axes on threads or "
                     "leave them serial)");
}
