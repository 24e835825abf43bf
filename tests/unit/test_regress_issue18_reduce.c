/*
 * test_regress_issue18_reduce.c -- issue 18, defects 3-5: cache_after of a
 * reduction, rfactor of an rfactor producer, and the accumulator init of a
 * thread-split reduction with an allocation domain.
 */
#include "harness.h"
#include "reduce_check.h"

/* ---- 3: cache_after of a reduction ----
   s = sum(a[4, 8], {0}) has logical domain [r4, i8]; its reader o = set(s)
   names s's logical dim 1. The cache c = set(s) holds only [i8], so o, which
   now reads c, must name c's dim 0: it kept dim 1, which c does not have, and
   wf_compile, wf_inline_most and wf_propagate_transforms read a NULL
   IterDomain. 0: compile as is, 1: inline_most, 2: propagate a split of o. */
static void cache_after_sum(test_state *ts_, int how, int64_t n) {
    int64_t shape[2] = {4, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, (int[]){0});
    wf_tv *o = wf_set(s);
    wf_output(f, o);
    wf_tv *c = wf_cache_after(s);
    CHECK(c != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    if (c) {
        int nl;
        wf_iterdomain *const *lg = wf_tv_logical_domain(c, &nl);
        CHECK_EQ_I64(nl, 1);
        CHECK_EQ_I64(wf_iterdomain_extent(lg[0]), n);
        CHECK(wf_tv_definition_input(o, 0) == c);
    }
    if (how == 1)
        wf_inline_most(f);
    if (how == 2) {
        wf_tv_split(o, 0, 3);
        wf_tv_parallelize(o, 1, WF_TIDX);
        wf_propagate_transforms(o);
        CHECK_EQ_I64(wf_tv_ndim(c), 2);
        wf_inline_most(f);
    }
    wf_kernel_free(rc_check(ts_, f, NULL, 1e-6));
    wf_fusion_free(f);
}

TEST(issue18_cache_after_of_a_sum_then_compile) {
    cache_after_sum(TS, 0, 8);
}

TEST(issue18_cache_after_of_a_sum_then_inline_most) {
    cache_after_sum(TS, 1, 8);
}

/* The split of 3 does not divide 8 or 7. */
TEST(issue18_cache_after_of_a_sum_then_propagate_a_split) {
    cache_after_sum(TS, 2, 8);
    cache_after_sum(TS, 2, 7);
}

/* A keepdims sum (the reduced dim broadcast back, [4, 6] -> [1, 6] via
   [r4, i6]) read by two ops, one of them reading the cache twice: every
   reader names the cache's dims. */
TEST(issue18_cache_after_of_a_keepdims_sum_with_several_readers) {
    int64_t shape[2] = {4, 6}, row[2] = {1, 6};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    wf_tv *y = wf_input(f, WF_F32, 2, row);
    wf_tv *s = wf_sum(x, 1, (int[]){0});
    wf_tv *k = wf_broadcast(s, 2, (bool[]){true, false});
    wf_output(f, wf_add(k, y));
    wf_output(f, wf_mul(s, s));
    wf_tv *c = wf_cache_after(s);
    CHECK(c != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_inline_most(f);
    wf_kernel_free(rc_check(TS, f, NULL, 1e-6));
    wf_fusion_free(f);
}

/* An inner sum over a 3-d tensor ([i3, r5, i2] -> reads dims 0 and 2): the
   reader's second dim moves from s's logical position 2 to the cache's 1. */
TEST(issue18_cache_after_of_a_middle_sum_maps_both_dims) {
    int64_t shape[3] = {3, 5, 2};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_I32, 3, shape), 1, (int[]){1});
    wf_tv *o = wf_unary(WF_NEG, s);
    wf_output(f, o);
    wf_tv *c = wf_cache_after(s);
    CHECK(c != NULL);
    wf_tv_merge(o, 0);
    wf_propagate_transforms(o);
    wf_inline_most(f);
    wf_kernel_free(rc_check(TS, f, NULL, 0));
    wf_fusion_free(f);
}
