/*
 * demo.c -- `weft demo`: the smallest complete use of the library. A 2 x 4
 * float tensor is copied global -> shared -> global, unscheduled (one
 * thread does it all); the command prints the generated CUDA C++ and the
 * shared memory it needs (8 floats: the whole tile, since nothing is
 * inlined or parallelized). `make demo` runs the longer examples/.
 */
#include <stdio.h>

#include "cli.h"
#include "weft.h"

int cli_demo(int argc, char **argv) {
    (void)argc;
    (void)argv;
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {2, 4};
    wf_tv *tv0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *tv1 = wf_set(tv0);
    wf_tv *tv2 = wf_set(tv1);
    wf_output(f, tv2);
    wf_tv_set_memory(tv1, WF_MEM_SHARED);
    wf_kernel *k = wf_compile(f, NULL);
    if (!k) {
        fprintf(stderr, "weft: %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return 1;
    }
    fputs(wf_kernel_source(k), stdout);
    printf("// shared memory: %lld bytes\n", (long long)wf_kernel_launch(k)->smem_bytes);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return 0;
}
