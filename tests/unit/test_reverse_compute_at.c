/*
 * test_reverse_compute_at.c -- wf_reverse_compute_at: a consumer placed inside
 * its producer's loops (TVM's reverse_compute_at), independent of TensorIR.
 *
 * (a) The tiled matmul with the schedule on the local accumulator only: i and j
 *     split in three, k in two, [i0, j0, i1, j1, k0, k1, i2, j2] on BIDy, BIDx,
 *     TIDy, TIDx; C's write-back placed at the accumulator's j1 (each thread
 *     writes its 4 x 4 tile), A and B cached in shared memory at k0 with a
 *     cooperative fetch. Integer-valued data: bit-exact against a double
 *     reference, for sizes the tiles divide and sizes they do not.
 * (b) An epilogue through a tensor between: a row sum scaled and shifted, the
 *     last op placed at the sum's thread loop.
 * (c) Refusals: exact messages, nothing changed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct {
    wf_fusion *f;
    wf_tv *a, *b, *as, *bs, *cl, *c;
} rmm;

static rmm make_rmm(int64_t M, int64_t N, int64_t K) {
    rmm m;
    int64_t sa[2] = {M, K}, sb[2] = {K, N};
    bool bca[3] = {false, true, false}, bcb[3] = {true, false, false};
    int ax = 2;
    m.f = wf_fusion_new();
    m.a = wf_input(m.f, WF_F32, 2, sa);
    m.b = wf_input(m.f, WF_F32, 2, sb);
    wf_tv *prod = wf_mul(wf_broadcast(m.a, 3, bca), wf_broadcast(wf_transpose(m.b, 0, 1), 3, bcb));
    m.c = wf_sum(prod, 1, &ax);
    wf_output(m.f, m.c);
    m.as = wf_cache_after(m.a);
    m.bs = wf_cache_after(m.b);
    wf_tv_set_memory(m.as, WF_MEM_SHARED);
    wf_tv_set_memory(m.bs, WF_MEM_SHARED);
    m.cl = wf_cache_before(m.c);
    return m;
}

/* The accumulator alone: i, j split by 4 then 4 (4 x 4 threads, 4 x 4 per thread),
   k by 8; [i0, j0, i1, j1, k0, k1, i2, j2]. */
static void tile_acc(rmm *m) {
    wf_tv *cl = m->cl;
    wf_tv_split(cl, 0, 4);
    wf_tv_split(cl, 0, 4);
    wf_tv_split(cl, 3, 4);
    wf_tv_split(cl, 3, 4);
    wf_tv_split(cl, 6, 8);
    int o2n[8] = {0, 2, 6, 1, 3, 7, 4, 5};
    wf_tv_reorder_all(cl, o2n);
    wf_tv_parallelize(cl, 0, WF_BIDY);
    wf_tv_parallelize(cl, 1, WF_BIDX);
    wf_tv_parallelize(cl, 2, WF_TIDY);
    wf_tv_parallelize(cl, 3, WF_TIDX);
}

/* The stage's axes inside k0 (a 16 x 8 tile) merged and spread over 4 x 4 threads. */
static void fetch(wf_tv *s) {
    int n = wf_tv_ndim(s);
    while (n > 6)
        wf_tv_merge(s, 5), n--;
    wf_tv_split(s, 5, 4);
    wf_tv_split(s, 5, 4);
    wf_tv_parallelize(s, 6, WF_TIDY);
    wf_tv_parallelize(s, 7, WF_TIDX);
}

static rmm classic(int64_t M, int64_t N, int64_t K) {
    rmm m = make_rmm(M, N, K);
    tile_acc(&m);
    wf_reverse_compute_at(m.c, m.cl, 4);
    wf_compute_at(m.as, m.cl, 5);
    wf_compute_at(m.bs, m.cl, 5);
    fetch(m.as);
    fetch(m.bs);
    return m;
}

