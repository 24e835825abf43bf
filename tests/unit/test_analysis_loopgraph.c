/*
 * test_analysis_loopgraph.c -- loop groups and loop promotion
 * (src/analysis/loopgraph.c): which loop IterDomains inlining makes one
 * loop, and which member each group's loop iterates.
 */
#include "analysis/analysis.h"
#include "harness.h"

/* T1 = broadcast(T0) [8, b{1}] inlined at 2 into T3 = T1 + T2 [8, 4]. */
static wf_fusion *broadcast_inlined(wf_tv **t1, wf_tv **t3) {
    wf_fusion *f = wf_fusion_new();
    int64_t s0[1] = {8}, s2[2] = {8, 4};
    bool bdim[2] = {false, true};
    *t1 = wf_broadcast(wf_input(f, WF_F32, 1, s0), 2, bdim);
    *t3 = wf_add(*t1, wf_input(f, WF_F32, 2, s2));
    wf_output(f, *t3);
    wf_tv_inline_at(*t1, 2);
    return f;
}

TEST(loopgraph_groups_inlined_axes_and_promotes_resolved_broadcast) {
    wf_tv *t1, *t3;
    wf_fusion *f = broadcast_inlined(&t1, &t3);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_arena a;
    arena_init(&a);
    an_loopgraph lg;
    ir_op *ops[2] = {t1->def, t3->def};
    CHECK(an_loops_unite(&lg, f, ops, 2, &a));
    CHECK(an_loops_promote(&lg, f, ops, 2, &a));
    CHECK_EQ_I64(lg.ngroups, 2);
    for (int i = 0; i < 2; i++)
        CHECK_EQ_I64(an_loop_group(&lg, t1->loop.ptr[i]), an_loop_group(&lg, t3->loop.ptr[i]));
    CHECK(lg.promoted[an_loop_group(&lg, t1->loop.ptr[1])] == t3->loop.ptr[1]);
    /* In any order, the broadcast member never wins over the resolved one. */
    ir_op *reversed[2] = {t3->def, t1->def};
    CHECK(an_loops_promote(&lg, f, reversed, 2, &a));
    CHECK(lg.promoted[an_loop_group(&lg, t1->loop.ptr[1])] == t3->loop.ptr[1]);
    CHECK(lg.promoted[an_loop_group(&lg, t1->loop.ptr[0])] == t1->loop.ptr[0]);
    arena_free(&a);
    wf_fusion_free(f);
}
