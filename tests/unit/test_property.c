/*
 * test_property.c -- random schedules checked on the CPU reference executor.
 *
 * Each case builds a small copy, pointwise, broadcast or transpose fusion and
 * schedules it at random: splits (divisible or not, inner or outer), merges,
 * reorders, XOR swizzles, parallel types, memory types, caching and inline
 * positions. Every schedule must either compile and produce exactly the
 * plain reference's output on the executor, or be rejected with one of the
 * expected errors (expected_rejections: a status and the fixed parts of the
 * message). A crash, a wrong answer or
 * an executor error (race, out-of-bounds, unwritten read) fails the test and
 * prints the case's seed; WF_PROP_SEED=<n> reruns from that seed and
 * WF_PROP_CASES=<n> changes how many cases run (default 500).
 */
#include <stdlib.h>

#include "harness.h"
#include "ir/ir.h"
#include "ref.h"

typedef struct {
    uint64_t s;
} rng;

static unsigned rnd(rng *r, unsigned n) {
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)((r->s >> 33) % n) : 0;
}

static bool chance(rng *r, unsigned percent) {
    return rnd(r, 100) < percent;
}

static int64_t extent(rng *r) {
    static const int64_t pick[] = {1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32, 33};
    return pick[rnd(r, sizeof pick / sizeof *pick)];
}

/* The fusion: inputs, and the output that gets the reference schedule. */
static wf_fusion *build(rng *r, wf_tv **out, int64_t sym[16], char *what) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[3] = {extent(r), extent(r), 1 + rnd(r, 5)};
    bool symbolic = chance(r, 15);
    /* Input 0 is [M, N] (or [M, N, K]); input 1 is [M, N], or [N] / [M] to broadcast. */
    sym[0] = sym[8] = shape[0];
    sym[1] = sym[9] = shape[1];
    sym[2] = shape[2];
    int64_t decl[3] = {symbolic ? -1 : shape[0], symbolic ? -1 : shape[1], shape[2]};
    wf_tv *a = wf_input(f, WF_F32, 2, decl), *b, *t;
    switch (rnd(r, 8)) {
    case 0:
        strcpy(what, "copy");
        *out = wf_set(a);
        break;
    case 1:
        strcpy(what, "pointwise");
        *out = wf_unary(WF_NEG, wf_add(a, wf_input(f, WF_F32, 2, decl)));
        break;
    case 2: {
        strcpy(what, "broadcast");
        int64_t inner[1] = {decl[1]};
        bool bc[2] = {true, false};
        b = wf_input(f, WF_F32, 1, inner);
        sym[8] = shape[1];
        *out = wf_mul(a, wf_broadcast(b, 2, bc));
        break;
    }
    case 3: {
        strcpy(what, "inner broadcast");
        int64_t outer[1] = {decl[0]};
        bool bc[2] = {false, true};
        b = wf_input(f, WF_F32, 1, outer);
        *out = wf_sub(wf_broadcast(b, 2, bc), a);
        break;
    }
    case 4:
        strcpy(what, "half casts");
        t = wf_cast(wf_unary(WF_RELU, wf_cast(a, WF_F16)), WF_F32);
        *out = wf_add(t, a);
        break;
    case 5: {
        strcpy(what, "3-D permute");
        static const int perm[3] = {2, 0, 1};
        wf_fusion_free(f);
        f = wf_fusion_new();
        a = wf_input(f, WF_F32, 3, decl);
        *out = wf_permute(wf_unary(WF_ABS, a), perm);
        break;
    }
    case 6:
        strcpy(what, "two outputs");
        t = wf_unary(WF_NEG, a);
        wf_output(f, wf_unary(WF_RELU, t));
        *out = wf_add(t, a);
        break;
    default:
        strcpy(what, "transpose");
        *out = wf_transpose(wf_set(a), 0, 1);
        break;
    }
    wf_output(f, *out);
    return f;
}

static bool is_pow2(int64_t x) {
    return x > 0 && (x & (x - 1)) == 0;
}

