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

/* ---- 5: the accumulator init of a block reduction with an allocation domain ----
   s = sum(a[3, n], {1}) read by o = set(s), split 16 with the inner axis on
   TIDx, rfactored, s in registers (or shared memory), its iteration axis
   split 2 (3 is not a multiple), and an explicit allocation domain holding
   its reduction axis: its logical domain [i3, r16]. Such an allocation
   domain keeps the init's guards (the split's tail would overrun it), and
   the init was also guarded by the reduced axis's bound, threadIdx.x < n
   (n = 1), while the block reduction's combine, which reads the accumulator,
   runs in all 16 threads: threads 1..15 read an unwritten register. The
   reduced axes hold no data, so the init now drops their bounds and
   coverage, as the combine does. before: the allocation domain is set
   before the rfactor, on the loop axes. */
static wf_kernel *init_guard(test_state *ts_, int64_t n, wf_memtype mem, bool before) {
    int64_t shape[2] = {3, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, (int[]){1});
    wf_output(f, wf_set(s));
    wf_tv_set_memory(s, mem);
    wf_tv_split(s, 1, 16); /* [i3, r(n/16), r16] */
    wf_tv_parallelize(s, 2, WF_TIDX);
    int nl;
    if (before)
        wf_tv_set_allocation_domain(s, 3, wf_tv_loop_domain(s, &nl), true);
    CHECK(wf_tv_rfactor(s, 1, (int[]){1}) != NULL); /* s: [i3, r16 TIDx] */
    wf_tv_split(s, 0, 2);                           /* s: [i2, i2, r16 TIDx] */
    if (!before)
        wf_tv_set_allocation_domain(s, 2, wf_tv_logical_domain(s, &nl), true);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(ts_, f, NULL, 1e-5);
    wf_fusion_free(f);
    return k;
}

TEST(issue18_block_reduction_init_in_every_thread_with_an_allocation_domain) {
    wf_kernel *k = init_guard(TS, 1, WF_MEM_LOCAL, false);
    if (k) /* T1 is s: its init is bounded by the iteration split only */
        CHECK_HAS(
            wf_kernel_source(k),
            "      if (i1 * 2 + i2 < 3) {\n        T1[i1 * 2 + i2] = (float)0;\n      }\n      {");
    wf_kernel_free(k);
    /* not multiples of the split, and longer than one block */
    wf_kernel_free(init_guard(TS, 5, WF_MEM_LOCAL, false));
    wf_kernel_free(init_guard(TS, 37, WF_MEM_LOCAL, false));
    wf_kernel_free(init_guard(TS, 64, WF_MEM_LOCAL, false));
}

TEST(issue18_block_reduction_init_allocation_domain_set_before_rfactor) {
    wf_kernel_free(init_guard(TS, 1, WF_MEM_LOCAL, true));
    wf_kernel_free(init_guard(TS, 21, WF_MEM_LOCAL, true));
}

TEST(issue18_block_reduction_init_in_shared_memory_with_an_allocation_domain) {
    wf_kernel_free(init_guard(TS, 1, WF_MEM_SHARED, false));
    wf_kernel_free(init_guard(TS, 37, WF_MEM_SHARED, true));
}

/* An rfactor producer with its loop domain reordered as its allocation
   domain: max over dims 0 and 2 of [8, 2, 32], dim 0 split 16 on TIDy (8
   valid), rfactored. Its partials are read by the block reduction in all 16
   threads on TIDy, but its init was kept to threadIdx.y < 8 (an explicit
   allocation domain kept the init's bounds): the other threads' partials
   were never written (fuzz -s 7 -c 43593). An allocation domain of loop IDs
   is as safe as the default one: the init fills every cell. */
