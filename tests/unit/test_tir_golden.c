/*
 * test_tir_golden.c -- the TensorIR front door against Apache TVM itself: each case
 * replays a schedule that tests/tir/gen_golden.py ran on TVM, and the program weft
 * prints after every step must be TVM's text (stored in test_tir_golden.h, converted
 * to the classic spelling). Every golden text must also parse back and print the same
 * (the round trip), and a step TVM refuses must be refused with TVM's sentence.
 */
#include "harness.h"
#include "test_tir_golden.h"
#include "tir_sources.h"

#define SCRIPT_IS(s, golden) CHECK_STR(wf_tir_script(s), golden)

/* Parses a golden text and prints it: the text must come back unchanged. */
static bool round_trip(test_state *ts_, const char *text) {
    wf_tir *s = wf_tir_parse(text);
    CHECK_STR(wf_tir_error(s), "");
    bool same = wf_tir_script(s) && strcmp(wf_tir_script(s), text) == 0;
    SCRIPT_IS(s, text);
    wf_tir_free(s);
    return same;
}

static wf_tir_loop *loop_at(wf_tir *s, const char *block, int i) {
    wf_tir_loop *l[16] = {0};
    int n = wf_tir_get_loops(s, wf_tir_get_block(s, block), l, 16);
    return n > 0 ? l[i < 0 ? n + i : i] : NULL;
}

TEST(tir_golden_seed004_split_bind) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    CHECK_STR(wf_tir_error(s), "");
    SCRIPT_IS(s, golden_seed004_orig);
    wf_tir_block *b = wf_tir_get_block(s, "sum_broadcast");
    wf_tir_loop *l[2], *io[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, b, l, 2), 2);
    int64_t f[2] = {2, 128};
    wf_tir_split(s, l[0], 2, f, io);
    SCRIPT_IS(s, golden_seed004_split);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    SCRIPT_IS(s, golden_seed004_bind);
    CHECK_STR(wf_tir_trace(s), "# from tvm import tir\n"
                               "def apply_trace(sch: tir.Schedule) -> None:\n"
                               "  b0 = sch.get_block(name=\"sum_broadcast\", func_name=\"main\")\n"
                               "  l1, l2 = sch.get_loops(block=b0)\n"
                               "  l3, l4 = sch.split(loop=l1, factors=[2, 128], "
                               "preserve_unit_iters=True, disable_predication=False)\n"
                               "  sch.bind(loop=l3, thread_axis=\"blockIdx.x\")\n"
                               "  sch.bind(loop=l4, thread_axis=\"threadIdx.x\")\n");
    wf_tir_free(s);
}

TEST(tir_golden_split_none_inferred) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    int64_t f[2] = {-1, 128};
    wf_tir_loop *io[2];
    wf_tir_split(s, loop_at(s, "sum_broadcast", 0), 2, f, io);
    SCRIPT_IS(s, golden_seed004_split);
    wf_tir_free(s);
}

TEST(tir_golden_fuse_split_vectorize_bind) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    CHECK_STR(wf_tir_error(s), "");
    SCRIPT_IS(s, golden_elem_fuse_orig);
    wf_tir_loop *ij[2] = {loop_at(s, "C", 0), loop_at(s, "C", 1)};
    wf_tir_loop *fused = wf_tir_fuse(s, 2, ij);
    SCRIPT_IS(s, golden_elem_fuse_fuse);
    int64_t f4[2] = {-1, 4}, f64[2] = {-1, 64};
    wf_tir_loop *oi[2], *bt[2];
    wf_tir_split(s, fused, 2, f4, oi);
    SCRIPT_IS(s, golden_elem_fuse_split);
    wf_tir_vectorize(s, oi[1]);
    SCRIPT_IS(s, golden_elem_fuse_vectorize);
    wf_tir_split(s, oi[0], 2, f64, bt);
    wf_tir_bind(s, bt[0], "blockIdx.x");
    wf_tir_bind(s, bt[1], "threadIdx.x");
    SCRIPT_IS(s, golden_elem_fuse_bind);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

