/*
 * test_heur_pointwise.c -- the "pointwise" automatic scheduler: add chains
 * with broadcasts at odd and symbolic sizes, vector widths from the innermost
 * extent, generic schedules, and the schedule as ordinary transforms.
 */
#include "harness.h"
#include "heur_check.h"

#include <string.h>

/* out = (a + b) * bias[row] + 1, with a, b [rows, cols] and bias [rows]. */
static wf_fusion *add_chain(int64_t rows, int64_t cols, wf_dtype t) {
    int64_t shape[2] = {rows, cols}, bshape[1] = {rows};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, t, 2, shape), *b = wf_input(f, t, 2, shape);
    wf_tv *bias = wf_input(f, t, 1, bshape);
    bool bc[2] = {false, true};
    wf_tv *s = wf_mul(wf_add(a, b), wf_broadcast(bias, 2, bc));
    wf_output(f, wf_add(s, wf_full(f, t, 1.0)));
    return f;
}

TEST(heur_pointwise_add_chain_broadcast_1000x1536_vector_4) {
    wf_fusion *f = add_chain(1000, 1536, WF_F32);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "pointwise", 1e-6, &info))
        CHECK_STR(info.summary, "1-D over 2 dims, threads 128, vector 4, unroll 2");
    wf_fusion_free(f);
}

TEST(heur_pointwise_odd_7x33_no_vector) {
    wf_fusion *f = add_chain(7, 33, WF_F32);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "pointwise", 1e-6, &info))
        CHECK_STR(info.summary, "1-D over 2 dims, threads 32, vector 1, unroll 1");
    wf_fusion_free(f);
}

TEST(heur_pointwise_symbolic_sizes_and_generic) {
    static const int64_t sym[24] = {33, 1000, 0, 0, 0, 0, 0, 0, 33, 1000, 0, 0, 0, 0, 0, 0, 33};
    wf_fusion *f = add_chain(-1, -1, WF_F32);
    wf_auto_info info;
    /* No vectors: a symbolic innermost extent may be anything (wf_auto_kernel
       makes it concrete where the buffers allow vectors). */
    if (HC_CHECK(f, sym, false, "pointwise", 1e-6, &info))
        CHECK_STR(info.summary, "2-D over 2 dims, threads 128, vector 1, unroll 1");
    if (HC_CHECK(f, sym, true, "pointwise", 1e-6, &info))
        CHECK_STR(info.summary, "2-D over 2 dims, threads 128, vector 1, unroll 1");
    static const int64_t odd[24] = {7, 33, 0, 0, 0, 0, 0, 0, 7, 33, 0, 0, 0, 0, 0, 0, 7};
    wf_kernel *k = rc_check(TS, f, odd, 1e-6); /* the generic schedule at other sizes */
    wf_kernel_free(k);
    wf_fusion_free(f);
}
