/*
 * test_ops_executor.c -- the CPU reference executor's own checks and
 * statistics: the bank-conflict degree of vector accesses (wavefronts over
 * the least the access width needs) and outputs no thread wrote.
 */
#include "harness.h"
#include "ir/ir.h"
#include "runtime/runtime.h"

/* a[128] -> shared s -> out, each as 32 threads x 4 floats (16-byte vectors). */
static wf_fusion *vector_smem_copy(int64_t vec) {
    int64_t shape[1] = {32 * vec};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *s = wf_set(a), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv *tvs[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(tvs[i], 0, vec);
        wf_tv_parallelize(tvs[i], 0, WF_TIDX);
        wf_tv_parallelize(tvs[i], 1, WF_VECTORIZE);
    }
    return f;
}

TEST(ops_executor_conflict_free_16_byte_access_is_degree_1_with_4_wavefronts) {
    wf_fusion *f = vector_smem_copy(4);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_access_stats st;
    if (k && wf_interp_stats(k, &st) == WF_OK) {
        CHECK_HAS(wf_kernel_source(k), "wf_vec_copy<float, 4>");
        CHECK_EQ_I64(st.smem_accesses, 2);       /* one warp: a write and a read */
        CHECK_EQ_I64(st.smem_wavefronts, 2 * 4); /* 512 bytes: 4 wavefronts each */
        CHECK_EQ_I64(st.smem_max_conflict_degree, 1);
    } else {
        CHECK(false);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A launch that misses part of an output (here: a grid one block short, as
   a wrong launch-extent rule would give) must never pass as WF_OK. */
TEST(ops_executor_reports_the_first_output_element_no_thread_wrote) {
    int64_t shape[2] = {4, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_unary(WF_NEG, wf_input(f, WF_F32, 2, shape));
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    float in[32] = {0}, out[32];
    wf_buffer ib[1] = {{in, WF_F32, 2, {4, 8}, {0}, -1}};
    wf_buffer ob[1] = {{out, WF_F32, 2, {4, 8}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, ib, 1, ob, 1), WF_OK);
    /* gridDim.x (dimension 3 in launch order) shrunk behind the compiler's back */
    CHECK_EQ_I64(k->dims[3].n, 1);
    k->dims[3].extent[0] = val_const(&k->arena, 3);
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, ib, 1, ob, 1), WF_ERR_SCHEDULE);
    CHECK_STR(wf_last_run_error(k),
              "output T1: element [3, 0] was never written by any thread; the launch or the "
              "predicates do not cover the tensor (check the parallelized axes and the extents "
              "of its loop domain)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Size arithmetic is checked: a stride whose reach overflows 64 bits was
   signed overflow (UBSan) and then a confusing out-of-bounds report. */
TEST(ops_executor_buffer_reach_beyond_64_bits_is_a_clear_error) {
    int64_t shape[3] = {-1, -1, -1};
    int8_t contig[3] = {0, 0, 0};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input_strided(f, WF_F32, 3, shape, contig));
    wf_output(f, b);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    /* Each stride x extent fits in 64 bits; their sum, the reach, does not. */
    const int64_t s = ((int64_t)1 << 62) - 1;
    float in[8] = {0}, out[8];
    wf_buffer ib[1] = {{in, WF_F32, 3, {2, 2, 2}, {s, s, s}, -1}};
    wf_buffer ob[1] = {{out, WF_F32, 3, {2, 2, 2}, {0}, -1}};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, ib, 1, ob, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k),
              "input 0: the buffer (for T0) spans more than 2^63 bytes: its shape or strides are "
              "too large");
    wf_kernel_free(k);
    wf_fusion_free(f);
}
