/*
 * test_tma_fault.c -- allocation failures in TMA lowering and execution
 * (tests/fault's sweep, over a TMA program): failing the Nth arena
 * allocation, then the Nth heap allocation, for every N, must end in a
 * clean error -- never a crash, never a success that is not one.
 */
#include "base/arena.h"
#include "base/heap.h"
#include "harness.h"

/* A TMA load into a 128-byte-swizzled tile and a TMA store back, run on
   the executor, for [32, 64] and for [30, 60] (partial boxes: zero-filled,
   then clipped). True when everything succeeded and the copy is exact. */
static bool program_of(int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols};
    wf_fusion *f = wf_fusion_new();
    if (!f)
        return false;
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv_set_ldst(o, WF_LDST_TMA);
    wf_tv *both[2] = {s, o};
    for (int i = 0; i < 2; i++) {
        wf_tv_split(both[i], 1, 32);
        wf_tv_split(both[i], 0, 8);
        wf_tv_reorder_all(both[i], (const int[]){0, 2, 1, 3});
        wf_tv_parallelize(both[i], 0, WF_BIDY);
        wf_tv_parallelize(both[i], 1, WF_BIDX);
        wf_tv_parallelize(both[i], 2, WF_BULK);
        wf_tv_parallelize(both[i], 3, WF_BULK);
    }
    wf_tv_tma_swizzle(s, 128);
    wf_kernel *k = wf_compile(f, NULL);
    bool ok = k != NULL;
    if (k) {
        float x[32 * 64], y[32 * 64];
        for (int i = 0; i < rows * cols; i++)
            x[i] = (float)i;
        wf_buffer bx = {x, WF_F32, 2, {rows, cols}, {0}, -1},
                  by = {y, WF_F32, 2, {rows, cols}, {0}, -1};
        ok = wf_run(k, WF_BACKEND_INTERP, &bx, 1, &by, 1) == WF_OK;
        for (int i = 0; ok && i < rows * cols; i++)
            ok = y[i] == x[i];
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
    return ok;
}

static bool program(void) {
    return program_of(32, 64) && program_of(30, 60);
}

TEST(tma_fault_every_arena_failure_is_a_clean_error) {
    int n = 0;
    CHECK(program());
    for (; n < 100000; n++) {
        long failures = arena_test_failures;
        arena_test_countdown = n;
        bool ok = program();
        bool exhausted = arena_test_failures > failures;
        arena_test_countdown = -1;
        if (!exhausted) {
            CHECK(ok);
            break;
        }
        CHECK(!ok);
    }
    CHECK(n > 50);
}

TEST(tma_fault_every_heap_failure_is_a_clean_error) {
    int n = 0;
    for (; n < 100000; n++) {
        heap_test_countdown = n;
        long before = heap_test_failures;
        bool ok = program();
        bool exhausted = heap_test_failures > before;
        heap_test_countdown = -1;
        if (!exhausted) {
            CHECK(ok);
            break;
        }
    }
    CHECK(n > 5);
}
