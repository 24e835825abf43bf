/*
 * test_ldstmatrix_set.c -- seed 002's LdStMatrixSet example with plain copies
 * (WF_LDST_SET) in place of ldmatrix / stmatrix (tests/ldstmatrix_fixture.h):
 * TMA load into swizzled shared memory, registers and a swizzled shared
 * tile whose loop domains come from abstract tensors, TMA store. Exact on
 * the executor; compiled by NVRTC for sm_90a.
 */
#include "harness.h"
#include "ldstmatrix_fixture.h"

/* Build, check the inlining and the tensor maps, run exactly on the executor,
   compile with NVRTC for sm_90a. */
static void run_case(test_state *ts_, const lsm_params *p) {
    lsm_tensors t;
    wf_fusion *f = lsm_build(p, &t);
    CHECK_STR(wf_fusion_error(f), "");
    /* T2's and T3's loop domains, built independently, map: T2 is inlined into
       T3 all the way (its 8-element axis is serial here); the shared tiles at the
       warp tile, [BIDx, BIDy, TIDy, cta_n / warp_n]; with 16-element boxes (32-byte
       swizzle) T2's axis (no * nio) is no * 1, mapped to T1's box loop no: T1 is
       inlined one deeper, one box at a time; so is the output tile, whose own
       merge no * 1 iterates no, the TMA store's box loop (analysis/partner.c). */
    CHECK_EQ_I64(wf_tv_compute_at(t.regs), 7);
    CHECK_EQ_I64(wf_tv_compute_at(t.smem_in), p->swizzle_bytes == 32 ? 5 : 4);
    CHECK_EQ_I64(wf_tv_compute_at(t.smem_out), p->swizzle_bytes == 32 ? 5 : 4);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    if (k) {
        CHECK_EQ_I64(wf_kernel_tma_count(k), 2);
        for (int i = 0; i < 2; i++) {
            const wf_tma_info *m = wf_kernel_tma(k, i);
            CHECK_EQ_I64(m->is_store, i);
            CHECK_EQ_I64(m->swizzle_bytes, p->swizzle_bytes);
            CHECK_EQ_I64(m->box[0], p->swizzle_bytes / 2);
            CHECK(m->shared_tv == (i ? t.smem_out : t.smem_in));
        }
        /* both shared tiles are a warp tile per TIDy, swizzled boxes of 1024 bytes */
        CHECK_EQ_I64(wf_kernel_launch(k)->block[0], 128);
        CHECK_EQ_I64(wf_kernel_launch(k)->block[1], p->cta_m / p->warp_m);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(ldstmatrix_set_seed_schedule_512) {
    lsm_params p = lsm_seed_params(512, 512);
    run_case(ts_, &p);
}

/* 320 x 200: the CTA tiles do not divide either extent (the last row of tiles is
   half empty, the one column of tiles 200 of 256 wide): the TMA load zero-fills,
   the store clips, the register and shared copies are predicated. */
TEST(ldstmatrix_set_partial_tiles_320x200) {
    lsm_params p = lsm_seed_params(320, 200);
    run_case(ts_, &p);
}

/* The 64- and 32-byte swizzles: boxes 32 and 16 elements wide; the same abstract
   transforms from the box width on. */
TEST(ldstmatrix_set_swizzle_64_and_32) {
    for (int sw = 64; sw >= 32; sw /= 2) {
        lsm_params p = lsm_seed_params(512, 512);
        p.swizzle_bytes = sw;
        run_case(ts_, &p);
    }
}

/* Another CTA tile: 64 x 128 (one warp group per block, TIDy of extent 1). */
TEST(ldstmatrix_set_cta_tile_64x128) {
    lsm_params p = lsm_seed_params(512, 384);
    p.cta_m = 64;
    p.cta_n = 128;
    p.warp_n = 128;
    run_case(ts_, &p);
}
