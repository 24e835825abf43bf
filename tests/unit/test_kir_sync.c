/*
 * test_kir_sync.c -- the kernel IR's synchronisation nodes, built by hand:
 * mbarrier init / arrive-expect-tx / complete-tx / wait and the async-proxy
 * fence, put in front of a lowered 32-thread copy kernel. The printer names
 * them, codegen emits PTX that NVRTC accepts for sm_90, and the executor
 * models the phase and transaction count: a wait for a phase that never
 * completes is a deadlock, reported with the counts still pending; more
 * bytes than expected, and a phase unfinished when the block ends, are
 * reported too.
 */
#include "codegen/codegen.h"
#include "harness.h"
#include "lower/lower.h"
#include "runtime/interp.h"

#include <stdlib.h>

typedef struct {
    wf_fusion *f;
    lower_result r;
    int n; /* nodes put in front so far */
} handmade;

/* T1 = set(T0) over 32 floats, one per thread of one block. */
static bool copy32(handmade *h) {
    int64_t shape[1] = {32};
    h->f = wf_fusion_new();
    h->n = 0;
    wf_tv *a = wf_input(h->f, WF_F32, 1, shape);
    wf_tv *b = wf_set(a);
    wf_output(h->f, b);
    wf_tv_parallelize(b, 0, WF_TIDX);
    return lower_fusion(h->f, &(lower_options){.sm = 90}, &h->r);
}

/* Append an mbarrier-0 node to the front part of the kernel. */
static void put(handmade *h, kir_sync_kind k, int64_t arg) {
    kir_node *n = kir_new_sync(&h->r.arena, k);
    if (k == KSYNC_MBAR_INIT)
        n->u.sync.count = arg;
    else if (k == KSYNC_MBAR_WAIT)
        n->u.sync.phase = arg;
    else if (k != KSYNC_FENCE_PROXY_ASYNC)
        n->u.sync.bytes = val_const(&h->r.arena, arg);
    kir_insert(&h->r.arena, &h->r.top, h->n++, n, NULL);
}

static wf_kernel *build(handmade *h) {
    char *src = cg_emit_cuda(&h->r);
    wf_kernel *k = src ? rt_kernel_new(&h->r, src) : NULL;
    free(src);
    if (k && !rt_interp_build(k, &h->r)) {
        rt_kernel_free(k);
        return NULL;
    }
    return k;
}

/* Runs on backend `be`; the output must be the input when it succeeds. */
static wf_status run_on(test_state *ts_, wf_kernel *k, wf_backend be) {
    float in[32], out[32];
    for (int i = 0; i < 32; i++)
        in[i] = (float)i, out[i] = -1;
    wf_buffer a = {in, WF_F32, 1, {32}, {0}, -1}, b = {out, WF_F32, 1, {32}, {0}, -1};
    wf_status s = wf_run(k, be, &a, 1, &b, 1);
    for (int i = 0; s == WF_OK && i < 32; i++)
        CHECK(out[i] == in[i]);
    return s;
}

static wf_status run(test_state *ts_, wf_kernel *k) {
    return run_on(ts_, k, WF_BACKEND_INTERP);
}

static void done(handmade *h, wf_kernel *k) {
    wf_kernel_free(k);
    lower_result_free(&h->r);
    wf_fusion_free(h->f);
}

TEST(kir_sync_mbarrier_phase_completes_printed_emitted_and_run) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 32);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 4);
    put(&h, KSYNC_MBAR_COMPLETE_TX, 4);
    put(&h, KSYNC_MBAR_WAIT, 0);
    put(&h, KSYNC_FENCE_PROXY_ASYNC, 0);
    sbuf b = {0};
    kir_print(&b, &h.r.top);
    CHECK_HAS(sbuf_str(&b), "MBAR_INIT 0 count=32\nMBAR_ARRIVE_EXPECT_TX 0 bytes=4\n"
                            "MBAR_COMPLETE_TX 0 bytes=4\nMBAR_WAIT 0 phase=0\nFENCE_PROXY_ASYNC\n");
    sbuf_free(&b);
    wf_kernel *k = build(&h);
    CHECK(k != NULL);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "  __shared__ __align__(8) unsigned long long wf_mbar[1];\n");
        CHECK_HAS(src, "mbarrier.init.shared::cta.b64 [%0], %1;");
        CHECK_HAS(src, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;");
        CHECK_HAS(src, "mbarrier.complete_tx.shared::cta.b64 [%0], %1;");
        CHECK_HAS(src, "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;");
        CHECK_HAS(src, "fence.proxy.async.shared::cta;");
        CHECK_EQ_I64(run(ts_, k), WF_OK);
        CHECK_NVRTC(k, 90);
        /* On a GPU (sm_90 or later) the phase completes and the wait returns. */
        if (wf_cuda_available())
            CHECK_EQ_I64(run_on(ts_, k, WF_BACKEND_CUDA), WF_OK);
    }
    done(&h, k);
}

