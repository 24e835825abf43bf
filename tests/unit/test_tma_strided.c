/*
 * test_tma_strided.c -- strided TMA tiles (seed 001, step 3): a striding
 * split of a box (outer output Bulk, inner output the stride IterDomain)
 * makes the tensor map's element stride, the tile every s-th element of the
 * box. Each kernel's map (rank, box, element strides, swizzle) is checked
 * through wf_kernel_tma, the data the executor moves by that map (tile,
 * strides, zero fill) is compared with the reference on random data, and
 * NVRTC compiles the source for sm_90a. The FTTC case (a stride that does
 * not divide the box, on a tensor larger than the box) is refused for a
 * store, at compile time or at launch when the extent is symbolic; a load
 * is accepted when its readers are guarded to the box; the driver's rules on
 * element strides are refused with its words, by the compiler and by the
 * executor.
 */
#include "harness.h"

#include <stdlib.h>

static void check_map(test_state *ts_, const wf_tma_info *m, bool store, int rank,
                      const int64_t *dims, const int64_t *box, const int64_t *es, int swz) {
    CHECK(m != NULL);
    if (!m)
        return;
    CHECK_EQ_I64(m->is_store, store);
    CHECK_EQ_I64(m->rank, rank);
    for (int d = 0; d < rank && d < 5; d++) {
        CHECK_EQ_I64(m->global_dims[d], dims[d]);
        CHECK_EQ_I64(m->box[d], box[d]);
        CHECK_EQ_I64(m->element_strides[d], es[d]);
    }
    CHECK_EQ_I64(m->swizzle_bytes, swz);
}

/* in[R, C] (f32) -> T1 (shared) -> T2 (global); the TMA copy is T1's
   definition (load) or T2's (store). */
static wf_fusion *chain(int ndim, const int64_t *shape, bool load, wf_tv **s, wf_tv **o) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, ndim, shape);
    *s = wf_set(in);
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    wf_tv_set_ldst(load ? *s : *o, WF_LDST_TMA);
    return f;
}

/* [R, C] -> [R / box, s, box / s, C]: a boxing split of R by box, then the
   striding split of the box by s; box 0 means no boxing split (the whole
   extent is the box): [s, R / s, C]. */
static int stride_rows(wf_tv *t, int64_t box, int64_t s) {
    if (box) {
        wf_tv_split(t, 0, box);
        wf_tv_split(t, 1, s);
        wf_tv_reorder_all(t, (const int[]){0, 2, 1, 3});
        return 1;
    }
    wf_tv_split(t, 0, s);
    wf_tv_reorder_all(t, (const int[]){1, 0, 2});
    return 0;
}

/* The TMA side: tile and C on Bulk; the other side: tile on TIDy, C on TIDx;
   both: the box coordinate on BIDx, the stride IterDomain serial. */
static void schedule(wf_tv *tma, wf_tv *other, int64_t box, int64_t s) {
    int c = stride_rows(tma, box, s);
    stride_rows(other, box, s);
    wf_tv_parallelize(tma, c + 1, WF_BULK);
    wf_tv_parallelize(tma, c + 2, WF_BULK);
    wf_tv_parallelize(other, c + 1, WF_TIDY);
    wf_tv_parallelize(other, c + 2, WF_TIDX);
    if (c) {
        wf_tv_parallelize(tma, 0, WF_BIDX);
        wf_tv_parallelize(other, 0, WF_BIDX);
    }
}

/* One strided copy: compiled, the map checked, the data exact on the
   executor, NVRTC for sm_90a. */
