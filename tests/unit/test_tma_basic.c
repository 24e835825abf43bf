/*
 * test_tma_basic.c -- TMA copies (seed 001): the basic tutorial's copy
 * kernels, loads (global -> shared) and stores (shared -> global), with
 * boxes by partitioning and by compositing. Each kernel's tensor map, as
 * wf_kernel_tma reports it, is checked value by value, the data copied by
 * the executor's model of the hardware (tensor map, boxes, zero fill) is
 * compared with the reference, and NVRTC compiles the source for sm_90a.
 */
#include "harness.h"

#include <stdlib.h>

static void check_map(test_state *ts_, const wf_tma_info *m, bool store, int rank,
                      const int64_t *dims, const int64_t *strides, const int64_t *box, int swz) {
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ_I64(m->is_store, store);
    CHECK_EQ_I64(m->rank, rank);
    for (int d = 0; d < rank && d < 5; d++) {
        CHECK_EQ_I64(m->global_dims[d], dims[d]);
        CHECK_EQ_I64(m->global_strides_bytes[d], strides[d]);
        CHECK_EQ_I64(m->box[d], box[d]);
        CHECK_EQ_I64(m->element_strides[d], 1);
    }
    CHECK_EQ_I64(m->swizzle_bytes, swz);
}

/* in (global) -> T1 (shared, TMA load) -> T2 (global output, plain copy). */
static wf_fusion *load_fusion(int ndim, const int64_t *shape, wf_tv **smem, wf_tv **out) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, ndim, shape);
    *smem = wf_set(in);
    *out = wf_set(*smem);
    wf_output(f, *out);
    wf_tv_set_memory(*smem, WF_MEM_SHARED);
    wf_tv_set_ldst(*smem, WF_LDST_TMA);
    return f;
}

/* 1-D TMA: the whole tensor viewed as one dimension, boxes of 256 (the last
   one partial where 256 does not divide the size). */
static void load_1d(test_state *ts_, int64_t n0, int64_t n2) {
    int64_t shape[3] = {n0, 8, n2};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(both[i], 0);
        wf_tv_merge(both[i], 0);
        wf_tv_split(both[i], 0, 256);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(o, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 1);
        int64_t dims[1] = {n0 * 8 * n2}, strides[1] = {4}, box[1] = {256};
        check_map(ts_, wf_kernel_tma(k, 0), false, 1, dims, strides, box, 0);
        CHECK(wf_kernel_tma(k, 1) == NULL);
        CHECK_HAS(wf_kernel_source(k), "cp.async.bulk.tensor.1d.shared::cluster.global.tile");
        CHECK_HAS(wf_kernel_source(k), "mbarrier.arrive.expect_tx");
        CHECK_HAS(wf_kernel_source(k), "const __grid_constant__ wf_tensor_map wf_tmap0");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_load_1d_partitioned_merged_view) {
    load_1d(ts_, 4, 64);
    load_1d(ts_, 3, 60); /* 1440 = 5 x 256 + 160 */
}

/* 2-D boxes by partitioning both dims; 100 rows do not divide by 16, so the
   last boxes reach past the tensor and are zero-filled. */
TEST(tma_load_2d_partitioned_partial_boxes) {
    int64_t shape[2] = {100, 96};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 32);
        wf_tv_split(both[i], 0, 16);
        wf_tv_reorder_all(both[i], (const int[]){0, 2, 1, 3}); /* [I0o, I1o, 16, 32] */
        wf_tv_parallelize(both[i], 0, WF_BIDY);
        wf_tv_parallelize(both[i], 1, WF_BIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {96, 100}, strides[2] = {4, 384}, box[2] = {32, 16};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, strides, box, 0);
        CHECK_HAS(wf_kernel_source(k), "cp.async.bulk.tensor.2d.shared::cluster.global.tile");
        CHECK_HAS(wf_kernel_source(k),
                  "\"r\"((int)(blockIdx.x * 32)), \"r\"((int)(blockIdx.y * 16))");
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 16 * 32 * 4 + 112);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Compositing (seed 001, Figure 6): T[I1, I2{2}, I3{4}, I4{8}] with [I3, I4]
   as the box: four dimensions, two of them implicit size-one, two implicit
   whole. */
