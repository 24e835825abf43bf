/*
 * test_lower_broadcast_output.c -- an output with a broadcast dim whose loop
 * is shared with a tensor that expands that broadcast (fuzzer class F10):
 * the loop runs over the expanded extent, but the output holds one element
 * along the dim, so only index 0 of the loop may write it. The same for an
 * output without a broadcast dim whose loop is promoted, through a sibling's
 * broadcast, to a merge of its data with an expansion. The tests pin the
 * kernel text and run it on the CPU reference executor.
 */
#include "harness.h"

static const char *kernel_body(const wf_kernel *k) {
    return strstr(wf_kernel_source(k), "extern \"C\"");
}

/* T2 = broadcast(T0) [1, 5] is read by output T3 = -T2 [1, 5] and by
   T4 = T2 * broadcast(T1) [5, 5]; inlined, T3's write sits in T4's loops. */
TEST(lower_broadcast_output_in_expanded_loop_writes_once) {
    wf_fusion *f = wf_fusion_new();
    int64_t s[1] = {5};
    bool inner[2] = {false, true}, outer[2] = {true, false};
    wf_tv *t0 = wf_input(f, WF_F32, 1, s);
    wf_tv *t1 = wf_input(f, WF_F32, 1, s);
    wf_tv *t2 = wf_broadcast(t0, 2, outer);
    wf_tv *t3 = wf_unary(WF_NEG, t2);
    wf_tv *t4 = wf_mul(t2, wf_broadcast(t1, 2, inner));
    wf_output(f, t3);
    wf_output(f, t4);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, "
            "Tensor<float, 2> T3, Tensor<float, 2> T5) {\n"
            "  for (wf_index i0 = 0; i0 < 5; ++i0) {\n"
            "    for (wf_index i1 = 0; i1 < 5; ++i1) {\n"
            "      float T2[1];\n"
            "      float T4[1];\n"
            "      T2[0] = T0[i1];\n"
            "      if (i0 < 1) {\n"
            "        T3[i1] = -T2[0];\n"
            "      }\n"
            "      T4[0] = T1[i0];\n"
            "      T5[i0 * 5 + i1] = T2[0] * T4[0];\n"
            "    }\n"
            "  }\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same with the broadcast output T3 read by T5 in the expanded loop,
   which runs on threads: written once (by thread 0), the element would be
   read by the other threads with nothing to make them wait for it (on
   blocks, nothing can): refused, naming the tensor and the axis. */
TEST(lower_broadcast_output_read_in_expanded_thread_loop_is_refused) {
    wf_fusion *f = wf_fusion_new();
    int64_t s[1] = {5};
    bool inner[2] = {false, true}, outer[2] = {true, false};
    wf_tv *t0 = wf_input(f, WF_F32, 1, s);
    wf_tv *t1 = wf_input(f, WF_F32, 1, s);
    wf_tv *t2 = wf_broadcast(t0, 2, outer);
    wf_tv *t3 = wf_unary(WF_NEG, t2);
    wf_tv *t5 = wf_mul(t3, wf_broadcast(t1, 2, inner));
    wf_output(f, t3);
    wf_output(f, t5);
    wf_tv_parallelize(t5, 0, WF_TIDX);
    wf_parallelize_all_like(t5, 0);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T3: fusion output T3 holds one element along its broadcast axis bS4{1}, but that "
              "axis shares a parallel loop with a tensor that expands it, and T3 is read in that "
              "loop: one thread or block would write the element that the others read, and they "
              "cannot wait for it; inline T3 less deeply (wf_tv_inline_at) or let its readers "
              "read its producer");
    wf_fusion_free(f);
}

/* The same class without a broadcast dim in the output (fuzz -s 20261137 -c
   38334, reduced): T2 = -T0 [8] is read by output T3 = |T2| [8] and by
   T5 = broadcast(T2) - T1 [8, n]. T5 merged, split by 2 with the inner part
   on TIDy, propagated, and everything inlined: T3's [8] split by 2 shares
   T5's loops over 8 * n, so T3's cell (i0 * 2 + threadIdx.y) / n was written
   by n iterations, by both threads: a race. Only index 0 of the expansion
   (the n) writes. n is symbolic, run at 3. */
static wf_fusion *expanded_sibling(bool read_in_loop) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, (int64_t[]){8});
    wf_tv *y = wf_input(f, WF_F32, 2, (int64_t[]){8, -1});
    wf_tv *a = wf_unary(WF_NEG, x);
    wf_tv *o1 = wf_unary(WF_ABS, a);
    wf_tv *o2 = wf_sub(wf_broadcast(a, 2, (bool[]){false, true}), y);
    wf_output(f, o1);
    wf_output(f, o2);
    if (read_in_loop)
        wf_output(f, wf_add(wf_broadcast(o1, 2, (bool[]){false, true}), y));
    wf_tv_merge(o2, 0);
    wf_tv_split(o2, 0, 2);
    wf_tv_parallelize(o2, 1, WF_TIDY);
    wf_propagate_transforms(o2);
    wf_parallelize_all_like(o2, 0);
    wf_inline_most(f);
    return f;
}

TEST(lower_output_in_loop_promoted_by_an_expansion_writes_once) {
    wf_fusion *f = expanded_sibling(false);
    int64_t sym[16] = {8, 0, 0, 0, 0, 0, 0, 0, 8, 3};
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k)
        CHECK_STR(kernel_body(k),
                  "extern \"C\" __global__ void weft_kernel(Tensor<float, 1> T0, Tensor<float, 2> "
                  "T1, Tensor<float, 1> T3, Tensor<float, 2> T5) {\n"
                  "  for (wf_index i0 = 0; i0 < wf_ceildiv(T1.size[1] * 8, 2); ++i0) {\n"
                  "    float T2[1];\n"
                  "    float T4[1];\n"
                  "    if (i0 * 2 + threadIdx.y < T1.size[1] * 8) {\n"
                  "      T2[0] = -T0[(i0 * 2 + threadIdx.y) / T1.size[1]];\n"
                  "    }\n"
                  "    if (i0 * 2 + threadIdx.y < T1.size[1] * 8 && (i0 * 2 + threadIdx.y) % "
                  "T1.size[1] < 1) {\n"
                  "      T3[(i0 * 2 + threadIdx.y) / T1.size[1]] = wf_abs(T2[0]);\n"
                  "    }\n"
                  "    if (i0 * 2 + threadIdx.y < T1.size[1] * 8) {\n"
                  "      T4[0] = T2[0];\n"
                  "    }\n"
                  "    if (i0 * 2 + threadIdx.y < T1.size[1] * 8) {\n"
                  "      T5[i0 * 2 + threadIdx.y] = T4[0] - T1[i0 * 2 + threadIdx.y];\n"
                  "    }\n"
                  "  }\n"
                  "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same with output T3 read in that loop (T6 = broadcast(T3) + T1): the
   thread that writes a cell is not the one that reads it, and nothing makes
   the reader wait: refused, naming the output, its axis and the expansion. */
TEST(lower_output_in_loop_promoted_by_an_expansion_read_there_is_refused) {
    wf_fusion *f = expanded_sibling(true);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(f),
              "T3: the loop of axis iS33{2} of fusion output T3 also runs over "
              "iS12{T1.size[1]}, an axis T3 does not have (a broadcast that another tensor "
              "sharing the loop expands), on threads or blocks, and T3 is read in that loop: one "
              "thread or block would write each element that the others read, and they cannot "
              "wait for it; inline the tensors that share the loop less deeply (wf_tv_inline_at) "
              "or let T3's readers read its producer");
    wf_fusion_free(f);
}
