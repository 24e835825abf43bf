/*
 * test_tir_classic.c -- TVM's classic GPU schedules written in TensorIR, printed as
 * TVM prints them (test_tir_classic_golden.h, from tests/tir/gen_golden_classic.py),
 * built through the core's compute_at / reverse_compute_at and run on the executor:
 * - the tiled matmul: i and j split in three (4 x 4 threads, 4 x 4 per thread), k in
 *   two; C_local written back by reverse_compute_at at j_1; A and B cache_read to
 *   shared at k_0, fused, split [None, 4, 4] and bound (a cooperative fetch);
 *   integer-valued data, bit-exact against a double reference; 128^3 and 100^3;
 * - a transpose through a shared tile computed at the block loop j_0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "test_tir_classic_golden.h"

static const char *matmul_source(int n) {
    static char text[1024];
    snprintf(text, sizeof text,
             "@T.prim_func\n"
             "def matmul(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), \"float32\"), "
             "C: T.Buffer((%d, %d), \"float32\")):\n"
             "    T.func_attr({\"global_symbol\": \"matmul\"})\n"
             "    for i, j, k in T.grid(%d, %d, %d):\n"
             "        with T.block(\"C\"):\n"
             "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
             "            with T.init():\n"
             "                C[vi, vj] = T.float32(0)\n"
             "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
             n, n, n, n, n, n, n, n, n);
    return text;
}

static wf_tir *classic_matmul(int n) {
    wf_tir *s = wf_tir_parse(matmul_source(n));
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *ijk[3], *i[3], *j[3], *k[2];
    int64_t f44[3] = {-1, 4, 4}, f8[2] = {-1, 8};
    wf_tir_get_loops(s, c, ijk, 3);
    wf_tir_split(s, ijk[0], 3, f44, i);
    wf_tir_split(s, ijk[1], 3, f44, j);
    wf_tir_split(s, ijk[2], 2, f8, k);
    wf_tir_loop *order[8] = {i[0], j[0], i[1], j[1], k[0], k[1], i[2], j[2]};
    wf_tir_reorder(s, 8, order);
    wf_tir_bind(s, i[0], "blockIdx.y");
    wf_tir_bind(s, j[0], "blockIdx.x");
    wf_tir_bind(s, i[1], "threadIdx.y");
    wf_tir_bind(s, j[1], "threadIdx.x");
    wf_tir_block *cl = wf_tir_cache_write(s, c, 0, "local");
    wf_tir_reverse_compute_at(s, cl, j[1]);
    for (int idx = 0; idx < 2; idx++) {
        wf_tir_block *st = wf_tir_cache_read(s, c, idx, "shared");
        wf_tir_compute_at(s, st, k[0]);
        wf_tir_loop *l[8], *f3[3];
        int nl = wf_tir_get_loops(s, st, l, 8);
        wf_tir_loop *f = wf_tir_fuse(s, 2, l + nl - 2);
        wf_tir_split(s, f, 3, f44, f3);
        wf_tir_bind(s, f3[1], "threadIdx.y");
        wf_tir_bind(s, f3[2], "threadIdx.x");
    }
    return s;
}

static void run_matmul(test_state *ts_, wf_kernel *k, int64_t n) {
    float *a = malloc(sizeof(float) * (size_t)(n * n)),
          *b = malloc(sizeof(float) * (size_t)(n * n));
    float *c = malloc(sizeof(float) * (size_t)(n * n));
    for (int64_t x = 0; x < n * n; x++) {
        a[x] = (float)((x * 7 + 3) % 9 - 4);
        b[x] = (float)((x * 5 + 1) % 9 - 4);
        c[x] = NAN;
    }
    wf_buffer in[2] = {{a, WF_F32, 2, {n, n}, {0}, -1}, {b, WF_F32, 2, {n, n}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {n, n}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    CHECK_STR(wf_last_run_error(k), "");
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            double r = 0;
            for (int64_t q = 0; q < n; q++)
                r += (double)a[i * n + q] * (double)b[q * n + j];
            bad += !((double)c[i * n + j] == r);
        }
    CHECK_EQ_I64(bad, 0);
    free(a);
    free(b);
    free(c);
}

static void check_matmul(test_state *ts_, int n, const char *golden) {
    wf_tir *s = classic_matmul(n);
    CHECK_STR(wf_tir_error(s), "");
    if (golden) /* NULL: the T.where of a three-way split with a tail prints unlike TVM */
        CHECK_STR(wf_tir_script(s), golden);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], (n + 15) / 16);
        CHECK_EQ_I64(li->grid[1], (n + 15) / 16);
        CHECK_EQ_I64(li->block[0], 4);
        CHECK_EQ_I64(li->block[1], 4);
        CHECK_EQ_I64(li->smem_bytes, 2 * 128 * 4);
        run_matmul(ts_, k, n);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_classic_matmul_128) {
    check_matmul(ts_, 128, golden_classic_matmul_128);
}

