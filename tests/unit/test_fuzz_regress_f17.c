/*
 * test_fuzz_regress_f17.c -- the two open classes of fuzzer finding F17
 * (tests/fuzz/known.h), fixed in analysis/inline.c and lower/index.c.
 *
 * A reduction's reader inside the reduction's loop: T4 = T1 * broadcast(max(T1)).
 * T1's axis is the max's reduction axis and T4's iteration axis; inlined into
 * both, T1 made them one loop, and T4 multiplied by partial maxima. Now an axis
 * exactly mapped to a reduction loop of R is not shared with a consumer that
 * reads R's result (unless the producer itself reads it, and so runs after the
 * loop): T1 is computed in its own loop, as nvFuser keeps a persistent buffer.
 *
 * A broadcast resolved to an axis the tensor iterates itself: T4 = max over
 * dim 1 of broadcast(T1) [b, 2], T5 = T4 + T0 with T0 and T1 exactly mapped
 * (T3 = T0 * T1). T4's broadcast axis ran in T5's loop over T0's axis, which is
 * exactly mapped to T4's own reduction axis, and indexing took the outer loop's
 * index for it: the max read one element 4 times. Now inline_most does not put
 * T4 in that loop, and where a loop like it is built anyway, its index gives
 * the tensor's own axes nothing.
 */
#include "harness.h"

/* A max, so that the reference (in double) and the kernel agree exactly. */
TEST(fuzz_regress_f17_reader_of_a_reduction_stays_out_of_its_loop) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {16};
    bool bc[1] = {true};
    int axes[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_set(t0);
    wf_tv *t2 = wf_max(t1, 1, axes);
    wf_tv *t3 = wf_broadcast(t2, 1, bc);
    wf_tv *t4 = wf_mul(t1, t3);
    wf_output(f, t2);
    wf_output(f, t4);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t1), 0); /* was 1: inside the sum's loop */
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_tv_inline_at(t1, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T1.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T1 "
              "is in the reduction loop of T2, and its consumer T4 reads T2's result, which is "
              "complete only after that loop");
    wf_fusion_free(f);
}

/* A tensor computed from the reduction's result may share loops with other
   readers of it: x - mean is inlined into the second reduction (a variance). */
TEST(fuzz_regress_f17_tensors_after_the_reduction_still_inline) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {16};
    bool bc[1] = {true};
    int axes[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_sum(t0, 1, axes);
    wf_tv *t2 = wf_broadcast(t1, 1, bc);
    wf_tv *t3 = wf_sub(t0, t2);
    wf_tv *t4 = wf_mul(t3, t3);
    wf_tv *t5 = wf_sum(t4, 1, axes);
    wf_output(f, t5);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t2), 1);
    CHECK_EQ_I64(wf_tv_compute_at(t3), 1);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static wf_fusion *resolved_broadcast(wf_tv **t4, wf_tv **t5) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {2};
    bool bc[2] = {true, false};
    int axes[1] = {1};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t2 = wf_broadcast(t1, 2, bc);
    wf_tv *t3 = wf_mul(t0, t1);
    *t4 = wf_max(t2, 1, axes);
    *t5 = wf_add(*t4, t0);
    wf_output(f, t3);
    wf_output(f, *t5);
    wf_tv_split(*t4, 1, 4);
    return f;
}

TEST(fuzz_regress_f17_broadcast_resolved_to_an_own_axis_is_not_inlined_there) {
    wf_tv *t4, *t5;
    wf_fusion *f = resolved_broadcast(&t4, &t5);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_tv_compute_at(t4), 0);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_tv_inline_at(t4, 1);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T4.inline_at(1): position 1 is beyond the maximum inline position 0: axis 0 of T4 "
              "(bS5{1}) would run in the loop of axis 0 of its consumer T5, which is exactly "
              "mapped to T4's own rS6{2}: one loop index cannot stand for both");
    wf_fusion_free(f);
}

/* The rest of F17, found with the switch off (2026-11-23). Each runs on the
   executor, which reports what a GPU would get wrong silently: a read of a
   never-written cell or a race. */

/* A sum over a broadcast axis that another consumer resolves to 32: one loop
   of 32 held the reduction axis of extent 1, and the sum counted its one
   value 32 times (fuzz -s 1 -c 140743: 864 for 27). */
