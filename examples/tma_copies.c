/*
 * tma_copies.c -- the basic tutorial's TMA copy kernels (seed 001): copies
 * of a tensor through shared memory, with TMA loads, TMA stores or both,
 * their boxes defined by partitioning (a boxing split) or by compositing
 * (contiguous IterDomains taken whole). For each: the tensor maps weft
 * inferred from the schedule (rank, global dims and strides, box, element
 * strides, swizzle), a run on the CPU reference executor -- which moves the
 * data as the hardware does from those maps -- checked against the input,
 * and, with a GPU, the same on the device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

typedef enum { LOAD, STORE, BOTH } kind;

/* in -> T1 (shared) -> T2 (output): TMA on the load, the store or both. */
static wf_fusion *copy(int ndim, const int64_t *shape, kind k, wf_tv **s, wf_tv **o) {
    wf_fusion *f = wf_fusion_new();
    *s = wf_set(wf_input(f, WF_F32, ndim, shape));
    *o = wf_set(*s);
    wf_output(f, *o);
    wf_tv_set_memory(*s, WF_MEM_SHARED);
    if (k != STORE)
        wf_tv_set_ldst(*s, WF_LDST_TMA);
    if (k != LOAD)
        wf_tv_set_ldst(*o, WF_LDST_TMA);
    return f;
}

/* Tile axes: Bulk on the TMA side, threads (innermost two) on the other. */
static void tile_axes(wf_tv *t, bool tma, int from) {
    int n = wf_tv_ndim(t);
    for (int i = from; i < n; i++)
        wf_tv_parallelize(t, i,
                          tma          ? WF_BULK
                          : i == n - 1 ? WF_TIDX
                          : i == n - 2 ? WF_TIDY
                                       : WF_SERIAL);
}

static void print_maps(const wf_kernel *k) {
    for (int i = 0; i < wf_kernel_tma_count(k); i++) {
        const wf_tma_info *m = wf_kernel_tma(k, i);
        printf("  tensor map %d (%s): rank %d, dims", i, m->is_store ? "store" : "load", m->rank);
        for (int d = 0; d < m->rank; d++)
            printf(" %lld", (long long)m->global_dims[d]);
        printf(", strides (bytes)");
        for (int d = 0; d < m->rank; d++)
            printf(" %lld", (long long)m->global_strides_bytes[d]);
        printf(", box");
        for (int d = 0; d < m->rank; d++)
            printf(" %lld", (long long)m->box[d]);
        printf(", swizzle %d\n", m->swizzle_bytes);
    }
}

static int run(const char *name, wf_fusion *f, int ndim, const int64_t *shape) {
    printf("%s\n", name);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("  refused: %s\n", wf_fusion_error(f));
        return 1;
    }
    print_maps(k);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    float *in = malloc(sizeof(float) * (size_t)n), *out = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        in[i] = (float)i;
    wf_buffer x = {in, WF_F32, ndim, {0}, {0}, -1}, y = {out, WF_F32, ndim, {0}, {0}, -1};
    memcpy(x.shape, shape, sizeof(int64_t) * (size_t)ndim);
    memcpy(y.shape, shape, sizeof(int64_t) * (size_t)ndim);
    int bad = 0;
    for (int b = 0; b < (wf_cuda_available() ? 2 : 1); b++) {
        memset(out, 0xff, sizeof(float) * (size_t)n);
        wf_status st = wf_run(k, b ? WF_BACKEND_CUDA : WF_BACKEND_INTERP, &x, 1, &y, 1);
        bool same = st == WF_OK && memcmp(in, out, sizeof(float) * (size_t)n) == 0;
        printf("  %s: %s%s\n", b ? "GPU" : "CPU executor", same ? "exact" : "WRONG ",
               st == WF_OK ? "" : wf_last_run_error(k));
        bad |= !same;
    }
    free(in);
    free(out);
    wf_kernel_free(k);
    return bad;
}

int main(void) {
    int bad = 0;
    wf_tv *s, *o;
    int64_t s3[3] = {16, 32, 64}, s2[2] = {100, 96}, s4[4] = {16, 2, 4, 8};
    kind kinds[3] = {LOAD, STORE, BOTH};
    const char *names1[3] = {"1. TMA load, 1-D: the tensor flattened, boxes of 256",
                             "2. TMA store, 1-D", "3. TMA load and store, 1-D"};
    for (int i = 0; i < 3; i++) { /* [BIDx, 256] */
        wf_fusion *f = copy(3, s3, kinds[i], &s, &o);
        wf_tv *t[2] = {s, o};
        for (int j = 0; j < 2; j++) {
            wf_tv_merge(t[j], 0);
            wf_tv_merge(t[j], 0);
            wf_tv_split(t[j], 0, 256);
            wf_tv_parallelize(t[j], 0, WF_BIDX);
            tile_axes(t[j], j == 0 ? kinds[i] != STORE : kinds[i] != LOAD, 1);
        }
        if (kinds[i] == BOTH)
            wf_tv_parallelize(s, 1, WF_BULK); /* both sides TMA: no threads needed */
        bad |= run(names1[i], f, 3, s3);
        wf_fusion_free(f);
    }
    const char *names2[2] = {
        "4. TMA load, 2-D boxes 16 x 32 (100 rows: the last boxes zero-filled)",
        "5. TMA store, 2-D boxes 16 x 32 (out of bounds skipped)"};
    for (int i = 0; i < 2; i++) { /* [BIDy, BIDx, 16, 32] */
        wf_fusion *f = copy(2, s2, kinds[i], &s, &o);
        wf_tv *t[2] = {s, o};
        for (int j = 0; j < 2; j++) {
            wf_tv_split(t[j], 1, 32);
            wf_tv_split(t[j], 0, 16);
            wf_tv_reorder_all(t[j], (const int[]){0, 2, 1, 3});
            wf_tv_parallelize(t[j], 0, WF_BIDY);
            wf_tv_parallelize(t[j], 1, WF_BIDX);
            tile_axes(t[j], j == 0 ? kinds[i] == LOAD : kinds[i] == STORE, 2);
        }
        bad |= run(names2[i], f, 2, s2);
        wf_fusion_free(f);
    }
    { /* compositing: T[I1, I2{2}, I3{4}, I4{8}] with [I3, I4] as the box */
        wf_fusion *f = copy(4, s4, LOAD, &s, &o);
        wf_tv_parallelize(s, 0, WF_BIDX);
        wf_tv_parallelize(o, 0, WF_BIDX);
        tile_axes(s, true, 2);
        tile_axes(o, false, 2);
        bad |= run("6. TMA load, boxes by compositing [I3, I4] of [I1, I2, I3, I4]", f, 4, s4);
        wf_fusion_free(f);
    }
    return bad;
}
