/*
 * test_tir_prims.c -- the TVMScript spellings TVM users write and the primitives
 * parallel, annotate / unannotate, set_scope, storage_align, decompose_reduction,
 * get_child_blocks, get_producers / get_consumers and blockize, against Apache TVM
 * itself: tests/tir/gen_golden_prims.py ran each case on TVM 0.27 and stored its text
 * (test_tir_prims_golden.h). Each case parses the classic source and TVM's own 0.27
 * text (T.sblock, @I.ir_module, tirx), both must print TVM's program; the steps are
 * replayed and compared; every golden parses back to itself; and the programs are
 * built and run on the CPU executor against a double-precision reference.
 */
#include <float.h>
#include <math.h>

#include "harness.h"
#include "test_tir_prims_golden.h"

#define SCRIPT_IS(s, golden) CHECK_STR(wf_tir_script(s), golden)

/* src prints as golden, and golden parses back to itself; TVM's own text (a module
   holding the function as main) prints as the module it is (rawconv). */
static void check_orig_(test_state *ts_, const char *src, const char *raw, const char *rawconv,
                        const char *golden) {
    const char *texts[4] = {src, golden, raw, rawconv};
    for (int i = 0; i < 4; i++) {
        wf_tir *s = wf_tir_parse(texts[i]);
        CHECK_STR(wf_tir_error(s), "");
        SCRIPT_IS(s, i < 2 ? golden : rawconv);
        wf_tir_free(s);
    }
}
#define check_orig(ts, src, raw, golden) check_orig_(ts, src, raw, raw##conv, golden)

static void round_trip(test_state *ts_, const char *golden) {
    wf_tir *s = wf_tir_parse(golden);
    CHECK_STR(wf_tir_error(s), "");
    SCRIPT_IS(s, golden);
    wf_tir_free(s);
}

static wf_tir_loop *loop_at(wf_tir *s, const char *block, int i) {
    wf_tir_loop *l[16] = {0};
    int n = wf_tir_get_loops(s, wf_tir_get_block(s, block), l, 16);
    return n > 0 ? l[i < 0 ? n + i : i] : NULL;
}

static void fill(float *x, int n, int seed) {
    for (int i = 0; i < n; i++)
        x[i] = (float)((i * 37 + seed * 11) % 29) * 0.125f - 1.5f;
}

/* ---- spellings ---- */

