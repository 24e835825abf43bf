/*
 * test_lower_broadcast_output.c -- an output with a broadcast dim whose loop
 * is shared with a tensor that expands that broadcast (fuzzer class F10):
 * the loop runs over the expanded extent, but the output holds one element
 * along the dim, so only index 0 of the loop may write it. The test pins the
 * kernel text and runs it on the CPU reference executor.
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