static void strided(test_state *ts_, bool load, int64_t rows, int64_t box, int64_t s) {
    int64_t shape[2] = {rows, 32};
    wf_tv *sm, *o;
    wf_fusion *f = chain(2, shape, load, &sm, &o);
    schedule(load ? sm : o, load ? o : sm, box, s);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t b = box ? box : rows;
        int64_t dims[2] = {32, rows}, boxes[2] = {32, b}, es[2] = {1, s};
        CHECK_EQ_I64(wf_kernel_tma_count(k), 1);
        check_map(ts_, wf_kernel_tma(k, 0), !load, 2, dims, boxes, es, 0);
        CHECK_HAS(wf_kernel_source(k), "cp.async.bulk.tensor.2d");
        if (load) /* the tile's bytes, not the box's */
            CHECK_HAS(wf_kernel_source(k), "mbarrier.arrive.expect_tx");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Divisible strides: boxes of 8 or 12 rows, every 2nd, 3rd or 4th row. */
TEST(tma_strided_load_divisible_strides_2_3_4) {
    strided(ts_, true, 64, 8, 2);
    strided(ts_, true, 36, 12, 3);
    strided(ts_, true, 64, 8, 4);
}

/* Indivisible strides on a tensor that fits in the box: the holes past the
   box's end are outside the tensor, zero-filled (not FTTC). */
TEST(tma_strided_load_indivisible_strides_inside_one_box) {
    strided(ts_, true, 8, 0, 3); /* tile 3: rows 0 3 6 | 1 4 7 | 2 5 (8) */
    strided(ts_, true, 6, 0, 4); /* tile 2: rows 0 4 | 1 5 | 2 (6) | 3 (7) */
    strided(ts_, true, 7, 0, 2); /* tile 4: rows 0 2 4 6 | 1 3 5 (7) */
}

/* A boxing split that does not divide (20 rows, boxes of 8) with a stride
   that divides the box: the last box's rows past 20 are zero-filled. */
TEST(tma_strided_load_partial_last_box_zero_filled) {
    strided(ts_, true, 20, 8, 2);
    strided(ts_, true, 20, 8, 4);
}

TEST(tma_strided_store_divisible_and_inside_one_box) {
    strided(ts_, false, 64, 8, 2);
    strided(ts_, false, 36, 12, 3);
    strided(ts_, false, 20, 8, 4); /* the last box's rows past 20 are skipped */
    strided(ts_, false, 8, 0, 3);  /* the hole at row 8 is outside the tensor */
}

/* The seed's Figure 1 on the right: box (8, 4), tile (8, 2), stride (1, 3),
   at the scale of 128-byte rows of a tensor that is one box tall. The
   striding split comes after a boxing split here. */
TEST(tma_strided_seed_figure_1_box_4_stride_3) {
    int64_t shape[2] = {4, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 4, 3);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {32, 4}, box[2] = {32, 4}, es[2] = {1, 3};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, box, es, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A box by compositing, strided after the merge (seed 001, step 3: merge
   the box IterDomains first, then split): [2, 3, 32] viewed as [6, 32],
   the 6 rows strided by 4. */
TEST(tma_strided_composited_box_merged_then_strided) {
    int64_t shape[3] = {2, 3, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(3, shape, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++)
        wf_tv_merge(both[i], 0);
    schedule(s, o, 0, 4);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {32, 6}, box[2] = {32, 6}, es[2] = {1, 4};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, box, es, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The stride IterDomain on blocks: each block loads its own phase of every
   box; a 128-byte swizzle of the 8-row tiles in shared memory is inferred. */
static void stride_on_blocks(test_state *ts_, int64_t rows) {
    int64_t shape[2] = {rows, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 16, 2); /* [4 (BIDx), 2, 8 (Bulk), 32 (Bulk)] */
    wf_tv_parallelize(s, 1, WF_BIDY);
    wf_tv_parallelize(o, 1, WF_BIDY);
    wf_tv_tma_swizzle(s, 128);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[2] = {32, rows}, box[2] = {32, 16}, es[2] = {1, 2};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, box, es, 128);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_strided_stride_on_blocks_with_128b_swizzle) {
    stride_on_blocks(ts_, 64);
    stride_on_blocks(ts_, 60); /* the last box partial */
}

static void expect(test_state *ts_, wf_fusion *f, wf_status st, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), st);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_kernel_free(k);
}

/* FTTC: 64 rows in boxes of 8, every 3rd row: box 8's third stride phase
   has a hole at row 8 of the box, which TMA fills with the next box's row.
   The reader, scheduled like the tile, is guarded to the box (its split of
   the 8 rows by 3 bounds the row index), so it never reads the hole: the
   load is accepted (seed 001, Figure 14 (a); test_tma_seed_valid.c). */
TEST(tma_strided_fttc_load_with_a_guarded_reader_is_exact) {
    int64_t shape[2] = {64, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 8, 3);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k) {
        int64_t dims[2] = {32, 64}, box[2] = {32, 8}, es[2] = {1, 3};
        check_map(ts_, wf_kernel_tma(k, 0), false, 2, dims, box, es, 0);
        CHECK_HAS(wf_kernel_source(k), "threadIdx.y * 3 + ");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_strided_fttc_store_is_refused) {
    int64_t shape[2] = {16, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, false, &s, &o);
    schedule(o, s, 0, 3); /* the whole 16 rows as the box: no FTTC ... */
    wf_fusion_free(f);
    f = chain(2, shape, false, &s, &o);
    schedule(o, s, 8, 3); /* ... boxes of 8 rows: FTTC */
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T2: the striding split of iS7{8} by 3, the element stride of TMA dimension 1, does "
           "not divide the box of 8 elements, and T2 is larger than the box along that "
           "dimension: the last stride phase of each box reaches past its end, where the TMA "
           "store would write the tile's holes over the next box's elements, which would be "
           "silently wrong (seed 001, the fundamental theorem of TMA correctness, FTTC). Make "
           "the element stride divide the box (a box of 9), or the box hold the whole extent");
    wf_fusion_free(f);
}

