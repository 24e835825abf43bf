/*
 * test_fuzz_regress_issue18_bcast.c -- two fusions of the fuzzer's CI seed
 * (fuzz -s 20261123) that broadcast forwarding (a merge with an axis of
 * extent 1 is permissively its other input, analysis/idgraph.c) let through
 * to the executor, which then found a race and a cell never written.
 *
 * -c 33915: a merge of an axis with the outer part of a broadcast split outer
 * by 6 (bS{6}) runs 6 times as many iterations: it is not its other input.
 * Forwarded, T3 (a broadcast, an output) was inlined into T8's merged loop of
 * 30 and written by 6 blocks each. Only an axis of extent 1 is forwarded now:
 * T3 and its reader T4 stay out of T8's loop, and T4, serial, reading T3,
 * written on BIDy, is refused, as it was before forwarding.
 *
 * -c 39735: T4 = transpose(broadcast(T0)) merges its own axis with its
 * broadcast one (merge_axes(1, 0): iS6{3} and bS5{1}). That merge iterates
 * iS6, but the broadcast is permissively mapped to iS6 as well (T3's
 * broadcast axis is resolved against T0's axis through a max and its
 * reader), so the write-once check of a broadcast output (lower/index.c)
 * took T4's own loop for one that expands the broadcast and wrote only
 * threadIdx.z < 1. A loop of the tensor's own iteration is not bounded now.
 */
#include "harness.h"

/* fuzz -s 20261123 -c 33915 as C calls (T11 is T3's cache). */
static wf_fusion *race_case(bool merge_t8, wf_tv **out3) {
    wf_fusion *f = wf_fusion_new();
    int64_t s[1] = {5};
    wf_tv *t0 = wf_input(f, WF_F32, 1, s);
    wf_tv *t1 = wf_input(f, WF_F32, 1, s);
    wf_tv *t2 = wf_input(f, WF_F32, 2, (const int64_t[]){2, 16});
    wf_tv *t3 = wf_broadcast(t1, 2, (const bool[]){false, true});
    wf_tv *t4 = wf_sub(t3, t3);
    wf_tv *t5 = wf_binary(WF_MIN, t1, t0);
    wf_tv *t6 = wf_add(t5, t0);
    wf_tv *t7 = wf_unary(WF_RSQRT, t6);
    wf_tv *t8 = wf_mul(t4, t3);
    wf_tv *t9 = wf_unary(WF_RELU, t7);
    wf_tv *t10 = wf_mul(t0, t9);
    wf_output(f, t3);
    wf_output(f, t8);
    wf_output(f, t10);
    wf_cache_before(t3);
    wf_tv_split_outer(t3, 1, 6); /* [5, bS{6}, bS{1}] */
    wf_propagate_transforms(t3);
    wf_tv_parallelize(t3, 0, WF_TIDX);
    wf_tv_parallelize(t3, 0, WF_BIDY);
    wf_parallelize_all_like(t2, 0);
    if (merge_t8)
        wf_tv_merge(t8, 0); /* [5 * 6, bS{1}] */
    wf_inline_all_at(t3, 2);
    *out3 = t3;
    return f;
}

TEST(issue18_bcast_merge_with_a_split_broadcast_is_not_forwarded) {
    wf_tv *t3;
    wf_fusion *f = race_case(true, &t3);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 0); /* was 1: in T8's loop of 30 */
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T4 reads global T3 across blocks on BIDy (T3's axis iblockIdx.y4{5}, T4's axis "
              "none): other blocks write the cells it reads, which needs a grid-wide sync; "
              "parallelize exactly mapped axes of both on BIDy, or compute T4 in a separate "
              "fusion");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Without T8's merge, the same schedule runs. */
