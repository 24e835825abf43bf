/*
 * test_tir_reduce.c -- reduction blocks (T.init + `+=` / T.max over reduce iters)
 * built through the core's wf_reduce: serial, with the reduce loop bound to threadIdx
 * (TVM's cross-thread reduction -> the core's block reduction), run on the CPU
 * executor against a plain C reference and compiled with NVRTC for sm_90a.
 */
#include <math.h>

#include "harness.h"
#include "tir_sources.h"

#define TIR_ROWSUM                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def rowsum(A: T.Buffer((8, 256), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"            \
    "    for i, k in T.grid(8, 256):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] += A[vi, vk]\n"

#define TIR_COLMAX                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def colmax(A: T.Buffer((64, 16), \"float32\"), B: T.Buffer((16,), \"float32\")):\n"           \
    "    for k, j in T.grid(64, 16):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vk, vj = T.axis.remap(\"RS\", [k, j])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vj] = T.float32(\"-inf\")\n"                                                \
    "            B[vj] = T.max(B[vj], A[vk, vj])\n"

static float a_val(int x) {
    return (float)((x * 37) % 101) * 0.125f - 6.0f;
}

/* Runs k on the executor and checks B[i] = the sum of row i, summed as the core does
   (serial order, or the block reduction's tree: compared with a tolerance). */
