/*
 * test_tma_examples.c -- the seed's worked examples (seed 001, "Examples"):
 * a pointwise add whose inputs are TMA-loaded and whose output is stored
 * with vector stores, and the bank-conflict-free transpose of 32-bit data
 * through 128-byte-swizzled shared memory, TMA load and TMA store. Each is
 * exact on the executor, compiled by NVRTC for sm_90a, and checked for its
 * tensor maps; the transpose's shared-memory accesses are conflict-free by
 * the executor's statistics (with the swizzle; 8-way without).
 */
#include "harness.h"

/* T2 = T0 + T1, [M, N] f32: each input cached in shared memory by TMA
   (boxes of 256 along the flattened tensor), the sum in registers, the
   output stored 4 floats at a time. */
static void example1(test_state *ts_, int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_tv *out = wf_add(a, b);
    wf_output(f, out);
    wf_tv *sa = wf_cache_after(a), *sb = wf_cache_after(b), *r = wf_cache_before(out);
    wf_tv *smem[2] = {sa, sb};
    for (int i = 0; i < 2; i++) {
        wf_tv_set_memory(smem[i], WF_MEM_SHARED);
        wf_tv_set_ldst(smem[i], WF_LDST_TMA);
        wf_tv_merge(smem[i], 0);
        wf_tv_split(smem[i], 0, 256);
        wf_tv_parallelize(smem[i], 0, WF_BIDX);
        wf_tv_parallelize(smem[i], 1, WF_BULK);
    }
    wf_tv *regs[2] = {r, out};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(regs[i], 0);
        wf_tv_split(regs[i], 0, 256);
        wf_tv_split(regs[i], 1, 4);
        wf_tv_parallelize(regs[i], 0, WF_BIDX);
        wf_tv_parallelize(regs[i], 1, WF_TIDX);
    }
    wf_tv_parallelize(out, 2, WF_VECTORIZE);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        for (int i = 0; i < 2; i++) {
            const wf_tma_info *m = wf_kernel_tma(k, i);
            CHECK_EQ_I64(m->rank, 1);
            CHECK_EQ_I64(m->global_dims[0], rows * cols);
            CHECK_EQ_I64(m->box[0], 256);
            CHECK(m->shared_tv == smem[i]);
        }
        CHECK_HAS(wf_kernel_source(k), "wf_vec_copy<float, 4>");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_example1_pointwise_add_vectorized_store) {
    example1(ts_, 64, 512);
    example1(ts_, 63, 500); /* 31500 = 123 x 256 + 12: the last boxes partial */
}

/* T1 = transpose(T0), [N, N] f32, by 32 x 32 tiles: TMA load into a
   128-byte-swizzled tile, each thread reads a column of it into registers
   (the transposed order), writes them into a second swizzled tile, which a
   TMA store writes out. Without the swizzle, reading a column of 32 floats
   hits one bank 32 times. */
