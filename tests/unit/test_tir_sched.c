/*
 * test_tir_sched.c -- the schedule primitives' refusals: each names the loop or block
 * and the rule, leaves the program unchanged (checked by printing it again), and is
 * sticky until wf_tir_clear_error.
 */
#include <stdlib.h>

#include "harness.h"
#include "tir_sources.h"

/* Checks the error and that the program printed is still `before`; clears the error. */
static void refused(test_state *ts_, wf_tir *s, const char *before, wf_status code,
                    const char *msg) {
    CHECK_EQ_I64(wf_tir_status(s), code);
    CHECK_STR(wf_tir_error(s), msg);
    wf_tir_clear_error(s);
    CHECK_STR(wf_tir_script(s), before);
}

static char *snapshot(wf_tir *s) {
    const char *t = wf_tir_script(s);
    return t ? strdup(t) : NULL;
}

TEST(tir_sched_stale_loop_after_split) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_loop *l[2], *io[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "sum_broadcast"), l, 2);
    int64_t f[2] = {2, 128};
    wf_tir_split(s, l[0], 2, f, io);
    char *before = snapshot(s);
    wf_tir_bind(s, l[0], "blockIdx.x");
    refused(ts_, s, before, WF_ERR_ARG,
            "bind: the loop i is stale: an earlier primitive replaced it; get the loops again "
            "with get_loops");
    free(before);
    wf_tir_free(s);
}

TEST(tir_sched_split_refusals) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_loop *l[2], *out[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "sum_broadcast"), l, 2);
    char *before = snapshot(s);
    int64_t two_none[2] = {-1, -1}, zero[2] = {0, 256}, small[2] = {2, 64};
    wf_tir_split(s, l[0], 2, two_none, out);
    refused(ts_, s, before, WF_ERR_ARG,
            "split: Only one factor can be specified as -1 or None (loop i)");
    wf_tir_split(s, l[0], 2, zero, out);
    refused(ts_, s, before, WF_ERR_ARG,
            "split: All the constant factors are required to be positive. However, the factor 0 "
            "of loop i is not");
    wf_tir_split(s, l[0], 2, small, out);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "split: The product of factors is not larger than or equal to the extent of loop i: "
            "the factors multiply to 128 but the loop has 256 iterations (make a factor larger, "
            "or pass None for one of them)");
    free(before);
    wf_tir_free(s);
}

TEST(tir_sched_bind_refusals) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    wf_tir_loop *l[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "sum_broadcast"), l, 2);
    char *before = snapshot(s);
    wf_tir_bind(s, l[0], "warp.x");
    refused(ts_, s, before, WF_ERR_ARG,
            "bind: the thread axis \"warp.x\" is not one of blockIdx.x/y/z, threadIdx.x/y/z");
    wf_tir_bind(s, l[1], "blockIdx.x");
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "bind: The loop k cannot be bound because the block iter vk of block "
            "\"sum_broadcast\" is of reduction type and is bound to it");
    wf_tir_vectorize(s, l[1]);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "vectorize: The loop k cannot be vectorized because the block iter vk of block "
            "\"sum_broadcast\" is of reduction type and is bound to it");
    /* threadIdx on the reduction loop: TVM's cross-thread reduction, accepted */
    wf_tir_bind(s, l[1], "threadIdx.x");
    CHECK_STR(wf_tir_error(s), "");
    CHECK_HAS(wf_tir_script(s), "for k in T.thread_binding(256, thread=\"threadIdx.x\"):");
    /* built as the core's block reduction (results: test_tir_reduce.c) */
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    CHECK(k && wf_kernel_launch(k)->block[0] == 256);
    wf_kernel_free(k);
    free(before);
    wf_tir_free(s);
}

TEST(tir_sched_get_block_missing) {
    wf_tir *s = wf_tir_parse(TIR_SUM_BROADCAST);
    CHECK(wf_tir_get_block(s, "nope") == NULL);
    CHECK_STR(wf_tir_error(s), "get_block: Cannot find a block with the name: nope (the blocks "
                               "are named by T.block(\"...\") and by cache_read / cache_write)");
    wf_tir_free(s);
}

TEST(tir_sched_cache_refusals) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    char *before = snapshot(s);
    CHECK(wf_tir_cache_read(s, c, 1, "shared") == NULL);
    refused(ts_, s, before, WF_ERR_ARG,
            "cache_read: The input `buffer_index` is out of range. It is required to be in "
            "range [0, 1) where `num_read_regions` is the number of buffer regions read by the "
            "block \"C\"");
    CHECK(wf_tir_cache_write(s, c, 0, "texture") == NULL);
    refused(ts_, s, before, WF_ERR_ARG,
            "cache_write: The input storage scope \"texture\" is invalid (global, shared and "
            "local are)");
    wf_tir_compute_inline(s, c);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "compute_inline: The block \"C\" is an output block: it writes the parameter C, which "
            "must stay in memory");
    free(before);
    wf_tir_free(s);
}

TEST(tir_sched_compute_at_refusals) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *dl[2], *cl[2];
    wf_tir_block *d = wf_tir_get_block(s, "D"), *c = wf_tir_get_block(s, "C");
    wf_tir_get_loops(s, d, dl, 2);
    wf_tir_get_loops(s, c, cl, 2);
    char *before = snapshot(s);
    wf_tir_compute_at(s, d, dl[0]);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "compute_at: the loop i is already around the block \"D\" (give a loop of another "
            "block's nest)");
    wf_tir_compute_at(s, c, dl[1]);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "compute_at: no block under the loop j reads C, so \"C\" has no place there");
    free(before);
    wf_tir_free(s);
}

TEST(tir_sched_reorder_refusals) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *dl[2], *cl[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "D"), dl, 2);
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), cl, 2);
    char *before = snapshot(s);
    wf_tir_loop *twice[2] = {dl[0], dl[0]}, *apart[2] = {dl[0], cl[1]};
    wf_tir_reorder(s, 2, twice);
    refused(ts_, s, before, WF_ERR_ARG,
            "reorder: Loop i appears in the input array for multiple times");
    wf_tir_reorder(s, 2, apart);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "reorder: the loops are not in a chain: j is not inside i");
    free(before);
    wf_tir_free(s);
}

/* A handle of another schedule is refused, not followed. */
TEST(tir_sched_foreign_handle) {
    wf_tir *a = wf_tir_parse(TIR_ADD_RELU), *b = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_block *c = wf_tir_get_block(a, "C");
    wf_tir_compute_inline(b, c);
    CHECK_STR(wf_tir_error(b), "compute_inline: the block handle is NULL or not of this schedule");
    wf_tir_free(a);
    wf_tir_free(b);
}

/* fuse of a loop and the next loop of a nest that compute_at put a block beside: the
   inner loop is in the outer's body, not its only child (TVM's message; it had said
   "the outer loop i is not the parent of the inner loop j"). */
TEST(tir_sched_fuse_loop_beside_another_block) {
    wf_tir *s = wf_tir_parse(TIR_ADD_RELU);
    wf_tir_loop *cl[2];
    wf_tir_get_loops(s, wf_tir_get_block(s, "C"), cl, 2);
    wf_tir_compute_at(s, wf_tir_get_block(s, "D"), cl[0]);
    CHECK_STR(wf_tir_error(s), "");
    char *before = snapshot(s);
    CHECK(wf_tir_fuse(s, 2, cl) == NULL);
    refused(ts_, s, before, WF_ERR_SCHEDULE,
            "fuse: The loops can't be fused because the inner loop j is not the only child of "
            "outer loop i");
    free(before);
    wf_tir_free(s);
}
