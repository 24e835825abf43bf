/*
 * test_dynamic_smem.c -- shared memory sized by run-time extents. A tile whose
 * allocated extents are symbolic lives in the dynamic shared-memory array at
 * offsets computed from the kernel's size arguments; the launch information
 * reports -1 and the runtime sizes it per launch.
 */
#include "harness.h"

/* [M, N] (symbolic) -> shared, not inlined: the whole row block [N] per block. */
TEST(dynamic_smem_symbolic_row_tile_is_sized_at_launch) {
    static const int64_t sym[16] = {37, 45, 0, 0, 0, 0, 0, 0};
    int64_t shape[2] = {-1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_set(a);
    wf_tv *b = wf_unary(WF_NEG, s);
    wf_output(f, b);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_split(b, 1, 32);
    wf_propagate_transforms(b);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 2, WF_TIDX);
    wf_parallelize_all_like(b, 0);
    wf_tv_inline_at(s, 1);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, -1);
        CHECK_HAS(src, "float *T1 = reinterpret_cast<float *>(wf_smem + 0);");
        /* Each thread reads back only the cells it wrote: no barrier. */
        CHECK_LACKS(src, "__syncthreads();");
        CHECK_HAS(src, "i0 < wf_ceildiv(T0.size[1], 32)");
        CHECK_NVRTC(k, 90);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* Two symbolic tiles: the second starts at the first's end, 16-byte aligned. */
TEST(dynamic_smem_second_tile_offset_follows_the_first) {
    static const int64_t sym[16] = {9, 13, 0, 0, 0, 0, 0, 0, 9, 13};
    int64_t shape[2] = {-1, -1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *c = wf_input(f, WF_F32, 2, shape);
    wf_tv *sa = wf_set(a), *sc = wf_set(c);
    wf_tv *out = wf_add(sa, sc);
    wf_output(f, out);
    wf_tv_set_memory(sa, WF_MEM_SHARED);
    wf_tv_set_memory(sc, WF_MEM_SHARED);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_parallelize_all_like(out, 0);
    wf_kernel *k = CHECK_INTERP(f, sym);
    if (k) {
        CHECK_EQ_I64(wf_kernel_launch(k)->smem_bytes, -1);
        CHECK_HAS(wf_kernel_source(k), "(wf_smem + wf_ceildiv(T0.size[1] * 4, 16) * 16)");
        CHECK_NVRTC(k, 90);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}
