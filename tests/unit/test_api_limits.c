/*
 * test_api_limits.c -- sizes and counts (issue 9): extents and index
 * arithmetic never overflow silently (a clear error, or an expression that
 * is left unfolded and that evaluation refuses), input shapes beyond
 * WF_MAX_RANK or 2^63 bytes are refused, and nothing else has a fixed limit:
 * a tensor split 70 times, a 200-op chain propagated and compiled, and a
 * 20,000-op chain propagated in linear time.
 */
#include "harness.h"
#include "ir/ir.h"

#include <time.h>

static void check_error(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

TEST(api_split_by_int64_max_gives_extents_1_and_int64_max) {
    int64_t shape[1] = {128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, out);
    wf_tv_split(out, 0, INT64_MAX);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 1); /* was 0: nothing written */
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 1)), INT64_MAX);
    wf_fusion_free(f);
}

TEST(api_merge_whose_extent_overflows_int64_is_refused) {
    int64_t shape[1] = {((int64_t)1 << 62) + 1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_U8, 1, shape));
    wf_output(f, out);
    wf_tv_split(out, 0, (int64_t)1 << 62); /* [2, 2^62] */
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(out, 0)), 2);
    wf_tv_merge(out, 0);
    check_error(TS, f, WF_ERR_ARG,
                "T1.merge: merging iS2{2} and iS3{4611686018427387904} gives 2 x "
                "4611686018427387904 elements, more than a 64-bit extent holds; no tensor has "
                "that many elements");
    CHECK_EQ_I64(wf_tv_ndim(out), 2);
    wf_fusion_free(f);
}

TEST(api_input_of_more_than_2_pow_63_bytes_is_refused) {
    int64_t shape[3] = {1 << 20, 1 << 20, 1 << 21};
    wf_fusion *f = wf_fusion_new();
    CHECK(wf_input(f, WF_F32, 3, shape) == NULL);
    check_error(TS, f, WF_ERR_ARG,
                "wf_input: a float tensor of this shape needs more than 2^63 bytes (the size "
                "overflows at dim 2, extent 2097152); no buffer is that large");
    wf_fusion_clear_error(f);
    shape[2] = 1 << 20; /* 2^62 bytes: fine */
    CHECK(wf_input(f, WF_F32, 3, shape) != NULL);
    wf_fusion_free(f);
}

TEST(api_input_rank_above_wf_max_rank_is_refused) {
    int64_t shape[WF_MAX_RANK + 1];
    for (int i = 0; i <= WF_MAX_RANK; i++)
        shape[i] = 2;
    wf_fusion *f = wf_fusion_new();
    CHECK(wf_input(f, WF_F32, WF_MAX_RANK + 1, shape) == NULL);
    check_error(TS, f, WF_ERR_ARG,
                "wf_input: rank 9 is not in 0..8 (WF_MAX_RANK, the rank of "
                "wf_buffer)");
    wf_fusion_clear_error(f);
    CHECK(wf_input(f, WF_F32, 2, NULL) == NULL);
    check_error(TS, f, WF_ERR_ARG, "wf_input: the shape of a rank-2 input is NULL");
    wf_fusion_free(f);
}

/* Constant folding never wraps: an overflowing fold is left as an expression,
   and evaluating it fails instead of giving a wrapped value (UBSan-clean). */
TEST(api_val_folding_and_evaluation_refuse_int64_overflow) {
    wf_arena a;
    arena_init(&a);
    int64_t r = 0;
    const wf_val *big = val_const(&a, INT64_MAX), *min = val_const(&a, INT64_MIN);
    const wf_val *sum = val_add(&a, big, val_const(&a, 1));
    CHECK(!val_is_const(sum));
    CHECK(!val_eval(sum, NULL, NULL, &r));
    const wf_val *quot = val_div(&a, min, val_const(&a, -1));
    CHECK(!val_is_const(quot));
    CHECK(!val_eval(quot, NULL, NULL, &r));
    CHECK(!val_is_const(val_mod(&a, min, val_const(&a, -1))));
    CHECK(!val_is_const(val_mul(&a, big, val_const(&a, 2))));
    CHECK(!val_is_const(val_sub(&a, min, val_const(&a, 1))));
    CHECK(!val_is_const(val_sub(&a, val_const(&a, 0), min)));
    const wf_val *cd = val_ceildiv(&a, big, val_const(&a, 2));
    CHECK(val_is_const_eq(cd, (int64_t)1 << 62));
    CHECK(val_is_const_eq(val_ceildiv(&a, val_const(&a, 128), big), 1));
    CHECK(!val_apply(V_MUL, (int64_t)1 << 62, 4, &r));
    /* ceil without the overflow of (x + y - 1) / y */
    CHECK(val_apply(V_CEILDIV, INT64_MAX, 2, &r) && r == ((int64_t)1 << 62));
    CHECK(val_apply(V_CEILDIV, -7, 2, &r) && r == -3);
    CHECK(val_apply(V_CEILDIV, 7, 2, &r) && r == 4);
    /* 1 && v is v only for a predicate (found by fuzzing the folds against val_apply) */
    CHECK(val_eval(val_and(&a, val_const(&a, 1), val_const(&a, 3)), NULL, NULL, &r) && r == 1);
    arena_free(&a);
}

