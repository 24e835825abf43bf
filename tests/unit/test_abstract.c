/*
 * test_abstract.c -- abstract tensors (seed 002; nvFuser's AbstractTensor):
 * IterDomains transformed like a loop domain but attached to no tensor, then
 * set as a tensor's loop or allocation domain. Split, merge, reorder and
 * swizzle are the ones tensors use (one implementation); the abstract
 * tensor's own name (A<n>) is in its messages; errors are the fusion's
 * sticky error.
 */
#include "harness.h"

/* [64, 128] f32 -> set (T1, local) -> set (T2, output) */
static wf_fusion *chain(wf_tv **mid, wf_tv **out) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    *out = wf_set(*mid);
    wf_output(f, *out);
    return f;
}

static void check_extents(test_state *ts_, const wf_abstract *a, int n, const int64_t *want) {
    int got;
    wf_iterdomain *const *ids = wf_abstract_ids(a, &got);
    CHECK_EQ_I64(got, n);
    CHECK_EQ_I64(wf_abstract_ndim(a), n);
    for (int i = 0; i < n && i < got; i++)
        CHECK_EQ_I64(wf_iterdomain_extent(ids[i]), want[i]);
}

TEST(abstract_transforms_leave_the_tensor_alone) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    wf_abstract *a = wf_abstract_of_loop(mid);
    CHECK(a != NULL);
    check_extents(ts_, a, 2, (const int64_t[]){64, 128});
    wf_abstract_split(a, -1, 32);                         /* [64, 4, 32] */
    wf_abstract_reorder(a, 1, (const int[][2]){{0, -1}}); /* [4, 32, 64] */
    wf_abstract_merge(a, 2, 0);                           /* [256, 32]: at min */
    check_extents(ts_, a, 2, (const int64_t[]){256, 32});
    wf_abstract_split(a, 0, 8);                   /* [32, 8, 32] */
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, 1, 2); /* x{8} ^ into y{32} */
    check_extents(ts_, a, 3, (const int64_t[]){32, 8, 32});
    CHECK_STR(wf_fusion_error(f), "");
    /* the tensor's loop domain is what it was */
    CHECK_EQ_I64(wf_tv_ndim(mid), 2);
    CHECK_EQ_I64(wf_iterdomain_extent(wf_tv_axis(mid, 1)), 128);
    /* ... until the abstract tensor is set as its loop domain */
    int n;
    wf_iterdomain *const *ids = wf_abstract_ids(a, &n);
    wf_tv_set_loop_domain(mid, n, ids);
    CHECK_STR(wf_fusion_error(f), "");
    CHECK_EQ_I64(wf_tv_ndim(mid), 3);
    CHECK(wf_tv_axis(mid, 2) == ids[2]);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* wf_abstract_new takes IterDomains of several tensors; a transform of them
   belongs to the tensor of its input, so the result is a domain of that tensor. */
TEST(abstract_new_from_any_iterdomains) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    int n;
    wf_iterdomain *const *lm = wf_tv_logical_domain(mid, &n);
    wf_iterdomain *const *lo = wf_tv_logical_domain(out, &n);
    wf_iterdomain *ids[3] = {lo[0], lm[1], lm[0]};
    wf_abstract *a = wf_abstract_new(f, 3, ids);
    CHECK_EQ_I64(wf_abstract_ndim(a), 3);
    wf_abstract_split(a, 1, 16);
    wf_abstract_merge(a, -1, 1); /* [lo0, (lm0 * lm1o){512}, lm1i{16}] */
    check_extents(ts_, a, 3, (const int64_t[]){64, 512, 16});
    wf_iterdomain *const *got = wf_abstract_ids(a, &n);
    wf_tv_set_loop_domain(mid, 2, got + 1);
    CHECK_STR(wf_fusion_error(f), "");
    wf_tv_split(out, 1, 16);
    wf_tv_merge(out, 0); /* [512, 16] as T1 */
    wf_tv_parallelize(mid, 0, WF_TIDX);
    wf_tv_parallelize(out, 0, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
    /* the whole list holds T2's IterDomain: not a domain of T1 */
    wf_tv_set_loop_domain(mid, 3, got);
    CHECK_STR(wf_fusion_error(f), "T1.set_loop_domain: axis 0 is not an IterDomain of T1");
    wf_fusion_free(f);
}

