/*
 * lower_time.c -- how long lowering + CUDA codegen (wf_compile) takes for the
 * seed-sized fusions: the six GSGCopy schedules of seed 000 and the
 * fancyTransformations copy on [4096, 4096]. Prints the median of 200 runs
 * per fusion, in microseconds. The target is under 1 ms each on the CI
 * machine. NVRTC is not included (it is measured by the runtime benchmarks).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft.h"

enum { RUNS = 200 };

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef wf_fusion *(*builder)(int variant);

static wf_fusion *gsgcopy(int variant) {
    int64_t shape[2] = {2, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *tv0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *tv1 = wf_set(tv0);
    wf_tv *tv2 = wf_set(tv1);
    wf_output(f, tv2);
    wf_tv_set_memory(tv1, WF_MEM_SHARED);
    if (variant >= 2)
        wf_tv_inline_at(tv1, 1);
    if (variant == 4 || variant == 5) {
        wf_tv_parallelize(tv1, 0, WF_TIDX);
        wf_tv_parallelize(tv2, 0, WF_TIDX);
    }
    if (variant == 1 || variant == 3 || variant == 5) {
        wf_tv_parallelize(tv1, 1, WF_BIDX);
        wf_tv_parallelize(tv2, 1, WF_BIDX);
    }
    return f;
}

static wf_fusion *fancy(int variant) {
    static const int r[4] = {3, 0, 2, 1};
    int64_t shape[2] = {4096, 4096};
    (void)variant;
    wf_fusion *f = wf_fusion_new();
    wf_tv *tv0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *tv1 = wf_set(tv0);
    wf_tv *tv2 = wf_set(tv1);
    wf_output(f, tv2);
    wf_tv_swizzle(tv2, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_split(tv2, 1, 64);
    wf_tv_split(tv2, 0, 64);
    wf_tv_reorder_all(tv2, r);
    wf_tv_swizzle(tv2, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_swizzle(tv2, WF_SWIZZLE_XOR, 2, 3);
    wf_tv_swizzle(tv2, WF_SWIZZLE_XOR, 1, 2);
    wf_tv_reorder_all(tv2, r);
    wf_tv_merge(tv2, 2);
    wf_tv_merge(tv2, 0);
    wf_tv_split(tv2, 1, 128);
    wf_tv_parallelize(tv2, 0, WF_BIDX);
    wf_tv_parallelize(tv2, 2, WF_TIDX);
    wf_propagate_transforms(tv2);
    wf_parallelize_all_like(tv2, 0);
    wf_inline_most(f);
    return f;
}

static int measure(const char *name, builder build, int variant) {
    double t[RUNS];
    wf_fusion *f = build(variant);
    for (int i = 0; i < RUNS; i++) {
        double t0 = now_us();
        wf_kernel *k = wf_compile(f, NULL);
        t[i] = now_us() - t0;
        if (!k) {
            fprintf(stderr, "%s: %s\n", name, wf_fusion_error(f));
            wf_fusion_free(f);
            return 1;
        }
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
    qsort(t, RUNS, sizeof *t, cmp);
    printf("%-28s median %8.1f us   min %8.1f us\n", name, t[RUNS / 2], t[0]);
    return 0;
}

int main(void) {
    static const char *const names[] = {"gsgcopy naive",        "gsgcopy bidx",
                                        "gsgcopy inline1",      "gsgcopy inline1 bidx",
                                        "gsgcopy inline1 tidx", "gsgcopy inline1 tidx bidx"};
    int bad = 0;
    printf("wf_compile (lowering + CUDA codegen), %d runs each:\n", RUNS);
    for (int v = 0; v < 6; v++)
        bad += measure(names[v], gsgcopy, v);
    bad += measure("fancyTransformations copy", fancy, 0);
    return bad;
}
