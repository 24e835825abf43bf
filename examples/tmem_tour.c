/*
 * tmem_tour.c -- a tour of Blackwell tensor memory (docs/tutorial-tensor-
 * memory.md explains it), as a C program: schedules that break its rules
 * and schedules that keep them. Every example is the copy gmem -> registers -> tensor memory ->
 * registers -> gmem (tensor memory is only reachable from registers, through
 * tcgen05.st and tcgen05.ld). For each: either the error that explains the broken rule or
 * the kernel for sm_100a, its
 * tensor-memory region, and a run on the CPU reference executor (no
 * Blackwell GPU is needed to check the result).
 *
 * Run: make demo (or build/examples/tmem_tour [name] for one example).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

typedef struct {
    wf_fusion *f;
    wf_tv *tv[5];
} chain;

static chain chain_new(int ndim, const int64_t *shape) {
    chain c;
    c.f = wf_fusion_new();
    c.tv[0] = wf_input(c.f, WF_F32, ndim, shape);
    for (int i = 1; i < 5; i++)
        c.tv[i] = wf_set(c.tv[i - 1]);
    wf_output(c.f, c.tv[4]);
    wf_tv_set_memory(c.tv[2], WF_MEM_TENSOR);
    wf_tv_set_ldst(c.tv[2], WF_LDST_TMEM_STORE);
    wf_tv_set_ldst(c.tv[3], WF_LDST_TMEM_LOAD);
    return c;
}

typedef struct {
    const char *name, *what;
    int ndim;
    int64_t shape[7];
    wf_ptype ptypes[7]; /* for tv4, then copied to all tensors */
    int inline_at;      /* inline_all_at(tv4, pos) if > 0 */
    int dimsep;
} example;

static const example examples[] = {
    {"TooManyLanes",
     "3 * 11 * 13 = 429 lanes are needed, 128 exist",
     7,
     {2, 3, 5, 7, 11, 13, 17},
     {WF_BIDX, WF_TIDX, WF_SERIAL, WF_BIDY, WF_TIDY},
     3,
     -2},
    {"TooManyCols",
     "5 * 13 * 17 = 1105 columns are needed, 512 exist",
     7,
     {32, 3, 5, 7, 11, 13, 17},
     {WF_TIDX, WF_BIDX, WF_TIDY, WF_SERIAL, WF_BIDY, WF_TIDZ},
     4,
     1},
    {"NotWarpCollective",
     "16 threads cannot run a warp-collective tcgen05 access",
     2,
     {16, 2},
     {WF_TIDX},
     0,
     1},
    {"NotContiguous", "a warp touches every other lane", 3, {64, 2, 2}, {WF_TIDX, WF_TIDY}, 0, 2},
    {"OneLane", "a warp touches a single lane", 2, {32, 32}, {WF_TIDY, WF_TIDX}, 0, 1},
    {"WrongSubpartition",
     "warp 0 touches sub-partitions 0 and 1",
     4,
     {2, 2, 32, 2},
     {WF_TIDY, WF_SERIAL, WF_TIDX},
     0,
     3},
    {"WrongSubpartition2",
     "both warps touch sub-partition 0",
     2,
     {32, 2},
     {WF_TIDX, WF_TIDY},
     0,
     1},
    {"WarpXYZ",
     "one warp, a 32 x 1 box per iteration",
     4,
     {2, 4, 4, 2},
     {WF_TIDZ, WF_TIDY, WF_TIDX},
     0,
     3},
    {"WarpGroupXYZ",
     "a warp group accesses whole columns",
     4,
     {2, 8, 8, 2},
     {WF_TIDZ, WF_TIDY, WF_TIDX},
     0,
     3},
    {"WarpGroupXYColZ",
     "warp group i accesses column i",
     3,
     {8, 16, 8},
     {WF_TIDY, WF_TIDX, WF_TIDZ},
     0,
     2},
    {"WarpGroupXColYZ",
     "warp groups access columns 0, 2, 1, 3",
     3,
     {128, 2, 2},
     {WF_TIDX, WF_TIDY, WF_TIDZ},
     0,
     1},
    {"X1WarpGroupYColZ",
     "TIDx of extent 1 does not disturb the pattern",
     3,
     {1, 128, 2},
     {WF_TIDX, WF_TIDY, WF_TIDZ},
     0,
     2},
};

/* Run on the executor with inputs 0, 1, 2, ...: the output must equal them. */
static int run_copy(wf_kernel *k, int ndim, const int64_t *shape) {
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= shape[i];
    float *in = malloc(sizeof(float) * (size_t)n), *out = malloc(sizeof(float) * (size_t)n);
    wf_buffer bin = {in, WF_F32, ndim, {0}, {0}, -1}, bout = {out, WF_F32, ndim, {0}, {0}, -1};
    for (int i = 0; i < ndim; i++)
        bin.shape[i] = bout.shape[i] = shape[i];
    for (int64_t i = 0; i < n; i++) {
        in[i] = (float)i;
        out[i] = -1.0f;
    }
    wf_status s = wf_run(k, WF_BACKEND_INTERP, &bin, 1, &bout, 1);
    int bad = s != WF_OK || memcmp(in, out, sizeof(float) * (size_t)n) != 0;
    printf("CPU reference executor: %s\n", s != WF_OK ? wf_last_run_error(k)
                                           : bad      ? "WRONG OUTPUT"
                                                      : "output equals input");
    free(in);
    free(out);
    return bad;
}

static int show(const example *e) {
    chain c = chain_new(e->ndim, e->shape);
    for (int i = 0; i < e->ndim; i++)
        if (e->ptypes[i] != WF_SERIAL)
            wf_tv_parallelize(c.tv[4], i, e->ptypes[i]);
    wf_parallelize_all_like(c.tv[4], 0);
    if (e->inline_at)
        wf_inline_all_at(c.tv[4], e->inline_at);
    wf_tv_set_tmem_dimsep(c.tv[2], e->dimsep);
    printf("==== %s: %s\n", e->name, e->what);
    wf_compile_options opt = {.sm = 100};
    wf_kernel *k = wf_compile(c.f, &opt);
    int bad = 0;
    if (!k) {
        printf("compile error (this schedule breaks a rule):\n  %s\n\n", wf_fusion_error(c.f));
    } else {
        const char *src = strstr(wf_kernel_source(k), "extern \"C\"");
        fputs(src, stdout);
        const wf_launch_info *li = wf_kernel_launch(k);
        printf("tensor memory: %lld lanes x %lld columns\n", (long long)li->tmem_lanes[0],
               (long long)li->tmem_columns[0]);
        bad = run_copy(k, e->ndim, e->shape);
        printf("\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(c.f);
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0;
    for (size_t i = 0; i < sizeof examples / sizeof *examples; i++)
        if (argc < 2 || strcmp(argv[1], examples[i].name) == 0)
            bad += show(&examples[i]);
    printf("(More tensor-memory schedules -- inlined, transposed, vectorized -- are in\n"
           "tests/seeds/test_seed000_tmem.c and docs/tutorial-tensor-memory.md.)\n");
    return bad ? 1 : 0;
}