TEST(tir_golden_split_where_reorder_unroll) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *i = loop_at(s, "D", 0), *j = loop_at(s, "D", 1), *jj[2];
    int64_t f5[2] = {-1, 5};
    wf_tir_split(s, j, 2, f5, jj);
    SCRIPT_IS(s, golden_elem_where_split_where);
    wf_tir_loop *order[2] = {jj[1], i};
    wf_tir_reorder(s, 2, order);
    SCRIPT_IS(s, golden_elem_where_reorder);
    wf_tir_unroll(s, jj[1]);
    SCRIPT_IS(s, golden_elem_where_unroll);
    /* 4 * 8 < 64: TVM refuses, and the program stays as it was */
    int64_t small[2] = {4, 8};
    wf_tir_split(s, i, 2, small, jj);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_SCHEDULE);
    CHECK(strstr(wf_tir_error(s), "The product of factors is not larger than or equal to the "
                                  "extent of loop") != NULL);
    CHECK_STR(wf_tir_error(s), "split: The product of factors is not larger than or equal to the "
                               "extent of loop i: the factors multiply to 32 but the loop has 64 "
                               "iterations (make a factor larger, or pass None for one of them)");
    wf_tir_clear_error(s);
    SCRIPT_IS(s, golden_elem_where_unroll);
    wf_tir_free(s);
}

TEST(tir_golden_fuse_wrong_order) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *ji[2] = {loop_at(s, "C", 1), loop_at(s, "C", 0)};
    CHECK(wf_tir_fuse(s, 2, ji) == NULL);
    CHECK(strstr(wf_tir_error(s), "The loops can't be fused because the outer loop") != NULL);
    CHECK_STR(wf_tir_error(s), "fuse: The loops can't be fused because the outer loop j is not "
                               "the parent of the inner loop i");
    wf_tir_clear_error(s);
    SCRIPT_IS(s, golden_elem_errors_orig);
    wf_tir_free(s);
}

TEST(tir_golden_matmul_tile) {
    wf_tir *s = wf_tir_parse(TIR_MATMUL);
    SCRIPT_IS(s, golden_matmul_tiled_orig);
    wf_tir_loop *ijk[3], *i[2], *j[2], *k[2];
    int64_t f16[2] = {-1, 16}, f8[2] = {-1, 8};
    CHECK_EQ_I64(wf_tir_get_loops(s, wf_tir_get_block(s, "C"), ijk, 3), 3);
    wf_tir_split(s, ijk[0], 2, f16, i);
    wf_tir_split(s, ijk[1], 2, f16, j);
    wf_tir_split(s, ijk[2], 2, f8, k);
    wf_tir_loop *order[6] = {i[0], j[0], k[0], i[1], j[1], k[1]};
    wf_tir_reorder(s, 6, order);
    SCRIPT_IS(s, golden_matmul_tiled_tile);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

/* Every program TVM printed parses back and prints identically. */
TEST(tir_golden_round_trip) {
    const char *all[] = {golden_seed004_orig,
                         golden_seed004_split,
                         golden_seed004_bind,
                         golden_seed004_cache_read,
                         golden_seed004_compute_at,
                         golden_seed004_coop,
                         golden_elem_fuse_fuse,
                         golden_elem_fuse_split,
                         golden_elem_fuse_vectorize,
                         golden_elem_fuse_bind,
                         golden_elem_where_split_where,
                         golden_elem_where_reorder,
                         golden_elem_where_unroll,
                         golden_elem_compute_at_compute_at,
                         golden_elem_cache_cache_read,
                         golden_elem_inline_compute_inline,
                         golden_matmul_tiled_compute_at,
                         golden_matmul_tiled_bind};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!round_trip(ts_, all[i]))
            printf("  (round trip %zu)\n", i);
}

