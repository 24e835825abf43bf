/*
 * test_analysis_mechanisms.c -- one test per lowering mechanism whose only
 * job is to fail when the mechanism is removed: the single-writer predicate
 * (one thread writes a shared or global cell that several threads map to)
 * and the write-after-read barrier at the end of a serial loop that rewrites
 * a shared buffer. Each pins the kernel text and runs the kernel on the CPU
 * reference executor (random inputs, poisoned outputs, race checks).
 */
#include "harness.h"

/* The kernel function, from its signature on (the prelude is not pinned). */
static const char *kernel_body(const wf_kernel *k) {
    return strstr(wf_kernel_source(k), "extern \"C\"");
}

/* T1 (shared, serial) is written by one thread and read by 32. */
TEST(single_writer_predicate_guards_serial_shared_write) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {32};
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_tv *t2 = wf_set(t1);
    wf_output(f, t2);
    wf_tv_set_memory(t1, WF_MEM_SHARED);
    wf_tv_parallelize(t2, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 1> T0, Tensor<float, 1> T2) {\n"
            "  extern __shared__ __align__(16) unsigned char wf_smem[];\n"
            "  float *T1 = reinterpret_cast<float *>(wf_smem + 0);\n"
            "  for (wf_index i0 = 0; i0 < 32; ++i0) {\n"
            "    if (threadIdx.x == 0) {\n"
            "      T1[i0] = T0[i0];\n"
            "    }\n"
            "  }\n"
            "  __syncthreads();\n"
            "  T2[threadIdx.x] = T1[threadIdx.x];\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Output T1 has no thread axis but the block has 32 threads for T2. */
TEST(single_writer_predicate_guards_serial_global_write) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {32};
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *t1 = wf_unary(WF_NEG, a), *t2 = wf_unary(WF_ABS, a);
    wf_output(f, t1);
    wf_output(f, t2);
    wf_tv_parallelize(t2, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1, "
            "Tensor<float, 1> T2) {\n"
            "  for (wf_index i0 = 0; i0 < 32; ++i0) {\n"
            "    if (threadIdx.x == 0) {\n"
            "      T1[i0] = -T0[i0];\n"
            "    }\n"
            "  }\n"
            "  T2[threadIdx.x] = wf_abs(T0[threadIdx.x]);\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* T1 (shared) is rewritten in each iteration of the serial loop i0 while
   other threads may still read the previous row. */
TEST(write_after_read_barrier_ends_serial_loop_rewriting_shared_buffer) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {4, 32};
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *t2 = wf_set(t1);
    wf_output(f, t2);
    wf_tv_set_memory(t1, WF_MEM_SHARED);
    wf_tv_parallelize(t2, 1, WF_TIDX);
    wf_tv_inline_at(t1, 1);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_STR(
            kernel_body(k),
            "extern \"C\" __global__ void weft_kernel(Tensor<float, 2> T0, Tensor<float, 2> T2) {\n"
            "  extern __shared__ __align__(16) unsigned char wf_smem[];\n"
            "  float *T1 = reinterpret_cast<float *>(wf_smem + 0);\n"
            "  for (wf_index i0 = 0; i0 < 4; ++i0) {\n"
            "    for (wf_index i1 = 0; i1 < 32; ++i1) {\n"
            "      if (threadIdx.x == 0) {\n"
            "        T1[i1] = T0[i0 * 32 + i1];\n"
            "      }\n"
            "    }\n"
            "    __syncthreads();\n"
            "    T2[i0 * 32 + threadIdx.x] = T1[threadIdx.x];\n"
            "    __syncthreads();\n"
            "  }\n"
            "}\n");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
