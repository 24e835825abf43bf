/*
 * interp_copy_set.c -- the executor's hooks of the plain copy (Set) and of
 * the kinds not implemented yet (refused by validation; the execute hook
 * says so should one arrive). Tensor memory's build hook shares set's.
 */
#include "runtime/interp_hw.h"

/* The plain copy, the kinds not implemented yet and tensor memory carry no payload. */
void ix_copy_build_set(ix_builder *b, in_node *n, const kir_stmt *s) {
    (void)b;
    (void)n;
    (void)s;
}

void ix_copy_build_unsupported(ix_builder *b, in_node *n, const kir_stmt *s) {
    ix_copy_build_set(b, n, s);
}

bool ix_copy_execute_set(ix_exec *x, const in_node *n) {
    return ix_stmt(x, n);
}

bool ix_copy_execute_unsupported(ix_exec *x, const in_node *n) {
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "the CPU reference executor cannot run %s copies yet, in statement: %s",
                   ir_ldst_name(n->copy), n->text);
}