static void random_transform(rng *r, wf_tv *tv) {
    int n = wf_tv_ndim(tv);
    switch (rnd(r, 5)) {
    case 0:
    case 1:
        if (chance(r, 80))
            wf_tv_split(tv, (int)rnd(r, (unsigned)n), 1 + rnd(r, 8));
        else
            wf_tv_split_outer(tv, (int)rnd(r, (unsigned)n), 1 + rnd(r, 4));
        break;
    case 2:
        if (n > 1)
            wf_tv_merge(tv, (int)rnd(r, (unsigned)n - 1));
        break;
    case 3: {
        int perm[16];
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)rnd(r, (unsigned)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        wf_tv_reorder_all(tv, perm);
        break;
    }
    default:
        for (int x = 0; x < n; x++)
            for (int y = 0; y < n; y++) {
                int64_t ex = wf_iterdomain_extent(wf_tv_axis(tv, x));
                int64_t ey = wf_iterdomain_extent(wf_tv_axis(tv, y));
                if (x != y && is_pow2(ex) && is_pow2(ey) && ex <= ey && ex > 1 && chance(r, 50)) {
                    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, x, y);
                    return;
                }
            }
        break;
    }
}

static void random_parallel(rng *r, wf_tv *tv) {
    static const wf_ptype types[] = {WF_BIDX, WF_BIDY, WF_TIDX, WF_TIDY, WF_SERIAL, WF_UNROLL};
    bool used[16] = {false};
    for (int i = 0; i < wf_tv_ndim(tv); i++) {
        wf_ptype p = types[rnd(r, sizeof types / sizeof *types)];
        if (p != WF_SERIAL && p != WF_UNROLL && used[p])
            continue;
        used[p] = true;
        wf_tv_parallelize(tv, i, p);
    }
}

/* Vectorize the innermost axis of a cached copy when its extent allows. */
static void maybe_vectorize(rng *r, wf_tv *tv) {
    int n = wf_tv_ndim(tv);
    int64_t e = n ? wf_iterdomain_extent(wf_tv_axis(tv, -1)) : 0;
    if (tv && (e == 2 || e == 4) && chance(r, 50))
        wf_tv_parallelize(tv, -1, WF_VECTORIZE);
}

/* A shared tile allocated XOR-swizzled while its loops stay plain. */
static void maybe_swizzle_allocation(rng *r, wf_tv *tv) {
    int n = wf_tv_ndim(tv);
    if (n < 2 || tv->mem != WF_MEM_SHARED || !chance(r, 50))
        return;
    wf_iterdomain *const *loop = wf_tv_loop_domain(tv, &n);
    wf_iterdomain *ids[16];
    int64_t ex = wf_iterdomain_extent(loop[n - 2]), ey = wf_iterdomain_extent(loop[n - 1]);
    if (!is_pow2(ex) || !is_pow2(ey) || ex > ey || ex < 2)
        return;
    for (int i = 0; i < n; i++)
        ids[i] = loop[i];
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, n - 2, n - 1);
    wf_tv_set_allocation_domain(tv, n, wf_tv_loop_domain(tv, &n), true);
    wf_tv_set_loop_domain(tv, n, ids);
}

static void random_inline(rng *r, wf_fusion *f, wf_tv *out) {
    switch (rnd(r, 3)) {
    case 0:
        wf_inline_most(f);
        break;
    case 1:
        wf_inline_all_at(out, (int)rnd(r, (unsigned)wf_tv_ndim(out) + 1));
        break;
    default:
        for (int i = 0; i < f->tvs.n; i++) {
            wf_tv *tv = f->tvs.ptr[i];
            if (!tv->is_input && chance(r, 50))
                wf_tv_inline_at(tv, (int)rnd(r, (unsigned)wf_tv_ndim(tv) + 1));
        }
    }
}

