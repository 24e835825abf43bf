/*
 * test_ir_tables.c -- the IR's fact tables. The dtype table (ir/dtype.def, read through ir_dtype):
 * its rows follow wf_dtype, every column holds the value the layers used to keep apart (sizes,
 * printed and CUDA names, categories, compute types, ranges), and the CUDA spellings of each type's
 * least and greatest value say the same numbers as its lo and hi columns. Then the reductions'
 * identities (the RED rows of ir/ops.def), which generated CUDA and the executor share, and the
 * parallel-type table (ir/ptype.def), whose thread and block rows are also lowering's launch
 * dimensions (lower_pdim_table).
 */
#include "harness.h"
#include "ir/ir.h"
#include "lower/lower.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

TEST(dtype_table_columns_per_dtype) {
    static const struct {
        wf_dtype t;
        size_t size;
        const char *name, *cuda;
        ir_dtype_cat cat;
        wf_dtype compute;
    } want[] = {
        {WF_F32, 4, "float", "float", IR_DT_FLOAT, WF_F32},
        {WF_F16, 2, "half", "wf_half", IR_DT_FLOAT, WF_F32},
        {WF_BF16, 2, "bfloat", "wf_bfloat", IR_DT_FLOAT, WF_F32},
        {WF_F64, 8, "double", "double", IR_DT_FLOAT, WF_F64},
        {WF_I8, 1, "int8", "char", IR_DT_INT, WF_I8},
        {WF_I16, 2, "int16", "short", IR_DT_INT, WF_I16},
        {WF_I32, 4, "int32", "int", IR_DT_INT, WF_I32},
        {WF_I64, 8, "int64", "long long", IR_DT_INT, WF_I64},
        {WF_U8, 1, "uint8", "unsigned char", IR_DT_UINT, WF_U8},
        {WF_BOOL, 1, "bool", "bool", IR_DT_BOOL, WF_BOOL},
    };
    CHECK_EQ_I64(IR_NDTYPES, 10);
    for (int i = 0; i < IR_NDTYPES; i++) {
        const ir_dtype_info *d = ir_dtype(want[i].t);
        CHECK_EQ_I64(d->t, want[i].t);
        CHECK_EQ_I64(wf_dtype_size(want[i].t), want[i].size);
        CHECK_STR(ir_dtype_short(want[i].t), want[i].name);
        CHECK_STR(d->cuda, want[i].cuda);
        CHECK_EQ_I64(d->cat, want[i].cat);
        CHECK_EQ_I64(d->compute, want[i].compute);
        CHECK_EQ_I64(ir_dtype_is_float(want[i].t), want[i].cat == IR_DT_FLOAT);
    }
}

TEST(dtype_table_no_dtype_is_named_and_sized_as_none) {
    CHECK_EQ_I64(wf_dtype_size((wf_dtype)IR_NDTYPES), 0);
    CHECK_EQ_I64(wf_dtype_size((wf_dtype)-1), 0);
    CHECK_STR(ir_dtype_short((wf_dtype)IR_NDTYPES), "?");
    CHECK_STR(ir_dtype((wf_dtype)99)->cuda, "?");
}

TEST(dtype_table_integer_ranges) {
    static const struct {
        wf_dtype t;
        int64_t lo, hi;
    } want[] = {
        {WF_I8, -128, 127},
        {WF_I16, -32768, 32767},
        {WF_I32, -2147483647 - 1, 2147483647},
        {WF_I64, INT64_MIN, INT64_MAX},
        {WF_U8, 0, 255},
        {WF_BOOL, 0, 1},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        CHECK_EQ_I64(ir_dtype(want[i].t)->lo, want[i].lo);
        CHECK_EQ_I64(ir_dtype(want[i].t)->hi, want[i].hi);
    }
}

/* The value a CUDA spelling of an integer limit says: "(char)-128", "(-2147483647 - 1)",
   "9223372036854775807ll", "true". */
