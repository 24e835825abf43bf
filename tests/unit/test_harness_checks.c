/*
 * test_harness_checks.c -- the checks of the test harness can fail.
 *
 * CHECK_INTERP used to skip fusions with more than 8 inputs or outputs; here
 * a fusion of 9 outputs (one input: 17+ parameters still overflow the
 * executor, issue 9) whose 9th output is scheduled so that
 * the executor leaves most of it unwritten (two axes on TIDz, issue 9) must
 * fail the check, and the same fusion scheduled plainly must pass it.
 */
#include "harness.h"

static wf_fusion *nine(bool broken) {
    int64_t shape[2] = {4, 8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape), *last = NULL;
    for (int i = 0; i < 9; i++) {
        last = wf_unary(WF_NEG, in);
        wf_output(f, last);
    }
    if (broken) { /* 28 of 32 elements are never written (or, once fixed, refused) */
        wf_tv_parallelize(last, 0, WF_TIDZ);
        wf_tv_parallelize(last, 1, WF_TIDZ);
    }
    return f;
}

TEST(harness_interp_checks_the_ninth_output) {
    test_state one = {0};
    wf_fusion *f = nine(true);
    printf("  (the failure printed next is expected)\n");
    wf_kernel_free(harness_interp(&one, f, NULL, __FILE__, __LINE__));
    CHECK(one.failed);
    wf_fusion_free(f);
}

TEST(harness_interp_passes_nine_plain_outputs) {
    wf_fusion *f = nine(false);
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}
