/*
 * copy.c -- the lowering layer's copy-kind table and the passes that run
 * its hooks (copy.h). The table is generated from ir/ldst.def, so a new
 * kind is one row there plus its hook files; the "unsupported" hooks below
 * stand in for the kinds that are not implemented yet.
 *
 * Tensor memory is reachable only through its copy kinds (StTMem, LdTMem),
 * so their validation applies to every op that touches it, whatever the
 * op's own kind: that is how a computing op reading tensor memory is
 * refused with the tensor-memory rules' message.
 */
#include "lower/copy.h"

#define LDST(kind, name, hooks, wide)                                                              \
    _Static_assert(IR_LDST_ROW_##kind == (int)(kind), "ir/ldst.def rows must follow wf_ldst");
#include "ir/ldst.def"
#undef LDST

static const lower_copy_kind kinds[IR_NLDST] = {
#define LDST(kind, name, hooks, wide)                                                              \
    [kind] = {lower_copy_validate_##hooks, lower_copy_index_##hooks, lower_copy_place_##hooks,     \
              wide},
#include "ir/ldst.def"
#undef LDST
};

const lower_copy_kind *lower_copy_kind_of(wf_ldst k) {
    return &kinds[(unsigned)k < IR_NLDST ? k : WF_LDST_SET];
}

static bool touches(const ir_op *op, wf_memtype m) {
    return op->out->mem == m || (op->nin && op->in[0]->mem == m);
}

bool lower_copy_validate(lower_ctx *c, const ir_op *op) {
    const lower_copy_kind *k = lower_copy_kind_of(op->ldst);
    if (!k->validate(c, op))
        return false;
    if (touches(op, WF_MEM_TENSOR) && k->validate != lower_copy_validate_tmem)
        return lower_copy_validate_tmem(c, op);
    return true;
}

bool lower_copy_index(lower_ctx *c) {
    for (int k = 0; k < c->order.n; k++) {
        kir_node *s = c->stmt_of[k];
        if (!lower_copy_kind_of(s->u.stmt.copy)->index(c, s))
            return false;
    }
    return true;
}

bool lower_copy_place(lower_ctx *c) {
    for (int k = 0; k < c->order.n; k++) {
        kir_node *s = c->stmt_of[k];
        if (!lower_copy_kind_of(s->u.stmt.copy)->place(c, s))
            return false;
    }
    return lower_tma_check_holes(c);
}

/* ---- kinds not implemented yet ---- */

bool lower_copy_validate_unsupported(lower_ctx *c, const ir_op *op) {
    return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                     "T%d is defined by %s, which this build cannot lower yet", op->out->id,
                     ir_ldst_name(op->ldst));
}

/* Never reached: validation refused the kind. */
bool lower_copy_index_unsupported(lower_ctx *c, kir_node *stmt) {
    (void)stmt;
    err_assert(&c->f->err, false);
    return false;
}

bool lower_copy_place_unsupported(lower_ctx *c, kir_node *stmt) {
    (void)stmt;
    err_assert(&c->f->err, false);
    return false;
}