TEST(issue18_rfactor_producer_init_with_a_reordered_allocation_domain) {
    int64_t shape[3] = {8, 2, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 3, shape), 2, (int[]){2, 0});
    wf_output(f, m);
    wf_tv_split(m, 0, 16); /* [r1, r16, i2, r32] */
    wf_tv_parallelize(m, 1, WF_TIDY);
    wf_tv *p = wf_tv_rfactor(m, 1, (int[]){0}); /* p [r1, i16 TIDy, i2, i32] */
    CHECK(p != NULL);
    wf_tv_parallelize(m, 1, WF_BIDX);
    int n;
    wf_iterdomain *const *lo = wf_tv_loop_domain(p, &n);
    CHECK_EQ_I64(n, 4);
    if (n == 4)
        wf_tv_set_allocation_domain(p, 4, (wf_iterdomain *[]){lo[3], lo[1], lo[2], lo[0]}, true);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(TS, f, NULL, 0);
    if (k)
        CHECK_HAS(
            wf_kernel_source(k),
            "      T2[i1 * 2 + i0] = __int_as_float(0xff800000);\n      if (threadIdx.y < 8) {");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- 4: rfactor of an rfactor producer ----
   s = sum(a[n]), split 4, p = rfactor(s, {0}): p [r(n/4), i4] holds 4
   partial sums, which s reads from p's loop ID i4 (made from p's logical
   reduction ID). split(p, 0, 2), rfactor(p, {1}): q [i(n/8), r2, i4] and p
   [r(n/8), i4], a two-level partial reduction. p no longer reduces the
   logical ID its i4 was made from, so i4 becomes a new logical iteration ID of
   p read from q's i4, and s reads that one; it kept reading the old i4, and
   wf_compile failed (no path in the IterDomain graph). */
static void rfactor_twice(test_state *ts_, int64_t n, bool tidx, bool split_partial) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, (int[]){0});
    wf_output(f, s);
    wf_tv_split(s, 0, 4);
    if (tidx)
        wf_tv_parallelize(s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, (int[]){0}); /* p [r(n/4), i4], s [r4] */
    CHECK(p != NULL);
    if (split_partial)
        wf_tv_split(p, 1, 2); /* the partial axis: [r(n/4), i2, i2] */
    wf_tv_split(p, 0, 2);     /* [r(n/8), r2, ...] */
    wf_tv *q = wf_tv_rfactor(p, 1, (int[]){1});
    CHECK(q != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    if (!q) {
        printf("  %s\n", wf_fusion_error(f));
        wf_fusion_free(f);
        return;
    }
    int np, nq;
    wf_iterdomain *const *pl = wf_tv_logical_domain(p, &np);
    wf_tv_loop_domain(q, &nq);
    CHECK_EQ_I64(np, 2); /* [r(n/8), i4] */
    CHECK(wf_iterdomain_is_reduction(pl[0]));
    CHECK(!wf_iterdomain_is_reduction(pl[1]));
    CHECK_EQ_I64(wf_iterdomain_extent(pl[1]), 4);
    CHECK_EQ_I64(nq, split_partial ? 4 : 3);
    CHECK(wf_tv_definition_input(p, 0) == q);
    CHECK(wf_tv_definition_input(s, 0) == p);
    wf_kernel *k = rc_check(ts_, f, NULL, 1e-5);
    if (k && n == 64 && !tidx && !split_partial) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "float T3[32];"); /* q: 8 x 4 partials */
        CHECK_HAS(src, "float T2[4];");  /* p: 4 */
        CHECK_HAS(src, "T2[i4] = wf_radd((float)T2[i4], (float)T3[i3 * 4 + i4]);");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(issue18_rfactor_of_an_rfactor_producer) {
    rfactor_twice(TS, 64, false, false);
    rfactor_twice(TS, 70, false, false); /* not a multiple of 4 or 8 */
    rfactor_twice(TS, 5, false, false);
}

TEST(issue18_rfactor_of_an_rfactor_producer_partials_on_threads) {
    rfactor_twice(TS, 64, true, false);
    rfactor_twice(TS, 37, true, false);
}

/* p's partial axis split after the first rfactor: s reads i4, which is no
   longer a loop ID of p; the split is replayed onto p's new logical i4. */
TEST(issue18_rfactor_of_an_rfactor_producer_whose_partial_axis_is_split) {
    rfactor_twice(TS, 64, false, true);
    rfactor_twice(TS, 29, false, true);
}

/* Rows on blocks, a symbolic row length: [i3, r n] split 32 (TIDx) then 4;
   three levels of max: q per thread over 4, p over the rest, s per block. */
