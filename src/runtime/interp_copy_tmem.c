/*
 * interp_copy_tmem.c -- the tensor-memory copy kinds in the executor (seed
 * 000). Tensor memory is modelled as block memory with the shared-memory
 * race and never-written checks, plus the sub-partition rule (warp w reaches
 * lanes 32 * (w % 4) .. + 31), all in the memory model (interp_stmt.c's
 * access()); a tcgen05.ld/st then moves its cells like an element copy.
 */
#include "runtime/interp_hw.h"

bool ix_copy_execute_tmem(ix_exec *x, const in_node *n) {
    return ix_stmt(x, n);
}

void ix_copy_build_tmem(ix_builder *b, in_node *n, const kir_stmt *s) {
    ix_copy_build_set(b, n, s);
}
