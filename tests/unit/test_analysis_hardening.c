/*
 * test_analysis_hardening.c -- schedules that used to give silent wrong
 * answers and must now be refused with a message naming the tensor and the
 * IterDomains (self-mapping, one parallel type on two loops that do not
 * correspond, cross-block reads of a fusion output, vectorized arithmetic),
 * or computed correctly (a stale parallel type on an allocation ID, a dead
 * op beside a live output, a cross-thread read of a fusion output); the
 * single-writer predicate and the write-after-read barrier pinned in the
 * kernel text; and a 20,000-op chain that must compile in near-linear time.
 */
#include "harness.h"

#include <time.h>

static void compile_fails(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    if (k)
        printf("  unexpected kernel:\n%s\n", wf_kernel_source(k));
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

static wf_tv *square_input(wf_fusion *f, int64_t n) {
    int64_t shape[2] = {n, n};
    return wf_input(f, WF_F32, 2, shape);
}

/* ---- 1. self-mapping ---- */

TEST(self_mapping_add_of_own_transpose_is_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = square_input(f, 5);
    wf_output(f, wf_add(a, wf_transpose(a, 0, 1)));
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T0 maps to itself: its IterDomains iS0{5} and iS1{5} are exactly mapped "
                  "through the fusion's ops (e.g. a tensor combined with its own transpose, "
                  "permute or second broadcast), so one loop or index cannot tell them apart; "
                  "compute one of the operands in a separate fusion and pass it in as an input");
    wf_fusion_free(f);
}

TEST(self_mapping_min_of_permute_and_itself_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[3] = {4, 4, 4};
    wf_tv *x = wf_input(f, WF_F32, 3, shape);
    int perm[3] = {1, 2, 0};
    wf_output(f, wf_binary(WF_MIN, wf_permute(x, perm), x));
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T0 maps to itself: its IterDomains iS0{4} and iS1{4} are exactly mapped "
                  "through the fusion's ops (e.g. a tensor combined with its own transpose, "
                  "permute or second broadcast), so one loop or index cannot tell them apart; "
                  "compute one of the operands in a separate fusion and pass it in as an input");
    wf_fusion_free(f);
}

TEST(self_mapping_outer_product_of_two_broadcasts_of_one_tensor_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {8};
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    bool col[2] = {false, true}, row[2] = {true, false};
    wf_output(f, wf_mul(wf_broadcast(x, 2, col), wf_broadcast(x, 2, row)));
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T3 maps to itself: its IterDomains iS5{8} and iS6{8} are exactly mapped "
                  "through the fusion's ops (e.g. a tensor combined with its own transpose, "
                  "permute or second broadcast), so one loop or index cannot tell them apart; "
                  "compute one of the operands in a separate fusion and pass it in as an input");
    wf_fusion_free(f);
}

/* A dead op (its output reaches no fusion output) must not map the live
   tensors' IDs: a + transpose(a), never used, beside a live copy of a. */
TEST(dead_op_does_not_influence_indexing_of_live_output) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = square_input(f, 6);
    wf_add(a, wf_transpose(a, 0, 1)); /* dead */
    wf_tv *out = wf_unary(WF_NEG, a);
    wf_output(f, out);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "T3[i0 * 6 + threadIdx.x] = -T0[i0 * 6 + threadIdx.x];");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- 2. one parallel type on loops that do not correspond ---- */

TEST(two_axes_of_one_tensor_on_tidx_are_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(square_input(f, 32));
    wf_output(f, out);
    wf_tv_split(out, 1, 8);
    wf_tv_parallelize(out, 0, WF_TIDX);
    wf_tv_parallelize(out, 2, WF_TIDX);
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T1: the loops of axes 0 (ithreadIdx.x2{32}) and 2 (ithreadIdx.x5{8}) both run "
                  "on TIDx, so both would take the same index; parallelize one of them on "
                  "another type, merge them first, or do not inline a producer whose loop brings "
                  "TIDx");
    wf_fusion_free(f);
}

TEST(local_producer_and_consumer_on_bidx_on_different_axes_are_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_NEG, square_input(f, 16));
    wf_tv *c = wf_unary(WF_ABS, b);
    wf_output(f, c);
    wf_tv_set_memory(b, WF_MEM_LOCAL);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_BIDX);
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T1 is in local memory, but T2 reads it across blocks on BIDx; a producer read "
                  "by other blocks must be in global memory");
    wf_fusion_free(f);
}

TEST(sibling_consumers_of_inlined_producer_on_bidx_on_different_axes_are_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_NEG, square_input(f, 16));
    wf_tv *c1 = wf_unary(WF_ABS, b), *c2 = wf_unary(WF_EXP, b);
    wf_output(f, c1);
    wf_output(f, c2);
    wf_tv_set_memory(b, WF_MEM_SHARED);
    wf_tv_parallelize(c1, 0, WF_BIDX);
    wf_tv_parallelize(c2, 1, WF_BIDX);
    wf_tv_inline_at(b, 1);
    /* T1 shares its BIDx loop with both consumers, so T3's axis 0 runs on BIDx too. */
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T3: the loops of axes 0 (iS6{16}) and 1 (iblockIdx.x7{16}) both run on BIDx, "
                  "so both would take the same index; parallelize one of them on another type, "
                  "merge them first, or do not inline a producer whose loop brings BIDx");
    wf_fusion_free(f);
}

/* ---- 3. reads of a fusion output inside the kernel ---- */

