/*
 * test_fuzz_regress_f15.c -- F15 of tests/fuzz/known.h: a reduction
 * rfactored, then wf_propagate_transforms. The replay onto the rfactor
 * producer started again from its logical domain, where the partial-result
 * axis and the axis it reduces are still one reduction ID, so the producer
 * reduced everything and the consumer summed that total once per partial:
 * the result times the partial axis's extent (fuzz -s 4 -c 344, -s 5
 * -c 329, -s 2 -c 631). Now an rfactor producer keeps its schedule unless
 * the replay only refines it (sched/propagate.c). Each kernel is compiled
 * with NVRTC by the harness and run on the executor against values
 * computed here (small integers in float, so every sum is exact).
 */
#include "harness.h"

#include <stdio.h>

enum { F15_MAX = 256 }; /* elements of the input (and of each output) */

/* The fusion of every test: y = x * x; s = sum(y, axes) (output 0) and
   z = y + x (output 1), x of shape [a, b]. */
typedef struct {
    wf_fusion *f;
    wf_tv *x, *y, *s, *z;
    int64_t shape[2];
    int naxes;
    int axes[2];
} f15_case;

static void f15_build(f15_case *c, int64_t a, int64_t b, int naxes, const int *axes) {
    c->shape[0] = a;
    c->shape[1] = b;
    c->naxes = naxes;
    for (int i = 0; i < naxes; i++)
        c->axes[i] = axes[i];
    c->f = wf_fusion_new();
    c->x = wf_input(c->f, WF_F32, 2, c->shape);
    c->y = wf_mul(c->x, c->x);
    c->s = wf_sum(c->y, naxes, c->axes);
    c->z = wf_add(c->y, c->x);
    wf_output(c->f, c->s);
    wf_output(c->f, c->z);
}

static float f15_x(int64_t i) {
    return (float)((i * 7) % 11 - 5);
}

static bool f15_reduced(const f15_case *c, int d) {
    for (int i = 0; i < c->naxes; i++)
        if (c->axes[i] == d)
            return true;
    return false;
}

/* Compile (with NVRTC), run on the executor, compare both outputs exactly. */
static void f15_check(test_state *ts_, f15_case *c) {
    static float x[F15_MAX], s[F15_MAX], z[F15_MAX];
    double ref[F15_MAX] = {0};
    int64_t a = c->shape[0], b = c->shape[1];
    CHECK(a * b <= F15_MAX);
    CHECK_EQ_I64(wf_fusion_status(c->f), WF_OK);
    if (wf_fusion_status(c->f) != WF_OK) {
        printf("  %s\n", wf_fusion_error(c->f));
        return;
    }
    wf_kernel *k = COMPILE(c->f);
    if (!k)
        return;
    bool r0 = f15_reduced(c, 0), r1 = f15_reduced(c, 1);
    wf_buffer in = {x, WF_F32, 2, {a, b}, {0}, -1};
    wf_buffer out[2] = {{s, WF_F32, 0, {0}, {0}, -1}, {z, WF_F32, 2, {a, b}, {0}, -1}};
    if (!r0)
        out[0].shape[out[0].ndim++] = a;
    if (!r1)
        out[0].shape[out[0].ndim++] = b;
    for (int64_t i = 0; i < a * b; i++)
        x[i] = f15_x(i);
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, out, 2), WF_OK);
    for (int64_t i = 0; i < a; i++)
        for (int64_t j = 0; j < b; j++) {
            float v = x[i * b + j];
            ref[(r0 ? 0 : i) * (r1 ? 1 : b) + (r1 ? 0 : j)] += (double)v * v;
            CHECK(z[i * b + j] == v * v + v);
        }
    int64_t ns = (r0 ? 1 : a) * (r1 ? 1 : b);
    for (int64_t i = 0; i < ns; i++) {
        if (s[i] != (float)ref[i])
            printf("  s[%lld] = %g, expected %g\n", (long long)i, s[i], ref[i]);
        CHECK(s[i] == (float)ref[i]);
    }
    wf_kernel_free(k);
}

/* fuzz -s 4 -c 344: the rfactor producer reached from a pointwise reference
   whose schedule is empty; it kept [r32] and reduced all 32 rows, and the
   block reduction over the 2 threads doubled the total. */
TEST(fuzz_regress_f15_propagate_from_pointwise_keeps_the_rfactor) {
    f15_case c;
    f15_build(&c, 32, 4, 2, (int[]){0, 1});
    wf_tv_split(c.s, 0, 2); /* [r16, r2, r4] */
    wf_tv_parallelize(c.s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0}); /* p: [r16, i2, i4]; s: [r2, r4] */
    CHECK(p != NULL);
    wf_propagate_transforms(c.z);
    CHECK_EQ_I64(wf_tv_ndim(p), 3);
    wf_inline_most(c.f);
    f15_check(ts_, &c);
    wf_fusion_free(c.f);
}

/* fuzz -s 5 -c 329: propagation from the rfactored reduction itself, whose
   reduction IDs map to nothing across the rfactor edge, then inlining. */
TEST(fuzz_regress_f15_propagate_from_the_rfactored_reduction) {
    f15_case c;
    f15_build(&c, 5, 12, 2, (int[]){1, 0});
    wf_tv_split(c.s, 0, 4); /* [r2, r4, r12] (5 = 2 * 4 - 3) */
    wf_tv_parallelize(c.s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0});
    CHECK(p != NULL);
    wf_propagate_transforms(c.s);
    CHECK_EQ_I64(wf_tv_ndim(p), 3);
    wf_inline_all_at(c.s, 1);
    f15_check(ts_, &c);
    wf_fusion_free(c.f);
}

