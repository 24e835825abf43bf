/*
 * test_property_tmem.c -- random tensor-memory schedules. A copy through
 * tensor memory (gmem -> registers -> tmem -> registers -> gmem) gets random
 * shapes, parallel types, splits, reorders, dim-separator positions, inline
 * positions and vectorization. Each case must either be rejected at compile
 * time with a clear error, or compile for sm_100a and copy exactly on the CPU
 * reference executor -- whose tensor-memory model enforces the lane
 * sub-partition rule independently of the compile-time validation, so the
 * two are checked against each other. Seeded like test_property.c
 * (WF_PROP_SEED, WF_PROP_CASES; 200 cases by default).
 */
#include <stdlib.h>

#include "harness.h"
#include "ir/ir.h"

static unsigned next(uint64_t *s, unsigned n) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*s >> 33) % n);
}

static wf_fusion *random_tmem_copy(uint64_t *r, wf_tv **tm) {
    static const int64_t extents[] = {1, 2, 4, 8, 16, 32, 64, 128};
    static const wf_ptype types[] = {WF_TIDX, WF_TIDY, WF_TIDZ, WF_BIDX, WF_SERIAL, WF_SERIAL};
    int64_t shape[3] = {extents[next(r, 8)], extents[next(r, 8)], extents[next(r, 4)]};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 3, shape);
    wf_tv *regs = wf_set(a);
    *tm = wf_set(regs);
    wf_tv *back = wf_set(*tm), *out = wf_set(back);
    wf_output(f, out);
    wf_tv_set_memory(*tm, WF_MEM_TENSOR);
    wf_tv_set_ldst(*tm, WF_LDST_TMEM_STORE);
    wf_tv_set_ldst(back, WF_LDST_TMEM_LOAD);
    if (next(r, 3) == 0)
        wf_tv_merge(out, (int)next(r, 2));
    if (next(r, 3) == 0)
        wf_tv_split(out, 0, 1 + next(r, 4));
    wf_propagate_transforms(out);
    bool used[16] = {false};
    for (int i = 0; i < wf_tv_ndim(out); i++) {
        wf_ptype p = types[next(r, 6)];
        if (p != WF_SERIAL && used[p])
            continue;
        used[p] = true;
        wf_tv_parallelize(out, i, p);
    }
    wf_parallelize_all_like(out, 0);
    int n = wf_tv_ndim(*tm);
    if (next(r, 2) == 0)
        wf_tv_set_allocation_domain(*tm, n, wf_tv_loop_domain(*tm, &n), true);
    wf_tv_set_tmem_dimsep(*tm, (int)next(r, (unsigned)n + 1));
    if (next(r, 2) == 0)
        wf_inline_most(f);
    return f;
}

TEST(property_random_tmem_schedules_are_exact_or_rejected) {
    const char *s = getenv("WF_PROP_SEED"), *c = getenv("WF_PROP_CASES");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 1121;
    int cases = c ? atoi(c) : 200, accepted = 0, rejected = 0, wrong = 0;
    for (int i = 0; i < cases && wrong < 3; i++) {
        uint64_t r = (seed + (uint64_t)i) * 0x9E3779B97F4A7C15ull + 7;
        wf_tv *tm;
        wf_fusion *f = random_tmem_copy(&r, &tm);
        wf_compile_options opt = {.sm = 100};
        wf_kernel *k = wf_compile(f, &opt);
        if (!k) {
            const char *msg = wf_fusion_error(f);
            rejected++;
            if (getenv("WF_PROP_VERBOSE"))
                printf("  rejected: %s\n", msg);
            if (!(strlen(msg) > 10 && strchr(msg, 'T'))) {
                printf("  seed %llu: rejected without a clear error: %s\n",
                       (unsigned long long)(seed + (uint64_t)i), msg);
                wrong++;
            }
        } else {
            wf_kernel_free(k);
            test_state one = {0};
            wf_kernel *k2 = harness_interp_sm(&one, f, NULL, 100, __FILE__, __LINE__);
            wf_kernel_free(k2);
            accepted++;
            if (one.failed) {
                printf("  seed %llu: wrong result\n", (unsigned long long)(seed + (uint64_t)i));
                wf_print_transforms(f, stdout);
                wrong++;
            }
        }
        wf_fusion_free(f);
    }
    printf("  tmem property: %d accepted and exact, %d rejected, %d wrong (seeds from %llu)\n",
           accepted, rejected, wrong, (unsigned long long)seed);
    CHECK_EQ_I64(wrong, 0);
    CHECK(accepted > 0);
}
