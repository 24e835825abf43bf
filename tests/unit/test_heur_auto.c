/*
 * test_heur_auto.c -- wf_auto_kernel: one kernel per input signature (reused
 * for other sizes of the same buckets, a new one for a new bucket or row
 * length), correct results on the CPU executor against the reference, bad
 * buffers refused with WF_ERR_ARG while the object keeps working.
 */
#include "harness.h"

#include <math.h>
#include <string.h>

#include "ir/ir.h"
#include "ref.h"

static wf_fusion *softmax_sym(void) {
    int64_t shape[2] = {-1, -1};
    int ax = 1;
    bool bc[2] = {false, true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *e = wf_unary(WF_EXP, wf_sub(x, wf_broadcast(wf_max(x, 1, &ax), 2, bc)));
    wf_output(f, wf_div(e, wf_broadcast(wf_sum(e, 1, &ax), 2, bc)));
    return f;
}

/* Run k on rows x cols random inputs; compare with the reference. */
static bool run_rows(test_state *ts_, wf_auto_kernel *k, wf_fusion *f, int64_t rows, int64_t cols) {
    int64_t sym[8] = {rows, cols};
    wf_buffer in = ref_buffer(f, f->inputs.ptr[0], sym);
    wf_buffer out = ref_buffer(f, f->outputs.ptr[0], sym), want = out;
    want = ref_buffer(f, f->outputs.ptr[0], sym);
    ref_fill_random(&in, 5);
    ref_poison(&out);
    bool ok = ref_eval(f, &in, 1, &want, 1);
    wf_status s = wf_auto_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1);
    if (s != WF_OK) {
        printf("  wf_auto_run %lldx%lld: %s: %s\n", (long long)rows, (long long)cols,
               wf_status_name(s), wf_auto_last_error(k));
        ok = false;
    }
    for (int64_t i = 0; ok && i < rows * cols; i++)
        if (fabs(ref_get(&out, i) - ref_get(&want, i)) > 1e-5) {
            printf("  element %lld: %g, want %g\n", (long long)i, ref_get(&out, i),
                   ref_get(&want, i));
            ok = false;
        }
    ref_free(&in);
    ref_free(&out);
    ref_free(&want);
    CHECK(ok);
    return ok;
}

TEST(heur_auto_kernel_reuses_per_signature) {
    wf_fusion *f = softmax_sym();
    wf_auto_kernel *k = wf_auto_compile(f, NULL);
    CHECK_EQ_I64(wf_auto_kernel_count(k), 0);
    CHECK_STR(wf_auto_last_info(k)->scheduler, "");
    run_rows(TS, k, f, 6, 64);
    CHECK_EQ_I64(wf_auto_kernel_count(k), 1);
    CHECK_STR(wf_auto_last_info(k)->scheduler, "normalization");
    run_rows(TS, k, f, 5, 64); /* 5 and 6 rows: one bucket */
    CHECK_EQ_I64(wf_auto_kernel_count(k), 1);
    run_rows(TS, k, f, 6, 64);
    CHECK_EQ_I64(wf_auto_kernel_count(k), 1);
    run_rows(TS, k, f, 40, 64); /* a new bucket of rows */
    CHECK_EQ_I64(wf_auto_kernel_count(k), 2);
    run_rows(TS, k, f, 3, 7); /* rows of 7: no vectors, short rows */
    CHECK_EQ_I64(wf_auto_kernel_count(k), 3);
    CHECK_STR(wf_auto_last_info(k)->summary,
              "inner rows, rows per block 16, threads 8, row persistent in registers");
    run_rows(TS, k, f, 2, 33000); /* a long row: 33 values per thread */
    CHECK_EQ_I64(wf_auto_kernel_count(k), 4);
    CHECK_STR(wf_auto_last_info(k)->summary,
              "inner rows, rows per block 1, threads 1024, row persistent in registers");
    wf_auto_kernel_free(k);
    wf_fusion_free(f);
}

TEST(heur_auto_kernel_bad_buffers_keep_working) {
    wf_fusion *f = softmax_sym();
    wf_auto_kernel *k = wf_auto_compile(f, NULL);
    double d[12] = {0};
    float y[12];
    wf_buffer in = {d, WF_F64, 2, {3, 4}, {0}, -1}, out = {y, WF_F32, 2, {3, 4}, {0}, -1};
    CHECK_EQ_I64(wf_auto_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_auto_last_error(k),
              "wf_auto_run: input 0 (T0) is float, but the buffer is double");
    in.dtype = WF_F32;
    in.ndim = 1;
    CHECK_EQ_I64(wf_auto_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_auto_last_error(k),
              "wf_auto_run: input 0 (T0) has rank 2, but the buffer has rank 1");
    CHECK_EQ_I64(wf_auto_run(k, WF_BACKEND_INTERP, &in, 2, &out, 1), WF_ERR_ARG);
    CHECK_STR(wf_auto_last_error(k), "wf_auto_run: 2 input buffers; the fusion has 1 inputs");
    CHECK_EQ_I64(wf_auto_kernel_count(k), 0);
    run_rows(TS, k, f, 4, 12);
    CHECK_EQ_I64(wf_auto_kernel_count(k), 1);
    CHECK_STR(wf_auto_last_error(k), "");
    wf_auto_kernel_free(k);
    wf_auto_kernel_free(NULL);
    CHECK(wf_auto_compile(NULL, NULL) == NULL);
    CHECK_EQ_I64(wf_auto_run(NULL, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_ARG);
    wf_fusion_free(f);
}

TEST(heur_auto_kernel_pointwise_vector_per_signature) {
    int64_t shape[2] = {-1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_output(f, wf_add(a, a));
    wf_auto_kernel *k = wf_auto_compile(f, NULL);
    run_rows(TS, k, f, 9, 64);
    CHECK_STR(wf_auto_last_info(k)->summary, "2-D over 2 dims, threads 32, vector 4, unroll 1");
    run_rows(TS, k, f, 9, 7); /* not a multiple of the vector width: the plain kernel */
    CHECK_STR(wf_auto_last_info(k)->summary, "2-D over 2 dims, threads 32, vector 1, unroll 1");
    CHECK_EQ_I64(wf_auto_kernel_count(k), 2);
    wf_auto_kernel_free(k);
    wf_fusion_free(f);
}

/* The copy a wf_auto_kernel schedules replays wf_mma as a multiply-sum of both
   operands (it once replayed it as a sum of the first operand alone). */
TEST(heur_auto_kernel_mma_sums_products) {
    int64_t shape[2] = {2, 3};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_output(f, wf_mma(a, b, 1, &ax));
    wf_auto_kernel *k = wf_auto_compile(f, NULL);
    float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {2, 2, 2, 1, 0, -1}, z[2] = {0, 0};
    wf_buffer in[2] = {{x, WF_F32, 2, {2, 3}, {0}, -1}, {y, WF_F32, 2, {2, 3}, {0}, -1}};
    wf_buffer out = {z, WF_F32, 1, {2}, {0}, -1};
    CHECK_STR(wf_status_name(wf_auto_run(k, WF_BACKEND_INTERP, in, 2, &out, 1)), "WF_OK");
    CHECK_EQ_I64((int64_t)z[0], 12); /* 2 + 4 + 6 */
    CHECK_EQ_I64((int64_t)z[1], -2); /* 4 + 0 - 6 */
    wf_auto_kernel_free(k);
    wf_fusion_free(f);
}
