/*
 * test_launch_limits.c -- CUDA's launch limits, applied the same way by the
 * compiler (constant extents and sizes: WF_ERR_SCHEDULE at wf_compile) and by
 * both backends per launch (size-dependent ones: the CUDA path and the CPU
 * reference executor refuse exactly the same launches with the same
 * message, and the same kernel still runs with smaller sizes). Limits:
 * blockDim x, y <= 1024, z <= 64, x*y*z <= 1024; gridDim.x < 2^31, y, z <=
 * 65535; 232448 bytes of shared memory per block; 512 KiB of local memory
 * per thread.
 */
#include <stdlib.h>

#include "harness.h"

/* ---- helpers ---- */

static wf_buffer host_f32(int ndim, const int64_t *shape) {
    wf_buffer b;
    int64_t n = 1;
    memset(&b, 0, sizeof b);
    b.dtype = WF_F32;
    b.ndim = ndim;
    b.device = -1;
    for (int d = 0; d < ndim; d++) {
        b.shape[d] = shape[d];
        n *= shape[d];
    }
    b.data = calloc((size_t)(n > 0 ? n : 1), sizeof(float));
    return b;
}

/* Run k on one input and one output of shape on the executor and on the
   CUDA path; both must end with `status` and, unless NULL, message `msg`. */
static void run_both(test_state *ts_, wf_kernel *k, int ndim, const int64_t *shape,
                     wf_status status, const char *msg) {
    wf_buffer in = host_f32(ndim, shape), out = host_f32(ndim, shape);
    char interp[1024];
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), status);
    snprintf(interp, sizeof interp, "%s", wf_last_run_error(k));
    if (msg)
        CHECK_STR(interp, msg);
    if (status != WF_OK) { /* refused before any device is needed */
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_CUDA, &in, 1, &out, 1), status);
        CHECK_STR(wf_last_run_error(k), interp);
    }
    free(in.data);
    free(out.data);
}

/* out = set(in) with in [s0, s1] (-1 = symbolic), axis 0 on p0 and axis 1 on p1. */
static wf_fusion *copy_2d(int64_t s0, int64_t s1, wf_ptype p0, wf_ptype p1, wf_tv **out) {
    int64_t shape[2] = {s0, s1};
    wf_fusion *f = wf_fusion_new();
    *out = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, *out);
    wf_tv_parallelize(*out, 0, p0);
    wf_tv_parallelize(*out, 1, p1);
    return f;
}

static void check_compile_error(test_state *ts_, wf_fusion *f, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f), msg);
}

/* ---- threads per block ---- */

/* TIDz of 100 used to compile (and its bounds checks were dropped on the
   assumption that TIDz < 64). */
TEST(launch_tidz_above_64_is_a_compile_error) {
    wf_tv *out;
    wf_fusion *f = copy_2d(100, 4, WF_TIDZ, WF_TIDX, &out);
    check_compile_error(TS, f,
                        "invalid number of threads: the block needs 4 x 1 x 100 = 400 "
                        "threads; CUDA allows at most 1024 per block, 1024 along x and y and 64 "
                        "along z (TIDx from T1's axis ithreadIdx.x3{4}, TIDz from T1's axis "
                        "ithreadIdx.z2{100}); split an axis and parallelize only its inner "
                        "part on threads");
    wf_fusion_free(f);
}

/* 2^32 x 2^32 threads: the product wrapped to 0 and passed the 1024 check. */
TEST(launch_thread_product_overflow_is_a_compile_error) {
    /* Two outputs, each of 2^32 bytes: one on TIDx, one on TIDy (no single
       tensor may hold 2^64 elements, but the block is the maximum per
       dimension over all of them). */
    int64_t shape[1] = {4294967296};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_set(wf_input(f, WF_U8, 1, shape));
    wf_tv *y = wf_set(wf_input(f, WF_U8, 1, shape));
    wf_output(f, x);
    wf_output(f, y);
    wf_tv_parallelize(x, 0, WF_TIDX);
    wf_tv_parallelize(y, 0, WF_TIDY);
    check_compile_error(TS, f,
                        "invalid number of threads: the block needs 4294967296 x 4294967296 "
                        "x 1 = more than 2^63 threads; CUDA allows at most 1024 per block, "
                        "1024 along x and y and 64 along z (TIDx from T1's axis "
                        "ithreadIdx.x1{4294967296}, TIDy from T3's axis "
                        "ithreadIdx.y3{4294967296}); split an axis and parallelize only its "
                        "inner part on threads");
    wf_fusion_free(f);
}

/* A symbolic TIDz: refused per launch on both backends when above 64, run
   when not. */