TEST(tma_load_composited_implicit_size_one_and_whole) {
    int64_t shape[4] = {16, 2, 4, 8};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(4, shape, &s, &o);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_parallelize(o, 0, WF_BIDX);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[4] = {8, 4, 2, 16}, strides[4] = {4, 32, 128, 256}, box[4] = {8, 4, 1, 1};
        check_map(ts_, wf_kernel_tma(k, 0), false, 4, dims, strides, box, 0);
        CHECK_HAS(wf_kernel_source(k), "[%1, {%3, %4, %5, %6}]");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* in -> T1 (shared, written by threads) -> T2 (global output, TMA store). */
static wf_fusion *store_fusion(int ndim, const int64_t *shape, wf_tv **smem, wf_tv **out) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, ndim, shape);
    *smem = wf_set(in);
    *out = wf_set(*smem);
    wf_output(f, *out);
    wf_tv_set_memory(*smem, WF_MEM_SHARED);
    wf_tv_set_ldst(*out, WF_LDST_TMA);
    return f;
}

/* The last box of a size 128 does not divide is clipped by the store. */
static void store_1d(test_state *ts_, int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    wf_tv *s, *o;
    wf_fusion *f = store_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(both[i], 0);
        wf_tv_split(both[i], 0, 128);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_tv_parallelize(o, 1, WF_BULK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[1] = {rows * cols}, strides[1] = {4}, box[1] = {128};
        check_map(ts_, wf_kernel_tma(k, 0), true, 1, dims, strides, box, 0);
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src,
                  "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group [%0, {%2}], [%1];");
        CHECK_HAS(src, "fence.proxy.async.shared::cta;\" ::: \"memory\");\n  __syncthreads();");
        CHECK_HAS(src, "cp.async.bulk.commit_group;");
        CHECK_HAS(src, "cp.async.bulk.wait_group.read 0;");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_store_1d_partitioned) {
    store_1d(ts_, 16, 128);
    store_1d(ts_, 15, 100); /* 1500 = 11 x 128 + 92 */
}

