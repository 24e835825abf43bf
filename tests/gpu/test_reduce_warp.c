/*
 * test_reduce_warp.c -- wf_block_reduce's warp path on the GPU (issue 20,
 * G5): shuffles within warps, one exchange of per-warp partials, shuffles of
 * the partials; for TIDx reductions, TIDy ones (groups blockDim.x apart)
 * and both, at block sizes that take the warp path and the shared-memory
 * tree (< 32, odd, not multiples of 32). Random signed data; each result is
 * compared with a double reference (tolerance relative to the sum of
 * magnitudes) and with the CPU executor bit for bit, which models the same
 * combination order: a shuffle by the wrong distance, a wrong lane or a
 * partial in the wrong slot shows as a mismatch. Two reductions in one
 * kernel (a sum and a max) exercise the alternating slots.
 */
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

static float *signed_data(int64_t n, unsigned seed) {
    float *p = malloc(sizeof(float) * (size_t)(n ? n : 1));
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 11;
    for (int64_t i = 0; p && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((s >> 40) & 0xffffff) / 8388608.0f - 1.0f;
    }
    return p;
}

static wf_buffer host(float *p, int ndim, const int64_t *shape) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = p;
    b.dtype = WF_F32;
    b.ndim = ndim;
    b.device = -1;
    for (int d = 0; d < ndim; d++)
        b.shape[d] = shape[d];
    return b;
}

/* red: 1 sums over x (rows on blockIdx.x), 2 over y (columns on TIDx), 3 both. */
typedef struct {
    int64_t ny, nx;
    unsigned red;
} gw_case;

static void run_case(gt_state *ts_, const gw_case *c) {
    int64_t shape[2] = {c->ny, c->nx}, n = c->ny * c->nx;
    int axes[2], na = 0;
    if (c->red & 2u)
        axes[na++] = 0;
    if (c->red & 1u)
        axes[na++] = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(x, na, axes), *m = wf_max(x, na, axes);
    wf_output(f, s);
    wf_output(f, m);
    wf_tv *outs[2] = {s, m};
    for (int i = 0; i < 2; i++) {
        wf_tv_parallelize(outs[i], 0, c->red == 1 ? WF_BIDX : WF_TIDY);
        wf_tv_parallelize(outs[i], 1, WF_TIDX);
    }
    wf_kernel *k = GT_COMPILE(f);
    int64_t nout = c->red == 3 ? 1 : c->red == 1 ? c->ny : c->nx;
    int64_t oshape[1] = {nout};
    float *in = signed_data(n, (unsigned)(n + c->red));
    float *got[2], *ref[2];
    for (int i = 0; i < 2; i++) {
        got[i] = malloc(sizeof(float) * (size_t)nout);
        ref[i] = malloc(sizeof(float) * (size_t)nout);
        memset(got[i], 0xff, sizeof(float) * (size_t)nout);
    }
    if (k) {
        wf_buffer ib = host(in, 2, shape);
        wf_buffer ob[2] = {host(got[0], c->red == 3 ? 0 : 1, oshape),
                           host(got[1], c->red == 3 ? 0 : 1, oshape)};
        wf_buffer rb[2] = {host(ref[0], c->red == 3 ? 0 : 1, oshape),
                           host(ref[1], c->red == 3 ? 0 : 1, oshape)};
        CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &ib, 1, ob, 2), WF_OK, k);
        CHECK_STATUS(wf_run(k, WF_BACKEND_INTERP, &ib, 1, rb, 2), WF_OK, k);
        for (int64_t o = 0; o < nout; o++) {
            double sum = 0, mag = 0, mx = -INFINITY;
            for (int64_t y = 0; y < c->ny; y++)
                for (int64_t xx = 0; xx < c->nx; xx++)
                    if (c->red == 3 || (c->red == 1 && y == o) || (c->red == 2 && xx == o)) {
                        double v = in[y * c->nx + xx];
                        sum += v;
                        mag += fabs(v);
                        mx = v > mx ? v : mx;
                    }
            bool ok = fabs(got[0][o] - sum) <= 1e-5 * mag && got[1][o] == (float)mx &&
                      memcmp(&got[0][o], &ref[0][o], sizeof(float)) == 0 &&
                      memcmp(&got[1][o], &ref[1][o], sizeof(float)) == 0;
            if (!ok) {
                printf("  [%lld, %lld] red %u, output %lld: sum %.9g (executor %.9g, want "
                       "%.9g), max %.9g (executor %.9g, want %.9g)\n",
                       (long long)c->ny, (long long)c->nx, c->red, (long long)o, got[0][o],
                       ref[0][o], sum, got[1][o], ref[1][o], mx);
                CHECK(false);
                break;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        free(got[i]);
        free(ref[i]);
    }
    free(in);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(reduce_warp_tidx_random_block_sizes) {
    NEED_GPU();
    static const gw_case cases[] = {{7, 1024, 1}, {5, 992, 1}, {9, 96, 1},   {3, 64, 1}, {4, 32, 1},
                                    {6, 48, 1},   {5, 7, 1},   {3, 1000, 1}, {2, 16, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}

GPU_TEST(reduce_warp_tidy_random_block_sizes) {
    NEED_GPU();
    static const gw_case cases[] = {{64, 4, 2}, {96, 2, 2}, {64, 16, 2}, {32, 32, 2},
                                    {8, 4, 2},  {32, 1, 2}, {512, 2, 2}, {33, 8, 2},
                                    {7, 3, 2},  {16, 1, 2}, {12, 6, 2},  {1024, 1, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}

GPU_TEST(reduce_warp_tidx_and_tidy_random_block_sizes) {
    NEED_GPU();
    static const gw_case cases[] = {{8, 12, 3}, {32, 32, 3}, {5, 5, 3}, {3, 100, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}
