/*
 * test_fault.c -- allocation-failure sweep (SQLite's do_faultsim_test, Lua's
 * Memcontrol): build, schedule, compile and run representative programs with
 * the Nth arena allocation failing, for N = 0, 1, 2, ... until a run
 * completes; then the same with the Nth heap allocation failing (string
 * builders, growable arrays, the executor's memory: base/heap.h). Every run must end either in
 * success or in a clean error (a sticky WF_ERR_MEMORY, a NULL kernel): never a crash, and under
 * ASan never a leak.
 */
#include "base/arena.h"
#include "base/heap.h"
#include "fuzz/known.h"
#include "harness.h"
#include "ref.h"

/* The heap sweep stops the programs before wf_run while the executor's
   out-of-memory crash (known.h F11) is open. */
static bool skip_run;

/* A tiled transpose through a swizzled shared tile, vectorized staging, run on
   the executor. Returns true when everything succeeded. */
static bool program(void) {
    int64_t shape[2] = {64, 32};
    static const int r[4] = {0, 2, 1, 3};
    wf_fusion *f = wf_fusion_new();
    if (!f)
        return false;
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *t = wf_transpose(a, 0, 1);
    wf_output(f, t);
    wf_tv *s = wf_cache_after(a);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_split(t, 0, 32);
    wf_tv_split(t, 2, 32);
    wf_tv_reorder_all(t, r);
    wf_propagate_transforms(t);
    wf_tv_parallelize(t, 0, WF_BIDY);
    wf_tv_parallelize(t, 1, WF_BIDX);
    wf_tv_parallelize(t, 3, WF_TIDX);
    wf_parallelize_all_like(t, 0);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    bool ok = k != NULL;
    if (!k && wf_fusion_status(f) == WF_OK)
        ok = false; /* a NULL kernel must come with an error */
    if (k && !skip_run) {
        float in[64 * 32], out[64 * 32];
        for (int i = 0; i < 64 * 32; i++)
            in[i] = (float)i;
        wf_buffer bin = {in, WF_F32, 2, {64, 32}, {0}, -1},
                  bout = {out, WF_F32, 2, {32, 64}, {0}, -1};
        ok = wf_run(k, WF_BACKEND_INTERP, &bin, 1, &bout, 1) == WF_OK;
        for (int i = 0; ok && i < 64 * 32; i++)
            ok = out[(i % 32) * 64 + i / 32] == in[i];
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
    return ok;
}

/* A broadcast add with symbolic extents, vectorized staging and a
   tensor-memory round trip: propagation, inlining, launch checks, tcgen05. */
static bool program2(void) {
    int64_t shape[2] = {32, 64}, row[1] = {-1};
    bool bc[2] = {true, false};
    wf_fusion *f = wf_fusion_new();
    if (!f)
        return false;
    wf_tv *a = wf_input(f, WF_F32, 2, shape), *b = wf_input(f, WF_F32, 1, row);
    wf_tv *c = wf_cache_after(a);
    wf_tv *tm = wf_set(wf_add(c, wf_broadcast(b, 2, bc)));
    wf_tv *ld = wf_set(tm), *t = wf_set(ld);
    wf_output(f, t);
    wf_tv_set_memory(tm, WF_MEM_TENSOR);
    wf_tv_set_ldst(tm, WF_LDST_TMEM_STORE);
    wf_tv_set_ldst(ld, WF_LDST_TMEM_LOAD);
    wf_tv_split(t, 1, 2);
    wf_tv_parallelize(t, 0, WF_TIDX);
    wf_propagate_transforms(t);
    wf_parallelize_all_like(t, 0);
    wf_tv_parallelize(c, -1, WF_VECTORIZE);
    wf_tv_set_tmem_dimsep(tm, 1);
    wf_inline_most(f);
    wf_compile_options opt = {.sm = 100};
    wf_kernel *k = wf_compile(f, &opt);
    bool ok = k != NULL;
    if (!k && arena_test_countdown < 0)
        printf("  program2: %s\n", wf_fusion_error(f));
    if (k && !skip_run) {
        float in[32 * 64], v[64], out[32 * 64];
        for (int i = 0; i < 32 * 64; i++)
            in[i] = (float)i;
        for (int i = 0; i < 64; i++)
            v[i] = 0.5f * (float)i;
        wf_buffer bins[2] = {{in, WF_F32, 2, {32, 64}, {0}, -1}, {v, WF_F32, 1, {64}, {0}, -1}};
        wf_buffer bout = {out, WF_F32, 2, {32, 64}, {0}, -1};
        ok = wf_run(k, WF_BACKEND_INTERP, bins, 2, &bout, 1) == WF_OK;
        if (!ok && arena_test_countdown < 0)
            printf("  program2: %s\n", wf_last_run_error(k));
        for (int i = 0; ok && i < 32 * 64; i++)
            ok = out[i] == in[i] + v[i % 64];
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
    return ok;
}

TEST(fault_every_allocation_failure_is_a_clean_error) {
    int n = 0;
    for (; n < 100000; n++) {
        long failures = arena_test_failures;
        arena_test_countdown = n;
        bool ok = program() && program2();
        bool exhausted = arena_test_failures > failures;
        arena_test_countdown = -1;
        if (!exhausted) {
            CHECK(ok); /* the budget was not reached: the program must have succeeded */
            break;
        }
        if (ok) /* an allocation failed, yet everything claimed success */
            printf("  allocation %d failed silently\n", n);
        CHECK(!ok);
    }
    printf("  fault sweep: %d allocation failures injected, each ended cleanly\n", n);
    CHECK(n > 50);
}

/* The programs with the Nth heap allocation (base/heap.h) failing. Returns
   how many failures were injected; allocations failed silently go to *silent. */
static int heap_sweep(test_state *ts_, int *silent) {
    int n = 0;
    skip_run = KNOWN_EXEC_OOM_CRASH;
    for (; n < 100000; n++) {
        long failures = heap_test_failures;
        heap_test_countdown = n;
        bool ok = program() && program2();
        bool exhausted = heap_test_failures > failures;
        heap_test_countdown = -1;
        if (!exhausted) {
            CHECK(ok);
            break;
        }
        if (ok) {
            printf("  heap allocation %d failed silently\n", n);
            (*silent)++;
        }
    }
    skip_run = false;
    return n;
}

TEST(fault_every_heap_allocation_failure_is_a_clean_error) {
    int silent = 0, n = heap_sweep(TS, &silent);
    printf("  heap fault sweep: %d allocation failures injected, %d of them silent\n", n, silent);
    if (!KNOWN_SBUF_OOM_SILENT)
        CHECK_EQ_I64(silent, 0);
    CHECK(n > 5);
}

TEST(fault_programs_succeed_without_faults) {
    CHECK(program());
    CHECK(program2());
}
