/*
 * test_errors.c -- invalid schedules: each test makes one mistake, pins the
 * exact status and full message of the sticky error (naming the tensor, the
 * axis or position and the rule), clears it and shows that the fusion still
 * compiles with a valid schedule. Covers bad axes, factors, merges, reorders
 * and swizzles; transforms left of the compute-at position; inline limits;
 * memory types; vectorization width, position, contiguity and divisibility;
 * block size; parallel-type mismatches on shared loops; bad ops; missing
 * outputs; symbolic register sizes; and stickiness until cleared.
 */
#include "harness.h"

/* ---- helpers ---- */

static void nvrtc_check(test_state *ts_, wf_kernel *k) {
    CHECK_NVRTC(k, 90);
}

static void check_error(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

static void clear_error(test_state *ts_, wf_fusion *f) {
    wf_fusion_clear_error(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_STR(wf_fusion_error(f), "");
}

/* wf_compile must fail (and leave the error in f); show what it made if not. */
static void compile_fails(test_state *ts_, wf_fusion *f) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    if (k)
        printf("  unexpected kernel:\n%s\n", wf_kernel_source(k));
    wf_kernel_free(k);
}

/* f compiles, launches grid.x x block.x, and passes NVRTC */
static void compiles(test_state *ts_, wf_fusion *f, int64_t grid_x, int64_t block_x) {
    wf_kernel *k = CHECK_INTERP(f, NULL); /* exact on the executor too */
    if (!k)
        return;
    CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], grid_x);
    CHECK_EQ_I64(wf_kernel_launch(k)->block[0], block_x);
    nvrtc_check(ts_, k);
    wf_kernel_free(k);
}

/* [64, 128] f32 -> set -> out */
static wf_fusion *copy_64x128(wf_tv **out) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    *out = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, *out);
    return f;
}

/* [64, 128] f32 -> set (local mid) -> set -> out */
static wf_fusion *chain_64x128(wf_tv **mid, wf_tv **out) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    *out = wf_set(*mid);
    wf_output(f, *out);
    return f;
}

static void bidx_tidx(wf_tv *tv) {
    wf_tv_parallelize(tv, 0, WF_BIDX);
    wf_tv_parallelize(tv, 1, WF_TIDX);
}

/* [.., 128] -> [.., 4, 32] with axis 0 on BIDx and the 32 on TIDx */
static void split_32_bidx_tidx(wf_tv *tv) {
    wf_tv_split(tv, 1, 32);
    wf_tv_parallelize(tv, 0, WF_BIDX);
    wf_tv_parallelize(tv, 2, WF_TIDX);
}

/* ---- bad arguments to split / merge / reorder / swizzle ---- */

TEST(split_axis_2_of_2_loop_axes_is_out_of_range) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split(out, 2, 4);
    check_error(TS, f, WF_ERR_ARG, "T1.split: axis 2 is out of range; T1 has 2 loop axes");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    split_32_bidx_tidx(out);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(split_axis_minus3_of_2_loop_axes_is_out_of_range) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split(out, -3, 4);
    check_error(TS, f, WF_ERR_ARG, "T1.split: axis -3 is out of range; T1 has 2 loop axes");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    wf_tv_split(out, -1, 32); /* -1 is axis 1 */
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 1)), 4);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(split_by_factor_0_is_rejected_as_non_positive) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split(out, 1, 0);
    check_error(TS, f, WF_ERR_ARG, "T1.split(axis=1, factor=0): the factor must be positive");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    split_32_bidx_tidx(out);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(split_by_negative_factor_is_rejected_as_non_positive) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split(out, -1, -4);
    check_error(TS, f, WF_ERR_ARG, "T1.split(axis=-1, factor=-4): the factor must be positive");
    clear_error(TS, f);
    split_32_bidx_tidx(out);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(split_outer_by_factor_0_is_rejected_as_non_positive) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split_outer(out, 0, 0);
    check_error(TS, f, WF_ERR_ARG, "T1.split_outer(axis=0, factor=0): the factor must be positive");
    clear_error(TS, f);
    wf_tv_split_outer(out, 0, 2); /* [2, 32, 128] */
    wf_tv_parallelize(out, 1, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    compiles(TS, f, 32, 128);
    wf_fusion_free(f);
}

