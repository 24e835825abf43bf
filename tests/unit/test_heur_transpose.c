/*
 * test_heur_transpose.c -- the "transpose" automatic scheduler (shared
 * 32 x 32 tiles, XOR swizzle) at odd and symbolic sizes, transpose +
 * pointwise, and a fusion no scheduler covers (the exact message).
 */
#include "harness.h"
#include "heur_check.h"

#include <string.h>

static wf_fusion *transpose_add(int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols}, tshape[2] = {cols, rows};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, tshape);
    wf_output(f, wf_add(wf_transpose(a, 0, 1), b));
    return f;
}

TEST(heur_transpose_odd_50x70_with_add) {
    wf_fusion *f = transpose_add(50, 70);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "transpose", 0, &info))
        CHECK_STR(info.summary, "shared tile 32 x 32, XOR swizzle, threads 32 x 32");
    wf_kernel *k = wf_compile(f, NULL);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 4096);
        CHECK_HAS(wf_kernel_source(k), " ^ ");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(heur_transpose_symbolic) {
    static const int64_t sym[16] = {40, 33, 0, 0, 0, 0, 0, 0, 33, 40};
    wf_fusion *f = transpose_add(-1, -1);
    HC_CHECK(f, sym, true, "transpose", 0, NULL);
    wf_fusion_free(f);
}

TEST(heur_unsupported_names_each_scheduler) {
    /* A sum over dim 1 broadcast back along dim 0 of a transposed input. */
    int64_t shape[2] = {8, 8};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    bool bc[2] = {false, true};
    wf_tv *s = wf_broadcast(wf_sum(wf_transpose(x, 0, 1), 1, &ax), 2, bc);
    wf_output(f, wf_add(x, s));
    CHECK_EQ_I64(wf_schedule_auto(f, NULL, NULL, NULL), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f),
              "wf_schedule_auto: no scheduler covers this fusion: normalization: T1 permutes "
              "dims; reduction: a reduction's result is broadcast back (a normalization); "
              "transpose: T2 is a reduction; pointwise: T2 is a reduction");
    /* Sticky: the pending error is returned as it is. */
    CHECK_EQ_I64(wf_schedule_auto(f, NULL, NULL, NULL), WF_ERR_UNSUPPORTED);
    CHECK_EQ_I64(wf_schedule_auto(NULL, NULL, NULL, NULL), WF_ERR_ARG);
    wf_fusion_free(f);
}