TEST(tir_classic_matmul_100) {
    check_matmul(ts_, 100, NULL);
}

/* ---- a transpose through a shared tile computed at the block loop j_0 ---- */

static wf_tir *transpose_tile(int m, int n) {
    char text[1024];
    snprintf(text, sizeof text,
             "@T.prim_func\n"
             "def transpose(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), "
             "\"float32\")):\n"
             "    T.func_attr({\"global_symbol\": \"transpose\"})\n"
             "    for i, j in T.grid(%d, %d):\n"
             "        with T.block(\"B\"):\n"
             "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
             "            B[vi, vj] = A[vj, vi]\n",
             m, n, n, m, n, m);
    wf_tir *s = wf_tir_parse(text);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *ij[2], *i[2], *j[2];
    int64_t f8[2] = {-1, 8};
    wf_tir_get_loops(s, b, ij, 2);
    wf_tir_split(s, ij[0], 2, f8, i);
    wf_tir_split(s, ij[1], 2, f8, j);
    wf_tir_loop *order[4] = {i[0], j[0], i[1], j[1]};
    wf_tir_reorder(s, 4, order);
    wf_tir_bind(s, i[0], "blockIdx.y");
    wf_tir_bind(s, j[0], "blockIdx.x");
    wf_tir_bind(s, i[1], "threadIdx.y");
    wf_tir_bind(s, j[1], "threadIdx.x");
    wf_tir_block *st = wf_tir_cache_read(s, b, 0, "shared");
    wf_tir_compute_at(s, st, j[0]);
    wf_tir_loop *l[4];
    int nl = wf_tir_get_loops(s, st, l, 4);
    wf_tir_bind(s, l[nl - 2], "threadIdx.y");
    wf_tir_bind(s, l[nl - 1], "threadIdx.x");
    return s;
}

static void check_transpose(test_state *ts_, int m, int n, const char *golden) {
    wf_tir *s = transpose_tile(m, n);
    CHECK_STR(wf_tir_error(s), "");
    CHECK_STR(wf_tir_script(s), golden);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 64 * 4);
        CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
        float *a = malloc(sizeof(float) * (size_t)(m * n)),
              *b = malloc(sizeof(float) * (size_t)(m * n));
        for (int x = 0; x < m * n; x++)
            a[x] = (float)x, b[x] = NAN;
        wf_buffer in[1] = {{a, WF_F32, 2, {m, n}, {0}, -1}};
        wf_buffer out[1] = {{b, WF_F32, 2, {n, m}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
        CHECK_STR(wf_last_run_error(k), "");
        int bad = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < m; j++)
                bad += !(b[i * m + j] == a[j * n + i]);
        CHECK_EQ_I64(bad, 0);
        free(a);
        free(b);
        (void)harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_classic_transpose_shared_tile) {
    check_transpose(ts_, 16, 24, golden_classic_transpose_16_24);
    check_transpose(ts_, 13, 21, golden_classic_transpose_13_21);
}
