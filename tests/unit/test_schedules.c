/*
 * test_schedules.c -- schedules that weft must lower to exact CUDA: copies
 * (1-D, 2-D, merged, split, tiled), pointwise and unary ops, casts,
 * broadcasts, naive / tiled / XOR-swizzled transposes, non-divisible and
 * outer splits, merges, reorders, vectorized copies, symbolic extents,
 * strided inputs, multi-output DAGs, cache chains, inline positions and the
 * printers. Each test compiles the fusion, pins launch parameters and exact
 * index / predicate / allocation text, runs the kernel on the CPU reference
 * executor against the plain reference (random inputs, poisoned outputs),
 * and compiles it with NVRTC.
 */
#include "fixtures.h"
#include "harness.h"

#include <stdlib.h>

/* Sizes for symbolic extents when kernels run on the CPU reference executor:
   input i's dim d is sym_sizes[i * 8 + d]. */
static const int64_t sym_sizes[16] = {1000, 77, 0, 0, 0, 0, 0, 0, 1000, 77};

/* ---- helpers ---- */

static void nvrtc_check(test_state *ts_, wf_kernel *k) {
    CHECK_NVRTC(k, 90);
}

static void nvrtc_and_free(test_state *ts_, wf_kernel *k) {
    nvrtc_check(ts_, k);
    wf_kernel_free(k);
}

static void check_launch(test_state *ts_, const wf_kernel *k, int64_t gx, int64_t gy, int64_t bx,
                         int64_t by, int64_t smem) {
    const wf_launch_info *li = wf_kernel_launch(k);
    CHECK_EQ_I64(li->grid[0], gx);
    CHECK_EQ_I64(li->grid[1], gy);
    CHECK_EQ_I64(li->grid[2], 1);
    CHECK_EQ_I64(li->block[0], bx);
    CHECK_EQ_I64(li->block[1], by);
    CHECK_EQ_I64(li->block[2], 1);
    CHECK_EQ_I64(li->smem_bytes, smem);
}

/* first appears in s, and second appears after it */
static void check_order(test_state *ts_, const char *s, const char *first, const char *second) {
    CHECK_HAS(s, first);
    CHECK_HAS(s, second);
    const char *a = strstr(s, first);
    CHECK(a && strstr(a + strlen(first), second));
}

static void check_extents(test_state *ts_, wf_tv *tv, int n, const int64_t *ext) {
    CHECK_EQ_I64(wf_tv_ndim(tv), n);
    for (int i = 0; i < n && i < wf_tv_ndim(tv); i++)
        CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(tv, i)), ext[i]);
}

/* in (f32, given shape) -> set -> out */
static wf_fusion *copy_fusion(int ndim, const int64_t *shape, wf_tv **out) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, ndim, shape);
    *out = wf_set(in);
    wf_output(f, *out);
    return f;
}

/* in -> op -> out over n elements of dtype t */
static wf_fusion *unary_fusion(wf_unary_op op, wf_dtype t, int64_t n, wf_tv **out) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, t, 1, &n);
    *out = wf_unary(op, in);
    wf_output(f, *out);
    return f;
}

/* [n] -> [n/bdim (BIDx), bdim (TIDx)] */
static void split_bidx_tidx(wf_tv *tv, int64_t bdim) {
    wf_tv_split(tv, 0, bdim);
    wf_tv_parallelize(tv, 0, WF_BIDX);
    wf_tv_parallelize(tv, 1, WF_TIDX);
}

static void bidx_tidx(wf_tv *tv) {
    wf_tv_parallelize(tv, 0, WF_BIDX);
    wf_tv_parallelize(tv, 1, WF_TIDX);
}

/* schedule the output, then replay it everywhere and inline */
static void schedule_like(wf_fusion *f, wf_tv *ref) {
    wf_propagate_transforms(ref);
    wf_parallelize_all_like(ref, 0);
    wf_inline_most(f);
}

#define IDX_B128 "blockIdx.x * 128 + threadIdx.x"
#define IDX_B256 "blockIdx.x * 256 + threadIdx.x"

/* ---- copies ---- */

