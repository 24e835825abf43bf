/*
 * test_reduce_property.c -- random schedules of reductions: random shapes
 * (some symbolic), ops, reduced dims, splits, reorders, parallel types of
 * reduction and iteration axes (threads, blocks, unroll), rfactors and
 * inlining of a producer. Each case either compiles and runs on the
 * executor within tolerance of a double reference, or is rejected with a
 * message (at compile time or at launch); nothing else is allowed. Every
 * eighth compiled kernel also goes through NVRTC. A failing case prints its
 * seed (WF_REDUCE_SEED=<seed> reruns one case).
 */
#include "harness.h"
#include "reduce_check.h"

#include <stdlib.h>

enum { NCASES = 300 };

static uint64_t rnd(uint64_t *s, uint64_t n) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (*s >> 33) % n;
}

static const wf_ptype ptypes[] = {WF_SERIAL, WF_SERIAL, WF_TIDX,  WF_TIDY,
                                  WF_BIDX,   WF_BIDY,   WF_UNROLL};

static void random_schedule(wf_tv *t, uint64_t *s) {
    int nsplit = (int)rnd(s, 3);
    for (int i = 0; i < nsplit; i++) {
        int ax = (int)rnd(s, (uint64_t)wf_tv_ndim(t));
        int64_t factor = 1 + (int64_t)rnd(s, 70);
        if (rnd(s, 2))
            wf_tv_split(t, ax, factor);
        else
            wf_tv_split_outer(t, ax, factor);
    }
    int n = wf_tv_ndim(t);
    if (rnd(s, 2) && n > 1) {
        int a = (int)rnd(s, (uint64_t)n), b = (int)rnd(s, (uint64_t)n), pair[1][2] = {{a, b}};
        wf_tv_reorder(t, 1, (const int(*)[2])pair);
    }
    unsigned used = 0;
    for (int i = 0; i < n; i++) {
        wf_ptype p = ptypes[rnd(s, sizeof ptypes / sizeof *ptypes)];
        if (p != WF_SERIAL && p != WF_UNROLL && (used & (1u << p)))
            continue;
        used |= 1u << p;
        wf_tv_parallelize(t, i, p);
    }
}

/* The reduction axes of t's loop domain, to pick rfactor axes from. */
static int reduction_axes(wf_tv *t, int *axes) {
    int n = 0, nd;
    wf_iterdomain *const *ids = wf_tv_loop_domain(t, &nd);
    for (int i = 0; i < nd; i++)
        if (ids[i]->itype == IT_REDUCTION)
            axes[n++] = i;
    return n;
}

static void maybe_rfactor(wf_tv *t, uint64_t *s) {
    int axes[64], pick[64], np = 0;
    int n = reduction_axes(t, axes);
    if (n < 2 || rnd(s, 3) == 0)
        return;
    for (int i = 0; i < n - 1; i++)
        if (rnd(s, 2))
            pick[np++] = axes[i];
    if (np == 0)
        pick[np++] = axes[0];
    wf_tv_rfactor(t, np, pick);
}

/* One case; returns 1 when it ran and matched, 0 when it was rejected. */
static int one_case(test_state *ts, uint64_t seed, int *nvrtc_turn) {
    uint64_t s = seed;
    int64_t shape[2] = {1 + (int64_t)rnd(&s, 6), 1 + (int64_t)rnd(&s, 300)};
    bool sym = rnd(&s, 4) == 0;
    int64_t decl[2] = {sym ? -1 : shape[0], sym ? -1 : shape[1]}, binding[8] = {shape[0], shape[1]};
    wf_binary_op ops[3] = {WF_ADD, WF_MAX, WF_MIN};
    int nax = 1 + (int)rnd(&s, 2), axes[2] = {(int)rnd(&s, 2), 1};
    if (nax == 2)
        axes[0] = 0;
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 2, decl);
    bool prod = rnd(&s, 2);
    wf_tv *in = prod ? wf_unary(WF_EXP, x) : x;
    wf_tv *r = wf_reduce(ops[rnd(&s, 3)], in, nax, axes);
    wf_output(f, r);
    random_schedule(r, &s);
    maybe_rfactor(r, &s);
    if (rnd(&s, 2))
        wf_inline_most(f);
    wf_kernel *k = wf_fusion_status(f) == WF_OK ? wf_compile(f, NULL) : NULL;
    int ran = 0;
    if (!k) {
        if (getenv("WF_REDUCE_VERBOSE"))
            printf("  seed %llu rejected: %s\n", (unsigned long long)seed, wf_fusion_error(f));
        if (wf_fusion_status(f) == WF_OK || !wf_fusion_error(f)[0]) {
            printf("  seed %llu: no kernel and no message\n", (unsigned long long)seed);
            ts->failed = true;
        }
    } else {
        wf_buffer ib = {NULL, WF_F32, 2, {shape[0], shape[1]}, {0}, -1};
        static float inbuf[6 * 300], outbuf[6 * 300];
        wf_buffer ob = {outbuf, WF_F32, 2 - nax, {0}, {0}, -1};
        ib.data = inbuf;
        if (nax == 1)
            ob.shape[0] = shape[axes[0] == 0 ? 1 : 0];
        wf_status st = wf_run(k, WF_BACKEND_INTERP, &ib, 1, &ob, 1);
        if (st != WF_OK && st != WF_ERR_SCHEDULE && st != WF_ERR_UNSUPPORTED) {
            printf("  seed %llu: run failed: %s: %s\n", (unsigned long long)seed,
                   wf_status_name(st), wf_last_run_error(k));
            ts->failed = true;
        } else if (st == WF_OK) {
            ran = rc_run_at(ts, k, f, sym ? binding : NULL, 1e-4, __FILE__, __LINE__);
            if (!ran)
                printf("  seed %llu\n", (unsigned long long)seed);
            if (ran && ++*nvrtc_turn % 8 == 0 && !harness_nvrtc(ts, k, 90, __FILE__, __LINE__))
                printf("  seed %llu (NVRTC)\n", (unsigned long long)seed);
        }
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
    return ran;
}

TEST(reduce_property_random_schedules_run_correctly_or_are_refused) {
    const char *one = getenv("WF_REDUCE_SEED");
    int ran = 0, turn = 0, n = one ? 1 : NCASES;
    for (int i = 0; i < n && !TS->failed; i++)
        ran += one_case(TS, one ? strtoull(one, NULL, 10) : 1000 + (uint64_t)i, &turn);
    /* The generator must mostly build runnable kernels, or it tests nothing. */
    if (!one)
        CHECK(ran >= NCASES / 4);
    TS->skipped = false; /* a missing NVRTC only skips the NVRTC part */
}
