/*
 * test_regress_issue18_races.c -- issue 18: reduction schedules the CPU
 * executor caught as hazards (out-of-bounds accesses, races, grid
 * reductions refused at launch), each written out as C calls and run on
 * the executor against the reference.
 */
#include "harness.h"
#include "reduce_check.h"

/* A reduction's output axis of extent 1 is at 0, even where an iteration
   axis of extent 1 is merged into a reduction axis (check_mixed allows it)
   and the walk gives it the reduction loop's index.

   sum over dims 1 and 2 of [1, 2, 8]: dim 1 split 3 (its outer of extent 1)
   with the inner on TIDx, the iteration axis merged with that outer, then
   split 5: a serial reduction loop of 5 over the output's one element. The
   output was indexed T2[i0], valid for i0 < 1, and the block reduction's
   write, which drops the reduced loops' bounds, read and wrote T2 past its
   end for i0 = 1..4 (fuzz -s 20261123 -c 760736). */
TEST(issue18_block_reduction_over_a_merged_extent1_iteration_axis_writes_cell_0) {
    int64_t shape[3] = {1, 2, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F64, 3, shape), 2, (int[]){2, 1});
    wf_output(f, s);
    wf_tv_split(s, 1, 3); /* [i1, r1, r3, r8] */
    wf_tv_parallelize(s, 2, WF_TIDX);
    wf_tv_merge(s, 0);    /* [r1, r3 TIDx, r8] */
    wf_tv_split(s, 0, 5); /* [r1, r5, r3 TIDx, r8] */
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-12);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  if (threadIdx.x == 0) {\n    T1[0] = wf_acc1;\n  }\n}");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* sum over dims 1 and 2 of [1, 4, n], all three merged into one reduction
   axis on TIDx: the output was indexed T1[threadIdx.x / n / 4], so the init's
   single-writer predicate saw an index that depends on threadIdx.x and let
   every thread initialize the one cell, racing with the others (fuzz -s 2
   -c 51911: the same through a permute and propagate_transforms, on TIDz). */