/* Seed 004, In [6] to In [8]: the shared-memory stage and the cooperative fetch. */
TEST(tir_golden_seed004_cache_read_compute_at_coop) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_block *block = wf_tir_get_block(s, "sum_broadcast");
    wf_tir_loop *l[2], *io[2];
    wf_tir_get_loops(s, block, l, 2);
    int64_t f[2] = {2, 128};
    wf_tir_split(s, l[0], 2, f, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    wf_tir_block *a_shared = wf_tir_cache_read(s, block, 0, "shared");
    SCRIPT_IS(s, golden_seed004_cache_read);
    wf_tir_compute_at(s, a_shared, io[1]);
    SCRIPT_IS(s, golden_seed004_compute_at);
    wf_tir_loop *al[3], *ax[2];
    CHECK_EQ_I64(wf_tir_get_loops(s, a_shared, al, 3), 3);
    int64_t fc[2] = {-1, 128};
    wf_tir_split(s, al[2], 2, fc, ax);
    wf_tir_bind(s, ax[1], "threadIdx.x");
    SCRIPT_IS(s, golden_seed004_coop);
    CHECK_STR(wf_tir_error(s), "");
    CHECK_STR(wf_tir_trace(s),
              "# from tvm import tir\n"
              "def apply_trace(sch: tir.Schedule) -> None:\n"
              "  b0 = sch.get_block(name=\"sum_broadcast\", func_name=\"main\")\n"
              "  l1, l2 = sch.get_loops(block=b0)\n"
              "  l3, l4 = sch.split(loop=l1, factors=[2, 128], preserve_unit_iters=True, "
              "disable_predication=False)\n"
              "  sch.bind(loop=l3, thread_axis=\"blockIdx.x\")\n"
              "  sch.bind(loop=l4, thread_axis=\"threadIdx.x\")\n"
              "  b5 = sch.cache_read(block=b0, read_buffer_index=0, storage_scope=\"shared\")\n"
              "  sch.compute_at(block=b5, loop=l4, preserve_unit_loops=False, index=-1)\n"
              "  l6, l7, l8 = sch.get_loops(block=b5)\n"
              "  l9, l10 = sch.split(loop=l8, factors=[None, 128], preserve_unit_iters=True, "
              "disable_predication=False)\n"
              "  sch.bind(loop=l10, thread_axis=\"threadIdx.x\")\n");
    wf_tir_free(s);
}

TEST(tir_golden_compute_inline) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_compute_inline(s, wf_tir_get_block(s, "D"));
    SCRIPT_IS(s, golden_elem_inline_compute_inline);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

TEST(tir_golden_reverse_compute_inline) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_reverse_compute_inline(s, wf_tir_get_block(s, "C"));
    SCRIPT_IS(s, golden_elem_rinline_reverse_compute_inline);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

TEST(tir_golden_compute_at_tile) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *io[2];
    int64_t f[2] = {-1, 16};
    wf_tir_split(s, loop_at(s, "C", 0), 2, f, io);
    SCRIPT_IS(s, golden_elem_compute_at_split);
    wf_tir_compute_at(s, wf_tir_get_block(s, "D"), io[0]);
    SCRIPT_IS(s, golden_elem_compute_at_compute_at);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

TEST(tir_golden_cache_write_read) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_cache_write(s, c, 0, "local");
    SCRIPT_IS(s, golden_elem_cache_cache_write);
    wf_tir_cache_read(s, c, 0, "shared");
    SCRIPT_IS(s, golden_elem_cache_cache_read);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

/* The acceptance's tiled matmul: shared operands at k_0, a local accumulator written
   back per tile, blocks bound. */
TEST(tir_golden_matmul_cache_compute_at) {
    wf_tir *s = wf_tir_parse(TIR_MATMUL);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *ijk[3], *i[2], *j[2], *k[2];
    int64_t f16[2] = {-1, 16}, f8[2] = {-1, 8};
    wf_tir_get_loops(s, c, ijk, 3);
    wf_tir_split(s, ijk[0], 2, f16, i);
    wf_tir_split(s, ijk[1], 2, f16, j);
    wf_tir_split(s, ijk[2], 2, f8, k);
    wf_tir_loop *order[6] = {i[0], j[0], k[0], i[1], j[1], k[1]};
    wf_tir_reorder(s, 6, order);
    wf_tir_block *cl = wf_tir_cache_write(s, c, 0, "local");
    SCRIPT_IS(s, golden_matmul_tiled_cache_write);
    wf_tir_reverse_compute_at(s, cl, j[0]);
    SCRIPT_IS(s, golden_matmul_tiled_reverse_compute_at);
    wf_tir_block *a = wf_tir_cache_read(s, c, 0, "shared");
    wf_tir_block *b = wf_tir_cache_read(s, c, 1, "shared");
    SCRIPT_IS(s, golden_matmul_tiled_cache_read);
    wf_tir_compute_at(s, a, k[0]);
    wf_tir_compute_at(s, b, k[0]);
    SCRIPT_IS(s, golden_matmul_tiled_compute_at);
    wf_tir_bind(s, i[0], "blockIdx.x");
    wf_tir_bind(s, j[0], "blockIdx.y");
    SCRIPT_IS(s, golden_matmul_tiled_bind);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_free(s);
}