TEST(cross_block_read_of_fusion_output_is_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_NEG, square_input(f, 16));
    wf_tv *c = wf_unary(WF_ABS, b);
    wf_output(f, b);
    wf_output(f, c);
    wf_tv_parallelize(b, 0, WF_BIDX);
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T2 reads global T1 across blocks on BIDx (T1's axis iblockIdx.x2{16}, T2's "
                  "axis none): other blocks write the cells it reads, which needs a grid-wide "
                  "sync; parallelize exactly mapped axes of both on BIDx, or compute T2 in a "
                  "separate fusion");
    wf_fusion_free(f);
}

/* b and c have no block axis: block 0 alone writes both (the grid comes
   from d), so c's reads in block 0 see b; other blocks' reads are unused. */
TEST(read_of_fusion_output_written_and_read_by_block_0_only_is_allowed) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = square_input(f, 16);
    wf_tv *b = wf_unary(WF_NEG, a);
    wf_tv *c = wf_unary(WF_ABS, b), *d = wf_unary(WF_EXP, a);
    wf_output(f, b);
    wf_output(f, c);
    wf_output(f, d);
    wf_tv_parallelize(d, 0, WF_BIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_EQ_I64(wf_kernel_launch(k)->grid[0], 16);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(cross_thread_read_of_fusion_output_gets_a_barrier) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_NEG, square_input(f, 32));
    wf_tv *c = wf_unary(WF_ABS, b);
    wf_output(f, b);
    wf_output(f, c);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_tv_parallelize(c, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k),
                  "    T1[i0 * 32 + threadIdx.x] = -T0[i0 * 32 + threadIdx.x];\n"
                  "  }\n"
                  "  __syncthreads();\n"
                  "  for (wf_index i1 = 0; i1 < 32; ++i1) {\n"
                  "    T2[threadIdx.x * 32 + i1] = wf_abs(T1[threadIdx.x * 32 + i1]);\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- 4. a stale parallel type on an allocation ID ---- */

TEST(stale_ptype_on_allocation_id_that_is_no_loop_id_is_allocated) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {32};
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_tv *t2 = wf_set(t1);
    wf_output(f, t2);
    wf_tv_set_memory(t1, WF_MEM_LOCAL);
    wf_iterdomain *logical = wf_tv_axis(t1, 0);
    wf_tv_split(t1, 0, 8);
    wf_iterdomain *split[2] = {wf_tv_axis(t1, 0), wf_tv_axis(t1, 1)};
    wf_tv_set_loop_domain(t1, 1, &logical);
    wf_tv_parallelize(t1, 0, WF_TIDX);
    wf_tv_set_allocation_domain(t1, 1, &logical, true);
    wf_tv_set_loop_domain(t1, 2, split);
    wf_tv_parallelize(t2, 0, WF_TIDX);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    /* iS1 was parallelized on TIDx but no loop runs it: every thread holds all 32. */
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  float T1[32];\n"
                                       "  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
                                       "    for (wf_index i1 = 0; i1 < 8; ++i1) {\n"
                                       "      T1[i0 * 8 + i1] = T0[i0 * 8 + i1];\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- 5. vectorize on a non-copy ---- */

TEST(vectorized_arithmetic_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {64};
    wf_tv *out = wf_unary(WF_NEG, wf_input(f, WF_F32, 1, shape));
    wf_output(f, out);
    wf_tv_split(out, 0, 4);
    wf_tv_parallelize(out, 1, WF_VECTORIZE);
    compile_fails(ts_, f, WF_ERR_SCHEDULE,
                  "T1: axis 1 is vectorized, but T1 is defined by Unary, not by a copy (set or "
                  "permute); vectorize a wf_set copy of it, or use WF_UNROLL");
    wf_fusion_free(f);
}

/* ---- 6. compile time ---- */

TEST(pointwise_chain_of_20000_ops_compiles) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {128};
    wf_tv *t = wf_input(f, WF_F32, 1, shape);
    /* Every tensor split alike: 20,000 equal transforms for the closure. */
    for (int i = 0; i < 20000; i++) {
        t = wf_unary(i % 2 ? WF_NEG : WF_ABS, t);
        wf_tv_split(t, 0, 32);
        wf_tv_parallelize(t, 0, WF_BIDX);
        wf_tv_parallelize(t, 1, WF_TIDX);
    }
    wf_output(f, t);
    wf_inline_most(f);
    clock_t start = clock();
    wf_kernel *k = wf_compile(f, NULL);
    printf("  20000-op chain compiled in %.2f s\n", (double)(clock() - start) / CLOCKS_PER_SEC);
    CHECK(k != NULL);
    if (!k)
        printf("  %s\n", wf_fusion_error(f));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same chain with no inlining: 20,000 sibling loop nests for the sort. */
TEST(pointwise_chain_of_20000_ops_not_inlined_compiles) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {128};
    wf_tv *t = wf_input(f, WF_F32, 1, shape);
    for (int i = 0; i < 20000; i++) {
        t = wf_unary(i % 2 ? WF_NEG : WF_ABS, t);
        wf_tv_parallelize(t, 0, WF_TIDX); /* registers: one float per thread each */
    }
    wf_output(f, t);
    clock_t start = clock();
    wf_kernel *k = wf_compile(f, NULL);
    printf("  20000-op chain, not inlined, compiled in %.2f s\n",
           (double)(clock() - start) / CLOCKS_PER_SEC);
    CHECK(k != NULL);
    if (!k)
        printf("  %s\n", wf_fusion_error(f));
    wf_kernel_free(k);
    wf_fusion_free(f);
}