TEST(issue18_rfactor_of_an_rfactor_producer_rows_symbolic_max) {
    int64_t shape[2] = {3, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 2, shape), 1, (int[]){1});
    wf_output(f, m);
    wf_tv_split(m, 1, 32); /* [i3, r(n/32), r32] */
    wf_tv_parallelize(m, 0, WF_BIDX);
    wf_tv_parallelize(m, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(m, 1, (int[]){1}); /* p [i3, r(n/32), i32] */
    CHECK(p != NULL);
    wf_tv_split(p, 1, 4); /* [i3, r(n/128), r4, i32] */
    wf_tv *q = wf_tv_rfactor(p, 1, (int[]){2});
    CHECK(q != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_inline_most(f);
    for (int64_t n = 1; n <= 300; n += 37) {
        int64_t sym[8] = {0, n};
        wf_kernel_free(rc_check(TS, f, sym, 1e-6));
    }
    wf_fusion_free(f);
}

/* Four levels on integers (exact): s reads p's partials, p q's, q r's; then
   p, which reads partials and is read as partials, is rfactored again (its
   partial axis is then a logical one, kept as it is: p2 copies it). */
TEST(issue18_rfactor_of_an_rfactor_producer_four_levels_i32) {
    for (int64_t n = 61; n <= 64; n++) {
        int64_t shape[1] = {n};
        wf_fusion *f = wf_fusion_new();
        wf_tv *s = wf_sum(wf_input(f, WF_I32, 1, shape), 1, (int[]){0});
        wf_output(f, s);
        wf_tv_split(s, 0, 2);
        wf_tv *p = wf_tv_rfactor(s, 1, (int[]){0}); /* p [r(n/2), i2] */
        wf_tv_split(p, 0, 12);
        wf_tv *q = wf_tv_rfactor(p, 1, (int[]){1}); /* q [i(n/24), r12, i2] p [r(n/24), i2] */
        wf_tv_split(q, 1, 3);
        wf_tv *r = wf_tv_rfactor(q, 1, (int[]){2}); /* r [i(n/24), i4, r3, i2] */
        CHECK(p && q && r);
        CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
        wf_kernel_free(rc_check(TS, f, NULL, 0));
        wf_tv_split(p, 0, 2); /* p [r(n/48), r2, i2] */
        wf_tv *p2 = wf_tv_rfactor(p, 1, (int[]){0});
        CHECK(p2 != NULL);
        CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
        wf_kernel_free(rc_check(TS, f, NULL, 0));
        wf_fusion_free(f);
    }
}

/* A partial axis merged with an iteration axis of the rows cannot become a
   logical axis of its own: refused at the call, naming both. */
TEST(issue18_rfactor_of_an_rfactor_producer_with_a_merged_partial_refused) {
    int64_t shape[2] = {3, 64};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, shape), 1, (int[]){1});
    wf_output(f, s);
    wf_tv_split(s, 1, 4);                       /* [i3, r16, r4] */
    wf_tv *p = wf_tv_rfactor(s, 1, (int[]){1}); /* p [i3, r16, i4] */
    CHECK(p != NULL);
    wf_tv_reorder_all(p, (int[]){0, 2, 1}); /* [i3, i4, r16] */
    wf_tv_merge(p, 0);                      /* [i12, r16] */
    wf_tv_split(p, 1, 2);
    CHECK(wf_tv_rfactor(p, 1, (int[]){2}) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f),
              "T2.rfactor: not supported yet: T2 is an rfactor producer whose axes iS6{3} and "
              "iS9{4} merge a partial-result axis T1 reads with another axis; rfactor T2 before "
              "merging them, or rfactor the reduction T1 instead");
    wf_fusion_free(f);
}

/* ---- a loop or allocation domain of an rfactor producer ----
   p = rfactor(s) yields one partial result per element of its partial axes
   (IDs its transforms made of the logical reduction ID), which s reads. A
   domain that does not pass through them, p's logical domain say, reduced
   the partial results together: every thread computed the whole sum and s
   added it once per thread, twice the sum (fuzz -s 12 -c 95511). Refused
   at the call, naming the partial axis and the ID it comes from. */