TEST(copy_1d_4096_split_128_is_bidx_times_128_plus_tidx) {
    int64_t n = 4096;
    wf_tv *out;
    wf_fusion *f = copy_fusion(1, &n, &out);
    split_bidx_tidx(out, 128);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 32, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "  T1[" IDX_B128 "] = T0[" IDX_B128 "];\n");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        CHECK_LACKS(wf_kernel_source(k), "for (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(copy_2d_64x96_bidx_tidx_rows_have_stride_96) {
    int64_t shape[2] = {64, 96};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 64, 1, 96, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.x * 96 + threadIdx.x] = "
                                       "T0[blockIdx.x * 96 + threadIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(copy_2d_merged_then_split_256_gives_grid_24_without_predicate) {
    int64_t shape[2] = {64, 96};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_merge(out, 0);
    split_bidx_tidx(out, 256);
    int64_t ext[2] = {24, 256};
    check_extents(TS, out, 2, ext);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 24, 1, 256, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[" IDX_B256 "] = T0[" IDX_B256 "];");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(copy_2d_unscheduled_is_two_serial_loops_on_one_thread) {
    int64_t shape[2] = {64, 96};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 1, 1, 1, 1, 0);
        check_order(TS, s, "for (wf_index i0 = 0; i0 < 64; ++i0) {",
                    "for (wf_index i1 = 0; i1 < 96; ++i1) {");
        CHECK_HAS(s, "T1[i0 * 96 + i1] = T0[i0 * 96 + i1];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(copy_2d_tiles_bidy_bidx_tidy_tidx_index_rows_and_columns) {
    int64_t shape[2] = {64, 96};
    static const int r[4] = {0, 2, 1, 3};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_split(out, 0, 8);
    wf_tv_split(out, 2, 32);
    wf_tv_reorder_all(out, r); /* [8, 3, 8, 32] */
    wf_tv_parallelize(out, 0, WF_BIDY);
    wf_tv_parallelize(out, 1, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDY);
    wf_tv_parallelize(out, 3, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 3, 8, 32, 8, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.y * 768 + threadIdx.y * 96 + "
                                       "blockIdx.x * 32 + threadIdx.x]");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- pointwise, unary, cast ---- */

TEST(add_two_inputs_reads_both_at_the_output_index) {
    int64_t n = 2048;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, &n);
    wf_tv *b = wf_input(f, WF_F32, 1, &n);
    wf_tv *c = wf_add(a, b);
    wf_output(f, c);
    split_bidx_tidx(c, 256);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 8, 1, 256, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "Tensor<float, 1> T0, Tensor<float, 1> T1, "
                                       "Tensor<float, 1> T2)");
        CHECK_HAS(wf_kernel_source(k), "T2[" IDX_B256 "] = T0[" IDX_B256 "] + T1[" IDX_B256 "];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(unary_exp_1000_split_128_grid_8_predicates_below_1000) {
    wf_tv *out;
    wf_fusion *f = unary_fusion(WF_EXP, WF_F32, 1000, &out);
    split_bidx_tidx(out, 128);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 8, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (" IDX_B128 " < 1000) {\n"
                                       "    T1[" IDX_B128 "] = wf_exp(T0[" IDX_B128 "]);");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(unary_relu_calls_wf_relu) {
    wf_tv *out;
    wf_fusion *f = unary_fusion(WF_RELU, WF_F32, 1024, &out);
    split_bidx_tidx(out, 256);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 4, 1, 256, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[" IDX_B256 "] = wf_relu(T0[" IDX_B256 "]);");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(unary_neg_is_a_prefix_minus) {
    wf_tv *out;
    wf_fusion *f = unary_fusion(WF_NEG, WF_F32, 1024, &out);
    split_bidx_tidx(out, 256);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "T1[" IDX_B256 "] = -T0[" IDX_B256 "];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

static wf_fusion *cast_fusion(wf_dtype from, wf_dtype to) {
    int64_t n = 1024;
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_cast(wf_input(f, from, 1, &n), to);
    wf_output(f, out);
    split_bidx_tidx(out, 256);
    return f;
}

TEST(cast_f32_to_f16_writes_wf_half) {
    wf_fusion *f = cast_fusion(WF_F32, WF_F16);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "(Tensor<float, 1> T0, Tensor<wf_half, 1> T1)");
        CHECK_HAS(wf_kernel_source(k), "T1[" IDX_B256 "] = (wf_half)T0[" IDX_B256 "];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(cast_f16_to_f32_reads_wf_half) {
    wf_fusion *f = cast_fusion(WF_F16, WF_F32);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "(Tensor<wf_half, 1> T0, Tensor<float, 1> T1)");
        CHECK_HAS(wf_kernel_source(k), "T1[" IDX_B256 "] = (float)T0[" IDX_B256 "];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- broadcast ---- */

/* out[64, 256] = a[64, 256] + broadcast(b) with b of extent nb */
static wf_fusion *bcast_add(bool outer, wf_tv **bb, wf_tv **out) {
    int64_t shape[2] = {64, 256}, nb = outer ? 256 : 64;
    bool is_b[2] = {outer, !outer};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *b = wf_input(f, WF_F32, 1, &nb);
    *bb = wf_broadcast(b, 2, is_b);
    *out = wf_add(a, *bb);
    wf_output(f, *out);
    return f;
}

TEST(broadcast_outer_n_to_mn_merged_reads_input_modulo_256) {
    wf_tv *bb, *out;
    wf_fusion *f = bcast_add(true, &bb, &out);
    wf_tv_merge(out, 0);
    split_bidx_tidx(out, 128);
    schedule_like(f, out);
    CHECK_EQ_I64(wf_tv_compute_at(bb), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 128, 1, 128, 1, 0);
        CHECK_HAS(s, "  float T2[1];\n");
        CHECK_HAS(s, "T2[0] = T1[(" IDX_B128 ") % 256];");
        CHECK_HAS(s, "T3[" IDX_B128 "] = T0[" IDX_B128 "] + T2[0];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(broadcast_inner_m_to_mn_merged_reads_input_divided_by_256) {
    wf_tv *bb, *out;
    wf_fusion *f = bcast_add(false, &bb, &out);
    wf_tv_merge(out, 0);
    split_bidx_tidx(out, 128);
    schedule_like(f, out);
    CHECK_EQ_I64(wf_tv_compute_at(bb), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 128, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T2[0] = T1[(" IDX_B128 ") / 256];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(broadcast_outer_unmerged_bidx_tidx_reads_input_at_tidx) {
    wf_tv *bb, *out;
    wf_fusion *f = bcast_add(true, &bb, &out);
    bidx_tidx(out);
    schedule_like(f, out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 64, 1, 256, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T2[0] = T1[threadIdx.x];");
        CHECK_HAS(wf_kernel_source(k), "T3[" IDX_B256 "] = T0[" IDX_B256 "] + T2[0];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(broadcast_inner_split_64_reads_input_at_bidx_inside_serial_loop) {
    wf_tv *bb, *out;
    wf_fusion *f = bcast_add(false, &bb, &out);
    wf_tv_split(out, 1, 64);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    schedule_like(f, out);
    CHECK_EQ_I64(wf_tv_compute_at(bb), 3);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 64, 1, 64, 1, 0);
        check_order(TS, wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 4; ++i0) {",
                    "T2[0] = T1[blockIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- transposes ---- */

TEST(transpose_naive_reads_input_down_a_column) {
    int64_t shape[2] = {64, 96};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t = wf_transpose(wf_input(f, WF_F32, 2, shape), 0, 1);
    wf_output(f, t);
    bidx_tidx(t);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 96, 1, 64, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.x * 64 + threadIdx.x] = "
                                       "T0[threadIdx.x * 96 + blockIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* [1024, 2048] -> transpose through a 32x32 shared tile; swizzle optional. */
static wf_fusion *tiled_transpose(bool swizzle, wf_tv **smem) {
    return fx_tiled_transpose(1024, 2048, swizzle ? FX_SWIZZLE_LOOP : FX_PLAIN, smem);
}

TEST(transpose_tiled_32x32_smem_4096_bytes_sync_between_write_and_read) {
    wf_tv *s;
    wf_fusion *f = tiled_transpose(false, &s);
    CHECK_EQ_I64(wf_tv_compute_at(s), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *src = wf_kernel_source(k);
        check_launch(TS, k, 32, 64, 32, 32, 4096);
        CHECK_HAS(src, "float *T2 = reinterpret_cast<float *>(wf_smem + 0);");
        check_order(TS, src,
                    "T2[threadIdx.y * 32 + threadIdx.x] = "
                    "T0[blockIdx.x * 65536 + threadIdx.y * 2048 + "
                    "blockIdx.y * 32 + threadIdx.x];\n"
                    "  __syncthreads();\n",
                    "T1[blockIdx.y * 32768 + threadIdx.y * 1024 + "
                    "blockIdx.x * 32 + threadIdx.x] = "
                    "T2[threadIdx.x * 32 + threadIdx.y];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(transpose_tiled_xor_swizzled_smem_tile_indexes_with_xor) {
    wf_tv *s;
    wf_fusion *f = tiled_transpose(true, &s);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *src = wf_kernel_source(k);
        check_launch(TS, k, 32, 64, 32, 32, 4096);
        CHECK_HAS(src, " ^ ");
        /* the tile is stored row-major, the column swizzled on the read side */
        CHECK_HAS(src, "T2[threadIdx.y * 32 + threadIdx.x] = "
                       "T0[blockIdx.x * 65536 + threadIdx.y * 2048 + "
                       "blockIdx.y * 32 + (threadIdx.y ^ "
                       "threadIdx.x)];");
        CHECK_HAS(src, "= T2[threadIdx.x * 32 + (threadIdx.x ^ "
                       "threadIdx.y)];");
        CHECK_HAS(src, "__syncthreads();");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- splits and merges ---- */

TEST(split_1000_by_128_then_inner_by_3_predicates_tile_and_tensor) {
    int64_t n = 1000;
    wf_tv *out;
    wf_fusion *f = copy_fusion(1, &n, &out);
    wf_tv_split(out, 0, 128);
    wf_tv_split(out, 1, 3);
    int64_t ext[3] = {8, 43, 3};
    check_extents(TS, out, 3, ext);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 8, 1, 43, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 3; ++i0) {\n"
                                       "    if (threadIdx.x * 3 + i0 < 128 && "
                                       "blockIdx.x * 128 + threadIdx.x * 3 + i0 < 1000) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_100_by_128_predicates_tidx_below_100) {
    int64_t n = 100;
    wf_tv *out;
    wf_fusion *f = copy_fusion(1, &n, &out);
    wf_tv_split(out, 0, 128);
    int64_t ext[2] = {1, 128};
    check_extents(TS, out, 2, ext);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 1, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (threadIdx.x < 100) {\n"
                                       "    T1[threadIdx.x] = "
                                       "T0[threadIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_outer_1000_by_4_divides_evenly_without_predicate) {
    int64_t n = 1000;
    wf_tv *out;
    wf_fusion *f = copy_fusion(1, &n, &out);
    wf_tv_split_outer(out, 0, 4);
    int64_t ext[2] = {4, 250};
    check_extents(TS, out, 2, ext);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 4, 1, 250, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.x * 250 + threadIdx.x]");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_outer_1000_by_3_inner_334_predicates_below_1000) {
    int64_t n = 1000;
    wf_tv *out;
    wf_fusion *f = copy_fusion(1, &n, &out);
    wf_tv_split_outer(out, 0, 3);
    int64_t ext[2] = {3, 334};
    check_extents(TS, out, 2, ext);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 3, 1, 334, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (blockIdx.x * 334 + threadIdx.x < 1000) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(merge_30x100_then_split_128_predicates_below_3000) {
    int64_t shape[2] = {30, 100};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_merge(out, 0);
    split_bidx_tidx(out, 128);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 24, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (" IDX_B128 " < 3000) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_100_by_32_then_merge_outer_divides_and_mods_bidx) {
    int64_t shape[2] = {30, 100};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_split(out, 1, 32);
    wf_tv_merge(out, 0); /* [30 * 4, 32] */
    int64_t ext[2] = {120, 32};
    check_extents(TS, out, 2, ext);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 120, 1, 32, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (blockIdx.x % 4 * 32 + threadIdx.x < 100) {\n"
                                       "    T1[blockIdx.x / 4 * 100 + blockIdx.x % 4 * 32 + "
                                       "threadIdx.x] = ");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_128_by_32_then_merge_outer_folds_div_mod_away) {
    int64_t shape[2] = {32, 128};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_split(out, 1, 32);
    wf_tv_merge(out, 0);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 128, 1, 32, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[threadIdx.x + blockIdx.x * 32] = "
                                       "T0[threadIdx.x + blockIdx.x * 32];");
        CHECK_LACKS(wf_kernel_source(k), "/ 4");
        CHECK_LACKS(wf_kernel_source(k), "% 4");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(split_100_by_32_then_merge_inner_predicates_tidx_below_100) {
    int64_t shape[2] = {30, 100};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    wf_tv_split(out, 1, 32);
    wf_tv_merge(out, 1); /* [30, 4 * 32] */
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 30, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if (threadIdx.x < 100) {\n"
                                       "    T1[blockIdx.x * 100 + "
                                       "threadIdx.x] = ");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(merge_axes_0_and_2_of_4x6x8_splits_tidx_by_8) {
    int64_t shape[3] = {4, 6, 8};
    wf_tv *out;
    wf_fusion *f = copy_fusion(3, shape, &out);
    wf_tv_merge_axes(out, 0, 2);
    int64_t ext[2] = {32, 6};
    check_extents(TS, out, 2, ext);
    wf_tv_parallelize(out, 0, WF_TIDX);
    wf_tv_parallelize(out, 1, WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 6, 1, 32, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[threadIdx.x / 8 * 48 + "
                                       "blockIdx.x * 8 + threadIdx.x % 8]");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(unroll_axis_emits_pragma_unroll_loop) {
    wf_tv *out;
    wf_fusion *f = unary_fusion(WF_EXP, WF_F32, 4096, &out);
    wf_tv_split(out, 0, 4);
    split_bidx_tidx(out, 128);
    wf_tv_parallelize(out, 2, WF_UNROLL);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 8, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "  #pragma unroll\n  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
                                       "    T1[blockIdx.x * 512 + threadIdx.x * 4 + i0] = ");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- reorders ---- */

static wf_fusion *copy_2x3x5x7(wf_tv **out) {
    int64_t shape[4] = {2, 3, 5, 7};
    return copy_fusion(4, shape, out);
}

TEST(reorder_pairs_move_listed_axes_and_fill_the_rest_in_order) {
    static const int pairs[2][2] = {{3, 0}, {0, 2}};
    wf_tv *out;
    wf_fusion *f = copy_2x3x5x7(&out);
    wf_tv_reorder(out, 2, pairs);
    int64_t ext[4] = {7, 3, 2, 5};
    check_extents(TS, out, 4, ext);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_order(TS, s, "for (wf_index i0 = 0; i0 < 7; ++i0) {",
                    "for (wf_index i3 = 0; i3 < 5; ++i3) {");
        CHECK_HAS(s, "T1[i2 * 105 + i1 * 35 + i3 * 7 + i0] = "
                     "T0[i2 * 105 + i1 * 35 + i3 * 7 + i0];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(reorder_pair_minus1_to_0_moves_innermost_to_front) {
    static const int pairs[1][2] = {{-1, 0}};
    wf_tv *out;
    wf_fusion *f = copy_2x3x5x7(&out);
    wf_tv_reorder(out, 1, pairs);
    int64_t ext[4] = {7, 2, 3, 5};
    check_extents(TS, out, 4, ext);
    wf_tv_parallelize(out, 0, WF_TIDX);
    wf_tv_parallelize(out, 1, WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 2, 1, 7, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.x * 105 + i0 * 35 + i1 * 7 + "
                                       "threadIdx.x]");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(reorder_all_2_0_1_sends_old_axis_i_to_position_old2new_i) {
    int64_t shape[3] = {2, 3, 5};
    static const int old2new[3] = {2, 0, 1};
    wf_tv *out;
    wf_fusion *f = copy_fusion(3, shape, &out);
    wf_tv_reorder_all(out, old2new);
    int64_t ext[3] = {3, 5, 2};
    check_extents(TS, out, 3, ext);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 3, 1, 2, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 5; ++i0) {\n"
                                       "    T1[threadIdx.x * 15 + blockIdx.x * 5 + i0] = ");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- vectorization ---- */

/* in -> cache_after (T2) -> set -> cache_before (T3) -> out, split [n/v/128, 128, v] */
static wf_fusion *vector_copy(wf_dtype t, int64_t n, int64_t v) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, t, 1, &n);
    wf_tv *out = wf_set(in);
    wf_output(f, out);
    wf_tv *load = wf_cache_after(in);
    wf_tv *store = wf_cache_before(out);
    wf_tv_split(out, 0, v);
    wf_tv_split(out, 0, 128);
    wf_propagate_transforms(out);
    bidx_tidx(out);
    wf_parallelize_all_like(out, 0);
    wf_tv_parallelize(load, 2, WF_VECTORIZE);
    wf_tv_parallelize(out, 2, WF_VECTORIZE);
    wf_inline_most(f);
    (void)store;
    return f;
}

TEST(vectorize_4xf32_copy_loads_and_stores_with_wf_vec_copy) {
    wf_fusion *f = vector_copy(WF_F32, 1 << 20, 4);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 2048, 1, 128, 1, 0);
        CHECK_HAS(s, "  __align__(16) float T2[4];\n");
        CHECK_HAS(s, "wf_vec_copy<float, 4>(&T2[0], &T0[blockIdx.x * 512 + "
                     "threadIdx.x * 4]);");
        CHECK_HAS(s, "wf_vec_copy<float, 4>(&T1[blockIdx.x * 512 + "
                     "threadIdx.x * 4], &T3[0]);");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(vectorize_8xf16_copy_loads_and_stores_with_wf_vec_copy) {
    wf_fusion *f = vector_copy(WF_F16, 1 << 20, 8);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 1024, 1, 128, 1, 0);
        CHECK_HAS(s, "  __align__(16) wf_half T2[8];\n");
        CHECK_HAS(s, "wf_vec_copy<wf_half, 8>(&T2[0], &T0[blockIdx.x * 1024 + "
                     "threadIdx.x * 8]);");
        CHECK_HAS(s, "wf_vec_copy<wf_half, 8>(&T1[blockIdx.x * 1024 + "
                     "threadIdx.x * 8], &T3[0]);");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- symbolic extents and strides ---- */

TEST(symbolic_1d_grid_is_runtime_and_predicate_uses_size0) {
    wf_tv *out;
    wf_fusion *f = unary_fusion(WF_EXP, WF_F32, -1, &out);
    split_bidx_tidx(out, 128);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, -1, 1, 128, 1, 0);
        /* blockIdx.x * 128 could overflow 32 bits with a run-time grid: widened. */
        CHECK_HAS(wf_kernel_source(k),
                  "if ((wf_index)blockIdx.x * 128 + (wf_index)threadIdx.x < T0.size[0]) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(symbolic_2d_merged_predicate_uses_product_of_sizes) {
    int64_t shape[2] = {-1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_unary(WF_RELU, wf_input(f, WF_F32, 2, shape));
    wf_output(f, out);
    wf_tv_merge(out, 0);
    split_bidx_tidx(out, 256);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, -1, 1, 256, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "if ((wf_index)blockIdx.x * 256 + (wf_index)threadIdx.x < "
                                       "T0.size[0] * T0.size[1]) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(symbolic_outer_dim_on_bidx_needs_no_predicate) {
    int64_t shape[2] = {-1, 64};
    wf_tv *out;
    wf_fusion *f = copy_fusion(2, shape, &out);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, -1, 1, 64, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[(wf_index)blockIdx.x * 64 + (wf_index)threadIdx.x] = ");
        CHECK_LACKS(wf_kernel_source(k), "if (");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

static wf_fusion *strided_copy(int64_t d0, int64_t d1, const int8_t *contig, wf_tv **out) {
    int64_t shape[2] = {d0, d1};
    wf_fusion *f = wf_fusion_new();
    *out = wf_set(wf_input_strided(f, WF_F32, 2, shape, contig));
    wf_output(f, *out);
    return f;
}

TEST(noncontiguous_outer_dim_indexes_input_with_stride0) {
    static const int8_t contig[2] = {0, 1};
    wf_tv *out;
    wf_fusion *f = strided_copy(128, 64, contig, &out);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 128, 1, 64, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "T1[blockIdx.x * 64 + threadIdx.x] = "
                                       "T0[blockIdx.x * T0.stride[0] + threadIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(noncontiguous_inner_dim_scales_both_indices_by_stride1) {
    static const int8_t contig[2] = {1, 0};
    wf_tv *out;
    wf_fusion *f = strided_copy(128, 64, contig, &out);
    bidx_tidx(out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "T0[blockIdx.x * (T0.stride[1] * 64) + "
                                       "threadIdx.x * T0.stride[1]]");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(symbolic_strided_split_loops_to_ceildiv_and_predicates_size1) {
    static const int8_t contig[2] = {0, 1};
    wf_tv *out;
    wf_fusion *f = strided_copy(-1, -1, contig, &out);
    wf_tv_split(out, 1, 128);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, -1, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k),
                  "for (wf_index i0 = 0; i0 < wf_ceildiv(T0.size[1], 128); ++i0) {\n"
                  "    if (i0 * 128 + threadIdx.x < T0.size[1]) {\n"
                  "      T1[blockIdx.x * T0.size[1] + i0 * 128 + threadIdx.x] "
                  "= T0[blockIdx.x * T0.stride[0] + i0 * 128 + "
                  "threadIdx.x];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- DAGs ---- */

TEST(dag_two_outputs_c_is_stored_then_read_back_for_exp) {
    int64_t n = 4096;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, &n);
    wf_tv *b = wf_input(f, WF_F32, 1, &n);
    wf_tv *c = wf_add(a, b);
    wf_tv *d = wf_unary(WF_EXP, c);
    wf_output(f, c);
    wf_output(f, d);
    split_bidx_tidx(d, 128);
    schedule_like(f, d);
    CHECK_EQ_I64(wf_tv_compute_at(c), 2);
    CHECK_EQ_I64(wf_tv_compute_at(d), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 32, 1, 128, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "Tensor<float, 1> T2, Tensor<float, 1> T3)");
        check_order(TS, wf_kernel_source(k),
                    "T2[" IDX_B128 "] = T0[" IDX_B128 "] + T1[" IDX_B128 "];",
                    "T3[" IDX_B128 "] = wf_exp(T2[" IDX_B128 "]);");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(dag_diamond_local_intermediate_is_one_register_used_twice) {
    int64_t n = 4096;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, &n);
    wf_tv *b = wf_input(f, WF_F32, 1, &n);
    wf_tv *c = wf_add(a, b);
    wf_tv *d = wf_unary(WF_EXP, c);
    wf_tv *e = wf_mul(c, d);
    wf_output(f, d);
    wf_output(f, e);
    split_bidx_tidx(e, 128);
    schedule_like(f, e);
    CHECK_EQ_I64(wf_tv_compute_at(c), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        CHECK_HAS(s, "  float T2[1];\n  T2[0] = T0[" IDX_B128 "] + T1[" IDX_B128 "];");
        CHECK_HAS(s, "T3[" IDX_B128 "] = wf_exp(T2[0]);");
        CHECK_HAS(s, "T4[" IDX_B128 "] = T2[0] * T3[" IDX_B128 "];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- caches and inline positions ---- */

/* exp of [64, 256]: input cached in shared memory, output cached in a register */
static wf_fusion *cache_chain(wf_tv **smem, wf_tv **reg, wf_tv **out) {
    int64_t shape[2] = {64, 256};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    *out = wf_unary(WF_EXP, a);
    wf_output(f, *out);
    *smem = wf_cache_after(a);
    wf_tv_set_memory(*smem, WF_MEM_SHARED);
    *reg = wf_cache_before(*out);
    wf_tv_split(*out, 1, 64);
    wf_propagate_transforms(*out);
    wf_tv_parallelize(*out, 0, WF_BIDX);
    wf_tv_parallelize(*out, 2, WF_TIDX);
    wf_parallelize_all_like(*out, 0);
    return f;
}

TEST(cache_chain_fully_inlined_smem_holds_one_row_of_64) {
    wf_tv *smem, *reg, *out;
    wf_fusion *f = cache_chain(&smem, &reg, &out);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(smem), 3);
    CHECK_EQ_I64(wf_tv_compute_at(reg), 3);
    CHECK_EQ_I64(wf_tv_compute_at(out), 3);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 64, 1, 64, 1, 256);
        CHECK_HAS(s, "for (wf_index i0 = 0; i0 < 4; ++i0) {\n    float T3[1];\n");
        CHECK_HAS(s, "T2[threadIdx.x] = T0[blockIdx.x * 256 + i0 * 64 + "
                     "threadIdx.x];");
        CHECK_HAS(s, "T3[0] = wf_exp(T2[threadIdx.x]);");
        CHECK_HAS(s, "T1[blockIdx.x * 256 + i0 * 64 + threadIdx.x] = T3[0];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(cache_chain_smem_inline_at_1_holds_whole_row_read_back_by_its_writers) {
    wf_tv *smem, *reg, *out;
    wf_fusion *f = cache_chain(&smem, &reg, &out);
    wf_tv_inline_at(smem, 1);
    wf_tv_inline_at(reg, 2);
    CHECK_EQ_I64(wf_tv_compute_at(smem), 1);
    CHECK_EQ_I64(wf_tv_compute_at(reg), 2);
    CHECK_EQ_I64(wf_tv_compute_at(out), 0);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 64, 1, 64, 1, 1024);
        CHECK_HAS(s, "    T2[i0 * 64 + threadIdx.x] = T0[");
        CHECK_HAS(s, "  }\n  for (wf_index i1 = 0; i1 < 4; ++i1) {\n"
                     "    float T3[1];\n"
                     "    T3[0] = wf_exp(T2[i1 * 64 + threadIdx.x]);");
        /* thread x reads only the cells i * 64 + x that it wrote itself */
        CHECK_LACKS(s, "__syncthreads();");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* [64, 256] -> set (local) -> relu, scheduled [BIDx, 4, TIDx{64}] everywhere */
static wf_fusion *local_chain(wf_tv **mid, wf_tv **out) {
    int64_t shape[2] = {64, 256};
    wf_fusion *f = wf_fusion_new();
    *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    *out = wf_unary(WF_RELU, *mid);
    wf_output(f, *out);
    wf_tv_split(*out, 1, 64);
    wf_propagate_transforms(*out);
    wf_tv_parallelize(*out, 0, WF_BIDX);
    wf_tv_parallelize(*out, 2, WF_TIDX);
    wf_parallelize_all_like(*out, 0);
    return f;
}

TEST(inline_all_at_1_shares_bidx_and_keeps_a_register_row_of_4) {
    wf_tv *mid, *out;
    wf_fusion *f = local_chain(&mid, &out);
    wf_inline_all_at(out, 1);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 1);
    CHECK_EQ_I64(wf_tv_compute_at(out), 1);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        CHECK_HAS(s, "  float T1[4];\n  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
                     "    T1[i0] = T0[blockIdx.x * 256 + i0 * 64 + "
                     "threadIdx.x];");
        CHECK_HAS(s, "for (wf_index i1 = 0; i1 < 4; ++i1) {\n"
                     "    T2[blockIdx.x * 256 + i1 * 64 + threadIdx.x] = "
                     "wf_relu(T1[i1]);");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(inline_all_at_minus1_inlines_everything_into_one_loop) {
    wf_tv *mid, *out;
    wf_fusion *f = local_chain(&mid, &out);
    wf_inline_all_at(out, -1);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 3);
    CHECK_EQ_I64(wf_tv_compute_at(out), 3);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        CHECK_HAS(s, "for (wf_index i0 = 0; i0 < 4; ++i0) {\n    float T1[1];\n");
        CHECK_HAS(s, "= wf_relu(T1[0]);");
        CHECK_LACKS(s, "i1");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(inline_at_0_keeps_producer_loop_separate) {
    wf_tv *mid, *out;
    wf_fusion *f = local_chain(&mid, &out);
    wf_tv_inline_at(mid, 0);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 0);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_order(TS, s, "  float T1[4];\n  for (wf_index i0 = 0; i0 < 4; ++i0) {",
                    "  for (wf_index i1 = 0; i1 < 4; ++i1) {");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(inline_at_negative_positions_wrap_as_pos_plus_ndim_plus_1) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(mid);
    wf_output(f, out);
    wf_tv_inline_at(mid, -1);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 2);
    wf_tv_inline_at(mid, -2);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 1);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 64; ++i0) {\n"
                                       "    float T1[128];\n");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- shared-memory predicates and syncs ---- */

TEST(smem_written_and_read_by_the_same_thread_needs_no_sync) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(mid);
    wf_output(f, out);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    bidx_tidx(out);
    schedule_like(f, out);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 2);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 64, 1, 128, 1, 512);
        check_order(TS, s, "T1[threadIdx.x] = T0[", "] = T1[threadIdx.x];");
        /* each thread reads back only the cell it wrote: no barrier needed */
        CHECK_LACKS(s, "__syncthreads();");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(smem_producer_on_16_of_32_threads_predicates_tidx_below_16) {
    int64_t shape[2] = {64, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(mid);
    wf_output(f, out);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    bidx_tidx(out);
    wf_tv_split(mid, 1, 16); /* [64, 2, 16] */
    wf_tv_parallelize(mid, 0, WF_BIDX);
    wf_tv_parallelize(mid, 2, WF_TIDX);
    wf_tv_inline_at(mid, 1);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        const char *s = wf_kernel_source(k);
        check_launch(TS, k, 64, 1, 32, 1, 128);
        /* 32 threads are launched; only 16 may write the 32-float tile */
        CHECK_HAS(s, "if (threadIdx.x < 16) {\n"
                     "      T1[i0 * 16 + threadIdx.x] = ");
        CHECK_HAS(s, "__syncthreads();");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

/* ---- printers ---- */

/* Run print into a memory stream and return the text (caller frees). */
static char *print_to_string(void (*print)(const wf_fusion *, FILE *), const wf_fusion *f) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return NULL;
    print(f, m);
    fclose(m);
    return buf;
}

/* The seed's [BIDx{2}, TIDx{3}, 5, (CA), BIDy{7}, TIDy{11}] schedule. */
static wf_fusion *seed_notation_fusion(wf_tv **mid) {
    int64_t shape[5] = {2, 3, 5, 7, 11};
    wf_fusion *f = wf_fusion_new();
    *mid = wf_set(wf_input(f, WF_F32, 5, shape));
    wf_tv *out = wf_set(*mid);
    wf_output(f, out);
    bidx_tidx(out);
    wf_tv_parallelize(out, 3, WF_BIDY);
    wf_tv_parallelize(out, 4, WF_TIDY);
    wf_propagate_transforms(out);
    wf_parallelize_all_like(out, 0);
    wf_inline_all_at(out, 3);
    return f;
}

TEST(print_transforms_uses_seed_notation_with_ca_marker) {
    wf_tv *mid;
    wf_fusion *f = seed_notation_fusion(&mid);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 3);
    char *text = print_to_string(wf_print_transforms, f);
    CHECK_HAS(text, " T0[2, 3, 5, 7, 11]\n");
    CHECK_HAS(text, " T1[BIDx{2}, TIDx{3}, 5, (CA), BIDy{7}, TIDy{11}]\n");
    CHECK_HAS(text, " T2[BIDx{2}, TIDx{3}, 5, (CA), BIDy{7}, TIDy{11}]\n");
    CHECK_HAS(text, "] ca_pos( 3 )\n logical domain : (");
    free(text);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 2, 7, 3, 11, 0);
        CHECK_HAS(wf_kernel_source(k), "for (wf_index i0 = 0; i0 < 5; ++i0) {\n"
                                       "    float T1[1];\n");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(print_transforms_shows_split_and_full_inline_of_2x3_copy) {
    int64_t shape[2] = {2, 3};
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_set(mid);
    wf_output(f, out);
    bidx_tidx(out);
    schedule_like(f, out);
    char *text = print_to_string(wf_print_transforms, f);
    CHECK_HAS(text, " T1[BIDx{2}, TIDx{3}, (CA)]\n");
    CHECK_HAS(text, " T2[BIDx{2}, TIDx{3}, (CA)]\n");
    CHECK_HAS(text, "T1_l_float[iblockIdx.x");
    free(text);
    text = print_to_string(wf_print_math, f);
    CHECK_HAS(text, "%kernel_math {\n");
    CHECK_HAS(text, "   = Set( T0_g_float[iS0{2}, iS1{3}] )\n");
    CHECK_HAS(text, "   = Set( T1_l_float[");
    free(text);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_launch(TS, k, 2, 1, 3, 1, 0);
        CHECK_HAS(wf_kernel_source(k), "float T1[1];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}

TEST(print_math_lists_a_cache_chain_in_topological_order) {
    int64_t n = 1024;
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 1, &n);
    wf_tv *out = wf_set(in);
    wf_output(f, out);
    wf_tv *load = wf_cache_after(in);    /* T2 = Set(T0) */
    wf_tv *store = wf_cache_before(out); /* T3 = Set(T2), T1 = Set(T3) */
    CHECK_EQ_I64(wf_tv_name(load), 2);
    CHECK_EQ_I64(wf_tv_name(store), 3);
    char *text = print_to_string(wf_print_math, f);
    /* each definition is printed before its first use */
    check_order(TS, text, "   = Set( T0_g_float[", "   = Set( T2_l_float[");
    check_order(TS, text, "   = Set( T2_l_float[", "   = Set( T3_l_float[");
    free(text);
    split_bidx_tidx(out, 128);
    schedule_like(f, out);
    wf_kernel *k = CHECK_INTERP(f, sym_sizes);
    if (k) {
        check_order(TS, wf_kernel_source(k), "T2[0] = T0[", "T3[0] = T2[0];");
        nvrtc_and_free(TS, k);
    }
    wf_fusion_free(f);
}
