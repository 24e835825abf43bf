/*
 * test_tma_seed.c -- seed 001's TMA kernels on the device: the six copy
 * kernels of the basic tutorial (1-D loads, stores and both over the
 * flattened tensor; 2-D boxes by partitioning with partial edge boxes;
 * boxes by compositing), the broadcast add whose second input is
 * discontiguous (also with a TMA store, nvFuser's PointwiseBroadcastTMA),
 * and strided tiles (element strides 2, 3 and 4, a stride
 * that does not divide a box that holds the whole extent, strided stores).
 * The CPU suite runs the same schedules on the executor (test_tma_basic.c,
 * test_tma_examples.c, test_tma_strided.c); here they are larger, so many
 * blocks issue boxes, and each is compared bit for bit with the expected
 * result on host and on device buffers (gt_check).
 */
#include "gpu.h"

#include <stdlib.h>

typedef enum { LOAD, STORE, BOTH } copy_kind;

/* in -> T1 (shared) -> T2 (output), TMA on the load, the store or both. */
static wf_fusion *copy_chain(int ndim, const int64_t *shape, copy_kind kind, wf_tv **s, wf_tv **o) {
    wf_fusion *f = wf_fusion_new();
    *s = wf_set(wf_input(f, WF_F32, ndim, shape));
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    if (kind != STORE)
        wf_tv_set_ldst(*s, WF_LDST_TMA);
    if (kind != LOAD)
        wf_tv_set_ldst(*o, WF_LDST_TMA);
    return f;
}

/* Axes from `from` on: Bulk on a TMA side, else the innermost on TIDx and
   the next on TIDy (more stay serial). */
static void tile_axes(wf_tv *t, bool tma, int from) {
    int n = wf_tv_ndim(t);
    for (int i = from; i < n; i++)
        wf_tv_parallelize(t, i,
                          tma          ? WF_BULK
                          : i == n - 1 ? WF_TIDX
                          : i == n - 2 ? WF_TIDY
                                       : WF_SERIAL);
}

/* Compile, run on random data, expect the input back; tmas maps expected. */
static void expect_copy(gt_state *ts_, wf_fusion *f, int ndim, const int64_t *shape, int tmas) {
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), tmas);
        gt_tensor in = gt_dense(WF_F32, ndim, shape), want = gt_dense(WF_F32, ndim, shape);
        gt_fill_random(&in);
        memcpy(want.data, in.data, sizeof(float) * (size_t)gt_numel(&in));
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Copies 1-3: [64, 128, 256] flattened, boxes of 256, one per block; and
   [63, 127, 252], whose last box is partial. */
static void copy_1d_of(gt_state *ts_, copy_kind kind, const int64_t shape[3]) {
    NEED_GPU();
    wf_tv *s, *o;
    wf_fusion *f = copy_chain(3, shape, kind, &s, &o);
    wf_tv *t[2] = {s, o};
    for (int j = 0; j < 2; j++) {
        wf_tv_merge(t[j], 0);
        wf_tv_merge(t[j], 0);
        wf_tv_split(t[j], 0, 256);
        wf_tv_parallelize(t[j], 0, WF_BIDX);
        tile_axes(t[j], j == 0 ? kind != STORE : kind != LOAD, 1);
    }
    if (kind == BOTH)
        wf_tv_parallelize(s, 1, WF_BULK);
    expect_copy(ts_, f, 3, shape, kind == BOTH ? 2 : 1);
}

static void copy_1d(gt_state *ts_, copy_kind kind) {
    static const int64_t even[3] = {64, 128, 256}, odd[3] = {63, 127, 252};
    copy_1d_of(ts_, kind, even);
    copy_1d_of(ts_, kind, odd);
}

GPU_TEST(tma_seed_copy1_load_1d) {
    copy_1d(ts_, LOAD);
}

GPU_TEST(tma_seed_copy2_store_1d) {
    copy_1d(ts_, STORE);
}

GPU_TEST(tma_seed_copy3_load_and_store_1d) {
    copy_1d(ts_, BOTH);
}

/* Copies 4-5: [1000, 1000] in 16 x 32 boxes; the last row and column of
   boxes reach past the tensor (zero-filled loads, skipped stores). */