TEST(tir_prims_noalias_printed_built) {
    check_orig(ts_, src_noalias, golden_noalias_raw, golden_noalias_orig);
    wf_tir *s = wf_tir_parse(src_noalias);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    static float a[64], b[64];
    fill(a, 64, 1);
    wf_buffer in = {a, WF_F32, 1, {64}, {0}, -1}, out = {b, WF_F32, 1, {64}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 64; i++)
        bad += b[i] != a[i] + 1.0f;
    CHECK_EQ_I64(bad, 0);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* @I.ir_module class, T.handle + T.match_buffer, T.axis.S / R, a max started at
   T.min_value, T.if_then_else and T.max_value: printed as TVM prints the module, built
   and run. */
TEST(tir_prims_module_handle_min_value_built) {
    check_orig(ts_, src_module, golden_module_raw, golden_module_orig);
    wf_tir *s = wf_tir_parse(src_module);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    static float a[16 * 64], b[16 * 64];
    fill(a, 16 * 64, 2);
    wf_buffer in = {a, WF_F32, 2, {16, 64}, {0}, -1}, out = {b, WF_F32, 2, {16, 64}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 16; i++) {
        double m = -FLT_MAX;
        for (int j = 0; j < 64; j++)
            m = fmax(m, a[i * 64 + j]);
        for (int j = 0; j < 64; j++) {
            double x = a[i * 64 + j], want = x < m ? exp(x - m) : FLT_MAX;
            bad += !(fabs(b[i * 64 + j] - want) <= 1e-6 * fmax(1.0, fabs(want)));
        }
    }
    CHECK_EQ_I64(bad, 0);
    wf_kernel_free(k);
    wf_tir_free(s);
}

TEST(tir_prims_sigmoid_tanh_floats_built) {
    check_orig(ts_, src_act, golden_act_raw, golden_act_orig);
    wf_tir *s = wf_tir_parse(src_act);
    wf_tir_loop *i = loop_at(s, "B", 0), *j = loop_at(s, "B", 1);
    wf_tir_bind(s, i, "blockIdx.x");
    wf_tir_bind(s, j, "threadIdx.x");
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    static float a[64 * 32], b[64 * 32];
    fill(a, 64 * 32, 3);
    wf_buffer in = {a, WF_F32, 2, {64, 32}, {0}, -1}, out = {b, WF_F32, 2, {64, 32}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 64 * 32; x++) {
        double want = 1.0 / (1.0 + exp(-(double)a[x])) * 0.5 + tanh(a[x]) * 1e-30;
        bad += !(fabs(b[x] - want) <= 1e-6);
    }
    CHECK_EQ_I64(bad, 0);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* fuse(i, j) with i of extent 1: vi = T.axis.spatial(1, 0), vj the fused loop */
TEST(tir_prims_unit_extent_fuse_printed_built) {
    check_orig(ts_, src_unit, golden_unit_raw, golden_unit_orig);
    wf_tir *s = wf_tir_parse(src_unit);
    wf_tir_loop *ij[2] = {loop_at(s, "B", 0), loop_at(s, "B", 1)}, *ot[2];
    wf_tir_loop *f = wf_tir_fuse(s, 2, ij);
    SCRIPT_IS(s, golden_unit_fuse);
    int64_t f16[2] = {-1, 16};
    wf_tir_split(s, f, 2, f16, ot);
    wf_tir_bind(s, ot[0], "blockIdx.x");
    wf_tir_bind(s, ot[1], "threadIdx.x");
    SCRIPT_IS(s, golden_unit_bind);
    round_trip(ts_, golden_unit_fuse);
    round_trip(ts_, golden_unit_bind);
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    static float a[64], b[64];
    fill(a, 64, 4);
    wf_buffer in = {a, WF_F32, 2, {1, 64}, {0}, -1}, out = {b, WF_F32, 2, {1, 64}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
    int bad = 0;
    for (int x = 0; x < 64; x++)
        bad += b[x] != a[x] * 3.0f;
    CHECK_EQ_I64(bad, 0);
    wf_kernel_free(k);
    wf_tir_free(s);
}

/* A[vi + 1]: printed with its region (A[vi:vi + 3]); the build refuses the stencil in
   TIR terms, and an index past the buffer as out of bounds. */
TEST(tir_prims_shifted_index_printed_refused) {
    check_orig(ts_, src_shift, golden_shift_raw, golden_shift_orig);
    wf_tir *s = wf_tir_parse(src_shift);
    int64_t f4[2] = {-1, 4};
    wf_tir_loop *io[2];
    wf_tir_split(s, loop_at(s, "B", 0), 2, f4, io);
    SCRIPT_IS(s, golden_shift_split);
    round_trip(ts_, golden_shift_split);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: block \"B\" reads A[vi + 1], its iter "
                               "vi shifted by 1 (a stencil): the core reads a buffer at the "
                               "block's iters, each dim over the whole buffer");
    wf_tir_free(s);
    s = wf_tir_parse("@T.prim_func\n"
                     "def f(A: T.Buffer((65,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
                     "    for i in range(64):\n"
                     "        with T.block(\"B\"):\n"
                     "            vi = T.axis.spatial(64, i)\n"
                     "            B[vi] = A[vi + 2]\n");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_ARG);
    CHECK_STR(wf_tir_error(s), "build: block \"B\" reads A[vi + 2] out of bounds: index 0 runs "
                               "from 2 to 65, but dim 0 of A has 65 elements");
    wf_tir_free(s);
}

/* ---- primitives ---- */

/* C = (2 A) B over 64^3, checked against doubles */
static void run_mm(test_state *ts_, wf_tir *s) {
    wf_kernel *k = wf_tir_build(s, NULL);
    CHECK_STR(wf_tir_error(s), "");
    if (!k)
        return;
    static float a[64 * 64], b[64 * 64], c[64 * 64];
    fill(a, 64 * 64, 5);
    fill(b, 64 * 64, 6);
    wf_buffer in[2] = {{a, WF_F32, 2, {64, 64}, {0}, -1}, {b, WF_F32, 2, {64, 64}, {0}, -1}};
    wf_buffer out = {c, WF_F32, 2, {64, 64}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, &out, 1), WF_OK);
    int bad = 0;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) {
            double want = 0;
            for (int x = 0; x < 64; x++)
                want += 2.0 * a[i * 64 + x] * b[x * 64 + j];
            bad += !(fabs(c[i * 64 + j] - want) <= 1e-4 * fmax(1.0, fabs(want)));
        }
    CHECK_EQ_I64(bad, 0);
    wf_kernel_free(k);
}

