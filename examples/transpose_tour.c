/*
 * transpose_tour.c -- one computation, three schedules, measured without a
 * GPU: a 1024 x 1024 f32 transpose
 *   1. naive: each thread reads a column element, so a warp's reads touch 32
 *      different 32-byte sectors;
 *   2. tiled through a 32 x 32 shared-memory tile: coalesced global accesses,
 *      but the tile is read down a column, a 32-way bank conflict;
 *   3. the same tile allocated XOR-swizzled ([row, row ^ col]): no conflict.
 * For each, the CUDA kernel, a run on the CPU reference executor checked
 * against the expected transpose, and the access statistics a profiler would
 * show (wf_interp_stats). With a GPU, each also runs there and is timed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

enum { N = 1024 };

static wf_fusion *transpose(int variant) {
    int64_t shape[2] = {N, N};
    static const int tiles[4] = {0, 2, 1, 3}, inner[4] = {0, 1, 3, 2};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *t = wf_transpose(a, 0, 1);
    wf_output(f, t);
    wf_tv *s = variant ? wf_cache_after(a) : NULL;
    wf_tv_split(t, 0, 32);
    wf_tv_split(t, 2, 32);
    wf_tv_reorder_all(t, tiles); /* [row tile, col tile, row, col] */
    wf_propagate_transforms(t);
    wf_tv_parallelize(t, 0, WF_BIDY);
    wf_tv_parallelize(t, 1, WF_BIDX);
    wf_tv_parallelize(t, 2, WF_TIDY);
    wf_tv_parallelize(t, 3, WF_TIDX);
    if (!s)
        return f;
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_parallelize_all_like(t, (1u << WF_BIDX) | (1u << WF_BIDY));
    wf_tv_reorder_all(s, inner); /* the tile is filled along the input's rows */
    if (variant == 2) { /* swizzle before parallelizing: parallel axes are not transformed */
        int n;
        wf_iterdomain *const *loop = wf_tv_loop_domain(s, &n);
        wf_iterdomain *plain[4] = {loop[0], loop[1], loop[2], loop[3]};
        wf_tv_swizzle(s, WF_SWIZZLE_XOR, 2, 3);
        wf_tv_set_allocation_domain(s, 4, wf_tv_loop_domain(s, &n), true);
        wf_tv_set_loop_domain(s, 4, plain);
    }
    wf_tv_parallelize(s, 2, WF_TIDY);
    wf_tv_parallelize(s, 3, WF_TIDX);
    wf_tv_inline_at(s, 2);
    return f;
}

static int check(const float *in, const float *out) {
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (out[j * N + i] != in[i * N + j])
                return 1;
    return 0;
}

static int show(const char *title, int variant, const float *in, float *out) {
    wf_fusion *f = transpose(variant);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("%s: %s\n", title, wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    printf("==== %s\n%s", title, strstr(wf_kernel_source(k), "extern \"C\""));
    wf_buffer bin = {(void *)in, WF_F32, 2, {N, N}, {0}, -1};
    wf_buffer bout = {out, WF_F32, 2, {N, N}, {0}, -1};
    memset(out, 0xff, sizeof(float) * N * N);
    wf_access_stats st;
    int bad = wf_run(k, WF_BACKEND_INTERP, &bin, 1, &bout, 1) != WF_OK || check(in, out) ||
              wf_interp_stats(k, &st) != WF_OK;
    if (!bad)
        printf("executor: exact; global: %.1f sectors per warp access; shared: %lld wavefronts "
               "for %lld warp accesses (worst %d-way conflict)\n",
               st.gmem_accesses ? (double)st.gmem_sectors / (double)st.gmem_accesses : 0.0,
               (long long)st.smem_wavefronts, (long long)st.smem_accesses,
               st.smem_max_conflict_degree);
    double us;
    if (!bad && wf_cuda_available() && wf_time(k, &bin, 1, &bout, 1, 3, 20, &us) == WF_OK)
        printf("GPU: %.1f us (%s)\n", us, check(in, out) ? "WRONG" : "exact");
    printf("\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

int main(void) {
    float *in = malloc(sizeof(float) * N * N), *out = malloc(sizeof(float) * N * N);
    if (!in || !out)
        return 1;
    for (int i = 0; i < N * N; i++)
        in[i] = (float)(i % 9973) * 0.25f;
    int bad = show("naive transpose", 0, in, out);
    bad += show("tiled through shared memory", 1, in, out);
    bad += show("tiled, shared tile allocated XOR-swizzled", 2, in, out);
    free(in);
    free(out);
    return bad ? 1 : 0;
}
