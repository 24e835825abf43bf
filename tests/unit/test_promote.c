/*
 * test_promote.c -- loop promotion (wf_compute_at): a producer computed inside
 * consumer loops over axes it does not have, independent of TensorIR.
 *
 * (a) The tiled matmul as a fusion: A[M, K] broadcast to [M, 1, K], B[K, N]
 *     transposed and broadcast to [1, N, K], multiplied and summed over K into a
 *     local accumulator (cache_before of C). i and j split in three, k in two,
 *     [i0, j0, i1, j1, k0, k1, i2, j2] on BIDy, BIDx, TIDy, TIDx; A and B cached in
 *     shared memory and computed at k0 (inside j0 although A has no j: a promoted
 *     loop), each fetched cooperatively (its own inner axes merged, split, bound
 *     to TIDy / TIDx); a register variant recomputes A's row per j.
 * (b) A transpose through a shared tile computed at the block's loops.
 * Kernels run on the CPU executor (which reports shared-memory races) on
 * integer-valued data, so every float sum is exact and must equal the double
 * reference bit for bit, for sizes the tiles divide and sizes they do not; each
 * compiles with NVRTC. Without either barrier of the k0 loop (RAW before the
 * reads, WAR before the next step's fetch) the executor reports the race.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ir/ir.h"
#include "codegen/codegen.h"
#include "lower/lower.h"
#include "runtime/interp.h"

typedef struct {
    wf_fusion *f;
    wf_tv *a, *b, *as, *bs, *ba, *bt, *bb, *prod, *cl, *c;
} mm;

static mm make_mm(int64_t M, int64_t N, int64_t K) {
    mm m;
    int64_t sa[2] = {M, K}, sb[2] = {K, N};
    bool bca[3] = {false, true, false}, bcb[3] = {true, false, false};
    int ax = 2;
    m.f = wf_fusion_new();
    m.a = wf_input(m.f, WF_F32, 2, sa);
    m.b = wf_input(m.f, WF_F32, 2, sb);
    m.ba = wf_broadcast(m.a, 3, bca);
    m.bt = wf_transpose(m.b, 0, 1);
    m.bb = wf_broadcast(m.bt, 3, bcb);
    m.prod = wf_mul(m.ba, m.bb);
    m.c = wf_sum(m.prod, 1, &ax);
    wf_output(m.f, m.c);
    m.as = wf_cache_after(m.a);
    m.bs = wf_cache_after(m.b);
    wf_tv_set_memory(m.as, WF_MEM_SHARED);
    wf_tv_set_memory(m.bs, WF_MEM_SHARED);
    m.cl = wf_cache_before(m.c);
    return m;
}

/* Integer-valued operands in [-4, 4]: every float product and partial sum is
   exact, so the kernel must equal the double reference bit for bit whatever
   its summation order. C poisoned with NaN. */
static bool run_mm_at(test_state *ts_, wf_kernel *k, int64_t M, int64_t N, int64_t K,
                      const char *file, int line) {
    float *a = malloc(sizeof(float) * (size_t)(M * K)),
          *b = malloc(sizeof(float) * (size_t)(K * N));
    float *c = malloc(sizeof(float) * (size_t)(M * N));
    bool ok = a && b && c;
    for (int64_t x = 0; ok && x < M * K; x++)
        a[x] = (float)((x * 7 + 3) % 9 - 4);
    for (int64_t x = 0; ok && x < K * N; x++)
        b[x] = (float)((x * 5 + 1) % 9 - 4);
    for (int64_t x = 0; ok && x < M * N; x++)
        c[x] = NAN;
    if (ok) {
        wf_buffer in[2] = {{a, WF_F32, 2, {M, K}, {0}, -1}, {b, WF_F32, 2, {K, N}, {0}, -1}};
        wf_buffer out[1] = {{c, WF_F32, 2, {M, N}, {0}, -1}};
        wf_status s = wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1);
        if (s != WF_OK) {
            printf("  %s:%d: the executor failed: %s\n", file, line, wf_last_run_error(k));
            ok = false;
        }
    }
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; ok && i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t kk = 0; kk < K; kk++)
                s += (double)a[i * K + kk] * (double)b[kk * N + j];
            if (!((double)c[i * N + j] == s) && bad++ == 0)
                first = i * N + j;
        }
    if (ok && bad) {
        printf("  %s:%d: %lld of %lld elements differ from the double reference, first at %lld\n",
               file, line, (long long)bad, (long long)(M * N), (long long)first);
        ok = false;
    }
    if (!ok)
        ts_->failed = true;
    free(a);
    free(b);
    free(c);
    return ok;
}
#define run_mm(ts, k, M, N, K) run_mm_at((ts), (k), (M), (N), (K), __FILE__, __LINE__)