/* fuzz -s 2 -c 631: a partial reduction over dim 0 with the partials on
   TIDy, propagated from the fusion input. */
TEST(fuzz_regress_f15_propagate_from_the_input_partial_reduction) {
    f15_case c;
    f15_build(&c, 8, 3, 1, (int[]){0});
    wf_tv_split(c.s, 0, 3); /* [r3, r3, i3] */
    wf_tv_parallelize(c.s, 1, WF_TIDY);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0});
    CHECK(p != NULL);
    wf_parallelize_all_like(c.s, 0);
    wf_propagate_transforms(c.x);
    wf_inline_most(c.f);
    f15_check(ts_, &c);
    wf_fusion_free(c.f);
}

/* A replay that only refines the producer's schedule is applied: from the
   producer itself, splitting its iteration axis further. */
TEST(fuzz_regress_f15_propagate_from_the_producer_refines_it) {
    f15_case c;
    f15_build(&c, 8, 6, 1, (int[]){0});
    wf_tv_split(c.s, 0, 4); /* [r2, r4, i6] */
    wf_tv_parallelize(c.s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0}); /* p: [r2, i4, i6] */
    CHECK(p != NULL);
    wf_tv_split(p, 2, 3); /* [r2, i4, i2, i3] */
    wf_propagate_transforms(p);
    CHECK_EQ_I64(wf_tv_ndim(p), 4);
    CHECK_EQ_I64(wf_tv_ndim(c.y), 4); /* [2, 4, 2, 3] like p */
    wf_inline_most(c.f);
    f15_check(ts_, &c);
    wf_fusion_free(c.f);
}

/* fuzz -s 1 -c 7108: wf_cache_before of the rfactor producer made the cache
   reduce the producer's whole logical domain (its loop, where the partials
   are, is not copied) and the block reduction counted that total once per
   thread. A copy cannot hold partials that live in loop axes, so both
   caches of an rfactor producer are refused, naming the axes. */
TEST(fuzz_regress_f15_cache_before_an_rfactor_producer_is_refused) {
    f15_case c;
    f15_build(&c, 32, 4, 2, (int[]){0, 1});
    wf_tv_split(c.s, 0, 2);
    wf_tv_parallelize(c.s, 1, WF_TIDX);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0}); /* T4: [r16, i2, i4]; T2 reads i2, i4 */
    CHECK(p != NULL);
    CHECK(wf_cache_before(p) == NULL);
    CHECK_EQ_I64(wf_fusion_status(c.f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(c.f),
              "cache_before(T4): not supported yet: T4 is an rfactor producer (wf_tv_rfactor) and "
              "T2 reads its partial results from its loop axes ithreadIdx.x13{2}, iS11{4}, which "
              "a cache would not keep; call cache_before on the reduction before rfactoring it");
    wf_fusion_free(c.f);
}

TEST(fuzz_regress_f15_cache_after_an_rfactor_producer_is_refused) {
    f15_case c;
    f15_build(&c, 8, 6, 1, (int[]){0});
    wf_tv_split(c.s, 0, 4);
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){0});
    CHECK(p != NULL);
    CHECK(wf_cache_after(p) == NULL);
    CHECK_EQ_I64(wf_fusion_status(c.f), WF_ERR_UNSUPPORTED);
    CHECK_HAS(wf_fusion_error(c.f), "cache_after(T4): not supported yet: T4 is an rfactor "
                                    "producer (wf_tv_rfactor) and T2 reads its partial results "
                                    "from its loop axes iS13{4}, which a cache would not keep");
    wf_fusion_free(c.f);
}

/* The refusal's advice works: the cache taken before the rfactor computes
   the reduction, and rfactoring the cache gives the exact sum. */
TEST(fuzz_regress_f15_cache_before_then_rfactor_the_cache) {
    f15_case c;
    f15_build(&c, 32, 4, 2, (int[]){0, 1});
    wf_tv *r = wf_cache_before(c.s);
    CHECK(r != NULL);
    wf_tv_split(r, 0, 2);
    wf_tv_parallelize(r, 1, WF_TIDX);
    CHECK(wf_tv_rfactor(r, 1, (int[]){0}) != NULL);
    wf_propagate_transforms(c.z);
    wf_inline_most(c.f);
    f15_check(ts_, &c);
    wf_fusion_free(c.f);
}

/* fuzz -s 1 -c 55267: merging the producer's partial axis (iteration) with
   its reduction axis made one reduction of both, and the consumer summed
   the total once per partial (2x). Refused, naming both axes. */
TEST(fuzz_regress_f15_merge_of_partial_and_reduction_axes_is_refused) {
    f15_case c;
    f15_build(&c, 2, 17, 2, (int[]){0, 1});
    wf_tv *p = wf_tv_rfactor(c.s, 1, (int[]){1}); /* T4: [i2, r17]; T2 reads i2 */
    CHECK(p != NULL);
    wf_tv_merge(p, 0);
    CHECK_EQ_I64(wf_fusion_status(c.f), WF_ERR_SCHEDULE);
    CHECK_STR(wf_fusion_error(c.f),
              "T4.merge: T4 is an rfactor producer; merging its iteration axis iS8{2} with its "
              "reduction axis rS9{17} would reduce its partial results too; merge iteration "
              "axes with iteration axes and reduction axes with reduction axes");
    wf_fusion_free(c.f);
}
