/*
 * test_interp.c -- the CPU reference executor: correct outputs for typical
 * schedules, deliberately broken kernels caught (a shared tile read without
 * its barrier, an index that overruns, a register read before any write),
 * and the access statistics a profiler would show: bank conflicts of a
 * transposed 32 x 32 shared tile with and without an XOR swizzle, and 32-byte
 * sectors of coalesced warp accesses.
 */
#include <stdlib.h>

#include "api/api.h"
#include "fixtures.h"
#include "harness.h"
#include "ir/ir.h"
#include "ref.h"

/* Compile with lowering passes dropped: a deliberately broken kernel. */
static wf_kernel *compile_skipping(wf_fusion *f, const char *skip) {
    lower_options o = {0};
    wf_err e = {0};
    return lower_options_parse(&o, NULL, skip, &e) ? api_compile(f, NULL, &o) : NULL;
}

static wf_fusion *tiled_transpose(int64_t rows, int64_t cols, bool swizzle) {
    return fx_tiled_transpose(rows, cols, swizzle ? FX_SWIZZLE_ALLOC : FX_PLAIN, NULL);
}

TEST(interp_tiled_transpose_is_exact) {
    wf_fusion *f = tiled_transpose(96, 64, false);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(interp_stats_transposed_tile_read_is_32_way_conflict) {
    wf_fusion *f = tiled_transpose(64, 64, false);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_access_stats st;
    if (k && wf_interp_stats(k, &st) == WF_OK) {
        /* 4 blocks x 32 warps, one shared write and one shared read each. */
        CHECK_EQ_I64(st.smem_accesses, 4 * 32 * 2);
        CHECK_EQ_I64(st.smem_max_conflict_degree, 32);
        CHECK_EQ_I64(st.smem_wavefronts, 4 * 32 * (1 + 32));
    } else {
        CHECK(false);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(interp_stats_swizzled_tile_has_no_conflict) {
    wf_fusion *f = tiled_transpose(64, 64, true);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_access_stats st;
    if (k && wf_interp_stats(k, &st) == WF_OK) {
        CHECK_HAS(wf_kernel_source(k), " ^ ");
        CHECK_EQ_I64(st.smem_accesses, 4 * 32 * 2);
        CHECK_EQ_I64(st.smem_max_conflict_degree, 1);
        CHECK_EQ_I64(st.smem_wavefronts, st.smem_accesses);
    } else {
        CHECK(false);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static wf_fusion *pointwise_copy(int64_t n, int64_t block) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_split(b, 0, block);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    return f;
}

TEST(interp_stats_coalesced_f32_warp_access_is_4_sectors) {
    wf_fusion *f = pointwise_copy(4096, 128);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_access_stats st;
    if (k && wf_interp_stats(k, &st) == WF_OK) {
        /* 4096 threads = 128 warps, each one read and one write of 128 bytes. */
        CHECK_EQ_I64(st.gmem_accesses, 256);
        CHECK_EQ_I64(st.gmem_sectors, 256 * 4);
        CHECK_EQ_I64(st.smem_accesses, 0);
    } else {
        CHECK(false);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static wf_status run_copy(wf_kernel *k, wf_tv *input, wf_tv *output, char *msg, size_t n) {
    wf_buffer in = ref_buffer(input->f, input, NULL), out = ref_buffer(output->f, output, NULL);
    ref_fill_random(&in, 3);
    ref_poison(&out);
    wf_status s = wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1);
    snprintf(msg, n, "%s", wf_last_run_error(k));
    ref_free(&in);
    ref_free(&out);
    return s;
}

TEST(interp_same_thread_shared_reuse_needs_no_barrier) {
    int64_t shape[1] = {64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *s = wf_set(a);
    wf_tv *b = wf_set(s);
    wf_output(f, b);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_tv_parallelize(b, 0, WF_TIDX);
    wf_kernel *k = compile_skipping(f, "sync");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_LACKS(wf_kernel_source(k), "__syncthreads");
        /* Each thread reads the cell it wrote itself: no race without a barrier. */
        CHECK_EQ_I64(run_copy(k, a, b, msg, sizeof msg), WF_OK);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_catches_shared_tile_read_without_barrier) {
    wf_fusion *f = tiled_transpose(64, 64, false);
    wf_kernel *k = compile_skipping(f, "sync");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_LACKS(wf_kernel_source(k), "__syncthreads");
        CHECK_EQ_I64(run_copy(k, f->inputs.ptr[0], f->outputs.ptr[0], msg, sizeof msg),
                     WF_ERR_SCHEDULE);
        /* Thread (0, 0) of block (0, 0) reads T2[0 * 32 + 0]... the first racy read is the
           one of thread (1, 0): it reads T2[1 * 32 + 0], written by thread (0, 1). */
        CHECK_STR(msg, "shared-memory race on T2[32]: thread (1, 0, 0) of block (0, 0, 0) reads "
                       "it after thread (0, 1, 0) wrote it with no barrier in between, in "
                       "statement: T1[blockIdx.y * 2048 + threadIdx.y * 64 + blockIdx.x * 32 + "
                       "threadIdx.x] = Permute(T2[threadIdx.x * 32 + threadIdx.y])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_catches_overrunning_index) {
    wf_fusion *f = pointwise_copy(1000, 128);
    wf_kernel *k = compile_skipping(f, "predicate");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_LACKS(wf_kernel_source(k), "< 1000");
        CHECK_EQ_I64(run_copy(k, f->inputs.ptr[0], f->outputs.ptr[0], msg, sizeof msg),
                     WF_ERR_SCHEDULE);
        CHECK_STR(msg, "out-of-bounds read of T0: index 1000 is outside its 1000 elements, by "
                       "thread (104, 0, 0) of block (7, 0, 0), in statement: T1[blockIdx.x * 128 "
                       "+ threadIdx.x] = Set(T0[blockIdx.x * 128 + threadIdx.x])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_predicated_nondivisible_split_is_exact) {
    wf_fusion *f = pointwise_copy(1000, 128);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK(k && strstr(wf_kernel_source(k), "< 1000"));
    wf_kernel_free(k);
    wf_fusion_free(f);
}