/* i, j split by 2 then 4 (per-thread 2 x 2 tiles, 4 x 4 threads), k by 4:
   [i0, j0, i1, j1, k0, k1, i2, j2] on the accumulator, propagated, and C written
   back from it at j1 (TVM's reverse_compute_at). */
static void tile_mm(mm *m) {
    wf_tv *cl = m->cl;
    wf_tv_split(cl, 0, 2);
    wf_tv_split(cl, 0, 4);
    wf_tv_split(cl, 3, 2);
    wf_tv_split(cl, 3, 4);
    wf_tv_split(cl, 6, 4);
    int o2n[8] = {0, 2, 6, 1, 3, 7, 4, 5};
    wf_tv_reorder_all(cl, o2n);
    wf_propagate_transforms(cl);
    wf_tv_parallelize(cl, 0, WF_BIDY);
    wf_tv_parallelize(cl, 1, WF_BIDX);
    wf_tv_parallelize(cl, 2, WF_TIDY);
    wf_tv_parallelize(cl, 3, WF_TIDX);
    wf_parallelize_all_like(cl, 0);
    wf_tv_inline_at(cl, 4);
}

/* The stage's own axes inside k0 ([i1, k1, i2]: 32 elements) over the 4 x 4 threads. */
static void coop_fetch(wf_tv *s) {
    wf_tv_merge(s, 5);
    wf_tv_merge(s, 5);
    wf_tv_split(s, 5, 4);
    wf_tv_split(s, 5, 4);
    wf_tv_parallelize(s, 6, WF_TIDY);
    wf_tv_parallelize(s, 7, WF_TIDX);
}

static mm shared_mm(int64_t M, int64_t N, int64_t K) {
    mm m = make_mm(M, N, K);
    tile_mm(&m);
    wf_compute_at(m.as, m.cl, 5);
    wf_compute_at(m.bs, m.cl, 5);
    coop_fetch(m.as);
    coop_fetch(m.bs);
    return m;
}

static void check_shared_mm(test_state *ts_, int64_t M, int64_t N, int64_t K) {
    mm m = shared_mm(M, N, K);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], (N + 7) / 8);
        CHECK_EQ_I64(li->grid[1], (M + 7) / 8);
        CHECK_EQ_I64(li->block[0], 4);
        CHECK_EQ_I64(li->block[1], 4);
        CHECK_EQ_I64(li->smem_bytes, 2 * 32 * 4); /* two 8 x 4 tiles */
        run_mm(TS, k, M, N, K);
        CHECK_NVRTC(k, 90);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* A and B in shared memory at k0, fetched by all 16 threads (2 elements each) per
   k0 step, between the two barriers of the step. */
