/*
 * tir_seed004.c -- seed 004 (the TensorIR sum + broadcast notebook) cell by cell on
 * weft's TensorIR front door.
 *
 * In [1] parses the notebook's TVMScript; In [2]-[4] split and bind and show the
 * program; In [5] builds it (a serial reduction per thread: 2 blocks x 128 threads)
 * and runs it on the CPU executor against a C reference; In [6]-[8] add the
 * shared-memory stage, compute it at the thread loop and split its copy loop for the
 * cooperative fetch, showing the program after each step; In [9] builds that (a
 * 256-float shared buffer filled by 2 strided loads per thread, a barrier, then the
 * reduction) and checks it again. The trace is printed at the end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "weft.h"

static const char *sum_broadcast = "@T.prim_func\n"
                                   "def sum_broadcast(\n"
                                   "    A: T.Buffer((256,), \"float32\"),\n"
                                   "    B: T.Buffer((256,), \"float32\"),\n"
                                   ") -> None:\n"
                                   "    for i, k in T.grid(256, 256):\n"
                                   "        with T.block(\"sum_broadcast\"):\n"
                                   "            vi = T.axis.spatial(256, i)\n"
                                   "            vk = T.axis.reduce(256, k)\n"
                                   "            with T.init():\n"
                                   "                B[vi] = T.float32(0)\n"
                                   "            B[vi] += A[vk]\n";

/* The notebook's build_and_test on the CPU executor: B must be sum(A) everywhere. */
static int build_and_test(wf_tir *sch, const char *cell) {
    wf_kernel *k = wf_tir_build(sch, NULL);
    if (!k) {
        printf("== %s: build failed: %s\n", cell, wf_tir_error(sch));
        return 1;
    }
    float a[256], b[256];
    double sum = 0;
    for (int i = 0; i < 256; i++)
        a[i] = (float)((i * 37) % 101) * 0.01f, sum += a[i], b[i] = NAN;
    wf_buffer in[1] = {{a, WF_F32, 1, {256}, {0}, -1}};
    wf_buffer out[1] = {{b, WF_F32, 1, {256}, {0}, -1}};
    wf_status st = wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1);
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += !(fabs(b[i] - sum) <= 1e-5 * fabs(sum) + 1e-5);
    const wf_launch_info *li = wf_kernel_launch(k);
    const char *src = strstr(wf_kernel_source(k), "extern \"C\" __global__");
    printf("== %s: %lld blocks x %lld threads, %lld bytes of shared memory\n%s\n", cell,
           (long long)li->grid[0], (long long)li->block[0], (long long)li->smem_bytes,
           src ? src : wf_kernel_source(k));
    printf("executor: %s, %d of 256 wrong%s\n", wf_status_name(st), bad,
           st == WF_OK && !bad ? ": Test passed." : "");
    wf_kernel_free(k);
    return st == WF_OK && bad == 0 ? 0 : 1;
}

static int notebook(void) {
    wf_tir *sch = wf_tir_parse(sum_broadcast);
    wf_tir_block *block = wf_tir_get_block(sch, "sum_broadcast");
    wf_tir_loop *ij[2], *io[2];
    wf_tir_get_loops(sch, block, ij, 2);
    int64_t factors[2] = {2, 128};
    wf_tir_split(sch, ij[0], 2, factors, io);
    printf("== In [3]: after split\n");
    wf_tir_show(sch, stdout);
    wf_tir_bind(sch, io[0], "blockIdx.x");
    wf_tir_bind(sch, io[1], "threadIdx.x");
    printf("== In [4]: after bind\n");
    wf_tir_show(sch, stdout);
    int rc = build_and_test(sch, "In [5]");
    wf_tir_block *a_shared = wf_tir_cache_read(sch, block, 0, "shared");
    printf("== In [6]: after cache_read\n");
    wf_tir_show(sch, stdout);
    wf_tir_compute_at(sch, a_shared, io[1]);
    printf("== In [7]: after compute_at\n");
    wf_tir_show(sch, stdout);
    wf_tir_loop *al[3], *ax[2];
    wf_tir_get_loops(sch, a_shared, al, 3);
    int64_t coop[2] = {-1, 128};
    wf_tir_split(sch, al[2], 2, coop, ax);
    wf_tir_bind(sch, ax[1], "threadIdx.x");
    printf("== In [8]: after the cooperative fetch\n");
    wf_tir_show(sch, stdout);
    rc |= build_and_test(sch, "In [9]");
    printf("== trace\n%s", wf_tir_trace(sch));
    rc |= wf_tir_status(sch) == WF_OK ? 0 : 1;
    if (rc)
        printf("error: %s\n", wf_tir_error(sch));
    wf_tir_free(sch);
    return rc;
}

int main(void) {
    return notebook();
}
