/*
 * main.c -- the `weft` command. For now it prints the version and, with
 * `weft demo`, compiles the seed's naive GSGCopy and prints its kernel. A
 * script front-end comes later (roadmap item 7). Uses only include/weft.h.
 */
#include <stdio.h>
#include <string.h>

#include "weft.h"

static int demo(void) {
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

int weft_draw(int argc, char **argv); /* draw.c */

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "draw") == 0)
        return weft_draw(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "demo") == 0)
        return demo();
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("weft %s\n", wf_version());
        return 0;
    }
    fprintf(stderr, "usage: weft demo | weft --version\n");
    return 2;
}