TEST(promote_matmul_shared_cooperative_fetch) {
    mm m = shared_mm(16, 16, 16);
    CHECK_STR(wf_fusion_error(m.f), "");
    int n;
    wf_tv_loop_domain(m.as, &n);
    CHECK_EQ_I64(n, 8);
    CHECK_EQ_I64(wf_tv_compute_at(m.as), 5);
    CHECK_EQ_I64(wf_tv_compute_at(m.bs), 5);
    CHECK_HAS(wf_transforms_string(m.f),
              "T7_s_float[iblockIdx.y67{2}, bS103{1}, bS104{1}, bS105{1}, iS69{4}, iS116{2}, "
              "ithreadIdx.y117{4}, ithreadIdx.x115{4}] ca_pos( 5 )");
    CHECK_HAS(wf_transforms_string(m.f),
              "T3_l_float[bS106{1}, iblockIdx.x73{2}, bS107{1}, ithreadIdx.x74{4}, iS75{4}, "
              "iS76{4}, bS108{1}, iS72{2}] ca_pos( 8 )");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
                       "    for (wf_index i1 = 0; i1 < 2; ++i1) {\n"
                       "      T7[i1 * 16 + threadIdx.y * 4 + threadIdx.x] = T0[blockIdx.y * 128 + "
                       "i1 * 64 + threadIdx.y * 16 + i0 * 4 + threadIdx.x];\n"
                       "    }\n");
        CHECK_HAS(src, "    }\n    __syncthreads();\n    for (wf_index i3 = 0; i3 < 4; ++i3) {\n");
        CHECK_HAS(src, "          T2[0] = T7[threadIdx.y * 8 + i4 * 4 + i3];\n"
                       "          T3[0] = T8[i3 * 8 + threadIdx.x * 2 + i5];\n");
        CHECK_HAS(src,
                  "          T9[i4 * 2 + i5] = wf_radd((float)T9[i4 * 2 + i5], (float)T5[0]);\n"
                  "        }\n      }\n    }\n    __syncthreads();\n  }\n");
        run_mm(TS, k, 16, 16, 16);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
    check_shared_mm(ts_, 16, 16, 16);
    check_shared_mm(ts_, 13, 11, 10);
    check_shared_mm(ts_, 24, 40, 33);
    check_shared_mm(ts_, 1, 3, 1);
}

/* Registers: A's 4 x 2 tile at k0 in each thread, computed again for each j (the
   promoted loops j0, j1 over a tensor without j); B stays uncached. */
TEST(promote_matmul_register_stage_recomputed) {
    static const int64_t sizes[2][3] = {{16, 16, 16}, {13, 11, 10}};
    for (int t = 0; t < 2; t++) {
        mm m = make_mm(sizes[t][0], sizes[t][1], sizes[t][2]);
        wf_tv_set_memory(m.as, WF_MEM_LOCAL);
        wf_tv_set_memory(m.bs, WF_MEM_LOCAL);
        tile_mm(&m);
        wf_compute_at(m.as, m.cl, 5);
        wf_compute_at(m.bs, m.cl, 8);
        CHECK_STR(wf_fusion_error(m.f), "");
        wf_kernel *k = wf_compile(m.f, NULL);
        CHECK_STR(wf_fusion_error(m.f), "");
        if (k) {
            CHECK_HAS(wf_kernel_source(k), "float T7[8];");
            CHECK_LACKS(wf_kernel_source(k), "__syncthreads");
            CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 0);
            run_mm(TS, k, sizes[t][0], sizes[t][1], sizes[t][2]);
            CHECK_NVRTC(k, 90);
        }
        wf_kernel_free(k);
        wf_fusion_free(m.f);
    }
}

/* ---- the barriers of the k0 loop: each one is needed ---- */

static wf_kernel *build_from(lower_result *r) {
    char *src = cg_emit_cuda(r);
    wf_kernel *k = src ? rt_kernel_new(r, src) : NULL;
    free(src);
    if (k && !rt_interp_build(k, r)) {
        rt_kernel_free(k);
        return NULL;
    }
    return k;
}

/* The k0 loop: the loop whose body holds the barriers. */
static kir_node *k0_loop(kir_list *l) {
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        if (n->kind != KIR_FOR)
            continue;
        kir_list *b = kir_body(n);
        for (int j = 0; j < b->n; j++)
            if (kir_is_barrier(b->ptr[j]))
                return n;
        kir_node *in = k0_loop(b);
        if (in)
            return in;
    }
    return NULL;
}

/* Drop barrier number `which` (0: the RAW one after the fetches, 1: the WAR one
   ending the step) of the k0 loop. */