TEST(issue18_init_of_a_reduction_over_a_merged_extent1_axis_has_one_writer) {
    int64_t shape[3] = {1, 4, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *s = wf_sum(wf_input(f, WF_F32, 3, shape), 2, (int[]){2, 1});
    wf_output(f, s);
    wf_tv_merge(s, 0);
    wf_tv_merge(s, 0); /* [r(4n)] */
    wf_tv_parallelize(s, 0, WF_TIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    for (int64_t n = 1; n <= 40; n += 13) {
        int64_t sym[8] = {0, 0, n};
        wf_kernel *k = rc_check(TS, f, sym, 1e-5);
        if (k && n == 1)
            CHECK_HAS(wf_kernel_source(k), "if (threadIdx.x == 0) {\n    T1[0] = wf_acc1;");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* s = sum(a[2, n], {1}) and m = max(s) are outputs, o = a + b a third one
   launched on blockIdx.y too: s's rows on blockIdx.x are written once, by
   blockIdx.y == 0; m, a grid reduction over blockIdx.x inlined into s's
   loop, read s[blockIdx.x] in every block, and the blocks of blockIdx.y > 0
   read it before (or while) block (x, 0) wrote it: a cross-block race (fuzz
   -s 3 -c 33170, -s 20261123 -c 846856, -c 1091635). The grid reduction now
   reads only in the blocks that write its result (blockIdx.y == 0, uniform
   across the blocks it combines); the others contribute its initial value. */
static void grid_reduction_of_a_row_sum(test_state *ts_, int64_t n, bool tidx) {
    int64_t shape[2] = {2, n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 2, shape);
    wf_tv *o = wf_add(a, b);
    wf_tv *s = wf_sum(a, 1, (int[]){1});
    wf_tv *m = wf_max(s, 1, (int[]){0});
    wf_output(f, o);
    wf_output(f, s);
    wf_output(f, m);
    wf_tv_parallelize(o, 0, WF_BIDX);
    wf_tv_parallelize(o, 1, WF_BIDY);
    wf_tv_parallelize(s, 0, WF_BIDX);
    if (tidx) { /* a block reduction per row, then the grid's */
        wf_tv_split(s, 1, 32);
        wf_tv_parallelize(s, 2, WF_TIDX);
    }
    wf_tv_parallelize(m, 0, WF_BIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(ts_, f, NULL, 1e-5);
    if (k && !tidx)
        CHECK_HAS(wf_kernel_source(k), "wf_grid_reduce<false, false, false, true, false, "
                                       "false>((blockIdx.y == 0) ? (float)T3[blockIdx.x] : ");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(issue18_grid_reduction_reads_only_where_its_input_was_written) {
    grid_reduction_of_a_row_sum(TS, 112, false);
    grid_reduction_of_a_row_sum(TS, 7, false);
}

TEST(issue18_grid_reduction_of_a_block_reduction_written_by_one_block_row) {
    grid_reduction_of_a_row_sum(TS, 112, true);
    grid_reduction_of_a_row_sum(TS, 45, true);
}

/* A grid reduction inside serial iteration loops is a grid reduction per
   iteration, each with its own partial results in the module's work buffer
   (1048576 of them). m = max(a[5, 3], {1}) with the rows split_outer by
   1000003 (a serial loop of 1000003 iterations, 5 of them real) and the
   reduced axis on BIDy needs 3000009: refused at compile time, naming the
   loop, not at every launch (fuzz -s 20261123 -c 663680; also -c 774211,
   -s 3 -c 92754). A split_outer by 1000 needs 3000 and runs. */
static wf_fusion *grid_max_in_serial_loop(int64_t outer) {
    int64_t shape[2] = {5, 3};
    wf_fusion *f = wf_fusion_new();
    wf_tv *m = wf_max(wf_input(f, WF_F32, 2, shape), 1, (int[]){1});
    wf_output(f, m);
    wf_tv_split_outer(m, 0, outer); /* [i(outer), i1, r3] */
    wf_tv_parallelize(m, 2, WF_BIDY);
    return f;
}

TEST(issue18_grid_reduction_needing_more_partials_than_the_work_buffer_refused_at_compile) {
    wf_fusion *f = grid_max_in_serial_loop(1000003);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f),
              "T1 is reduced across blocks: the grid reduction needs 3000009 partial results "
              "(blocks x threads not reduced x iterations of the serial loops around it: "
              "iS4{1000003}), more than its work buffer's 1048576; each iteration is a grid "
              "reduction of its own: make the serial loops around it shorter, or reduce more "
              "per block");
    wf_fusion_free(f);
    f = grid_max_in_serial_loop(1000);
    wf_kernel_free(rc_check(TS, f, NULL, 0));
    wf_fusion_free(f);
}

/* max over dim 1 of broadcast(x)[1, 4], int64, its broadcast dim split by 3 (bS{1}
   -> bS{1}, bS{3}) with the split propagated: the accumulator is not allocated
   along bS{3}, so its init, unguarded in every iteration of that loop, reset the
   one cell in the two iterations whose steps are predicated off, and the max
   came out as its identity, INT64_MIN (fuzz -s 779 -c 691124). The init keeps
   the loop's bound now. */
TEST(issue18_init_under_a_split_broadcast_loop_keeps_its_bound) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_I64, 1, (int64_t[]){4});
    wf_tv *b = wf_broadcast(x, 2, (bool[]){true, false});
    wf_tv *sum = wf_sum(b, 1, (int[]){0});
    wf_tv *mx = wf_reduce(WF_MAX, b, 1, (int[]){1});
    wf_output(f, sum);
    wf_output(f, wf_binary(WF_MAX, wf_binary(WF_SUB, sum, mx), mx));
    wf_tv_split(b, 0, 3);
    wf_propagate_transforms(b);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(TS, f, NULL, 0);
    if (k)
        CHECK_HAS(wf_kernel_source(k),
                  "    if (i0 < 1) {\n      T3[0] = (-9223372036854775807ll - 1);\n    }");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* min over dim 2 of min(|b|, sqrt(a)), a [n0, n1, 32] int64 and b [1, 5, n] int32
   (1 x 5 x 32 at run time), the reduction's dim 0 split outer by 3 and its inner
   part merged with the reduced dim: the init, before the reduction loop, had no
   index for that inner part and so no bound on the outer one; it ran in all 3
   iterations over the one cell, resetting it after the first's steps (fuzz -s
   781 -c 172834: the min came out as +inf). The init is indexed at the
   reduction loop's first iteration now, and bounded. */
TEST(issue18_init_of_an_outer_split_merged_into_a_reduction_is_bounded) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_I64, 3, (int64_t[]){-1, -1, 32});
    wf_tv *b = wf_input(f, WF_I32, 3, (int64_t[]){1, 5, -1});
    wf_tv *m = wf_reduce(WF_MIN, wf_binary(WF_MIN, wf_unary(WF_ABS, b), wf_unary(WF_SQRT, a)), 1,
                         (int[]){2});
    wf_output(f, m);
    wf_tv_split_outer(m, -3, 3);
    wf_tv_split_outer(m, 2, 3);
    wf_tv_parallelize(m, -3, WF_TIDY);
    wf_tv_merge_axes(m, -1, 1);
    wf_propagate_transforms(m);
    wf_parallelize_all_like(m, 0);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    int64_t sym[16] = {1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 32};
    wf_kernel *k = rc_check(TS, f, sym, 0);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "i0 * wf_ceildiv(T0.size[0], 3) + 0 % "
                                       "wf_ceildiv(T0.size[0], 3) < T0.size[0]) {\n        T5[");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 2811000 -c 38507: a sum over [7] of a broadcast on TIDx (split 16),
   rfactored; the rfactor producer's broadcast axis split outer by 8. Its init
   kept all its predicates because of the split broadcast, threadIdx.x < 7
   among them, and the block reduction read threads 7..15's partials unwritten.
   Only the split broadcast loop's bound is kept now. */
