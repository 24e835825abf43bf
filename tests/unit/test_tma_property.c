/*
 * test_tma_property.c -- random TMA schedules (seed 001): box strategies
 * (partitioning, whole, size-one, views merged first), loads and stores,
 * dtypes, discontiguous inputs, permuted or swizzled shared-memory
 * allocations, block / serial / thread schedules of the other side,
 * inlining. Each case must either be refused at compile time with a
 * message, or copy exactly on the CPU reference executor -- which moves the
 * data by the inferred tensor map (boxes, zero fill, swizzle), not by the
 * statement's indices, so a wrong inference shows as wrong data. Seeded
 * like test_property.c (WF_TMA_PROP_SEED, WF_TMA_PROP_CASES; 80 by default).
 */
#include <stdlib.h>

#include "harness.h"

static unsigned next(uint64_t *s, unsigned n) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*s >> 33) % n);
}

enum { ROLE_COORD, ROLE_TILE };

/* Apply the same transforms to t; roles[] gets each resulting axis's role. */
typedef struct {
    int merge_at; /* -1 = none, else merge axes merge_at, merge_at + 1 first */
    int64_t f[4]; /* per dim after the merge: 0 = coordinate, -1 = whole tile, >0 = box split */
    int n;        /* dims after the merge */
    bool merge_tiles;
} plan;

static int schedule(wf_tv *t, const plan *p, int *roles) {
    if (p->merge_at >= 0)
        wf_tv_merge(t, p->merge_at);
    int n = 0, order[8], nax = 0;
    int role[8];
    for (int d = 0; d < p->n; d++) { /* axes in order: coordinate parts, then tile parts */
        if (p->f[d] > 0) {
            wf_tv_split(t, nax, p->f[d]);
            role[nax] = ROLE_COORD;
            role[nax + 1] = ROLE_TILE;
            nax += 2;
        } else {
            role[nax++] = p->f[d] < 0 ? ROLE_TILE : ROLE_COORD;
        }
    }
    /* coordinates first, then tiles, each in their order */
    int ncoord = 0;
    for (int i = 0; i < nax; i++)
        ncoord += role[i] == ROLE_COORD;
    int nc = 0, ntile = 0;
    for (int i = 0; i < nax; i++)
        order[i] = role[i] == ROLE_COORD ? nc++ : ncoord + ntile++;
    wf_tv_reorder_all(t, order);
    for (int i = 0; i < nax; i++)
        roles[i] = i < ncoord ? ROLE_COORD : ROLE_TILE;
    n = nax;
    if (p->merge_tiles && nax - ncoord > 1) {
        while (wf_tv_ndim(t) > ncoord + 1)
            wf_tv_merge(t, ncoord);
        n = ncoord + 1;
    }
    return n;
}

