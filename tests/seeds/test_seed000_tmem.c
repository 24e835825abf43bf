/*
 * test_seed000_tmem.c -- every test of seed 000 (tensor memory) ported to the
 * C API with the seed's expected outcome. Invalid schedules must fail with
 * the seed's message; valid ones compile for sm_100a with NVRTC and copy (or
 * transpose) exactly on the CPU reference executor on random data. No
 * Blackwell GPU is available here: the executor models tcgen05.ld/st, the
 * 128-lane x 512-column tensor memory and the sub-partition rule instead.
 */
#include "harness.h"

/* tv0 (global) -> tv1 (registers) -> tv2 (tensor memory, StTMem) -> tv3
   (registers, LdTMem) -> tv4 (global). */
typedef struct {
    wf_fusion *f;
    wf_tv *tv0, *tv1, *tv2, *tv3, *tv4;
} chain;

static chain chain_new(wf_dtype t, int ndim, const int64_t *shape, bool transpose12) {
    chain c;
    c.f = wf_fusion_new();
    c.tv0 = wf_input(c.f, t, ndim, shape);
    c.tv1 = wf_set(c.tv0);
    c.tv2 = wf_set(c.tv1);
    c.tv3 = transpose12 ? wf_transpose(c.tv2, 1, 2) : wf_set(c.tv2);
    c.tv4 = wf_set(c.tv3);
    wf_output(c.f, c.tv4);
    wf_tv_set_memory(c.tv2, WF_MEM_TENSOR);
    wf_tv_set_ldst(c.tv2, WF_LDST_TMEM_STORE);
    if (!transpose12)
        wf_tv_set_ldst(c.tv3, WF_LDST_TMEM_LOAD);
    return c;
}

static void parallelize(wf_tv *tv, const wf_ptype *types, int n) {
    for (int i = 0; i < n; i++)
        if (types[i] != WF_SERIAL)
            wf_tv_parallelize(tv, i, types[i]);
}

/* Compile must fail with `message` in the error. */
static void expect_failure(test_state *ts_, chain *c, const char *message) {
    wf_compile_options opt = {.sm = 100};
    wf_kernel *k = wf_compile(c->f, &opt);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(c->f), WF_ERR_SCHEDULE);
    CHECK_HAS(wf_fusion_error(c->f), message);
    wf_kernel_free(k);
    wf_fusion_free(c->f);
}

/* Compile for sm_100a, check with NVRTC, run exactly on the executor. */
static wf_kernel *expect_valid(test_state *ts_, chain *c) {
    wf_kernel *k = CHECK_INTERP_SM(c->f, NULL, 100);
    if (k && !harness_nvrtc(ts_, k, 100, __FILE__, __LINE__) && ts_->failed) {
        wf_kernel_free(k);
        return NULL;
    }
    return k;
}

TEST(seed000_tmem_too_many_lanes) {
    int64_t shape[7] = {2, 3, 5, 7, 11, 13, 17};
    static const wf_ptype p[7] = {WF_BIDX, WF_TIDX, WF_SERIAL, WF_BIDY, WF_TIDY};
    chain c = chain_new(WF_F32, 7, shape, false);
    parallelize(c.tv4, p, 5);
    wf_parallelize_all_like(c.tv4, 0);
    wf_inline_all_at(c.tv4, 3);
    wf_tv_set_tmem_dimsep(c.tv2, -2);
    expect_failure(
        TS, &c, "Not enough tensor memory lanes: tried to allocate 429, but only 128 available.");
}

TEST(seed000_tmem_too_many_cols) {
    int64_t shape[7] = {32, 3, 5, 7, 11, 13, 17};
    static const wf_ptype p[7] = {WF_TIDX, WF_BIDX, WF_TIDY, WF_SERIAL, WF_BIDY, WF_TIDZ};
    chain c = chain_new(WF_F32, 7, shape, false);
    parallelize(c.tv4, p, 6);
    wf_parallelize_all_like(c.tv4, 0);
    wf_inline_all_at(c.tv4, 4);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    expect_failure(
        TS, &c,
        "Not enough tensor memory columns: tried to allocate 1105, but only 512 available.");
}

