/*
 * test_reduce_warp.c -- wf_block_reduce's warp path (issue 20, G5): warp
 * shuffles first, one exchange of per-warp partials through shared memory
 * with one barrier, then a shuffle of the partials; for TIDx reductions and
 * for TIDy ones whose groups lie blockDim.x apart. The executor must follow
 * the GPU's combination order bit for bit: each case checks it against the
 * order written out here (the contract of codegen/reduce.c), on data whose
 * sums round differently in the old halving tree, and against the double
 * reference (rc_check, which compiles with NVRTC too).
 */
#include "harness.h"
#include "reduce_check.h"

#include <math.h>
#include <string.h>

/* The halving tree over w[0..n): for s = P/2, ..., 1, w[r] += w[r + s]. */
static float halve(float *w, int n) {
    int p = 1;
    while (p < n)
        p <<= 1;
    for (int s = p / 2; s > 0; s /= 2)
        for (int r = 0; r < s && r + s < n; r++)
            w[r] = w[r] + w[r + s];
    return w[0];
}

/* wf_block_reduce's sum of v[0..R) (member r at v[r]): L members per warp
   (0: the shared-memory tree). */
static float order_sum(const float *v, int R, int L) {
    float w[1024], part[1024];
    memcpy(w, v, sizeof(float) * (size_t)R);
    if (L == 0)
        return halve(w, R);
    int W = R / L, M = W < L ? W : L;
    for (int q = 0; q < W; q++)
        part[q] = halve(w + q * L, L);
    if (W == 1)
        return part[0];
    for (int j = 0; j < M; j++)
        for (int k = j + L; k < W; k += L)
            part[j] = part[j] + part[k];
    return halve(part, M);
}

/* Values of many magnitudes and both signs: their sums depend on the order. */
static void fill(float *x, int n, unsigned seed) {
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        unsigned h = seed * 2654435761u;
        float m = (float)(h >> 8) / 16777216.0f;
        x[i] = ldexpf(((seed >> 20) & 1u) ? -m : m, -(int)((seed >> 24) % 6));
    }
}

typedef struct {
    int ny, nx;   /* the input [ny, nx]; the block */
    unsigned red; /* 1: sum over x (rows on TIDy, kept); 2: over y; 3: both */
    int L;        /* members per warp on the warp path; 0: the tree */
} warp_case;

/* The sum of one [ny, nx] input reduced as c says, on the executor, bit for
   bit in the contract's order; also against the double reference and NVRTC. */
static void run_case(test_state *ts_, const warp_case *c) {
    int64_t shape[2] = {c->ny, c->nx};
    int axes[2], na = 0;
    if (c->red & 2u)
        axes[na++] = 0;
    if (c->red & 1u)
        axes[na++] = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), na, axes);
    wf_output(f, s);
    wf_tv_parallelize(s, 0, c->red == 1 ? WF_BIDX : WF_TIDY);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = rc_check(ts_, f, NULL, 1e-5);
    if (!k) {
        wf_fusion_free(f);
        return;
    }
    static float in[1 << 14], out[1 << 14], v[1 << 14], old[1 << 14];
    int n = c->ny * c->nx, nout = c->red == 3 ? 1 : c->red == 1 ? c->ny : c->nx, differs = 0;
    int R = 0;
    fill(in, n, 12345u + (unsigned)n);
    wf_buffer ib = {in, WF_F32, 2, {c->ny, c->nx}, {0}, -1};
    wf_buffer ob = {out, WF_F32, c->red == 3 ? 0 : 1, {nout}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1), WF_OK);
    for (int o = 0; o < nout; o++) {
        R = 0;
        for (int y = 0; y < c->ny; y++)
            for (int x = 0; x < c->nx; x++)
                if ((c->red == 3) || (c->red == 1 && y == o) || (c->red == 2 && x == o))
                    v[R++] = in[y * c->nx + x];
        float want = order_sum(v, R, c->L);
        memcpy(old, v, sizeof(float) * (size_t)R);
        differs += halve(old, R) != want;
        if (out[o] != want) {
            CHECK(out[o] == want);
            break;
        }
    }
    if (c->L && R > c->L)
        CHECK(differs > 0); /* the data tells the two orders apart */
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* 1024 threads on TIDx: five shuffle steps, one barrier, five more: the warp
   path's text has exactly one barrier, and the kernel's own text none. */
