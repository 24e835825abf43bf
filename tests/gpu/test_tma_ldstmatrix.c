/*
 * test_tma_ldstmatrix.c -- seed 002's LdStMatrixSet on the device: a bf16
 * copy by TMA load (128-byte swizzle) -> ldmatrix.x4 -> registers in the
 * wgmma accumulator layout -> stmatrix.x4 -> TMA store (128-byte swizzle),
 * as tests/ldstmatrix_fixture.h builds it through the public API (the CPU
 * suite runs the same schedules on the executor: test_ldstmatrix_seed.c).
 * Here at the seed's 8192 x 8192, at a size the CTA tiles and TMA boxes do
 * not divide, and with the other swizzles and CTA tile; each compared bit for
 * bit with its random input on host and on device buffers (gt_check). The
 * names start with "tma" so that tools/gpu-check.sh runs them under the TMA
 * tests' time limit (a kernel waiting on an mbarrier that never completes
 * hangs).
 */
#include "gpu.h"

#include "../ldstmatrix_fixture.h"

static lsm_params seed_params(int64_t m, int64_t n) {
    lsm_params p = lsm_seed_params(m, n);
    p.reg_kind = WF_LDST_LDMATRIX;
    p.smem_kind = WF_LDST_STMATRIX;
    p.inner = WF_VECTORIZE;
    return p;
}

static void expect_copy(gt_state *ts_, const lsm_params *p) {
    NEED_GPU();
    wf_fusion *f = lsm_build(p, NULL);
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "ldmatrix.sync.aligned.x4.m8n8.shared.b16");
        CHECK_HAS(src, "stmatrix.sync.aligned.x4.m8n8.shared.b16");
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        int64_t shape[2] = {p->m, p->n};
        gt_tensor in = gt_dense(WF_BF16, 2, shape), want = gt_dense(WF_BF16, 2, shape);
        gt_fill_random(&in);
        memcpy(want.data, in.data, sizeof(uint16_t) * (size_t)gt_numel(&in));
        gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
        CHECK_RUN(&c);
        gt_tensor_free(&in);
        gt_tensor_free(&want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(tma_ldstmatrix_seed_8192_bf16_bit_exact) {
    lsm_params p = seed_params(8192, 8192);
    expect_copy(ts_, &p);
}

/* 8000 = 62.5 CTA tiles of 128 rows, 8040 = 31.4 of 256 columns (125.6 TMA
   boxes of 64): the last tiles are partial (the TMA load zero-fills, the
   store clips; rows of 8040 bf16 are 16-byte multiples, as TMA needs). */
GPU_TEST(tma_ldstmatrix_seed_partial_tiles_8000x8040) {
    lsm_params p = seed_params(8000, 8040);
    expect_copy(ts_, &p);
}

GPU_TEST(tma_ldstmatrix_swizzle_64_and_32) {
    for (int sw = 64; sw >= 32; sw /= 2) {
        lsm_params p = seed_params(2048, 2048);
        p.swizzle_bytes = sw;
        expect_copy(ts_, &p);
    }
}

GPU_TEST(tma_ldstmatrix_cta_tile_64x128) {
    lsm_params p = seed_params(2048, 1920);
    p.cta_m = 64;
    p.cta_n = 128;
    p.warp_n = 128;
    expect_copy(ts_, &p);
}

/* Four CTA tiles of 64 x 128 a block, the TMA load circular-buffered over them
   (2 and 3 stages), at the seed's size and at one the tiles do not divide. */
GPU_TEST(tma_ldstmatrix_circular_buffered_8192_and_8000x8040) {
    int64_t sizes[2][2] = {{8192, 8192}, {8000, 8040}};
    for (int stages = 2; stages <= 3; stages++)
        for (int i = 0; i < 2; i++) {
            lsm_params p = seed_params(sizes[i][0], sizes[i][1]);
            lsm_circular(&p, 4, stages);
            expect_copy(ts_, &p);
        }
}