static bool run_at(test_state *ts_, wf_kernel *k, int64_t M, int64_t N, int64_t K, int line) {
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
        if (wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1) != WF_OK) {
            printf("  %s:%d: the executor failed: %s\n", __FILE__, line, wf_last_run_error(k));
            ok = false;
        }
    }
    int64_t bad = 0;
    for (int64_t i = 0; ok && i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            double s = 0;
            for (int64_t kk = 0; kk < K; kk++)
                s += (double)a[i * K + kk] * (double)b[kk * N + j];
            bad += !((double)c[i * N + j] == s);
        }
    if (ok && bad) {
        printf("  %s:%d: %lld elements differ from the double reference\n", __FILE__, line,
               (long long)bad);
        ok = false;
    }
    if (!ok)
        ts_->failed = true;
    free(a);
    free(b);
    free(c);
    return ok;
}

static void check_classic(test_state *ts_, int64_t M, int64_t N, int64_t K) {
    rmm m = classic(M, N, K);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], (N + 15) / 16);
        CHECK_EQ_I64(li->grid[1], (M + 15) / 16);
        CHECK_EQ_I64(li->block[0], 4);
        CHECK_EQ_I64(li->block[1], 4);
        CHECK_EQ_I64(li->smem_bytes, 2 * 128 * 4); /* two 16 x 8 tiles */
        run_at(ts_, k, M, N, K, __LINE__);
        CHECK_NVRTC(k, 90);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

TEST(reverse_compute_at_matmul_write_back_at_thread_loops) {
    rmm m = classic(32, 32, 16);
    CHECK_STR(wf_fusion_error(m.f), "");
    CHECK_EQ_I64(wf_tv_compute_at(m.cl), 4);
    CHECK_EQ_I64(wf_tv_compute_at(m.c), 0);
    /* C takes the accumulator's four outer loops, its own 4 x 4 tile inside */
    CHECK_HAS(wf_transforms_string(m.f),
              "T6_g_float[iblockIdx.y37{2}, iblockIdx.x41{2}, ithreadIdx.y38{4}, "
              "ithreadIdx.x42{4}, iS36{4}, iS40{4}]\n");
    wf_kernel *k = wf_compile(m.f, NULL);
    CHECK_STR(wf_fusion_error(m.f), "");
    if (k) {
        CHECK_HAS(wf_kernel_source(k),
                  "    __syncthreads();\n"
                  "  }\n"
                  "  for (wf_index i6 = 0; i6 < 4; ++i6) {\n"
                  "    for (wf_index i7 = 0; i7 < 4; ++i7) {\n"
                  "      T6[blockIdx.y * 512 + threadIdx.y * 128 + i6 * 32 + blockIdx.x * 16 + "
                  "threadIdx.x * 4 + i7] = T9[i6 * 4 + i7];\n");
        run_at(ts_, k, 32, 32, 16, __LINE__);
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
    check_classic(ts_, 32, 32, 16);
    check_classic(ts_, 128, 128, 128);
    check_classic(ts_, 37, 29, 21);
    check_classic(ts_, 1, 3, 1);
}

/* ---- (b) an epilogue through a tensor between: o = sum(x, 1) * 2 + 1 ---- */

typedef struct {
    wf_fusion *f;
    wf_tv *x, *s, *e, *o;
} epi;

static epi make_epi(int64_t M, int64_t K) {
    epi p;
    int64_t sh[2] = {M, K};
    int ax = 1;
    p.f = wf_fusion_new();
    p.x = wf_input(p.f, WF_F32, 2, sh);
    p.s = wf_sum(p.x, 1, &ax);
    p.e = wf_mul(p.s, wf_full(p.f, WF_F32, 2.0));
    p.o = wf_add(p.e, wf_full(p.f, WF_F32, 1.0));
    wf_output(p.f, p.o);
    /* the sum: [m0 (BIDx), m1 (TIDx), k] */
    wf_tv_split(p.s, 0, 8);
    wf_tv_parallelize(p.s, 0, WF_BIDX);
    wf_tv_parallelize(p.s, 1, WF_TIDX);
    return p;
}

static void check_epi(test_state *ts_, int64_t M, int64_t K) {
    epi p = make_epi(M, K);
    wf_reverse_compute_at(p.o, p.s, 2);
    CHECK_STR(wf_fusion_error(p.f), "");
    CHECK_EQ_I64(wf_tv_compute_at(p.s), 2);
    CHECK_EQ_I64(wf_tv_compute_at(p.e), 2);
    CHECK_EQ_I64(wf_tv_ndim(p.o), 2);
    wf_kernel *k = wf_compile(p.f, NULL);
    CHECK_STR(wf_fusion_error(p.f), "");
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->grid[0], (M + 7) / 8);
        CHECK_EQ_I64(li->block[0], 8);
        float *x = malloc(sizeof(float) * (size_t)(M * K)), *o = malloc(sizeof(float) * (size_t)M);
        for (int64_t q = 0; q < M * K; q++)
            x[q] = (float)((q * 3 + 1) % 7 - 3);
        for (int64_t q = 0; q < M; q++)
            o[q] = NAN;
        wf_buffer in[1] = {{x, WF_F32, 2, {M, K}, {0}, -1}};
        wf_buffer out[1] = {{o, WF_F32, 1, {M}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), WF_OK);
        int64_t bad = 0;
        for (int64_t i = 0; i < M; i++) {
            double r = 0;
            for (int64_t q = 0; q < K; q++)
                r += x[i * K + q];
            bad += !((double)o[i] == r * 2 + 1);
        }
        CHECK_EQ_I64(bad, 0);
        free(x);
        free(o);
        CHECK_NVRTC(k, 90);
    }
    wf_kernel_free(k);
    wf_fusion_free(p.f);
}

