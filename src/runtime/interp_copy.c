/*
 * interp_copy.c -- the executor's copy-kind table (rows: ir/ldst.def): each
 * statement runs through its kind's execute hook. The plain copy and every
 * computing op are ix_stmt (interp_stmt.c); kinds not implemented yet are
 * refused by validation and never reach the executor.
 */
#include "runtime/interp_hw.h"

typedef bool (*ix_execute_fn)(ix_exec *x, const in_node *n);

static const ix_execute_fn executors[IR_NLDST] = {
#define LDST(kind, name, hooks, wide) [kind] = ix_copy_execute_##hooks,
#include "ir/ldst.def"
#undef LDST
};

bool ix_copy_execute(ix_exec *x, const in_node *n) {
    if ((unsigned)n->copy >= IR_NLDST)
        return ix_fail(x, WF_ERR_SCHEDULE, "unknown copy kind %d in statement: %s", (int)n->copy,
                       n->text);
    return executors[n->copy](x, n);
}

bool ix_copy_execute_set(ix_exec *x, const in_node *n) {
    return ix_stmt(x, n);
}

bool ix_copy_execute_unsupported(ix_exec *x, const in_node *n) {
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "the CPU reference executor cannot run %s copies yet, in statement: %s",
                   ir_ldst_name(n->copy), n->text);
}
