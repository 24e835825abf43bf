/*
 * test_tma_seed_valid.c -- seed 001's schedules, valid and invalid, at the
 * seed's sizes and at sizes that are not multiples of the tiles (nvFuser's
 * TMADocTest.Figure13* / Figure14* / Figure15* and Tutorial's
 * PointwiseBroadcastTMA):
 *  - Figures 13-15: the shared-memory tensor of a TMA copy. The valid ones
 *    (14 (a)-(e), 15 (a)-(b)) run exactly on the CPU executor against the
 *    reference; the invalid ones (13 (a)-(e), 15 (c)-(e)) are refused with
 *    the reason. Figure 14 (a) has a strided tile whose element stride (3)
 *    does not divide its box (4): FTTC, whose holes hold the next box's rows;
 *    its reader is guarded to the box and never reads them. A reader that is
 *    not guarded (the predicate pass skipped) is refused by name.
 *  - Boxes by rotation (Figures 7-10), both directions, on an outer split
 *    that does not divide.
 *  - Broadcast + TMA: t3 = broadcast(t0) + t1, t0 and t1 loaded and t3
 *    stored by TMA, the merged block axis holding the broadcast: each block
 *    loads its own tile of t0.
 *  - Circular buffering with several boxes per stage.
 */
#include "api/api.h"
#include "harness.h"
#include "lower/lower.h"

/* in [r, c] -> T1 (shared) -> T2 (output); the TMA copy is T1's definition
   (load) or T2's (store). */
static wf_fusion *chain(wf_dtype dt, int64_t r, int64_t c, bool load, wf_tv **s, wf_tv **o) {
    int64_t shape[2] = {r, c};
    wf_fusion *f = wf_fusion_new();
    *s = wf_set(wf_input(f, dt, 2, shape));
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    wf_tv_set_ldst(load ? *s : *o, WF_LDST_TMA);
    return f;
}

static void alloc_is_loop(wf_tv *t) {
    int n;
    wf_iterdomain *const *l = wf_tv_loop_domain(t, &n);
    wf_tv_set_allocation_domain(t, n, l, true);
}

static void bulk(wf_tv *t, int a, int b) {
    wf_tv_parallelize(t, a, WF_BULK);
    if (b >= 0)
        wf_tv_parallelize(t, b, WF_BULK);
}

static void exact(test_state *ts_, wf_fusion *f, int rank, int64_t box0, int64_t box1,
                  int64_t es1) {
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        const wf_tma_info *m = wf_kernel_tma(k, 0);
        CHECK_EQ_I64(m->rank, rank);
        CHECK_EQ_I64(m->box[0], box0);
        if (rank > 1) {
            CHECK_EQ_I64(m->box[1], box1);
            CHECK_EQ_I64(m->element_strides[1], es1);
        }
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static void refused(test_state *ts_, wf_fusion *f, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- Figure 14 (a) and 13 (a): [16, 200] f64, split(1, 128), split(0, 4),
   split(1, 3): [4, 2 (tile), 3 (stride), 2 (BIDx), 128 (tile)]. ---- */

static wf_fusion *fig13a_14a(int64_t r, int64_t c, bool reorder, wf_tv **smem) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 128);
        wf_tv_split(both[i], 0, 4);
        wf_tv_split(both[i], 1, 3);
        wf_tv_parallelize(both[i], 3, WF_BIDX);
        if (reorder) /* [4, 3 (stride), 2 (tile), BIDx, 128] */
            wf_tv_reorder(both[i], 1, (const int[][2]){{1, 2}});
    }
    bulk(s, reorder ? 2 : 1, 4);
    alloc_is_loop(s);
    *smem = s;
    return f;
}

TEST(tma_seed_figure_14a_fttc_strided_tile_read_within_the_box) {
    static const int64_t sizes[][2] = {{16, 200}, {17, 130}, {13, 256}, {4, 128}};
    wf_tv *s;
    for (int i = 0; i < 4; i++)
        exact(ts_, fig13a_14a(sizes[i][0], sizes[i][1], true, &s), 2, 128, 4, 3);
}

/* The same kernel with the predicate pass skipped: the reader is not guarded
   to the box, and would read the holes; refused, naming it. */
