/*
 * test_wgmma_pipeline.c -- the Hopper GEMM's main loop: A and B by TMA into
 * circular-buffered 128-byte-swizzled tiles that wgmma reads (the schedule
 * of examples/gemm_mma_sync.py's gemm_wgmma, in C). The loop keeps one wgmma
 * group in flight (wait_group 1), issues the next loads after that wait and
 * a barrier, and every thread waits on the stages' mbarriers; wait_group 0
 * follows the loop. The result is exact on the executor, also at sizes that
 * are not multiples of the tiles (and on a Hopper GPU where there is one);
 * and the executor's model of the groups in
 * flight catches the two hazards that the waits prevent, in kernels broken
 * by hand: a TMA load over a stage that a wgmma still reads, and the
 * accumulator read before the last group retires.
 */
#include "codegen/codegen.h"
#include "harness.h"
#include "lower/lower.h"
#include "mma_check.h"
#include "runtime/interp.h"

#include <stdlib.h>
#include <string.h>

/* C[M, N] = A[M, K] B[K, N] (f16, f32 accumulate) on wgmma.m64n{bn}k16: blocks
   of two warp groups (128 x bn of C), K steps of 64 over `stages` stages. */
static mm wgmma_gemm(int64_t M, int64_t N, int64_t K, int bn, int stages) {
    mm m;
    int64_t sa[2] = {M, K}, sb[2] = {K, N};
    m.f = wf_fusion_new();
    m.a = wf_input(m.f, WF_F16, 2, sa);
    m.b = wf_input(m.f, WF_F16, 2, sb);
    wf_tv *as = wf_set(m.a), *bs = wf_set(m.b);
    bool ba[3] = {false, false, true}, bb[3] = {true, false, false};
    wf_tv *xa = wf_broadcast(as, 3, ba), *xb = wf_broadcast(bs, 3, bb);
    int kaxis = 1;
    m.c = wf_mma(xa, xb, 1, &kaxis);
    wf_output(m.f, m.c);
    wf_tv *acc = wf_cache_before(m.c);
    wf_tv_set_memory(as, WF_MEM_SHARED);
    wf_tv_set_memory(bs, WF_MEM_SHARED);
    int mnk[3] = {0, 2, 1};
    wf_tv_reorder_all(acc, mnk); /* [M, N, rK] */
    wf_tv_split(acc, 0, 128);
    wf_tv_split(acc, 1, 64); /* [Mb, g, m64, N, rK] */
    wf_tv_split(acc, 3, bn); /* [Mb, g, m64, Nb, n, rK] */
    wf_tv_split(acc, 5, 64);
    wf_tv_split(acc, 6, 16); /* [Mb, g, m64, Nb, n, Ko, kt, k16] */
    int order[8] = {0, 2, 5, 1, 6, 3, 4, 7};
    wf_tv_reorder_all(acc, order); /* [Mb, Nb, g, Ko, kt, m64, n, k16] */
    wf_tv_parallelize(acc, 0, WF_BIDY);
    wf_tv_parallelize(acc, 1, WF_BIDX);
    wf_tv_parallelize(acc, 2, WF_TIDY);
    wf_compute_at(xa, acc, 5);
    wf_compute_at(xb, acc, 5);
    wf_compute_at(as, xa, 4);
    wf_compute_at(bs, xb, 4);
    wf_reverse_compute_at(m.c, acc, 3);
    wf_tv_merge(as, 4);
    wf_tv_merge(as, 5); /* [.., Ko, rows, K step]: one box */
    wf_tv_parallelize(as, 4, WF_BULK);
    wf_tv_parallelize(as, 5, WF_BULK);
    wf_tv_set_ldst(as, WF_LDST_TMA);
    wf_tv_tma_swizzle(as, 128);
    wf_tv_merge(bs, 4);
    wf_tv_split(bs, 5, 64);
    static const int swap[2][2] = {{4, 5}, {5, 4}};
    wf_tv_reorder(bs, 2, swap); /* [.., Ko, n / 64, K step, 64]: 128-byte boxes */
    wf_tv_parallelize(bs, 5, WF_BULK);
    wf_tv_parallelize(bs, 6, WF_BULK);
    wf_tv_set_ldst(bs, WF_LDST_TMA);
    wf_tv_tma_swizzle(bs, 128);
    wf_tv_circular_buffer(as, stages);
    wf_tv_circular_buffer(bs, stages);
    for (int i = 5; i < 8; i++)
        wf_tv_parallelize(acc, i, WF_MMA);
    wf_tv_parallelize(acc, 4, WF_UNROLL);
    wf_tv_parallelize(m.c, 3, WF_MMA);
    wf_tv_parallelize(m.c, 4, WF_MMA);
    wf_inline_most(m.f);
    return m;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

static void check_exact(test_state *ts_, int64_t M, int64_t N, int64_t K, int bn, int stages) {
    mm m = wgmma_gemm(M, N, K, bn, stages);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, &(wf_compile_options){.sm = 90});
    CHECK(k != NULL);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_EQ_I64(count(src, "wgmma.commit_group.sync.aligned;"), 1);
        CHECK_EQ_I64(count(src, "wgmma.wait_group.sync.aligned 1;"), 1);
        CHECK_EQ_I64(count(src, "wgmma.wait_group.sync.aligned 0;"), 1);
        /* in the loop: the barrier before the loads, none to publish the stages */
        const char *loop = strstr(src, "wgmma.fence.sync.aligned;");
        CHECK(loop != NULL);
        if (loop) {
            CHECK_EQ_I64(count(loop, "__syncthreads();"), 1);
            CHECK(strstr(loop, "__syncthreads();") > strstr(loop, "wait_group.sync.aligned 1;"));
        }
        run_mm(k, WF_F16, M, N, K, true);
        CHECK_NVRTC(k, 90);
        /* On a Hopper GPU: the same kernel, the same exact result */
        wf_system_info si;
        if (wf_cuda_available() && wf_system_info_get(&si) == WF_OK && si.device_sm >= 90)
            run_mm_gpu(k, WF_F16, M, N, K, true);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(wgmma_pipeline_one_group_in_flight_exact) {
    check_exact(ts_, 256, 256, 256, 128, 3);
    check_exact(ts_, 128, 256, 512, 256, 4);
    check_exact(ts_, 512, 768, 512, 256, 4); /* 12 blocks of 128 x 256, 8 K steps */
}

TEST(wgmma_pipeline_sizes_not_multiples_of_the_tiles) {
    check_exact(ts_, 200, 136, 104, 128, 3); /* K: one full step and a partial one */
    check_exact(ts_, 130, 72, 200, 128, 2);
}

/* ---- kernels broken by hand ---- */

/* The first node of kind k (a wgmma wait: with count `count`) under list l,
   and the list holding it. */
static kir_node *find_wait(kir_list *l, int64_t cnt, kir_list **in) {
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        if (n->kind == KIR_SYNC && n->u.sync.kind == KSYNC_WGMMA_WAIT && n->u.sync.count == cnt) {
            *in = l;
            return n;
        }
        kir_list *body = kir_body(n);
        kir_node *f = body ? find_wait(body, cnt, in) : NULL;
        if (f)
            return f;
    }
    return NULL;
}