static void run_rowsum(test_state *ts_, wf_kernel *k) {
    static float a[8 * 256], b[8];
    for (int x = 0; x < 8 * 256; x++)
        a[x] = a_val(x);
    for (int i = 0; i < 8; i++)
        b[i] = NAN;
    wf_buffer in[1] = {{a, WF_F32, 2, {8, 256}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {8}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        double s = 0;
        for (int j = 0; j < 256; j++)
            s += a[i * 256 + j];
        bad += !(fabs(s - b[i]) <= 1e-3);
    }
    CHECK_EQ_I64(bad, 0);
}

TEST(tir_reduce_serial_rowsum) {
    wf_tir *s = wf_tir_parse(TIR_ROWSUM);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    wf_tir_bind(s, l[0], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 8);
    CHECK_HAS(wf_kernel_source(k), "for (");
    run_rowsum(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* The reduce loop bound to threadIdx.x: TVM's cross-thread reduction, the core's
   block reduction (an all-reduce over 128 threads, 2 elements each serially). */
TEST(tir_reduce_cross_thread_rowsum) {
    wf_tir *s = wf_tir_parse(TIR_ROWSUM);
    wf_tir_loop *l[2], *kk[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    int64_t f[2] = {-1, 128};
    wf_tir_split(s, l[1], 2, f, kk);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_bind(s, kk[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], 8);
    CHECK_EQ_I64(li->block[0], 128);
    CHECK_HAS(wf_kernel_source(k), "wf_block_reduce");
    run_rowsum(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_reduce_max_reduce_iter_outer) {
    wf_tir *s = wf_tir_parse(TIR_COLMAX);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    wf_tir_bind(s, l[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    static float a[64 * 16], b[16];
    for (int x = 0; x < 64 * 16; x++)
        a[x] = a_val(x);
    wf_buffer in[1] = {{a, WF_F32, 2, {64, 16}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {16}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int j = 0; j < 16; j++) {
        float m = -INFINITY;
        for (int i = 0; i < 64; i++)
            m = fmaxf(m, a[i * 16 + j]);
        bad += m != b[j];
    }
    CHECK_EQ_I64(bad, 0);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Seed 004's build_and_test on the executor: B = sum(A) at every position. The
   serial sum of a thread is compared exactly with the same order in C. */
static void run_sum_broadcast(test_state *ts_, wf_kernel *k) {
    static float a[256], b[256];
    float sum = 0;
    for (int x = 0; x < 256; x++)
        a[x] = a_val(x), sum += a[x], b[x] = NAN;
    wf_buffer in[1] = {{a, WF_F32, 1, {256}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {256}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 256; x++)
        bad += b[x] != sum;
    CHECK_EQ_I64(bad, 0);
}

/* In [2]-[4]: split i by [2, 128], bind blockIdx.x / threadIdx.x. */
static wf_tir *seed004_bound(wf_tir_loop **io) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "sum_broadcast"), l, 2);
    int64_t f[2] = {2, 128};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    return s;
}

/* In [5]: 128 threads x 2 blocks, each thread a serial sum over all of A (A[vk] does
   not use vi: the value is expanded over vi). */
TEST(tir_reduce_seed004_in5) {
    wf_tir_loop *io[2];
    wf_tir *s = seed004_bound(io);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], 2);
    CHECK_EQ_I64(li->block[0], 128);
    CHECK_EQ_I64(li->smem_bytes, 0);
    CHECK_HAS(wf_kernel_source(k), "  wf_acc1 = (float)0;\n"
                                   "  for (wf_index i0 = 0; i0 < 256; ++i0) {\n");
    CHECK_HAS(wf_kernel_source(k), "  }\n  T2[blockIdx.x * 128 + threadIdx.x] = wf_acc1;\n}");
    run_sum_broadcast(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* In [6]-[9]: cache_read to shared, compute_at the thread loop, the cooperative fetch
   (the copy loop split by 128, its inner loop on threadIdx.x). The stage's blockIdx.x
   and outer threadIdx.x loops are implicit: a 256-float shared buffer filled by 2
   strided loads per thread, a barrier, then the reduction. */
TEST(tir_reduce_seed004_in9_cooperative_fetch) {
    wf_tir_loop *io[2], *ax[3], *a2[2];
    wf_tir *s = seed004_bound(io);
    wf_tir_block *sh = wf_tir_cache_read(s, wf_tir_get_block(s, "sum_broadcast"), 0, "shared");
    wf_tir_compute_at(s, sh, io[1]);
    CHECK_EQ_I64(wf_tir_get_loops(s, sh, ax, 3), 3);
    int64_t f[2] = {-1, 128};
    wf_tir_split(s, ax[2], 2, f, a2);
    wf_tir_bind(s, a2[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], 2);
    CHECK_EQ_I64(li->block[0], 128);
    CHECK_EQ_I64(li->smem_bytes, 256 * 4);
    CHECK_HAS(wf_kernel_source(k), "  for (wf_index i0 = 0; i0 < 2; ++i0) {\n"
                                   "    T1[i0 * 128 + threadIdx.x] = T0[i0 * 128 + threadIdx.x];\n"
                                   "  }\n"
                                   "  wf_acc1 = (float)0;\n"
                                   "  __syncthreads();\n"
                                   "  for (wf_index i1 = 0; i1 < 256; ++i1) {\n");
    run_sum_broadcast(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* In [7] without the split: the stage under the threadIdx loop it neither uses nor
   binds (a loop-domain broadcast IterDomain there) is copied by one thread per block,
   not raced by all of them, then a barrier. */
TEST(tir_reduce_seed004_in7_one_thread_copies) {
    wf_tir_loop *io[2];
    wf_tir *s = seed004_bound(io);
    wf_tir_block *sh = wf_tir_cache_read(s, wf_tir_get_block(s, "sum_broadcast"), 0, "shared");
    wf_tir_compute_at(s, sh, io[1]);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i0 = 0; i0 < 256; ++i0) {\n"
                                       "    if (threadIdx.x == 0) {\n"
                                       "      T1[i0] = T0[i0];\n"
                                       "    }\n"
                                       "  }\n");
        CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
        run_sum_broadcast(ts_, k);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_reduce_refuses_other_init) {
    wf_tir *s = wf_tir_parse("@T.prim_func\n"
                             "def f(A: T.Buffer((8, 4), \"float32\"), B: T.Buffer((8,), "
                             "\"float32\")):\n"
                             "    for i, k in T.grid(8, 4):\n"
                             "        with T.block(\"B\"):\n"
                             "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                             "            with T.init():\n"
                             "                B[vi] = T.float32(1)\n"
                             "            B[vi] += A[vi, vk]\n");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: the T.init() of block \"B\" stores a "
                               "value other than the reduction's initial value (0 for +); the "
                               "core starts a reduction at that value (add the constant in a "
                               "separate block)");
    wf_tir_free(s);
}

/* Loads at a subset of the iters: an outer product (both operands broadcast) and a
   row repeated down the rows (expanded over vi), split and bound. */
TEST(tir_reduce_broadcast_and_expand_spatial) {
    wf_tir *s = wf_tir_parse("@T.prim_func\n"
                             "def f(A: T.Buffer((16,), \"float32\"), B: T.Buffer((32,), "
                             "\"float32\"), C: T.Buffer((16, 32), \"float32\"), "
                             "D: T.Buffer((16, 32), \"float32\")):\n"
                             "    for i, j in T.grid(16, 32):\n"
                             "        with T.block(\"C\"):\n"
                             "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                             "            C[vi, vj] = A[vi] * B[vj]\n"
                             "    for i, j in T.grid(16, 32):\n"
                             "        with T.block(\"D\"):\n"
                             "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                             "            D[vi, vj] = B[vj]\n");
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "D"), l, 2);
    wf_tir_bind(s, l[1], "threadIdx.x");
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 2);
    wf_tir_bind(s, l[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    static float a[16], b[32], c[16 * 32], d[16 * 32];
    for (int x = 0; x < 16; x++)
        a[x] = a_val(x);
    for (int x = 0; x < 32; x++)
        b[x] = a_val(x + 100);
    for (int x = 0; x < 16 * 32; x++)
        c[x] = d[x] = NAN;
    wf_buffer in[2] = {{a, WF_F32, 1, {16}, {0}, -1}, {b, WF_F32, 1, {32}, {0}, -1}};
    wf_buffer out[2] = {{c, WF_F32, 2, {16, 32}, {0}, -1}, {d, WF_F32, 2, {16, 32}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 2), WF_OK);
    int bad = 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 32; j++)
            bad += c[i * 32 + j] != a[i] * b[j] || d[i * 32 + j] != b[j];
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* T.float32("-inf") reads back what the printer writes; other strings are refused. */
TEST(tir_reduce_nonfinite_constants_round_trip) {
    wf_tir *s = wf_tir_parse(TIR_COLMAX);
    CHECK_HAS(wf_tir_script(s), "                B[vj] = T.float32(\"-inf\")\n");
    wf_tir *s2 = wf_tir_parse(wf_tir_script(s));
    CHECK_STR(wf_tir_error(s2), "");
    CHECK_STR(wf_tir_script(s2), wf_tir_script(s));
    wf_tir_free(s2);
    wf_tir_free(s);
    s = wf_tir_parse("@T.prim_func\n"
                     "def f(B: T.Buffer((4,), \"float32\")):\n"
                     "    for i in range(4):\n"
                     "        with T.block(\"B\"):\n"
                     "            vi = T.axis.spatial(4, i)\n"
                     "            B[vi] = T.float32(\"big\")\n");
    CHECK_STR(wf_tir_error(s), "6:31: unsupported: a string constant other than \"inf\", \"-inf\" "
                               "or \"nan\" of a float type\n"
                               "            B[vi] = T.float32(\"big\")\n"
                               "                              ^");
    wf_tir_free(s);
}