TEST(tma_seed_figure_14a_unguarded_reader_of_the_holes_is_refused) {
    wf_tv *s;
    wf_fusion *f = fig13a_14a(16, 200, true, &s);
    lower_options lo = {.skip = 1u << 7}; /* skip "predicate" */
    wf_kernel *k = api_compile(f, NULL, &lo);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T1: the striding split of iS9{4} by 3, the element stride of TMA dimension 1, "
              "does not divide the box of 4 elements, and T0 is larger than the box along "
              "that dimension: the last stride phase of each box reaches past its end, where "
              "the TMA load puts the next box's elements into the tile's holes instead of "
              "zeros (seed 001, the fundamental theorem of TMA correctness, FTTC); T2 reads "
              "T1 where the index of iS9{4} (i4 * 3 + i3) is not guarded to its extent 4, so "
              "it would read those holes. Guard T2 to the box (schedule it like T1, whose "
              "split of iS9{4} bounds that index), make the element stride divide the box, "
              "or the box hold the whole extent");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_seed_figure_13a_serial_axis_inside_the_tile_is_refused) {
    wf_tv *s;
    refused(ts_, fig13a_14a(16, 200, false, &s),
            "T1: the tile of its TMA copy (tile IterDomains iBulk10{2}, iBulk7{128}) must "
            "be contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 128 (counting dimension 0 fastest) is at element "
            "384 of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 13 (b) / 14 (b): [16, 10], split(1, 6 or 10), split(0, 4). ---- */
static wf_fusion *fig13b_14b(int64_t r, int64_t c, int64_t split) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, split);
        wf_tv_split(both[i], 0, 4);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    bulk(s, 1, 3);
    return f;
}

TEST(tma_seed_figure_14b_whole_row_box) {
    exact(ts_, fig13b_14b(16, 10, 10), 2, 10, 4, 1);
    exact(ts_, fig13b_14b(18, 10, 10), 2, 10, 4, 1);
}

TEST(tma_seed_figure_13b_partial_row_box_is_refused) {
    refused(ts_, fig13b_14b(16, 10, 6),
            "T1: the tile of its TMA copy (tile IterDomains iBulk9{4}, iBulk7{6}) must be "
            "contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 6 (counting dimension 0 fastest) is at element "
            "12 of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 13 (c) / 14 (c): [16, 200], split(1, 128), split(0, 4 or 1),
   the 200/128 axis on TIDx between the tile axes. ---- */
static wf_fusion *fig13c_14c(int64_t r, int64_t c, int64_t rows) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 128);
        wf_tv_split(both[i], 0, rows);
        wf_tv_parallelize(both[i], 2, WF_TIDX);
    }
    bulk(s, 1, 3);
    alloc_is_loop(s);
    return f;
}

TEST(tma_seed_figure_14c_extent_1_tile_axis) {
    exact(ts_, fig13c_14c(16, 200, 1), 2, 128, 1, 1);
    exact(ts_, fig13c_14c(5, 300, 1), 2, 128, 1, 1);
}

TEST(tma_seed_figure_13c_thread_axis_inside_the_tile_is_refused) {
    refused(ts_, fig13c_14c(16, 200, 4),
            "T1: the tile of its TMA copy (tile IterDomains iBulk9{4}, iBulk7{128}) must "
            "be contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 128 (counting dimension 0 fastest) is at element "
            "256 of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 13 (d) / 14 (d): a TMA store of [16, 12] from a shared T1
   written by 16 threads (one row each). ---- */
static wf_fusion *fig13d_14d(int64_t r, int64_t c, int64_t cols) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, false, &s, &o);
    wf_tv_parallelize(s, 0, WF_TIDX);
    if (cols) {
        wf_tv_split(o, 1, cols);
        wf_tv_split(o, 0, 4);
        bulk(o, 1, 3);
    } else {
        wf_tv_split(o, 0, 4);
        bulk(o, 1, 2);
    }
    return f;
}

TEST(tma_seed_figure_14d_store_of_whole_rows) {
    exact(ts_, fig13d_14d(16, 12, 0), 2, 12, 4, 1);
    exact(ts_, fig13d_14d(8, 16, 0), 2, 16, 4, 1);
}

