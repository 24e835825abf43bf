/*
 * scalar.c -- public entry points of scalar constants (wf_full, wf_full_int) and
 * wf_where, and the refusal of a scalar where a tensor is needed (TV_GATE).
 * A scalar is a wf_tv handle (so that every elementwise op takes tensors and
 * scalars alike) that only the elementwise ops accept (ir/scalar.c).
 */
#include "api/api.h"

static bool dtype_ok(wf_fusion *f, wf_dtype t) {
    if ((unsigned)t < IR_NDTYPES)
        return true;
    return err_failb(&f->err, WF_ERR_ARG, "unknown dtype %d", (int)t);
}

wf_tv *wf_full(wf_fusion *f, wf_dtype t, double value) {
    WF_GATE(f, NULL);
    return dtype_ok(f, t) ? ir_full(f, t, value, 0, false) : NULL;
}

wf_tv *wf_full_int(wf_fusion *f, wf_dtype t, int64_t value) {
    WF_GATE(f, NULL);
    return dtype_ok(f, t) ? ir_full(f, t, 0, value, true) : NULL;
}

wf_tv *wf_where(wf_tv *cond, wf_tv *a, wf_tv *b) {
    OPERAND_GATE(cond, NULL);
    if (!a || !b || a->f != cond->f || b->f != cond->f)
        return err_fail(&cond->f->err, WF_ERR_ARG,
                        "wf_where: an operand is NULL or from another fusion");
    return ir_where(cond, a, b);
}

bool api_scalar_refused(wf_tv *tv) {
    sbuf b = {0};
    ir_print_scalar(&b, tv->scalar);
    err_failb(&tv->f->err, WF_ERR_ARG,
              "the scalar constant %s (wf_full) is only an operand of wf_binary, the comparisons "
              "and wf_where: it has no dims to schedule or store; use a tensor here",
              sbuf_str(&b));
    sbuf_free(&b);
    return false;
}