TEST(issue18_init_keeps_only_the_split_broadcast_bound) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 1, (int64_t[]){7});
    wf_tv *t1 = wf_broadcast(t0, 2, (bool[]){false, true});
    wf_tv *t2 = wf_broadcast(t1, 3, (bool[]){false, true, false});
    wf_tv *t3 = wf_reduce(WF_ADD, t1, 1, (int[]){0});
    wf_output(f, t2);
    wf_output(f, t3);
    wf_tv_split(t3, 0, 16);
    wf_tv_parallelize(t3, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(t3, 1, (int[]){0});
    wf_tv_split_outer(t2, -1, 2);
    wf_propagate_transforms(t2);
    wf_tv_parallelize(t2, 1, WF_TIDZ);
    wf_tv_parallelize(t2, -1, WF_TIDY);
    wf_parallelize_all_like(t2, 0);
    wf_tv_inline_at(t3, 1);
    wf_tv_split_outer(p, 2, 8);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-5);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 2811100 -c 166810 as C calls: T4 = sum(T3) over both axes of T3 =
   broadcast(T1) [iS4{7}, bS5{1}], rfactored over the first: the rfactor
   producer T7 [rS11{7}, iS12{1}] keeps the broadcast as an iteration axis of
   extent 1, inside its reduction loop. T3, inlined into T7 and into T6 =
   min(broadcast(T0), T3) [iS9{7}, iS10{7}], made T7's iS12{1} one loop with
   T6's iS10{7}, and T7's step ran 7 times per element: the sum came out 7
   times too large (71.617 for 10.231). T3 now shares only the outer loop. */
static wf_fusion *repeated_step_case(wf_tv **t3, wf_tv **t7) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 1, (int64_t[]){7});
    wf_tv *t1 = wf_input(f, WF_F64, 1, (int64_t[]){7});
    wf_tv *t2 = wf_broadcast(t0, 2, (bool[]){true, false});
    *t3 = wf_broadcast(t1, 2, (bool[]){false, true});
    wf_tv *t4 = wf_sum(*t3, 2, (int[]){0, 1});
    wf_tv *t5 = wf_transpose(t0, 0, 0);
    wf_tv *t6 = wf_binary(WF_MIN, t2, *t3);
    wf_output(f, *t3);
    wf_output(f, t4);
    wf_output(f, t5);
    wf_output(f, t6);
    *t7 = wf_tv_rfactor(t4, 1, (int[]){0});
    return f;
}