TEST(tma_seed_figure_13d_store_of_partial_rows_is_refused) {
    refused(ts_, fig13d_14d(16, 12, 8),
            "T2: the tile of its TMA copy (tile IterDomains iBulk9{4}, iBulk7{8}) must be "
            "contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 8 (counting dimension 0 fastest) is at element "
            "12 of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 13 (e) / 14 (e): a TMA store; T1 [4 (TIDx), 4, 2 or 1 (TIDy),
   6 or 16] allocated as its loop domain. ---- */
static wf_fusion *fig13e_14e(int64_t r, int64_t c, int64_t cols) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, false, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, cols);
        wf_tv_split(both[i], 0, 4);
    }
    bulk(o, 1, 3);
    alloc_is_loop(s);
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_tv_parallelize(s, 2, WF_TIDY);
    return f;
}

TEST(tma_seed_figure_14e_extent_1_axis_between_the_tile_axes) {
    exact(ts_, fig13e_14e(16, 10, 16), 2, 16, 4, 1);
    exact(ts_, fig13e_14e(14, 10, 16), 2, 16, 4, 1);
}

TEST(tma_seed_figure_13e_axis_between_the_tile_axes_is_refused) {
    refused(ts_, fig13e_14e(16, 10, 6),
            "T2: the tile of its TMA copy (tile IterDomains iBulk13{4}, iBulk11{6}) must "
            "be contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 6 (counting dimension 0 fastest) is at element "
            "12 of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 15 (a), (c), (d): [16, 10], tiles of 4 x 4 viewed as [8, 2]
   (split 2, merge), [8, 3] (split 3: holes) or [8, 2] with the split's
   outputs flipped. ---- */
static wf_fusion *fig15acd(int64_t r, int64_t c, int64_t split, bool flip) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 4);
        wf_tv_split(both[i], 0, 4);
        wf_tv_reorder(both[i], 1, (const int[][2]){{1, 2}}); /* [r/4, c/4, 4, 4] */
        wf_tv_split(both[i], 3, split);                      /* [r/4, c/4, 4, 4/s, s] */
        if (flip)
            wf_tv_reorder(both[i], 1, (const int[][2]){{4, 3}});
        wf_tv_merge(both[i], 2);
    }
    bulk(s, 2, 3);
    alloc_is_loop(s);
    return f;
}

TEST(tma_seed_figure_15a_tile_viewed_as_8_by_2) {
    exact(ts_, fig15acd(16, 10, 2, false), 2, 4, 4, 1);
    exact(ts_, fig15acd(17, 6, 2, false), 2, 4, 4, 1);
}

TEST(tma_seed_figure_15c_holes_inside_the_tile_are_refused) {
    refused(ts_, fig15acd(16, 10, 3, false),
            "T1: the tile of its TMA copy (tile IterDomains iS9{4}, iS7{4}) must be "
            "contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 4 (counting dimension 0 fastest) is at element 6 "
            "of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

TEST(tma_seed_figure_15d_tile_axes_flipped_are_refused) {
    refused(ts_, fig15acd(16, 10, 2, true),
            "T1: the tile of its TMA copy (tile IterDomains iS9{4}, iS7{4}) must be "
            "contiguous in the allocation of the shared-memory tensor T1, as a whole "
            "number of tiles: box element 1 (counting dimension 0 fastest) is at element 2 "
            "of the tile in shared memory, which is neither the dense position nor a "
            "32/64/128-byte swizzle of it with the innermost box as wide as the swizzle; "
            "order the allocation so that the tile IterDomains are innermost and adjacent, "
            "in the order of the box");
}

/* ---- Figure 15 (b), (e): a TMA store of rows from a shared T1 viewed as
   [-1, 2] (vectorized pairs, whole tiles) or [-1, 7] (not). The seed's rows
   of 12 f64 (96 bytes) would start boxes off TMA's 128-byte alignment in
   shared memory, so the rows here are 16 wide. ---- */
static wf_fusion *fig15be(int64_t r, int64_t c, int64_t inner) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F64, r, c, false, &s, &o);
    wf_tv_merge(s, 0);
    wf_tv_split(s, 0, inner);
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_tv_parallelize(s, 1, inner == 2 ? WF_VECTORIZE : WF_TIDY);
    alloc_is_loop(s);
    wf_tv_split(o, 1, 4);
    wf_tv_parallelize(o, 0, WF_TIDX);
    bulk(o, 1, 2);
    return f;
}