TEST(merge_of_the_last_axis_has_no_axis_to_merge_with) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_merge(out, 1);
    check_error(TS, f, WF_ERR_ARG,
                "T1.merge(axis=1): axis 1 is the last loop axis; there is no axis 2 to merge it "
                "with");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    wf_tv_merge(out, 0);
    wf_tv_split(out, 0, 256);
    bidx_tidx(out);
    compiles(TS, f, 32, 256);
    wf_fusion_free(f);
}

TEST(merge_axes_of_an_axis_with_itself_is_rejected) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_merge_axes(out, 1, -1);
    check_error(TS, f, WF_ERR_ARG, "T1.merge: cannot merge axis 1 with itself");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    wf_tv_merge_axes(out, 1, 0); /* outer 128, inner 64 */
    CHECK_EQ_I64(wf_tv_ndim(out), 1);
    wf_tv_split(out, 0, 64);
    bidx_tidx(out);
    compiles(TS, f, 128, 64);
    wf_fusion_free(f);
}

TEST(reorder_all_with_a_repeated_position_is_not_a_permutation) {
    static const int bad[2] = {0, 0}, swap[2] = {1, 0};
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_reorder_all(out, bad);
    check_error(TS, f, WF_ERR_ARG,
                "T1.reorder: the new positions are not a permutation of 0..1: axes 0 and 1 both go "
                "to position 0");
    clear_error(TS, f);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 64); /* not reordered */
    wf_tv_reorder_all(out, swap);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 128);
    bidx_tidx(out);
    compiles(TS, f, 128, 64);
    wf_fusion_free(f);
}

TEST(reorder_pairs_with_a_repeated_target_position_is_rejected) {
    static const int bad[2][2] = {{0, 1}, {1, 1}}, swap[1][2] = {{0, 1}};
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_reorder(out, 2, bad);
    check_error(TS, f, WF_ERR_ARG, "T1.reorder: position 1 appears twice in the pairs");
    clear_error(TS, f);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 64); /* not reordered */
    wf_tv_reorder(out, 1, swap);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 128);
    bidx_tidx(out);
    compiles(TS, f, 128, 64);
    wf_fusion_free(f);
}

TEST(swizzle_of_extents_3_and_48_needs_powers_of_two) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_split(out, 1, 48); /* [64, 3, 48] */
    wf_tv_swizzle(out, WF_SWIZZLE_XOR, 1, 2);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.swizzle(XOR, 1, 2): an XOR swizzle needs constant power-of-two extents with "
                "extent(x) <= extent(y), but they are 3 and 48");
    clear_error(TS, f);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    compiles(TS, f, 64, 48);
    wf_fusion_free(f);
}

TEST(swizzle_with_x_extent_larger_than_y_is_rejected) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_swizzle(out, WF_SWIZZLE_XOR, 1, 0);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.swizzle(XOR, 1, 0): an XOR swizzle needs constant power-of-two extents with "
                "extent(x) <= extent(y), but they are 128 and 64");
    clear_error(TS, f);
    wf_tv_swizzle(out, WF_SWIZZLE_XOR, 0, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    bidx_tidx(out);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

/* ---- transforms of shared (inlined) loops ---- */

TEST(split_left_of_the_compute_at_position_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_inline_at(mid, 1);
    wf_tv_split(mid, 0, 4);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.split: axis 0 is left of the compute-at position 1; inlined axes cannot be "
                "transformed");
    CHECK_EQ_I64(wf_tv_ndim(mid), 2);
    clear_error(TS, f);
    wf_tv_split(mid, 1, 32); /* right of the position: allowed */
    CHECK_EQ_I64(wf_tv_ndim(mid), 3);
    compiles(TS, f, 1, 1);
    wf_fusion_free(f);
}