/* Lowers the GEMM, applies `broken` to its kernel IR and runs it on the
   executor: the run must fail with a message starting with `want`. */
static void check_broken(test_state *ts_, void (*broken)(lower_result *), const char *want) {
    mm m = wgmma_gemm(256, 128, 256, 128, 3);
    lower_result r;
    CHECK(lower_fusion(m.f, &(lower_options){.sm = 90}, &r));
    broken(&r);
    char *src = cg_emit_cuda(&r);
    wf_kernel *k = src ? rt_kernel_new(&r, src) : NULL;
    free(src);
    CHECK(k && rt_interp_build(k, &r));
    uint16_t *a = calloc(256 * 256, 2), *b = calloc(256 * 128, 2);
    float *c = calloc(256 * 128, sizeof(float));
    if (k && a && b && c) {
        wf_buffer in[2] = {{a, WF_F16, 2, {256, 256}, {0}, -1},
                           {b, WF_F16, 2, {256, 128}, {0}, -1}};
        wf_buffer out[1] = {{c, WF_F32, 2, {256, 128}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_ERR_SCHEDULE);
        CHECK_HAS(wf_last_run_error(k), want);
    }
    free(a);
    free(b);
    free(c);
    wf_kernel_free(k);
    lower_result_free(&r);
    wf_fusion_free(m.f);
}

/* wait_group 2 in the loop: the load after it overwrites the stage of the
   previous step, whose group is still in flight */
static void keep_two(lower_result *r) {
    kir_list *in;
    kir_node *w = find_wait(&r->top, 1, &in);
    if (w)
        w->u.sync.count = 2;
}

/* no wait_group 0 after the loop: the result is read in flight */
static void no_last_wait(lower_result *r) {
    kir_list *in;
    kir_node *w = find_wait(&r->top, 0, &in);
    for (int i = 0; w && i < in->n; i++)
        if (in->ptr[i] == w) {
            memmove(&in->ptr[i], &in->ptr[i + 1], sizeof *in->ptr * (size_t)(in->n - i - 1));
            in->n--;
            break;
        }
}

TEST(wgmma_pipeline_executor_catches_a_load_over_a_stage_in_flight) {
    check_broken(ts_, keep_two,
                 "write of T2[0] (shared memory) by thread (0, 0, 0) of block (0, 0, 0) while a "
                 "wgmma still reads it: no wgmma.wait_group has retired the wgmma's group, in "
                 "statement: T2[(i0 + 2) % 3 * 8192] = CpAsyncBulkTensorTile(");
}

TEST(wgmma_pipeline_executor_catches_the_result_read_in_flight) {
    check_broken(ts_, no_last_wait,
                 "read of T7[0] by thread (0, 0, 0) of block (0, 0, 0) while a wgmma still writes "
                 "it: no wgmma.wait_group has retired the wgmma's group, in statement: T6[");
}