static bool drop_barrier(kir_node *loop, int which) {
    kir_list *b = kir_body(loop);
    for (int j = 0, seen = 0; j < b->n; j++) {
        if (!kir_is_barrier(b->ptr[j]) || seen++ != which)
            continue;
        for (int q = j; q + 1 < b->n; q++)
            b->ptr[q] = b->ptr[q + 1];
        b->n--;
        return true;
    }
    return false;
}

TEST(promote_matmul_barriers_each_needed) {
    static const char *const want[3] = {
        "",
        "shared-memory race on T7[0]: thread (1, 0, 0) of block (0, 0, 0) reads it after thread "
        "(0, 0, 0) wrote it with no barrier in between, in statement: T2[0] = "
        "Broadcast(T7[threadIdx.y * 8 + i4 * 4 + i3])",
        "shared-memory race on T7[0]: thread (0, 0, 0) of block (0, 0, 0) writes it after thread "
        "(0, 0, 0) read it with no barrier in between, in statement: T7[i1 * 16 + threadIdx.y * 4 "
        "+ threadIdx.x] = Set(T0[blockIdx.y * 128 + i1 * 64 + threadIdx.y * 16 + i0 * 4 + "
        "threadIdx.x])"};
    for (int drop = -1; drop < 2; drop++) {
        mm m = shared_mm(16, 16, 16);
        lower_result r;
        CHECK(lower_fusion(m.f, &(lower_options){.sm = 90}, &r));
        kir_node *loop = k0_loop(&r.top);
        CHECK(loop != NULL);
        if (loop && drop >= 0)
            CHECK(drop_barrier(loop, drop));
        wf_kernel *k = loop ? build_from(&r) : NULL;
        CHECK(k != NULL);
        if (k) {
            float a[256], b[256], c[256];
            for (int x = 0; x < 256; x++)
                a[x] = (float)(x % 7 - 3), b[x] = (float)(x % 5 - 2);
            wf_buffer in[2] = {{a, WF_F32, 2, {16, 16}, {0}, -1},
                               {b, WF_F32, 2, {16, 16}, {0}, -1}};
            wf_buffer out[1] = {{c, WF_F32, 2, {16, 16}, {0}, -1}};
            CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1),
                         drop < 0 ? WF_OK : WF_ERR_SCHEDULE);
            CHECK_STR(wf_last_run_error(k), want[drop + 1]);
        }
        wf_kernel_free(k);
        lower_result_free(&r);
        wf_fusion_free(m.f);
    }
}

/* ---- (b) a transpose through a shared tile computed at the block's loops ---- */

