/*
 * interp_copy.c -- the executor's copy-kind table (rows: ir/ldst.def): each
 * statement runs through its kind's execute hook, and its kind's build hook
 * compiles the payload the kind's lowering left in kir_stmt.hw. The plain copy and every
 * computing op are ix_stmt (interp_stmt.c); kinds not implemented yet are
 * refused by validation and never reach the executor.
 */
#include "runtime/interp_hw.h"

typedef bool (*ix_execute_fn)(ix_exec *x, const in_node *n);

typedef void (*ix_build_fn)(ix_builder *b, in_node *n, const kir_stmt *s);

static const ix_execute_fn executors[IR_NLDST] = {
#define LDST(kind, name, hooks, wide) [kind] = ix_copy_execute_##hooks,
#include "ir/ldst.def"
#undef LDST
};

static const ix_build_fn builders[IR_NLDST] = {
#define LDST(kind, name, hooks, wide) [kind] = ix_copy_build_##hooks,
#include "ir/ldst.def"
#undef LDST
};

void ix_copy_build(ix_builder *b, in_node *n, const kir_stmt *s) {
    if ((unsigned)s->copy < IR_NLDST)
        builders[s->copy](b, n, s);
}

bool ix_copy_execute(ix_exec *x, const in_node *n) {
    if ((unsigned)n->copy >= IR_NLDST)
        return ix_fail(x, WF_ERR_SCHEDULE, "unknown copy kind %d in statement: %s", (int)n->copy,
                       n->text);
    return executors[n->copy](x, n);
}