TEST(reverse_compute_at_epilogue_through_tensor_between) {
    epi p = make_epi(32, 16);
    wf_reverse_compute_at(p.o, p.s, -2); /* from the end: position 2 of 3 */
    CHECK_STR(wf_fusion_error(p.f), "");
    /* o and the product between take the sum's block and thread loops */
    CHECK_HAS(wf_transforms_string(p.f),
              "T2_l_float[iblockIdx.x8{4}, ithreadIdx.x9{8}] ca_pos( 2 )\n");
    CHECK_HAS(wf_transforms_string(p.f), "T3_g_float[iblockIdx.x10{4}, ithreadIdx.x11{8}]\n");
    CHECK_HAS(wf_transforms_string(p.f),
              "T1_l_float[iblockIdx.x6{4}, ithreadIdx.x7{8}, rS3{16}] ca_pos( 2 )\n");
    wf_fusion_free(p.f);
    check_epi(ts_, 32, 16);
    check_epi(ts_, 13, 5);
    check_epi(ts_, 1, 1);
}

/* ---- (c) refusals: nothing changes ---- */

TEST(reverse_compute_at_refusals) {
    epi p = make_epi(32, 16);
    const char *before = wf_transforms_string(p.f);
    char *saved = malloc(strlen(before) + 1);
    strcpy(saved, before);
    wf_reverse_compute_at(p.o, p.s, 4);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T3, T1, 4): position 4 is out of range; T1 has 3 "
              "loop axes, so positions are 0..3 (or -4..-1 from the end)");
    wf_fusion_clear_error(p.f);
    wf_reverse_compute_at(p.s, p.o, 1);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T1, T3, 1): T1 does not read T3, directly or "
              "through other tensors; place a tensor at the loops of one of its "
              "producers");
    wf_fusion_clear_error(p.f);
    wf_reverse_compute_at(p.s, p.x, 1);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T1, T0, 1): T0 is a fusion input, which is read, "
              "not computed in loops; place T1 at the loops of a cache of it "
              "(wf_cache_after)");
    wf_fusion_clear_error(p.f);
    wf_reverse_compute_at(p.o, p.o, 1);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T3, T3, 1): a tensor is not placed at its own "
              "loops; name a producer of T3");
    wf_fusion_clear_error(p.f);
    /* inside the reduction loop: the sum is not finished there */
    wf_reverse_compute_at(p.o, p.s, 3);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T3, T1, 3): T1 can share at most the first 2 loops "
              "of T3: axis 2 of T1 is a reduction");
    wf_fusion_clear_error(p.f);
    /* e already inlined into o */
    wf_tv_inline_at(p.e, 1);
    wf_reverse_compute_at(p.e, p.s, 1);
    CHECK_STR(wf_fusion_error(p.f),
              "reverse_compute_at(T2, T1, 1): T2 is inlined into its consumers (at "
              "position 1) and would get new loops; call wf_tv_inline_at(T2, 0) "
              "first, or place T2's consumers at T1's loops instead");
    wf_fusion_clear_error(p.f);
    wf_tv_inline_at(p.e, 0);
    CHECK_STR(wf_transforms_string(p.f), saved);
    free(saved);
    wf_fusion_free(p.f);
}
