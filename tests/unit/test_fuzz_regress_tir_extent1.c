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
 *    is a reduction"); the build now refuses it by the block's names.
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