#define TIR_RSUM                                                                                   \
    "@T.prim_func\n"                                                                               \
    "def rsum(A: T.Buffer((128, 256), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"          \
    "    for i, k in T.grid(128, 256):\n"                                                          \
    "        with T.block(\"B\"):\n"                                                               \
    "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"                                          \
    "            with T.init():\n"                                                                 \
    "                B[vi] = T.float32(0)\n"                                                       \
    "            B[vi] = B[vi] + A[vi, vk]\n"

/* rfactor at the inner and at the outer part of a split reduction loop. */
TEST(tir_golden_rfactor) {
    for (int outer = 0; outer < 2; outer++) {
        wf_tir *s = wf_tir_parse(TIR_RSUM);
        wf_tir_loop *l[2], *k[2];
        wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
        int64_t f[2] = {-1, 32};
        wf_tir_split(s, l[1], 2, f, k);
        if (!outer)
            SCRIPT_IS(s, golden_rsum_rfactor_split);
        wf_tir_block *rf = wf_tir_rfactor(s, k[outer ? 0 : 1], outer);
        CHECK_STR(wf_tir_error(s), "");
        CHECK(rf != NULL);
        SCRIPT_IS(s, outer ? golden_rsum_rfactor1_rfactor_ko : golden_rsum_rfactor_rfactor);
        /* the program parses back identically */
        CHECK(round_trip(ts_, wf_tir_script(s)));
        wf_tir_free(s);
    }
}

TEST(tir_rfactor_refusals) {
    wf_tir *s = wf_tir_parse(TIR_RSUM);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "B"), l, 2);
    CHECK(wf_tir_rfactor(s, l[0], 0) == NULL);
    CHECK_STR(wf_tir_error(s), "rfactor: The loop to be applied rfactor is i, which is required "
                               "not to be touched by any data parallel block iter of the block "
                               "below (vi touches it)");
    wf_tir_clear_error(s);
    CHECK(wf_tir_rfactor(s, l[1], 2) == NULL);
    CHECK_STR(wf_tir_error(s), "rfactor: The input `factor_axis` is out of range. It is required "
                               "to be in range [-(ndim + 1), ndim] where `ndim` is the number of "
                               "dimensions of the write buffer B (1)");
    wf_tir_clear_error(s);
    CHECK_STR(wf_tir_script(s), golden_rsum_rfactor1_orig);
    wf_tir_free(s);
}

/* rfactor, then the write-back's reduction loop on threadIdx.x: TVM's cross-thread
   reduction, printed as TVM prints it (built once the core has reductions). */
TEST(tir_golden_rfactor_cross_thread) {
    wf_tir *s = wf_tir_parse(TIR_RSUM);
    wf_tir_block *b = wf_tir_get_block(s, "B");
    wf_tir_loop *l[2], *k[2], *w[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f[2] = {-1, 32};
    wf_tir_split(s, l[1], 2, f, k);
    wf_tir_rfactor(s, k[1], 0);
    CHECK_EQ_I64(wf_tir_get_loops(s, b, w, 2), 2);
    wf_tir_bind(s, w[0], "blockIdx.x");
    wf_tir_bind(s, w[1], "threadIdx.x");
    CHECK_STR(wf_tir_error(s), "");
    SCRIPT_IS(s, golden_rsum_cross_thread_bind);
    CHECK_STR(wf_tir_trace(s),
              "# from tvm import tir\n"
              "def apply_trace(sch: tir.Schedule) -> None:\n"
              "  b0 = sch.get_block(name=\"B\", func_name=\"main\")\n"
              "  l1, l2 = sch.get_loops(block=b0)\n"
              "  l3, l4 = sch.split(loop=l2, factors=[None, 32], preserve_unit_iters=True, "
              "disable_predication=False)\n"
              "  b5 = sch.rfactor(loop=l4, factor_axis=0)\n"
              "  l6, l7 = sch.get_loops(block=b0)\n"
              "  sch.bind(loop=l6, thread_axis=\"blockIdx.x\")\n"
              "  sch.bind(loop=l7, thread_axis=\"threadIdx.x\")\n");
    wf_tir_free(s);
}
