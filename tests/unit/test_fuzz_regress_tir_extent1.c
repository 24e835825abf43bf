/*
 * test_fuzz_regress_tir_extent1.c -- TensorIR programs with extent-1 iters
 * that a one-hour fuzz campaign (16 seeds from 20261128, 2.31 M cases) built
 * into core scheduling errors leaking through the front-end:
 *  - rfactor of a split matmul over a row of 1 (fuzz -s 20261141 -c 67326):
 *    the rfactor block's extent-1 spatial iter and its loop's extent-1 axis
 *    were refused as "one loop index cannot stand for both"; a loop of one
 *    iteration has one index, so the core now shares it (analysis/inline.c);
 *    the kernel runs exactly;
 *  - rfactor of a dot product into a 1 x 1 output, its rfactor block's loops
 *    fused (fuzz -s 20261123 -c 330856): inlining it into the final sum's
 *    loops met axes of one iteration that no mapping joins ("axis 0 of T2
 *    is not mapped to axis 0 of its consumer T3"); two loops of one
 *    iteration are one loop (analysis/inline.c), and it runs exactly;
 *  - compute_at of a matmul over a K of 1 with preserve_unit_loops=False
 *    (fuzz -s 20261142 -c 51373 and four more): its reduce iter has no loop,
 *    and merging it into a spatial axis made that a reduction ("axis 1 of T6
 *    is a reduction"); the build now refuses it by the block's names;
 *  - rfactor over a row of 1 whose extent-1 iter vi is bound to 0 by a fuse
 *    (a second one-hour campaign, 2.85 M cases: fuzz -s 20261135 -c 88144,
 *    -s 20261136 -c 34177, -s 20261139 -c 60664): the build joins vi's axis
 *    to the dim next to it, vk in the partials' tensor and vj in its
 *    reader's, and the partials were refused inside their reader's loops
 *    ("T2.inline_at(2): ... axis 1 of T2 is not mapped to axis 1 of its
 *    consumer T3"); a merge with an axis of extent 1 iterates its other
 *    input (analysis/partner.c), and all three run exactly;
 *  - a cache stage computed at a loop of rfactor's partial block when that
 *    block reduces nothing (-s 20261130 -c 432916, running the seeds on): its
 *    buffer had no tensor to place the stage at (now the reduction's, whose
 *    loops are the partial block's in order; refused by name otherwise).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

TEST(fuzz_tir_rfactor_over_a_row_of_one_runs_exactly) {
    wf_tir *s = wf_tir_parse(
        "@T.prim_func\n"
        "def matmul(A: T.Buffer((1, 2), \"float32\"), B: T.Buffer((2, 38), \"float32\"), "
        "C: T.Buffer((1, 38), \"float32\")):\n"
        "    for i, j, k in T.grid(1, 38, 2):\n"
        "        with T.block(\"C\"):\n"
        "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
        "            with T.init():\n"
        "                C[vi, vj] = T.float32(0)\n"
        "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3], *kk[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 3), 3);
    int64_t f4[2] = {-1, 4};
    wf_tir_split(s, l[2], 2, f4, kk);
    wf_tir_loop *ij[2] = {l[0], l[1]};
    wf_tir_fuse(s, 2, ij);
    wf_tir_loop *now[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, now, 3), 3);
    wf_tir_rfactor(s, now[2], 1);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        float a[2] = {3, -2}, b[76], out[38];
        for (int i = 0; i < 76; i++)
            b[i] = (float)(i % 7 - 3);
        wf_buffer in[2] = {{a, WF_F32, 2, {1, 2}, {0}, -1}, {b, WF_F32, 2, {2, 38}, {0}, -1}};
        wf_buffer o[1] = {{out, WF_F32, 2, {1, 38}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_OK);
        int bad = 0;
        for (int j = 0; j < 38; j++)
            bad += out[j] != a[0] * b[j] + a[1] * b[38 + j];
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(fuzz_tir_compute_at_drops_a_reduce_loop_of_one_refused_by_name) {
    wf_tir *s = wf_tir_parse(
        "@T.prim_func\n"
        "def mmrelu(A: T.Buffer((25, 1), \"float32\"), B: T.Buffer((1, 4), \"float32\"), "
        "C: T.Buffer((25, 4), \"float32\")):\n"
        "    D = T.alloc_buffer((25, 4))\n"
        "    for i, j, k in T.grid(25, 4, 1):\n"
        "        with T.block(\"D\"):\n"
        "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
        "            with T.init():\n"
        "                D[vi, vj] = T.float32(0)\n"
        "            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]\n"
        "    for i, j in T.grid(25, 4):\n"
        "        with T.block(\"C\"):\n"
        "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"
        "            C[vi, vj] = T.max(D[vi, vj], T.float32(0))\n");
    wf_tir_block *d = wf_tir_get_block(s, "D"), *c = wf_tir_get_block(s, "C");
    wf_tir_loop *cl[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, cl, 2), 2);
    wf_tir_compute_at(s, d, cl[1]);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: block \"D\" binds its extent-1 reduce iter vk to 0, which "
              "has no loop of its own; keep its loop (preserve_unit_loops=True)");
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(fuzz_tir_rfactor_of_a_dot_product_fused_runs_exactly) {
    wf_tir *s = wf_tir_parse(
        "@T.prim_func\n"
        "def matmul(A: T.Buffer((1, 37), \"float32\"), B: T.Buffer((37, 1), \"float32\"), "
        "C: T.Buffer((1, 1), \"float32\")):\n"
        "    for i, j, k in T.grid(1, 1, 37):\n"
        "        with T.block(\"C\"):\n"
        "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
        "            with T.init():\n"
        "                C[vi, vj] = T.float32(0)\n"
        "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n");
    wf_tir_loop *l[3], *r[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, "C"), l, 3), 3);
    wf_tir_block *rf = wf_tir_rfactor(s, l[2], 0);
    CHECK_EQ_I64(wf_tir_get_loops(s, rf, r, 3), 3);
    wf_tir_loop *jk[2] = {r[1], r[2]};
    wf_tir_fuse(s, 2, jk);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        float a[37], b[37], out[1] = {NAN}, want = 0;
        for (int i = 0; i < 37; i++) {
            a[i] = (float)(i % 5 - 2), b[i] = (float)(i % 3 - 1);
            want += a[i] * b[i];
        }
        wf_buffer in[2] = {{a, WF_F32, 2, {1, 37}, {0}, -1}, {b, WF_F32, 2, {37, 1}, {0}, -1}};
        wf_buffer o[1] = {{out, WF_F32, 2, {1, 1}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_OK);
        CHECK(out[0] == want);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* C = A @ B over a row of 1 (A [1, n], B [n, m]) in integers that float sums
   exactly. */