TEST(tir_prims_parallel_annotate_unannotate) {
    check_orig(ts_, src_annot, golden_annot_raw, golden_annot_orig);
    wf_tir *s = wf_tir_parse(src_annot);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    wf_tir_loop *l[3];
    CHECK_EQ_I64(wf_tir_get_loops(s, c, l, 3), 3);
    wf_tir_parallel(s, l[0]);
    SCRIPT_IS(s, golden_annot_parallel);
    wf_tir_annotate_loop(s, l[1], "pragma_auto_unroll_max_step", "16");
    wf_tir_annotate_loop(s, l[1], "pragma_unroll_explicit", "1");
    SCRIPT_IS(s, golden_annot_annotate_loop);
    wf_tir_annotate_block(s, c, "software_pipeline_stage", "[0,0, 1]");
    wf_tir_annotate_block(s, c, "software_pipeline_order", " [0, 1, 2] ");
    SCRIPT_IS(s, golden_annot_annotate_block);
    wf_tir_annotate_loop(s, l[2], "note", "\"x\"");
    wf_tir_annotate_loop(s, l[2], "f", "1.5");
    SCRIPT_IS(s, golden_annot_annotate_values);
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: the annotation \"f\" of the loop k "
                               "around block \"C\" (the build knows pragma_auto_unroll_max_step, "
                               "pragma_unroll_explicit, software_pipeline_* and buffer_dim_align)");
    wf_tir_clear_error(s);
    wf_tir_unannotate_loop(s, l[1], "pragma_unroll_explicit");
    wf_tir_unannotate_block(s, c, "software_pipeline_order");
    wf_tir_unannotate_loop(s, l[2], "note");
    wf_tir_unannotate_loop(s, l[2], "f");
    SCRIPT_IS(s, golden_annot_unannotate);
    CHECK_STR(wf_tir_trace(s),
              "# from tvm import tir\n"
              "def apply_trace(sch: tir.Schedule) -> None:\n"
              "  b0 = sch.get_block(name=\"C\", func_name=\"main\")\n"
              "  l1, l2, l3 = sch.get_loops(block=b0)\n"
              "  sch.parallel(loop=l1)\n"
              "  sch.annotate(block_or_loop=l2, ann_key=\"pragma_auto_unroll_max_step\", "
              "ann_val=16)\n"
              "  sch.annotate(block_or_loop=l2, ann_key=\"pragma_unroll_explicit\", ann_val=1)\n"
              "  sch.annotate(block_or_loop=b0, ann_key=\"software_pipeline_stage\", "
              "ann_val=[0, 0, 1])\n"
              "  sch.annotate(block_or_loop=b0, ann_key=\"software_pipeline_order\", "
              "ann_val=[0, 1, 2])\n"
              "  sch.annotate(block_or_loop=l3, ann_key=\"note\", ann_val=\"x\")\n"
              "  sch.annotate(block_or_loop=l3, ann_key=\"f\", ann_val=1.5)\n"
              "  sch.unannotate(block_or_loop=l2, ann_key=\"pragma_unroll_explicit\")\n"
              "  sch.unannotate(block_or_loop=b0, ann_key=\"software_pipeline_order\")\n"
              "  sch.unannotate(block_or_loop=l3, ann_key=\"note\")\n"
              "  sch.unannotate(block_or_loop=l3, ann_key=\"f\")\n");
    const char *goldens[] = {golden_annot_parallel, golden_annot_annotate_loop,
                             golden_annot_annotate_block, golden_annot_annotate_values,
                             golden_annot_unannotate};
    for (size_t i = 0; i < sizeof goldens / sizeof goldens[0]; i++)
        round_trip(ts_, goldens[i]);
    run_mm(ts_, s); /* the parallel loop runs serially; the kept pragmas change nothing */
    wf_tir_free(s);
}