TEST(tma_seed_figure_15b_store_from_a_vectorized_view) {
    exact(ts_, fig15be(16, 16, 2), 2, 16, 1, 1);
    exact(ts_, fig15be(7, 16, 2), 2, 16, 1, 1);
}

TEST(tma_seed_figure_15e_not_a_whole_number_of_tiles_is_refused) {
    refused(ts_, fig15be(15, 16, 7),
            "T2: the tile of its TMA copy (tile IterDomains iS5{16}) must be contiguous in "
            "the allocation of the shared-memory tensor T1, as a whole number of tiles: "
            "the allocation holds 245 elements, not a multiple of the 16 of a tile");
}

/* ---- Boxes by rotation (Figures 7-10): [n] f32 split by 32, the outer
   split by 4 again, box [4, 32] (= split by 128, box 128); and split by
   128, the inner split by 32, box 32 (= split by 32, coordinate [n/128,
   4]). The first split need not divide n. ---- */
static wf_fusion *rotation(int64_t n, bool left) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 1, shape)), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, left ? 32 : 128);
        wf_tv_split(both[i], left ? 0 : 1, left ? 4 : 32); /* [n/128, 4, 32] either way */
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    bulk(s, left ? 1 : 2, left ? 2 : -1);
    wf_tv_parallelize(o, 1, WF_TIDY);
    wf_tv_parallelize(o, 2, WF_TIDX);
    return f;
}

/* Where the first split divides n it is a view, and the map keeps its two
   dimensions (the same boxes); where it does not, the rotation makes one. */
TEST(tma_seed_box_by_rotation_outer_split_of_the_outer) {
    exact(ts_, rotation(1000, true), 1, 128, 0, 0);
    exact(ts_, rotation(129, true), 1, 128, 0, 0);
    exact(ts_, rotation(1024, true), 2, 32, 4, 1);
    exact(ts_, rotation(96, true), 2, 32, 4, 1);
}

TEST(tma_seed_box_by_rotation_inner_split_of_the_inner) {
    exact(ts_, rotation(1000, false), 1, 32, 0, 0);
    exact(ts_, rotation(96, false), 1, 32, 0, 0);
    exact(ts_, rotation(129, false), 1, 32, 0, 0);
    exact(ts_, rotation(1024, false), 2, 32, 1, 1);
}

/* The inner split of the inner must divide (seed: "the split defining I4
   must be divisible"): [n] split by 128, the 128 by 48 with box 48, has
   holes in every 128 and is not a box of n. */
TEST(tma_seed_box_by_rotation_needs_a_dividing_inner_split) {
    int64_t shape[1] = {1000};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 1, shape)), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv_split(s, 0, 128);
    wf_tv_split(s, 1, 48);
    bulk(s, 2, -1);
    refused(ts_, f,
            "T1: Invalid view in TMA: the extent of iS1{1000} must be divisible by the split "
            "factor 128 (the path from the global tensor's allocation to the TMA domain must be "
            "a view); split it as a boxing split (outer axes not Bulk, inner axis Bulk) or make "
            "it divide");
}

/* ---- Broadcast + TMA (nvFuser's Tutorial.PointwiseBroadcastTMA):
   t3[d0, d1, d2, d3] = broadcast(t0[d1, d2, d3]) + t1 (t1 discontiguous
   between d0 and d1), t0 and t1 loaded by TMA into shared caches, t3 stored
   by TMA from one. t3 is viewed as [d0 * d1 * ceil(d2 * d3 / 256) / 4
   (BIDx), 4, 256]; the same transforms reach t0's cache, which lacks d0:
   its block axis is [d1 * ...], and it is inlined into the broadcast's
   merged block axis, so each block loads its own tile of t0. ---- */