TEST(issue18_bcast_split_broadcast_schedule_without_the_merge_runs) {
    wf_tv *t3;
    wf_fusion *f = race_case(false, &t3);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 2);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 20261123 -c 39735 as C calls (T12 is T1's cache). */
TEST(issue18_bcast_own_merge_with_a_broadcast_output_axis_writes_every_cell) {
    wf_fusion *f = wf_fusion_new();
    int64_t s[1] = {3};
    wf_tv *t0 = wf_input(f, WF_I32, 1, s);
    wf_tv *t1 = wf_input(f, WF_F32, 1, s);
    wf_tv *t2 = wf_input(f, WF_F64, 1, s);
    wf_tv *t3 = wf_broadcast(t0, 2, (const bool[]){false, true});
    wf_tv *t4 = wf_transpose(t3, 1, 0);
    wf_tv *t5 = wf_transpose(t3, 1, 0);
    wf_tv *t6 = wf_max(t3, 1, (const int[]){0});
    wf_tv *t7 = wf_unary(WF_SQRT, t2);
    wf_tv *t8 = wf_unary(WF_EXP, t7);
    wf_tv *t9 = wf_binary(WF_MAX, t1, t0);
    wf_tv *t10 = wf_binary(WF_MAX, t6, t0);
    wf_tv *t11 = wf_reduce(WF_MUL, t2, 1, (const int[]){0});
    wf_output(f, t4);
    wf_output(f, t5);
    wf_output(f, t8);
    wf_output(f, t9);
    wf_output(f, t10);
    wf_output(f, t11);
    wf_cache_after(t1);
    wf_tv_parallelize(t4, 0, WF_TIDX);
    wf_propagate_transforms(t4);
    wf_tv_merge_axes(t4, 1, 0); /* iS6{3} and bS5{1} -> [3] */
    wf_propagate_transforms(t4);
    wf_tv_parallelize(t4, 0, WF_TIDX);
    wf_tv_parallelize(t4, -1, WF_TIDZ);
    wf_parallelize_all_like(t4, 0);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  T3[0] = T0[threadIdx.z];\n"
                                       "  T4[threadIdx.z] = T3[0];\n"
                                       "  T5[threadIdx.z] = T3[0];\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 7002 -c 53272 as C calls (T8 is T5's cache). T3, a max over
   T1[bS1{1}, iS2{32}], merges rS5{1} and rS6{32} into rS14{32}: forwarded,
   rS14 is permissively its other input, iS2, and through T5's broadcast
   resolved against T0 by T6, mapped to T4's broadcast bS7. The walk of T4's
   write computes rS14's index from T4's own (i4), and the write-once bound
   of the broadcast output took it for a loop that expands bS7: `i4 < 1`
   wrote only T4[0, 0]. A group made of T4's own groups (and its axes of
   extent 1) by any tensor's transform iterates T4's data: not bounded. */
TEST(issue18_bcast_other_tensors_merge_of_own_axes_writes_every_cell) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(
        f, WF_F64, 1, (const int64_t[]){32}); /* the case's f32 sum rounds unlike the reference's */
    wf_tv *t1 = wf_broadcast(t0, 2, (const bool[]){true, false});
    wf_tv *t2 = wf_binary(WF_ADD, t1, t1);
    wf_tv *t3 = wf_reduce(WF_MAX, t1, 2, (const int[]){1, 0});
    wf_tv *t4 = wf_transpose(t1, 1, 1);
    wf_tv *t5 = wf_reduce(WF_ADD, t4, 1, (const int[]){1});
    wf_tv *t6 = wf_binary(WF_ADD, t5, t0);
    wf_tv *t7 = wf_binary(WF_MUL, t6, t0);
    wf_output(f, t2);
    wf_output(f, t3);
    wf_output(f, t4);
    wf_output(f, t7);
    wf_cache_after(t5);
    wf_propagate_transforms(t2);
    wf_tv_parallelize(t2, 0, WF_TIDX);
    wf_tv_merge_axes(t3, 0, -1); /* rS5{1} and rS6{32} -> rS14{32} */
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 2);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "    for (wf_index i4 = 0; i4 < 32; ++i4) {\n"
                                       "      T4[i4] = T1[i4];\n"
                                       "      T5[0] = wf_radd((double)T5[0], (double)T4[i4]);\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 7003 -c 32871 as C calls. T6 = [iS{7}, iS{5}, bS15{1}] merges
   its broadcast with its middle axis (merge_axes(3, 2)); propagated, T10
   (pow(T5, T6), where T5 expands T6's broadcast) merges the expanded axis
   with the same middle axis into one loop of 25, which T6 is inlined into.
   That loop's group (iS47{25}) is permissively T6's broadcast (a merge with
   an axis of extent 1 is its other input), and the write-once bound of the
   broadcast output took the whole loop for one that expands it: `i2 < 1`
   wrote only T6[.., 0, 0]. A transform with any input of T6's own data
   iterates its data (the expanding input is bounded on its own, i2 / 5). */
TEST(issue18_bcast_merge_with_an_expanded_axis_bounds_only_the_expanding_part) {
    wf_fusion *f = wf_fusion_new();
    int64_t s[2] = {7, 5};
    wf_tv *t0 = wf_input(f, WF_I32, 2, s);
    wf_tv *t1 = wf_input(f, WF_I32, 2, s);
    wf_tv *t2 = wf_input(f, WF_F32, 2, s);
    wf_tv *t3 = wf_transpose(t1, 1, 1);
    wf_tv *t4 = wf_unary(WF_TANH, t2);
    wf_tv *t5 = wf_broadcast(t4, 3, (const bool[]){false, true, false});
    wf_tv *t6 = wf_broadcast(t3, 3, (const bool[]){false, false, true});
    wf_tv *t7 = wf_permute(t6, (const int[]){2, 1, 0});
    wf_tv *t8 = wf_binary(WF_SUB, t7, t7);
    wf_tv *t9 = wf_binary(WF_SUB, t1, t0);
    wf_tv *t10 = wf_binary(WF_POW, t5, t6);
    wf_output(f, t6);
    wf_output(f, t8);
    wf_output(f, t9);
    wf_output(f, t10);
    wf_tv_split(t6, 0, 5);
    wf_tv_merge_axes(t6, 3, 2);
    wf_tv_merge(t6, -3);
    wf_tv_split_outer(t6, 0, 3);
    wf_propagate_transforms(t6);
    wf_tv_merge(t8, -3);
    wf_parallelize_all_like(t2, 0);
    wf_tv_split(t9, -3, 1);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k),
                  "        if (i0 * 4 + i1 < 10 && i0 * 4 + i1 < 7 && i2 / 5 < 1) {\n"
                  "          T6[i0 * 20 + i1 * 5 + i2 % 5] = T3[0];\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* fuzz -s 780 -c 451267 as C calls (T0 is unused, as in the case; T1 is f64
   where the case has f32, whose sum the reference rounds otherwise). T2, a
   copy of T1, inlined into its copy T3, the max T8 and T10 = T2 * T7, made
   T3's loop T10's loop. T4 = broadcast(T3) [bS4{1}, iS5{32}], the sum T5 of
   its iS5 and T7, a permute of T5, are inlined into T10's loop through their
   broadcast axes (permissively T10's iS12): T4 read all of T3 in the first
   iteration, where only T3[0] was written (the executor: "read of T3[1]
   (local memory), which was never written"). A reader may share the loop
   that writes its producer only when the producer is inlined into it there:
   T2 stays out of T10's loop, T3 is complete before it. */
static wf_fusion *reader_in_writers_loop_case(wf_tv **t2, wf_tv **t4) {
    wf_fusion *f = wf_fusion_new();
    wf_input(f, WF_F32, 1, (const int64_t[]){32});
    wf_tv *t1 = wf_input(f, WF_F64, 1, (const int64_t[]){32});
    *t2 = wf_permute(t1, (const int[]){0});
    wf_tv *t3 = wf_permute(*t2, (const int[]){0});
    *t4 = wf_broadcast(t3, 2, (const bool[]){true, false});
    wf_tv *t5 = wf_sum(*t4, 1, (const int[]){1});
    wf_tv *t6 = wf_unary(WF_NEG, t5);
    wf_tv *t7 = wf_permute(t5, (const int[]){0});
    wf_tv *t8 = wf_reduce(WF_MAX, *t2, 1, (const int[]){0});
    wf_tv *t9 = wf_binary(WF_SUB, t3, t1);
    wf_tv *t10 = wf_binary(WF_MUL, *t2, t7);
    wf_output(f, t6);
    wf_output(f, t8);
    wf_output(f, t9);
    wf_output(f, t10);
    wf_tv_split(t5, 1, 4);
    wf_tv_parallelize(t5, 2, WF_UNROLL);
    return f;
}

TEST(issue18_bcast_reader_stays_out_of_the_loop_that_writes_its_producer) {
    wf_tv *t2, *t4;
    wf_fusion *f = reader_in_writers_loop_case(&t2, &t4);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t2), 0); /* was 1: T3 written in T10's loop */
    CHECK_EQ_I64(wf_tv_compute_at(t4), 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i1 = 0; i1 < 32; ++i1) {\n"
                                       "    T3[i1] = T2[i1];\n"
                                       "  }\n"
                                       "  for (wf_index i2 = 0; i2 < 32; ++i2) {\n"
                                       "    double T4[32];\n"
                                       "    double T5[1];\n"
                                       "    double T7[1];\n"
                                       "    for (wf_index i3 = 0; i3 < 32; ++i3) {\n"
                                       "      T4[i3] = T3[i3];\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same position asked for by name is refused, naming the reader and the
   producer whose loop it would share. */
TEST(issue18_bcast_inlining_a_reader_into_its_producers_loop_refused_by_name) {
    wf_tv *t2, *t4;
    wf_fusion *f = reader_in_writers_loop_case(&t2, &t4);
    wf_inline_most(f);
    wf_tv_inline_at(t2, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T2.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of "
              "T2 would make axis 0 of T4 (bS4{1}) one loop with axis 0 of its producer T3 "
              "(iS3{32}), which is not inlined into T4 there: in each iteration T4 would read "
              "cells of T3 that later iterations write");
    wf_fusion_free(f);
}

/* fuzz -s 780 -c 246740 as C calls (T0 and T1 are unused, as in the case; f64
   where the case has f32, whose sum the reference rounds otherwise): NaN
   where the reference has inf. The reference is right (x^x with x = exp(..)
   overflows, and a sum of infinities is inf); weft read unwritten cells.
   T5 = pow(T4, T4), an output, and T8 = broadcast(T5) both sat in the loop
   of T10's axis iS24{3}: T5 through T4 inlined into it, T8 through its
   broadcast axis bS18 (permissively iS24). T8 read T5's three cells in
   iteration 0, where only the first was written; the others held the
   poisoned output's NaN, which the sum T9 carried. As -c 451267: T4 stays
   out of that loop, which reads a complete T5. */
TEST(issue18_bcast_reader_of_an_output_written_in_its_loop_reads_it_complete) {
    wf_fusion *f = wf_fusion_new();
    wf_input(f, WF_F16, 2, (const int64_t[]){32, 3});
    wf_input(f, WF_F64, 2, (const int64_t[]){4, 3});
    wf_tv *t2 = wf_input(f, WF_F64, 2, (const int64_t[]){32, 3});
    wf_tv *t3 = wf_unary(WF_EXP, t2);
    wf_tv *t4 = wf_cast(t3, WF_F64);
    wf_tv *t5 = wf_binary(WF_POW, t4, t4);
    wf_tv *t6 = wf_broadcast(t3, 3, (const bool[]){false, true, false});
    wf_tv *t7 = wf_binary(WF_DIV, t5, t2);
    wf_tv *t8 = wf_broadcast(t5, 3, (const bool[]){false, true, false});
    wf_tv *t9 = wf_sum(t8, 1, (const int[]){2});
    wf_tv *t10 = wf_binary(WF_MIN, t9, t4);
    wf_output(f, t5);
    wf_output(f, t6);
    wf_output(f, t7);
    wf_output(f, t9);
    wf_output(f, t10);
    wf_tv_split(t9, 2, 64);
    wf_tv *p = wf_tv_rfactor(t9, 1, (const int[]){2}); /* T11 */
    wf_tv_split(p, 2, 8);
    wf_tv_rfactor(p, 1, (const int[]){2});
    wf_tv_inline_at(p, 2);
    wf_tv_parallelize(t9, 0, WF_BIDX);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 1); /* was 2: in T10's loop of 3 */
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i2 = 0; i2 < 3; ++i2) {\n"
                                       "    T5[blockIdx.x * 3 + i2] = wf_pow(T4[i2], T4[i2]);\n"
                                       "  }\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
