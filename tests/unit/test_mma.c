/*
 * test_mma.c -- wf_mma (fused multiply-sum) and wf_matmul on CUDA cores.
 *
 * wf_mma is one op, a reduction: every step folds the product a * b, rounded
 * once to the compute type (exact in f32 for 16-bit inputs), in the order the
 * schedule gives (docs/reductions.md). The kernels run on the CPU executor
 * with non-integer data and must equal, bit for bit, a reference that rounds
 * the same way and sums in the same order (k ascending for a serial
 * schedule); the split-K (rfactor) kernel sums over threads in a tree, so it
 * gets integer-valued data whose every sum is exact, against a double
 * reference. Sizes are odd (no tile divides them). Each kernel compiles with
 * NVRTC. The refusals are checked with their exact messages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mma_check.h"

/* wf_matmul unscheduled: [M, N, rK] in f32; one thread, k ascending. */
TEST(mma_matmul_f32_unscheduled_odd_sizes) {
    mm m = make_mm(WF_F32, 5, 7, 9);
    CHECK_STR(wf_fusion_error(m.f), "");
    CHECK_EQ_I64(wf_tv_ndim(m.c), 3);
    CHECK(wf_iterdomain_is_reduction(wf_tv_axis(m.c, 2)));
    CHECK(!wf_iterdomain_is_reduction(wf_tv_axis(m.c, 1)));
    CHECK_EQ_I64(wf_tv_dtype(m.c), WF_F32);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(m.c, 1)), 7);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(m.c, 2)), 9);
    CHECK_HAS(wf_math_string(m.f), "T5_g_float[iS12{5}, iS13{7}, rS14{9}]\n"
                                   "   = mma( T2_l_float[iS4{5}, bS5{1}, iS6{9}],\n"
                                   "       T4_l_float[bS9{1}, iS10{7}, iS11{9}] )\n");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "      wf_acc1 = (float)0;\n"
                                       "      for (wf_index i8 = 0; i8 < 9; ++i8) {\n"
                                       "        wf_acc1 = wf_radd(wf_acc1, "
                                       "wf_mmul((float)T2[i6 * 9 + i8], (float)T4[i7 * 9 + i8]));\n"
                                       "      }\n"
                                       "      T5[i6 * 7 + i7] = wf_acc1;\n");
        run_mm(k, WF_F32, 5, 7, 9, false);
        CHECK_NVRTC(k, 80);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* 16-bit inputs: exact products accumulated in f32, an f32 result. */
static void check_half(test_state *ts_, wf_dtype t) {
    mm m = make_mm(t, 3, 17, 33);
    CHECK_EQ_I64(wf_tv_dtype(m.c), WF_F32);
    wf_tv_parallelize(m.c, 1, WF_TIDX);
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        run_mm(k, t, 3, 17, 33, false);
        CHECK_NVRTC(k, 80);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_matmul_f16_and_bf16_accumulate_in_f32) {
    check_half(ts_, WF_F16);
    check_half(ts_, WF_BF16);
}

/* The CUDA-core tiling of test_promote.c on wf_matmul: i and j split by 2 then
   4 (2 x 2 per thread, 4 x 4 threads), k by 4; A and B in shared memory
   computed at k0 and fetched by all threads; the accumulator (cache_before
   of C) in registers. k stays ascending, so the sequential reference holds. */
