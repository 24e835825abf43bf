/*
 * test_tma_errors.c -- every refusal of a TMA schedule (seed 001), with the
 * exact message: the Bulk parallel type outside TMA copies and on the wrong
 * axes, TMA domains that are not views of the global allocation, boxes the
 * hardware cannot move, and the driver's rules on tensor maps, applied at
 * run time by the executor with the driver's words.
 */
#include "harness.h"

#include <stdlib.h>

static void expect(test_state *ts_, wf_fusion *f, wf_status st, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), st);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_kernel_free(k);
}

/* in -> T1 (shared) -> T2 (output); T1 TMA-loaded when tma. */
static wf_fusion *chain(int ndim, const int64_t *shape, const int8_t *contig, bool tma, wf_tv **s,
                        wf_tv **o) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = contig ? wf_input_strided(f, WF_F32, ndim, shape, contig)
                       : wf_input(f, WF_F32, ndim, shape);
    *s = wf_set(in);
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    if (tma)
        wf_tv_set_ldst(*s, WF_LDST_TMA);
    return f;
}

TEST(tma_bulk_outside_a_tma_copy_is_refused) {
    int64_t shape[1] = {256};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, false, &s, &o);
    wf_tv_split(s, 0, 64);
    wf_tv_parallelize(s, 1, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: axis 1 is parallelized on Bulk, but T1 is not defined by a TMA copy: "
           "ParallelType::Bulk is only supported for cp.async.bulk. Set WF_LDST_TMA on T1's "
           "definition, or use another parallel type");
    wf_fusion_free(f);
}

TEST(tma_vectorized_consumer_axis_is_refused) {
    int64_t shape[1] = {256};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 64);
    wf_tv_split(s, 1, 4);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(s, 2, WF_VECTORIZE);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: axis 2 of a TMA copy's consumer: Invalid parallel type for cp.async.bulk: V. "
           "Parallelize the tile axes with WF_BULK, the others on blocks or serially");
    wf_fusion_free(f);
}

TEST(tma_without_bulk_axis_is_refused) {
    int64_t shape[1] = {256};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1 is defined by a TMA copy, but none of its loop axes is parallelized on Bulk; "
           "parallelize its tile axes (the inner outputs of the boxing splits) with WF_BULK");
    wf_fusion_free(f);
}

TEST(tma_box_of_8_bytes_is_refused) {
    int64_t shape[1] = {256};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 2);
    wf_tv_parallelize(s, 1, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: The expected bytes must be a multiple of 16 bytes, but 8 is not. Make the box "
           "larger");
    wf_fusion_free(f);
}

/* The TMA domain must be a view: dims 0 and 1 are not contiguous in memory. */
TEST(tma_merge_of_discontiguous_dims_is_refused) {
    int64_t shape[3] = {4, 8, 64};
    int8_t contig[3] = {0, 1, 1};
    wf_tv *s, *o;
    wf_fusion *f = chain(3, shape, contig, true, &s, &o);
    wf_tv_merge(s, 0);
    wf_tv_merge(s, 0);
    wf_tv_split(s, 0, 256);
    wf_tv_parallelize(s, 1, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: TMA domain must be a view of the allocation domain of the gmem tensor T0: Can "
           "not merge discontiguous dimensions, but iS3{4} and iS4{8} are merged; merge only "
           "axes adjacent and contiguous in T0's allocation, outer with inner");
    wf_fusion_free(f);
}

TEST(tma_innermost_dim_not_contiguous_is_refused) {
    int64_t shape[2] = {64, 64};
    int8_t contig[2] = {1, 0};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, contig, true, &s, &o);
    wf_tv_split(s, 1, 32);
    wf_tv_parallelize(s, 2, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: The innermost dimension of the TMA domain must be contiguous, but iS3{64} is not "
           "(its stride in global memory is not 1)");
    wf_fusion_free(f);
}

TEST(tma_view_split_that_does_not_divide_is_refused) {
    int64_t shape[1] = {100};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 8); /* a view split of 100 by 8: not a view */
    wf_tv_split(s, 1, 3); /* [13, 3, 3]: the box 3 does not divide 8, so no rotation */
    wf_tv_merge(s, 0);    /* [39, 3] */
    wf_tv_parallelize(s, 1, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: Invalid view in TMA: the extent of iS1{100} must be divisible by the split "
           "factor 8 (the path from the global tensor's allocation to the TMA domain must be a "
           "view); split it as a boxing split (outer axes not Bulk, inner axis Bulk) or make it "
           "divide");
    wf_fusion_free(f);
}

TEST(tma_box_dimension_over_256_is_refused) {
    int64_t shape[1] = {4096};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 512);
    wf_tv_parallelize(s, 1, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: the box of TMA dimension 0 has 512 elements, more than the 256 TMA allows; "
           "split the tile IterDomains smaller");
    wf_fusion_free(f);
}