static wf_fusion *transpose(int64_t n, bool swizzle, wf_tv **tiles) {
    int64_t shape[2] = {n, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_tv *out = wf_transpose(in, 0, 1);
    wf_output(f, out);
    wf_tv *s0 = wf_cache_after(in);   /* [I0, I1] shared, TMA load */
    wf_tv *s1 = wf_cache_before(out); /* [I1, I0] shared, then TMA store */
    wf_tv *r = wf_cache_before(s1);   /* the permute, in registers */
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_memory(s1, WF_MEM_SHARED);
    wf_tv_set_ldst(s0, WF_LDST_TMA);
    wf_tv_set_ldst(out, WF_LDST_TMA);
    /* every tensor as [Io, Io, 32, 32] in its own order, I0o on BIDy, I1o on BIDx */
    wf_tv *all[4] = {s0, r, s1, out};
    for (int i = 0; i < 4; i++) {
        wf_tv_split(all[i], 1, 32);
        wf_tv_split(all[i], 0, 32);
        wf_tv_reorder_all(all[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(all[i], 0, i == 0 ? WF_BIDY : WF_BIDX);
        wf_tv_parallelize(all[i], 1, i == 0 ? WF_BIDX : WF_BIDY);
    }
    for (int i = 2; i < 4; i++) {
        wf_tv_parallelize(s0, i, WF_BULK);
        wf_tv_parallelize(out, i, WF_BULK);
    }
    if (swizzle) {
        wf_tv_tma_swizzle(s0, 128);
        wf_tv_tma_swizzle(s1, 128);
    } else { /* the second tile dense in its logical order, whatever the threads do */
        wf_iterdomain *const *ids = wf_tv_loop_domain(s1, &(int){0});
        wf_tv_set_allocation_domain(s1, 4, ids, true);
    }
    /* registers and the second tile: [.., I1i{32} (TIDx), I0i{32} -> 8 (TIDy) x 4]: a warp
       reads a row of the first tile, 4 rows one after the other, and each thread writes its
       4 values as one 16-byte chunk of its row of the second tile */
    wf_tv *thr[2] = {r, s1};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(thr[i], 3, 4);
        wf_tv_parallelize(thr[i], 2, WF_TIDX);
        wf_tv_parallelize(thr[i], 3, WF_TIDY);
    }
    wf_tv_parallelize(s1, 4, WF_VECTORIZE);
    wf_inline_most(f);
    tiles[0] = s0;
    tiles[1] = s1;
    return f;
}

static wf_access_stats transpose_stats(test_state *ts_, bool swizzle) {
    wf_tv *tiles[2];
    wf_access_stats st = {0};
    wf_fusion *f = transpose(128, swizzle, tiles);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        harness_nvrtc(ts_, k, 90, __FILE__, __LINE__);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        CHECK_EQ_I64(wf_kernel_tma(k, 0)->swizzle_bytes, swizzle ? 128 : 0);
        CHECK_EQ_I64(wf_kernel_tma(k, 1)->swizzle_bytes, swizzle ? 128 : 0);
        CHECK(wf_kernel_tma(k, 1)->is_store);
        CHECK_EQ_I64(wf_interp_stats(k, &st), WF_OK);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
    return st;
}

/* With the 128-byte swizzle no shared-memory access of the transpose has a
   bank conflict: a warp reads a row of the first tile (32 banks) and writes
   16-byte chunks of 32 rows of the second, which the swizzle spreads over
   all banks (a 16-byte access needs 4 wavefronts per warp, as wide accesses
   always do). Without it, rows are 128 bytes apart: the chunks a quarter-warp
   writes share 4 banks, 8-way. */
TEST(tma_example3_transpose_through_swizzled_tiles) {
    wf_access_stats sw = transpose_stats(ts_, true), plain = transpose_stats(ts_, false);
    printf("  swizzled: %lld accesses, %lld wavefronts, %d-way; plain: %lld, %lld, %d-way\n",
           (long long)sw.smem_accesses, (long long)sw.smem_wavefronts, sw.smem_max_conflict_degree,
           (long long)plain.smem_accesses, (long long)plain.smem_wavefronts,
           plain.smem_max_conflict_degree);
    CHECK_EQ_I64(sw.smem_accesses, 640);
    CHECK_EQ_I64(sw.smem_wavefronts, 1024); /* 512 row reads + 128 chunk writes x 4 */
    CHECK_EQ_I64(sw.smem_max_conflict_degree, 1);
    CHECK_EQ_I64(plain.smem_accesses, 640);
    CHECK_EQ_I64(plain.smem_wavefronts, 4608);
    CHECK_EQ_I64(plain.smem_max_conflict_degree, 8);
}

/* 120 x 120: the last row and column of tiles are partial, zero-filled by the
   load and clipped by the store. */
TEST(tma_example3_transpose_partial_tiles) {
    for (int sw = 0; sw < 2; sw++) {
        wf_tv *tiles[2];
        wf_fusion *f = transpose(120, sw, tiles);
        wf_kernel *k = CHECK_INTERP(f, NULL);
        if (k) {
            CHECK_NVRTC(k, 90);
            CHECK_EQ_I64(wf_kernel_tma(k, 0)->global_dims[0], 120);
            CHECK_EQ_I64(wf_kernel_tma(k, 1)->box[1], 32);
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}
