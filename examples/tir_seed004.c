/*
 * tir_seed004.c -- seed 004 (the TensorIR sum + broadcast notebook) cell by cell on
 * weft's TensorIR front door, then a spatial program built and run.
 *
 * In [1] parses the notebook's TVMScript; In [2]-[4] split and bind and show the
 * program; In [6]-[8] add the shared-memory stage, compute it at the thread loop and
 * split its copy loop for the cooperative fetch, showing the program after each step;
 * the trace is printed at the end. Building the notebook's program (In [5], In [9])
 * needs reductions in the core: weft says so ("not supported yet: reductions") rather
 * than build something else. The last part builds an elementwise program scheduled the
 * same way and runs it on the CPU executor, checking every element.
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

static const char *scale_add =
    "@T.prim_func\n"
    "def scale_add(A: T.Buffer((256,), \"float32\"), "
    "B: T.Buffer((256,), \"float32\"), C: T.Buffer((256,), \"float32\")):\n"
    "    for i in range(256):\n"
    "        with T.block(\"C\"):\n"
    "            vi = T.axis.spatial(256, i)\n"
    "            C[vi] = A[vi] * B[vi] + A[vi]\n";

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
    wf_kernel *k = wf_tir_build(sch, NULL);
    printf("== In [5]: %s\n", k ? "built" : wf_tir_error(sch));
    wf_kernel_free(k);
    wf_tir_clear_error(sch);
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
    printf("== trace\n%s", wf_tir_trace(sch));
    int rc = wf_tir_status(sch) == WF_OK ? 0 : 1;
    if (rc)
        printf("error: %s\n", wf_tir_error(sch));
    wf_tir_free(sch);
    return rc;
}

static int spatial(void) {
    wf_tir *sch = wf_tir_parse(scale_add);
    wf_tir_loop *l[1], *io[2];
    wf_tir_get_loops(sch, wf_tir_get_block(sch, "C"), l, 1);
    int64_t factors[2] = {2, 128};
    wf_tir_split(sch, l[0], 2, factors, io);
    wf_tir_bind(sch, io[0], "blockIdx.x");
    wf_tir_bind(sch, io[1], "threadIdx.x");
    wf_kernel *k = wf_tir_build(sch, NULL);
    if (!k) {
        printf("build failed: %s\n", wf_tir_error(sch));
        wf_tir_free(sch);
        return 1;
    }
    const wf_launch_info *li = wf_kernel_launch(k);
    const char *src = strstr(wf_kernel_source(k), "extern \"C\" __global__");
    printf("== scale_add: %lld blocks x %lld threads\n%s\n", (long long)li->grid[0],
           (long long)li->block[0], src ? src : wf_kernel_source(k));
    float a[256], b[256], c[256];
    for (int i = 0; i < 256; i++)
        a[i] = (float)i * 0.25f, b[i] = (float)(i % 3);
    wf_buffer in[2] = {{a, WF_F32, 1, {256}, {0}, -1}, {b, WF_F32, 1, {256}, {0}, -1}};
    wf_buffer out[1] = {{c, WF_F32, 1, {256}, {0}, -1}};
    wf_status st = wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1);
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += fabsf(c[i] - (a[i] * b[i] + a[i])) > 1e-6f;
    printf("executor: %s, %d of 256 wrong\n", wf_status_name(st), bad);
    wf_kernel_free(k);
    wf_tir_free(sch);
    return st == WF_OK && bad == 0 ? 0 : 1;
}

int main(void) {
    int rc = notebook();
    return rc | spatial();
}
