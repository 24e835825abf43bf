/*
 * test_reduce_serial.c -- reductions done in one thread's loops: sums over
 * inner, outer and middle dims, PyTorch's initial values, types and NaN
 * rules, the generated statements, and the refusals. Each kernel is
 * compiled with NVRTC and run on the CPU executor against a double
 * reference (tests/unit/reduce_check.h).
 */
#include "harness.h"
#include "reduce_check.h"

/* [rows, cols] f32 summed over dim `axis`, nothing scheduled. */
TEST(reduce_serial_sum_over_inner_outer_and_middle_dims) {
    int64_t shapes[3][3] = {{10, 1024, 0}, {64, 33, 0}, {4, 5, 6}};
    int ndims[3] = {2, 2, 3}, axes[3] = {1, 0, 1};
    for (int c = 0; c < 3; c++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, WF_F32, ndims[c], shapes[c]);
        wf_tv *s = wf_sum(a, 1, &axes[c]);
        wf_output(f, s);
        CHECK_EQ_I64(wf_tv_ndim(s), ndims[c]); /* the reduction axis stays in the loop domain */
        wf_kernel_free(rc_check(TS, f, NULL, 1e-5));
        wf_fusion_free(f);
    }
}

/* A reduction into global memory (a fusion output) accumulates in a
   register and stores once: no zeroing of the output, no read-modify-write
   of global memory per step (issue 20, G4). */
TEST(reduce_serial_output_accumulates_in_a_register_and_stores_once) {
    int64_t shape[2] = {10, 1024};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "Tensor<float, 1> T1");
        CHECK_HAS(wf_kernel_source(k),
                  "  float wf_acc1;\n  wf_acc1 = (float)0;\n"
                  "  for (wf_index i0 = 0; i0 < 1024; ++i0) {\n"
                  "    wf_acc1 = wf_radd(wf_acc1, (float)T0[blockIdx.x * 1024 + i0]);\n  }\n"
                  "  T1[blockIdx.x] = wf_acc1;\n}");
        CHECK_LACKS(wf_kernel_source(k), "(float)T1[");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* An outer reduction [r, i] with i innermost: the accumulator of every i is
   initialized before the r loop starts, in a loop of its own. */
TEST(reduce_serial_outer_reduction_initializes_each_column_before_the_loop) {
    int64_t shape[2] = {7, 5};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i2 = 0; i2 < 5; ++i2) {\n"
                                       "    T1[i2] = (float)0;\n"
                                       "  }\n"
                                       "  for (wf_index i0 = 0; i0 < 7; ++i0) {\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_serial_split_and_reordered_reduction_axes) {
    int64_t shape[2] = {6, 1000};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 128); /* [i6, r8, r128]: non-divisible */
    int o2n[3] = {2, 0, 1}; /* [r8, r128, i6] */
    wf_tv_reorder_all(s, o2n);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_serial_max_min_prod_and_integer_sums_follow_pytorch) {
    int64_t shape[2] = {3, 37};
    int ax = 1;
    wf_binary_op ops[4] = {WF_MAX, WF_MIN, WF_MUL, WF_ADD};
    for (int i = 0; i < 4; i++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, i == 3 ? WF_I32 : WF_F64, 2, shape);
        wf_tv *r = wf_reduce(ops[i], a, 1, &ax);
        wf_output(f, r);
        wf_kernel *k = rc_check(TS, f, NULL, 1e-12);
        if (k && i == 0)
            CHECK_HAS(wf_kernel_source(k), "= __longlong_as_double(0xfff0000000000000ull);");
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_sum(wf_input(f, WF_BOOL, 2, shape), 1, &ax);
    CHECK_EQ_I64(wf_dtype_size(WF_I64), 8);
    CHECK(b && b->dtype == WF_I64); /* torch.sum of bool or int is int64 */
    wf_tv *m = wf_max(wf_input(f, WF_I16, 2, shape), 1, &ax);
    CHECK(m && m->dtype == WF_I16);
    wf_fusion_free(f);
}

/* max and min propagate NaN wherever it sits; -inf, +inf and empty ranks behave. */
TEST(reduce_serial_max_and_min_propagate_nan) {
    int64_t shape[2] = {4, 3};
    int ax = 1;
    const float nan = __builtin_nanf("");
    const float inf = __builtin_inff();
    float in[12] = {nan, 1, 2, 1, nan, 2, 1, 2, nan, -inf, -inf, -inf};
    for (int op = 0; op < 2; op++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *r = wf_reduce(op ? WF_MIN : WF_MAX, wf_input(f, WF_F32, 2, shape), 1, &ax);
        wf_output(f, r);
        wf_kernel *k = COMPILE(f);
        if (!k)
            return;
        CHECK_NVRTC(k, 90);
        float out[4];
        wf_buffer ib = {in, WF_F32, 2, {4, 3}, {0}, -1}, ob = {out, WF_F32, 1, {4}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1), WF_OK);
        for (int i = 0; i < 3; i++)
            CHECK(out[i] != out[i]);
        CHECK(out[3] == -inf);
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

TEST(reduce_serial_consumers_see_only_the_other_dims) {
    int64_t shape[2] = {8, 16};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(a, 1, &ax);
    CHECK_EQ_I64(wf_tv_ndim(s), 2);
    wf_tv *n = wf_unary(WF_NEG, s);
    CHECK_EQ_I64(wf_tv_ndim(n), 1);
    bool bc[2] = {false, true};
    wf_tv *b = wf_broadcast(s, 2, bc);
    wf_tv *d = wf_sub(a, b); /* x - sum(x) per row */
    wf_output(f, n);
    wf_output(f, d);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(s), 1); /* never past its reduction axis */
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_serial_producer_inlined_into_the_reduction_loop) {
    int64_t shape[2] = {5, 300};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *e = wf_unary(WF_EXP, wf_input(f, WF_F32, 2, shape));
    wf_tv *s = wf_sum(e, 1, &ax);
    wf_output(f, s);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(e), 2); /* computed per step of the reduction */
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "float T1[1];");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_serial_bad_arguments_are_refused_with_a_message) {
    int64_t shape[2] = {8, 16};
    int ax[2] = {1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    CHECK(wf_sum(a, 2, ax) == NULL);
    CHECK_STR(wf_fusion_error(f), "sum(T0): axis -1 is listed twice");
    wf_fusion_clear_error(f);
    ax[0] = 2;
    CHECK(wf_max(a, 1, ax) == NULL);
    CHECK_STR(wf_fusion_error(f), "max(T0): axis 2 is out of range for 2 dims");
    wf_fusion_clear_error(f);
    CHECK(wf_reduce(WF_SUB, a, 1, &ax[1]) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "reduce(T0): the op must be WF_ADD, WF_MUL, WF_MAX or WF_MIN, not sub");
    wf_fusion_clear_error(f);
    CHECK(wf_sum(a, 0, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f), "sum(T0): give at least one axis to reduce (T0 has 2)");
    wf_fusion_free(f);
}