TEST(seed000_tmem_not_warp_collective) {
    int64_t shape[2] = {16, 2};
    chain c = chain_new(WF_F32, 2, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDX);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    expect_failure(TS, &c,
                   "Invalid data access pattern in TMem load/store: TMem load/store must be "
                   "warp-collective, but the innermost extent is not a multiple of 32.");
}

TEST(seed000_tmem_not_contiguous) {
    int64_t shape[3] = {64, 2, 2};
    chain c = chain_new(WF_F32, 3, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDX);
    wf_tv_parallelize(c.tv4, 1, WF_TIDY);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 2);
    expect_failure(TS, &c,
                   "Invalid data access pattern in TMem load/store: Warp linearly accessing "
                   "lanes, but not with stride 1.");
}

TEST(seed000_tmem_one_lane) {
    int64_t shape[2] = {32, 32};
    chain c = chain_new(WF_F32, 2, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDY);
    wf_tv_parallelize(c.tv4, 1, WF_TIDX);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    expect_failure(TS, &c, "Invalid data access pattern in TMem load/store:");
}

TEST(seed000_tmem_wrong_subpartition) {
    int64_t shape[4] = {2, 2, 32, 2};
    chain c = chain_new(WF_F32, 4, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDY);
    wf_tv_parallelize(c.tv4, 2, WF_TIDX);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 3);
    expect_failure(TS, &c,
                   "Invalid data access pattern in TMem load/store: Warps are not accessing the "
                   "correct sub-partition.");
}

TEST(seed000_tmem_wrong_subpartition2) {
    int64_t shape[2] = {32, 2};
    chain c = chain_new(WF_F32, 2, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDX);
    wf_tv_parallelize(c.tv4, 1, WF_TIDY);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    expect_failure(TS, &c,
                   "Invalid data access pattern in TMem load/store: Warps are not accessing the "
                   "correct sub-partition.");
}

/* The valid examples: parallelize tv4, copy to all, set the dim separator. */
static void valid_copy(test_state *ts_, int ndim, const int64_t *shape, const wf_ptype *p,
                       int dimsep, int64_t expect_lanes, int64_t expect_cols) {
    chain c = chain_new(WF_F32, ndim, shape, false);
    parallelize(c.tv4, p, ndim);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, dimsep);
    wf_kernel *k = expect_valid(TS, &c);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->ntmem_regions, 1);
        CHECK_EQ_I64(li->tmem_lanes[0], expect_lanes);
        CHECK_EQ_I64(li->tmem_columns[0], expect_cols);
        CHECK_HAS(wf_kernel_source(k), "tcgen05.st.sync.aligned.32x32b.x1.b32");
        CHECK_HAS(wf_kernel_source(k), "tcgen05.ld.sync.aligned.32x32b.x1.b32");
        CHECK_HAS(wf_kernel_source(k), "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32");
        CHECK_HAS(wf_kernel_source(k), "tcgen05.dealloc.cta_group::1.sync.aligned.b32");
    }
    wf_kernel_free(k);
    wf_fusion_free(c.f);
}

TEST(seed000_tmem_warp_xyz) {
    int64_t shape[4] = {2, 4, 4, 2};
    static const wf_ptype p[4] = {WF_TIDZ, WF_TIDY, WF_TIDX, WF_SERIAL};
    valid_copy(TS, 4, shape, p, 3, 32, 32);
}

TEST(seed000_tmem_warp_group_xyz) {
    int64_t shape[4] = {2, 8, 8, 2};
    static const wf_ptype p[4] = {WF_TIDZ, WF_TIDY, WF_TIDX, WF_SERIAL};
    valid_copy(TS, 4, shape, p, 3, 128, 32);
}

TEST(seed000_tmem_warp_group_xy_col_z) {
    int64_t shape[3] = {8, 16, 8};
    static const wf_ptype p[3] = {WF_TIDY, WF_TIDX, WF_TIDZ};
    valid_copy(TS, 3, shape, p, 2, 128, 32);
}

TEST(seed000_tmem_warp_group_x_col_yz) {
    int64_t shape[3] = {128, 2, 2};
    static const wf_ptype p[3] = {WF_TIDX, WF_TIDY, WF_TIDZ};
    valid_copy(TS, 3, shape, p, 1, 128, 32);
}

TEST(seed000_tmem_x1_warp_group_y_col_z) {
    int64_t shape[3] = {1, 128, 2};
    static const wf_ptype p[3] = {WF_TIDX, WF_TIDY, WF_TIDZ};
    valid_copy(TS, 3, shape, p, 2, 128, 32);
}