TEST(merge_left_of_the_compute_at_position_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_inline_at(mid, 2);
    wf_tv_merge(mid, 0);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.merge: axis 0 is left of the compute-at position 2; inlined axes cannot be "
                "transformed");
    CHECK_EQ_I64(wf_tv_ndim(mid), 2);
    clear_error(TS, f);
    bidx_tidx(out);
    bidx_tidx(mid);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(split_of_a_consumer_axis_where_a_producer_is_inlined_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_inline_at(mid, 1);
    wf_tv_split(out, 0, 4);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2.split: axis 0 is left of position 1, where a producer is inlined; those axes "
                "cannot be transformed");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    wf_tv_split(out, 1, 32);
    compiles(TS, f, 1, 1);
    wf_fusion_free(f);
}

TEST(split_of_a_parallelized_axis_is_rejected) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_tv_split(out, 1, 32);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.split: axis 1 is already parallelized on TIDx; split before parallelizing");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    clear_error(TS, f);
    wf_tv_parallelize(out, 0, WF_BIDX);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

/* ---- inline positions ---- */

TEST(inline_at_2_beyond_max_1_when_consumer_is_split_differently) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    split_32_bidx_tidx(out);
    wf_tv_inline_at(mid, 2);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.inline_at(2): position 2 is beyond the maximum inline position 1: axis 1 of "
                "T1 is not mapped to axis 1 of its consumer T2");
    CHECK_EQ_I64(wf_tv_compute_at(mid), 0);
    clear_error(TS, f);
    wf_tv_parallelize(mid, 0, WF_BIDX);
    wf_tv_inline_at(mid, 1);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 1);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(inline_at_position_3_of_2_loop_axes_is_out_of_range) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_inline_at(mid, 3);
    check_error(TS, f, WF_ERR_ARG,
                "T1.inline_at: position 3 is out of range; T1 has 2 loop axes, so positions are "
                "0..2");
    clear_error(TS, f);
    wf_tv_inline_at(mid, -4);
    check_error(TS, f, WF_ERR_ARG,
                "T1.inline_at: position -4 is out of range; T1 has 2 loop axes, so positions are "
                "0..2");
    CHECK_EQ_I64(wf_tv_compute_at(mid), 0);
    clear_error(TS, f);
    wf_tv_inline_at(mid, -3); /* -3 + 2 + 1 = 0 */
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    bidx_tidx(out);
    bidx_tidx(mid);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(inline_at_with_bidy_producer_under_bidx_consumer_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    bidx_tidx(out);
    wf_tv_parallelize(mid, 0, WF_BIDY);
    wf_tv_parallelize(mid, 1, WF_TIDX);
    wf_tv_inline_at(mid, 1);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 is "
                "parallelized on BIDy in T1 but on BIDx in its consumer T2");
    CHECK_EQ_I64(wf_tv_compute_at(mid), 0);
    clear_error(TS, f);
    wf_tv_parallelize(mid, 0, WF_BIDX);
    wf_tv_inline_at(mid, 1);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 1);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(parallelizing_an_inlined_loop_bidy_under_bidx_fails_compile) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_inline_at(mid, 1);
    bidx_tidx(out);
    wf_tv_parallelize(mid, 0, WF_BIDY);
    wf_tv_parallelize(mid, 1, WF_TIDX);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1 is inlined at position 1, but the schedule now allows at most 0: axis 0 is "
                "parallelized on BIDy in T1 but on BIDx in its consumer T2");
    clear_error(TS, f);
    wf_tv_parallelize(mid, 0, WF_BIDX);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

/* ---- memory types ---- */

TEST(set_memory_shared_on_a_fusion_input_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    wf_tv_set_memory(wf_tv_definition_input(mid, 0), WF_MEM_SHARED);
    check_error(TS, f, WF_ERR_ARG,
                "T0.set_memory(shared): T0 is a fusion input and stays in global memory");
    clear_error(TS, f);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    bidx_tidx(out);
    bidx_tidx(mid);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(local_tensor_with_symbolic_extent_fails_compile) {
    int64_t shape[2] = {-1, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(mid);
    wf_output(f, out);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_tv_parallelize(mid, 1, WF_TIDX);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "Allocations must be based on constant integers for local memory. However, T1 "
                "needs T0.size[0] elements");
    clear_error(TS, f);
    wf_tv_inline_at(mid, 1); /* one register per thread */
    compiles(TS, f, 1, 128);
    wf_fusion_free(f);
}

/* 64 x 128 copy, producer on one thread per element and consumer on a
   quarter of them: the producer's values cross threads. */
TEST(local_producer_read_by_other_threads_is_rejected) {
    wf_tv *mid, *out;
    wf_fusion *f = chain_64x128(&mid, &out);
    split_32_bidx_tidx(out); /* [BIDx, 4, TIDx{32}] */
    bidx_tidx(mid);          /* [BIDx, TIDx{128}] */
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 1);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1 is in local memory, but T2 reads it across threads on TIDx; a producer read "
                "by other threads must be in shared memory");
    clear_error(TS, f);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