TEST(fuzz_regress_f17_reduction_loop_is_not_shared_with_another_extent) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {32};
    bool bc[2] = {true, false};
    int inner[1] = {1}, outer[1] = {0}, rf[1] = {1};
    wf_tv *t0 = wf_input(f, WF_I32, 1, shape);
    wf_tv *t1 = wf_broadcast(t0, 2, bc);
    wf_tv *t2 = wf_sum(t1, 1, inner);
    wf_tv *t3 = wf_sum(t2, 1, outer);
    wf_tv *t4 = wf_sub(t2, t0);
    wf_output(f, t3);
    wf_output(f, t4);
    wf_tv_split(t2, 1, 3);
    wf_tv_parallelize(t2, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(t2, 1, rf);
    wf_tv_inline_at(p, 1);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The partial sums of a bf16 rfactor are floats: rounded to bf16 each, they
   gave -1.914 for -1.758 (fuzz -s 1 -c 42359). */
TEST(fuzz_regress_f17_bf16_rfactor_partials_are_float) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {32, 4};
    int axes[2] = {1, 0}, rf[1] = {1};
    wf_tv *t0 = wf_input(f, WF_BF16, 2, shape);
    wf_tv *t1 = wf_sum(t0, 2, axes);
    wf_output(f, t1);
    wf_tv_split(t1, 1, 2);
    wf_tv_parallelize(t1, 2, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(t1, 1, rf);
    wf_tv_inline_at(p, 0);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK_HAS(wf_kernel_source(k), "float T2[");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* An f16 sum's float accumulator is stored in every thread of a block
   reduction, not only in those inside the split's bounds (threadIdx.x < 2):
   the broadcast of the result read a never-written register in thread 2
   (fuzz -s 1 -c 34364). */
TEST(fuzz_regress_f17_accumulator_store_ignores_the_reduced_bounds) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {2, 3};
    bool bc[1] = {true};
    int axes[2] = {1, 0};
    wf_tv *t0 = wf_input(f, WF_F16, 2, shape);
    wf_tv *t1 = wf_sum(t0, 2, axes);
    wf_tv *t2 = wf_broadcast(t1, 1, bc);
    wf_output(f, t2);
    wf_tv_split(t1, 0, 4);
    wf_tv_parallelize(t1, 1, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK_HAS(wf_kernel_source(k), "  T1[0] = wf_acc1;\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* An rfactor producer in shared memory is initialized in all 16 cells of its
   TIDx loop, though only 8 are in bounds: the block reduction reads all 16
   (fuzz -s 3 -c 118525). */
TEST(fuzz_regress_f17_shared_accumulator_is_initialized_past_the_bounds) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[3] = {2, 8, 8};
    int axes[3] = {1, 2, 0}, rf[1] = {2};
    wf_tv *t0 = wf_input(f, WF_F32, 3, shape);
    wf_tv *t1 = wf_max(t0, 3, axes); /* exact, as the executor's check is */
    wf_output(f, t1);
    wf_tv_split(t1, 2, 16);
    wf_tv_parallelize(t1, 3, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(t1, 1, rf);
    wf_tv_set_memory(p, WF_MEM_SHARED);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A block reduction of a global tensor in a kernel of two blocks: block 1
   does not write the result (block 0 does), so it does not read the input,
   which block 0 writes (fuzz -s 2 -c 7582: a cross-block race). */
TEST(fuzz_regress_f17_non_writing_block_skips_the_block_reduction_reads) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {8};
    int axes[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_set(t0);
    wf_tv *t2 = wf_max(t1, 1, axes);
    wf_tv *t3 = wf_unary(WF_NEG, t0);
    wf_output(f, t1);
    wf_output(f, t2);
    wf_output(f, t3);
    wf_tv_split(t2, 0, 4);
    wf_tv_parallelize(t2, 1, WF_TIDX);
    wf_tv_split(t3, 0, 4);
    wf_tv_parallelize(t3, 0, WF_BIDX);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK_HAS(wf_kernel_source(k), "blockIdx.x == 0");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* propagate_transforms merged an rfactor producer's partial axis (an
   iteration axis split from the reduction axis) back with the reduction axis
   of extent 1: the producer summed its two partials into one, and the final
   sum counted it twice (fuzz -s 20261123 -c 286325: -3.918 for -1.959). The
   mixed-merge check now sees iteration axes made on the way, not only
   logical ones. */
TEST(fuzz_regress_f17_propagated_merge_of_an_rfactor_partial_axis_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {2};
    int axes[1] = {0}, rf[1] = {0};
    wf_tv *t0 = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_unary(WF_TANH, t0);
    wf_tv *t2 = wf_sum(t1, 1, axes);
    wf_output(f, t1);
    wf_output(f, t2);
    wf_tv_split(t2, 0, 2);
    wf_tv_parallelize(t2, 1, WF_TIDY);
    wf_tv *p = wf_tv_rfactor(t2, 1, rf);
    wf_cache_after(t0);
    wf_cache_before(t2);
    wf_tv_split(t1, 0, 2);
    wf_tv_merge_axes(t1, 1, 0);
    wf_propagate_transforms(t1);
    wf_inline_most(f);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    char want[256];
    snprintf(want, sizeof want, "not supported yet: T%d's reduction loop axis ", wf_tv_name(p));
    CHECK_HAS(wf_fusion_error(f), want);
    CHECK_HAS(wf_fusion_error(f), "is made from the iteration axis ithreadIdx.y");
    wf_fusion_free(f);
}
