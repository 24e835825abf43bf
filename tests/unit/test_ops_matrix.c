/*
 * test_ops_matrix.c -- every unary and binary op and every cast, for every
 * dtype, on the CPU reference executor against the independent reference of
 * test_ops_matrix.h (exact, floats included: the executor and the reference
 * both compute in double and round once), each kernel also compiled with
 * NVRTC. A wrong operator in codegen shows in NVRTC or the GPU suite
 * (tests/gpu/test_ops_matrix.c runs the same matrix on the device); a wrong
 * operator in the executor shows here.
 */
#include "harness.h"
#include "test_ops_matrix.h"

TEST(ops_matrix_every_op_and_cast_in_every_dtype_matches_the_reference_exactly) {
    om_report r = {0, 0, {0}};
    om_run_matrix(&r, WF_BACKEND_INTERP, 1, 0);
    CHECK_EQ_I64(r.kernels, 30);
    CHECK_EQ_I64(r.failed, 0);
}

TEST(ops_matrix_binary_ops_on_mixed_dtypes_promote_and_match_the_reference) {
    om_report r = {0, 0, {0}};
    om_run_mixed(&r, WF_BACKEND_INTERP, 1, 0);
    CHECK_EQ_I64(r.kernels, 90);
    CHECK_EQ_I64(r.failed, 0);
}