static void row_matmul(test_state *ts_, wf_kernel *k, int n, int m, bool relu) {
    float a[64], b[64 * 32], out[32], want[32];
    for (int i = 0; i < n; i++)
        a[i] = (float)(i % 5 - 2);
    for (int i = 0; i < n * m; i++)
        b[i] = (float)(i % 7 - 3);
    for (int j = 0; j < m; j++) {
        float acc = 0;
        for (int i = 0; i < n; i++)
            acc += a[i] * b[i * m + j];
        want[j] = relu && acc < 0 ? 0 : acc;
        out[j] = NAN;
    }
    wf_buffer in[2] = {{a, WF_F32, 2, {1, n}, {0}, -1}, {b, WF_F32, 2, {n, m}, {0}, -1}};
    wf_buffer o[1] = {{out, WF_F32, 2, {1, m}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_OK);
    int bad = 0;
    for (int j = 0; j < m; j++)
        bad += out[j] != want[j];
    CHECK_EQ_I64(bad, 0);
}

#define ROW_MATMUL(n, m)                                                                           \
    "@T.prim_func\n"                                                                               \
    "def matmul(A: T.Buffer((1, " #n "), \"float32\"), B: T.Buffer((" #n ", " #m "), "             \
    "\"float32\"), C: T.Buffer((1, " #m "), \"float32\")):\n"                                      \
    "    for i, j, k in T.grid(1, " #m ", " #n "):\n"                                              \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                                  \
    "            with T.init():\n"                                                                 \
    "                C[vi, vj] = T.float32(0)\n"                                                   \
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"

#define ROW_MMRELU(n, m)                                                                           \
    "@T.prim_func\n"                                                                               \
    "def mmrelu(A: T.Buffer((1, " #n "), \"float32\"), B: T.Buffer((" #n ", " #m "), "             \
    "\"float32\"), C: T.Buffer((1, " #m "), \"float32\")):\n"                                      \
    "    D = T.alloc_buffer((1, " #m "))\n"                                                        \
    "    for i, j, k in T.grid(1, " #m ", " #n "):\n"                                              \
    "        with T.block(\"D\"):\n"                                                               \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                                  \
    "            with T.init():\n"                                                                 \
    "                D[vi, vj] = T.float32(0)\n"                                                   \
    "            D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]\n"                                  \
    "    for i, j in T.grid(1, " #m "):\n"                                                         \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = T.max(D[vi, vj], T.float32(0))\n"

/* -s 20261135 -c 88144: rfactor(k, 0), C_rf computed at C's j loop
   (preserve_unit_loops=False), then C's i and j fused. */
TEST(fuzz_tir_rfactor_computed_at_then_fused_over_a_row_of_one_runs_exactly) {
    wf_tir *s = wf_tir_parse(ROW_MATMUL(29, 9));
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 3), 3);
    wf_tir_block *rf = wf_tir_rfactor(s, l[2], 0);
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 3), 3);
    wf_tir_compute_at(s, rf, l[1]);
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 3), 3);
    wf_tir_fuse(s, 2, l);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k)
        row_matmul(ts_, k, 29, 9, false);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* -s 20261136 -c 34177: C's loops fused; D's k split [9, 4] (36 > 35: a
   predicate), its i and j fused, reordered (k_0, i_j_fused, k_1), rfactor
   of k_1 at factor_axis 2. */
