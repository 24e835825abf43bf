/*
 * test_mma_sync.c -- wf_mma on tensor cores: mma.sync.m16n8k16 (sm_80 and
 * later), from the schedule (lower/mma.c, sched/mma.c).
 *
 * A GEMM C[M, N] = A[M, K] x B[K, N] in bf16 or f16 with an f32 accumulator:
 * blocks of wm x wn warps (TIDz, TIDy), each warp tm x tn instruction tiles of
 * 16 x 8, K in steps of 16; the accumulator (wf_cache_before of C), the
 * operand tiles (the wf_mma's inputs, computed at the K step) and the store
 * of C (reverse_compute_at at the warp) each get WF_MMA on their tile axes,
 * which lays them out as the instruction's fragments. Every kernel runs on
 * the CPU executor, which runs mma.sync lane by lane as the PTX ISA gives
 * it, on integer-valued data (every partial sum exact, so the result is
 * exact whatever the adder does) against a double reference, at sizes that
 * are and are not multiples of the tiles (the operand tiles fill with 0
 * past the end); each compiles with NVRTC for sm_80 and sm_90a.
 */
#include "mma_check.h"

/* WF_MMA on axes a and b of tv: a tile of the instruction, laid out as its
   fragment (sched/mma.c). */
static void mark_mma(wf_tv *tv, int a, int b) {
    wf_tv_parallelize(tv, a, WF_MMA);
    wf_tv_parallelize(tv, b, WF_MMA);
}

typedef struct {
    int wm, wn, tm, tn; /* warps per block along M and N; 16 x 8 tiles per warp */
} gemm_tile;

/* acc [M, N, rK] -> [Mb, Nb, wm, wn, Ko, tm, tn, m16, n8, k16] */
static mm mma_sync_gemm(wf_dtype t, int64_t M, int64_t N, int64_t K, gemm_tile g) {
    mm m = make_mm(t, M, N, K);
    wf_tv *acc = wf_cache_before(m.c);
    wf_tv *xa = wf_tv_definition_input(acc, 0), *xb = wf_tv_definition_input(acc, 1);
    wf_tv_split(acc, 0, 16);
    wf_tv_split(acc, 0, g.tm);
    wf_tv_split(acc, 0, g.wm);
    wf_tv_split(acc, 4, 8);
    wf_tv_split(acc, 4, g.tn);
    wf_tv_split(acc, 4, g.wn);
    wf_tv_split(acc, 8, 16);
    int o2n[10] = {0, 2, 5, 7, 1, 3, 6, 8, 4, 9};
    wf_tv_reorder_all(acc, o2n);
    wf_tv_parallelize(acc, 0, WF_BIDY);
    wf_tv_parallelize(acc, 1, WF_BIDX);
    wf_tv_parallelize(acc, 2, WF_TIDZ);
    wf_tv_parallelize(acc, 3, WF_TIDY);
    /* The operands at the K step: [.., Ko | tm, m16, b, b, k16] (A),
       [.., Ko | b, b, tn, n8, k16] (B); C's store at the warp: [.., wn | tm, m16, tn, n8]. */
    wf_compute_at(xa, acc, 5);
    wf_compute_at(xb, acc, 5);
    wf_reverse_compute_at(m.c, acc, 4);
    for (int i = 7; i < 10; i++)
        wf_tv_parallelize(acc, i, WF_MMA);
    mark_mma(xa, 6, 9);
    mark_mma(xb, 8, 9);
    mark_mma(m.c, 5, 7);
    wf_inline_most(m.f);
    return m;
}