TEST(seed000_tmem_transpose) {
    int64_t shape[3] = {128, 2, 2};
    chain c = chain_new(WF_F32, 3, shape, true);
    wf_tv_set_ldst(c.tv3, WF_LDST_TMEM_LOAD);
    wf_tv *all[4] = {c.tv1, c.tv2, c.tv3, c.tv4};
    for (int i = 0; i < 4; i++) {
        wf_tv_parallelize(all[i], 0, WF_TIDX);
        wf_tv_parallelize(all[i], 1, WF_TIDY);
        wf_tv_parallelize(all[i], 2, WF_TIDZ);
    }
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    wf_kernel *k = expect_valid(TS, &c);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->tmem_columns[0], 32);
    wf_kernel_free(k);
    wf_fusion_free(c.f);
}

/* The seed's fancyTransformations on a [4096, 4096] tensor. */
static void fancy_transformations(wf_tv *tv) {
    static const int r[4] = {3, 0, 2, 1};
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_split(tv, 1, 64);
    wf_tv_split(tv, 0, 64);
    wf_tv_reorder_all(tv, r);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 2, 3);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 1, 2);
    wf_tv_reorder_all(tv, r);
    wf_tv_merge(tv, 2);
    wf_tv_merge(tv, 0);
}

static void set_alloc_to_loop(wf_tv *tv) {
    int n;
    wf_iterdomain *const *loop = wf_tv_loop_domain(tv, &n);
    wf_tv_set_allocation_domain(tv, n, loop, true);
}

/* Complicated1/2 run at the seed's full 4096 x 4096 shape on the executor. */
static void expect_one_region(test_state *ts_, chain *c, int64_t cols) {
    wf_kernel *k = expect_valid(ts_, c);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->ntmem_regions, 1);
        CHECK_EQ_I64(wf_kernel_launch(k)->tmem_columns[0], cols);
    }
    wf_kernel_free(k);
    wf_fusion_free(c->f);
}

TEST(seed000_tmem_complicated1) {
    int64_t shape[2] = {4096, 4096};
    static const int pairs[2][2] = {{6, 2}, {7, 3}};
    chain c = chain_new(WF_F32, 2, shape, false);
    fancy_transformations(c.tv4);
    /* Columns: [2, 4, 8, 64]; lanes: [2, 16, 8, 2, 8, 1]. */
    wf_tv_split(c.tv4, 1, 64);
    wf_tv_split(c.tv4, 1, 8);
    wf_tv_split(c.tv4, 1, 4);
    wf_tv_split(c.tv4, 0, 1);
    wf_tv_split(c.tv4, 0, 8);
    wf_tv_split(c.tv4, 0, 2);
    wf_tv_split(c.tv4, 0, 8);
    wf_tv_split(c.tv4, 0, 16);
    wf_tv_parallelize(c.tv4, 0, WF_TIDZ);
    wf_tv_parallelize(c.tv4, 2, WF_TIDY);
    wf_tv_parallelize(c.tv4, 3, WF_BIDX);
    wf_tv_parallelize(c.tv4, 4, WF_TIDX);
    wf_tv_parallelize(c.tv4, 7, WF_BIDY);
    wf_tv_parallelize(c.tv4, 8, WF_BIDZ);
    wf_propagate_transforms(c.tv4);
    wf_parallelize_all_like(c.tv4, 0);
    set_alloc_to_loop(c.tv2);
    wf_tv_set_tmem_dimsep(c.tv2, 6);
    wf_tv_reorder(c.tv4, 2, pairs);
    wf_propagate_transforms(c.tv4);
    wf_inline_all_at(c.tv4, 4);
    expect_one_region(TS, &c, 64);
}

