/*
 * test_tma_box_loop.c -- a loop of TMA boxes (lower/copy_tma.c, box_loop):
 * the loads of one loop issue under one mbarrier phase (one init, one
 * arrive.expect_tx with every box's bytes, one wait), and a loop of stores
 * commits each box and waits for their shared-memory reads once after the
 * loop. Seed 002's LdStMatrixSet kernel (4 boxes of 64 x 64 per warp
 * group) at sizes its tiles do not divide, bit-exact on the executor (which
 * checks that the bytes expected equal the bytes that arrive, zero-filled
 * parts of a box included), with two issuing threads (TIDy) and with one
 * (elect.sync).
 */
#include "harness.h"
#include "ldstmatrix_fixture.h"

#include <string.h>

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static void run_case(test_state *ts_, lsm_params p, const char *expect_tx) {
    p.reg_kind = WF_LDST_LDMATRIX;
    p.smem_kind = WF_LDST_STMATRIX;
    p.inner = WF_VECTORIZE;
    lsm_tensors t;
    wf_fusion *f = lsm_build(&p, &t);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_fusion_free(f);
    if (!k)
        return;
    const char *src = wf_kernel_source(k);
    CHECK_EQ_I64(count(src, "mbarrier.init"), 1);
    CHECK_EQ_I64(count(src, "mbarrier.arrive.expect_tx"), 1);
    CHECK_EQ_I64(count(src, "mbarrier.try_wait"), 1);
    CHECK_EQ_I64(count(src, "mbarrier.inval"), 1);
    CHECK_HAS(src, expect_tx);
    /* the expect_tx and the wait lie outside the loop of the 4 box loads */
    const char *tx = strstr(src, "mbarrier.arrive.expect_tx");
    const char *loop = tx ? strstr(tx, "for (wf_index i0 = 0; i0 < 4; ++i0)") : NULL;
    const char *load = loop ? strstr(loop, "cp.async.bulk.tensor.2d.shared::cluster") : NULL;
    const char *end = load ? strstr(load, "\n  }\n") : NULL;
    const char *wait = end ? strstr(end, "mbarrier.try_wait") : NULL;
    CHECK(wait != NULL);
    /* stores: a commit per box in the loop, one wait_group.read after it */
    CHECK_EQ_I64(count(src, "cp.async.bulk.commit_group"), 1);
    CHECK_EQ_I64(count(src, "cp.async.bulk.wait_group.read 0"), 1);
    const char *sl = strstr(src, "for (wf_index i2 = 0; i2 < 4; ++i2)");
    const char *commit = sl ? strstr(sl, "cp.async.bulk.commit_group") : NULL;
    const char *send = commit ? strstr(commit, "\n  }\n") : NULL;
    const char *read = send ? strstr(send, "cp.async.bulk.wait_group.read 0") : NULL;
    CHECK(read != NULL);
    CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
}

/* CTA 128 x 256: two warp groups (TIDy) each issue their 4 boxes of 8192 bytes */
TEST(tma_box_loop_ldstmatrix_two_issuers_320x200) {
    run_case(ts_, lsm_seed_params(320, 200), "\"r\"((unsigned)(32768))");
}

/* CTA 64 x 256: one issuing thread (elect.sync), 4 boxes */
TEST(tma_box_loop_ldstmatrix_one_issuer_200x328) {
    lsm_params p = lsm_seed_params(200, 328);
    p.cta_m = 64;
    run_case(ts_, p, "\"r\"((unsigned)(32768))");
}
