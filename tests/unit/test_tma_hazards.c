/*
 * test_tma_hazards.c -- the executor's model of a TMA load's completion:
 * what the copy wrote is in flight until a thread waits on its mbarrier, so
 * a kernel whose wait is missing (built here by removing it from the
 * lowered kernel IR, as a lowering bug would) reads in-flight shared memory
 * and is reported, naming the tensor, the thread and the statement; one
 * whose mbarrier expects fewer bytes than the copy completes is reported too.
 */
#include "codegen/codegen.h"
#include "harness.h"
#include "lower/lower.h"
#include "runtime/interp.h"

#include <stdlib.h>

/* Remove every node of kind k from the tree. */
static void drop_sync(kir_list *l, kir_sync_kind k) {
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        kir_list *body = kir_body(n);
        if (body)
            drop_sync(body, k);
        if (n->kind == KIR_SYNC && n->u.sync.kind == k) {
            memmove(&l->ptr[i], &l->ptr[i + 1], sizeof *l->ptr * (size_t)(l->n - i - 1));
            l->n--;
            i--;
        }
    }
}

static wf_fusion *load_copy(int64_t n) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_set(wf_input(f, WF_F32, 1, shape)), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv *t[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(t[i], 0, 128);
        wf_tv_parallelize(t[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(o, 1, WF_TIDX);
    return f;
}

/* Halve the transaction bytes every arrive.expect_tx announces. */
static void halve_bytes(kir_list *l, wf_arena *a) {
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        if (kir_body(n))
            halve_bytes(kir_body(n), a);
        if (n->kind == KIR_SYNC && n->u.sync.kind == KSYNC_MBAR_ARRIVE_TX)
            n->u.sync.bytes = val_const(a, n->u.sync.bytes->c / 2);
    }
}

/* The 512-float copy, lowered, broken by hand (sync nodes of kinds k1 and k2
   removed; with `halve`, the bytes expected halved), run on the executor. */
static wf_status run_broken_n(test_state *ts_, int64_t len, kir_sync_kind k1, kir_sync_kind k2,
                              bool halve, char *msg, size_t n) {
    wf_fusion *f = load_copy(len);
    lower_result r;
    wf_status st = WF_ERR_UNSUPPORTED;
    CHECK(lower_fusion(f, &(lower_options){.sm = 90}, &r));
    drop_sync(&r.top, k1);
    drop_sync(&r.top, k2);
    if (halve)
        halve_bytes(&r.top, &r.arena);
    char *src = cg_emit_cuda(&r);
    wf_kernel *k = src ? rt_kernel_new(&r, src) : NULL;
    free(src);
    if (k && rt_interp_build(k, &r)) {
        float in[512], out[512];
        for (int i = 0; i < len; i++)
            in[i] = (float)i;
        wf_buffer x = {in, WF_F32, 1, {len}, {0}, -1}, y = {out, WF_F32, 1, {len}, {0}, -1};
        st = wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1);
        snprintf(msg, n, "%s", wf_last_run_error(k));
        for (int i = 0; st == WF_OK && i < len; i++)
            CHECK(out[i] == in[i]);
    } else {
        CHECK(false);
    }
    rt_kernel_free(k);
    lower_result_free(&r);
    wf_fusion_free(f);
    return st;
}

static wf_status run_broken(test_state *ts_, kir_sync_kind k1, kir_sync_kind k2, bool halve,
                            char *msg, size_t n) {
    return run_broken_n(ts_, 512, k1, k2, halve, msg, n);
}

static wf_status run_without(test_state *ts_, kir_sync_kind k1, kir_sync_kind k2, char *msg,
                             size_t n) {
    return run_broken(ts_, k1, k2, false, msg, n);
}

TEST(tma_hazard_read_before_the_mbarrier_wait_is_reported) {
    char msg[1024];
    CHECK_EQ_I64(run_without(ts_, KSYNC_MBAR_WAIT, KSYNC_MBAR_INVAL, msg, sizeof msg),
                 WF_ERR_SCHEDULE);
    CHECK_STR(msg,
              "read of T1[0] (shared memory) by thread (0, 0, 0) of block (0, 0, 0) before "
              "the mbarrier wait of the TMA load that writes it: the copy may still be in "
              "flight, in statement: T2[blockIdx.x * 128 + threadIdx.x] = Set(T1[threadIdx.x])");
}

TEST(tma_hazard_missing_barrier_after_the_wait_is_a_race) {
    char msg[1024];
    CHECK_EQ_I64(run_without(ts_, KSYNC_BLOCK, KSYNC_BLOCK, msg, sizeof msg), WF_ERR_SCHEDULE);
    CHECK_HAS(msg, "shared-memory race on T1[1]: thread (1, 0, 0) of block (0, 0, 0) reads it "
                   "after thread (0, 0, 0) wrote it with no barrier in between");
}

TEST(tma_hazard_unchanged_kernel_runs) {
    char msg[1024];
    CHECK_EQ_I64(
        run_without(ts_, KSYNC_FENCE_PROXY_ASYNC, KSYNC_FENCE_PROXY_ASYNC, msg, sizeof msg), WF_OK);
    /* 500 floats: the last box is partial */
    CHECK_EQ_I64(run_broken_n(ts_, 500, KSYNC_FENCE_PROXY_ASYNC, KSYNC_FENCE_PROXY_ASYNC, false,
                              msg, sizeof msg),
                 WF_OK);
}

/* The copy completes 512 bytes on an mbarrier whose arrival expects 256: on a
   GPU the wait would never return. Reported where the bytes land, not only at
   a wait. */
TEST(tma_hazard_copy_completes_more_bytes_than_expected) {
    char msg[1024];
    CHECK_EQ_I64(
        run_broken(ts_, KSYNC_FENCE_PROXY_ASYNC, KSYNC_FENCE_PROXY_ASYNC, true, msg, sizeof msg),
        WF_ERR_SCHEDULE);
    CHECK_STR(msg, "block (0, 0, 0): asynchronous copies complete 512 transaction bytes on "
                   "mbarrier 0 in phase 0, but its arrivals expect only 256 (0 of 1 arrivals "
                   "still to come)");
}