TEST(seed000_tmem_complicated2) {
    int64_t shape[2] = {4096, 4096};
    static const int pairs[1][2] = {{1, 4}};
    chain c = chain_new(WF_F32, 2, shape, false);
    fancy_transformations(c.tv4);
    /* Columns: [4, 8, 2, 16, 2, 2]; lanes: [32, 128]. */
    wf_tv_split(c.tv4, 1, 2);
    wf_tv_split(c.tv4, 1, 2);
    wf_tv_split(c.tv4, 1, 16);
    wf_tv_split(c.tv4, 1, 2);
    wf_tv_split(c.tv4, 1, 8);
    wf_tv_split(c.tv4, 0, 128);
    wf_tv_parallelize(c.tv4, 1, WF_TIDX);
    wf_tv_parallelize(c.tv4, 3, WF_BIDY);
    wf_tv_parallelize(c.tv4, 4, WF_TIDY);
    wf_tv_parallelize(c.tv4, 6, WF_BIDZ);
    wf_tv_parallelize(c.tv4, 7, WF_TIDZ);
    wf_propagate_transforms(c.tv4);
    wf_parallelize_all_like(c.tv4, 0);
    set_alloc_to_loop(c.tv2);
    wf_tv_set_tmem_dimsep(c.tv2, 2);
    wf_tv_reorder(c.tv4, 1, pairs);
    wf_propagate_transforms(c.tv4);
    wf_inline_all_at(c.tv4, 4);
    expect_one_region(TS, &c, 64);
}

/* Seed "Vectorization": st_vec and ld_vec from 1 to 128 on [128, 256]. */
static void vectorization_case(test_state *ts_, int64_t st, int64_t ld) {
    int64_t shape[2] = {128, 256};
    chain c = chain_new(WF_F32, 2, shape, false);
    wf_tv *all[4] = {c.tv1, c.tv2, c.tv3, c.tv4};
    for (int i = 0; i < 4; i++)
        wf_tv_parallelize(all[i], 0, WF_TIDX);
    wf_tv_split(c.tv2, 1, st);
    wf_tv_split(c.tv1, 1, st);
    wf_tv_parallelize(c.tv2, -1, WF_VECTORIZE);
    wf_tv_split(c.tv3, 1, ld);
    wf_tv_split(c.tv4, 1, ld);
    wf_tv_parallelize(c.tv3, -1, WF_VECTORIZE);
    set_alloc_to_loop(c.tv2);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    wf_inline_most(c.f);
    wf_kernel *k = expect_valid(ts_, &c);
    if (k) {
        char st_text[64], ld_text[64];
        int64_t cols = st == ld ? (st > 32 ? st : 32) : 256;
        snprintf(st_text, sizeof st_text, "tcgen05.st.sync.aligned.32x32b.x%lld.b32",
                 (long long)st);
        snprintf(ld_text, sizeof ld_text, "tcgen05.ld.sync.aligned.32x32b.x%lld.b32",
                 (long long)ld);
        CHECK_EQ_I64(wf_kernel_launch(k)->tmem_columns[0], cols);
        CHECK_HAS(wf_kernel_source(k), st_text);
        CHECK_HAS(wf_kernel_source(k), ld_text);
    }
    wf_kernel_free(k);
    wf_fusion_free(c.f);
}

TEST(seed000_tmem_vectorization_all_64_pairs) {
    for (int64_t st = 1; st <= 128; st *= 2)
        for (int64_t ld = 1; ld <= 128; ld *= 2) {
            test_state one = {0};
            vectorization_case(&one, st, ld);
            if (one.failed) {
                printf("  st_vec %lld, ld_vec %lld failed\n", (long long)st, (long long)ld);
                TS->failed = true;
            }
            if (one.skipped)
                SKIP(one.skip_reason);
        }
}

/* Seed "VectorizeMultipleOf4Bytes". */
static chain bytes_case(wf_dtype t, int64_t vec) {
    int64_t shape[2] = {128, 256};
    chain c = chain_new(t, 2, shape, false);
    wf_tv *all[4] = {c.tv1, c.tv2, c.tv3, c.tv4};
    for (int i = 0; i < 4; i++) {
        wf_tv_parallelize(all[i], 0, WF_TIDX);
        if (vec != 1)
            wf_tv_split(all[i], 1, vec);
    }
    if (vec != 1) {
        wf_tv_parallelize(c.tv2, -1, WF_VECTORIZE);
        wf_tv_parallelize(c.tv3, -1, WF_VECTORIZE);
    }
    set_alloc_to_loop(c.tv2);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    wf_inline_most(c.f);
    return c;
}