TEST(issue18_rfactor_producer_loop_domain_back_to_logical_refused) {
    int64_t shape[1] = {7};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_broadcast(t0, 2, (bool[]){true, false});        /* [1, 7] */
    wf_tv *t2 = wf_broadcast(t1, 3, (bool[]){false, true, false}); /* [1, 1, 7] */
    wf_tv *t3 = wf_sum(t2, 3, (int[]){0, 1, 2});
    wf_output(f, t3);
    wf_tv_split(t3, 2, 2); /* [r1, r1, r4, r2] */
    wf_tv_split(t3, 2, 1); /* [r1, r1, r4, r1, r2] */
    wf_tv_parallelize(t3, 3, WF_BIDX);
    wf_tv_parallelize(t3, 4, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(t3, 1, (int[]){2}); /* p [i1, i1, r4, iBIDx1, iTIDx2] */
    CHECK(p != NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    int n = 0;
    wf_iterdomain *const *lg = wf_tv_logical_domain(p, &n);
    CHECK_EQ_I64(n, 3);
    wf_tv_set_loop_domain(p, n, lg);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_ARG);
    CHECK_STR(wf_fusion_error(f),
              "T4.set_loop_domain: T4 is an rfactor producer and T3 reads its partial results "
              "along iblockIdx.x19{1}, but the domain (iS13{1}, iS14{1}, rS15{7}) does not pass "
              "through iblockIdx.x19{1}: it holds rS15{7}, which that axis is derived from; the "
              "partial results along it would be reduced together: keep iblockIdx.x19{1} or "
              "IterDomains derived from it in the domain");
    wf_inline_most(f);
    CHECK(wf_compile(f, NULL) == NULL);
    wf_fusion_free(f);
}

/* The smallest form, with a serial partial axis: p's loop domain set to its
   logical one read twice the sum too, and so did an allocation domain of
   p's logical IDs (one cell for both partial results; in shared memory, a
   race): both refused the same way. What stays allowed: p's loop axes in
   another order (the partial axis outermost) is exact. */
static wf_fusion *rfactored_sum(int64_t n, wf_tv **p) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 1, shape), 1, (int[]){0});
    wf_output(f, s);
    wf_tv_split(s, 0, 2);                 /* [r(n/2), r2] */
    *p = wf_tv_rfactor(s, 1, (int[]){0}); /* p [r(n/2), i2] */
    return f;
}

TEST(issue18_rfactor_producer_domains_must_keep_partial_axes) {
    for (int how = 0; how < 3; how++) {
        wf_tv *p = NULL;
        wf_fusion *f = rfactored_sum(7, &p);
        CHECK(p != NULL);
        if (!p) {
            wf_fusion_free(f);
            continue;
        }
        int n = 0;
        wf_iterdomain *const *lg = wf_tv_logical_domain(p, &n);
        wf_iterdomain *const *lp = wf_tv_loop_domain(p, &n);
        wf_iterdomain *swapped[2] = {lp[1], lp[0]};
        if (how == 0)
            wf_tv_set_loop_domain(p, 2, swapped);
        else if (how == 1)
            wf_tv_set_loop_domain(p, 1, lg);
        else
            wf_tv_set_allocation_domain(p, 1, lg, true);
        if (how == 0) {
            CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
            wf_inline_most(f);
            wf_kernel_free(rc_check(TS, f, NULL, 1e-6));
        } else {
            CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_ARG);
            CHECK_STR(wf_fusion_error(f),
                      how == 1 ? "T2.set_loop_domain: T2 is an rfactor producer and T1 reads its "
                                 "partial results along iS6{2}, but the domain "
                                 "(rS4{7}) does not pass through iS6{2}: it holds "
                                 "rS4{7}, which that axis is derived from; the partial results "
                                 "along it would be reduced together: keep iS6{2} or "
                                 "IterDomains derived from it in the domain"
                               : "T2.set_allocation_domain: T2 is an rfactor producer and T1 "
                                 "reads its partial results along iS6{2}, but the "
                                 "domain (rS4{7}) does not pass through iS6{2}: it "
                                 "holds rS4{7}, which that axis is derived from; the partial "
                                 "results along it would be reduced together: keep "
                                 "iS6{2} or IterDomains derived from it in the "
                                 "domain");
        }
        wf_fusion_free(f);
    }
}

/* ---- a broadcast axis merged with the axis a sum reduces ----
   x[4]; b = broadcast(x) to [b1, i4] (bc0) or [i4, b1]; s = sum(b, {ax});
   o = s * x; both outputs. s's two axes merged, o split by 1, s's merged
   axis split by 6 (it does not divide 4), inlined at 1. */
static wf_fusion *merged_bcast_sum(bool bc0, int ax) {
    int64_t shape[1] = {4};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, shape);
    wf_tv *b = wf_broadcast(x, 2, (bool[]){bc0, !bc0});
    wf_tv *s = wf_sum(b, 1, (int[]){ax});
    wf_tv *o = wf_mul(s, x);
    wf_output(f, s);
    wf_output(f, o);
    wf_tv_merge(s, 0);
    wf_tv_split(o, 0, 1);
    wf_tv_split(s, 0, 6);
    wf_inline_all_at(s, 1);
    return f;
}

