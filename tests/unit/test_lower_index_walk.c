/*
 * test_lower_index_walk.c -- state of the index walk between accesses: each
 * access of a statement starts a fresh walk. The lenient mode that the
 * previous access's linearization left on made a broadcast axis count as
 * known before the walk began, so the walk of a broadcast output stopped at
 * once and the check that its one element is not read across blocks never
 * saw the block axis (fuzz -s 1002 -c 130801: a cross-block race).
 */
#include "harness.h"

/* T2 = broadcast(T0) [2, b] is an output and is read by T4 = T2 + T3
   [2, n]; its broadcast axis, split outer by 8, shares a blockIdx.y loop
   with T4's n. Block 0 alone writes T2's element; the other blocks read it
   and cannot wait: refused at compile time. */
TEST(lower_index_broadcast_output_read_across_blocks_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t small[1] = {2}, sym[1] = {-1};
    bool at1[2] = {false, true}, at0[2] = {true, false};
    wf_tv *t0 = wf_input(f, WF_I32, 1, small);
    wf_tv *t1 = wf_input(f, WF_F32, 1, sym);
    wf_tv *t2 = wf_broadcast(t0, 2, at1);
    wf_tv *t3 = wf_broadcast(t1, 2, at0);
    wf_tv *t4 = wf_add(t2, t3);
    wf_output(f, t2);
    wf_output(f, t4);
    wf_tv_split_outer(t2, 1, 8);
    wf_propagate_transforms(t2);
    wf_tv_parallelize(t2, 1, WF_BIDY);
    wf_parallelize_all_like(t2, 0);
    wf_inline_most(f);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T2: fusion output T2 holds one element along its broadcast axis bS3{1}, but that "
              "axis shares a parallel loop with a tensor that expands it, and T2 is read in that "
              "loop: one thread or block would write the element that the others read, and they "
              "cannot wait for it; inline T2 less deeply (wf_tv_inline_at) or let its readers "
              "read its producer");
    wf_fusion_free(f);
}