static void check_gemm(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K, gemm_tile g) {
    mm m = mma_sync_gemm(t, M, N, K, g);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->block[0], 32);
        CHECK_EQ_I64(li->block[1], g.wn);
        CHECK_EQ_I64(li->block[2], g.wm);
        CHECK_EQ_I64(li->grid[0], (N + 8 * g.tn * g.wn - 1) / (8 * g.tn * g.wn));
        CHECK_EQ_I64(li->grid[1], (M + 16 * g.tm * g.wm - 1) / (16 * g.tm * g.wm));
        CHECK_HAS(wf_kernel_source(k), t == WF_BF16
                                           ? "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                                           : "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ");
        run_mm(k, t, M, N, K, true);
        CHECK_NVRTC(k, 80);
        CHECK_NVRTC(k, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* C[M, N] as wf_mma over K of A viewed [M, K, 1] and B viewed [1, K, N]: no
   permute of B (wf_matmul's [1, N, K] view reads B through one), so that the
   shared tiles keep the inputs' contiguous dim innermost; C's loop domain is
   [M, rK, N]. A and B are staged through shared-memory tensors. */
typedef struct {
    mm m;
    wf_tv *as, *bs, *xa, *xb;
} mm_kn;

static mm_kn make_mm_kn(wf_dtype t, int64_t M, int64_t N, int64_t K) {
    mm_kn r;
    int64_t sa[2] = {M, K}, sb[2] = {K, N};
    bool ba[3] = {false, false, true}, bb[3] = {true, false, false};
    int kd = 1;
    r.m.f = wf_fusion_new();
    r.m.a = wf_input(r.m.f, t, 2, sa);
    r.m.b = wf_input(r.m.f, t, 2, sb);
    r.as = wf_set(r.m.a);
    r.bs = wf_set(r.m.b);
    r.xa = wf_broadcast(r.as, 3, ba);
    r.xb = wf_broadcast(r.bs, 3, bb);
    r.m.c = wf_mma(r.xa, r.xb, 1, &kd);
    wf_output(r.m.f, r.m.c);
    return r;
}

/* The block's A and B tiles staged in shared memory at each step of kt x 16
   along K, fetched by all threads of the block (vec elements per access),
   the fragments loaded from there:
   acc [Mb, Nb, wm, wn, Ko, kt, tm, tn, m16, n8, k16]. */
static mm mma_sync_gemm_smem(wf_dtype t, int64_t M, int64_t N, int64_t K, gemm_tile g, int kt,
                             int vec, bool ldmatrix) {
    mm_kn r = make_mm_kn(t, M, N, K);
    wf_tv_set_memory(r.as, WF_MEM_SHARED);
    wf_tv_set_memory(r.bs, WF_MEM_SHARED);
    wf_tv *acc = wf_cache_before(r.m.c);
    int mnk[3] = {0, 2, 1};
    wf_tv_reorder_all(acc, mnk); /* [M, N, rK] */
    wf_tv_split(acc, 0, 16);
    wf_tv_split(acc, 0, g.tm);
    wf_tv_split(acc, 0, g.wm);
    wf_tv_split(acc, 4, 8);
    wf_tv_split(acc, 4, g.tn);
    wf_tv_split(acc, 4, g.wn);
    wf_tv_split(acc, 8, 16);
    wf_tv_split(acc, 8, kt);
    int o2n[11] = {0, 2, 6, 8, 1, 3, 7, 9, 4, 5, 10};
    wf_tv_reorder_all(acc, o2n);
    wf_tv_parallelize(acc, 0, WF_BIDY);
    wf_tv_parallelize(acc, 1, WF_BIDX);
    wf_tv_parallelize(acc, 2, WF_TIDZ);
    wf_tv_parallelize(acc, 3, WF_TIDY);
    /* The fragments at kt: [.., kt | tm, m16, k16, b, b] (A), [.., kt | b, b, k16, tn, n8]
       (B); the shared tiles at Ko: [.., Ko | wm, tm, m16, kt, k16] (A),
       [.., Ko | kt, k16, wn, tn, n8] (B); C's store at the warp. */
    wf_compute_at(r.xa, acc, 6);
    wf_compute_at(r.xb, acc, 6);
    wf_compute_at(r.as, r.xa, 5);
    wf_compute_at(r.bs, r.xb, 5);
    wf_reverse_compute_at(r.m.c, acc, 4);
    for (int i = 8; i < 11; i++)
        wf_tv_parallelize(acc, i, WF_MMA);
    mark_mma(r.xa, 7, 8);
    mark_mma(r.xb, 8, 10);
    for (int i = 0; i < 2 && ldmatrix; i++) { /* the fragments' registers: one ldmatrix */
        wf_tv *x = i ? r.xb : r.xa;
        wf_tv_set_ldst(x, WF_LDST_LDMATRIX);
        wf_tv_parallelize(x, -1, WF_VECTORIZE);
    }
    mark_mma(r.m.c, 5, 7);
    wf_tv *st[2] = {r.as, r.bs};
    for (int i = 0; i < 2; i++) {   /* [.., Ko | 5 axes] -> [.., Ko, o, TIDz, TIDy, TIDx, vec] */
        wf_tv_split(st[i], 9, vec); /* the vector first: its index stays `+ v` */
        for (int j = 0; j < 4; j++)
            wf_tv_merge(st[i], 5);
        wf_tv_split(st[i], 5, 32);
        wf_tv_split(st[i], 5, g.wn);
        wf_tv_split(st[i], 5, g.wm);
        wf_tv_parallelize(st[i], 6, WF_TIDZ);
        wf_tv_parallelize(st[i], 7, WF_TIDY);
        wf_tv_parallelize(st[i], 8, WF_TIDX);
        if (vec > 1)
            wf_tv_parallelize(st[i], 9, WF_VECTORIZE);
    }
    wf_inline_most(r.m.f);
    return r.m;
}

static void check_gemm_smem(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K,
                            gemm_tile g, int kt, int vec, bool ldmatrix) {
    mm m = mma_sync_gemm_smem(t, M, N, K, g, kt, vec, ldmatrix);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
        if (ldmatrix) { /* A row-major: x4; B [K, N] row-major: x2, transposed */
            CHECK_HAS(wf_kernel_source(k), "ldmatrix.sync.aligned.x4.m8n8.shared.b16");
            CHECK_HAS(wf_kernel_source(k), "ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16");
        }
        run_mm(k, t, M, N, K, true);
        CHECK_NVRTC(k, 80);
        CHECK_NVRTC(k, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_sync_shared_memory_tiles) {
    check_gemm_smem(ts_, WF_BF16, 128, 128, 128, (gemm_tile){2, 2, 2, 4}, 2, 8, false);
    check_gemm_smem(ts_, WF_F16, 64, 64, 96, (gemm_tile){1, 2, 4, 2}, 1, 8, false);
    check_gemm_smem(ts_, WF_BF16, 70, 45, 50, (gemm_tile){2, 2, 1, 2}, 2, 1, false);
}

/* The fragments loaded by ldmatrix from the shared tiles; past the end of M,
   N or K the shared tiles fill with 0 (ldmatrix reads whole tiles). */
TEST(mma_sync_ldmatrix_fragments) {
    check_gemm_smem(ts_, WF_BF16, 128, 128, 128, (gemm_tile){2, 2, 2, 4}, 2, 8, true);
    check_gemm_smem(ts_, WF_F16, 64, 96, 64, (gemm_tile){1, 2, 4, 2}, 1, 8, true);
    check_gemm_smem(ts_, WF_BF16, 70, 45, 50, (gemm_tile){2, 2, 1, 2}, 2, 1, true);
}

/* Split-K by rfactor, the slices on warps: the producer P (an mma) sums its
   slice of K per warp, [Mo (BIDy), No (BIDx), Ks (TIDz), rKo, m16, n8, rk16],
   and C sums the S slices in a block reduction over threadIdx.z, in the
   accumulator's layout. */
static void check_split_k(test_state *ts_, wf_dtype t, int64_t M, int64_t N, int64_t K, int S) {
    mm m = make_mm(t, M, N, K);
    wf_tv_split(m.c, 2, 16);
    wf_tv_split_outer(m.c, 2, S); /* [M, N, rKs, rKo, rk16] */
    wf_tv_split(m.c, 1, 8);
    wf_tv_split(m.c, 0, 16);
    int o2n[7] = {0, 3, 1, 4, 2, 5, 6}; /* [Mo, No, rKs, m16, n8, rKo, rk16] */
    wf_tv_reorder_all(m.c, o2n);
    int slice[2] = {5, 6};
    wf_tv *p = wf_tv_rfactor(m.c, 2, slice);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (!p) {
        wf_fusion_free(m.f);
        return;
    }
    int po[7] = {0, 1, 2, 4, 5, 3, 6}; /* P: [Mo, No, Ks, rKo, m16, n8, rk16] */
    wf_tv_reorder_all(p, po);
    wf_tv_parallelize(p, 0, WF_BIDY);
    wf_tv_parallelize(p, 1, WF_BIDX);
    wf_tv_parallelize(p, 2, WF_TIDZ);
    wf_tv *xa = wf_tv_definition_input(p, 0), *xb = wf_tv_definition_input(p, 1);
    wf_compute_at(xa, p, 4); /* [.., Ko | m16, b8, k16] */
    wf_compute_at(xb, p, 4); /* [.., Ko | b16, n8, k16] */
    wf_tv_parallelize(m.c, 0, WF_BIDY);
    wf_tv_parallelize(m.c, 1, WF_BIDX);
    wf_tv_parallelize(m.c, 2, WF_TIDZ);
    for (int i = 4; i < 7; i++)
        wf_tv_parallelize(p, i, WF_MMA);
    mark_mma(xa, 4, 6);
    mark_mma(xb, 5, 6);
    mark_mma(m.c, 3, 4);
    wf_inline_most(m.f);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->block[2], S);
        CHECK_HAS(wf_kernel_source(k), "mma.sync.aligned.m16n8k16");
        CHECK_HAS(wf_kernel_source(k), "wf_block_reduce<false, false, true>(");
        run_mm(k, t, M, N, K, true);
        CHECK_NVRTC(k, 80);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(mma_sync_split_k_over_warps) {
    check_split_k(ts_, WF_BF16, 32, 16, 64, 2);
    check_split_k(ts_, WF_F16, 40, 20, 100, 4);
}

TEST(mma_sync_one_warp_one_tile) {
    check_gemm(ts_, WF_BF16, 16, 8, 16, (gemm_tile){1, 1, 1, 1});
    check_gemm(ts_, WF_F16, 16, 8, 48, (gemm_tile){1, 1, 1, 1});
}

TEST(mma_sync_warps_and_tiles_per_warp) {
    check_gemm(ts_, WF_BF16, 64, 64, 64, (gemm_tile){2, 2, 2, 2});
    check_gemm(ts_, WF_F16, 128, 64, 32, (gemm_tile){2, 1, 2, 4});
}

/* No tile divides M, N or K: the operand tiles fill with 0 past the end,
   the accumulator's cells past the end are never stored. */
TEST(mma_sync_sizes_not_multiples_of_the_tiles) {
    check_gemm(ts_, WF_BF16, 50, 37, 45, (gemm_tile){2, 2, 1, 2});
    check_gemm(ts_, WF_F16, 17, 9, 17, (gemm_tile){1, 1, 1, 1});
    check_gemm(ts_, WF_BF16, 100, 3, 7, (gemm_tile){2, 1, 2, 1});
}
