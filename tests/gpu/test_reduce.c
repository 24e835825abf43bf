/*
 * test_reduce.c -- reductions on the GPU: nvFuser's tutorial row sums of
 * [10, 1024] (reduction on TIDx; on BIDx; rows on BIDx; rows on TIDy, which must
 * fail at launch with 10240 threads and then run [10, 32] with the same
 * kernel), a 10,000-element sum by one rfactor, 10,000,000-element sums by
 * two rfactors (thread, block and grid levels, launched three times as the
 * grid semaphores are reused; and serial, threadIdx.x, threadIdx.y in one
 * block) and softmax over rows of [4096, 4096] in one kernel. Results are
 * compared with a double reference within 1e-5 relative, and where the
 * executor models the same order (sums of small cases) with the CPU
 * executor bit for bit.
 */
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

/* Host f32 data in [0, 1): sums do not cancel, so relative error is meaningful. */
static float *unit_data(int64_t n, unsigned seed) {
    float *p = malloc(sizeof(float) * (size_t)(n ? n : 1));
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (int64_t i = 0; p && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((s >> 40) & 0xffffff) / 16777216.0f;
    }
    return p;
}

static wf_buffer host(float *p, int ndim, const int64_t *shape) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = p;
    b.dtype = WF_F32;
    b.ndim = ndim;
    b.device = -1;
    for (int d = 0; d < ndim; d++)
        b.shape[d] = shape[d];
    return b;
}

static bool close_rel(double got, double want, double tol) {
    return fabs(got - want) <= tol * fmax(1e-30, fabs(want));
}

/* Row sums of x[rows, cols] in double. */
static void row_sums(const float *x, int64_t rows, int64_t cols, double *out) {
    for (int64_t r = 0; r < rows; r++) {
        out[r] = 0;
        for (int64_t c = 0; c < cols; c++)
            out[r] += x[r * cols + c];
    }
}

/* Run k on CUDA (and, if interp, on the executor, bit for bit) over a
   [rows, cols] input summed per row; compare with the double reference. */
static void check_row_sum(gt_state *ts_, wf_kernel *k, int64_t rows, int64_t cols, bool interp) {
    int64_t shape[2] = {rows, cols};
    float *x = unit_data(rows * cols, 5), *out = malloc(sizeof(float) * (size_t)rows);
    float *ref = malloc(sizeof(float) * (size_t)rows);
    double *want = malloc(sizeof(double) * (size_t)rows);
    wf_buffer ib = host(x, 2, shape), ob = host(out, 1, shape);
    row_sums(x, rows, cols, want);
    memset(out, 0xff, sizeof(float) * (size_t)rows);
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &ib, 1, &ob, 1), WF_OK, k);
    for (int64_t r = 0; r < rows; r++)
        if (!close_rel(out[r], want[r], 1e-5)) {
            printf("  row %lld: got %.9g, want %.9g\n", (long long)r, out[r], want[r]);
            CHECK(false);
            break;
        }
    wf_buffer rb = host(ref, 1, shape);
    if (interp && wf_run(k, WF_BACKEND_INTERP, &ib, 1, &rb, 1) == WF_OK)
        CHECK(memcmp(ref, out, sizeof(float) * (size_t)rows) == 0);
    free(x);
    free(out);
    free(ref);
    free(want);
}

static wf_fusion *row_sum(const int64_t *shape, wf_tv **s) {
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, *s);
    return f;
}

GPU_TEST(reduce_tutorial_row_sum_tidx) {
    NEED_GPU();
    int64_t shape[2] = {10, 1024};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        check_row_sum(TS, k, 10, 1024, true);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(reduce_tutorial_rows_on_bidx) {
    NEED_GPU();
    int64_t shape[2] = {10, 1024};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        check_row_sum(TS, k, 10, 1024, true);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Tutorial: the reduction on BIDx, the rows in a serial loop (a grid
   reduction per row); launched twice, as the semaphores are reused. */
GPU_TEST(reduce_tutorial_reduction_on_bidx) {
    NEED_GPU();
    int64_t shape[2] = {10, 1024};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 1, WF_BIDX);
    wf_kernel *k = GT_COMPILE(f);
    for (int i = 0; k && i < 2; i++)
        check_row_sum(TS, k, 10, 1024, true);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(reduce_tutorial_rows_on_tidy_fail_then_run_smaller) {
    NEED_GPU();
    int64_t shape[2] = {-1, -1};
    wf_tv *s;
    wf_fusion *f = row_sum(shape, &s);
    wf_tv_parallelize(s, 0, WF_TIDY);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    if (!k)
        return;
    int64_t big[2] = {10, 1024};
    float *x = unit_data(10 * 1024, 1), out[10];
    wf_buffer ib = host(x, 2, big), ob = host(out, 1, big);
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &ib, 1, &ob, 1), WF_ERR_SCHEDULE, k);
    CHECK(strstr(wf_last_run_error(k), "invalid number of threads") != NULL);
    CHECK(strstr(wf_last_run_error(k), "10240 threads") != NULL);
    free(x);
    check_row_sum(TS, k, 10, 32, true);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A 1-D sum of n by rfactors: serial per thread, then threadIdx.x (and
   threadIdx.y when ty > 1). */
static wf_fusion *sum_1d(int64_t tx, int64_t ty) {
    int64_t shape[1] = {-1};
    int ax = 0, rf0 = 0, rf1 = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 0, tx);
    if (ty > 1)
        wf_tv_split(s, 0, ty);
    wf_tv_parallelize(s, -1, WF_TIDX);
    if (ty > 1)
        wf_tv_parallelize(s, -2, WF_TIDY);
    wf_tv_rfactor(s, 1, &rf0);
    if (ty > 1)
        wf_tv_rfactor(s, 1, &rf1);
    return f;
}

