/*
 * test_tir_build.c -- wf_tir_build: a scheduled TIR program lowered through the core,
 * compiled with NVRTC and run on the CPU executor against a plain C reference.
 * Spatial programs build (reductions: test_tir_reduce.c; constants and selects:
 * test_tir_scalar.c); what the core cannot express yet is refused with "not
 * supported yet".
 */
#include <math.h>

#include "harness.h"
#include "test_tir_golden.h"
#include "tir_sources.h"

#define TIR_EW                                                                                     \
    "@T.prim_func\n"                                                                               \
    "def ew(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\"), "              \
    "C: T.Buffer((64, 32), \"float32\")):\n"                                                       \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = T.max(A[vi, vj] * B[vi, vj], A[vi, vj]) + T.exp(B[vi, vj])\n"

static float ew_ref(float a, float b) {
    return fmaxf(a * b, a) + expf(b);
}

/* Runs k on the executor with A, B of 64x32 and checks C against ew_ref. */
static void run_ew(test_state *ts_, wf_kernel *k) {
    static float a[64 * 32], b[64 * 32], c[64 * 32];
    for (int x = 0; x < 64 * 32; x++) {
        a[x] = (float)(x % 7) * 0.5f - 1.0f;
        b[x] = (float)(x % 5) * 0.25f;
        c[x] = NAN;
    }
    wf_buffer in[2] = {{a, WF_F32, 2, {64, 32}, {0}, -1}, {b, WF_F32, 2, {64, 32}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {64, 32}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 64 * 32; x++)
        bad += !(fabsf(ew_ref(a[x], b[x]) - c[x]) <= 1e-5f);
    CHECK_EQ_I64(bad, 0);
}

/* split + bind to blocks and threads (x and y) + unroll: one kernel, 4 blocks of 8x16. */
static wf_tir *ew_scheduled(void) {
    wf_tir *s = wf_tir_parse(TIR_EW);
    wf_tir_block *b = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *i[2], *j[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f16[2] = {-1, 16}, f4[2] = {-1, 4};
    wf_tir_split(s, l[0], 2, f16, i);
    wf_tir_split(s, l[1], 2, f4, j);
    wf_tir_bind(s, i[0], "blockIdx.x");
    wf_tir_bind(s, i[1], "threadIdx.y");
    wf_tir_bind(s, j[0], "threadIdx.x");
    wf_tir_unroll(s, j[1]);
    return s;
}

TEST(tir_build_elementwise_split_bind_unroll) {
    wf_tir *s = ew_scheduled();
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], 4);
    CHECK_EQ_I64(li->block[0], 8);
    CHECK_EQ_I64(li->block[1], 16);
    CHECK_HAS(wf_kernel_source(k), "#pragma unroll");
    run_ew(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* cache_read to shared at the root: a shared copy stage, a barrier, then the compute. */
TEST(tir_build_cache_read_shared_stage) {
    wf_tir *s = ew_scheduled();
    wf_tir_cache_read(s, wf_tir_get_block(s, "C"), 0, "shared");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 64 * 32 * 4);
    CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
    run_ew(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_build_refuses_vectorized_compute) {
    wf_tir *s = wf_tir_parse(TIR_EW);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 2);
    wf_tir_vectorize(s, l[1]);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: the vectorized loop j over block \"C\" "
                               "stores 32 float32 values (128 bytes) at once; a vector access is "
                               "1, 2, 4, 8 or 16 bytes (split j and vectorize an inner loop of "
                               "that size)");
    wf_tir_free(s);
}

/* cache_read + compute_at at the thread loop: as TVM does, the region of a shared
   buffer is relaxed over the threadIdx loops, so each block stages the 16 rows of A its
   threads read (Apache TVM 0.27 prints exactly this); the copy block sits under i_1
   without using it (a loop-domain broadcast IterDomain), then a barrier. */