static int64_t spelled(const char *s) {
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return s[0] == 't';
    const char *p = s[0] == '(' && s[1] != '-' ? strchr(s, ')') + 1 : s + (s[0] == '(');
    char *end;
    long long v = strtoll(p, &end, 10);
    while (*end == 'l')
        end++;
    if (strncmp(end, " - 1", 4) == 0)
        v -= 1;
    return v;
}

TEST(dtype_table_cuda_limits_spell_the_range) {
    for (int t = 0; t < IR_NDTYPES; t++) {
        const ir_dtype_info *d = ir_dtype((wf_dtype)t);
        if (d->cat == IR_DT_FLOAT) {
            bool dbl = d->compute == WF_F64;
            CHECK_STR(d->cuda_lo, dbl ? "__longlong_as_double(0xfff0000000000000ull)"
                                      : "__int_as_float(0xff800000)");
            CHECK_STR(d->cuda_hi, dbl ? "__longlong_as_double(0x7ff0000000000000ull)"
                                      : "__int_as_float(0x7f800000)");
            continue;
        }
        CHECK_EQ_I64(spelled(d->cuda_lo), d->lo);
        CHECK_EQ_I64(spelled(d->cuda_hi), d->hi);
    }
}

TEST(reduce_identity_per_op_and_dtype) {
    static const wf_binary_op ops[4] = {WF_ADD, WF_MUL, WF_MAX, WF_MIN};
    static const ir_reduce_init kinds[4] = {IR_INIT_ZERO, IR_INIT_ONE, IR_INIT_LOWEST,
                                            IR_INIT_HIGHEST};
    static const int64_t lo[IR_NDTYPES] = {
        [WF_I8] = -128,       [WF_I16] = -32768, [WF_I32] = INT32_MIN,
        [WF_I64] = INT64_MIN, [WF_U8] = 0,       [WF_BOOL] = 0};
    static const int64_t hi[IR_NDTYPES] = {
        [WF_I8] = 127,        [WF_I16] = 32767, [WF_I32] = INT32_MAX,
        [WF_I64] = INT64_MAX, [WF_U8] = 255,    [WF_BOOL] = 1};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_I64(ir_reduce_init_kind(ops[i]), kinds[i]);
        for (int t = 0; t < IR_NDTYPES; t++) {
            ir_scalar v = ir_reduce_init_value(ops[i], (wf_dtype)t);
            CHECK_EQ_I64(v.dtype, t);
            bool flt = t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64;
            if (i < 2)
                CHECK(flt ? v.f == i : v.i == i);
            else if (flt)
                CHECK(isinf(v.f) && (v.f < 0) == (i == 2));
            else
                CHECK_EQ_I64(v.i, i == 2 ? lo[t] : hi[t]);
        }
    }
}

/* The init statement of a max and a min reduction in generated CUDA. */
TEST(reduce_identity_spelled_in_generated_cuda) {
    static const struct {
        wf_dtype t;
        const char *max, *min;
    } want[] = {
        {WF_F16, "__int_as_float(0xff800000)", "__int_as_float(0x7f800000)"},
        {WF_F64, "__longlong_as_double(0xfff0000000000000ull)",
         "__longlong_as_double(0x7ff0000000000000ull)"},
        {WF_I8, "(char)-128", "(char)127"},
        {WF_I32, "(-2147483647 - 1)", "2147483647"},
        {WF_I64, "(-9223372036854775807ll - 1)", "9223372036854775807ll"},
        {WF_U8, "(unsigned char)0", "(unsigned char)255"},
        {WF_BOOL, "false", "true"},
    };
    int64_t shape[2] = {3, 5};
    int ax = 1;
    char line[128];
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        for (int m = 0; m < 2; m++) {
            wf_fusion *f = wf_fusion_new();
            wf_tv *a = wf_input(f, want[i].t, 2, shape);
            wf_output(f, wf_reduce(m ? WF_MIN : WF_MAX, a, 1, &ax));
            wf_kernel *k = COMPILE(f);
            snprintf(line, sizeof line, "  wf_acc1 = %s;\n", m ? want[i].min : want[i].max);
            CHECK(k && strstr(wf_kernel_source(k), line));
            wf_kernel_free(k);
            wf_fusion_free(f);
        }
}