static wf_fusion *broadcast_tma(int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    wf_fusion *f = wf_fusion_new();
    int64_t s0[3] = {d1, d2, d3}, s1[4] = {d0, d1, d2, d3};
    int8_t c1[4] = {1, 0, 1, 1};
    wf_tv *t0 = wf_input(f, WF_F32, 3, s0), *t1 = wf_input_strided(f, WF_F32, 4, s1, c1);
    wf_tv *t2 = wf_broadcast(t0, 4, (const bool[]){true, false, false, false});
    wf_tv *t3 = wf_add(t2, t1);
    wf_output(f, t3);
    wf_tv *t0a = wf_cache_after(t0), *t1a = wf_cache_after(t1), *t3b = wf_cache_before(t3);
    wf_tv *smem[3] = {t0a, t1a, t3b};
    for (int i = 0; i < 3; i++)
        wf_tv_set_memory(smem[i], WF_MEM_SHARED);
    wf_tv_set_ldst(t0a, WF_LDST_TMA);
    wf_tv_set_ldst(t1a, WF_LDST_TMA);
    wf_tv_set_ldst(t3, WF_LDST_TMA);
    wf_tv_merge(t3, 2);      /* [d0, d1, d2 * d3] */
    wf_tv_split(t3, 2, 256); /* [d0, d1, x, 256] */
    wf_tv_merge(t3, 0);      /* [d0 * d1, x, 256] */
    wf_tv_split(t3, 1, 4);   /* [d0 * d1, x / 4, 4, 256] */
    wf_tv_merge(t3, 0);      /* [d0 * d1 * x / 4, 4, 256] */
    wf_propagate_transforms(t3);
    wf_tv *regs[2] = {t3b, t2};
    for (int i = 0; i < 2; i++) {
        wf_tv_parallelize(regs[i], 0, WF_BIDX);
        wf_tv_parallelize(regs[i], 1, WF_UNROLL);
        wf_tv_parallelize(regs[i], 2, WF_TIDX);
    }
    wf_tv *tma[3] = {t1a, t0a, t3};
    for (int i = 0; i < 3; i++) {
        wf_tv_parallelize(tma[i], 0, WF_BIDX);
        wf_tv_parallelize(tma[i], 1, WF_TIDX);
        wf_tv_parallelize(tma[i], 2, WF_BULK);
    }
    wf_inline_most(f);
    return f;
}

TEST(tma_seed_broadcast_tma_each_block_loads_its_own_tile) {
    /* 3 x 5 x 3 x 100: fewer boxes than issuing threads in a block (boxes
       wholly past the end still arrive on the mbarrier). */
    static const int64_t sizes[][4] = {
        {32, 2, 4, 256}, {5, 3, 4, 200}, {3, 5, 2, 500}, {3, 5, 3, 100}};
    for (int i = 0; i < 4; i++) {
        wf_fusion *f = broadcast_tma(sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3]);
        wf_kernel *k = CHECK_INTERP(f, NULL);
        if (k) {
            CHECK_EQ_I64(wf_kernel_tma_count(k), 3);
            CHECK_EQ_I64(wf_kernel_tma(k, 0)->box[0], 256);
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* ---- Circular buffering with several boxes per stage: [n, 64] in stages of
   8 rows loaded as two boxes of 4 rows (a serial loop of 2 between the
   pipelined loop and the load), 2 and 3 stages, n a multiple of 8 or not (a
   last box wholly past the tensor is zero-filled and still counted). ---- */
static wf_fusion *cb_two_boxes(int64_t n, int stages) {
    wf_tv *s, *o;
    wf_fusion *f = chain(WF_F32, n, 64, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, 8);
        wf_tv_split(both[i], 1, 4); /* [n / 8, 2, 4, 64] */
    }
    bulk(s, 2, 3);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_tv_inline_at(s, 1);
    wf_tv_circular_buffer(s, stages);
    return f;
}

TEST(tma_seed_circular_buffer_two_boxes_per_stage) {
    static const int64_t n[] = {64, 44, 40, 8, 3};
    for (int st = 2; st <= 3; st++)
        for (int i = 0; i < 5; i++) {
            wf_fusion *f = cb_two_boxes(n[i], st);
            wf_kernel *k = CHECK_INTERP(f, NULL);
            if (k) {
                CHECK_EQ_I64(wf_kernel_tma(k, 0)->box[1], 4);
                CHECK_HAS(wf_kernel_source(k), "\"r\"((unsigned)(2048)) : \"memory\");\n");
            }
            wf_kernel_free(k);
            wf_fusion_free(f);
        }
}