TEST(fuzz_tir_rfactor_of_a_split_fused_mmrelu_over_a_row_of_one_runs_exactly) {
    wf_tir *s = wf_tir_parse(ROW_MMRELU(35, 27));
    wf_tir_block *d = wf_tir_get_block(s, "D"), *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[4], *kk[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 4), 2);
    wf_tir_fuse(s, 2, l);
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 4), 3);
    wf_tir_split(s, l[2], 2, (int64_t[]){9, -1}, kk);
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 4), 4);
    wf_tir_fuse(s, 2, l);
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 4), 3);
    wf_tir_reorder(s, 3, (wf_tir_loop *[]){l[1], l[0], l[2]});
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 4), 3);
    wf_tir_rfactor(s, l[2], 2);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k)
        row_matmul(ts_, k, 35, 27, true);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* -s 20261139 -c 60664: D's i and j fused, C's value cached in "local"
   (cache_write), rfactor of D's k at factor_axis 1. */
TEST(fuzz_tir_rfactor_of_a_fused_mmrelu_with_a_cache_write_runs_exactly) {
    wf_tir *s = wf_tir_parse(ROW_MMRELU(38, 22));
    wf_tir_block *d = wf_tir_get_block(s, "D"), *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 3), 3);
    wf_tir_fuse(s, 2, l);
    wf_tir_cache_write(s, c, 0, "local");
    CHECK_EQ_I64(wf_tir_get_loops(s, d, l, 3), 2);
    wf_tir_rfactor(s, l[1], 1);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k)
        row_matmul(ts_, k, 38, 22, true);
    wf_kernel_free(k);
    wf_tir_free(s);
}

