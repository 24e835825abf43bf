/*
 * test_regress_issue21_cuts.c -- issue 21's paper cuts on the C side: a run-time
 * extent mismatch between intermediates names the fusion inputs whose sizes
 * disagree, with the sizes given; wf_iterdomain_extent_input says which input's
 * size a symbolic extent is (the Python binding sizes outputs from it).
 */
#include "harness.h"

/* T4 = exp(T0) + neg(T1) over two [4, -1] inputs: the operands of the add are
   intermediates, but the sizes that disagree are the inputs'. */
TEST(issue21_extent_mismatch_names_the_inputs_and_their_sizes) {
    int64_t s[2] = {4, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, s), *b = wf_input(f, WF_F32, 2, s);
    wf_tv *ea = wf_unary(WF_EXP, a);
    wf_tv *nb = wf_unary(WF_NEG, b);
    wf_output(f, wf_add(ea, nb));
    wf_inline_most(f);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[4 * 5] = {0}, y[4 * 7] = {0}, z[4 * 5];
    wf_buffer in[2] = {{x, WF_F32, 2, {4, 5}, {0}, -1}, {y, WF_F32, 2, {4, 7}, {0}, -1}};
    wf_buffer out = {z, WF_F32, 2, {4, 5}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "input 0 (T0) has extent 5 in dim 1 but input 1 (T1) has 7 in "
                                    "dim 1; they must be equal, as T2 and T3 are operands of T4 "
                                    "(its dim 1)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A constant extent beside a symbolic one: the constant is the operand's, the
   symbol the input's. */
TEST(issue21_extent_mismatch_with_a_constant_extent) {
    int64_t s1[1] = {3}, s2[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, s1), *b = wf_input(f, WF_F32, 1, s2);
    wf_output(f, wf_add(wf_set(a), b));
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[3] = {0}, y[6] = {0}, z[3];
    wf_buffer in[2] = {{x, WF_F32, 1, {3}, {0}, -1}, {y, WF_F32, 1, {6}, {0}, -1}};
    wf_buffer out = {z, WF_F32, 1, {3}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "T2 has extent 3 in dim 0 but input 1 (T1) has 6 in dim 0; "
                                    "they must be equal, as T2 and T1 are operands of T3 (its "
                                    "dim 0)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(issue21_extent_input_names_the_input_dim_a_symbolic_extent_is) {
    int64_t s1[2] = {-1, 8}, s2[2] = {1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, s1), *b = wf_input(f, WF_F32, 2, s2);
    wf_tv *t = wf_permute(wf_add(a, b), (const int[]){1, 0});
    int n = 0, in = -9, dim = -9;
    wf_iterdomain *const *dom = wf_tv_logical_domain(t, &n);
    CHECK_EQ_I64(n, 2);
    CHECK(!wf_iterdomain_extent_input(dom[0], &in, &dim)); /* the constant 8 */
    CHECK_EQ_I64(wf_iterdomain_extent(dom[0]), 8);
    CHECK(wf_iterdomain_extent_input(dom[1], &in, &dim));
    CHECK_EQ_I64(in, 0);
    CHECK_EQ_I64(dim, 0);
    dom = wf_tv_logical_domain(b, &n);
    CHECK(wf_iterdomain_extent_input(dom[1], &in, &dim));
    CHECK_EQ_I64(in, 1);
    CHECK_EQ_I64(dim, 1);
    CHECK(!wf_iterdomain_extent_input(NULL, &in, &dim));
    wf_fusion_free(f);
}

/* A strided buffer where the fusion assumes contiguity: an input is told how to
   fix it (a contiguous copy, or a strided input), an output that it is dense. */
TEST(issue21_strided_buffer_for_a_contiguous_tensor_gives_the_fix) {
    int64_t shape[2] = {4, 8};
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_set(wf_input(f, WF_F32, 2, shape)));
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float x[64] = {0}, y[64];
    wf_buffer in = {x, WF_F32, 2, {4, 8}, {16, 2}, -1}, out = {y, WF_F32, 2, {4, 8}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k),
              "input 0: dim 1 has stride 2, but T0 is contiguous there (stride 1 expected); pass a "
              "contiguous copy (np.ascontiguousarray in Python), or declare T0 with "
              "wf_input_strided (Python: input_strided), contiguity 0 in dim 1");
    in = (wf_buffer){x, WF_F32, 2, {4, 8}, {0}, -1};
    out = (wf_buffer){y, WF_F32, 2, {4, 8}, {16, 1}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "output 0: dim 0 has stride 16, but T1 is contiguous there "
                                    "(stride 8 expected); an output is always dense: pass a "
                                    "contiguous buffer");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
