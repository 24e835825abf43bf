/*
 * test_ops_types.c -- op output types and the semantics the executor shares
 * with the generated CUDA: PyTorch's type promotion for binary ops and
 * float-only unary ops (ir/ops.c), kernels NVRTC used to reject (pow in any
 * dtype, exp of an integer, 0-D tensors), and the executor's integer and
 * conversion edge cases (runtime/interp_ops.c, val_apply in ir/ir.h).
 */
#include "harness.h"
#include "ir/ir.h"

#include <math.h>

/* Run a 1-D kernel of n elements on the executor; out gets the output. */
static wf_status run1(wf_kernel *k, wf_dtype ta, void *a, wf_dtype tb, void *b, wf_dtype to,
                      void *out, int64_t n) {
    wf_buffer in[2] = {{a, ta, 1, {n}, {0}, -1}, {b, tb, 1, {n}, {0}, -1}};
    wf_buffer o[1] = {{out, to, 1, {n}, {0}, -1}};
    return wf_run(k, WF_BACKEND_INTERP, in, b ? 2 : 1, o, 1);
}

TEST(ops_mixed_mul_promotes_to_f32_either_operand_order) {
    int64_t shape[1] = {1};
    for (int order = 0; order < 2; order++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *i = wf_input(f, WF_I32, 1, shape), *x = wf_input(f, WF_F32, 1, shape);
        wf_tv *m = order ? wf_mul(x, i) : wf_mul(i, x);
        wf_output(f, m);
        CHECK_EQ_I64(m->dtype, WF_F32);
        wf_kernel *k = COMPILE(f);
        CHECK_NVRTC(k, 90);
        int32_t three = 3;
        float half = 0.5f, out = -1;
        wf_buffer in[2] = {{&three, WF_I32, 1, {1}, {0}, -1}, {&half, WF_F32, 1, {1}, {0}, -1}};
        wf_buffer o[1] = {{&out, WF_F32, 1, {1}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_OK);
        CHECK(out == 1.5f);
        CHECK_HAS(wf_kernel_source(k),
                  order ? "T2[0] = T1[0] * (float)T0[0];" : "T2[0] = (float)T0[0] * T1[0];");
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* torch.result_type(torch.empty(1, dtype=a), torch.empty(1, dtype=b)), by hand. */
TEST(ops_binary_result_type_is_torch_result_type_for_every_pair) {
    /* rows and columns in wf_dtype order: f32 f16 bf16 f64 i8 i16 i32 i64 u8 bool */
    static const char table[10][10][5] = {
        {"f32", "f32", "f32", "f64", "f32", "f32", "f32", "f32", "f32", "f32"},
        {"f32", "f16", "f32", "f64", "f16", "f16", "f16", "f16", "f16", "f16"},
        {"f32", "f32", "bf16", "f64", "bf16", "bf16", "bf16", "bf16", "bf16", "bf16"},
        {"f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "f64"},
        {"f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "i16", "i8"},
        {"f32", "f16", "bf16", "f64", "i16", "i16", "i32", "i64", "i16", "i16"},
        {"f32", "f16", "bf16", "f64", "i32", "i32", "i32", "i64", "i32", "i32"},
        {"f32", "f16", "bf16", "f64", "i64", "i64", "i64", "i64", "i64", "i64"},
        {"f32", "f16", "bf16", "f64", "i16", "i16", "i32", "i64", "u8", "u8"},
        {"f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "bool"},
    };
    static const char *const names[10] = {"f32", "f16", "bf16", "f64", "i8",
                                          "i16", "i32", "i64",  "u8",  "bool"};
    int64_t shape[1] = {4};
    wf_fusion *f = wf_fusion_new();
    for (int a = 0; a < 10; a++)
        for (int b = 0; b < 10; b++) {
            wf_tv *x = wf_input(f, (wf_dtype)a, 1, shape), *y = wf_input(f, (wf_dtype)b, 1, shape);
            for (int op = WF_ADD; op <= WF_POW; op++) {
                wf_tv *z = wf_binary((wf_binary_op)op, x, y);
                if (!z || strcmp(names[z->dtype], table[a][b]) != 0) {
                    printf("  %s(%s, %s) is %s, not %s\n", ir_binary_name(op), names[a], names[b],
                           z ? names[z->dtype] : "NULL", table[a][b]);
                    TS->failed = true;
                }
            }
        }
    wf_fusion_free(f);
}

TEST(ops_float_only_unary_ops_on_integers_and_bools_give_f32) {
    static const bool float_only[12] = {0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1};
    int64_t shape[1] = {4};
    wf_fusion *f = wf_fusion_new();
    for (int t = 0; t < 10; t++) {
        wf_tv *x = wf_input(f, (wf_dtype)t, 1, shape);
        bool flt = t <= WF_F64;
        for (int op = 0; op < 12; op++) {
            wf_tv *y = wf_unary((wf_unary_op)op, x);
            wf_dtype want = float_only[op] && !flt ? WF_F32 : (wf_dtype)t;
            if (!y || y->dtype != want) {
                printf("  %s of dtype %d gives %d, not %d\n", ir_unary_name(op), t,
                       y ? (int)y->dtype : -1, (int)want);
                TS->failed = true;
            }
        }
    }
    wf_fusion_free(f);
}

/* exp of an i32 tensor used to print wf_exp(int), which NVRTC rejected as
   ambiguous; now the operand converts to float first. */
TEST(ops_exp_of_i32_is_f32_and_nvrtc_compiles_it) {
    int64_t shape[1] = {3};
    wf_fusion *f = wf_fusion_new();
    wf_tv *y = wf_unary(WF_EXP, wf_input(f, WF_I32, 1, shape));
    wf_output(f, y);
    wf_kernel *k = COMPILE(f);
    CHECK_NVRTC(k, 90);
    CHECK_HAS(wf_kernel_source(k), "= wf_exp((float)T0[");
    int32_t a[3] = {0, 1, -2};
    float out[3];
    CHECK_EQ_I64(run1(k, WF_I32, a, WF_I32, NULL, WF_F32, out, 3), WF_OK);
    CHECK(out[0] == 1.0f && out[1] == (float)exp(1.0) && out[2] == (float)exp(-2.0));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* pow printed wf_pow<float>(...) against a non-template helper: no dtype compiled. */
TEST(ops_pow_compiles_with_nvrtc_in_every_dtype) {
    int64_t shape[1] = {8};
    for (int t = 0; t < 10; t++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *x = wf_input(f, (wf_dtype)t, 1, shape);
        wf_output(f, wf_binary(WF_POW, x, x));
        wf_kernel *k = COMPILE(f);
        CHECK_NVRTC(k, 90);
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* A 0-D tensor was printed as Tensor<float, 0>, whose zero-length arrays NVRTC rejects. */
TEST(ops_zero_dim_tensors_compile_with_nvrtc_and_run) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 0, NULL);
    wf_tv *y = wf_unary(WF_NEG, x);
    wf_output(f, y);
    wf_kernel *k = COMPILE(f);
    CHECK_NVRTC(k, 90);
    CHECK_HAS(wf_kernel_source(k), "Tensor<float, 0> T0, Tensor<float, 0> T1");
    float a = 2.5f, out = 0;
    wf_buffer in[1] = {{&a, WF_F32, 0, {0}, {0}, -1}};
    wf_buffer o[1] = {{&out, WF_F32, 0, {0}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, o, 1), WF_OK);
    CHECK(out == -2.5f);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* One-op kernel on n elements: out = op(a, b) (b NULL: unary or cast). */
static wf_kernel *one_op(wf_fusion *f, int kind, int op, wf_dtype ta, wf_dtype tb, int64_t n) {
    int64_t shape[1] = {n};
    wf_tv *a = wf_input(f, ta, 1, shape);
    wf_tv *y = kind == 0   ? wf_cast(a, (wf_dtype)op)
               : kind == 1 ? wf_unary((wf_unary_op)op, a)
                           : wf_binary((wf_binary_op)op, a, wf_input(f, tb, 1, shape));
    wf_output(f, y);
    wf_tv_parallelize(y, 0, WF_TIDX);
    return wf_compile(f, NULL);
}

/* The GPU's float -> integer conversion (cvt.rzi.sat) saturates at every
   width and sends NaN to 0; float -> bool is x != 0. The executor used C's
   (int64_t) cast, undefined out of range. */
TEST(ops_executor_float_to_int_casts_saturate_like_cvt_rzi_sat) {
    float v[6] = {NAN, 1e10f, -1e10f, 300.7f, -300.7f, -0.9f};
    static const int64_t want[4][6] = {{0, 127, -128, 127, -128, 0},
                                       {0, 2147483647, -2147483647 - 1, 300, -300, 0},
                                       {0, 10000000000, -10000000000, 300, -300, 0},
                                       {0, 255, 0, 255, 0, 0}};
    wf_dtype to[4] = {WF_I8, WF_I32, WF_I64, WF_U8};
    for (int c = 0; c < 4; c++) {
        wf_fusion *f = wf_fusion_new();
        wf_kernel *k = one_op(f, 0, to[c], WF_F32, WF_F32, 6);
        CHECK_NVRTC(k, 90);
        CHECK_HAS(wf_kernel_source(k), "wf_f2i<");
        int64_t out[6] = {0};
        CHECK_EQ_I64(run1(k, WF_F32, v, WF_F32, NULL, to[c], out, 6), WF_OK);
        for (int i = 0; i < 6; i++) {
            int64_t got = to[c] == WF_I8    ? ((int8_t *)out)[i]
                          : to[c] == WF_I32 ? ((int32_t *)out)[i]
                          : to[c] == WF_U8  ? ((uint8_t *)out)[i]
                                            : out[i];
            CHECK_EQ_I64(got, want[c][i]);
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = one_op(f, 0, WF_BOOL, WF_F32, WF_F32, 6);
    uint8_t b[6];
    CHECK_EQ_I64(run1(k, WF_F32, v, WF_F32, NULL, WF_BOOL, b, 6), WF_OK);
    CHECK(b[0] == 1 && b[1] == 1 && b[5] == 1);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* i64 arithmetic wraps as on the GPU (it was signed overflow in C: undefined,
   caught by UBSan); INT64_MIN / -1 is INT64_MIN (it raised SIGFPE). */
TEST(ops_executor_i64_arithmetic_wraps_and_min_over_minus_one_is_min) {
    int64_t a[4] = {INT64_MAX, INT64_MIN, INT64_MIN, INT64_MAX};
    int64_t b[4] = {1, -1, -1, 2};
    int ops[4] = {WF_ADD, WF_SUB, WF_DIV, WF_MUL};
    int64_t want[4] = {INT64_MIN, INT64_MIN + 1, INT64_MIN, -2};
    for (int c = 0; c < 4; c++) {
        wf_fusion *f = wf_fusion_new();
        wf_kernel *k = one_op(f, 2, ops[c], WF_I64, WF_I64, 4);
        int64_t out[4] = {0};
        CHECK_EQ_I64(run1(k, WF_I64, a, WF_I64, b, WF_I64, out, 4), WF_OK);
        CHECK_EQ_I64(out[c], want[c]);
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = one_op(f, 1, WF_NEG, WF_I64, WF_I64, 4);
    int64_t out[4] = {0};
    CHECK_EQ_I64(run1(k, WF_I64, a, WF_I64, NULL, WF_I64, out, 4), WF_OK);
    CHECK_EQ_I64(out[1], INT64_MIN);
    CHECK_HAS(wf_kernel_source(k), "wf_ineg<long long>(");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Integer division by zero is data, not a schedule error: x / 0 = -1 (all
   bits set: what the GPU's 32-bit division gives), in every integer type. */
TEST(ops_integer_division_by_zero_is_minus_one_not_an_error) {
    int32_t a[4] = {7, -7, 0, 5}, b[4] = {0, 0, 0, 2}, out[4] = {0};
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = one_op(f, 2, WF_DIV, WF_I32, WF_I32, 4);
    CHECK_NVRTC(k, 90);
    CHECK_HAS(wf_kernel_source(k), "wf_idiv<int>(");
    CHECK_EQ_I64(run1(k, WF_I32, a, WF_I32, b, WF_I32, out, 4), WF_OK);
    CHECK_STR(wf_last_run_error(k), "");
    CHECK(out[0] == -1 && out[1] == -1 && out[2] == -1 && out[3] == 2);
    wf_kernel_free(k);
    wf_fusion_free(f);
    uint8_t ua[2] = {7, 200}, ub[2] = {0, 3}, uo[2] = {0};
    f = wf_fusion_new();
    k = one_op(f, 2, WF_DIV, WF_U8, WF_U8, 2);
    CHECK_EQ_I64(run1(k, WF_U8, ua, WF_U8, ub, WF_U8, uo, 2), WF_OK);
    CHECK(uo[0] == 255 && uo[1] == 66);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* val_apply is the executor's index arithmetic: an index or extent that
   overflows int64 has no right answer, so it is refused like a division by
   zero, never wrapped (volatile: the values arrive at run time, as they do
   in the executor; INT64_MIN / -1 raised SIGFPE). */
TEST(ops_val_apply_refuses_overflow_and_min_over_minus_one) {
    volatile int64_t min = INT64_MIN, max = INT64_MAX, m1 = -1;
    int64_t r = 0;
    CHECK(!val_apply(V_ADD, max, 1, &r));
    CHECK(!val_apply(V_MUL, max, 2, &r));
    CHECK(!val_apply(V_SUB, min, 1, &r));
    CHECK(!val_apply(V_DIV, min, m1, &r));
    CHECK(!val_apply(V_MOD, min, m1, &r));
    CHECK(val_apply(V_DIV, -7, 2, &r) && r == -3);
    CHECK(val_apply(V_MOD, -7, 2, &r) && r == -1);
    CHECK(val_apply(V_CEILDIV, 7, 2, &r) && r == 4);
    CHECK(!val_apply(V_DIV, 1, 0, &r));
    CHECK(!val_apply(V_CEILDIV, 1, 0, &r));
}

/* Only sm_90 and later have "a" targets: sm_80 used to be compiled as sm_80a,
   which NVRTC rejects. */
TEST(ops_nvrtc_targets_before_sm_90_have_no_a_suffix) {
    int64_t shape[1] = {8};
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_unary(WF_EXP, wf_input(f, WF_F32, 1, shape)));
    wf_kernel *k = COMPILE(f);
    CHECK_NVRTC(k, 80);
    CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