static void random_schedule(rng *r, wf_fusion *f, wf_tv *out) {
    wf_tv *in0 = f->inputs.ptr[0];
    wf_tv *cached = chance(r, 40) ? wf_cache_after(in0) : NULL;
    wf_tv *staged = chance(r, 30) ? wf_cache_before(out) : NULL;
    for (int i = 0, n = (int)rnd(r, 6); i < n; i++)
        random_transform(r, out);
    if (chance(r, 85))
        wf_propagate_transforms(out);
    random_parallel(r, out);
    if (chance(r, 80))
        wf_parallelize_all_like(out, 0);
    /* Now and then, schedule one intermediate differently from the rest. */
    wf_tv *odd = f->tvs.ptr[rnd(r, (unsigned)f->tvs.n)];
    if (!odd->is_input && !odd->is_output && chance(r, 15))
        random_transform(r, odd);
    for (int i = 0; i < f->tvs.n; i++) {
        wf_tv *tv = f->tvs.ptr[i];
        if (!tv->is_input && !tv->is_output && chance(r, 35))
            wf_tv_set_memory(tv, WF_MEM_SHARED);
    }
    if (cached && chance(r, 30))
        wf_tv_set_memory(cached, WF_MEM_SHARED);
    if (cached) {
        maybe_vectorize(r, cached);
        maybe_swizzle_allocation(r, cached);
    }
    if (staged)
        maybe_vectorize(r, staged);
    random_inline(r, f, out);
}

typedef struct {
    int accepted, rejected;
} tally;

/* Does the executor refuse these sizes before running (a launch-time check:
   block size, divisibility of a vectorized symbolic extent)? */
static bool launch_too_big(wf_fusion *f, wf_kernel *k, const int64_t *sym) {
    wf_buffer in[2], out[2];
    for (int i = 0; i < f->inputs.n; i++)
        in[i] = ref_buffer(f, f->inputs.ptr[i], sym);
    for (int i = 0; i < f->outputs.n; i++)
        out[i] = ref_buffer(f, f->outputs.ptr[i], sym);
    wf_status s = wf_run(k, WF_BACKEND_INTERP, in, f->inputs.n, out, f->outputs.n);
    const char *msg = wf_last_run_error(k);
    /* The launch limits, checked per launch for sizes known only then. */
    bool refused = s == WF_ERR_SCHEDULE && (strncmp(msg, "invalid number of threads: ", 27) == 0 ||
                                            strncmp(msg, "invalid grid: ", 14) == 0 ||
                                            strstr(msg, "the vectorized split needs"));
    for (int i = 0; i < f->inputs.n; i++)
        ref_free(&in[i]);
    for (int i = 0; i < f->outputs.n; i++)
        ref_free(&out[i]);
    return refused;
}

/* The rejections a random schedule of build() may meet, each with its
   status and the fixed parts of its message (in order). A rejection that
   matches none fails the test: a new class must be added here knowingly. */
typedef struct {
    wf_status status;
    const char *parts[3];
} rejection;

static const rejection expected_rejections[] = {
    {WF_ERR_SCHEDULE,
     {"Allocations must be based on constant integers for local memory. However, T", " needs ",
      " elements"}},
    {WF_ERR_SCHEDULE, {"T", " memory, but T", " reads it across "}},
    {WF_ERR_SCHEDULE, {".inline_at(", "): position ", " is beyond the maximum inline position "}},
    {WF_ERR_SCHEDULE,
     {"T", " is vectorized, but T", ", not by a copy (set or permute); vectorize a wf_set copy"}},
    {WF_ERR_SCHEDULE,
     {"T", ".swizzle(XOR, ", "): broadcast and reduction axes cannot be swizzled"}},
    /* one rule for every transform (split, merge, swizzle) of a parallel axis */
    {WF_ERR_SCHEDULE, {"T", ": axis ", " is already parallelized on "}},
    {WF_ERR_SCHEDULE,
     {"T", ": the vectorized axis of T", " must be the innermost, contiguous axis of T"}},
    {WF_ERR_SCHEDULE, {"T", ": the split that makes the vectorized axis does not divide"}},
    {WF_ERR_SCHEDULE, {"T", ": a vector access of ", " may run past the end of "}},
    {WF_ERR_SCHEDULE, {"T", ": a vector access of ", ", which is not provably a multiple of "}},
    /* Lowering finds an inline position it cannot index: arguably wf_tv_inline_at
       should refuse it (reported to A1). */
    {WF_ERR_SCHEDULE,
     {"cannot index T", " in the loops of T", ": no path in the IterDomain graph from them to T"}},
    {WF_ERR_SCHEDULE, {"cannot order the loops: T", " must be computed before T"}},
    {WF_ERR_SCHEDULE,
     {"invalid number of threads: the block needs ", " threads; CUDA allows at most 1024 per block",
      "; split an axis and parallelize only its inner part on threads"}},
};

