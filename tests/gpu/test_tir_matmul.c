/*
 * test_tir_matmul.c -- the TensorIR tiled matmul on the GPU (issue 12's acceptance):
 * C[i, j] += A[i, k] * B[k, j] with i, j split by 16 and bound to blocks and threads,
 * k split by 8, A and B cache_read to shared memory and computed at k_0 (a cooperative
 * fetch over the 16 x 16 threads, with barriers), C accumulated in a register and
 * written back by reverse_compute_at; 64 x 64 x 64 and 60 x 60 x 60 (T.where tails).
 * Inputs in [0, 1), so sums do not cancel: compared with a double reference within
 * 1e-5 relative (the GPU may fuse the multiply-add), and with the CPU executor.
 */
#include "gpu.h"

#include <math.h>
#include <stdlib.h>

static const char *matmul_source(int n) {
    static char text[1024];
    snprintf(text, sizeof text,
             "@T.prim_func\n"
             "def matmul(A: T.Buffer((%d, %d), \"float32\"), B: T.Buffer((%d, %d), \"float32\"), "
             "C: T.Buffer((%d, %d), \"float32\")):\n"
             "    for i, j, k in T.grid(%d, %d, %d):\n"
             "        with T.block(\"C\"):\n"
             "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
             "            with T.init():\n"
             "                C[vi, vj] = T.float32(0)\n"
             "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
             n, n, n, n, n, n, n, n, n);
    return text;
}

/* TVM's GPU matmul schedule (tests/unit/test_tir_matmul.c, threaded()). */
static wf_tir *schedule(int n) {
    wf_tir *s = wf_tir_parse(matmul_source(n));
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *ijk[3], *i[2], *j[2], *k[2];
    int64_t f16[2] = {-1, 16}, f8[2] = {-1, 8};
    wf_tir_get_loops(s, c, ijk, 3);
    wf_tir_split(s, ijk[0], 2, f16, i);
    wf_tir_split(s, ijk[1], 2, f16, j);
    wf_tir_split(s, ijk[2], 2, f8, k);
    wf_tir_loop *order[6] = {i[0], j[0], i[1], j[1], k[0], k[1]};
    wf_tir_reorder(s, 6, order);
    wf_tir_reverse_compute_at(s, wf_tir_cache_write(s, c, 0, "local"), j[1]);
    wf_tir_bind(s, i[0], "blockIdx.x");
    wf_tir_bind(s, j[0], "blockIdx.y");
    wf_tir_bind(s, i[1], "threadIdx.y");
    wf_tir_bind(s, j[1], "threadIdx.x");
    for (int x = 0; x < 2; x++) {
        wf_tir_block *st = wf_tir_cache_read(s, c, x, "shared");
        wf_tir_compute_at(s, st, k[0]);
        wf_tir_loop *l[8], *f3[3];
        int nl = wf_tir_get_loops(s, st, l, 8);
        int64_t fs[3] = {-1, 16, 16};
        wf_tir_split(s, wf_tir_fuse(s, 2, l + nl - 2), 3, fs, f3);
        wf_tir_bind(s, f3[1], "threadIdx.y");
        wf_tir_bind(s, f3[2], "threadIdx.x");
    }
    return s;
}

static float *unit_data(int64_t n, unsigned seed) {
    float *p = malloc(sizeof(float) * (size_t)n);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 7;
    for (int64_t i = 0; p && i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = (float)((s >> 40) & 0xffffff) / 16777216.0f;
    }
    return p;
}

static wf_buffer host(float *p, int n) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = p;
    b.dtype = WF_F32;
    b.ndim = 2;
    b.device = -1;
    b.shape[0] = b.shape[1] = n;
    return b;
}

static void check_matmul(gt_state *ts_, int n) {
    wf_tir *s = schedule(n);
    wf_kernel *k = wf_tir_build(s, NULL);
    if (!k) {
        printf("  build: %s\n", wf_tir_error(s));
        CHECK(false);
        wf_tir_free(s);
        return;
    }
    size_t bytes = sizeof(float) * (size_t)(n * n);
    float *a = unit_data(n * n, 1), *b = unit_data(n * n, 2);
    float *c = malloc(bytes), *ref = malloc(bytes);
    wf_buffer in[2] = {host(a, n), host(b, n)}, out[1] = {host(c, n)}, rout[1] = {host(ref, n)};
    memset(c, 0xff, bytes);
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, in, 2, out, 1), WF_OK, k);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int kk = 0; kk < n; kk++)
                want += (double)a[i * n + kk] * (double)b[kk * n + j];
            bad += !(fabs(c[i * n + j] - want) <= 1e-5 * want);
        }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, rout, 1), WF_OK);
    int far = 0; /* the executor (no fused multiply-add) within 1e-5 of the GPU */
    for (int x = 0; x < n * n; x++)
        far += !(fabs(ref[x] - c[x]) <= 1e-5 * fabs(ref[x]));
    CHECK_EQ_I64(far, 0);
    free(a);
    free(b);
    free(c);
    free(ref);
    wf_kernel_free(k);
    wf_tir_free(s);
}

GPU_TEST(tir_matmul_tiled_cooperative_fetch_64) {
    NEED_GPU();
    check_matmul(ts_, 64);
}

GPU_TEST(tir_matmul_tiled_cooperative_fetch_60_where_tail) {
    NEED_GPU();
    check_matmul(ts_, 60);
}