TEST(tir_prims_parallel_refusals) {
    wf_tir *s = wf_tir_parse(src_annot);
    wf_tir_parallel(s, loop_at(s, "C", 2));
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_SCHEDULE);
    CHECK_STR(wf_tir_error(s), "parallel: The loop k cannot be parallelized because the block "
                               "iter vk of block \"C\" is of reduction type and is bound to it");
    wf_tir_clear_error(s);
    wf_tir_loop *i = loop_at(s, "C", 0);
    wf_tir_bind(s, i, "blockIdx.x");
    wf_tir_parallel(s, i);
    CHECK_STR(wf_tir_error(s), "parallel: the loop i is bound to blockIdx.x already");
    wf_tir_free(s);
}

TEST(tir_prims_annotate_refusals) {
    wf_tir *s = wf_tir_parse(src_annot);
    wf_tir_loop *i = loop_at(s, "C", 0);
    wf_tir_annotate_loop(s, i, "k", "[1, 2");
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_ARG);
    CHECK_STR(wf_tir_error(s), "annotate: the value \"[1, 2\" of the annotation \"k\" is a list "
                               "without its closing ']' (ann_val is an int, a float, a "
                               "\"string\", True / False or a [list] of them, as TVMScript "
                               "writes it)");
    wf_tir_clear_error(s);
    wf_tir_annotate_loop(s, i, "", "1");
    CHECK_STR(wf_tir_error(s), "annotate: the key is NULL or empty, or the value is NULL");
    wf_tir_clear_error(s);
    wf_tir_unannotate_block(s, wf_tir_get_block(s, "C"), "x");
    CHECK_STR(wf_tir_error(s), "unannotate: Cannot find annotation key: x (on the block \"C\")");
    wf_tir_clear_error(s);
    wf_tir_annotate_block(s, wf_tir_get_block(s, "D"), "meta", "True");
    CHECK(wf_tir_build(s, NULL) == NULL);
    CHECK_STR(wf_tir_error(s), "build: not supported yet: the annotation \"meta\" of block \"D\" "
                               "(the build knows pragma_auto_unroll_max_step, "
                               "pragma_unroll_explicit, software_pipeline_* and buffer_dim_align)");
    wf_tir_free(s);
}

TEST(tir_prims_set_scope_storage_align) {
    check_orig(ts_, src_scope, golden_scope_raw, golden_scope_orig);
    wf_tir *s = wf_tir_parse(src_scope);
    wf_tir_block *d = wf_tir_get_block(s, "D");
    wf_tir_set_scope(s, d, 0, "shared");
    SCRIPT_IS(s, golden_scope_set_scope);
    wf_tir_storage_align(s, d, 0, 0, 32, 1);
    SCRIPT_IS(s, golden_scope_storage_align);
    wf_tir_storage_align(s, d, 0, -1, 16, 2);
    SCRIPT_IS(s, golden_scope_storage_align2);
    round_trip(ts_, golden_scope_storage_align2);
    CHECK_STR(wf_tir_trace(s),
              "# from tvm import tir\n"
              "def apply_trace(sch: tir.Schedule) -> None:\n"
              "  b0 = sch.get_block(name=\"D\", func_name=\"main\")\n"
              "  sch.set_scope(block=b0, buffer_index=0, storage_scope=\"shared\")\n"
              "  sch.storage_align(block=b0, buffer_index=0, axis=0, factor=32, offset=1)\n"
              "  sch.storage_align(block=b0, buffer_index=0, axis=-1, factor=16, offset=2)\n");
    /* the refusals, each leaving the program as it was */
    wf_tir_set_scope(s, wf_tir_get_block(s, "C"), 0, "local");
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_SCHEDULE);
    CHECK_STR(wf_tir_error(s), "set_scope: The input buffer C is not allocated by a block. This "
                               "means the buffer is either a function parameter or defined in "
                               "`match_buffer` of a block.");
    wf_tir_clear_error(s);
    wf_tir_set_scope(s, d, 1, "local");
    CHECK_STR(wf_tir_error(s), "set_scope: The block \"D\" has 1 write regions, so "
                               "`buffer_index` is required to be in [0, 1). However, the input "
                               "`buffer_index` is 1, which is out of the expected range.");
    wf_tir_clear_error(s);
    wf_tir_storage_align(s, d, 0, 2, 32, 1);
    CHECK_STR(wf_tir_error(s), "storage_align: The buffer to set storage alignment of, D_shared, "
                               "has 2 dimension(s), so `axis` is required to be in [-2, 2) for "
                               "storage_align. However, the input `axis` is 2, which is out of "
                               "the expected range.");
    wf_tir_clear_error(s);
    wf_tir_storage_align(s, d, 0, 0, 0, 1);
    CHECK_STR(wf_tir_error(s), "storage_align: The input `factor` of storage_align is expected to "
                               "be a positive number. However, the input `factor` is 0, which is "
                               "out of the expected range.");
    wf_tir_clear_error(s);
    SCRIPT_IS(s, golden_scope_storage_align2);
    wf_tir_free(s);
}