TEST(seed000_tmem_vectorize_multiple_of_4_bytes) {
    chain c = bytes_case(WF_I8, 2);
    expect_failure(TS, &c, "Vectorize size is not a multiple of 4 bytes");
    c = bytes_case(WF_F16, 1);
    expect_failure(TS, &c, "Vectorize size is not a multiple of 4 bytes");
    c = bytes_case(WF_I8, 4);
    wf_kernel *k = expect_valid(TS, &c);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "tcgen05.st.sync.aligned.32x32b.x1.b32");
    wf_kernel_free(k);
    wf_fusion_free(c.f);
    c = bytes_case(WF_F16, 2);
    k = expect_valid(TS, &c);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "tcgen05.ld.sync.aligned.32x32b.x1.b32");
    wf_kernel_free(k);
    wf_fusion_free(c.f);
}

/* Seed "PerformantVectorizedCopy": gmem -> registers -> tmem -> registers ->
   gmem with 4-wide global accesses and 8-cell tcgen05 accesses. The seed runs
   2^28 elements on a Blackwell GPU; no such GPU is here, so the executor
   checks 2^20 elements (symbolic extent, bound at run time). */
TEST(seed000_tmem_performant_vectorized_copy) {
    int64_t shape[1] = {-1}, sym[8] = {1 << 20};
    static const int pairs[2][2] = {{1, 3}, {3, 1}};
    chain c = chain_new(WF_F32, 1, shape, false);
    wf_tv_split(c.tv4, 0, 4);
    wf_tv_parallelize(c.tv4, 1, WF_VECTORIZE);
    wf_tv_split(c.tv4, 0, 128);
    wf_tv_parallelize(c.tv4, 1, WF_TIDX);
    wf_tv_split(c.tv4, 0, 2);
    wf_tv_parallelize(c.tv4, 1, WF_TIDY);
    wf_tv_split(c.tv4, 0, 2);
    wf_tv_parallelize(c.tv4, 0, WF_BIDX);
    wf_propagate_transforms(c.tv4);
    wf_parallelize_all_like(c.tv4, (1u << WF_TIDX) | (1u << WF_TIDY) | (1u << WF_BIDX));
    wf_tv_parallelize(c.tv1, -1, WF_VECTORIZE);
    wf_tv *mid[2] = {c.tv2, c.tv3};
    for (int i = 0; i < 2; i++) {
        wf_tv_reorder(mid[i], 2, pairs);
        wf_tv_merge(mid[i], -2);
        wf_tv_parallelize(mid[i], -1, WF_VECTORIZE);
    }
    set_alloc_to_loop(c.tv2);
    wf_tv_set_tmem_dimsep(c.tv2, 2);
    wf_inline_most(c.f);
    wf_kernel *k = CHECK_INTERP_SM(c.f, sym, 100);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->tmem_columns[0], 32);
        CHECK_HAS(wf_kernel_source(k), "tcgen05.st.sync.aligned.32x32b.x8.b32");
        CHECK_HAS(wf_kernel_source(k), "tcgen05.ld.sync.aligned.32x32b.x8.b32");
        CHECK_HAS(wf_kernel_source(k), "wf_vec_copy<float, 4>");
        if (!harness_nvrtc(TS, k, 100, __FILE__, __LINE__) && TS->failed)
            printf("  (NVRTC failed)\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(c.f);
}

/* Without a target, a tensor-memory kernel is compiled for sm_100a; asking for
   Hopper explicitly is an error. */
TEST(seed000_tmem_default_target_is_blackwell) {
    int64_t shape[2] = {128, 4};
    chain c = chain_new(WF_F32, 2, shape, false);
    wf_tv_parallelize(c.tv4, 0, WF_TIDX);
    wf_parallelize_all_like(c.tv4, 0);
    wf_tv_set_tmem_dimsep(c.tv2, 1);
    wf_kernel *k = wf_compile(c.f, NULL);
    CHECK(k != NULL);
    if (k && !harness_nvrtc(TS, k, 0, __FILE__, __LINE__) && TS->failed)
        printf("  (the default target did not compile)\n");
    wf_kernel_free(k);
    wf_compile_options hopper = {.sm = 90};
    CHECK(wf_compile(c.f, &hopper) == NULL);
    CHECK_STR(wf_fusion_error(c.f), "T2 uses tensor memory, which needs Blackwell: compile for sm "
                                    "100 or later (wf_compile_options.sm), not 90");
    wf_fusion_free(c.f);
}