static void check_sum_1d(gt_state *ts_, wf_kernel *k, int64_t n) {
    float *x = unit_data(n, 3), out = -1;
    double want = 0;
    for (int64_t i = 0; i < n; i++)
        want += x[i];
    wf_buffer ib = host(x, 1, &n), ob = host(&out, 0, &n);
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &ib, 1, &ob, 1), WF_OK, k);
    if (!close_rel(out, want, 1e-5)) {
        printf("  sum of %lld: got %.9g, want %.9g\n", (long long)n, out, want);
        CHECK(false);
    }
    free(x);
}

GPU_TEST(reduce_rfactor_sum_of_10000) {
    NEED_GPU();
    wf_fusion *f = sum_1d(128, 1);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        check_sum_1d(TS, k, 10000);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(reduce_two_rfactors_in_one_block_sum_of_10000000) {
    NEED_GPU();
    wf_fusion *f = sum_1d(128, 8);
    wf_kernel *k = GT_COMPILE(f);
    if (k)
        check_sum_1d(TS, k, 10000000);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The 10,000,000-element sum: thread, block and grid levels by two
   rfactors ([r BIDx, r serial, r TIDx]); run three times, as the
   semaphores are reused by every launch. */
GPU_TEST(reduce_thread_block_grid_sum_of_10000000) {
    NEED_GPU();
    int64_t shape[1] = {-1};
    int ax = 0, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 0, 256);
    wf_tv_split_outer(s, 0, 1024);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_rfactor(s, 1, &rf);
    wf_tv_rfactor(s, 1, &rf);
    wf_kernel *k = GT_COMPILE(f);
    for (int i = 0; k && i < 3; i++)
        check_sum_1d(TS, k, i == 1 ? 1000 : 10000000);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- softmax over rows of [4096, 4096], one kernel ---- */

static void rows_cols(wf_tv *t, int64_t b) {
    wf_tv_split(t, 1, b);
    wf_tv_parallelize(t, 0, WF_BIDX);
    wf_tv_parallelize(t, 2, WF_TIDX);
}

static wf_tv *row_reduce(wf_binary_op op, wf_tv *x, int64_t b) {
    int ax = 1, rf = 1;
    wf_tv *r = wf_reduce(op, x, 1, &ax);
    rows_cols(r, b);
    wf_tv_rfactor(r, 1, &rf);
    return r;
}

static wf_tv *bcast_rows(wf_tv *t) {
    bool bc[2] = {false, true};
    return wf_broadcast(t, 2, bc);
}

GPU_TEST(reduce_softmax_4096x4096_one_kernel) {
    NEED_GPU();
    const int64_t R = 4096, C = 4096, B = 256;
    int64_t shape[2] = {R, C};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *m = row_reduce(WF_MAX, x, B), *mb = bcast_rows(m);
    wf_tv *d = wf_sub(x, mb), *e = wf_unary(WF_EXP, d);
    wf_tv *s = row_reduce(WF_ADD, e, B), *sb = bcast_rows(s);
    wf_tv *y = wf_div(e, sb);
    wf_output(f, y);
    rows_cols(d, B);
    rows_cols(e, B);
    rows_cols(y, B);
    wf_tv_parallelize(mb, 0, WF_BIDX);
    wf_tv_parallelize(sb, 0, WF_BIDX);
    wf_inline_most(f);
    wf_tv_inline_at(e, 1);
    wf_kernel *k = GT_COMPILE(f);
    if (!k)
        return;
    float *in = unit_data(R * C, 9), *out = malloc(sizeof(float) * (size_t)(R * C));
    for (int64_t i = 0; i < R * C; i++)
        in[i] = in[i] * 8 - 4;
    wf_buffer ib = host(in, 2, shape), ob = host(out, 2, shape);
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &ib, 1, &ob, 1), WF_OK, k);
    for (int64_t r = 0; r < R; r++) {
        double mx = -INFINITY, sum = 0;
        for (int64_t c = 0; c < C; c++)
            mx = fmax(mx, in[r * C + c]);
        for (int64_t c = 0; c < C; c++)
            sum += exp(in[r * C + c] - mx);
        int64_t c;
        for (c = 0; c < C; c++)
            if (!close_rel(out[r * C + c], exp(in[r * C + c] - mx) / sum, 1e-5))
                break;
        if (c < C) {
            printf("  softmax row %lld col %lld: got %.9g\n", (long long)r, (long long)c,
                   out[r * C + c]);
            CHECK(false);
            break;
        }
    }
    free(in);
    free(out);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