#define ROWMAX_36x32                                                                               \
    "@T.prim_func\n"                                                                               \
    "def rowred(A: T.Buffer((36, 32), \"float32\"), B: T.Buffer((36,), \"float32\")):\n"           \
    "    for i, k in T.grid(36, 32):\n"                                                            \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(\"-inf\")\n"                                                \
    "            B[vi] = T.max(B[vi], A[vi, vk])\n"

/* -s 20261130 -c 432916: a row max, i split [1, 4, 9], rfactor of the whole k
   (B_rf reduces nothing: the core builds it as B's own steps, in B's loops),
   A cached in local then shared memory, the local stage computed at B_rf's
   loop i_0 and its two loops fused. B_rf's buffer had no tensor to place the
   stage at: wf_compute_at got none, did nothing, and the stage's loops were
   built on axes it did not have ("T2.merge: axis 2 is out of range; T2 has 2
   loop axes"). B_rf's loops are B's in order here, so the stage goes at
   B's. */
TEST(fuzz_tir_stage_computed_at_a_whole_rfactor_partial_runs_exactly) {
    wf_tir *s = wf_tir_parse(ROWMAX_36x32);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[4], *sp[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, b, l, 4), 2);
    wf_tir_split(s, l[0], 3, (int64_t[]){1, 4, -1}, sp);
    CHECK_EQ_I64(wf_tir_get_loops(s, b, l, 4), 4);
    wf_tir_block *rf = wf_tir_rfactor(s, l[3], 0);
    wf_tir_block *loc = wf_tir_cache_read(s, rf, 0, "local");
    wf_tir_cache_read(s, loc, 0, "shared");
    CHECK_EQ_I64(wf_tir_get_loops(s, rf, l, 4), 4);
    wf_tir_compute_at(s, loc, l[0]);
    CHECK_EQ_I64(wf_tir_get_loops(s, loc, l, 4), 3);
    wf_tir_fuse(s, 2, l + 1);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (k) {
        float a[36 * 32], out[36];
        int bad = 0;
        for (int i = 0; i < 36 * 32; i++)
            a[i] = (float)((i * 37) % 101 - 50);
        wf_buffer in[1] = {{a, WF_F32, 2, {36, 32}, {0}, -1}};
        wf_buffer o[1] = {{out, WF_F32, 1, {36}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, o, 1), WF_OK);
        for (int i = 0; i < 36; i++) {
            float m = a[i * 32];
            for (int j = 1; j < 32; j++)
                m = a[i * 32 + j] > m ? a[i * 32 + j] : m;
            bad += out[i] != m;
        }
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* The same with B_rf's loops reordered (k outside i_0): B's loops are not
   B_rf's in order, so a stage computed at B_rf's loop has no loop of the
   core to go to: refused by the blocks' names. */
TEST(fuzz_tir_stage_computed_at_a_reordered_whole_rfactor_partial_is_refused) {
    wf_tir *s = wf_tir_parse(ROWMAX_36x32);
    wf_tir_loop *l[3], *sp[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 3), 2);
    wf_tir_split(s, l[0], 2, (int64_t[]){4, -1}, sp);
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 3), 3);
    wf_tir_block *rf = wf_tir_rfactor(s, l[2], 0);
    CHECK_EQ_I64(wf_tir_get_loops(s, rf, l, 3), 3);
    wf_tir_reorder(s, 2, (wf_tir_loop *[]){l[1], l[0]});
    wf_tir_block *a = wf_tir_cache_read(s, rf, 0, "local");
    CHECK_EQ_I64(wf_tir_get_loops(s, rf, l, 3), 3);
    wf_tir_compute_at(s, a, l[0]);
    CHECK_STR(wf_tir_error(s), "");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s),
              "build: not supported yet: block \"A_local\" is computed at a loop of block "
              "\"B_rf\", whose values the core computes in the loops of the block that reads "
              "them, which are not the same loops in the same order (compute \"A_local\" "
              "outside the loops of \"B_rf\")");
    wf_kernel_free(k);
    wf_tir_free(s);
}