/* Seventy splits give a 72-axis loop domain (past every old fixed array of
   64); reorders and propagation handle it, and the kernel is right. */
TEST(api_seventy_splits_of_one_tensor) {
    int64_t shape[2] = {8, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, out);
    for (int i = 0; i < 70; i++)
        wf_tv_split(out, 0, 1); /* [8, 1, 1, ..., 32] */
    CHECK_EQ_I64(wf_tv_ndim(out), 72);
    int n = wf_tv_ndim(out), old2new[72];
    for (int i = 0; i < n; i++)
        old2new[i] = n - 1 - i; /* reverse, then reverse back */
    wf_tv_reorder_all(out, old2new);
    wf_tv_reorder_all(out, old2new);
    const int pairs[1][2] = {{71, 71}};
    wf_tv_reorder(out, 1, pairs);
    wf_propagate_transforms(out);
    CHECK_EQ_I64(wf_tv_ndim(wf_tv_definition_input(out, 0)), 72);
    for (int i = 0; i < 10; i++)
        wf_tv_merge(out, 0); /* lowering takes up to 64 loop axes (a clear error beyond) */
    CHECK_EQ_I64(wf_tv_ndim(out), 62);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 61, WF_TIDX);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}

static wf_fusion *neg_chain(int n, wf_tv **last) {
    int64_t shape[2] = {16, 64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t = wf_input(f, WF_F32, 2, shape);
    for (int i = 0; i < n; i++)
        t = wf_unary(WF_NEG, t);
    wf_output(f, t);
    *last = t;
    return f;
}

TEST(api_propagate_a_200_op_chain_and_run_it) {
    wf_tv *out;
    wf_fusion *f = neg_chain(201, &out);
    wf_tv_split(out, 1, 32);
    wf_propagate_transforms(out); /* failed: "fusion too large" */
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    wf_tv *first = wf_tv_definition_input(out, 0);
    for (int i = 0; i < 198; i++)
        first = wf_tv_definition_input(first, 0);
    CHECK_EQ_I64(wf_tv_ndim(first), 3);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(first, 2)), 32);
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Linear in the chain: about 30 ms here; the bound only catches a quadratic
   walk (which would take minutes). */
TEST(api_propagate_a_20000_op_chain_in_linear_time) {
    wf_tv *out;
    wf_fusion *f = neg_chain(20000, &out);
    wf_tv_split(out, 1, 32);
    wf_tv_merge(out, 0);
    wf_tv_split(out, 0, 4);
    double t0 = seconds();
    wf_propagate_transforms(out);
    double dt = seconds() - t0;
    CHECK_STR(wf_fusion_error(f), "");
    CHECK(dt < 5.0);
    wf_tv *second = NULL; /* the first op's output: the far end of the chain */
    for (wf_tv *t = out; wf_tv_definition_input(t, 0); t = wf_tv_definition_input(t, 0))
        second = t;
    CHECK_EQ_I64(wf_tv_ndim(second), 3);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(second, 0)), 8); /* [16, 64] -> [8, 4, 32] */
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(second, 1)), 4);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(second, 2)), 32);
    wf_fusion_free(f);
}

/* A shared tile whose size is symbolic and overflows int64 for the run's
   sizes (a split by 2^59 of a symbolic extent allocates ceil(n / 2^59) *
   2^59 rows of 4 floats: 2^63 bytes): a clear launch refusal that says how
   much shared memory CUDA allows, not "cannot evaluate" (fuzz -s 1006 -c
   28289, whose split by INT64_MAX is now refused at compile time: its
   indices can pass 2^63). */