static mm tiled(wf_dtype t, int64_t M, int64_t N, int64_t K) {
    mm m = make_mm(t, M, N, K);
    wf_tv *as = wf_cache_after(m.a), *bs = wf_cache_after(m.b);
    wf_tv_set_memory(as, WF_MEM_SHARED);
    wf_tv_set_memory(bs, WF_MEM_SHARED);
    wf_tv *cl = wf_cache_before(m.c);
    wf_tv_split(cl, 0, 2);
    wf_tv_split(cl, 0, 4);
    wf_tv_split(cl, 3, 2);
    wf_tv_split(cl, 3, 4);
    wf_tv_split(cl, 6, 4);
    int o2n[8] = {0, 2, 6, 1, 3, 7, 4, 5};
    wf_tv_reorder_all(cl, o2n);
    wf_propagate_transforms(cl);
    wf_tv_parallelize(cl, 0, WF_BIDY);
    wf_tv_parallelize(cl, 1, WF_BIDX);
    wf_tv_parallelize(cl, 2, WF_TIDY);
    wf_tv_parallelize(cl, 3, WF_TIDX);
    wf_parallelize_all_like(cl, 0);
    wf_tv_inline_at(cl, 4);
    wf_compute_at(as, cl, 5);
    wf_compute_at(bs, cl, 5);
    wf_tv *st[2] = {as, bs};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(st[i], 5);
        wf_tv_merge(st[i], 5);
        wf_tv_split(st[i], 5, 4);
        wf_tv_split(st[i], 5, 4);
        wf_tv_parallelize(st[i], 6, WF_TIDY);
        wf_tv_parallelize(st[i], 7, WF_TIDX);
    }
    return m;
}

static void check_tiled(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K) {
    mm m = tiled(t, M, N, K);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], (N + 7) / 8);
        CHECK_EQ_I64(li->grid[1], (M + 7) / 8);
        CHECK_EQ_I64(li->block[0] * li->block[1], 16);
        CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
        run_mm(k, t, M, N, K, false);
        CHECK_NVRTC(k, 80);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_matmul_cuda_core_tiled_shared_odd_sizes) {
    check_tiled(ts_, WF_F32, 16, 16, 16);
    check_tiled(ts_, WF_F32, 13, 11, 10);
    check_tiled(ts_, WF_BF16, 19, 9, 7);
    check_tiled(ts_, WF_F16, 8, 24, 33);
}

/* Split-K by rfactor: K split by 32 on threadIdx.x; the producer (an mma)
   sums each thread's k's serially, C (a plain sum of the partials) reduces
   the 32 threads in a block reduction. K = 45 leaves 19 threads idle in the
   second step (predicated). */
static void check_split_k(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K) {
    mm m = make_mm(t, M, N, K);
    wf_tv_split(m.c, 2, 32); /* [M, N, rKo, rKi{32}] */
    wf_tv_parallelize(m.c, 0, WF_BIDY);
    wf_tv_parallelize(m.c, 1, WF_BIDX);
    wf_tv_parallelize(m.c, 3, WF_TIDX);
    int rf = 2;
    wf_tv *p = wf_tv_rfactor(m.c, 1, &rf);
    CHECK(p != NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (!p) {
        wf_fusion_free(m.f);
        return;
    }
    CHECK_EQ_I64(wf_tv_dtype(p), WF_F32);
    CHECK_EQ_I64(wf_tv_ndim(m.c), 3);
    const char *math = wf_math_string(m.f);
    CHECK_HAS(math, "   = mma( T2_l_");
    CHECK_HAS(math, "   = Reduce( T6_l_float[");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "wf_block_reduce<true, false, false>((float)T6[0], "
                                       "wf_op_add(), ");
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 32);
        run_mm(k, t, M, N, K, true);
        CHECK_NVRTC(k, 80);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_matmul_split_k_rfactor_block_reduction) {
    check_split_k(ts_, WF_F32, 3, 5, 45);
    check_split_k(ts_, WF_BF16, 4, 3, 64);
}

