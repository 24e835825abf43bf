/*
 * test_tma_smem.c -- the shared-memory tensor of a TMA copy is checked, not
 * trusted (seed 001, step 4, Figures 13-15): each tile contiguous in the
 * allocation, in box order or one of TMA's swizzles; the allocation a whole
 * number of tiles. Invalid schedules are refused at compile time with a
 * message naming the tile IterDomains; valid ones, however the tile is
 * viewed, run exactly on the executor. The swizzle (32/64/128 bytes) is
 * inferred from the allocation and its buffer aligned for it.
 */
#include "harness.h"

/* in [rows, cols] -> T1 (shared, TMA load) -> T2 (output); both scheduled
   [I0o (serial), I1o (BIDx), I0i{br}, I1i{bc}], the tile Bulk in T1. */
static wf_fusion *tiled_load(int64_t rows, int64_t cols, int64_t br, int64_t bc, wf_tv **smem) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, bc);
        wf_tv_split(both[i], 0, br);
        wf_tv_reorder_all(both[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(both[i], 1, WF_BIDX);
    }
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    *smem = s;
    return f;
}

/* T1's axes from `from` on are its tile: Bulk. */
static void bulk_from(wf_tv *s, int from) {
    for (int i = from; i < wf_tv_ndim(s); i++)
        wf_tv_parallelize(s, i, WF_BULK);
}

static void expect_refused(test_state *ts_, wf_fusion *f, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_kernel_free(k);
}

/* Figure 13 (a), (e): a serial IterDomain between the tile IterDomains. */
TEST(tma_smem_serial_axis_between_tile_axes_is_refused) {
    wf_tv *s;
    wf_fusion *f = tiled_load(32, 64, 8, 32, &s);
    bulk_from(s, 2);
    wf_iterdomain *alloc[4] = {wf_tv_axis(s, 1), wf_tv_axis(s, 2), wf_tv_axis(s, 0),
                               wf_tv_axis(s, 3)};
    wf_tv_set_allocation_domain(s, 4, alloc, true);
    expect_refused(ts_, f,
                   "T1: the tile of its TMA copy (tile IterDomains iBulk9{8}, iBulk7{32}) must be "
                   "contiguous in the allocation of the shared-memory tensor T1, as a whole "
                   "number of tiles: box element 32 (counting dimension 0 fastest) is at "
                   "element 128 of the tile in shared memory, which is neither the dense "
                   "position nor a 32/64/128-byte swizzle of it with the innermost box as "
                   "wide as the swizzle; order the allocation so that the tile IterDomains "
                   "are innermost and adjacent, in the order of the box");
    wf_fusion_free(f);
}

/* Figure 14 (a): a BIDx IterDomain between the tile IterDomains is not
   allocated in shared memory, so the tile stays contiguous. */
static void block_axis_between(test_state *ts_, int64_t rows, int64_t cols) {
    wf_tv *s;
    wf_fusion *f = tiled_load(rows, cols, 8, 32, &s);
    bulk_from(s, 2);
    wf_iterdomain *alloc[4] = {wf_tv_axis(s, 0), wf_tv_axis(s, 2), wf_tv_axis(s, 1),
                               wf_tv_axis(s, 3)};
    wf_tv_set_allocation_domain(s, 4, alloc, true);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k)
        CHECK_EQ_I64(wf_kernel_tma(k, 0)->swizzle_bytes, 0);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_smem_block_axis_between_tile_axes_is_valid) {
    block_axis_between(ts_, 32, 64);
    block_axis_between(ts_, 30, 52); /* partial tiles in both dimensions */
}

