/*
 * test_heur_reduce.c -- the "reduction" and "normalization" automatic
 * schedulers: inner / outer / short-row / full sums, softmax and layer norm,
 * at odd and symbolic sizes, against the reference on the CPU executor.
 */
#include "harness.h"
#include "heur_check.h"

#include <string.h>

static wf_fusion *sum_of(int64_t rows, int64_t cols, int axis, bool square) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    if (square)
        x = wf_mul(x, x);
    wf_output(f, wf_sum(x, 1, &axis));
    return f;
}

TEST(heur_reduce_inner_sum_1000x1536) {
    wf_fusion *f = sum_of(100, 1536, 1, true);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "reduction", 1e-5, &info))
        CHECK_STR(info.summary, "inner, rows per block 1, threads 512");
    wf_fusion_free(f);
}

TEST(heur_reduce_inner_short_rows_of_7) {
    wf_fusion *f = sum_of(1000, 7, 1, false);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "reduction", 1e-5, &info))
        CHECK_STR(info.summary, "inner, rows per block 16, threads 8");
    wf_fusion_free(f);
}

TEST(heur_reduce_inner_symbolic_generic_and_33000) {
    static const int64_t sym[8] = {5, 33000};
    wf_fusion *f = sum_of(-1, -1, 1, false);
    wf_auto_info info;
    if (HC_CHECK(f, sym, false, "reduction", 1e-5, &info))
        CHECK_STR(info.summary, "inner, rows per block 1, threads 512");
    wf_fusion_free(f);
    f = sum_of(-1, -1, 1, false); /* generic: correct at other sizes too */
    if (HC_CHECK(f, sym, true, "reduction", 1e-5, &info))
        CHECK_STR(info.summary, "inner, rows per block 1, threads 256");
    static const int64_t odd[8] = {3, 7};
    wf_kernel *k = rc_check(TS, f, odd, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(heur_reduce_outer_sum_odd) {
    wf_fusion *f = sum_of(300, 100, 0, false);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "reduction", 1e-5, &info))
        CHECK_STR(info.summary,
                  "outer, kept dim on blocks x threads 32, reduced dim on threads 16 (TIDy)");
    wf_fusion_free(f);
}

TEST(heur_reduce_full_sum) {
    int64_t shape[1] = {1000};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax));
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "reduction", 1e-5, &info))
        CHECK_STR(info.summary, "full, rows per block 0, threads 256");
    wf_fusion_free(f);
}

static wf_tv *bcast_rows(wf_tv *t) {
    bool bc[2] = {false, true};
    return wf_broadcast(t, 2, bc);
}

static wf_fusion *softmax(int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = wf_max(x, 1, &ax);
    wf_tv *e = wf_unary(WF_EXP, wf_sub(x, bcast_rows(m)));
    wf_tv *s = wf_sum(e, 1, &ax);
    wf_output(f, wf_div(e, bcast_rows(s)));
    return f;
}

TEST(heur_norm_softmax_odd_sizes) {
    wf_fusion *f = softmax(6, 3000);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "normalization", 1e-5, &info))
        CHECK_STR(info.summary, "inner rows, rows per block 1, threads 1024, row persistent "
                                "in registers");
    wf_fusion_free(f);
}

TEST(heur_norm_softmax_short_rows) {
    wf_fusion *f = softmax(40, 7);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "normalization", 1e-5, &info))
        CHECK_STR(info.summary, "inner rows, rows per block 16, threads 8, row persistent in "
                                "registers");
    wf_fusion_free(f);
}

TEST(heur_norm_softmax_symbolic) {
    static const int64_t sym[8] = {3, 1000};
    wf_fusion *f = softmax(-1, -1);
    wf_auto_info info;
    if (HC_CHECK(f, sym, true, "normalization", 1e-5, &info))
        CHECK_STR(info.summary, "inner rows, rows per block 1, threads 256, row persistent in "
                                "shared memory");
    static const int64_t odd[8] = {5, 7};
    wf_kernel *k = rc_check(TS, f, odd, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* (x - mean) * rsqrt(var + eps) * w + b over rows. */
static wf_fusion *layer_norm(int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols}, wshape[1] = {cols};
    int ax = 1;
    bool bc0[2] = {true, false};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *w = wf_input(f, WF_F32, 1, wshape), *b = wf_input(f, WF_F32, 1, wshape);
    wf_tv *inv_n = wf_full(f, WF_F32, 1.0 / (double)cols);
    wf_tv *mean = wf_mul(wf_sum(x, 1, &ax), inv_n);
    wf_tv *d = wf_sub(x, bcast_rows(mean));
    wf_tv *var = wf_mul(wf_sum(wf_mul(d, d), 1, &ax), inv_n);
    wf_tv *rstd = wf_unary(WF_RSQRT, wf_add(var, wf_full(f, WF_F32, 1e-5)));
    wf_tv *y = wf_mul(d, bcast_rows(rstd));
    y = wf_add(wf_mul(y, wf_broadcast(w, 2, bc0)), wf_broadcast(b, 2, bc0));
    wf_output(f, y);
    return f;
}

TEST(heur_norm_layer_norm_odd) {
    wf_fusion *f = layer_norm(10, 1536);
    wf_auto_info info;
    if (HC_CHECK(f, NULL, false, "normalization", 1e-4, &info))
        CHECK_STR(info.summary, "inner rows, rows per block 1, threads 512, row persistent in "
                                "registers");
    wf_fusion_free(f);
}
