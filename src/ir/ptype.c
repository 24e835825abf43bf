/*
 * ptype.c -- the facts of each parallel type (printed name, CUDA index,
 * kind, axis, CUDA's launch limit), read from the one table ir/ptype.def.
 * lower/pdim.c builds the launch's six parallel dimensions from the same
 * rows.
 */
#include "ir/ir.h"

#include <stddef.h>

static const ir_ptype_info rows[IR_NPTYPES] = {
#define PTYPE(p, name, cuda, kind, axis, limit) {p, name, cuda, IR_PT_##kind, axis, limit},
#include "ir/ptype.def"
#undef PTYPE
};

/* Each row sits at its type's position: rows[] is indexed by wf_ptype. */
#define PTYPE(p, ...)                                                                              \
    _Static_assert(IR_PTYPE_ROW_##p == (int)p, "ir/ptype.def: " #p " out of order");
#include "ir/ptype.def"
#undef PTYPE

const ir_ptype_info *ir_ptype(wf_ptype p) {
    static const ir_ptype_info none = {.name = "?", .kind = IR_PT_OTHER, .axis = -1};
    return (unsigned)p < IR_NPTYPES ? &rows[p] : &none;
}

const char *ir_ptype_name(wf_ptype p) {
    return ir_ptype(p)->name;
}

bool ir_id_is_thread(wf_ptype p) {
    return ir_ptype(p)->kind == IR_PT_THREAD;
}

bool ir_id_is_block(wf_ptype p) {
    return ir_ptype(p)->kind == IR_PT_BLOCK || ir_ptype(p)->kind == IR_PT_DEVICE;
}
