/*
 * test_tir_block_tensor.c -- reaching the core fusion a wf_tir_build made: wf_tir_fusion,
 * wf_tir_block_tensor (the tensor holding what a block writes, as the build scheduled
 * it) and wf_fusion_tensor (T<n> by name), which `weft draw FILE.py BLOCK` draws.
 */
#include "harness.h"

#define TIR_STAGED                                                                                 \
    "@T.prim_func\n"                                                                               \
    "def add1(A: T.Buffer((64, 32), \"float32\"), C: T.Buffer((64, 32), \"float32\")):\n"          \
    "    for i, j in T.grid(64, 32):\n"                                                            \
    "        with T.block(\"C\"):\n"                                                               \
    "            vi, vj = T.axis.remap(\"SS\", [i, j])\n"                                          \
    "            C[vi, vj] = A[vi, vj] + T.float32(1)\n"

/* C split by 16 and bound (blockIdx.x, threadIdx.x), A read through a shared stage. */
static wf_tir *staged(void) {
    wf_tir *s = wf_tir_parse(TIR_STAGED);
    wf_tir_block *b = wf_tir_get_block(s, "C");
    wf_tir_cache_read(s, b, 0, "shared");
    wf_tir_loop *l[2], *i[2];
    wf_tir_get_loops(s, b, l, 2);
    int64_t f16[2] = {-1, 16};
    wf_tir_split(s, l[0], 2, f16, i);
    wf_tir_bind(s, i[0], "blockIdx.x");
    wf_tir_bind(s, i[1], "threadIdx.x");
    return s;
}

TEST(tir_block_tensor_of_built_blocks) {
    wf_tir *s = staged();
    CHECK(wf_tir_fusion(s) == NULL);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    wf_fusion *f = wf_tir_fusion(s);
    CHECK(f != NULL);
    wf_tv *c = wf_tir_block_tensor(s, wf_tir_get_block(s, "C"));
    wf_tv *a = wf_tir_block_tensor(s, wf_tir_get_block(s, "A_shared"));
    CHECK_STR(wf_tir_error(s), "");
    CHECK(c && a && wf_tv_fusion(c) == f && wf_tv_fusion(a) == f);
    /* the stage T1 copies input T0; C's tensor is the last, split and bound */
    CHECK_EQ_I64(wf_tv_name(a), 1);
    CHECK(wf_fusion_tensor(f, wf_tv_name(c)) == c);
    CHECK(wf_fusion_tensor(f, 1) == a);
    CHECK(wf_tv_definition_input(a, 0) == wf_fusion_tensor(f, 0));
    CHECK(wf_fusion_tensor(f, wf_tv_name(c) + 1) == NULL);
    CHECK(wf_fusion_tensor(f, -1) == NULL);
    CHECK(wf_fusion_tensor(NULL, 0) == NULL);
    CHECK_EQ_I64(wf_tv_ndim(c), 3);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(c, 0)), 4);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(c, 1)), 16);
    CHECK_HAS(wf_dot_string(a), "shared memory");
    CHECK_HAS(wf_dot_string(c), "iblockIdx.x");
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_block_tensor_before_build_is_an_error) {
    wf_tir *s = staged();
    CHECK(wf_tir_block_tensor(s, wf_tir_get_block(s, "C")) == NULL);
    CHECK_STR(wf_tir_error(s), "wf_tir_block_tensor: block \"C\": the program is not built yet; "
                               "call wf_tir_build first");
    wf_tir_free(s);
    CHECK(wf_tir_fusion(NULL) == NULL);
    CHECK(wf_tir_block_tensor(NULL, NULL) == NULL);
}

TEST(tir_block_tensor_of_a_block_made_after_the_build) {
    wf_tir *s = staged();
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    wf_tir_block *w = wf_tir_cache_write(s, wf_tir_get_block(s, "C"), 0, "local");
    CHECK(wf_tir_block_tensor(s, w) == NULL);
    CHECK_STR(wf_tir_error(s), "wf_tir_block_tensor: block \"C_local\" has no tensor in the "
                               "built program (it was scheduled after the last wf_tir_build; "
                               "build again)");
    wf_tir_clear_error(s);
    CHECK(wf_tir_block_tensor(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s),
              "wf_tir_block_tensor: the block handle is NULL or not of this schedule");
    wf_kernel_free(k);
    wf_tir_free(s);
}