/* A global stride of 12 bytes (3 floats per row) is no tensor map. */
TEST(tma_global_stride_not_multiple_of_16_is_refused) {
    int64_t shape[2] = {64, 3};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 16);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(s, 2, WF_BULK);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: TMA dimension 1: globalStrides array, which specifies tensor stride of each of "
           "the lower tensorRank - 1 dimensions in bytes, must be a multiple of 16 and less than "
           "2^40. (it is 12 bytes)");
    wf_fusion_free(f);
}

/* Symbolic sizes: the rule is checked at run time, on every backend. */
TEST(tma_global_stride_checked_at_run_time) {
    int64_t shape[2] = {-1, -1};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, NULL, true, &s, &o);
    wf_tv_split(s, 1, 4);
    wf_tv_split(s, 0, 8);
    wf_tv_reorder_all(s, (const int[]){0, 2, 1, 3});
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_parallelize(s, 3, WF_BULK);
    wf_kernel *k = COMPILE(f);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        float in[8 * 6] = {0}, out[8 * 6];
        wf_buffer x = {in, WF_F32, 2, {8, 6}, {0}, -1}, y = {out, WF_F32, 2, {8, 6}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_ERR_SCHEDULE);
        CHECK_HAS(wf_last_run_error(k),
                  "T1: TMA dimension 1: globalStrides array, which specifies tensor stride of "
                  "each of the lower tensorRank - 1 dimensions in bytes, must be a multiple of "
                  "16 and less than 2^40.");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The driver's rule on the global address, applied by the executor. */
TEST(tma_global_address_must_be_16_byte_aligned) {
    int64_t shape[1] = {256};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 64);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_kernel *k = COMPILE(f);
    if (k)
        CHECK_NVRTC(k, 90);
    float *mem = calloc(256 + 4, sizeof *mem), out[256];
    if (k && mem) {
        wf_buffer x = {mem + 1, WF_F32, 1, {256}, {0}, -1}, y = {out, WF_F32, 1, {256}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_ERR_SCHEDULE);
        CHECK_HAS(wf_last_run_error(k),
                  "cuTensorMapEncodeTiled for T0: globalAddress, which specifies the starting "
                  "address of the memory region described, must be 32 byte aligned when "
                  "interleave is CU_TENSOR_MAP_INTERLEAVE_32B and 16 byte aligned otherwise.");
    }
    free(mem);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Circular buffering pipelines a serial loop (tests/unit/test_tma_cb.c):
   a tensor not inlined anywhere has none. */
TEST(tma_circular_buffering_needs_an_inlined_tensor) {
    int64_t shape[2] = {64, 64};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 8);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_circular_buffer(s, 2);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: circular buffering (2 stages) pipelines the serial loop at T1's inline position, "
           "but T1 is not inlined (compute-at position 0); inline it into its consumer at a "
           "serial loop");
    wf_fusion_free(f);
}

/* A symbolic extent split as part of the view: divisible at run time or refused.
   (Split by 64, the 64 by 32 with box 32, it would be a box by rotation, valid
   for any n: the 64 here is split by 48, which it is not a multiple of.) */
TEST(tma_symbolic_view_split_checked_at_run_time) {
    int64_t shape[1] = {-1};
    wf_tv *s, *o;
    wf_fusion *f = chain(1, shape, NULL, true, &s, &o);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, 64); /* a view split of a symbolic extent */
        wf_tv_split(both[i], 1, 48); /* [n / 64, 2, 48]: 48 is the box */
        wf_tv_merge(both[i], 0);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(o, 1, WF_TIDX);
    wf_kernel *k = COMPILE(f);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        float in[192] = {0}, out[192];
        for (int i = 0; i < 192; i++)
            in[i] = (float)i;
        wf_buffer x = {in, WF_F32, 1, {192}, {0}, -1}, y = {out, WF_F32, 1, {192}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_OK);
        CHECK(out[191] == 191.0f && out[64] == 64.0f);
        x.shape[0] = y.shape[0] = 100;
        CHECK(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1) != WF_OK);
        CHECK_HAS(wf_last_run_error(k), "T1: Invalid view in TMA: the extent of iS1{T0.size[0]} "
                                        "must be divisible by the split factor 64");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The seed's rule: circular buffering elects one thread to issue the loads,
   which a thread-parallel TMA consumer contradicts. */
TEST(tma_circular_buffering_with_thread_parallel_consumer_is_refused) {
    int64_t shape[2] = {64, 64};
    wf_tv *s, *o;
    wf_fusion *f = chain(2, shape, NULL, true, &s, &o);
    wf_tv_split(s, 0, 8);
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_circular_buffer(s, 3);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "T1: circular buffering issues its loads from one elected thread, but T1's axis "
           "ithreadIdx.x6{8} is parallelized on TIDx, so the TMA copy of T1 is incorrectly "
           "contained within a If-Then-Else with the ElectSync predicate. Parallelize T1's "
           "non-tile axes on blocks or serially");
    wf_fusion_free(f);
}