TEST(tir_prims_set_scope_built) {
    const char *scopes[2] = {"local", "shared"};
    for (int i = 0; i < 2; i++) {
        wf_tir *s = wf_tir_parse(src_scope);
        wf_tir_block *d = wf_tir_get_block(s, "D");
        wf_tir_set_scope(s, d, 0, scopes[i]);
        wf_tir_storage_align(s, d, 0, 0, 8, 1); /* printed; the build does not pad */
        run_mm(ts_, s);
        wf_tir_free(s);
    }
}

TEST(tir_prims_decompose_reduction) {
    struct {
        const char *src, *raw, *rawconv, *orig, *golden;
        int loop;
        const char *ann;
    } cases[] = {{src_dec_k, golden_dec_k_raw, golden_dec_k_rawconv, golden_dec_k_orig,
                  golden_dec_k_decompose, 2, 0},
                 {src_dec_i, golden_dec_i_raw, golden_dec_i_rawconv, golden_dec_i_orig,
                  golden_dec_i_decompose, 0, "0"}};
    for (int n = 0; n < 2; n++) {
        check_orig_(ts_, cases[n].src, cases[n].raw, cases[n].rawconv, cases[n].orig);
        wf_tir *s = wf_tir_parse(cases[n].src);
        wf_tir_block *c = wf_tir_get_block(s, "C");
        if (cases[n].ann)
            wf_tir_annotate_loop(s, loop_at(s, "C", 1), "pragma_unroll_explicit", cases[n].ann);
        wf_tir_block *init = wf_tir_decompose_reduction(s, c, loop_at(s, "C", cases[n].loop));
        CHECK_STR(wf_tir_error(s), "");
        CHECK_STR(wf_tir_block_name(s, init), "C_init");
        CHECK_STR(wf_tir_block_name(s, c), "C_update");
        SCRIPT_IS(s, cases[n].golden);
        round_trip(ts_, cases[n].golden);
        run_mm(ts_, s); /* the pair is built as one reduction */
        wf_tir_free(s);
    }
    /* decomposed inside loops bound to blocks and threads */
    wf_tir *s = wf_tir_parse(src_dec_tiled);
    wf_tir_block *c = wf_tir_get_block(s, "C");
    int64_t f8[2] = {-1, 8};
    wf_tir_loop *io[2];
    wf_tir_split(s, loop_at(s, "C", 0), 2, f8, io);
    wf_tir_bind(s, io[0], "blockIdx.x");
    wf_tir_bind(s, io[1], "threadIdx.x");
    wf_tir_decompose_reduction(s, c, loop_at(s, "C", 2));
    SCRIPT_IS(s, golden_dec_tiled_decompose);
    run_mm(ts_, s);
    wf_tir_free(s);
}

TEST(tir_prims_decompose_reduction_refusals) {
    wf_tir *s = wf_tir_parse(src_dec_k);
    CHECK(wf_tir_decompose_reduction(s, wf_tir_get_block(s, "D"), loop_at(s, "D", 0)) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_SCHEDULE);
    CHECK_STR(wf_tir_error(s), "decompose_reduction: The block \"D\" is not a reduction block: "
                               "it has no T.init()");
    wf_tir_clear_error(s);
    CHECK(wf_tir_decompose_reduction(s, wf_tir_get_block(s, "C"), loop_at(s, "D", 0)) == NULL);
    CHECK_STR(wf_tir_error(s), "decompose_reduction: The input loop i of decompose_reduction is "
                               "required to be an ancestor of block \"C\".");
    wf_tir_free(s);
}

/* ---- queries and blockize ---- */

static void names_are(test_state *ts_, wf_tir *s, wf_tir_block *const *bs, int n,
                      const char *want) {
    char got[256] = "";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(got);
        snprintf(got + len, sizeof got - len, "%s%s", i ? " " : "", wf_tir_block_name(s, bs[i]));
    }
    CHECK_STR(got, want);
}

