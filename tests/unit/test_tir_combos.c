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
#include "tir_sources.h"

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
/* s does not build, with exactly the message want. */
static void build_refused(test_state *ts_, wf_tir *s, const char *want) {
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK(k == NULL);
    CHECK_STR(wf_tir_error(s), want);
    wf_kernel_free(k);
}

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

#define TIR_RSUM24                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def rsum(A: T.Buffer((8, 24), \"float32\"), B: T.Buffer((8,), \"float32\")):\n"               \
    "    for i, k in T.grid(8, 24):\n"                                                             \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + A[vi, vk]\n"

/* A row sum over 24 in order must equal the kernel's B bit for bit. */
static void run_rsum(test_state *ts_, wf_kernel *k) {
    static float a[8 * 24], b[8];
    fill_random(a, 8 * 24, 5u);
    for (int i = 0; i < 8; i++)
        b[i] = NAN;
    wf_buffer in[1] = {{a, WF_F32, 2, {8, 24}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {8}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 8; i++) {
        float s = 0.0f;
        for (int q = 0; q < 24; q++)
            s = s + a[i * 24 + q];
        bad += memcmp(&s, &b[i], sizeof s) != 0;
    }
    CHECK_EQ_I64(bad, 0);
}

/* split then fuse the parts back: vk = k_0_k_1_fused // 4 * 4 + k_0_k_1_fused % 4 is
   the fused loop itself, as TVM's simplifier prints it (the build had refused the
   two-part value as "not a split or fuse of loops"). */
TEST(tir_combo_split_then_fuse_back) {
    wf_tir *s = wf_tir_parse(TIR_RSUM24);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *k2[2];
    int64_t f[2] = {-1, 4};
    wf_tir_get_loops(s, b, l, 2);
    wf_tir_split(s, l[1], 2, f, k2);
    wf_tir_fuse(s, 2, k2);
    CHECK_HAS(wf_tir_script(s), "    for i, k_0_k_1_fused in T.grid(8, 24):\n"
                                "        with T.block(\"B\"):\n"
                                "            vi, vk = T.axis.remap(\"SR\", [i, k_0_k_1_fused])\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k)
        run_rsum(ts_, k);
    wf_kernel_free(k);
    wf_tir_free(s);
}

#define TIR_ADD12                                                                                  \
    "@T.prim_func\n"                                                                               \
    "def add(A: T.Buffer((12, 12), \"float32\"), B: T.Buffer((12, 12), \"float32\"), "             \
    "C: T.Buffer((12, 12), \"float32\")):\n"                                                       \
    "    for i, j in T.grid(12, 12):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = A[vi, vj] + B[vj, vi]\n"

static void run_add(test_state *ts_, wf_kernel *k) {
    static float a[144], b[144], c[144];
    fill_random(a, 144, 3u);
    fill_random(b, 144, 4u);
    for (int x = 0; x < 144; x++)
        c[x] = NAN;
    wf_buffer in[2] = {{a, WF_F32, 2, {12, 12}, {0}, -1}, {b, WF_F32, 2, {12, 12}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 2, {12, 12}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            float want = a[i * 12 + j] + b[j * 12 + i];
            bad += memcmp(&want, &c[i * 12 + j], sizeof want) != 0;
        }
    CHECK_EQ_I64(bad, 0);
}

/* TVM's GPU elementwise schedule: i and j split by 4, the outer parts fused onto
   blockIdx.x and the inner parts onto threadIdx.x, so that each iter takes a part of
   two fused loops at strides 4 and 1 (the build had taken one fused part per iter, the
   innermost: "binds vj to a value that is not a split or fuse of loops"). */
TEST(tir_combo_tiles_fused_onto_blocks_and_threads) {
    wf_tir *s = wf_tir_parse(TIR_ADD12);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *i2[2], *j2[2];
    int64_t f[2] = {3, 4};
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_split(s, l[0], 2, f, i2);
    wf_tir_split(s, l[1], 2, f, j2);
    wf_tir_loop *o[4] = {i2[0], j2[0], i2[1], j2[1]};
    wf_tir_reorder(s, 4, o);
    wf_tir_loop *outer[2] = {i2[0], j2[0]}, *inner[2] = {i2[1], j2[1]};
    wf_tir_loop *bx = wf_tir_fuse(s, 2, outer), *tx = wf_tir_fuse(s, 2, inner);
    wf_tir_bind(s, bx, "blockIdx.x");
    wf_tir_bind(s, tx, "threadIdx.x");
    CHECK_HAS(
        wf_tir_script(s),
        "                vi = T.axis.spatial(12, i_0_j_0_fused // 3 * 4 + i_1_j_1_fused // 4)\n"
        "                vj = T.axis.spatial(12, i_0_j_0_fused % 3 * 4 + i_1_j_1_fused % 4)\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], 9);
        CHECK_EQ_I64(li->block[0], 16);
        run_add(ts_, k);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* fuse(j, i) after reorder(j, i): vj is the outer digit though it is the later iter
   (the build had required a fuse's iters in iter order: "not a fuse of consecutive
   iters"). */
TEST(tir_combo_fuse_in_reordered_order) {
    wf_tir *s = wf_tir_parse(TIR_ADD12);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_loop *o[2] = {l[1], l[0]};
    wf_tir_reorder(s, 2, o);
    wf_tir_fuse(s, 2, o);
    CHECK_HAS(wf_tir_script(s), "            vi = T.axis.spatial(12, j_i_fused % 12)\n"
                                "            vj = T.axis.spatial(12, j_i_fused // 12)\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k)
        run_add(ts_, k);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* Builds the matmul with the n loops l[idx[0..n)] fused; returns the build's error. */
static const char *fuse_error(wf_tir *s, int n, const int *idx) {
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3], *f[3];
    wf_tir_get_loops(s, c, l, 3);
    for (int x = 0; x < n; x++)
        f[x] = l[idx[x]];
    wf_tir_fuse(s, n, f);
    wf_kernel *k = wf_tir_build(s, NULL);
    wf_kernel_free(k);
    return wf_tir_error(s);
}

/* A loop fusing a spatial and a reduction iter: refused in TIR terms (the core's
   "T6's reduction loop axis rS23{144} is made from the iteration axis iS16{12}" had
   come through). */
TEST(tir_combo_fuse_spatial_with_reduce_refused) {
    static const int jk[2] = {1, 2};
    wf_tir *s = wf_tir_parse(TIR_MM16);
    CHECK_STR(fuse_error(s, 2, jk),
              "build: not supported yet: block \"C\" binds the spatial iter vj and the reduction "
              "iter vk to one fused loop (j_k_fused): the core reduces over loops that fuse "
              "reduction iters only (fuse spatial loops and reduction loops separately)");
    wf_tir_free(s);
}

/* fuse(i, j) on the matmul: A[vi, vk] and B[vk, vj] each index one of the two. */
TEST(tir_combo_fuse_partly_indexed_refused) {
    static const int ij[2] = {0, 1};
    wf_tir *s = wf_tir_parse(TIR_MM16);
    CHECK_STR(fuse_error(s, 2, ij),
              "build: not supported yet: block \"C\" binds vi and vj to one fused loop "
              "(i_j_fused), but reads an operand indexed by some of them only: the core fuses "
              "the dims of one tensor, so every operand must be indexed by all the iters of a "
              "fused loop (fuse loops whose iters every operand indexes, as in a cache_read "
              "stage, or leave these loops unfused)");
    wf_tir_free(s);
}

/* The write-back of cache_write moved into the reduction loop by reverse_compute_at:
   refused naming the blocks and the loop (the core's "T6.inline_at(3): position 3 is
   beyond the maximum inline position 2" had come through), for a plain reduction and
   for rfactor's write-back. */
TEST(tir_combo_reverse_compute_at_into_reduce_loop_refused) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_block *cl = wf_tir_cache_write(s, c, 0, "local");
    wf_tir_reverse_compute_at(s, cl, l[2]);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: block \"C_local\" reads C_local inside the loop k, over "
        "which block \"C\" reduces (its reduction iter vk): the core finishes a reduction "
        "before its result is read (reverse_compute_at \"C_local\" at a loop outside k)");
    wf_tir_free(s);

    s = wf_tir_parse(TIR_MM16);
    c = wf_tir_get_block(s, "C");
    wf_tir_loop *k2[2], *w[3];
    int64_t f[2] = {-1, 4};
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_split(s, l[2], 2, f, k2);
    wf_tir_rfactor(s, k2[1], 0);
    cl = wf_tir_cache_write(s, c, 0, "local");
    wf_tir_get_loops(s, c, w, 3);
    wf_tir_reverse_compute_at(s, cl, w[2]);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: block \"C_local\" sits inside the loop k_1, over which "
        "block \"C\" reduces (its reduction iter vk_1): the core finishes a reduction "
        "before its result is read (reverse_compute_at \"C_local\" at a loop outside k_1)");
    wf_tir_free(s);
}

/* rfactor at the only reduce loop (no split): B_rf has no reduce iter left, each cell
   its T.init() value plus one element; with the write-back's k split [5, None] (a
   T.where) the pair does not line up and is built as two blocks (the core's "sum(T1):
   give at least one axis to reduce" had come through). */
TEST(tir_combo_rfactor_whole_reduce_loop) {
    wf_tir *s = wf_tir_parse(TIR_RSUM24);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *w[2], *k2[2];
    int64_t f[2] = {5, -1};
    wf_tir_get_loops(s, b, l, 2);
    wf_tir_rfactor(s, l[1], 0);
    wf_tir_get_loops(s, b, w, 2);
    wf_tir_split(s, w[1], 2, f, k2);
    CHECK_HAS(wf_tir_script(s), "            vk, vi = T.axis.remap(\"SS\", [k, i])\n");
    CHECK_HAS(wf_tir_script(s), "            T.where(k_0 * 5 + k_1 < 24)\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k)
        run_rsum(ts_, k);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* The matmul's i bound to threadIdx.x, then rfactor at k: C_rf is written by each
   thread and read by the serial write-back nest (rfactor's loops are not bound): the
   core's "T6 is in local memory, but T7 reads it across threads on TIDx" had come
   through. */
TEST(tir_combo_intermediate_read_across_threads_refused) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_bind(s, l[0], "threadIdx.x");
    wf_tir_rfactor(s, l[2], 0);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: block \"C_rf\" writes C_rf inside the loop i bound to "
        "threadIdx.x, and block \"C\" reads it outside that loop, on no loop bound to "
        "threadIdx.x: each thread would read what others wrote, but the core keeps the "
        "intermediate C_rf in each thread's registers (compute_at \"C_rf\" into a loop of "
        "\"C\", or bind the loops of both alike)");
    wf_tir_free(s);
}

/* Two loops of one nest on threadIdx.x (the core's "the loops of axes 1
   (ithreadIdx.x5{12}) and 2 (ithreadIdx.x6{12}) both run on TIDx" had come through). */
TEST(tir_combo_two_loops_on_one_thread_axis_refused) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    wf_tir_get_loops(s, c, l, 3);
    wf_tir_bind(s, l[1], "threadIdx.x");
    wf_tir_bind(s, l[2], "threadIdx.x");
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: the loops j and k around block \"C\" are both bound to threadIdx.x, so both "
        "would take its index (bind each thread axis to one loop of a nest, or fuse the two "
        "loops and bind the fused loop)");
    wf_tir_free(s);
}

/* rfactor applied to rfactor's write-back: three blocks in a chain (the build had said
   "block \"B_rf\" reads B_rf before any block writes it"). */
TEST(tir_combo_rfactor_of_write_back_refused) {
    wf_tir *s = wf_tir_parse(TIR_RSUM24);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, b, l, 2);
    wf_tir_rfactor(s, l[1], 1);
    wf_tir_get_loops(s, b, l, 2);
    wf_tir_rfactor(s, l[1], 0);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: block \"B_rf\" is the write-back of one rfactor and the "
        "partial block of another (rfactor applied to rfactor's write-back): the core "
        "splits a reduction in two once (rfactor one loop of the original block)");
    wf_tir_free(s);
}

/* D computed at C's vectorized j_1 (add_relu, j split [None, 4]): both blocks run in
   the vector loop, D for all four lanes before C (the core's "T4.inline_at(3): position
   3 is beyond the maximum inline position 2: axis 2 of T4 is vectorized" had come
   through). C = max(A + B * 2, 0) exactly. */
TEST(tir_combo_compute_at_into_vector_loop) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *j[2];
    int64_t f[2] = {-1, 4};
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_split(s, l[1], 2, f, j);
    wf_tir_vectorize(s, j[1]);
    wf_tir_compute_at(s, wf_tir_get_block(s, "D"), j[1]);
    CHECK_HAS(wf_tir_script(s), "        for j_1 in T.vectorized(4):\n"
                                "            with T.block(\"D\"):\n");
    wf_kernel *k = build_ok(ts_, s);
    if (k) {
        static float a[64 * 32], b[64 * 32], o[64 * 32];
        fill_random(a, 64 * 32, 5u);
        fill_random(b, 64 * 32, 6u);
        for (int x = 0; x < 64 * 32; x++)
            o[x] = NAN;
        wf_buffer in[2] = {{a, WF_F32, 2, {64, 32}, {0}, -1}, {b, WF_F32, 2, {64, 32}, {0}, -1}};
        wf_buffer out[1] = {{o, WF_F32, 2, {64, 32}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_OK);
        int bad = 0;
        for (int x = 0; x < 64 * 32; x++) {
            float d = a[x] + b[x] * 2.0f, want = d > 0.0f ? d : 0.0f;
            bad += memcmp(&want, &o[x], sizeof want) != 0;
        }
        CHECK_EQ_I64(bad, 0);
    }
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* A vectorized loop with loops inside it, over one block or over a block computed at
   it: refused naming the loops (the core's "T5: the vectorized axis 0 must be the
   innermost loop axis (axis 1)" and "T4.inline_at(2): position 2 is beyond the maximum
   inline position 1: axis 1 of T4 is vectorized" had come through). */
TEST(tir_combo_vector_loop_not_innermost_refused) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *i[2];
    int64_t f[2] = {-1, 2};
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_vectorize(s, l[0]);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: the vectorized loop i over block \"C\" has the loop j "
        "inside it: the core vectorizes the innermost loop of a block (reorder i innermost, "
        "or vectorize j instead)");
    wf_tir_free(s);

    s = wf_tir_parse(TIR_ADD_RELU);
    c = wf_tir_get_block(s, "C");
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_compute_at(s, wf_tir_get_block(s, "D"), l[0]);
    wf_tir_get_loops(s, c, l, 2);
    wf_tir_split(s, l[0], 2, f, i);
    wf_tir_vectorize(s, i[1]);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(ts_, s,
                  "build: not supported yet: the vectorized loop i_1 over block \"D\" has the loop "
                  "ax0 inside it: the core vectorizes the innermost loop of a block (reorder i_1 "
                  "innermost, or vectorize ax0 instead)");
    wf_tir_free(s);
}

/* rfactor's pair under a vectorized loop: the write-back and the partial block reduce,
   refused as any reduction is (the core's "T2.inline_at(3): position 3 is beyond the
   maximum inline position 0: axis 0 of T2 is vectorized" and "... position 1: axis 1 of
   consumer T3 cannot be shared" had come through). */
TEST(tir_combo_rfactor_pair_vectorized_refused) {
    for (int at = 0; at < 2; at++) {
        wf_tir *s = wf_tir_parse(TIR_MM16);
        wf_tir_block *c = wf_tir_get_block(s, "C");
        wf_tir_loop *l[3];
        wf_tir_get_loops(s, c, l, 3);
        wf_tir_rfactor(s, l[2], at ? 2 : 0);
        wf_tir_get_loops(s, c, l, 3);
        wf_tir_vectorize(s, l[at]);
        CHECK_STR(wf_tir_error(s), "");
        wf_kernel *k = wf_tir_build(s, NULL);
        CHECK(k == NULL);
        CHECK_STR(wf_tir_error(s),
                  at ? "build: not supported yet: the vectorized loop j over block \"C\", which "
                       "reduces: the core vectorizes the copy that stores a computed value, not a "
                       "reduction (unroll j)"
                     : "build: not supported yet: the vectorized loop i over block \"C\", which "
                       "reduces: the core vectorizes the copy that stores a computed value, not a "
                       "reduction (unroll i)");
        wf_kernel_free(k);
        wf_tir_free(s);
    }
}

/* A cache stage (a bare copy) vectorized over 13 float32 values: refused in TIR terms as
   a computing block's store is (the core's "T2: vectorizing 13 elements of float moves 52
   bytes per access" had come through). */
TEST(tir_combo_cache_stage_vector_width_refused) {
    wf_tir *s = wf_tir_parse(TIR_MM16);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[2], *j[2];
    int64_t f[2] = {-1, 13};
    wf_tir_block *a = wf_tir_cache_read(s, c, 0, "shared");
    wf_tir_get_loops(s, a, l, 2);
    wf_tir_split(s, l[1], 2, f, j);
    wf_tir_vectorize(s, j[1]);
    CHECK_STR(wf_tir_error(s), "");
    build_refused(
        ts_, s,
        "build: not supported yet: the vectorized loop ax1_1 over block \"A_shared\" stores "
        "13 float32 values (52 bytes) at once; a vector access is 1, 2, 4, 8 or 16 bytes "
        "(split ax1_1 and vectorize an inner loop of that size)");
    wf_tir_free(s);
}