TEST(ptype_table_columns_per_parallel_type) {
    static const struct {
        const char *name, *cuda;
        ir_ptype_kind kind;
        int axis;
        int64_t limit;
    } want[] = {
        {"Serial", NULL, IR_PT_SERIAL, -1, 0},
        {"BIDx", "blockIdx.x", IR_PT_BLOCK, 0, 2147483647},
        {"BIDy", "blockIdx.y", IR_PT_BLOCK, 1, 65535},
        {"BIDz", "blockIdx.z", IR_PT_BLOCK, 2, 65535},
        {"TIDx", "threadIdx.x", IR_PT_THREAD, 0, 1024},
        {"TIDy", "threadIdx.y", IR_PT_THREAD, 1, 1024},
        {"TIDz", "threadIdx.z", IR_PT_THREAD, 2, 64},
        {"DIDx", NULL, IR_PT_DEVICE, 0, 0},
        {"DIDy", NULL, IR_PT_DEVICE, 1, 0},
        {"DIDz", NULL, IR_PT_DEVICE, 2, 0},
        {"UR", NULL, IR_PT_OTHER, -1, 0},
        {"V", NULL, IR_PT_OTHER, -1, 0},
        {"Bulk", NULL, IR_PT_OTHER, -1, 0},
        {"MMA", NULL, IR_PT_OTHER, -1, 0},
    };
    CHECK_EQ_I64(IR_NPTYPES, WF_MMA + 1);
    for (int p = 0; p < IR_NPTYPES; p++) {
        const ir_ptype_info *r = ir_ptype((wf_ptype)p);
        CHECK_EQ_I64(r->p, p);
        CHECK_STR(ir_ptype_name((wf_ptype)p), want[p].name);
        CHECK(want[p].cuda ? r->cuda && strcmp(r->cuda, want[p].cuda) == 0 : !r->cuda);
        CHECK_EQ_I64(r->kind, want[p].kind);
        CHECK_EQ_I64(r->axis, want[p].axis);
        CHECK_EQ_I64(r->limit, want[p].limit);
        CHECK_EQ_I64(ir_id_is_thread((wf_ptype)p), want[p].kind == IR_PT_THREAD);
        CHECK_EQ_I64(ir_id_is_block((wf_ptype)p),
                     want[p].kind == IR_PT_BLOCK || want[p].kind == IR_PT_DEVICE);
    }
    CHECK_STR(ir_ptype_name((wf_ptype)IR_NPTYPES), "?");
}

/* Lowering's six launch dimensions: the thread rows, then the block rows. */
TEST(ptype_table_gives_the_launch_dimensions_in_launch_order) {
    static const wf_ptype order[LOWER_NPDIMS] = {WF_TIDX, WF_TIDY, WF_TIDZ,
                                                 WF_BIDX, WF_BIDY, WF_BIDZ};
    for (int d = 0; d < LOWER_NPDIMS; d++) {
        const lower_pdim *pd = &lower_pdim_table[d];
        const ir_ptype_info *r = ir_ptype(order[d]);
        CHECK_EQ_I64(pd->ptype, order[d]);
        CHECK_EQ_I64(lower_pdim_index(order[d]), d);
        CHECK_STR(pd->name, r->name);
        CHECK_STR(pd->cuda, r->cuda);
        CHECK_EQ_I64(pd->grid, d >= 3);
        CHECK_EQ_I64(pd->axis, d % 3);
        CHECK_EQ_I64(pd->limit, r->limit);
    }
    CHECK_EQ_I64(lower_pdim_index(WF_DIDX), -1);
    CHECK_EQ_I64(lower_pdim_index(WF_SERIAL), -1);
}
