/*
 * test_tir_matmul.c -- the acceptance's tiled matmul (seed 004's front door, issue 12)
 * built from TensorIR and run: C[i, j] += A[i, k] * B[k, j] with i, j split by 16 and
 * bound to blocks (and threads), k split into k_0, k_1, A and B cache_read to shared
 * memory and computed at k_0 (a cooperative fetch when threads are bound), C
 * cache_written to a local accumulator and written back by reverse_compute_at. The
 * shared stages sit under loops they do not index (j_0 for A_shared, i_0 for B_shared,
 * and the thread loops): loop-domain broadcast IterDomains in the core. Each kernel is
 * compiled with NVRTC and run on the CPU executor against a matmul computed here, in
 * the same summation order, on random data: the results must be equal.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "test_tir_golden.h"
#include "test_tir_matmul_golden.h"
#include "tir_sources.h"

#define SCRIPT_IS(s, golden) CHECK_STR(wf_tir_script(s), golden)

enum { NMAX = 64 };

/* The matmul program of tir_sources.h for n x n x n. */
static const char *matmul_source(int n) {
    static char text[1024];
    snprintf(text, sizeof text,
             "@T.prim_func\n"
             "def matmul(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), \"float32\"), "
             "C: T.Buffer((%d, %d), \"float32\")):\n"
             "    for i, j, k in T.grid(%d, %d, %d):\n"
             "        with T.block(\"C\"):\n"
             "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
             "            with T.init():\n"
             "                C[vi, vj] = T.float32(0)\n"
             "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
             n, n, n, n, n, n, n, n, n);
    return text;
}

/* Random n x n operands in [-1, 1), C poisoned; the kernel's result must equal the
   reference summed over k in order (as the kernel's serial k_0, k_1 loops do). */
static void run_matmul(test_state *ts_, wf_kernel *k, int N, unsigned seed) {
    static float a[NMAX * NMAX], b[NMAX * NMAX], c[NMAX * NMAX];
    srand(seed);
    for (int x = 0; x < N * N; x++) {
        a[x] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        b[x] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
        c[x] = NAN;
    }
    wf_buffer in[2] = {{a, WF_F32, 2, {N, N}, {0}, -1}, {b, WF_F32, 2, {N, N}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {N, N}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    CHECK_STR(wf_last_run_error(k), "");
    int bad = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            float s = 0.0f;
            for (int kk = 0; kk < N; kk++) {
                float p = a[i * N + kk] * b[kk * N + j];
                s = s + p;
            }
            bad += !(c[i * N + j] == s);
        }
    CHECK_EQ_I64(bad, 0);
}

typedef struct {
    wf_tir *s;
    wf_tir_block *c, *cl, *a, *b;
    wf_tir_loop *i[2], *j[2], *k[2];
} mm;

/* Tile i, j by 16 and k by 8, nested as order[] says (indices into i0 j0 k0 i1 j1 k1). */
static mm tile(int n, const int *order) {
    mm m;
    m.s = wf_tir_parse(matmul_source(n));
    m.c = wf_tir_get_block(m.s, "C");
    wf_tir_loop *ijk[3];
    int64_t f16[2] = {-1, 16}, f8[2] = {-1, 8};
    wf_tir_get_loops(m.s, m.c, ijk, 3);
    wf_tir_split(m.s, ijk[0], 2, f16, m.i);
    wf_tir_split(m.s, ijk[1], 2, f16, m.j);
    wf_tir_split(m.s, ijk[2], 2, f8, m.k);
    wf_tir_loop *all[6] = {m.i[0], m.j[0], m.k[0], m.i[1], m.j[1], m.k[1]}, *o[6];
    for (int x = 0; x < 6; x++)
        o[x] = all[order[x]];
    wf_tir_reorder(m.s, 6, o);
    return m;
}

/* The golden schedule step by step (TVM's printed programs), then built: one thread
   per block, the shared tiles filled and read by it in each k_0 step. */
TEST(tir_matmul_golden_schedule_builds_and_runs) {
    static const int order[6] = {0, 1, 2, 3, 4, 5};
    mm m = tile(64, order);
    SCRIPT_IS(m.s, golden_matmul_tiled_tile);
    m.cl = wf_tir_cache_write(m.s, m.c, 0, "local");
    wf_tir_reverse_compute_at(m.s, m.cl, m.j[0]);
    m.a = wf_tir_cache_read(m.s, m.c, 0, "shared");
    m.b = wf_tir_cache_read(m.s, m.c, 1, "shared");
    wf_tir_compute_at(m.s, m.a, m.k[0]);
    wf_tir_compute_at(m.s, m.b, m.k[0]);
    SCRIPT_IS(m.s, golden_matmul_tiled_compute_at);
    wf_tir_bind(m.s, m.i[0], "blockIdx.x");
    wf_tir_bind(m.s, m.j[0], "blockIdx.y");
    SCRIPT_IS(m.s, golden_matmul_tiled_bind);
    wf_kernel *k = wf_tir_build(m.s, NULL);
    CHECK_STR(wf_tir_error(m.s), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], 4);
        CHECK_EQ_I64(li->grid[1], 4);
        CHECK_EQ_I64(li->block[0], 1);
        CHECK_EQ_I64(li->smem_bytes, 2 * 16 * 8 * 4);
        CHECK_HAS(wf_kernel_source(k), "  float *T2 = reinterpret_cast<float *>(wf_smem + 0);\n"
                                       "  float *T3 = reinterpret_cast<float *>(wf_smem + 512);\n"
                                       "  float T8[256];\n");
        CHECK_HAS(wf_kernel_source(k),
                  "  for (wf_index i0 = 0; i0 < 8; ++i0) {\n"
                  "    for (wf_index i1 = 0; i1 < 16; ++i1) {\n"
                  "      for (wf_index i2 = 0; i2 < 8; ++i2) {\n"
                  "        T2[i1 * 8 + i2] = T0[blockIdx.x * 1024 + i1 * 64 + i0 * 8 + i2];\n"
                  "      }\n"
                  "    }\n"
                  "    for (wf_index i3 = 0; i3 < 8; ++i3) {\n"
                  "      for (wf_index i4 = 0; i4 < 16; ++i4) {\n"
                  "        T3[i3 * 16 + i4] = T1[i0 * 512 + i3 * 64 + blockIdx.y * 16 + i4];\n");
        CHECK_HAS(wf_kernel_source(k),
                  "          T8[i5 * 16 + i6] = wf_radd((float)T8[i5 * 16 + i6], (float)T7[0]);\n");
        run_matmul(ts_, k, 64, 1);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(m.s);
}

