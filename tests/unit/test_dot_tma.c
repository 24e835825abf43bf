/*
 * test_dot_tma.c -- seed 001's colours in the IterDomain diagram: the
 * consumer of a TMA copy has its box (tile) IterDomains green and its
 * coordinate IterDomains brown, a partitioned one (split into a coordinate
 * and a box) plain, the IterDomains of a swizzled allocation view of the
 * tile green too; a TMA store colours the global tensor; a tensor that no
 * TMA copy defines, or a TMA copy without a Bulk tile, has no TMA colours.
 * Each expected node line is written out in full. Each schedule also
 * compiles and runs on the executor, so the colours are those of a TMA copy
 * weft accepts.
 */
#include "harness.h"

#include <stdlib.h>

#define BOX   "fillcolor=\"#93c47d\""
#define COORD "fillcolor=\"#c9a27e\""

/* in [128, 32] -> s (shared) -> out; s split [4 (BIDx), 32, 32]; tma: s is
   a TMA load with its [32, 32] tile Bulk; swizzle: 128-byte TMA swizzle. */
static wf_fusion *tma_load(bool tma, bool swizzle, wf_tv **smem, wf_tv **output) {
    int64_t shape[2] = {128, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, 32);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(o, 1, WF_TIDY);
    wf_tv_parallelize(o, 2, WF_TIDX);
    if (tma) {
        wf_tv_set_ldst(s, WF_LDST_TMA);
        wf_tv_parallelize(s, 1, WF_BULK);
        wf_tv_parallelize(s, 2, WF_BULK);
    }
    if (swizzle)
        wf_tv_tma_swizzle(s, 128);
    wf_tv_inline_at(s, 1);
    *smem = s;
    *output = o;
    return f;
}

static void check_runs(test_state *ts_, wf_fusion *f) {
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_NVRTC(k, 90);
    wf_kernel_free(k);
}

TEST(dot_tma_load_colours_box_and_coordinate_iterdomains) {
    wf_tv *s, *o;
    wf_fusion *f = tma_load(true, false, &s, &o);
    const char *dot = wf_dot_string(s);
    CHECK_HAS(dot, "  id2 [label=\"iS2{128}\\nlogical 0\"];\n"); /* partitioned: plain */
    CHECK_HAS(dot, "  id3 [label=\"iBulk3{32}\\nlogical 1, loop 2, TMA box\", " BOX "];\n");
    CHECK_HAS(dot, "  id6 [label=\"iblockIdx.x6{4}\\nloop 0, TMA coordinate\", " COORD
                   ", peripheries=2];\n");
    CHECK_HAS(dot, "  id7 [label=\"iBulk7{32}\\nloop 1, TMA box\", " BOX "];\n");
    check_runs(ts_, f);
    wf_fusion_free(f);
}

/* The swizzle's allocation view lies below the tile only: all of it box. */
TEST(dot_tma_swizzled_allocation_view_is_box) {
    wf_tv *s, *o;
    wf_fusion *f = tma_load(true, true, &s, &o);
    const char *dot = wf_dot_string(s);
    CHECK_HAS(dot, "  id10 [label=\"iS10{8}\\nTMA box\", " BOX "];\n");
    CHECK_HAS(dot, "  id11 [label=\"iS11{4}\\nalloc 5, TMA box\", " BOX "];\n");
    CHECK_HAS(dot, "  id16 [label=\"iS16{8}\\nalloc 2, TMA box\", " BOX "];\n");
    CHECK_HAS(dot, "  id17 [label=\"iS17{8}\\nalloc 4, TMA box\", " BOX "];\n");
    CHECK_HAS(dot, "  id2 [label=\"iS2{128}\\nlogical 0\"];\n");
    check_runs(ts_, f);
    wf_fusion_free(f);
}

/* Neither the threads' tensor nor a shared-memory tensor without TMA is coloured. */
TEST(dot_tma_no_colours_without_a_tma_copy) {
    wf_tv *s, *o;
    wf_fusion *f = tma_load(true, false, &s, &o);
    CHECK_LACKS(wf_dot_string(o), "TMA");
    CHECK_LACKS(wf_dot_string(o), BOX);
    wf_fusion_free(f);
    f = tma_load(false, false, &s, &o);
    CHECK_LACKS(wf_dot_string(s), "TMA");
    wf_tv_set_ldst(s, WF_LDST_TMA); /* a TMA copy, but no Bulk tile yet */
    CHECK_LACKS(wf_dot_string(s), "TMA");
    wf_fusion_free(f);
}

/* A TMA store: the global output is the consumer; its tile (rows 16 of 64,
   all 32 columns) is box, the row tiles and the rows' outer part coordinate. */
TEST(dot_tma_store_colours_the_global_tensor) {
    int64_t shape[2] = {64, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(o, WF_LDST_TMA);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 0, 16);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
    }
    wf_tv_parallelize(s, 1, WF_TIDY);
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_parallelize(o, 1, WF_BULK);
    wf_tv_parallelize(o, 2, WF_BULK);
    wf_inline_most(f);
    const char *dot = wf_dot_string(o);
    CHECK_HAS(dot, "\\nlogical 1, loop 2, TMA box\", " BOX "];\n");
    CHECK_HAS(dot, "{4}\\nloop 0, TMA coordinate\", " COORD ", peripheries=2];\n");
    CHECK_HAS(dot, "{64}\\nlogical 0\"];\n");
    CHECK_LACKS(wf_dot_string(s), "TMA");
    check_runs(ts_, f);
    wf_fusion_free(f);
}