TEST(api_shared_size_that_overflows_at_launch_is_refused_clearly) {
    int64_t shape[2] = {-1, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_tv *tile = wf_set(in);
    wf_tv *out = wf_set(tile);
    wf_output(f, out);
    wf_tv_set_memory(tile, WF_MEM_SHARED);
    wf_tv_split(tile, 0, (int64_t)1 << 59); /* indices fit in int64; 2^59 x 4 x 4 bytes do not */
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float a[12] = {0}, b[12];
    wf_buffer bi = {a, WF_F32, 2, {3, 4}, {0}, -1}, bo = {b, WF_F32, 2, {3, 4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, 1, &bo, 1), WF_ERR_SCHEDULE);
    CHECK_STR(wf_last_run_error(k),
              "for these sizes, the kernel needs more than 9223372036854775807 bytes of shared "
              "memory per block (the size does not fit in 64 bits), but CUDA allows at most "
              "232448 (227 KiB); use smaller shared-memory tiles");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A launch extent that overflows int64 for the run's sizes (a symbolic
   extent merged with a split by INT64_MAX, on blockIdx.x): refused as an
   invalid grid, the message naming the axis (fuzz -s 2006 -c 11263). */
TEST(api_launch_extent_that_overflows_at_launch_is_an_invalid_grid) {
    int64_t shape[2] = {-1, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, out);
    wf_tv_split(out, 1, INT64_MAX); /* [n, 1, INT64_MAX] */
    wf_tv_merge_axes(out, 0, 2);    /* [n * INT64_MAX, 1] */
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float a[12] = {0}, b[12];
    wf_buffer bi = {a, WF_F32, 2, {3, 4}, {0}, -1}, bo = {b, WF_F32, 2, {3, 4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, 1, &bo, 1), WF_ERR_SCHEDULE);
    CHECK_STR(wf_last_run_error(k),
              "invalid grid: for these sizes, the extent of BIDx (T1's axis "
              "iblockIdx.x6{T0.size[0] * 9223372036854775807}) does not fit in 64 bits; use "
              "smaller split factors");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same extent on a serial loop: the launch checks that it fits, on both
   backends, instead of the executor failing inside the loop (ASan soak on
   the H100, seeds 20261124-36: four cases). */
TEST(api_loop_extent_that_overflows_at_launch_is_refused) {
    int64_t shape[2] = {-1, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_output(f, out);
    wf_tv_split(out, 1, INT64_MAX); /* [n, 1, INT64_MAX] */
    wf_tv_merge_axes(out, 0, 2);    /* [n * INT64_MAX, 1] */
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float a[12] = {0}, b[12];
    wf_buffer bi = {a, WF_F32, 2, {3, 4}, {0}, -1}, bo = {b, WF_F32, 2, {3, 4}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, 1, &bo, 1), WF_ERR_SCHEDULE);
    CHECK_STR(wf_last_run_error(k), "for these sizes, the extent of T1's loop "
                                    "iS6{T0.size[0] * 9223372036854775807} does not fit in 64 "
                                    "bits; use smaller split factors");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A bounds check that overflows int64 for in-range loop indices, all
   extents constant: T1 = broadcast(T0) [4, b], its broadcast axis split by
   INT64_MAX and the {1} split outer by 3 gives `i % 3 * INT64_MAX < 1`.
   Refused at compile time (the executor failed at run time and a GPU would
   wrap: ASan soak on the H100, -s 20261206 -c 173259). */
TEST(api_bounds_check_that_can_overflow_is_refused) {
    int64_t shape[1] = {4};
    bool bc[2] = {false, true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_broadcast(wf_input(f, WF_F32, 1, shape), 2, bc);
    wf_output(f, out);
    wf_tv_split(out, 1, INT64_MAX); /* [4, 1, INT64_MAX] */
    wf_tv_split_outer(out, 1, 3);   /* [4, 3, 1, INT64_MAX] */
    wf_tv_merge(out, 0);            /* [12, 1, INT64_MAX] */
    CHECK(wf_compile(f, NULL) == NULL);
    check_error(TS, f, WF_ERR_SCHEDULE,
                "T1: an index or bounds check of T1's statement can pass 2^63 for loop indices "
                "in range (a split by a huge factor?); use smaller split factors");
    wf_fusion_free(f);
}