/* ---- vectorization ---- */

typedef struct {
    wf_fusion *f;
    wf_tv *load, *out;
} vec_copy;

/* in -> cache_after (T2) -> set -> cache_before (T3) -> out, [n/v/128, 128, v] */
static vec_copy vector_copy(int64_t n, int64_t v) {
    vec_copy c;
    c.f = wf_fusion_new();
    wf_tv *in = wf_input(c.f, WF_F32, 1, &n);
    c.out = wf_set(in);
    wf_output(c.f, c.out);
    c.load = wf_cache_after(in);
    (void)wf_cache_before(c.out);
    wf_tv_split(c.out, 0, v);
    wf_tv_split(c.out, 0, 128);
    wf_propagate_transforms(c.out);
    bidx_tidx(c.out);
    wf_parallelize_all_like(c.out, 0);
    wf_tv_parallelize(c.load, 2, WF_VECTORIZE);
    wf_tv_parallelize(c.out, 2, WF_VECTORIZE);
    wf_inline_most(c.f);
    return c;
}

static void unvectorize(vec_copy *c) {
    wf_tv_parallelize(c->load, 2, WF_SERIAL);
    wf_tv_parallelize(c->out, 2, WF_SERIAL);
}

TEST(vectorize_8xf32_is_a_32_byte_access_and_fails_compile) {
    vec_copy c = vector_copy(1 << 20, 8);
    CHECK_EQ_I64(wf_fusion_status(c.f), WF_OK);
    compile_fails(TS, c.f);
    check_error(TS, c.f, WF_ERR_SCHEDULE,
                "T2: vectorizing 8 elements of float moves 32 bytes per access; a vector access "
                "must be 1, 2, 4, 8 or 16 bytes");
    clear_error(TS, c.f);
    unvectorize(&c);
    compiles(TS, c.f, 1024, 128);
    wf_fusion_free(c.f);
}

TEST(vectorize_split_1002_by_4_does_not_divide_and_fails_compile) {
    vec_copy c = vector_copy(1002, 4);
    CHECK_EQ_I64(wf_fusion_status(c.f), WF_OK);
    compile_fails(TS, c.f);
    check_error(TS, c.f, WF_ERR_SCHEDULE,
                "T2: the split that makes the vectorized axis does not divide its extent 1002 by "
                "4");
    clear_error(TS, c.f);
    unvectorize(&c);
    compiles(TS, c.f, 2, 128);
    wf_fusion_free(c.f);
}

/* [64, 128] copy through a register cache whose V{4} axis is not innermost:
   [BIDx{16}, V{4}, TIDx{128}]. */
TEST(vectorize_of_a_non_innermost_loop_axis_fails_compile) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv *load = wf_cache_after(wf_tv_definition_input(out, 0));
    wf_tv_split(out, 0, 4);
    wf_propagate_transforms(out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    wf_tv_parallelize(load, 1, WF_VECTORIZE);
    wf_inline_most(f);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2: the vectorized axis 1 must be the innermost loop axis (axis 2)");
    clear_error(TS, f);
    wf_tv_parallelize(load, 1, WF_SERIAL);
    compiles(TS, f, 16, 128);
    wf_fusion_free(f);
}

/* transpose of [64, 128]: vectorizing the cached input along its outer
   dim reads 4 elements 128 apart. */
