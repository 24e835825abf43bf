/*
 * names.c -- the printed names of the IR's enums: op kinds, unary and binary
 * ops (from ir/ops.def), memory types and copy kinds (from ir/ldst.def).
 * Dtypes and parallel types are named by their tables (dtype.c, ptype.c).
 *
 * Kept apart from the files that build the IR so that every printer and
 * message can name things without depending on them: this file calls
 * nothing, and the IR's files form no call cycle (make check-cycles).
 */
#include "ir/ir.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

const char *ir_op_name(op_kind k) {
    static const char *const names[] = {
#define OP(name, sym, nin) sym,
#include "ir/ops.def"
    };
    return (unsigned)k < COUNT(names) ? names[k] : "?";
}

const char *ir_unary_name(int op) {
    static const char *const names[] = {
#define UOP(name, sym, float_only) sym,
#include "ir/ops.def"
    };
    return (unsigned)op < COUNT(names) ? names[op] : "?";
}

const char *ir_binary_name(int op) {
    static const char *const names[] = {
#define BOP(name, sym) sym,
#include "ir/ops.def"
    };
    return (unsigned)op < COUNT(names) ? names[op] : "?";
}

const char *ir_memtype_name(wf_memtype m) {
    static const char *const names[] = {"global", "local", "shared", "tensor"};
    return (unsigned)m < COUNT(names) ? names[m] : "?";
}

const char *ir_ldst_name(wf_ldst l) {
    static const char *const names[] = {
#define LDST(kind, name, hooks, wide) name,
#include "ir/ldst.def"
#undef LDST
    };
    return (unsigned)l < COUNT(names) ? names[l] : "?";
}
