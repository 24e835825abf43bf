/*
 * test_tir_combos.c -- schedule primitives combined on the matmul and a row sum (issue
 * 18, defect 7): each program either builds and computes, on the CPU executor, exactly
 * what a reference summing in the program's order computes, or is refused with a
 * message in TIR terms (the block, the loop, what is not supported, what works).
 * Never an internal message about positions or permutations of the core's tensors.
 */
#include <math.h>
#include <string.h>

#include "harness.h"

enum { MN = 16 };

#define TIR_MM16                                                                                   \
    "@T.prim_func\n"                                                                               \
    "def matmul(A: T.Buffer((16, 16), \"float32\"), B: T.Buffer((16, 16), \"float32\"), "          \
    "C: T.Buffer((16, 16), \"float32\")):\n"                                                       \
    "    for i, j, k in T.grid(16, 16, 16):\n"                                                     \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"                                  \
    "            with T.init():\n"                                                                 \
    "                C[vi, vj] = T.float32(0)\n"                                                   \
    "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"

/* Random floats in [-1, 1) with full mantissas: a sum in another order differs. */
static void fill_random(float *x, int n, uint32_t seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        x[i] = (float)(seed >> 8) / 8388608.0f - 1.0f;
    }
}

/* The matmul's reference: k split as [MN / ninner, ninner]; with nparts > 1 the
   products are first summed into partials (rfactor: part q sums k_0 (rf_inner) or
   k_1 for the other part fixed at q), then the partials in order; nparts 1: one serial
   sum over k. Runs k on the executor; C must equal it bit for bit. */
static void run_mm(test_state *ts_, wf_kernel *k, int ninner, bool rf, bool rf_inner) {
    static float a[MN * MN], b[MN * MN], c[MN * MN];
    fill_random(a, MN * MN, 7u);
    fill_random(b, MN * MN, 11u);
    for (int x = 0; x < MN * MN; x++)
        c[x] = NAN;
    wf_buffer in[2] = {{a, WF_F32, 2, {MN, MN}, {0}, -1}, {b, WF_F32, 2, {MN, MN}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {MN, MN}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    int nouter = MN / ninner, bad = 0;
    int nparts = !rf ? 1 : rf_inner ? ninner : nouter, nelem = !rf ? MN : MN / nparts;
    for (int i = 0; i < MN; i++)
        for (int j = 0; j < MN; j++) {
            float acc = 0.0f;
            for (int q = 0; q < nparts; q++) {
                float part = 0.0f;
                for (int t = 0; t < nelem; t++) {
                    int kk = !rf ? t : rf_inner ? t * ninner + q : q * ninner + t;
                    float p = a[i * MN + kk] * b[kk * MN + j];
                    part = part + p;
                }
                acc = rf ? acc + part : part;
            }
            bad += memcmp(&acc, &c[i * MN + j], sizeof acc) != 0;
        }
    CHECK_EQ_I64(bad, 0);
}

static wf_kernel *build_ok(test_state *ts_, wf_tir *s) {
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    CHECK(k != NULL);
    return k;
}

/* reorder(k, j, i) moves the outermost loop: the block's loops are then k, j, i (the
   reordered nest had lost its link to the loop above the block, and the build saw one
   loop and refused vk as "not a split or fuse of loops"). */
TEST(tir_combo_matmul_reorder_outermost) {
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++) {
        wf_tir *s = wf_tir_parse(TIR_MM16);
        wf_tir_block *c = wf_tir_get_block(s, "C");
        wf_tir_loop *l[3], *o[3], *after[4];
        wf_tir_get_loops(s, c, l, 3);
        for (int x = 0; x < 3; x++)
            o[x] = l[perms[p][x]];
        wf_tir_reorder(s, 3, o);
        CHECK_EQ_I64(wf_tir_get_loops(s, c, after, 4), 3);
        for (int x = 0; x < 3; x++)
            CHECK(after[x] == o[x]);
        wf_kernel *k = build_ok(ts_, s);
        if (k)
            run_mm(ts_, k, 1, false, false);
        wf_kernel_free(k);
        wf_tir_free(s);
    }
}

/* reorder of two loops that moves the outermost one: the loop left between keeps its
   place, and compute_at / get_loops see the nest as printed. */
TEST(tir_combo_matmul_reorder_two_outer) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3], *after[3];
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_loop *o[2] = {l[2], l[0]};
    wf_tir_reorder(s, 2, o);
    CHECK_EQ_I64(wf_tir_get_loops(s, c, after, 3), 3);
    CHECK(after[0] == l[2] && after[1] == l[1] && after[2] == l[0]);
    CHECK_HAS(wf_tir_script(s), "    for k, j, i in T.grid(16, 16, 16):\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k)
        run_mm(ts_, k, 1, false, false);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* The matmul with k split [None, 4] and rfactored at k_1 (rf_inner) or k_0, at every
   factor_axis (TVM's: where the new dim goes in C_rf, negative from the end). The
   partial block's loads read A and B at vk_0 * 4 + vk_1 and index only two of the
   three iters each: the build schedules each load's view over the iters it holds (it
   had split all three and failed with "T2.reorder: the new positions are not a
   permutation of 0..2"). */
TEST(tir_combo_matmul_rfactor_every_axis) {
    for (int inner = 0; inner < 2; inner++)
        for (int axis = -3; axis <= 2; axis++) {
            wf_tir *s = wf_tir_parse(TIR_MM16);
            wf_tir_block *c = wf_tir_get_block(s, "C");
            wf_tir_loop *l[3], *k2[2];
            int64_t f[2] = {-1, 4};
            wf_tir_get_loops(s, c, l, 3);
            wf_tir_split(s, l[2], 2, f, k2);
            wf_tir_block *rf = wf_tir_rfactor(s, k2[inner], axis);
            CHECK(rf != NULL);
            wf_kernel *k = build_ok(ts_, s);
            if (k)
                run_mm(ts_, k, 4, true, inner);
            wf_kernel_free(k);
            wf_tir_free(s);
        }
}

/* The program: rfactor(k_1, 2) puts the partials last, C_rf[vi, vj, vk_1]. */
TEST(tir_combo_matmul_rfactor_axis2_script) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3], *k2[2];
    int64_t f[2] = {-1, 4};
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_split(s, l[2], 2, f, k2);
    wf_tir_rfactor(s, k2[1], 2);
    CHECK_HAS(wf_tir_script(s),
              "    C_rf = T.alloc_buffer((16, 16, 4))\n"
              "    for i, j, k_0, k_1 in T.grid(16, 16, 4, 4):\n"
              "        with T.block(\"C_rf\"):\n"
              "            vk_1, vi, vj, vk_0 = T.axis.remap(\"SSSR\", [k_1, i, j, k_0])\n");
    CHECK_HAS(wf_tir_script(s), "            C[vi, vj] = C[vi, vj] + C_rf[vi, vj, vk_1]\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k)
        run_mm(ts_, k, 4, true, true);
    wf_kernel_free(k);
    wf_tir_free(s);
}