/* [b1, r4] merged: the reduction of the real axis, guarded by the split. */
TEST(issue18_sum_of_a_broadcast_merged_with_its_reduced_axis) {
    wf_fusion *f = merged_bcast_sum(true, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel_free(rc_check(TS, f, NULL, 1e-6));
    wf_fusion_free(f);
}

/* [rb1, i4] and [i4, rb1] merged: the reduced broadcast merged with the
   iteration axis: refused at compile time, naming the axes. */
TEST(issue18_sum_over_a_broadcast_merged_with_an_iteration_axis_is_refused) {
    for (int bc0 = 0; bc0 < 2; bc0++) {
        wf_fusion *f = merged_bcast_sum(bc0, bc0 ? 0 : 1);
        CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
        wf_kernel *k = wf_compile(f, NULL);
        CHECK(k == NULL);
        CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
        CHECK_STR(wf_fusion_error(f),
                  bc0 ? "not supported yet: T2's reduction loop axis rS9{1} is made from the "
                        "iteration axis iS4{4} as well as a reduction axis, so it would reduce "
                        "across the output's elements; merge reduction axes only with reduction "
                        "axes (directly or by propagate_transforms from another tensor)"
                      : "not supported yet: T2's reduction loop axis rS9{1} is made from the "
                        "iteration axis iS3{4} as well as a reduction axis, so it would reduce "
                        "across the output's elements; merge reduction axes only with reduction "
                        "axes (directly or by propagate_transforms from another tensor)");
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* fuzz seed 7003 case 60848, reduced */
TEST(issue18_sum_over_a_split_broadcast_axis_merged) {
    int64_t shape[2] = {3, 17};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t2 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t3 = wf_broadcast(t2, 3, (bool[]){false, true, false});
    wf_tv *t6 = wf_sum(t3, 1, (int[]){2});
    wf_tv *t7 = wf_add(t6, t2);
    wf_output(f, t3);
    wf_output(f, t6);
    wf_output(f, t7);
    wf_tv_split(t6, 2, 64);
    wf_tv_parallelize(t6, 3, WF_TIDX);
    wf_cache_after(t2);
    wf_tv_split(t3, -2, 2);
    wf_tv_merge_axes(t3, 0, 2);
    wf_propagate_transforms(t3);
    wf_propagate_transforms(t3);
    wf_tv_parallelize(t3, 1, WF_TIDX);
    wf_parallelize_all_like(t3, 0);
    wf_inline_all_at(t3, 3);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel_free(rc_check(TS, f, NULL, 1e-6));
    wf_fusion_free(f);
}

/* The same init, of an rfactor producer whose allocation domain is its loop
   domain before one of its axes is split (outer by 6, past its 4): the
   allocation is not the loop IDs, so the init keeps its guards, among them
   the split's bound on the thread axis, threadIdx.x < n, while the block
   reduction reads the partials of all 64 threads: threads n..63 read
   registers never initialized (fuzz -s 20261137 -c 385138). Thread axes are
   not allocated in registers, so the init drops the conjuncts over thread
   indices alone; it keeps i < 4, which the allocation needs. n is symbolic,
   run at 5. */
TEST(issue18_init_with_an_allocation_domain_initializes_every_threads_partial) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 2, (int64_t[]){-1, 4}), 2, (int[]){1, 0});
    wf_output(f, s);
    wf_tv_split(s, 0, 64); /* [r(n/64), r64, r4] */
    wf_tv_parallelize(s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(s, 1, (int[]){0}); /* p: [r(n/64), i64 TIDx, i4] */
    CHECK(p != NULL);
    int nl = 0;
    wf_iterdomain *const *loop = wf_tv_loop_domain(p, &nl);
    CHECK_EQ_I64(nl, 3);
    wf_tv_set_allocation_domain(p, nl, loop, true);
    wf_tv_split_outer(p, 2, 6); /* i4 -> [i6, i1] */
    wf_inline_most(f);
    int64_t sym[8] = {5, 4};
    wf_kernel *k = rc_check(TS, f, sym, 1e-5);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i3 = 0; i3 < 6; ++i3) {\n"
                                       "    if (i3 < 4) {\n"
                                       "      T2[i3] = (float)0;\n"
                                       "    }\n"
                                       "  }\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