TEST(kir_sync_mbarrier_wait_for_missing_transactions_is_a_deadlock) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 32);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 4); /* 32 threads expect 4 bytes each; nothing completes them */
    put(&h, KSYNC_MBAR_WAIT, 0);
    wf_kernel *k = build(&h);
    CHECK(k != NULL);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "deadlock: block (0, 0, 0) waits on mbarrier 0 for phase 0, which never "
                  "completes: 0 of 32 arrivals and 128 transaction bytes are still pending");
    }
    done(&h, k);
}

TEST(kir_sync_mbarrier_missing_arrivals_is_a_deadlock) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 64); /* 64 arrivals a phase, but the block has 32 threads */
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0);
    put(&h, KSYNC_MBAR_WAIT, 0);
    wf_kernel *k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "deadlock: block (0, 0, 0) waits on mbarrier 0 for phase 0, which never "
                  "completes: 32 of 64 arrivals and 0 transaction bytes are still pending");
    }
    done(&h, k);
}

TEST(kir_sync_mbarrier_phases_advance_and_parity_is_checked) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 32);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0); /* phase 0 completes */
    put(&h, KSYNC_MBAR_WAIT, 0);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0); /* phase 1 completes */
    put(&h, KSYNC_MBAR_WAIT, 1);
    put(&h, KSYNC_MBAR_WAIT, 0); /* parity 0 now names phase 2, which is running */
    wf_kernel *k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "block (0, 0, 0) waits on mbarrier 0 for phase 0, but it is in phase 2; a "
                  "parity wait only tells the current phase from the one before");
        CHECK_HAS(wf_kernel_source(k), "\"r\"(1u)"); /* the wait for phase 1 tests parity 1 */
    }
    done(&h, k);
}

TEST(kir_sync_mbarrier_use_before_init_and_extra_arrivals_are_reported) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_WAIT, 0);
    wf_kernel *k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "block (0, 0, 0) uses mbarrier 0 before it is initialized (mbarrier.init)");
    }
    done(&h, k);
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 16);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0);
    k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "mbarrier 0 receives 16 more arrivals in phase 0 than the 16 it was "
                  "initialized for");
    }
    done(&h, k);
}

/* Block 0 initializes its mbarrier; block 1 does not, and its own is fresh. */
TEST(kir_sync_mbarrier_state_is_per_block) {
    int64_t shape[1] = {64};
    handmade h = {.f = wf_fusion_new()};
    wf_tv *a = wf_input(h.f, WF_F32, 1, shape);
    wf_tv *b = wf_set(a);
    wf_output(h.f, b);
    wf_tv_split(b, 0, 32);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    CHECK(lower_fusion(h.f, &(lower_options){.sm = 90}, &h.r));
    wf_arena *ar = &h.r.arena;
    kir_node *only0 = kir_new(ar, KIR_IF), *init = kir_new_sync(ar, KSYNC_MBAR_INIT);
    const wf_val *bid = val_sym(ar, SYM_BID, 0, 0, "blockIdx.x", 0, 1, NULL);
    only0->u.cond.cond = val_lt(ar, bid, val_const(ar, 1));
    init->u.sync.count = 32;
    kir_append(ar, &only0->u.cond.body, init, only0);
    kir_insert(ar, &h.r.top, h.n++, only0, NULL);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0);
    put(&h, KSYNC_MBAR_WAIT, 0);
    wf_kernel *k = build(&h);
    if (k) {
        float in[64], out[64];
        wf_buffer x = {in, WF_F32, 1, {64}, {0}, -1}, y = {out, WF_F32, 1, {64}, {0}, -1};
        for (int i = 0; i < 64; i++)
            in[i] = (float)i;
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "block (1, 0, 0) uses mbarrier 0 before it is initialized (mbarrier.init)");
        CHECK_HAS(wf_kernel_source(k), "if (blockIdx.x < 1) {");
    }
    done(&h, k);
}

/* More bytes completed than the arrivals expect: reported when they land. */
TEST(kir_sync_mbarrier_more_bytes_than_expected_are_reported) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 32);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 4);   /* 128 bytes expected */
    put(&h, KSYNC_MBAR_COMPLETE_TX, 8); /* 256 complete */
    wf_kernel *k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "block (0, 0, 0): asynchronous copies complete 256 transaction bytes on "
                  "mbarrier 0 in phase 0, but its arrivals expect only 128 (0 of 32 arrivals "
                  "still to come)");
    }
    done(&h, k);
}

/* A phase that never completes, with nobody waiting on it (no hang, but the
   arrivals differ from the count): reported at the end of the block. */
TEST(kir_sync_mbarrier_unfinished_phase_at_the_end_of_the_block_is_reported) {
    handmade h;
    CHECK(copy32(&h));
    put(&h, KSYNC_MBAR_INIT, 64);
    put(&h, KSYNC_MBAR_ARRIVE_TX, 0); /* 32 of the 64 arrivals */
    wf_kernel *k = build(&h);
    if (k) {
        CHECK_EQ_I64(run(ts_, k), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "block (0, 0, 0) ends in the middle of phase 0 of mbarrier 0: 32 of 64 "
                  "arrivals and 0 transaction bytes are still pending");
    }
    done(&h, k);
}
