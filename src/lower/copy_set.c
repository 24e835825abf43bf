/*
 * copy_set.c -- the plain copy (and every non-copy op): ordinary loads and
 * stores, vectorized up to 16 bytes (index.c checks the widths). Nothing to
 * refuse, nothing to add: its hooks are the identity.
 */
#include "lower/copy.h"

bool lower_copy_validate_set(lower_ctx *c, const ir_op *op) {
    (void)c;
    (void)op;
    return true;
}

bool lower_copy_index_set(lower_ctx *c, kir_node *stmt) {
    (void)c;
    (void)stmt;
    return true;
}

bool lower_copy_place_set(lower_ctx *c, kir_node *stmt) {
    (void)c;
    (void)stmt;
    return true;
}