/* A cache_read stage's copy loops fused and split over the 16 x 16 threads (TVM's
   cooperative fetch): 128 elements, so split [None, 16, 16] infers 1 and adds a
   T.where for the other half of the threads. */
static void cooperative_fetch(mm *m, wf_tir_block *stage) {
    wf_tir_loop *l[8], *f3[3];
    int n = wf_tir_get_loops(m->s, stage, l, 8);
    wf_tir_loop *f = wf_tir_fuse(m->s, 2, l + n - 2);
    int64_t fs[3] = {-1, 16, 16};
    wf_tir_split(m->s, f, 3, fs, f3);
    wf_tir_bind(m->s, f3[1], "threadIdx.y");
    wf_tir_bind(m->s, f3[2], "threadIdx.x");
}

/* The schedule of TVM's GPU matmul tutorials: blocks of 16 x 16 threads, each thread
   one element of C in a register; per k_0 step the threads fill the two shared tiles
   together, wait, multiply, and wait again before the next step refills them. */
static mm threaded(int n) {
    static const int order[6] = {0, 1, 3, 4, 2, 5}; /* i_0 j_0 i_1 j_1 k_0 k_1 */
    mm m = tile(n, order);
    m.cl = wf_tir_cache_write(m.s, m.c, 0, "local");
    wf_tir_reverse_compute_at(m.s, m.cl, m.j[1]);
    wf_tir_bind(m.s, m.i[0], "blockIdx.x");
    wf_tir_bind(m.s, m.j[0], "blockIdx.y");
    wf_tir_bind(m.s, m.i[1], "threadIdx.y");
    wf_tir_bind(m.s, m.j[1], "threadIdx.x");
    m.a = wf_tir_cache_read(m.s, m.c, 0, "shared");
    m.b = wf_tir_cache_read(m.s, m.c, 1, "shared");
    wf_tir_compute_at(m.s, m.a, m.k[0]);
    wf_tir_compute_at(m.s, m.b, m.k[0]);
    cooperative_fetch(&m, m.a);
    cooperative_fetch(&m, m.b);
    return m;
}