static void copy_2d(gt_state *ts_, copy_kind kind) {
    NEED_GPU();
    int64_t shape[2] = {1000, 1000};
    wf_tv *s, *o;
    wf_fusion *f = copy_chain(2, shape, kind, &s, &o);
    wf_tv *t[2] = {s, o};
    for (int j = 0; j < 2; j++) {
        wf_tv_split(t[j], 1, 32);
        wf_tv_split(t[j], 0, 16);
        wf_tv_reorder_all(t[j], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(t[j], 0, WF_BIDY);
        wf_tv_parallelize(t[j], 1, WF_BIDX);
        tile_axes(t[j], j == 0 ? kind == LOAD : kind == STORE, 2);
    }
    expect_copy(ts_, f, 2, shape, 1);
}

GPU_TEST(tma_seed_copy4_load_2d_partial_boxes) {
    copy_2d(ts_, LOAD);
}

GPU_TEST(tma_seed_copy5_store_2d_partial_boxes) {
    copy_2d(ts_, STORE);
}

/* Copy 6: T[I1, I2{2}, I3{4}, I4{8}] with [I3, I4] as the box (compositing):
   four dimensions, two implicit size-one, two implicit whole. */
GPU_TEST(tma_seed_copy6_load_composited_box) {
    NEED_GPU();
    int64_t shape[4] = {8192, 2, 4, 8};
    wf_tv *s, *o;
    wf_fusion *f = copy_chain(4, shape, LOAD, &s, &o);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(o, 0, WF_BIDX);
    tile_axes(s, true, 2);
    tile_axes(o, false, 2);
    expect_copy(ts_, f, 4, shape, 1);
}

/* The broadcast add: T3[I0, I1, I2, I3] = T1 + broadcast(T0[I1, I2, I3]),
   T1 discontiguous (contiguity T, F, T, T: I1's stride padded to 1024
   elements), each input TMA-loaded along its own TMA domain [.., I2*I3]
   split by 256. */
static void bcast_schedule(wf_tv *t, bool has_i0) {
    int i1 = has_i0 ? 1 : 0;
    wf_tv_merge(t, i1 + 1);
    wf_tv_split(t, i1 + 1, 256);
    if (has_i0)
        wf_tv_reorder_all(t, (const int[]){2, 0, 1, 3});
    wf_tv_parallelize(t, 0, WF_BIDX);
    wf_tv_parallelize(t, 1, WF_BIDY);
}

static void broadcast_add(gt_state *ts_, int64_t I2, int64_t I3) {
    NEED_GPU();
    enum { I0 = 16, I1 = 32 };
    int64_t s0[3] = {I1, I2, I3}, s1[4] = {I0, I1, I2, I3};
    int64_t st1[4] = {(int64_t)I1 * 1024, 1024, I3, 1};
    int8_t c1[4] = {1, 0, 1, 1};
    bool bc[4] = {true, false, false, false};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 3, s0), *t1 = wf_input_strided(f, WF_F32, 4, s1, c1);
    wf_tv *t2 = wf_broadcast(t0, 4, bc), *t3 = wf_add(t1, t2);
    wf_output(f, t3);
    wf_tv *a = wf_cache_after(t0), *b = wf_cache_after(t1);
    wf_tv_set_memory(a, WF_MEM_SHARED);
    wf_tv_set_memory(b, WF_MEM_SHARED);
    wf_tv_set_ldst(a, WF_LDST_TMA);
    wf_tv_set_ldst(b, WF_LDST_TMA);
    bcast_schedule(a, false);
    bcast_schedule(b, true);
    bcast_schedule(t2, true);
    bcast_schedule(t3, true);
    wf_tv_parallelize(a, 2, WF_BULK);
    wf_tv_parallelize(b, 3, WF_BULK);
    wf_tv_parallelize(t2, 3, WF_TIDX);
    wf_tv_parallelize(t3, 3, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        gt_tensor in[2] = {gt_dense(WF_F32, 3, s0), gt_strided(WF_F32, 4, s1, st1)};
        gt_tensor want = gt_dense(WF_F32, 4, s1);
        gt_fill_random(&in[0]);
        gt_fill_random(&in[1]);
        int64_t inner = (int64_t)I1 * I2 * I3;
        for (int64_t i = 0; i < gt_numel(&want); i++)
            gt_set_f32(&want, i, gt_get_f32(&in[1], i) + gt_get_f32(&in[0], i % inner));
        gt_case c = {k, 2, 1, in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in[0]);
        gt_tensor_free(&in[1]);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(tma_seed_broadcast_add_discontiguous_input) {
    broadcast_add(ts_, 16, 32);
    broadcast_add(ts_, 15, 28); /* I2 * I3 = 420: the second box of 256 is partial */
}

/* nvFuser's Tutorial.PointwiseBroadcastTMA: t3 = broadcast(t0) + t1, t0 and
   t1 TMA-loaded into shared caches and t3 TMA-stored from one, all viewed as
   [d0 * d1 * ceil(d2 * d3 / 256) / 4 (BIDx), 4 (TIDx: one box each), 256
   (Bulk)]. t0's cache lacks d0; inlined into the broadcast's merged block
   axis, each block loads its own tile of t0 (test_tma_seed_valid.c runs the
   same schedule on the executor). */
static void pointwise_broadcast(gt_state *ts_, int64_t D0, int64_t D1, int64_t D2, int64_t D3) {
    NEED_GPU();
    int64_t s0[3] = {D1, D2, D3}, s1[4] = {D0, D1, D2, D3};
    int64_t st1[4] = {D1 * 2048, 2048, D3, 1};
    int8_t c1[4] = {1, 0, 1, 1};
    wf_fusion *f = wf_fusion_new();
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
    wf_tv_merge(t3, 2);
    wf_tv_split(t3, 2, 256);
    wf_tv_merge(t3, 0);
    wf_tv_split(t3, 1, 4);
    wf_tv_merge(t3, 0);
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
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 3);
        gt_tensor in[2] = {gt_dense(WF_F32, 3, s0), gt_strided(WF_F32, 4, s1, st1)};
        gt_tensor want = gt_dense(WF_F32, 4, s1);
        gt_fill_random(&in[0]);
        gt_fill_random(&in[1]);
        int64_t inner = (int64_t)D1 * D2 * D3;
        for (int64_t i = 0; i < gt_numel(&want); i++)
            gt_set_f32(&want, i, gt_get_f32(&in[0], i % inner) + gt_get_f32(&in[1], i));
        gt_case c = {k, 2, 1, in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in[0]);
        gt_tensor_free(&in[1]);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Also where a block has fewer boxes than issuing threads (3 x 5 x 3 x 100):
   the boxes past the end still arrive on the mbarrier. */
GPU_TEST(tma_seed_pointwise_broadcast_tma_load_store) {
    pointwise_broadcast(ts_, 32, 2, 4, 256);
    pointwise_broadcast(ts_, 3, 5, 3, 100);
    pointwise_broadcast(ts_, 5, 3, 4, 200);
}

/* ---- strided tiles (seed 001, step 3) ---- */

/* [R, C] -> [R / box, s, box / s, C] (box 0: [s, R / s, C], the whole
   extent as the box); the TMA side's tile and C on Bulk, the other's on
   TIDy and TIDx; the box coordinate on BIDx, the stride IterDomain on BIDy. */
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

static void strided_copy(gt_state *ts_, bool load, int64_t rows, int64_t cols, int64_t box,
                         int64_t s) {
    NEED_GPU();
    int64_t shape[2] = {rows, cols};
    wf_tv *sm, *o;
    wf_fusion *f = copy_chain(2, shape, load ? LOAD : STORE, &sm, &o);
    wf_tv *tma = load ? sm : o, *other = load ? o : sm;
    int c = stride_rows(tma, box, s);
    stride_rows(other, box, s);
    wf_tv *both[2] = {tma, other};
    for (int j = 0; j < 2; j++) {
        if (c)
            wf_tv_parallelize(both[j], 0, WF_BIDX);
        wf_tv_parallelize(both[j], c, WF_BIDY);
    }
    tile_axes(tma, true, c + 1);
    tile_axes(other, false, c + 1);
    expect_copy(ts_, f, 2, shape, 1);
}

GPU_TEST(tma_seed_strided_load_strides_2_3_4) {
    strided_copy(ts_, true, 4096, 64, 16, 2);
    strided_copy(ts_, true, 4095, 64, 24, 3); /* the last box partial */
    strided_copy(ts_, true, 4096, 64, 32, 4);
}

/* A stride that does not divide a box holding the whole extent: the holes
   lie outside the tensor and are zero-filled (not the FTTC case). */
GPU_TEST(tma_seed_strided_load_indivisible_whole_extent) {
    strided_copy(ts_, true, 8, 256, 0, 3);
    strided_copy(ts_, true, 30, 64, 0, 4);
}

GPU_TEST(tma_seed_strided_store) {
    strided_copy(ts_, false, 4096, 64, 16, 2);
    strided_copy(ts_, false, 4000, 64, 24, 3);
    strided_copy(ts_, false, 8, 256, 0, 3); /* the hole at row 8 is skipped */
}