/* A 2-D store whose last boxes reach past the tensor: TMA skips what is out of bounds. */
static void store_2d(test_state *ts_, int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    wf_tv *s, *o;
    wf_fusion *f = store_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 16);
        wf_tv_split(both[i], 0, 8);
        wf_tv_reorder_all(both[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(both[i], 0, WF_BIDY);
        wf_tv_parallelize(both[i], 1, WF_BIDX);
    }
    wf_tv_parallelize(s, 2, WF_TIDY);
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv_parallelize(o, 2, WF_BULK);
    wf_tv_parallelize(o, 3, WF_BULK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {cols, rows}, strides[2] = {4, cols * 4}, box[2] = {16, 8};
        check_map(ts_, wf_kernel_tma(k, 0), true, 2, dims, strides, box, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_store_2d_partial_boxes_skip_out_of_bounds) {
    store_2d(ts_, 40, 72); /* columns 72 .. 79 of the last boxes */
    store_2d(ts_, 37, 68); /* and rows 37 .. 39 */
}

/* A TMA load and a TMA store in one kernel; the block's serial loop issues
   a box per iteration, each with its mbarrier initialized and invalidated. */
static void serial_loop(test_state *ts_, int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_tv *a = wf_set(in), *b = wf_set(a), *o = wf_set(b);
    wf_output(f, o);
    wf_tv_set_memory(a, WF_MEM_SHARED);
    wf_tv_set_memory(b, WF_MEM_SHARED);
    wf_tv_set_ldst(a, WF_LDST_TMA);
    wf_tv_set_ldst(o, WF_LDST_TMA);
    wf_tv *all[3] = {a, b, o};
    for (int i = 0; i < 3; i++) {
        wf_tv_split(all[i], 0, 8);  /* [I0o{8}, 8, I1] */
        wf_tv_split(all[i], 2, 64); /* [8, 8, I1o{4}, 64] */
        wf_tv_reorder_all(all[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(all[i], 0, WF_BIDX); /* [BIDx, serial 4, 8, 64] */
    }
    wf_tv_parallelize(a, 2, WF_BULK);
    wf_tv_parallelize(a, 3, WF_BULK);
    wf_tv_parallelize(b, 2, WF_TIDY);
    wf_tv_parallelize(b, 3, WF_TIDX);
    wf_tv_parallelize(o, 2, WF_BULK);
    wf_tv_parallelize(o, 3, WF_BULK);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        int64_t dims[2] = {cols, rows}, strides[2] = {4, cols * 4}, box[2] = {64, 8};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, strides, box, 0);
        check_map(ts_, wf_kernel_tma(k, 1), true, 2, dims, strides, box, 0);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_load_and_store_in_a_serial_loop) {
    serial_loop(ts_, 64, 256);
    serial_loop(ts_, 60, 200); /* the last iteration's boxes are partial in both dims */
}

/* Seed 001, Figure 11: a TMA domain of nine IterDomains, contiguities
   (T, T, T, F, T, T, T, T, T), boxes by partitioning and compositing mixed:
   [I1 | I2] [I3 partitioned] [I4 size-one] [I5 I6 whole] [I7 | I8 I9]. Five
   dimensions, whatever the discontiguous stride turns out to be at run time. */
static void figure11(wf_tv *t, bool tma) {
    wf_tv_split(t, 4, 8); /* [d0, d1, d2, d3, I7', I9{8}] */
    wf_tv_split(t, 4, 2); /* [d0, d1, d2, d3, I7{2}, I8{2}, I9] */
    wf_tv_split(t, 3, 8); /* [d0, d1, d2, I5{2}, I6{8}, I7, I8, I9] */
    wf_tv_split(t, 1, 4); /* [d0, I10{4}, I11{4}, d2, I5, I6, I7, I8, I9] */
    wf_tv_split(t, 0, 2); /* [I1{4}, I2{2}, I10, I11, I4{3}, I5, I6, I7, I8, I9] */
    /* coordinates first: [I1, I10, I4, I7 | I2, I11, I5, I6, I8, I9] */
    wf_tv_reorder_all(t, (const int[]){0, 4, 1, 5, 2, 6, 7, 3, 8, 9});
    wf_tv_parallelize(t, 0, WF_BIDX);
    for (int i = 4; tma && i < 10; i++)
        wf_tv_parallelize(t, i, WF_BULK);
    if (!tma)
        wf_tv_parallelize(t, 9, WF_TIDX);
}

static void figure11_case(test_state *ts_, int64_t d0, int64_t d1) {
    int64_t shape[5] = {d0, d1, 3, 16, 32};
    int8_t contig[5] = {1, 1, 0, 1, 1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input_strided(f, WF_F32, 5, shape, contig), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    figure11(s, true);
    figure11(o, false);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        const wf_tma_info *m = wf_kernel_tma(k, 0);
        int64_t dims[5] = {32, 16, 3, d1, d0}, box[5] = {16, 16, 1, 4, 2};
        int64_t strides[5] = {4, 128, -1, -1, -1}; /* d2's stride is known at run time */
        check_map(ts_, m, false, 5, dims, strides, box, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_load_figure11_five_dims_mixed_strategies) {
    figure11_case(ts_, 8, 16);
    figure11_case(ts_, 7, 14); /* the boxing splits of I1 (by 2) and I2 (by 4) do not divide */
}

/* Boxes by rotation (seed 001, Figures 8-9): a split of a split. Rotated
   left: [I0, 256] -> [I0, 4, 2, 32] with [2, 32] the box, I1 = 8 x 32 seen as
   partitioned by 64; rotated right: [I0, 4, 64] -> [I0, 4, 2, 32] with 32 the
   box, the divisible outer split a view. */
static void rotation(test_state *ts_, bool left, int64_t cols, int64_t box0, int64_t box1) {
    int64_t shape[2] = {16, cols};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, left ? 32 : 64);
        wf_tv_split(both[i], left ? 1 : 2, left ? 2 : 32); /* [I0, 4, 2, 32] */
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    if (left)
        wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        const wf_tma_info *m = wf_kernel_tma(k, 0);
        CHECK_EQ_I64(m->box[0], box0);
        CHECK_EQ_I64(m->box[1], box1);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_load_box_by_rotation_left_and_right) {
    rotation(ts_, true, 256, 32, 2);
    rotation(ts_, false, 256, 32, 1);
    /* 7 x 32: the last box of 2 x 32 is half outside (rotated right, the outer split by
       64 is a view and must divide) */
    rotation(ts_, true, 224, 32, 2);
}

/* Seed 001, step 5: a non-tile axis on threads, each thread issuing its own
   box: the mbarrier counts all their arrivals (init by one thread between
   barriers, invalidated after every wait); stores need no mbarrier. */
static void many_issuers(test_state *ts_, bool store, int64_t rows) {
    int64_t shape[2] = {rows, 64};
    wf_tv *s, *o;
    wf_fusion *f = store ? store_fusion(2, shape, &s, &o) : load_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, 8); /* [8, 8, 64] */
        wf_tv_parallelize(both[i], 0, WF_TIDX);
    }
    wf_tv *tma = store ? o : s, *other = store ? s : o;
    wf_tv_parallelize(tma, 1, WF_BULK);
    wf_tv_parallelize(tma, 2, WF_BULK);
    wf_tv_parallelize(other, 2, WF_TIDY);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {64, rows}, strides[2] = {4, 256}, box[2] = {64, 8};
        check_map(ts_, wf_kernel_tma(k, 0), store, 2, dims, strides, box, 0);
        if (!store)
            CHECK_HAS(wf_kernel_source(k), "mbarrier.init.shared::cta.b64 [%0], %1;\" :: "
                                           "\"r\"((unsigned)__cvta_generic_to_shared(&wf_mbar[0]"
                                           ")), \"r\"((unsigned)(8))");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_several_threads_issue_a_box_each) {
    many_issuers(ts_, false, 64);
    many_issuers(ts_, true, 64);
    many_issuers(ts_, false, 60); /* the 8th thread's box is half outside */
    many_issuers(ts_, true, 60);
}

/* Symbolic sizes: the tensor map's dims and strides are encoded per launch
   (reported as -1), the boxes at the edges zero-filled. */
TEST(tma_load_symbolic_sizes) {
    int64_t shape[2] = {-1, -1}, sym[8] = {100, 96};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(2, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 32);
        wf_tv_split(both[i], 0, 8);
        wf_tv_reorder_all(both[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(both[i], 0, WF_BIDY);
        wf_tv_parallelize(both[i], 1, WF_BIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_tv_parallelize(o, 3, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        CHECK_NVRTC(k, 90);
        int64_t dims[2] = {-1, -1}, strides[2] = {4, -1}, box[2] = {32, 8};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, strides, box, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Issue 18: a 1-D load whose boxes of 256 are issued by 4 threads each
   (merge, merge, split 256, split 4: [BIDx, TIDx{4}, Bulk{256}]). */
static void four_issuers(test_state *ts_, int64_t n0) {
    int64_t shape[3] = {n0, 8, 64};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_merge(both[i], 0);
        wf_tv_merge(both[i], 0);
        wf_tv_split(both[i], 0, 256);
        wf_tv_split(both[i], 0, 4);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
        wf_tv_parallelize(both[i], 1, WF_TIDX);
    }
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(o, 2, WF_TIDY);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_four_threads_issue_boxes_divisible_and_not) {
    four_issuers(ts_, 8);
    four_issuers(ts_, 9);
}

/* Issue 18: a 3-D load, [B, M, N] in 64 x 64 CTA tiles of 32 x 32 boxes,
   the tile's two rows of boxes on TIDx (each thread issues its own boxes),
   its two columns serial; the consumer reads the tile with TIDy x TIDx. */
static void cta_tile_of_boxes(test_state *ts_, int64_t m, int64_t n, bool tile_first) {
    int64_t shape[3] = {2, m, n};
    wf_tv *s, *o;
    wf_fusion *f = load_fusion(3, shape, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        if (tile_first) { /* the CTA tile of 64 first, then its boxes of 32 */
            wf_tv_split(both[i], 2, 64);
            wf_tv_split(both[i], 3, 32); /* [B, M, No, 2, 32] */
            wf_tv_split(both[i], 1, 64);
            wf_tv_split(both[i], 2, 32); /* [B, Mo, 2, 32, No, 2, 32] */
        } else {
            wf_tv_split(both[i], 2, 32);
            wf_tv_split(both[i], 2, 2); /* [B, M, No, 2, 32] */
            wf_tv_split(both[i], 1, 32);
            wf_tv_split(both[i], 1, 2); /* [B, Mo, 2, 32, No, 2, 32] */
        }
        /* [B, Mo, No, 2 (rows of boxes), 2 (columns), 32, 32] */
        wf_tv_reorder_all(both[i], (const int[]){0, 1, 3, 5, 2, 4, 6});
        wf_tv_parallelize(both[i], 0, WF_BIDZ);
        wf_tv_parallelize(both[i], 1, WF_BIDY);
        wf_tv_parallelize(both[i], 2, WF_BIDX);
    }
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv_parallelize(s, 5, WF_BULK);
    wf_tv_parallelize(s, 6, WF_BULK);
    wf_tv_parallelize(o, 5, WF_TIDY);
    wf_tv_parallelize(o, 6, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    /* Split 64 then 32 at divisible sizes is a view of 5 dims (each split
       divides); the map is checked for the other form. */
    if (k && !tile_first) {
        int64_t dims[3] = {n, m, 2}, strides[3] = {4, n * 4, m * n * 4}, box[3] = {32, 32, 1};
        check_map(ts_, wf_kernel_tma(k, 0), false, 3, dims, strides, box, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_cta_tile_of_boxes_issued_by_threads_divisible_and_not) {
    for (int tile_first = 0; tile_first < 2; tile_first++) {
        cta_tile_of_boxes(ts_, 128, 128, tile_first);
        cta_tile_of_boxes(ts_, 80, 100, tile_first); /* rows/columns of boxes past the end */
        cta_tile_of_boxes(ts_, 100, 68, tile_first);
    }
}
