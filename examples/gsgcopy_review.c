/*
 * gsgcopy_review.c -- the shared-memory copy review ("GSG" = global ->
 * shared -> global): a copy of a 2 x 4 tensor through a shared-memory
 * tensor, scheduled six ways, reviewing how inlining and parallelization
 * decide how much shared memory the kernel allocates (docs/tutorial-shared-
 * memory.md walks through it). For each, print the schedule, the kernel and the
 * shared memory it allocates, compile it with NVRTC when available, and run
 * it on the CPU reference executor.
 *
 * The rules it demonstrates:
 *  1. an axis parallelized on a type the memory is distributed across
 *     (shared memory: BIDx) is not allocated;
 *  2. an axis parallelized on a type the memory is shared among (TIDx) is
 *     always allocated, even left of the compute-at position;
 *  3. otherwise, axes left of the compute-at position are not allocated.
 */
#include <stdio.h>
#include <string.h>

#include "weft.h"

typedef struct {
    const char *title;
    int inline_pos; /* 0 = not inlined */
    int tidx_axis;  /* -1 = none */
    int bidx_axis;  /* -1 = none */
    int expect_floats;
} scenario;

static const scenario scenarios[] = {
    {"naive copy: no inlining, no parallelization", 0, -1, -1, 8},
    {"no inlining, axis 1 on BIDx", 0, -1, 1, 2},
    {"inline at 1, no parallelization", 1, -1, -1, 4},
    {"inline at 1, axis 1 on BIDx", 1, -1, 1, 1},
    {"inline at 1, axis 0 on TIDx", 1, 0, -1, 8},
    {"inline at 1, axis 0 on TIDx, axis 1 on BIDx", 1, 0, 1, 2},
};

/* Run the kernel on the CPU reference executor: the copy must be exact. */
static bool run_on_executor(wf_kernel *k) {
    float in[8], out[8];
    for (int i = 0; i < 8; i++) {
        in[i] = (float)(i * i) - 3.5f;
        out[i] = -1.0f;
    }
    wf_buffer bin = {in, WF_F32, 2, {2, 4}, {0}, -1}, bout = {out, WF_F32, 2, {2, 4}, {0}, -1};
    if (wf_run(k, WF_BACKEND_INTERP, &bin, 1, &bout, 1) != WF_OK) {
        printf("executor: %s\n", wf_last_run_error(k));
        return false;
    }
    return memcmp(in, out, sizeof in) == 0;
}

static int run(const scenario *s) {
    int64_t shape[2] = {2, 4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *tv0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *tv1 = wf_set(tv0);
    wf_tv *tv2 = wf_set(tv1);
    wf_output(f, tv2);
    wf_tv_set_memory(tv1, WF_MEM_SHARED);
    if (s->inline_pos)
        wf_tv_inline_at(tv1, s->inline_pos);
    if (s->tidx_axis >= 0) {
        wf_tv_parallelize(tv1, s->tidx_axis, WF_TIDX);
        wf_tv_parallelize(tv2, s->tidx_axis, WF_TIDX);
    }
    if (s->bidx_axis >= 0) {
        wf_tv_parallelize(tv1, s->bidx_axis, WF_BIDX);
        wf_tv_parallelize(tv2, s->bidx_axis, WF_BIDX);
    }
    printf("==== %s\n", s->title);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        printf("error: %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    const char *src = wf_kernel_source(k);
    const char *body = strstr(src, "extern \"C\"");
    fputs(body ? body : src, stdout);
    long long smem = (long long)wf_kernel_launch(k)->smem_bytes;
    printf("shared memory: %lld bytes = %lld floats (expected: %d)\n", smem, smem / 4,
           s->expect_floats);
    char log[2048];
    wf_status st = wf_kernel_check_nvrtc(k, 90, log, sizeof log);
    printf("NVRTC sm_90a: %s\n", st == WF_OK ? "ok" : wf_status_name(st));
    bool copied = run_on_executor(k);
    printf("CPU reference executor: %s\n\n", copied ? "output equals input" : "WRONG");
    int bad =
        smem != 4LL * s->expect_floats || (st != WF_OK && st != WF_ERR_UNSUPPORTED) || !copied;
    wf_kernel_free(k);
    wf_fusion_free(f);
    return bad;
}

int main(void) {
    int bad = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++)
        bad += run(&scenarios[i]);
    return bad ? 1 : 0;
}
