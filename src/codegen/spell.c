/*
 * spell.c -- how CUDA C++ spells weft's IR: the C type of each dtype and
 * index expressions with CUDA's integer widths.
 *
 * The IR names things its own way (ir_dtype_short: "half"; the printer's
 * iS3{4}); only this layer knows what NVRTC accepts. Thread and block
 * indices are 32-bit unsigned in CUDA, and small constants are int: an
 * operation on two such operands is done in 32 bits. An index expression
 * that could leave [0, 2^31) in such an operation gets its thread and block
 * indices widened to wf_index (64 bits); one whose every part provably stays
 * in range is printed as is, which keeps the common kernel readable.
 */
#include "codegen/codegen_int.h"

const char *cg_dtype_name(wf_dtype t) {
    return ir_dtype(t)->cuda;
}

const char *cg_compute_name(wf_dtype t) {
    return ir_dtype(ir_dtype(t)->compute)->cuda;
}

static bool is_index_sym(const wf_val *v) {
    return v->kind == V_SYM && (v->sym == SYM_TID || v->sym == SYM_BID);
}

/* Evaluated in 32 bits by C: thread/block indices and int-sized constants. */
static bool narrow(const wf_val *v) {
    if (v->kind == V_CONST)
        return v->c >= INT32_MIN && v->c <= INT32_MAX;
    if (v->kind == V_SYM)
        return is_index_sym(v);
    return narrow(v->a) && narrow(v->b);
}

/* Is 32-bit evaluation exact wherever C uses it: every 32-bit operation's
   result provably within [0, 2^31)? Then no widening casts are needed. */
static bool fits_int32(const wf_val *v) {
    int64_t lo, hi;
    if (v->kind == V_CONST || v->kind == V_SYM)
        return true;
    if (narrow(v)) {
        val_range(v, &lo, &hi);
        if (lo < 0 || hi > INT32_MAX)
            return false;
    }
    return fits_int32(v->a) && fits_int32(v->b);
}

static void print_widened(sbuf *b, const wf_val *sym) {
    sbuf_printf(b, is_index_sym(sym) ? "(wf_index)%s" : "%s", sym->name);
}

void cg_print_val(sbuf *b, const wf_val *v) {
    val_print_with(b, v, fits_int32(v) ? NULL : print_widened);
}
