/*
 * test_copy_kinds.c -- the copy-kind table (src/ir/ldst.def) and the typed
 * kernel-IR nodes it feeds: kinds not implemented yet are refused with
 * WF_ERR_UNSUPPORTED and their name; a tensor-memory kernel carries its
 * copy kinds on its statements and its allocation, relinquish, waits and
 * deallocation as hardware nodes; a kernel parameter of a kind not
 * implemented yet is refused by codegen (by name, to NVRTC) and at launch.
 */
#include "codegen/codegen.h"
#include "harness.h"
#include "lower/copy.h"
#include "runtime/interp.h"

#include <stdlib.h>

TEST(copy_kind_not_implemented_is_refused_with_its_name) {
    int64_t shape[1] = {32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_set_ldst(b, WF_LDST_CP_ASYNC);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f), "T1 is defined by CpAsync, which this build cannot lower yet");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(copy_kind_table_rows_follow_wf_ldst) {
    CHECK_EQ_I64(IR_NLDST, WF_LDST_CP_ASYNC + 1);
    CHECK_STR(ir_ldst_name(WF_LDST_TMEM_STORE), "StTMem");
    CHECK_STR(ir_ldst_name(WF_LDST_TMA), "CpAsyncBulkTensorTile");
    CHECK(lower_copy_kind_of(WF_LDST_TMEM_LOAD)->wide);
    CHECK(!lower_copy_kind_of(WF_LDST_SET)->wide);
    CHECK(lower_copy_kind_of(WF_LDST_CP_ASYNC)->validate == lower_copy_validate_unsupported);
    CHECK(lower_copy_kind_of(WF_LDST_STMATRIX)->validate == lower_copy_validate_ldmatrix);
}

/* The seed's warp_xyz example: registers -> tensor memory -> registers. */
static wf_fusion *tmem_chain(void) {
    int64_t shape[4] = {2, 4, 4, 2};
    static const wf_ptype p[3] = {WF_TIDZ, WF_TIDY, WF_TIDX};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 4, shape)), *t2 = wf_set(t1), *t3 = wf_set(t2);
    wf_tv *t4 = wf_set(t3);
    wf_output(f, t4);
    wf_tv_set_memory(t2, WF_MEM_TENSOR);
    wf_tv_set_ldst(t2, WF_LDST_TMEM_STORE);
    wf_tv_set_ldst(t3, WF_LDST_TMEM_LOAD);
    for (int i = 0; i < 3; i++)
        wf_tv_parallelize(t4, i, p[i]);
    wf_parallelize_all_like(t4, 0);
    wf_tv_set_tmem_dimsep(t2, 3);
    return f;
}

static int count_tmem_stmts(const kir_list *l, wf_ldst kind) {
    int n = 0;
    for (int i = 0; i < l->n; i++) {
        kir_node *k = l->ptr[i];
        if (kir_body(k))
            n += count_tmem_stmts(kir_body(k), kind);
        else if (k->kind == KIR_STMT && k->u.stmt.copy == kind && k->u.stmt.hw.tmem.lane &&
                 k->u.stmt.hw.tmem.col)
            n++;
    }
    return n;
}

TEST(copy_kind_tmem_life_cycle_is_typed_kernel_ir) {
    wf_fusion *f = tmem_chain();
    lower_result r;
    CHECK(lower_fusion(f, &(lower_options){.sm = 100}, &r));
    sbuf b = {0};
    kir_print(&b, &r.top);
    const char *s = sbuf_str(&b);
    CHECK(strncmp(s, "TMEM_SLOTS @", 12) == 0);
    CHECK_HAS(s, "\nWARP0\n  TMEM_ALLOC region=0 columns=32\n  TMEM_RELINQUISH\nSYNC\n");
    CHECK_HAS(s, "] = StTMem(T1[");
    CHECK_HAS(s, "] = LdTMem(T2[");
    CHECK_HAS(s, "TMEM_WAIT_ST\n");
    CHECK_HAS(s, "TMEM_WAIT_LD\n");
    size_t n = strlen(s), m = strlen("SYNC\nWARP0\n  TMEM_DEALLOC region=0 columns=32\n");
    CHECK(n > m && strcmp(s + n - m, "SYNC\nWARP0\n  TMEM_DEALLOC region=0 columns=32\n") == 0);
    CHECK_EQ_I64(count_tmem_stmts(&r.top, WF_LDST_TMEM_STORE), 1);
    CHECK_EQ_I64(count_tmem_stmts(&r.top, WF_LDST_TMEM_LOAD), 1);
    sbuf_free(&b);
    lower_result_free(&r);
    wf_fusion_free(f);
}

TEST(param_kind_not_implemented_is_refused_by_codegen_and_launch) {
    int64_t shape[1] = {32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_TIDX);
    lower_result r;
    CHECK(lower_fusion(f, &(lower_options){.sm = 90}, &r));
    CHECK_EQ_I64(r.params.ptr[0].kind, KP_TENSOR);
    char *src = cg_emit_cuda(&r);
    CHECK_HAS(src, "weft_kernel(Tensor<float, 1> T0, Tensor<float, 1> T1)");
    free(src);
    r.params.ptr[0].kind = KP_SCALAR; /* tensor maps are passed since TMA (test_tma_*.c) */
    src = cg_emit_cuda(&r);
    CHECK_HAS(src, "\n#error \"weft cannot declare a scalar parameter yet\"\n");
    wf_kernel *k = src ? rt_kernel_new(&r, src) : NULL;
    free(src);
    if (k && rt_interp_build(k, &r)) {
        float in[32] = {0}, out[32];
        wf_buffer x = {in, WF_F32, 1, {32}, {0}, -1}, y = {out, WF_F32, 1, {32}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &x, 1, &y, 1), WF_ERR_UNSUPPORTED);
        CHECK_STR(wf_last_run_error(k),
                  "internal error: parameter 0 of the kernel is a scalar, which this build cannot "
                  "pass yet");
    } else {
        CHECK(false);
    }
    rt_kernel_free(k);
    lower_result_free(&r);
    wf_fusion_free(f);
}
