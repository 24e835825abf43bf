/*
 * test_ops_matrix.c -- the op x dtype matrix (tests/unit/test_ops_matrix.h)
 * on the GPU: every unary and binary op and every cast in every dtype, the
 * device's results against the same independent reference as the executor
 * suite; integers and bools exactly, floats within 4 ulps of the output type
 * (libdevice's float functions are within 2 ulps; a wrong operator is off
 * by far more).
 */
#include "../unit/test_ops_matrix.h"
#include "gpu.h"

GPU_TEST(ops_matrix_every_op_and_cast_in_every_dtype_on_the_gpu) {
    NEED_GPU();
    om_report r = {0, 0, {0}};
    om_run_matrix(&r, WF_BACKEND_CUDA, 0, 4);
    CHECK_EQ_I64(r.kernels, 30);
    CHECK_EQ_I64(r.failed, 0);
}

GPU_TEST(ops_matrix_binary_ops_on_mixed_dtypes_on_the_gpu) {
    NEED_GPU();
    om_report r = {0, 0, {0}};
    om_run_mixed(&r, WF_BACKEND_CUDA, 0, 4);
    CHECK_EQ_I64(r.kernels, 90);
    CHECK_EQ_I64(r.failed, 0);
}