TEST(issue18_reduction_step_inside_its_reduction_loop_not_in_a_longer_loop) {
    wf_tv *t3, *t7;
    wf_fusion *f = repeated_step_case(&t3, &t7);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1); /* was 2 */
    wf_kernel *k = rc_check(TS, f, NULL, 0);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  T7[0] = (double)0;\n"
                                       "  for (wf_index i0 = 0; i0 < 7; ++i0) {\n"
                                       "    T3[i0] = T1[i0];\n"
                                       "    T7[0] = wf_radd((double)T7[0], (double)T3[i0]);\n"
                                       "    for (wf_index i1 = 0; i1 < 7; ++i1) {\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* With T7's reduction on threads (a block reduction), no loop runs its
   reduction serially: its init sits just before its step, in the loop of 7
   too, and T3 shares both loops. */
TEST(issue18_block_reduction_step_may_share_a_longer_loop) {
    wf_tv *t3, *t7;
    wf_fusion *f = repeated_step_case(&t3, &t7);
    wf_tv_parallelize(t7, 0, WF_TIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 2);
    wf_kernel *k = rc_check(TS, f, NULL, 1e-12); /* the block's tree order rounds */
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i0 = 0; i0 < 7; ++i0) {\n"
                                       "    float T2[1];\n"
                                       "    if (i0 < 1) {\n"
                                       "      T3[threadIdx.x] = T1[threadIdx.x];\n"
                                       "    }\n"
                                       "    T7[0] = (double)0;\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same position asked for by name is refused, naming both axes. */
TEST(issue18_reduction_step_in_a_longer_loop_refused_by_name) {
    wf_tv *t3, *t7;
    wf_fusion *f = repeated_step_case(&t3, &t7);
    wf_tv_inline_at(t3, 2);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T3.inline_at(2): position 2 is beyond the maximum inline position 1: axis 1 of "
              "T3 would make axis 1 of the reduction T7 (iS12{1}), inside its reduction loops, "
              "one loop with axis 1 of T6 (iS10{7}): T7's steps would run again in every "
              "iteration");
    wf_fusion_free(f);
}

/* T2 = broadcast(T0) [1, 5, 7] is an output, read by T3 = sum(T2) [1];
   T5 = set(T3) - max(T0, {1}) with the max's 5 on BIDx. inline_most puts
   T2's and T3's axes of one value (bS{1}) in the loop on blockIdx.x that
   T5 gives them; T2's index does not use blockIdx.x, so block 0 alone
   writes it, and every block summed it: blocks 1..4 read cells block 0
   writes, with nothing to order them (the executor: "cross-block race on
   global T2[0]", fuzz -s 20261129 -c 322620). Refused at compile time,
   naming both tensors. */
TEST(issue18_reader_of_an_output_block_0_writes_in_every_block_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 2, (int64_t[]){5, 7});
    wf_tv *t1 = wf_max(t0, 1, (int[]){1});
    wf_tv *t2 = wf_broadcast(t0, 3, (bool[]){true, false, false});
    wf_tv *t3 = wf_sum(t2, 2, (int[]){1, 2});
    wf_output(f, t2);
    wf_output(f, wf_sub(wf_set(t3), t1));
    wf_tv_parallelize(t1, 0, WF_BIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T3 reads global T2 across blocks on BIDx (T2's axis none, T3's axis none): "
              "other blocks write the cells it reads, which needs a grid-wide sync; "
              "parallelize exactly mapped axes of both on BIDx, or compute T3 in a separate "
              "fusion");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* T2 = T1 + T1 [bS{1}, 32] with T1 = broadcast(T0) [1, 32], read by the
   max T3 over its 32 (split by 2, the inner on TIDy, rfactored: the
   partials T6 [bS{1}, r16, TIDy{2}]) and by -T2; T4 = min(T3, T0). T2's 32
   on TIDz, like everything's (parallelize_all_like), and inline_most put
   T2's bS{1} and T6's bS{1} in the loop on TIDz that T4 gives them. The
   bS{1}s, which hold no data, were taken for the axes on TIDz: T6 read T2
   as if from its own thread's registers, over all 32, and the max came out
   as each thread's own value, 2 * T0[i] (min(-36, -18) = -36 for -18: fuzz
   -s 20261135 -c 380635, a silent wrong answer). Refused; in shared memory
   T2 is read across threads after a barrier, exactly. */