TEST(reduce_warp_1024_threads_one_barrier) {
    int64_t shape[2] = {4, 1024};
    int ax = 1;
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, &ax);
    wf_output(f, s);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_kernel *k = COMPILE(f);
    if (k) {
        const char *src = wf_kernel_source(k);
        const char *a = strstr(src, "__device__ inline T wf_warp_reduce(");
        const char *b = a ? strstr(a, "template <bool RX, bool RY, bool RZ") : NULL;
        const char *body = strstr(src, "extern \"C\"");
        int nsync = 0;
        CHECK(a && b && body);
        for (const char *p = a; a && b && (p = strstr(p, "__syncthreads")) && p < b; p++)
            nsync++;
        CHECK_EQ_I64(nsync, 1);
        CHECK_LACKS(body ? body : src, "__syncthreads");
        CHECK_HAS(src, "  for (unsigned o = L >> 1; o > 0; o >>= 1) v = op(v, wf_shfl_down(v, o "
                       "* S));\n  if (W > 1u) {\n");
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, 1024 * 8);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
    warp_case c = {4, 1024, 1, 32};
    run_case(TS, &c);
}

/* TIDx reductions: whole warps (one, several, a count of partials that is
   not a power of two) and the tree's block sizes (< 32, odd, not a multiple
   of 32). */
TEST(reduce_warp_tidx_block_sizes) {
    static const warp_case cases[] = {
        {3, 32, 1, 32}, {2, 64, 1, 32}, {5, 96, 1, 32}, {1, 992, 1, 32},
        {4, 16, 1, 0},  {3, 7, 1, 0},   {2, 48, 1, 0},  {1, 1000, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}

/* TIDy reductions: groups blockDim.x apart (S = nx): L = 32 / nx members of
   each column per warp; W partials below, equal to and above L; nx = 32
   (one member per warp: the partials fold in order); and the tree where
   ny is not a multiple of L or nx does not divide 32. */
TEST(reduce_warp_tidy_groups_spaced_by_blockdim_x) {
    static const warp_case cases[] = {
        {64, 4, 2, 8},  {96, 2, 2, 16}, {64, 16, 2, 2}, {32, 32, 2, 1}, {8, 4, 2, 8},
        {32, 1, 2, 32}, {33, 8, 2, 0},  {7, 3, 2, 0},   {16, 1, 2, 0},  {12, 6, 2, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}

/* Both dims reduced: one group of nx * ny threads in linear order. */
TEST(reduce_warp_tidx_and_tidy_together) {
    static const warp_case cases[] = {{8, 12, 3, 32}, {32, 32, 3, 32}, {5, 5, 3, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        run_case(TS, &cases[i]);
}

/* Two block reductions in one kernel (a sum and a max of the same rows): the
   second's per-warp partials go to the other slot (wf_rpar alternates), so
   that it needs no barrier before its store. */
TEST(reduce_warp_two_reductions_one_kernel) {
    int64_t shape[2] = {64, 4};
    int ax = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(x, 1, &ax), *m = wf_max(x, 1, &ax);
    wf_output(f, s);
    wf_output(f, m);
    wf_tv *outs[2] = {s, m};
    for (int i = 0; i < 2; i++) {
        wf_tv_parallelize(outs[i], 0, WF_TIDY);
        wf_tv_parallelize(outs[i], 1, WF_TIDX);
    }
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "  unsigned wf_rpar = 0u;\n");
        CHECK_HAS(src, "wf_op_add(), reinterpret_cast<float *>(wf_smem + 0), wf_rpar);");
        CHECK_HAS(src, "wf_op_max(), reinterpret_cast<float *>(wf_smem + 0), wf_rpar);");
        CHECK_HAS(src, "    par ^= 1u;\n    p += par * (G * W);\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