/* A symbolic row count: the guarded reader never reads the holes, whatever
   the tensor's size at launch (8 rows: one box; 16: two). */
TEST(tma_strided_fttc_symbolic_extent_with_a_guarded_reader) {
    int64_t shape[2] = {-1, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 8, 3);
    wf_kernel *k = COMPILE(f);
    if (k) {
        float in[16 * 32], out[16 * 32];
        for (int i = 0; i < 16 * 32; i++)
            in[i] = (float)i;
        wf_buffer x = {in, WF_F32, 2, {8, 32}, {0}, -1}, y = {out, WF_F32, 2, {8, 32}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_OK);
        CHECK(out[7 * 32 + 31] == (float)(7 * 32 + 31) && out[5 * 32] == (float)(5 * 32));
        x.shape[0] = y.shape[0] = 16;
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_OK);
        bool same = true;
        for (int i = 0; i < 16 * 32; i++)
            same &= out[i] == in[i];
        CHECK(same);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The driver's rules: the innermost dimension is never strided (interleave
   NONE), element strides are at most 8. */
TEST(tma_strided_innermost_dimension_is_refused) {
    int64_t shape[2] = {64, 256};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    wf_tv_split(s, 1, 64);
    wf_tv_split(s, 2, 2); /* the striding split: tile 32 (Bulk), stride 2 */
    wf_tv_parallelize(s, 2, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: the striding split of iS7{64} by 2 strides the innermost TMA dimension: When "
           "interleave is CU_TENSOR_MAP_INTERLEAVE_NONE (this is always the case for weft), the "
           "first element of elementStrides must be one. Stride an outer dimension of the box, "
           "or copy the whole box");
    wf_fusion_free(f);
}

TEST(tma_strided_element_stride_above_8_is_refused) {
    int64_t shape[2] = {64, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 32, 16);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: the striding split of iS7{32} by 16 makes TMA dimension 1's element stride 16: "
           "elementStrides array, which specifies the iteration step along each of the "
           "tensorRank dimensions, must be non-zero and less than or equal to 8. Split the box "
           "by a stride of at most 8");
    wf_fusion_free(f);
}

TEST(tma_strided_stride_larger_than_the_box_is_not_supported_yet) {
    int64_t shape[2] = {64, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 2, 4);
    expect(ts_, f, WF_ERR_UNSUPPORTED,
           "T1: not supported yet: an element stride larger than the box (the striding split of "
           "iS7{2} by 4, a box of 2 elements); make the stride at most the box");
    wf_fusion_free(f);
}