static wf_fusion *partials_of_registers(wf_memtype m) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 1, (int64_t[]){32});
    wf_tv *t1 = wf_broadcast(t0, 2, (bool[]){true, false});
    wf_tv *t2 = wf_add(t1, t1);
    wf_tv *t3 = wf_max(t2, 1, (int[]){1});
    wf_output(f, wf_unary(WF_NEG, t2));
    wf_output(f, wf_binary(WF_MIN, t3, t0));
    wf_tv_split(t3, 1, 2);
    wf_tv_parallelize(t3, 2, WF_TIDY);
    wf_tv_rfactor(t3, 1, (int[]){1});
    wf_tv_parallelize(t2, 1, WF_TIDZ);
    wf_parallelize_all_like(t2, 0);
    wf_tv_set_memory(t2, m);
    wf_inline_most(f);
    return f;
}

TEST(issue18_partials_of_a_register_tensor_on_other_threads_refused) {
    wf_fusion *f = partials_of_registers(WF_MEM_LOCAL);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f), "T2 is in local memory, but T6 reads it across threads on TIDz; "
                                  "a producer read by other threads must be in shared memory");
    wf_fusion_free(f);
    f = partials_of_registers(WF_MEM_SHARED);
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}

/* Not a split broadcast: T2 = rsqrt(T1), T1 = broadcast(T0) [1, b1, 7],
   its b1 split by 4 (bS{4}) on TIDy like the min T3 over it, and T4 =
   sqrt(T2) reads T2 in each thread. The split's bound keeps threads
   threadIdx.y >= 1 from writing T2 (bS{4} holds one value, at index 0), so
   T2's bS{4} is its axis on TIDy, and T4's reads in the other threads cross
   threads (with the rule above taken for every broadcast axis, T4 read
   registers never written: fuzz -s 20261130 -c 382050). Refused, as on
   main. */
TEST(issue18_register_tensor_on_a_split_broadcast_thread_axis_read_by_all_refused) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F64, 2, (int64_t[]){1, 7});
    wf_tv *t1 = wf_broadcast(t0, 3, (bool[]){false, true, false});
    wf_tv *t2 = wf_unary(WF_RSQRT, t1);
    wf_tv *t4 = wf_reduce(WF_MIN, t1, 2, (int[]){1, 2});
    wf_tv *t7 = wf_unary(WF_SQRT, t2);
    wf_output(f, t4);
    wf_output(f, wf_binary(WF_MIN, t1, wf_cast(t2, WF_F32)));
    wf_output(f, wf_unary(WF_SIN, t0));
    wf_output(f, wf_cast(t7, WF_F32));
    wf_tv_split(t4, 1, 4); /* [i1, r1, r4, r7] */
    wf_tv_parallelize(t4, 2, WF_TIDY);
    wf_tv_parallelize(t4, 0, WF_TIDY);
    wf_propagate_transforms(t4);
    wf_tv_parallelize(t4, 2, WF_TIDY);
    wf_parallelize_all_like(t4, 0);
    wf_tv_parallelize(t7, 0, WF_BIDX);
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_STR(wf_fusion_error(f), "T2 is in local memory, but T4 reads it across threads on TIDy; "
                                  "a producer read by other threads must be in shared memory");
    wf_fusion_free(f);
}
