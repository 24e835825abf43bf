/*
 * dtype.c -- the facts of each dtype (size, names, category, compute type,
 * range), read from the one table ir/dtype.def. Every layer asks here;
 * what a layer does differently per dtype (the executor's loads and stores,
 * codegen's literals) stays in that layer, keyed by these facts.
 */
#include "ir/ir.h"

#include <stdint.h>

// clang-format off
#define DTYPE(t, name, cuda, size, cat, compute, lo, hi, cuda_lo, cuda_hi) \
    {t, name, cuda, size, cat, compute, lo, hi, cuda_lo, cuda_hi},
static const ir_dtype_info rows[IR_NDTYPES] = {
#include "ir/dtype.def"
};
#undef DTYPE
// clang-format on

/* Each row sits at its dtype's position: rows[] is indexed by wf_dtype. */
#define DTYPE(t, ...)                                                                              \
    _Static_assert(IR_DTYPE_ROW_##t == (int)t, "ir/dtype.def: " #t " out of order");
#include "ir/dtype.def"
#undef DTYPE

const ir_dtype_info *ir_dtype(wf_dtype t) {
    static const ir_dtype_info none = {.name = "?", .cuda = "?", .cuda_lo = "?", .cuda_hi = "?"};
    return (unsigned)t < IR_NDTYPES ? &rows[t] : &none;
}

const char *ir_dtype_short(wf_dtype t) {
    return ir_dtype(t)->name;
}

size_t wf_dtype_size(wf_dtype t) {
    return ir_dtype(t)->size;
}
