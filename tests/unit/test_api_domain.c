/*
 * test_api_domain.c -- user-set allocation and loop domains are checked when
 * they are set (issue 9): a domain must be one cut of the tensor's history
 * (no IterDomain beside one of its parts, every output of a transform or
 * none, the whole logical domain covered), and a fusion input or output
 * keeps its logical layout. Each message names the IterDomains as printed.
 */
#include "harness.h"

static void check_error(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

/* [64, 128] f32 -> set (local mid) -> set -> out, out on BIDx / TIDx */
static wf_fusion *chain(wf_tv **mid, wf_tv **out) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    *mid = wf_set(wf_input(f, WF_F32, 2, shape));
    *out = wf_set(*mid);
    wf_output(f, *out);
    wf_tv_parallelize(*out, 0, WF_BIDX);
    wf_tv_parallelize(*out, 1, WF_TIDX);
    return f;
}

/* The fusion still compiles and runs correctly once the error is cleared. */
static void clears_and_runs(test_state *ts_, wf_fusion *f) {
    wf_fusion_clear_error(f);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_kernel_free(k);
}

TEST(api_allocation_domain_must_hold_both_outputs_of_a_split) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    wf_tv_split(mid, 1, 32); /* iS3{128} -> iS6{4}, iS7{32} */
    wf_iterdomain *ids[2] = {wf_tv_axis(mid, 0), wf_tv_axis(mid, 1)};
    wf_tv_set_allocation_domain(mid, 2, ids, true);
    check_error(TS, f, WF_ERR_ARG,
                "T1.set_allocation_domain: iS6{4} is in the domain but iS7{32}, made by the same "
                "transform, is not; a domain holds every output of a transform or none");
    clears_and_runs(TS, f);
    wf_fusion_free(f);
}

TEST(api_loop_domain_cannot_hold_an_iterdomain_and_its_part) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    int n;
    wf_iterdomain *const *logical = wf_tv_logical_domain(mid, &n);
    wf_tv_split(mid, 1, 32);
    wf_iterdomain *ids[4] = {logical[0], logical[1], wf_tv_axis(mid, 1), wf_tv_axis(mid, 2)};
    wf_tv_set_loop_domain(mid, 4, ids);
    check_error(TS, f, WF_ERR_ARG,
                "T1.set_loop_domain: iS6{4} is a part of iS3{128} (it is derived from it), and "
                "both are in the domain; a domain holds an IterDomain or its parts, not both");
    CHECK_EQ_I64(wf_tv_ndim(mid), 3); /* unchanged */
    clears_and_runs(TS, f);
    wf_fusion_free(f);
}

TEST(api_allocation_domain_cannot_hold_an_iterdomain_and_its_part) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    int n;
    wf_iterdomain *const *logical = wf_tv_logical_domain(mid, &n);
    wf_tv_split(mid, 0, 8); /* iS2{64} -> iS6{8}, iS7{8} */
    wf_iterdomain *ids[3] = {wf_tv_axis(mid, 1), logical[1], logical[0]};
    wf_tv_set_allocation_domain(mid, 3, ids, true);
    check_error(TS, f, WF_ERR_ARG,
                "T1.set_allocation_domain: iS7{8} is a part of iS2{64} (it is derived from it), "
                "and both are in the domain; a domain holds an IterDomain or its parts, not both");
    clears_and_runs(TS, f);
    wf_fusion_free(f);
}

TEST(api_permuted_allocation_domain_on_a_fusion_output_is_refused) {
    wf_tv *mid, *out;
    wf_fusion *f = chain(&mid, &out);
    int n;
    wf_iterdomain *const *logical = wf_tv_logical_domain(out, &n);
    wf_iterdomain *ids[2] = {logical[1], logical[0]};
    wf_tv_set_allocation_domain(out, 2, ids, true);
    check_error(
        TS, f, WF_ERR_ARG,
        "T2.set_allocation_domain: T2 is a fusion output, laid out as the buffer given to "
        "wf_run says (logical order, the buffer's strides), so its allocation domain can "
        "only be its logical domain, not (ithreadIdx.x5{128}, iblockIdx.x4{64}); for another "
        "layout, permute "
        "the tensor (wf_permute) or set the allocation domain on a cache of it "
        "(wf_cache_after / wf_cache_before)");
    wf_fusion_clear_error(f);
    wf_iterdomain *same[2] = {logical[0], logical[1]};
    wf_tv_set_allocation_domain(out, 2, same, true); /* the logical domain itself is fine */
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    clears_and_runs(TS, f);
    wf_fusion_free(f);
}

TEST(api_permuted_allocation_domain_on_a_fusion_input_is_refused) {
    int64_t shape[2] = {4, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_output(f, wf_set(in));
    int n;
    wf_iterdomain *const *logical = wf_tv_logical_domain(in, &n);
    wf_iterdomain *ids[2] = {logical[1], logical[0]};
    wf_tv_set_allocation_domain(in, 2, ids, true);
    CHECK_HAS(wf_fusion_error(f), "T0.set_allocation_domain: T0 is a fusion input, laid out as "
                                  "the buffer given to wf_run says");
    clears_and_runs(TS, f);
    wf_fusion_free(f);
}

TEST(api_output_with_a_permuted_allocation_domain_is_refused) {
    int64_t shape[2] = {4, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_tv *a = wf_set(in), *b = wf_set(a);
    wf_output(f, b);
    int n;
    wf_iterdomain *const *logical = wf_tv_logical_domain(a, &n);
    wf_iterdomain *ids[2] = {logical[1], logical[0]};
    wf_tv_set_allocation_domain(a, 2, ids, true); /* fine while T1 is an intermediate */
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_output(f, a);
    check_error(TS, f, WF_ERR_ARG,
                "wf_output(T1): T1 is a fusion output, laid out as the buffer given to wf_run "
                "says (logical order, the buffer's strides), so its allocation domain can only be "
                "its logical domain, not (iS3{8}, iS2{4}); for another layout, permute the tensor "
                "(wf_permute) or set the allocation domain on a cache of it (wf_cache_after / "
                "wf_cache_before)");
    clears_and_runs(TS, f); /* T1 stayed an intermediate */
    wf_fusion_free(f);
}