TEST(tir_prims_child_blocks_producers_consumers) {
    wf_tir *s = wf_tir_parse(src_dec_k);
    wf_tir_block *bs[8];
    wf_tir_block *root = wf_tir_get_block(s, "root");
    CHECK_STR(wf_tir_block_name(s, root), "root");
    CHECK_EQ_I64(wf_tir_get_child_blocks(s, root, bs, 8), 2);
    names_are(ts_, s, bs, 2, "D C");
    wf_tir_block *c = wf_tir_get_block(s, "C"), *d = wf_tir_get_block(s, "D");
    CHECK_EQ_I64(wf_tir_get_loop_child_blocks(s, loop_at(s, "C", 0), bs, 8), 1);
    names_are(ts_, s, bs, 1, "C");
    CHECK_EQ_I64(wf_tir_get_child_blocks(s, c, bs, 8), 0);
    CHECK_EQ_I64(wf_tir_get_producers(s, c, bs, 8), 1);
    names_are(ts_, s, bs, 1, "D");
    CHECK_EQ_I64(wf_tir_get_consumers(s, d, bs, 8), 1);
    names_are(ts_, s, bs, 1, "C");
    CHECK_EQ_I64(wf_tir_get_consumers(s, c, bs, 8), 0);
    /* after decompose_reduction, the update block reads what the init block writes */
    wf_tir_decompose_reduction(s, c, loop_at(s, "C", 0));
    CHECK_EQ_I64(wf_tir_get_producers(s, c, bs, 8), 2);
    names_are(ts_, s, bs, 2, "D C_init");
    CHECK_EQ_I64(wf_tir_get_child_blocks(s, root, bs, 1), 3); /* one written */
    names_are(ts_, s, bs, 1, "D");
    CHECK_STR(wf_tir_error(s), "");
    CHECK_STR(wf_tir_trace(s), "# from tvm import tir\n"
                               "def apply_trace(sch: tir.Schedule) -> None:\n"
                               "  b0 = sch.get_block(name=\"root\", func_name=\"main\")\n"
                               "  b1, b2 = sch.get_child_blocks(b0)\n"
                               "  b3 = sch.get_block(name=\"C\", func_name=\"main\")\n"
                               "  b4 = sch.get_block(name=\"D\", func_name=\"main\")\n"
                               "  b5 = sch.get_block(name=\"C\", func_name=\"main\")\n"
                               "  l6, l7, l8 = sch.get_loops(block=b5)\n"
                               "  b9, = sch.get_child_blocks(l6)\n"
                               "  sch.get_child_blocks(b9)\n"
                               "  b10, = sch.get_producers(block=b9)\n"
                               "  b11, = sch.get_consumers(block=b10)\n"
                               "  sch.get_consumers(block=b11)\n"
                               "  b12 = sch.get_block(name=\"C\", func_name=\"main\")\n"
                               "  l13, l14, l15 = sch.get_loops(block=b12)\n"
                               "  b16 = sch.decompose_reduction(block=b12, loop=l13)\n"
                               "  b17, b18 = sch.get_producers(block=b12)\n"
                               "  b19, b20, b21 = sch.get_child_blocks(b0)\n");
    /* the root block is no block of the primitives */
    wf_tir_get_loops(s, root, NULL, 0);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_ARG);
    CHECK_STR(wf_tir_error(s), "get_loops: the block \"root\" is the function's root block, "
                               "which get_loops does not take (give a block inside it)");
    wf_tir_clear_error(s);
    CHECK_EQ_I64(wf_tir_get_producers(s, c, NULL, 2), -1);
    CHECK_STR(wf_tir_error(s), "get_producers: blocks is NULL or max is negative");
    wf_tir_free(s);
}

TEST(tir_prims_blockize_refused) {
    wf_tir *s = wf_tir_parse(src_dec_k);
    CHECK(wf_tir_blockize(s, loop_at(s, "C", 1)) == NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_tir_error(s), "blockize: not supported yet: blockize (the loop j and the loops "
                               "inside it as one outer block around the block inside them); "
                               "weft's blocks hold no blocks, so tensorize and blockize-based "
                               "schedules are refused");
    wf_tir_clear_error(s);
    SCRIPT_IS(s, golden_dec_k_orig);
    wf_tir_free(s);
}