/* The executor applies the driver's rules to the map it is given, in the
   driver's words (the compiler never makes such a map: it is altered here
   to reach them). */
TEST(tma_strided_executor_applies_the_driver_rules) {
    int64_t shape[2] = {64, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, true, &s, &o);
    schedule(s, o, 8, 2);
    wf_kernel *k = COMPILE(f);
    if (k) {
        float in[64 * 32] = {0}, out[64 * 32];
        wf_buffer x = {in, WF_F32, 2, {64, 32}, {0}, -1}, y = {out, WF_F32, 2, {64, 32}, {0}, -1};
        wf_tma_info *m = (wf_tma_info *)wf_kernel_tma(k, 0);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_OK);
        m->element_strides[0] = 2;
        CHECK(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1) != WF_OK);
        CHECK_HAS(wf_last_run_error(k),
                  "cuTensorMapEncodeTiled for T0: When interleave is "
                  "CU_TENSOR_MAP_INTERLEAVE_NONE (this is always the case for weft), the first "
                  "element of elementStrides must be one.");
        m->element_strides[0] = 1;
        m->element_strides[1] = 9;
        CHECK(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1) != WF_OK);
        CHECK_HAS(wf_last_run_error(k),
                  "cuTensorMapEncodeTiled for T0: elementStrides array, which specifies the "
                  "iteration step along each of the tensorRank dimensions, must be non-zero and "
                  "less than or equal to 8. (dimension 1 is 9)");
        m->element_strides[1] = 2;
        m->box[0] = 2;
        CHECK(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1) != WF_OK);
        CHECK_HAS(wf_last_run_error(k),
                  "cuTensorMapEncodeTiled for T0: When interleave is "
                  "CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * elementSizeInBytes( "
                  "tensorDataType ) } must be a multiple of 16 bytes. (it is 8 bytes)");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Two strided dimensions: [16, 12, 32] in boxes of (4, 6) rows, strided by 2
   and 3; both stride IterDomains issue their own boxes, one serially, one
   from a thread each (three issuing threads). */
static void two_strided_dims(test_state *ts_, int64_t a, int64_t b) {
    int64_t shape[3] = {a, b, 32};
    wf_tv *s, *o;
    wf_fusion *f = chain(3, shape, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) { /* [A/4, B/6, sA{2}, sB{3}, tA{2}, tB{2}, C] */
        wf_tv_split(both[i], 0, 4);
        wf_tv_split(both[i], 1, 2); /* [A/4, tA, sA, B, C] */
        wf_tv_split(both[i], 3, 6); /* [A/4, tA, sA, B/6, 6, C] */
        wf_tv_split(both[i], 4, 3); /* [A/4, tA, sA, B/6, tB, sB, C] */
        wf_tv_reorder_all(both[i], (const int[]){0, 4, 2, 1, 5, 3, 6});
        wf_tv_parallelize(both[i], 0, WF_BIDX);
        wf_tv_parallelize(both[i], 1, WF_BIDY);
    }
    wf_tv_parallelize(s, 3, WF_TIDX); /* sB: three threads issue a box each */
    for (int i = 4; i < 7; i++)
        wf_tv_parallelize(s, i, WF_BULK);
    wf_tv_parallelize(o, 3, WF_TIDZ);
    wf_tv_parallelize(o, 5, WF_TIDY);
    wf_tv_parallelize(o, 6, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        int64_t dims[3] = {32, b, a}, box[3] = {32, 6, 4}, es[3] = {1, 3, 2};
        check_map(ts_, wf_kernel_tma(k, 0), false, 3, dims, box, es, 0);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(tma_strided_two_strided_dims_stride_on_threads) {
    two_strided_dims(ts_, 16, 12);
    two_strided_dims(ts_, 14, 10); /* the last boxes partial in both strided dimensions */
}