TEST(tir_build_cache_read_compute_at) {
    wf_tir *s = ew_scheduled();
    wf_tir_loop *l[4];
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_get_loops(s, c, l, 4);
    wf_tir_block *a = wf_tir_cache_read(s, c, 0, "shared");
    wf_tir_compute_at(s, a, l[1]);
    CHECK_HAS(wf_tir_script(s), "            for ax0, ax1 in T.grid(16, 32):\n"
                                "                with T.block(\"A_shared\"):\n"
                                "                    v0 = T.axis.spatial(64, i_0 * 16 + ax0)\n"
                                "                    v1 = T.axis.spatial(32, ax1)\n");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
    run_ew(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

#define TIR_BCAST                                                                                  \
    "@T.prim_func\n"                                                                               \
    "def bc(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((32,), \"float32\"), "                 \
    "C: T.Buffer((64, 32), \"float32\")):\n"                                                       \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = A[vi, vj] + B[vj]\n"

/* A stage computed under a loop its own indices do not use (B_shared under i): a
   loop-domain broadcast IterDomain there: the row of B is copied again in each i step
   (one thread: no barrier is needed). */
TEST(tir_build_compute_at_broadcast_loop) {
    wf_tir *s = wf_tir_parse(TIR_BCAST);
    wf_tir_loop *l[2];
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_block *b = wf_tir_cache_read(s, c, 1, "shared");
    wf_tir_compute_at(s, b, l[0]);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        static float a[64 * 32], bv[32], cv[64 * 32];
        for (int x = 0; x < 64 * 32; x++)
            a[x] = (float)(x % 9) - 4.0f, cv[x] = NAN;
        for (int x = 0; x < 32; x++)
            bv[x] = (float)x * 0.5f;
        wf_buffer in[2] = {{a, WF_F32, 2, {64, 32}, {0}, -1}, {bv, WF_F32, 1, {32}, {0}, -1}};
        wf_buffer out[1] = {{cv, WF_F32, 2, {64, 32}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < 64 * 32; x++)
            bad += cv[x] != a[x] + bv[x % 32];
        CHECK_EQ_I64(bad, 0);
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i0 = 0; i0 < 64; ++i0) {\n"
                                       "    for (wf_index i1 = 0; i1 < 32; ++i1) {\n"
                                       "      T2[i1] = T1[i1];\n"
                                       "    }\n");
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* fuse + split in four (blocks, unroll, threads, vector of 4) on a copy: printed as TVM
   prints it, built as a merge then splits, and every element copied. */
TEST(tir_build_fuse_unroll_vectorize_copy) {
    wf_tir *s = wf_tir_parse(TIR_COPY);
    wf_tir_loop *ij[2], *l[4];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), ij, 2);
    wf_tir_loop *f = wf_tir_fuse(s, 2, ij);
    int64_t fs[4] = {4, 2, -1, 4};
    wf_tir_split(s, f, 4, fs, l);
    wf_tir_bind(s, l[0], "blockIdx.x");
    wf_tir_unroll(s, l[1]);
    wf_tir_bind(s, l[2], "threadIdx.x");
    wf_tir_vectorize(s, l[3]);
    CHECK_STR(wf_tir_script(s), golden_copy_fuse_scheduled);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 4);
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 64);
    CHECK_HAS(wf_kernel_source(k),
              "wf_vec_copy<float, 4>(&T1[blockIdx.x * 512 + i0 * 256 + threadIdx.x * 4]");
    static float a[64 * 32], b[64 * 32];
    for (int x = 0; x < 64 * 32; x++)
        a[x] = (float)x, b[x] = NAN;
    wf_buffer in[1] = {{a, WF_F32, 2, {64, 32}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 2, {64, 32}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* compute_inline twice: one block left, printed as TVM prints it, built and run. */
TEST(tir_build_compute_inline_chain) {
    wf_tir *s = wf_tir_parse(TIR_CHAIN);
    CHECK_STR(wf_tir_script(s), golden_chain_inline_orig);
    wf_tir_compute_inline(s, wf_tir_get_block(s, "X"));
    CHECK_STR(wf_tir_script(s), golden_chain_inline_inline_x);
    wf_tir_compute_inline(s, wf_tir_get_block(s, "Y"));
    CHECK_STR(wf_tir_script(s), golden_chain_inline_inline_y);
    wf_tir_loop *l[1], *io[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 1);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    CHECK_STR(wf_tir_script(s), golden_chain_inline_bind);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    float a[128], b[128], c[128];
    for (int x = 0; x < 128; x++)
        a[x] = (float)(x % 9) * 0.125f - 0.5f, b[x] = (float)(x % 4) * 0.5f, c[x] = NAN;
    wf_buffer in[2] = {{a, WF_F32, 1, {128}, {0}, -1}, {b, WF_F32, 1, {128}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 1, {128}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 128; x++)
        bad += !(fabsf(fmaxf(expf(a[x] * b[x]) + a[x], a[x] * b[x]) - c[x]) <= 1e-5f);
    CHECK_EQ_I64(bad, 0);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

#define TIR_EW2                                                                                    \
    "@T.prim_func\n"                                                                               \
    "def ew2(A: T.Buffer((64, 32), \"float32\"), B: T.Buffer((64, 32), \"float32\"), "             \
    "C: T.Buffer((64, 32), \"float32\")):\n"                                                       \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = T.max(A[vi, vj] * B[vi, vj], A[vi, vj])\n"

/* Runs a 64x32 max(a * b, a) kernel on the executor and checks every element. */
static void run_ew2(test_state *ts_, wf_kernel *k) {
    static float a[64 * 32], b[64 * 32], c[64 * 32];
    for (int x = 0; x < 64 * 32; x++)
        a[x] = (float)(x % 7) * 0.5f - 1.0f, b[x] = (float)(x % 5) * 0.25f, c[x] = NAN;
    wf_buffer in[2] = {{a, WF_F32, 2, {64, 32}, {0}, -1}, {b, WF_F32, 2, {64, 32}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {64, 32}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 64 * 32; x++)
        bad += !(fmaxf(a[x] * b[x], a[x]) == c[x]);
    CHECK_EQ_I64(bad, 0);
}

/* cache_write to local + reverse_compute_at at the block loop: each block computes its
   16x32 tile into a local buffer, then writes it back (TVM's write-back stage). */
TEST(tir_build_cache_write_reverse_compute_at) {
    wf_tir *s = wf_tir_parse(TIR_EW2);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *io[2];
    wf_tir_get_loops(s, c, l, 2);
    int64_t f[2] = {-1, 16};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_reverse_compute_at(s, wf_tir_cache_write(s, c, 0, "local"), io[0]);
    CHECK_HAS(wf_tir_script(s), "        for ax0, ax1 in T.grid(16, 32):\n"
                                "            with T.block(\"C_local\"):\n"
                                "                v0 = T.axis.spatial(64, i_0 * 16 + ax0)\n");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_HAS(wf_kernel_source(k), "float T3[512];");
    CHECK_HAS(wf_kernel_source(k), "T4[blockIdx.x * 512 + i2 * 32 + i3] = T3[i2 * 32 + i3];");
    run_ew2(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* split 32 by [None, 5]: 7 x 5 = 35 iterations, T.where(j_0 * 5 + j_1 < 32) in the
   program and the same predicate in the kernel. */
TEST(tir_build_split_where_predicate) {
    wf_tir *s = wf_tir_parse(TIR_EW2);
    wf_tir_loop *l[2], *jj[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 2);
    int64_t f[2] = {-1, 5};
    wf_tir_split(s, l[1], 2, f, jj);
    CHECK_HAS(wf_tir_script(s), "T.where(j_0 * 5 + j_1 < 32)\n");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k) {
        wf_tir_free(s);
        return;
    }
    CHECK_HAS(wf_kernel_source(k), "if (i1 * 5 + i2 < 32) {");
    run_ew2(ts_, k);
    (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* n blocks writing B of 4: B = A, then B = B + A n - 1 times. */
static wf_tir *blocks_program(int n) {
    static char src[16384];
    snprintf(src, sizeof src,
             "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\"), "
             "B: T.Buffer((4,), \"float32\")):\n");
    for (int i = 0; i < n; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src),
                 "    for i in range(4):\n"
                 "        with T.block(\"B%d\"):\n"
                 "            vi = T.axis.spatial(4, i)\n"
                 "            B[vi] = %sA[vi]\n",
                 i, i ? "B[vi] + " : "");
    return wf_tir_parse(src);
}

/* 64 blocks build (B = 64 A); a 65th was left out of the build, silently (B = 64 A
   again): refused. */
TEST(tir_build_refuses_more_than_64_blocks) {
    wf_tir *s = blocks_program(64);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        float a[4] = {1, 2, 3, 4}, b[4] = {0};
        wf_buffer in[1] = {{a, WF_F32, 1, {4}, {0}, -1}};
        wf_buffer out[1] = {{b, WF_F32, 1, {4}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
        for (int i = 0; i < 4; i++)
            CHECK(b[i] == 64.0f * a[i]);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
    s = blocks_program(65);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: more than 64 blocks");
    wf_tir_free(s);
}

#define TIR_PART(ashape)                                                                           \
    "@T.prim_func\n"                                                                               \
    "def f(A: T.Buffer((" ashape ",), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"           \
    "    for i in range(64):\n"                                                                    \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi = T.axis.spatial(64, i)\n"                                                     \
    "            B[vi] = A[vi] * T.float32(2)\n"

/* A load whose iter does not run over its whole dim: part of the buffer (not supported
   yet) or past its end. Both had said "the value of block "B" does not use iter vi (no
   operand is indexed by it)". */
TEST(tir_build_refuses_load_over_part_or_past_buffer) {
    wf_tir *s = wf_tir_parse(TIR_PART("128"));
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: block \"B\" reads A[vi] over 64 of the 128 elements of "
              "dim 0 of A (its iter vi): the core reads a buffer whole, each dim over an iter of "
              "its extent");
    wf_tir_free(s);
    s = wf_tir_parse(TIR_PART("32"));
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_ARG);
    CHECK_STR(wf_tir_error(s), "build: block \"B\" reads A[vi] out of bounds: its iter vi runs "
                               "over 64 values, but dim 0 of A has 32");
    wf_tir_free(s);
}

/* Nine iters: one dim of the block's tensor each, beyond WF_MAX_RANK (it had said "reads
   A[vi], whose indices are not distinct iters of the block"). */
TEST(tir_build_refuses_more_iters_than_dims) {
    char src[2048] = "@T.prim_func\n"
                     "def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                     "    for i in range(4):\n"
                     "        with T.block(\"B\"):\n"
                     "            vi = T.axis.spatial(4, i)\n";
    for (int i = 0; i < 8; i++)
        snprintf(src + strlen(src), sizeof src - strlen(src),
                 "            vk%d = T.axis.reduce(1, 0)\n", i);
    strcat(src, "            with T.init():\n"
                "                B[vi] = T.float32(0)\n"
                "            B[vi] = B[vi] + A[vi]\n");
    wf_tir *s = wf_tir_parse(src);
    CHECK_STR(wf_tir_error(s), "");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: more than 8 iters in block \"B\"");
    wf_tir_free(s);
}