static wf_fusion *random_case(uint64_t *r, bool *load) {
    static const int64_t extents[] = {8, 16, 24, 32, 48, 64, 100, 128};
    static const int64_t factors[] = {2, 4, 8, 16, 32, 64};
    static const wf_dtype types[] = {WF_F32, WF_F32, WF_F16, WF_U8, WF_F64};
    int ndim = 2 + (int)next(r, 2);
    int64_t shape[3];
    for (int i = 0; i < ndim; i++)
        shape[i] = extents[next(r, 8)];
    int8_t contig[3] = {1, 1, 1};
    if (next(r, 4) == 0) { /* a run-time row stride; a multiple of 16 bytes, as TMA needs */
        contig[0] = 0;
        shape[ndim - 1] = 16 << next(r, 3);
    }
    wf_dtype dt = types[next(r, 5)];
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input_strided(f, dt, ndim, shape, contig), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    *load = next(r, 2) == 0;
    wf_tv *tma = *load ? s : o, *other = *load ? o : s;
    wf_tv_set_ldst(tma, WF_LDST_TMA);
    plan p = {.merge_at = next(r, 3) == 0 ? (int)next(r, (unsigned)ndim - 1) : -1};
    p.n = ndim - (p.merge_at >= 0);
    for (int d = 0; d < p.n; d++) {
        unsigned k = next(r, 5);
        p.f[d] = k < 3 ? factors[next(r, 6)] : k == 3 ? -1 : 0;
    }
    p.merge_tiles = next(r, 3) == 0;
    int roles[8], roles2[8];
    int n = schedule(tma, &p, roles);
    schedule(other, &p, roles2);
    bool used_b[2] = {false, false}, used_t = false;
    for (int i = 0; i < n; i++) {
        if (roles[i] == ROLE_TILE) {
            wf_tv_parallelize(tma, i, WF_BULK);
            continue;
        }
        unsigned k = next(r, 3);
        if (k < 2 && !used_b[k]) {
            used_b[k] = true;
            wf_tv_parallelize(tma, i, k ? WF_BIDY : WF_BIDX);
            wf_tv_parallelize(other, i, k ? WF_BIDY : WF_BIDX);
        }
    }
    /* the other side: its innermost tile axis on threads, sometimes */
    for (int i = wf_tv_ndim(other) - 1; i >= 0 && !used_t; i--)
        if (roles[i < n ? i : n - 1] == ROLE_TILE && next(r, 2) == 0 &&
            wf_iterdomain_extent(wf_tv_axis(other, i)) <= 1024) {
            wf_tv_parallelize(other, i, WF_TIDX);
            used_t = true;
        }
    int m;
    unsigned a = next(r, 6);
    if (a == 0 && wf_tv_ndim(s) >= 2) { /* a permuted shared-memory allocation */
        wf_iterdomain *ids[8];
        wf_iterdomain *const *loop = wf_tv_loop_domain(s, &m);
        for (int i = 0; i < m; i++)
            ids[i] = loop[i];
        int x = (int)next(r, (unsigned)m), y = (int)next(r, (unsigned)m);
        wf_iterdomain *t = ids[x];
        ids[x] = ids[y];
        ids[y] = t;
        wf_tv_set_allocation_domain(s, m, ids, true);
    } else if (a == 1) {
        static const int sw[3] = {32, 64, 128};
        wf_tv_tma_swizzle(s, sw[next(r, 3)]);
    }
    if (next(r, 2) == 0)
        wf_inline_most(f);
    return f;
}

TEST(tma_property_random_schedules_are_exact_or_rejected) {
    const char *s = getenv("WF_TMA_PROP_SEED"), *c = getenv("WF_TMA_PROP_CASES");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 2024;
    int cases = c ? atoi(c) : 80, accepted = 0, rejected = 0, wrong = 0;
    for (int i = 0; i < cases && wrong < 3; i++) {
        uint64_t r = (seed + (uint64_t)i) * 0x9E3779B97F4A7C15ull + 11;
        bool load;
        wf_fusion *f = random_case(&r, &load);
        wf_compile_options opt = {.sm = 90};
        wf_kernel *k = wf_status_name(wf_fusion_status(f)) && wf_fusion_status(f) == WF_OK
                           ? wf_compile(f, &opt)
                           : NULL;
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
            wf_kernel *k2 = harness_interp_sm(&one, f, NULL, 90, __FILE__, __LINE__);
            if (k2 && accepted < 12) /* NVRTC on the first few: it takes a while per kernel */
                harness_nvrtc(&one, k2, 90, __FILE__, __LINE__);
            wf_kernel_free(k2);
            accepted++;
            if (one.failed) {
                printf("  seed %llu (%s): wrong result or NVRTC failed\n",
                       (unsigned long long)(seed + (uint64_t)i), load ? "load" : "store");
                wf_print_transforms(f, stdout);
                wrong++;
            }
        }
        wf_fusion_free(f);
    }
    printf("  tma property: %d accepted and exact, %d rejected, %d wrong (seeds from %llu)\n",
           accepted, rejected, wrong, (unsigned long long)seed);
    CHECK_EQ_I64(wrong, 0);
    CHECK(accepted > 0);
}