TEST(launch_symbolic_tidz_is_checked_per_launch_on_both_backends) {
    wf_tv *out;
    wf_fusion *f = copy_2d(-1, 4, WF_TIDZ, WF_TIDX, &out);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        int64_t big[2] = {65, 4}, ok[2] = {64, 4};
        CHECK_EQ_I64(wf_kernel_launch(k)->block[2], -1);
        run_both(TS, k, 2, big, WF_ERR_SCHEDULE,
                 "invalid number of threads: the block needs 4 x 1 x 65 = 260 threads; CUDA "
                 "allows at most 1024 per block, 1024 along x and y and 64 along z (TIDx from "
                 "T1's axis ithreadIdx.x3{4}, TIDz from T1's axis ithreadIdx.z2{T0.size[0]}); "
                 "split an axis and parallelize only its inner part on threads");
        run_both(TS, k, 2, ok, WF_OK, "");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* 40 x 40 threads at run time: 1600, over 1024, though each dim is fine. */
TEST(launch_symbolic_thread_product_is_checked_per_launch) {
    wf_tv *out;
    wf_fusion *f = copy_2d(-1, -1, WF_TIDY, WF_TIDX, &out);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        int64_t big[2] = {40, 40}, ok[2] = {32, 32};
        run_both(TS, k, 2, big, WF_ERR_SCHEDULE,
                 "invalid number of threads: the block needs 40 x 40 x 1 = 1600 threads; CUDA "
                 "allows at most 1024 per block, 1024 along x and y and 64 along z (TIDx from "
                 "T1's axis ithreadIdx.x3{T0.size[1]}, TIDy from T1's axis "
                 "ithreadIdx.y2{T0.size[0]}); split an axis and parallelize only its inner part "
                 "on threads");
        run_both(TS, k, 2, ok, WF_OK, "");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* ---- the grid ---- */

TEST(launch_constant_bidy_of_70000_is_a_compile_error) {
    wf_tv *out;
    wf_fusion *f = copy_2d(70000, 2, WF_BIDY, WF_TIDX, &out);
    check_compile_error(TS, f,
                        "invalid grid: the launch needs 1 x 70000 x 1 blocks; CUDA allows at "
                        "most 2147483647 along x and 65535 along y and z (BIDy from T1's axis "
                        "iblockIdx.y2{70000}); put the largest axis on BIDx, or split an axis "
                        "over two block dimensions");
    wf_fusion_clear_error(f);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The executor ran grids the CUDA path refused: now both refuse, alike. */
TEST(launch_symbolic_bidy_of_70000_is_refused_by_both_backends) {
    wf_tv *out;
    wf_fusion *f = copy_2d(-1, 2, WF_BIDY, WF_TIDX, &out);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        int64_t big[2] = {70000, 2}, ok[2] = {65535, 2};
        run_both(TS, k, 2, big, WF_ERR_SCHEDULE,
                 "invalid grid: the launch needs 1 x 70000 x 1 blocks; CUDA allows at most "
                 "2147483647 along x and 65535 along y and z (BIDy from T1's axis "
                 "iblockIdx.y2{T0.size[0]}); put the largest axis on BIDx, or split an axis over "
                 "two block dimensions");
        run_both(TS, k, 2, ok, WF_OK, "");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* ---- shared memory per block ---- */

/* in -> shared tile (whole tensor, not inlined) -> out. */
static wf_fusion *through_shared(int64_t s0, int64_t s1) {
    int64_t shape[2] = {s0, s1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(s);
    wf_output(f, out);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    return f;
}

TEST(launch_4_tib_shared_tile_is_a_compile_error) {
    wf_fusion *f = through_shared(1 << 20, 1 << 20);
    check_compile_error(TS, f,
                        "the kernel needs 4398046511104 bytes of shared memory per block, but "
                        "CUDA allows at most 232448 (227 KiB): T1 alone needs 4398046511104; "
                        "use smaller shared-memory tiles");
    wf_fusion_free(f);
}

/* 512 x 512 floats are 1 MiB: the executor used to run it "fine". */
TEST(launch_1_mib_shared_tile_is_a_compile_error) {
    wf_fusion *f = through_shared(512, 512);
    check_compile_error(TS, f,
                        "the kernel needs 1048576 bytes of shared memory per block, but CUDA "
                        "allows at most 232448 (227 KiB): T1 alone needs 1048576; use smaller "
                        "shared-memory tiles");
    wf_fusion_free(f);
}

/* A tile sized at run time: 512 x 512 refused by both backends, 64 x 64 runs. */
TEST(launch_symbolic_shared_tile_is_checked_per_launch) {
    wf_fusion *f = through_shared(-1, -1);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        int64_t big[2] = {512, 512}, ok[2] = {64, 64};
        run_both(TS, k, 2, big, WF_ERR_SCHEDULE,
                 "the kernel needs 1048576 bytes of shared memory per block, but CUDA allows at "
                 "most 232448 (227 KiB); use smaller shared-memory tiles");
        run_both(TS, k, 2, ok, WF_OK, "");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* Exactly the limit compiles. */
TEST(launch_shared_tile_of_exactly_232448_bytes_compiles) {
    wf_fusion *f = through_shared(227, 256);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 232448);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- local memory per thread ---- */

/* A register tensor not inlined: each thread holds all 2^20 floats. */
TEST(launch_forgotten_inline_of_1m_floats_per_thread_is_a_compile_error) {
    int64_t shape[1] = {1 << 20};
    wf_fusion *f = wf_fusion_new();
    wf_tv *r = wf_unary(WF_NEG, wf_input(f, WF_F32, 1, shape));
    wf_tv *out = wf_set(r);
    wf_output(f, out);
    wf_tv_split(out, 0, 128);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    check_compile_error(
        TS, f,
        "T1 needs 4194304 bytes of local memory per thread (1048576 elements "
        "of float), but CUDA allows at most 524288 (512 KiB); inline T1 into "
        "its consumers (wf_tv_inline_at, wf_inline_most) so that each thread "
        "keeps only the elements it uses, or put it in shared memory (at most 227 KiB "
        "per block; this build keeps no intermediate in global memory)");
    wf_fusion_clear_error(f);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Two register tensors of 384 KiB each: each fits, together they do not. */
TEST(launch_local_memory_per_thread_counts_every_allocation) {
    int64_t shape[1] = {96 << 10};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *r1 = wf_unary(WF_NEG, a), *r2 = wf_unary(WF_ABS, a);
    wf_output(f, wf_add(r1, r2));
    check_compile_error(TS, f,
                        "the kernel needs 786432 bytes of local memory per thread, but CUDA "
                        "allows at most 524288 (512 KiB); inline its register tensors further "
                        "(wf_tv_inline_at, wf_inline_most) or put some in shared memory");
    wf_fusion_free(f);
}