/* Two tensors' loop domains built independently by the same abstract transforms
   from their own logical domains map through the IterDomain graph: the producer
   inlines into the consumer all the way, and shares its loops. */
TEST(abstract_loop_domains_built_alike_inline_together) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    wf_tv *both[2] = {mid, out};
    for (int i = 0; i < 2; i++) {
        wf_abstract *a = wf_abstract_of_loop(both[i]);
        wf_abstract_split(a, 1, 32);
        wf_abstract_split(a, 0, 8);                                  /* [8, 8, 4, 32] */
        wf_abstract_reorder(a, 2, (const int[][2]){{1, 3}, {3, 1}}); /* [8, 32, 4, 8] */
        wf_abstract_merge(a, 0, 2);                                  /* [(8 * 4), 32, 8] */
        int n;
        wf_iterdomain *const *ids = wf_abstract_ids(a, &n);
        wf_tv_set_loop_domain(both[i], n, ids);
        wf_tv_parallelize(both[i], 0, WF_BIDX);
        wf_tv_parallelize(both[i], 1, WF_TIDX);
    }
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    CHECK_EQ_I64(wf_tv_compute_at(mid), 3);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_HAS(wf_kernel_source(k), "float T1[1];");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A shared-memory tensor's swizzled allocation built on an abstract tensor is
   what wf_tv_tma_swizzle builds on the loop domain. */
TEST(abstract_swizzled_allocation) {
    int64_t shape[2] = {64, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_abstract *a = wf_abstract_of_loop(s); /* [64, 32 floats = 128 bytes] */
    wf_abstract_split(a, -1, 4);             /* [64, 8, 4] */
    wf_abstract_split(a, 0, 1);              /* [64, 1, 8, 4] */
    wf_abstract_split(a, 0, 8);              /* [8, 8, 1, 8, 4] */
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, 1, 3);
    int n;
    wf_iterdomain *const *ids = wf_abstract_ids(a, &n);
    wf_tv_set_allocation_domain(s, n, ids, true);
    /* parallelized after: a parallelized axis is not transformed (as on a tensor) */
    wf_tv_parallelize(s, 0, WF_BULK);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(o, 1, WF_TIDX);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    if (k)
        CHECK_EQ_I64(wf_kernel_tma(k, 0)->swizzle_bytes, 128);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static void expect(test_state *ts_, wf_fusion *f, wf_status st, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), st);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_fusion_clear_error(f);
}