TEST(vectorize_along_the_outer_dim_of_a_transpose_input_fails_compile) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *t = wf_transpose(a, 0, 1);
    wf_output(f, t);
    wf_tv *load = wf_cache_after(a);
    wf_tv_split(t, 1, 4); /* [128, 16, 4] */
    wf_propagate_transforms(t);
    bidx_tidx(t);
    wf_parallelize_all_like(t, 0);
    wf_tv_parallelize(load, 2, WF_VECTORIZE);
    wf_inline_most(f);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T2: the vectorized axis of T2 must be the innermost, contiguous axis of T0's "
                "allocation, but T0's elements along it are not adjacent");
    clear_error(TS, f);
    wf_tv_parallelize(load, 2, WF_SERIAL);
    compiles(TS, f, 128, 16);
    wf_fusion_free(f);
}

/* The same read, vectorized directly on the transpose's output. */
TEST(vectorize_of_a_transpose_output_reading_a_column_fails_compile) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t = wf_transpose(wf_input(f, WF_F32, 2, shape), 0, 1);
    wf_output(f, t);
    wf_tv_split(t, 1, 4); /* [128, 16, 4] */
    bidx_tidx(t);
    wf_tv_parallelize(t, 2, WF_VECTORIZE);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1: the vectorized axis of T1 must be the innermost, contiguous axis of T0's "
                "allocation, but T0's elements along it are not adjacent");
    clear_error(TS, f);
    wf_tv_parallelize(t, 2, WF_UNROLL);
    compiles(TS, f, 128, 16);
    wf_fusion_free(f);
}

/* ---- launch limits, ops, outputs ---- */

TEST(block_of_64_by_128_threads_exceeds_1024_and_fails_compile) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_tv_parallelize(out, 0, WF_TIDX);
    wf_tv_parallelize(out, 1, WF_TIDY);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "invalid number of threads: the block needs 64 x 128 x 1 = 8192 threads; CUDA "
                "allows at most 1024 per block, 1024 along x and y and 64 along z (TIDx from "
                "T1's axis ithreadIdx.x2{64}, TIDy from T1's axis ithreadIdx.y3{128}); split an "
                "axis and parallelize only its inner part on threads");
    clear_error(TS, f);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(add_of_64x128_and_64x64_has_mismatched_extents) {
    int64_t s0[2] = {64, 128}, s1[2] = {64, 64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, s0);
    wf_tv *b = wf_input(f, WF_F32, 2, s1);
    CHECK(wf_add(a, b) == NULL);
    check_error(TS, f, WF_ERR_ARG, "add(T0, T1): dim 1 has extent 128 in T0 but 64 in T1");
    clear_error(TS, f);
    wf_tv *c = wf_add(a, a);
    CHECK(c != NULL);
    wf_output(f, c);
    bidx_tidx(c);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

TEST(compile_of_a_fusion_without_outputs_fails) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 2, shape));
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_ARG, "the fusion has no outputs");
    clear_error(TS, f);
    wf_output(f, b);
    bidx_tidx(b);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}

/* ---- stickiness ---- */

TEST(sticky_error_ignores_later_calls_until_cleared) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    const char *first = "T1.split: axis 5 is out of range; T1 has 2 loop axes";
    wf_tv_split(out, 5, 2);
    check_error(TS, f, WF_ERR_ARG, first);
    wf_tv_split(out, 1, 32); /* valid, but ignored */
    wf_tv_merge(out, 0);
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    wf_tv_split(out, 0, 0); /* a second mistake does not replace the first */
    CHECK(wf_set(out) == NULL);
    compile_fails(TS, f);
    check_error(TS, f, WF_ERR_ARG, first);
    clear_error(TS, f);
    wf_tv_split(out, 1, 32);
    CHECK_EQ_I64(wf_tv_ndim(out), 3);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    compiles(TS, f, 64, 32);
    wf_fusion_free(f);
}

TEST(set_loop_domain_must_cover_the_logical_domain) {
    wf_tv *out;
    wf_fusion *f = copy_64x128(&out);
    wf_iterdomain *first[1] = {wf_tv_axis(out, 0)};
    wf_tv_set_loop_domain(out, 1, first);
    check_error(TS, f, WF_ERR_ARG,
                "T1.set_loop_domain: the domain must cover T1's logical domain, but nothing in "
                "it derives from iS3{128}");
    CHECK_EQ_I64(wf_tv_ndim(out), 2); /* unchanged */
    clear_error(TS, f);
    bidx_tidx(out);
    compiles(TS, f, 64, 128);
    wf_fusion_free(f);
}