/* Each refusal of the constructors, by its exact message. */
TEST(mma_constructor_refusals) {
    int64_t s2[2] = {4, 6}, s3[3] = {2, 4, 6}, s1[1] = {4}, sb[2] = {5, 3};
    struct {
        wf_dtype ta, tb;
        int na, nb;
        const int64_t *sa, *sbb;
        int which; /* 0: mma over axis `ax`, 1: matmul */
        int nax, ax[2];
        wf_status st;
        const char *msg;
    } cases[] = {
        {WF_I32,
         WF_F32,
         2,
         2,
         s2,
         s2,
         0,
         1,
         {1, 0},
         WF_ERR_UNSUPPORTED,
         "mma(T0, T1): T0 is int32; only float operands (f16, bf16, f32, f64) are supported: cast "
         "it to a float type first"},
        {WF_F32,
         WF_F32,
         2,
         2,
         s2,
         s2,
         0,
         0,
         {0, 0},
         WF_ERR_ARG,
         "mma(T0, T1): give at least one axis to sum over (the operands have 2 dims)"},
        {WF_F32,
         WF_F32,
         2,
         2,
         s2,
         s2,
         0,
         1,
         {2, 0},
         WF_ERR_ARG,
         "mma(T0, T1): axis 2 is out of range for 2 dims"},
        {WF_F32,
         WF_F32,
         2,
         2,
         s2,
         s2,
         0,
         2,
         {1, -1},
         WF_ERR_ARG,
         "mma(T0, T1): axis -1 is listed twice"},
        {WF_F32,
         WF_F32,
         2,
         2,
         s2,
         sb,
         0,
         1,
         {1, 0},
         WF_ERR_ARG,
         "mma(T0, T1): dim 0 has extent 4 in T0 but 5 in T1"},
        {WF_F32,
         WF_F32,
         1,
         2,
         s1,
         s2,
         1,
         0,
         {0, 0},
         WF_ERR_ARG,
         "matmul(T0, T1): each operand needs at least 2 dims ([..., M, K] x [..., K, N]); T0 "
         "has 1"},
        {WF_F32,
         WF_F32,
         3,
         2,
         s3,
         s2,
         1,
         0,
         {0, 0},
         WF_ERR_ARG,
         "matmul(T0, T1): ranks differ (3 and 2); broadcast the batch dims of one operand first"},
        {WF_F32,
         WF_F32,
         2,
         2,
         s2,
         sb,
         1,
         0,
         {0, 0},
         WF_ERR_ARG,
         "matmul(T0, T1): K differs: T0's dim 1 has extent 6 but T1's dim 0 has 5"},
        {WF_F16,
         WF_BOOL,
         2,
         2,
         s2,
         s2,
         1,
         0,
         {0, 0},
         WF_ERR_UNSUPPORTED,
         "matmul(T0, T1): T1 is bool; only float operands (f16, bf16, f32, f64) are supported: "
         "cast it to a float type first"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wf_fusion *f = wf_fusion_new();
        wf_tv *a = wf_input(f, cases[i].ta, cases[i].na, cases[i].sa);
        wf_tv *b = wf_input(f, cases[i].tb, cases[i].nb, cases[i].sbb);
        wf_tv *r = cases[i].which ? wf_matmul(a, b) : wf_mma(a, b, cases[i].nax, cases[i].ax);
        CHECK(r == NULL);
        CHECK_EQ_I64(wf_fusion_status(f), cases[i].st);
        CHECK_STR(wf_fusion_error(f), cases[i].msg);
        wf_fusion_free(f);
    }
}

/* Symbolic K: the operands' sizes are checked at launch (WF_ERR_ARG). A [M, K]
   and B [N, K] broadcast to [M, 1, K] and [1, N, K], inlined into the mma. */
TEST(mma_symbolic_k_mismatch_at_launch) {
    int64_t sym[2] = {-1, -1};
    bool ba[3] = {false, true, false}, bb[3] = {true, false, false};
    int ax = 2;
    wf_fusion *f = wf_fusion_new();
    wf_tv *av = wf_broadcast(wf_input(f, WF_F32, 2, sym), 3, ba);
    wf_tv *bv = wf_broadcast(wf_input(f, WF_F32, 2, sym), 3, bb);
    wf_tv *c = wf_mma(av, bv, 1, &ax);
    wf_output(f, c);
    wf_tv_inline_at(av, -1);
    wf_tv_inline_at(bv, -1);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK_STR(wf_fusion_error(f), "");
    float a[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
          b[15] = {1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 1};
    float out[9];
    if (k) {
        wf_buffer in[2] = {{a, WF_F32, 2, {3, 4}, {0}, -1}, {b, WF_F32, 2, {3, 4}, {0}, -1}};
        wf_buffer o[1] = {{out, WF_F32, 2, {3, 3}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_OK);
        CHECK(out[0] == 10 && out[1] == 20 && out[2] == 4 && out[8] == 12);
        in[1].shape[1] = 5;
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, o, 1), WF_ERR_ARG);
        CHECK_STR(wf_last_run_error(k),
                  "input 0 (T0) has extent 4 in dim 1 but input 1 (T2) has 5 in dim 1; they must "
                  "be equal, as T1 and T3 are operands of T4 (its dim 2)");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* WF_MMA: the tile's axes of a wf_mma; refusals name the tensor, the axis and
   what works (m16n8k16, f16/bf16, sm_80). */
static void check_mma_refusal(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K, int sm,
                              wf_status st, const char *msg) {
    mm m = make_mm(t, M, N, K);
    for (int i = 0; i < 3; i++)
        wf_tv_parallelize(m.c, i, WF_MMA);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_compile_options o = {0};
    o.sm = sm;
    wf_kernel *k = wf_compile(m.f, &o);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(m.f), st);
    CHECK_STR(wf_fusion_error(m.f), msg);
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_wf_mma_axis_refusals) {
    check_mma_refusal(
        ts_, WF_F32, 16, 8, 16, 90, WF_ERR_UNSUPPORTED,
        "T5: axis 0 (iMMA12{16}) is parallelized on MMA, but its operand T2 is float: no "
        "tensor-core path for float operands is implemented; mma.sync.m16n8k16 (sm_80 and later) "
        "takes f16 or bf16 operands with an f32 accumulator");
    check_mma_refusal(
        ts_, WF_F64, 16, 8, 16, 90, WF_ERR_UNSUPPORTED,
        "T5: axis 0 (iMMA12{16}) is parallelized on MMA, but its operand T2 is double: no "
        "tensor-core path for double operands is implemented; mma.sync.m16n8k16 (sm_80 and later) "
        "takes f16 or bf16 operands with an f32 accumulator");
    check_mma_refusal(
        ts_, WF_F16, 16, 8, 16, 75, WF_ERR_UNSUPPORTED,
        "T5: axis 1 (iMMA20{4}) is parallelized on MMA, but the target is sm_75; "
        "mma.sync.m16n8k16 (sm_80 and later) takes f16 or bf16 operands with an f32 accumulator");
    check_mma_refusal(
        ts_, WF_BF16, 16, 16, 16, 80, WF_ERR_SCHEDULE,
        "T5: axis 0 (iMMA12{16}) is parallelized on MMA, but T5's MMA axes (iMMA12{16}, "
        "iMMA13{16}, rMMA14{16}) form no instruction's tile: mma.sync takes m16n8k16, two "
        "iteration axes of extents 16 (M) and 8 (N) and one reduction axis of extent 16 (K), the "
        "innermost axes, which wf_tv_parallelize lays out as 32 lanes on TIDx and 4 registers");
    check_mma_refusal(
        ts_, WF_BF16, 16, 8, 8, 80, WF_ERR_SCHEDULE,
        "T5: axis 0 (iMMA12{16}) is parallelized on MMA, but T5's MMA axes (iMMA12{16}, iMMA13{8}, "
        "rMMA14{8}) form no instruction's tile: mma.sync takes m16n8k16, two iteration axes of "
        "extents 16 (M) and 8 (N) and one reduction axis of extent 16 (K), the innermost axes, "
        "which "
        "wf_tv_parallelize lays out as 32 lanes on TIDx and 4 registers");
    check_mma_refusal(ts_, WF_F16, 16, 8, 16, 80, WF_ERR_UNSUPPORTED,
                      "T5: axis 1 (iMMA20{4}) is parallelized on MMA, but T5 is in global memory: "
                      "the accumulator of mma.sync is in registers; compute it in a register "
                      "tensor (wf_cache_before of the output)");
}
