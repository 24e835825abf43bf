/*
 * test_lower_index_extent1.c -- the extent-1 shortcut of indexing (an axis
 * of extent 1 that the walk does not reach is at index 0) must not take the
 * place of a value a split below that axis computes. Found by the property
 * test (seed 20266232): an outer of extent 1 split again by 8, whose inner
 * is swizzled onto a block axis, was indexed as 0, and the bounds predicate
 * of its non-divisible split was lost: blocks wrote rows they must not.
 * The test pins the kernel text and runs it on the CPU reference executor.
 */
#include "harness.h"

static const char *kernel_body(const wf_kernel *k) {
    return strstr(wf_kernel_source(k), "extern \"C\"");
}

/* T3[5, 8] = T2 - T0, T2 = broadcast(T1); axis 0 split by 7 into {1, 7},
   that {1} split by 8 into {1, 8}, the {8} swizzled with a part of axis 1. */
TEST(lower_index_extent1_outer_split_again_keeps_its_index_and_predicate) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {5, 8}, outer[1] = {5};
    bool bc[2] = {false, true};
    wf_tv *t0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t1 = wf_input(f, WF_F32, 1, outer);
    wf_tv *t2 = wf_broadcast(t1, 2, bc);
    wf_tv *t3 = wf_sub(t2, t0);
    wf_output(f, t3);
    wf_tv_split(t3, 0, 7);       /* [1, 7, 8] */
    wf_tv_split(t3, 0, 8);       /* [1, 8, 7, 8] */
    wf_tv_split(t3, 3, 7);       /* [1, 8, 7, 2, 7] */
    wf_tv_split_outer(t3, 3, 1); /* [1, 8, 7, 1, 2, 7] */
    wf_tv_swizzle(t3, WF_SWIZZLE_XOR, 4, 1);
    wf_propagate_transforms(t3);
    wf_tv_parallelize(t3, 0, WF_BIDY);
    wf_tv_parallelize(t3, 1, WF_BIDX);
    wf_tv_parallelize(t3, 4, WF_TIDY);
    wf_parallelize_all_like(t3, 0);
    wf_tv_inline_at(t2, 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 2> T0, Tensor<float, 1> T1, "
            "Tensor<float, 2> T3) {\n"
            "  float T2[56];\n"
            "  for (wf_index i0 = 0; i0 < 8; ++i0) {\n"
            "    for (wf_index i1 = 0; i1 < 7; ++i1) {\n"
            "      if (i0 < 1 && i0 * 7 + i1 < 5) {\n"
            "        T2[i0 * 7 + i1] = T1[i0 * 7 + i1];\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "  for (wf_index i2 = 0; i2 < 7; ++i2) {\n"
            "    for (wf_index i3 = 0; i3 < 7; ++i3) {\n"
            "      if (threadIdx.y * 7 + i3 < 8 && (threadIdx.y ^ blockIdx.x) < 1 && "
            "(threadIdx.y ^ blockIdx.x) * 7 + i2 < 5) {\n"
            "        T3[(threadIdx.y ^ blockIdx.x) * 56 + i2 * 8 + threadIdx.y * 7 + i3] = "
            "T2[(threadIdx.y ^ blockIdx.x) * 7 + i2] - T0[(threadIdx.y ^ blockIdx.x) * 56 + i2 * 8 "
            "+ threadIdx.y * 7 + i3];\n"
            "      }\n"
            "    }\n"
            "  }\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The broadcast shortcut (an unreached broadcast axis is at 0) is a last
   resort too: output T1 = broadcast(T0) [1, 2] with its broadcast dim split
   outer by 2 (-> {2}, {1}) and the {2} merged onto threadIdx.x: thread 2
   must not write, the split's predicate says so (fuzz -s 7 -c 12850). */
TEST(lower_index_split_broadcast_keeps_its_predicate) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {2};
    bool bc[2] = {true, false};
    wf_tv *t1 = wf_broadcast(wf_input(f, WF_F32, 1, shape), 2, bc);
    wf_output(f, t1);
    wf_tv_split_outer(t1, 0, 2); /* [2, 1, 2] */
    wf_tv_merge_axes(t1, 0, 2);  /* [4, 1] */
    wf_tv_parallelize(t1, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 1> T0, Tensor<float, 2> T1) {\n"
            "  if (threadIdx.x / 2 < 1) {\n"
            "    T1[threadIdx.x % 2] = T0[threadIdx.x % 2];\n"
            "  }\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* An extent-1 axis exactly mapped to another axis of the same tensor (here
   both of T4's last two axes are T0's axis 1, met through a broadcast on
   each side) with one of them split outer by 2: the loop of extent 1 over
   the other gives their group index 0, so the walk never needs the split's
   own step; the split's bound must still guard T4 and its inlined producer
   T2, or they ran for both outer iterations and T2 read T1[1], which T1's
   guarded loop never wrote (fuzz -s 1006 -c 25140). */
TEST(lower_index_extent1_loop_does_not_hide_a_split_of_its_group) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {4, 1};
    bool bc1[3] = {false, true, false}, bc2[3] = {false, false, true};
    wf_tv *t0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t1 = wf_unary(WF_NEG, t0);
    wf_tv *t2 = wf_broadcast(t1, 3, bc1); /* [4, b, 1] */
    wf_tv *t3 = wf_broadcast(t0, 3, bc2); /* [4, 1, b] */
    wf_tv *t4 = wf_add(t2, t3);           /* [4, 1, 1] */
    wf_output(f, t4);
    wf_tv_split_outer(t4, 2, 2); /* [4, 1, 2, 1] */
    wf_propagate_transforms(t4);
    wf_tv_inline_at(t2, -1);
    wf_tv_inline_at(t3, -1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(kernel_body(k),
                  "extern \"C\" __global__ void weft_kernel(Tensor<float, 2> T0, Tensor<float, 3> "
                  "T4) {\n"
                  "  float T1[8];\n"
                  "  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
                  "    for (wf_index i1 = 0; i1 < 2; ++i1) {\n"
                  "      if (i1 < 1) {\n"
                  "        T1[i0 * 2 + i1] = -T0[i0 + i1];\n"
                  "      }\n"
                  "    }\n"
                  "  }\n"
                  "  for (wf_index i2 = 0; i2 < 4; ++i2) {\n"
                  "    for (wf_index i3 = 0; i3 < 2; ++i3) {\n"
                  "      float T2[1];\n"
                  "      float T3[1];\n"
                  "      if (i3 < 1) {\n"
                  "        T2[0] = T1[i2 * 2 + i3];\n"
                  "      }\n"
                  "      if (i3 < 1) {\n"
                  "        T3[0] = T0[i2];\n"
                  "      }\n"
                  "      if (i3 < 1) {\n"
                  "        T4[i2] = T2[0] + T3[0];\n"
                  "      }\n"
                  "    }\n"
                  "  }\n"
                  "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The same through a transpose: T2 = T0 + T1 (T1 = T0^T) on a [1, 1] input
   maps both axes of T3 = set(T2) to one group; T3's axis 0 split by 3 and
   its inner part merged with axis 1 make a loop of 3 whose merge gives the
   group's index at once, while T2's walk meets the split's step. Producer
   and consumer must agree on the bound: a first version of the fix guarded
   only T2, and T3 read T2[1] and T2[2], never written (fuzz -s 1001 -c
   369607). */
TEST(lower_index_extent1_split_reached_through_a_transpose_keeps_its_bound) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {1, 1};
    wf_tv *t0 = wf_input(f, WF_F32, 2, shape);
    wf_tv *t1 = wf_add(t0, wf_transpose(t0, 0, 1));
    wf_tv *t2 = wf_set(t1);
    wf_output(f, t2);
    wf_tv_split(t2, 0, 3);      /* [1, 3, 1] */
    wf_tv_merge_axes(t2, 2, 1); /* [1, 3] */
    wf_tv_split(t1, 1, 3);      /* [1, 1, 3] */
    wf_tv_merge_axes(t1, 0, 2); /* [3, 1] */
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 2> T0, Tensor<float, 2> T3) {\n"
            "  float T1[1];\n"
            "  float T2[3];\n"
            "  T1[0] = T0[0];\n"
            "  for (wf_index i0 = 0; i0 < 3; ++i0) {\n"
            "    if (i0 < 1) {\n"
            "      T2[i0] = T0[0] + T1[0];\n"
            "    }\n"
            "  }\n"
            "  for (wf_index i1 = 0; i1 < 3; ++i1) {\n"
            "    if (i1 < 1) {\n"
            "      T3[0] = T2[i1];\n"
            "    }\n"
            "  }\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The split that stands for an exact class may be another tensor's: T2 =
   max(T0 [1], T1 [n]) and T1 split alike, outer by 6 onto threadIdx.z; T3 =
   broadcast(T2) and its transpose map T3's broadcast axis to the extent-1
   group, whose loop of extent 1 gives the group index 0 before the walk
   needs the split. The split's bound is T1's, `threadIdx.z * ceil(n / 6) <
   n`: T3 must keep it, or threads 1..5 read T2, which only thread 0 wrote
   (fuzz -s 1006 -c 62016; run with n = 1). */
TEST(lower_index_extent1_split_of_a_symbolic_class_keeps_its_bound) {
    wf_fusion *f = wf_fusion_new();
    int64_t one[1] = {1}, sym[1] = {-1}, n[16] = {[8] = 1}; /* T1.size[0] = 1 */
    bool at1[2] = {false, true};
    wf_tv *t0 = wf_input(f, WF_F32, 1, one);
    wf_tv *t1 = wf_input(f, WF_F32, 1, sym);
    wf_tv *t2 = wf_binary(WF_MAX, t0, t1);
    wf_tv *t3 = wf_broadcast(t2, 2, at1);
    wf_tv *t4 = wf_div(t3, wf_transpose(t3, 0, 1));
    wf_tv *t5 = wf_sub(t1, t2);
    wf_output(f, t4);
    wf_output(f, t5);
    wf_tv_split_outer(t5, 0, 6);
    wf_tv_parallelize(t5, 0, WF_TIDZ);
    wf_propagate_transforms(t5);
    wf_parallelize_all_like(t5, 0);
    wf_inline_most(f);
    wf_kernel *k = CHECK_INTERP(f, n);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
