/*
 * test_reduce_grid.c -- grid reductions (a reduction axis on blockIdx): each
 * block reduces its part, stores it in the work buffer and counts itself on
 * a semaphore; the last block folds the partial results in block order.
 * Sums by rfactors over threads, blocks and the grid (the issue's
 * 10,000,000-element case, smaller here), rows on another block dimension,
 * symbolic sizes (one kernel, several grids), and the refusals. Each kernel
 * is compiled with NVRTC and run on the executor against a double reference.
 */
#include "harness.h"
#include "reduce_check.h"

/* sum of x[n]: [r64 BIDx, r serial, r128 TIDx]; rfactor the serial axis
   (and, with two, the TIDx axis too). */
static wf_fusion *grid_sum(int64_t n, int rfactors, wf_tv **s_out) {
    int64_t shape[1] = {n};
    int ax = 0, rf = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 0, 128);
    wf_tv_split_outer(s, 0, 64);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_rfactor(s, 1, &rf); /* s: [r64 BIDx, r128 TIDx] */
    if (rfactors > 1)
        wf_tv_rfactor(s, 1, &rf); /* s: [r64 BIDx] */
    *s_out = s;
    return f;
}

TEST(reduce_grid_thread_block_grid_by_one_rfactor) {
    wf_tv *s;
    wf_fusion *f = grid_sum(100000, 1, &s);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "float wf_r = wf_grid_reduce<true, false, false, true, false, false>(");
        CHECK_HAS(src, "if (wf_last && (threadIdx.x == 0)) T1[0] = wf_r;");
        CHECK_HAS(src, "__device__ unsigned wf_gsem[65536];");
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 64);
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 128);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The thread, block, grid levels by two rfactors, symbolic n. */
TEST(reduce_grid_two_rfactors_symbolic_sizes) {
    wf_tv *s;
    wf_fusion *f = grid_sum(-1, 2, &s);
    CHECK_EQ_I64(wf_tv_ndim(s), 1);
    wf_kernel *k = COMPILE(f);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    CHECK_NVRTC(k, 90);
    CHECK_HAS(wf_kernel_source(k), "wf_grid_reduce<false, false, false, true, false, false>(");
    int64_t sizes[4] = {1, 8191, 100000, 300001};
    for (int i = 0; i < 4; i++) {
        int64_t sym[8] = {sizes[i]};
        CHECK(rc_run(TS, k, f, sym, 1e-5));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Rows on BIDy, each row's columns over [BIDx, serial, TIDx]: one
   semaphore per row, max over blocks (the initial value -inf past the end). */
TEST(reduce_grid_rows_on_bidy_max_nondivisible) {
    int64_t shape[2] = {5, 3000};
    int ax = 1, rf = 2;
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, m);
    wf_tv_split(m, 1, 64);
    wf_tv_split_outer(m, 1, 8); /* [i5, r8, r6, r64] */
    wf_tv_parallelize(m, 0, WF_BIDY);
    wf_tv_parallelize(m, 1, WF_BIDX);
    wf_tv_parallelize(m, 3, WF_TIDX);
    CHECK(wf_tv_rfactor(m, 1, &rf) != NULL);
    wf_kernel *k = rc_check(TS, f, NULL, 0);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[1], 5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The executor's order is the GPU's: block results folded in block order. */
TEST(reduce_grid_executor_folds_blocks_in_order) {
    int64_t shape[1] = {4};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    CHECK_NVRTC(k, 90);
    float in[4] = {1e8f, 1.0f, -1e8f, 1.0f}, out = -1;
    wf_buffer ib = {in, WF_F32, 1, {4}, {0}, -1}, ob = {&out, WF_F32, 0, {0}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1), WF_OK);
    volatile float a = 0.0f + in[0], b = a + in[1], c = b + in[2], want = c + in[3];
    CHECK(out == want);
    CHECK(out == 1.0f);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The tutorial's row sum with the reduction on BIDx and the rows in a
   serial loop: each row is a grid reduction of its own (its own semaphores
   and partials). */
TEST(reduce_grid_tutorial_reduction_on_bidx_rows_serial) {
    int64_t shape[2] = {10, 1024};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_parallelize(s, 1, WF_BIDX);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        CHECK_HAS(wf_kernel_source(k),
                  "reinterpret_cast<float *>(wf_smem + 0), i0, 10, &wf_last, wf_rpar);");
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 1024);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(reduce_grid_refusals_say_what_to_do) {
    int64_t shape[2] = {10, 1024};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_split(s, 1, 64); /* [i10, r16 serial, r64 BIDx] */
    wf_tv_parallelize(s, 2, WF_BIDX);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "T1 is reduced across blocks: a serial reduction loop around a grid reduction is "
              "not supported; rfactor the serial reduction axes into a producer");
    wf_fusion_clear_error(f);
    int rf = 1;
    CHECK(wf_tv_rfactor(s, 1, &rf) != NULL); /* as it says: now it runs */
    wf_kernel_free(rc_check(TS, f, NULL, 1e-5));
    wf_fusion_free(f);
    f = wf_fusion_new();
    int64_t one[1] = {64};
    ax = 0;
    s = wf_sum(wf_input(f, WF_F32, 1, one), 1, &ax);
    wf_tv *n = wf_unary(WF_NEG, s);
    wf_output(f, n);
    wf_tv_parallelize(s, 0, WF_BIDX);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f),
              "T1 is reduced across blocks: only the last block has its value, so it can only "
              "be a fusion output; compute its readers in a separate fusion");
    wf_fusion_free(f);
}