/* msg holds parts[0], parts[1], parts[2] in this order. */
static bool has_parts(const char *msg, const char *const *parts) {
    for (int i = 0; i < 3 && parts[i]; i++) {
        const char *p = strstr(msg, parts[i]);
        if (!p)
            return false;
        msg = p + strlen(parts[i]);
    }
    return true;
}

static bool expected_rejection(wf_status s, const char *msg) {
    for (size_t i = 0; i < sizeof expected_rejections / sizeof *expected_rejections; i++)
        if (expected_rejections[i].status == s && has_parts(msg, expected_rejections[i].parts))
            return true;
    return false;
}

static bool run_case(uint64_t seed, tally *t) {
    rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
    wf_tv *out;
    int64_t sym[16];
    char what[32];
    wf_fusion *f = build(&r, &out, sym, what);
    random_schedule(&r, f, out);
    if (getenv("WF_PROP_VERBOSE") && atoi(getenv("WF_PROP_VERBOSE")) > 2)
        wf_print_transforms(f, stdout);
    wf_kernel *k = wf_compile(f, NULL);
    bool ok = true;
    if (!k) {
        const char *msg = wf_fusion_error(f);
        ok = expected_rejection(wf_fusion_status(f), msg);
        if (!ok || getenv("WF_PROP_VERBOSE"))
            printf("  seed %llu (%s): rejected%s: %s: %s\n", (unsigned long long)seed, what,
                   ok ? "" : " with an unexpected status or message",
                   wf_status_name(wf_fusion_status(f)), msg);
        if (getenv("WF_PROP_VERBOSE") && atoi(getenv("WF_PROP_VERBOSE")) > 1)
            wf_print_transforms(f, stdout);
        t->rejected++;
    } else {
        if (launch_too_big(f, k, sym)) {
            /* Symbolic sizes made the block too large: refused before running. */
            t->rejected++;
            wf_kernel_free(k);
            wf_fusion_free(f);
            return true;
        }
        wf_kernel_free(k);
        test_state one = {0};
        wf_kernel *k2 = harness_interp(&one, f, sym, __FILE__, __LINE__);
        wf_kernel_free(k2);
        ok = !one.failed;
        if (!ok) {
            printf("  seed %llu (%s) produced a wrong result; its schedule:\n",
                   (unsigned long long)seed, what);
            wf_print_transforms(f, stdout);
        }
        t->accepted++;
    }
    wf_fusion_free(f);
    return ok;
}

TEST(property_random_schedules_are_exact_or_rejected) {
    const char *s = getenv("WF_PROP_SEED"), *n = getenv("WF_PROP_CASES");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 20261121;
    int cases = n ? atoi(n) : 500;
    tally t = {0, 0};
    int failures = 0, ran = 0;
    for (; ran < cases && failures < 5; ran++)
        failures += !run_case(seed + (uint64_t)ran, &t);
    printf("  property: %d schedules, %d accepted (%d of them wrong), %d rejected at compile "
           "time (seeds %llu..%llu)\n",
           ran, t.accepted, failures, t.rejected, (unsigned long long)seed,
           (unsigned long long)(seed + (uint64_t)ran - 1));
    if (failures)
        TS->failed = true;
    CHECK(t.accepted >= cases / 2);
}