TEST(abstract_errors_name_the_abstract_tensor) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    wf_abstract *a0 = wf_abstract_of_loop(out);
    wf_abstract *a = wf_abstract_of_loop(mid); /* A1: [64, 128] */
    (void)a0;
    wf_abstract_split(a, 2, 4);
    expect(ts_, f, WF_ERR_ARG, "A1.split: axis 2 is out of range; A1 has 2 axes");
    wf_abstract_split(a, -3, 4);
    expect(ts_, f, WF_ERR_ARG, "A1.split: axis -3 is out of range; A1 has 2 axes");
    wf_abstract_split(a, -1, 0);
    expect(ts_, f, WF_ERR_ARG, "A1.split(axis=-1, factor=0): the factor must be positive");
    wf_abstract_merge(a, 1, -1);
    expect(ts_, f, WF_ERR_ARG, "A1.merge: cannot merge axis 1 with itself");
    wf_abstract_reorder(a, 2, (const int[][2]){{0, 1}, {1, 1}});
    expect(ts_, f, WF_ERR_ARG, "A1.reorder: position 1 appears twice in the pairs");
    wf_abstract_reorder(a, 3, (const int[][2]){{0, 1}, {1, 0}, {0, 0}});
    expect(ts_, f, WF_ERR_ARG, "A1.reorder: 3 pairs; give 0..2 (old, new) pairs for A1's 2 axes");
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, -1, 1);
    expect(ts_, f, WF_ERR_ARG, "A1.swizzle: x and y are the same axis 1");
    wf_abstract_split(a, 0, 3); /* [22, 3, 128] */
    wf_abstract_swizzle(a, WF_SWIZZLE_XOR, 1, 2);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "A1.swizzle(XOR, 1, 2): an XOR swizzle needs constant power-of-two extents with "
           "extent(x) <= extent(y), but they are 3 and 128");
    wf_abstract_swizzle(a, (wf_swizzle)7, 1, 2);
    expect(ts_, f, WF_ERR_ARG, "A1.swizzle: unknown swizzle kind 7");
    /* a parallelized axis is not transformed, as on a tensor */
    wf_tv_parallelize(mid, 0, WF_BIDX);
    wf_abstract *b = wf_abstract_of_loop(mid); /* A2 */
    wf_abstract_split(b, 0, 2);
    expect(ts_, f, WF_ERR_SCHEDULE,
           "A2.split: axis 0 is already parallelized on BIDx; split before parallelizing");
    /* sticky: after an error, calls do nothing */
    wf_abstract_split(a, 5, 2);
    wf_abstract_merge(a, 0, 1);
    CHECK_EQ_I64(wf_abstract_ndim(a), 3);
    CHECK(wf_abstract_of_loop(mid) == NULL);
    CHECK_STR(wf_fusion_error(f), "A1.split: axis 5 is out of range; A1 has 3 axes");
    wf_fusion_free(f);
}

TEST(abstract_new_argument_errors) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out), *g = wf_fusion_new();
    int n;
    wf_iterdomain *const *l = wf_tv_loop_domain(mid, &n);
    CHECK(wf_abstract_new(f, 2, NULL) == NULL);
    expect(ts_, f, WF_ERR_ARG, "wf_abstract_new: 2 IterDomains (ids is NULL); give at least one");
    CHECK(wf_abstract_new(f, 0, l) == NULL);
    expect(ts_, f, WF_ERR_ARG, "wf_abstract_new: 0 IterDomains; give at least one");
    wf_iterdomain *with_null[2] = {l[0], NULL};
    CHECK(wf_abstract_new(f, 2, with_null) == NULL);
    expect(ts_, f, WF_ERR_ARG, "wf_abstract_new: IterDomain 1 is NULL");
    wf_iterdomain *twice[3] = {l[0], l[1], l[0]};
    CHECK(wf_abstract_new(f, 3, twice) == NULL);
    expect(ts_, f, WF_ERR_ARG, "wf_abstract_new: IterDomains 0 and 2 are the same IterDomain");
    CHECK(wf_abstract_new(g, 2, l) == NULL);
    CHECK_STR(wf_fusion_error(g), "wf_abstract_new: IterDomain 0 is of another fusion");
    /* NULL handles: nothing to record the error in, nothing happens */
    CHECK(wf_abstract_new(NULL, 2, l) == NULL);
    CHECK(wf_abstract_of_loop(NULL) == NULL);
    CHECK_EQ_I64(wf_abstract_ndim(NULL), -1);
    CHECK(wf_abstract_ids(NULL, &n) == NULL);
    CHECK_EQ_I64(n, 0);
    wf_abstract_split(NULL, 0, 2);
    wf_abstract_merge(NULL, 0, 1);
    wf_abstract_reorder(NULL, 0, NULL);
    wf_abstract_swizzle(NULL, WF_SWIZZLE_XOR, 0, 1);
    CHECK_STR(wf_fusion_error(f), "");
    wf_fusion_free(g);
    wf_fusion_free(f);
}
