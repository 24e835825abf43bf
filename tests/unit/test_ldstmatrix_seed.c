/*
 * test_ldstmatrix_seed.c -- seed 002's LdStMatrixSet example as the seed
 * writes it (tests/ldstmatrix_fixture.h): TMA load into 128-byte swizzled
 * shared memory, ldmatrix.x4 into registers laid out as the wgmma
 * accumulator, stmatrix.x4 into a swizzled shared tile, TMA store. Bit-exact
 * on the executor at 512 x 512 and at sizes the tiles do not divide, with the
 * other swizzles and another CTA tile; the exact PTX in the source, no bank
 * conflict on either shared access, and NVRTC for sm_90a.
 */
#include "harness.h"
#include "ldstmatrix_fixture.h"

#include <string.h>

static lsm_params seed_params(int64_t m, int64_t n) {
    lsm_params p = lsm_seed_params(m, n);
    p.reg_kind = WF_LDST_LDMATRIX;
    p.smem_kind = WF_LDST_STMATRIX;
    p.inner = WF_VECTORIZE;
    return p;
}

static void run_case(test_state *ts_, const lsm_params *p) {
    lsm_tensors t;
    wf_fusion *f = lsm_build(p, &t);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_fusion_free(f);
    if (!k)
        return;
    const char *src = wf_kernel_source(k);
    CHECK_HAS(src, "ldmatrix.sync.aligned.x4.m8n8.shared.b16");
    CHECK_HAS(src, "stmatrix.sync.aligned.x4.m8n8.shared.b16");
    CHECK_LACKS(src, ".trans");
    /* the stmatrix writes reach the TMA store through the async proxy */
    const char *st = strstr(src, "stmatrix.sync");
    const char *fence = st ? strstr(st, "fence.proxy.async") : NULL;
    const char *sync = fence ? strstr(fence, "__syncthreads()") : NULL;
    CHECK(sync && strstr(sync, ".global.shared::cta.tile.bulk_group"));
    wf_access_stats s;
    memset(&s, 0, sizeof s);
    wf_interp_stats(k, &s);
    CHECK_EQ_I64(s.smem_max_conflict_degree, 1);
    CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
}

TEST(ldstmatrix_seed_schedule_512_bit_exact) {
    lsm_params p = seed_params(512, 512);
    run_case(ts_, &p);
}

TEST(ldstmatrix_seed_partial_tiles_320x200) {
    lsm_params p = seed_params(320, 200);
    run_case(ts_, &p);
}

TEST(ldstmatrix_seed_swizzle_64_and_32) {
    for (int sw = 64; sw >= 32; sw /= 2) {
        lsm_params p = seed_params(512, 512);
        p.swizzle_bytes = sw;
        run_case(ts_, &p);
    }
}

TEST(ldstmatrix_seed_cta_tile_64x128) {
    lsm_params p = seed_params(512, 384);
    p.cta_m = 64;
    p.cta_n = 128;
    p.warp_n = 128;
    run_case(ts_, &p);
}

/* Several CTA tiles a block, the TMA load circular-buffered over them: the
   ldmatrix of iteration i reads stage i % D, its row addresses included
   (they read stage 0 in every iteration before: the executor reported the
   read of a stage still being loaded). 2 and 3 stages, at sizes the block's
   4 tiles divide and do not (the last block's tiles past the end load zeros,
   their stores are clipped). */
TEST(ldstmatrix_seed_circular_buffered_tiles_per_block) {
    int64_t sizes[2][2] = {{512, 384}, {320, 200}};
    for (int stages = 2; stages <= 3; stages++)
        for (int i = 0; i < 2; i++) {
            lsm_params p = seed_params(sizes[i][0], sizes[i][1]);
            lsm_circular(&p, 4, stages);
            run_case(ts_, &p);
        }
}