/* Figure 15 (d): the tile's two IterDomains in the wrong order. */
TEST(tma_smem_tile_axes_flipped_are_refused) {
    wf_tv *s;
    wf_fusion *f = tiled_load(32, 64, 8, 32, &s);
    bulk_from(s, 2);
    wf_iterdomain *alloc[4] = {wf_tv_axis(s, 0), wf_tv_axis(s, 1), wf_tv_axis(s, 3),
                               wf_tv_axis(s, 2)};
    wf_tv_set_allocation_domain(s, 4, alloc, true);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_HAS(wf_fusion_error(f), "T1: the tile of its TMA copy (tile IterDomains iBulk9{8}, "
                                  "iBulk7{32}) must be contiguous in the allocation of the "
                                  "shared-memory tensor T1, as a whole number of tiles: box "
                                  "element 32 (counting dimension 0 fastest) is at element 1 of "
                                  "the tile");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Figure 15 (a), (b): any view of the tile that keeps it contiguous, here
   merged and split again, is valid. */
static void viewed_arbitrarily(test_state *ts_, int64_t rows, int64_t cols) {
    wf_tv *s;
    wf_fusion *f = tiled_load(rows, cols, 8, 32, &s);
    wf_iterdomain *ids[2] = {wf_tv_axis(s, 0), wf_tv_axis(s, 1)};
    wf_tv_merge(s, 2); /* [I0o, BIDx, 256] */
    wf_tv_split(s, 2, 16);
    bulk_from(s, 2);
    (void)ids;
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        const wf_tma_info *m = wf_kernel_tma(k, 0);
        CHECK_EQ_I64(m->rank, 2);
        CHECK_EQ_I64(m->box[0], 32);
        CHECK_EQ_I64(m->box[1], 8);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_smem_tile_viewed_arbitrarily_is_valid) {
    viewed_arbitrarily(ts_, 32, 64);
    viewed_arbitrarily(ts_, 30, 52);
}

/* Figure 15 (c), (e): a non-divisible split inside the tile leaves holes, and
   the allocation is no longer a whole number of tiles. */
TEST(tma_smem_holes_in_the_tile_are_refused) {
    wf_tv *s;
    wf_fusion *f = tiled_load(32, 64, 8, 32, &s);
    wf_tv_split(s, 3, 5); /* 32 -> [7, 5]: 35 cells per row */
    bulk_from(s, 2);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_HAS(wf_fusion_error(f), "box element 32 (counting dimension 0 fastest) is at element "
                                  "35 of the tile");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The TMA swizzles: [rows, s * 16 bytes] viewed as [-1, s, 8/s, s, 16 B] with the
   XOR of axes 1 and 3 (wf_tv_tma_swizzle); the mode is inferred from it, the
   buffer starts on 1024 bytes. */
static void swizzle_case(test_state *ts_, int sw, int64_t rows, int64_t ncols) {
    wf_tv *s;
    int64_t cols = sw / 4;
    wf_fusion *f = tiled_load(rows, ncols, 16, cols, &s);
    bulk_from(s, 2);
    wf_tv_tma_swizzle(s, sw);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        const wf_tma_info *m = wf_kernel_tma(k, 0);
        CHECK_EQ_I64(m->swizzle_bytes, sw);
        CHECK_EQ_I64(m->box[0], cols);
        CHECK_EQ_I64(m->box[1], 16);
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, (rows + 15) / 16 * 16 * sw + 1008);
        CHECK_HAS(wf_kernel_source(k), "+ 1023ull) & ~1023ull");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_smem_swizzle_32_64_128_inferred) {
    for (int sw = 32; sw <= 128; sw *= 2) {
        swizzle_case(ts_, sw, 64, sw);
        swizzle_case(ts_, sw, 60, sw - 4); /* partial tiles in both dimensions */
    }
}

/* A swizzled layout whose rows are wider than the swizzle is not a TMA mode. */
TEST(tma_smem_swizzle_wider_than_the_box_row_is_refused) {
    wf_tv *s;
    wf_fusion *f = tiled_load(64, 128, 16, 64, &s); /* rows of 256 bytes */
    wf_iterdomain *ids[4];
    wf_tv_split(s, 3, 4); /* [.., 16, 16 chunks, 4] */
    wf_tv_split(s, 2, 8); /* [.., 2, 8, 16, 4] */
    for (int i = 0; i < 4; i++)
        ids[i] = wf_tv_axis(s, 2 + i);
    (void)ids;
    wf_tv_swizzle(s, WF_SWIZZLE_XOR, 3, 4);
    bulk_from(s, 2);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_HAS(wf_fusion_error(f), "which is neither the dense position nor a 32/64/128-byte "
                                  "swizzle of it with the innermost box as wide as the swizzle");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Figure 14 (c), (e): IterDomains of extent 1 -- a non-tile one between the
   tile IterDomains, or a tile one anywhere -- do not break the tile. */
static void extent_one_axes(test_state *ts_, int64_t rows, int64_t cols) {
    wf_tv *s;
    wf_fusion *f = tiled_load(rows, cols, 8, 32, &s);
    wf_tv_split(s, 0, 1); /* [I0o{4}, 1, BIDx, 8, 32] */
    wf_tv_split(s, 3, 8); /* [I0o, 1, BIDx, 1 (tile), 8, 32] */
    bulk_from(s, 3);
    int n;
    wf_iterdomain *const *l = wf_tv_loop_domain(s, &n);
    wf_iterdomain *alloc[6] = {l[0], l[2], l[4], l[1], l[3], l[5]}; /* .., 8, 1, 1, 32 */
    wf_tv_set_allocation_domain(s, 6, alloc, true);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        CHECK_NVRTC(k, 90);
        CHECK_EQ_I64(wf_kernel_tma(k, 0)->box[0], 32);
        CHECK_EQ_I64(wf_kernel_tma(k, 0)->box[1], 8);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_smem_extent_one_axes_between_tile_axes_are_valid) {
    extent_one_axes(ts_, 32, 64);
    extent_one_axes(ts_, 30, 52);
}