static void check_transpose(test_state *ts_, int64_t M, int64_t N) {
    int64_t sh[2] = {M, N};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, sh);
    wf_tv *out = wf_transpose(in, 0, 1); /* [N, M] */
    wf_output(f, out);
    wf_tv *s = wf_cache_after(in);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_split(out, 1, 8);
    wf_tv_split(out, 0, 8); /* [n0, n1, m0, m1] */
    int o2n[4] = {0, 2, 1, 3};
    wf_tv_reorder_all(out, o2n); /* [n0, m0, n1, m1] */
    wf_tv_parallelize(out, 0, WF_BIDY);
    wf_tv_parallelize(out, 1, WF_BIDX);
    wf_tv_parallelize(out, 2, WF_TIDY);
    wf_tv_parallelize(out, 3, WF_TIDX);
    wf_compute_at(s, out, 2);
    /* the tile [m1, n1] loaded along n (the input's contiguous dim) by threadIdx.x */
    wf_tv_parallelize(s, 2, WF_TIDY);
    wf_tv_parallelize(s, 3, WF_TIDX);
    CHECK_STR(wf_fusion_error(f), "");
    CHECK_EQ_I64(wf_tv_compute_at(s), 2);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK_STR(wf_fusion_error(f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->smem_bytes, 64 * 4);
        CHECK_EQ_I64(li->block[0], 8);
        CHECK_EQ_I64(li->block[1], 8);
        CHECK_HAS(wf_kernel_source(k), "__syncthreads();");
        wf_kernel_free(k);
        k = CHECK_INTERP(f, NULL); /* a copy: bit for bit */
        if (k)
            CHECK_NVRTC(k, 90);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(promote_transpose_shared_tile_at_block_loops) {
    check_transpose(ts_, 16, 24);
    check_transpose(ts_, 13, 21);
    check_transpose(ts_, 1, 9);
}

/* ---- refusals: nothing changes, the message names the tensors and the axis ---- */

TEST(promote_compute_at_refusals) {
    mm m = make_mm(16, 16, 16);
    tile_mm(&m);
    wf_compute_at(m.as, m.cl, 9);
    CHECK_STR(wf_fusion_error(m.f), "compute_at(T7, T9, 9): position 9 is out of range; T9 has 8 "
                                    "loop axes, so positions are 0..8 (or -9..-1 from the end)");
    wf_fusion_clear_error(m.f);
    wf_compute_at(m.as, m.bs, 1);
    CHECK_STR(wf_fusion_error(m.f), "compute_at(T7, T8, 1): T8 does not read T7, directly or "
                                    "through other tensors; compute a tensor at the loops of one "
                                    "of its consumers");
    wf_fusion_clear_error(m.f);
    wf_compute_at(m.a, m.cl, 1);
    CHECK_STR(wf_fusion_error(m.f), "compute_at(T0, T9, 1): T0 is a fusion input, which is read, "
                                    "not computed; compute a cache of it (wf_cache_after) at T9's "
                                    "loops");
    wf_fusion_clear_error(m.f);
    wf_compute_at(m.cl, m.cl, 1);
    CHECK_STR(wf_fusion_error(m.f), "compute_at(T9, T9, 1): a tensor is not computed at its own "
                                    "loops; name a consumer of T9");
    wf_fusion_clear_error(m.f);
    /* A's stage cannot sit inside the vectorized loop of its reader: unchanged. */
    int64_t sh[1] = {64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 1, sh);
    wf_tv *out = wf_set(in);
    wf_output(f, out);
    wf_tv *st = wf_cache_after(in);
    wf_tv_split(out, 0, 4);
    wf_tv_parallelize(out, 1, WF_VECTORIZE);
    int before = wf_tv_ndim(st);
    wf_compute_at(st, out, 2);
    CHECK_STR(wf_fusion_error(f), "compute_at(T2, T1, 2): T2 can share at most the first 1 loops "
                                  "of T1: axis 1 of consumer T1 cannot be shared");
    CHECK_EQ_I64(wf_tv_ndim(st), before);
    CHECK_EQ_I64(wf_tv_compute_at(st), 0);
    wf_fusion_clear_error(f);
    wf_compute_at(st, out, -2);
    CHECK_STR(wf_fusion_error(f), "");
    CHECK_EQ_I64(wf_tv_compute_at(st), 1);
    wf_fusion_free(f);
    wf_fusion_free(m.f);
}

/* A producer outside the path, inlined into a tensor that compute_at rebuilds. */
TEST(promote_compute_at_refuses_inlined_outside_producer) {
    int64_t sh[2] = {8, 16};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sh), *b = wf_input(f, WF_F32, 2, sh);
    wf_tv *sa = wf_set(a), *sb = wf_set(b);
    wf_tv *s = wf_add(sa, sb);
    wf_tv *out = wf_set(s);
    wf_output(f, out);
    wf_tv_inline_at(sb, 1);
    wf_compute_at(sa, out, 1);
    CHECK_STR(wf_fusion_error(f), "compute_at(T2, T5, 1): T4 gets new loops, but its producer T3 "
                                  "is inlined into them (at position 1); compute T3 at T5's loops "
                                  "too, or call wf_tv_inline_at(T3, 0) first");
    wf_fusion_clear_error(f);
    wf_compute_at(sb, out, 1);
    wf_compute_at(sa, out, 2);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