TEST(tir_matmul_threads_cooperative_fetch) {
    mm m = threaded(64);
    CHECK_STR(wf_tir_error(m.s), "");
    SCRIPT_IS(m.s, golden_matmul_threads_64);
    wf_kernel *k = wf_tir_build(m.s, NULL);
    CHECK_STR(wf_tir_error(m.s), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], 4);
        CHECK_EQ_I64(li->grid[1], 4);
        CHECK_EQ_I64(li->block[0], 16);
        CHECK_EQ_I64(li->block[1], 16);
        /* each tile laid out as its split dims (16 x 8), not over the fetch's 16 x 16
           threads */
        CHECK_EQ_I64(li->smem_bytes, 2 * 128 * 4);
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "  float *T2 = reinterpret_cast<float *>(wf_smem + 0);\n"
                       "  float *T3 = reinterpret_cast<float *>(wf_smem + 512);\n"
                       "  float T8[1];\n"
                       "  T8[0] = (float)0;\n"
                       "  for (wf_index i0 = 0; i0 < 8; ++i0) {\n");
        CHECK_HAS(src, "      T2[threadIdx.y * 16 + threadIdx.x] = T0[blockIdx.x * 1024 + "
                       "threadIdx.y * 128 + threadIdx.x / 8 * 64 + i0 * 8 + threadIdx.x % 8];\n");
        CHECK_HAS(src, "      T3[threadIdx.y * 16 + threadIdx.x] = T1[i0 * 512 + threadIdx.y * "
                       "64 + blockIdx.y * 16 + threadIdx.x];\n"
                       "    }\n"
                       "    __syncthreads();\n"
                       "    for (wf_index i1 = 0; i1 < 8; ++i1) {\n");
        CHECK_HAS(src, "      T8[0] = wf_radd((float)T8[0], (float)T7[0]);\n"
                       "    }\n"
                       "    __syncthreads();\n"
                       "  }\n"
                       "  T9[blockIdx.x * 1024 + threadIdx.y * 64 + blockIdx.y * 16 + "
                       "threadIdx.x] = T8[0];\n");
        run_matmul(ts_, k, 64, 2);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(m.s);
}

/* 60 x 60 x 60: the splits by 16 and 8 leave tails (T.where in every block, as TVM
   prints them); the kernel predicates the loads, the products and the stores. */
TEST(tir_matmul_threads_where_tail) {
    mm m = threaded(60);
    CHECK_STR(wf_tir_error(m.s), "");
    SCRIPT_IS(m.s, golden_matmul_threads_60);
    wf_kernel *k = wf_tir_build(m.s, NULL);
    CHECK_STR(wf_tir_error(m.s), "");
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 2 * 128 * 4);
        CHECK_HAS(src,
                  "    if (threadIdx.y < 8 && threadIdx.y * 16 + threadIdx.x < 128 && blockIdx.x "
                  "* 16 + threadIdx.y * 2 + threadIdx.x / 8 < 60 && i0 * 8 + threadIdx.x % 8 "
                  "< 60) {\n"
                  "      T2[threadIdx.y * 16 + threadIdx.x] = T0[blockIdx.x * 960 + "
                  "threadIdx.y * 120 + threadIdx.x / 8 * 60 + i0 * 8 + threadIdx.x % 8];\n"
                  "    }\n");
        CHECK_HAS(src,
                  "    }\n"
                  "    __syncthreads();\n"
                  "  }\n"
                  "  if (blockIdx.x * 16 + threadIdx.y < 60 && blockIdx.y * 16 + threadIdx.x < "
                  "60) {\n"
                  "    T9[blockIdx.x * 960 + threadIdx.y * 60 + blockIdx.y * 16 + "
                  "threadIdx.x] = T8[0];\n");
        run_matmul(ts_, k, 60, 3);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(m.s);
}

/* TVM's printed programs parse back and print identically. */
TEST(tir_matmul_golden_round_trip) {
    const char *all[2] = {golden_matmul_threads_64, golden_matmul_threads_60};
    for (int i = 0; i < 2; i++) {
        wf_tir *s = wf_tir_parse(all[i]);
        CHECK_STR(wf_tir_error(s), "");
        SCRIPT_IS(s, all[i]);
        wf_tir_free(s);
    }
}
