/*
 * test_api_misuse.c -- API misuse gets a clear error or documented behaviour
 * (issue 9): statistics before any run, printing a fusion that has an
 * error, cache_after on an output nothing reads, parallelizing an input,
 * the same tensor output twice, NULL buffer arrays, unknown SM targets, and
 * NVRTC targets before Hopper (no "a" suffix).
 */
#include "harness.h"

#include <stdlib.h>

static void check_error(test_state *ts_, wf_fusion *f, wf_status status, const char *msg) {
    CHECK_EQ_I64(wf_fusion_status(f), status);
    CHECK_STR(wf_fusion_error(f), msg);
}

/* [4, 32] f32 -> set -> out, threads on axis 1 */
static wf_fusion *copy_4x32(wf_tv **in, wf_tv **out) {
    int64_t shape[2] = {4, 32};
    wf_fusion *f = wf_fusion_new();
    *in = wf_input(f, WF_F32, 2, shape);
    *out = wf_set(*in);
    wf_output(f, *out);
    wf_tv_parallelize(*out, 1, WF_TIDX);
    return f;
}

TEST(api_interp_stats_before_any_run_is_an_error) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    wf_access_stats st;
    CHECK_EQ_I64(wf_interp_stats(k, &st), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_interp_stats: the kernel has not run on the executor yet; "
                                    "call wf_run(k, WF_BACKEND_INTERP, ...) first");
    float a[128], b[128];
    for (int i = 0; i < 128; i++)
        a[i] = (float)i;
    wf_buffer bi = {a, WF_F32, 2, {4, 32}, {0}, -1}, bo = {b, WF_F32, 2, {4, 32}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, 1, &bo, 1), WF_OK);
    CHECK_EQ_I64(wf_interp_stats(k, &st), WF_OK);
    CHECK_EQ_I64(st.gmem_accesses, 8); /* 4 warps, one load and one store each */
    CHECK_EQ_I64(wf_interp_stats(k, NULL), WF_ERR_ARG);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static char *print_kernel(wf_fusion *f) {
    char *text = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    wf_print_kernel(f, m);
    fclose(m);
    return text;
}

TEST(api_print_kernel_of_a_fusion_with_an_error_prints_the_error) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_tv_split(out, 5, 2);
    char *text = print_kernel(f);
    CHECK_STR(text, "// no kernel: WF_ERR_ARG: T1.split: axis 5 is out of range; T1 has 2 loop "
                    "axes\n");
    free(text);
    wf_fusion_clear_error(f);
    text = print_kernel(f);
    CHECK_HAS(text, "extern \"C\" __global__ void weft_kernel(");
    free(text);
    wf_fusion_free(f);
}

TEST(api_cache_after_an_output_nothing_reads_is_refused) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    CHECK(wf_cache_after(out) == NULL);
    check_error(TS, f, WF_ERR_ARG,
                "cache_after(T1): T1 is a fusion output that nothing in the fusion reads, so a "
                "cache after it would be read by nothing and dropped; to compute an output in "
                "registers and then store it, use wf_cache_before");
    wf_fusion_clear_error(f);
    wf_tv *c = wf_cache_before(out); /* what was meant */
    CHECK(c != NULL);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_tv_inline_at(c, -1);
    wf_kernel_free(CHECK_INTERP(f, NULL));
    wf_fusion_free(f);
}

TEST(api_parallelizing_a_fusion_input_is_refused) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_tv_parallelize(in, 1, WF_TIDX);
    check_error(TS, f, WF_ERR_ARG,
                "T0.parallelize(1, TIDx): T0 is a fusion input; the kernel only reads it, so it "
                "has no loops to parallelize; parallelize the tensors that read it (or a cache "
                "of it, wf_cache_after)");
    wf_fusion_clear_error(f);
    wf_tv_parallelize(in, 1, WF_SERIAL); /* harmless */
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_fusion_free(f);
}

TEST(api_output_twice_is_refused) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_output(f, out);
    check_error(TS, f, WF_ERR_ARG,
                "wf_output(T1): T1 is already output 0; to return the same values twice, output "
                "a copy of it (wf_set(T1))");
    wf_fusion_free(f);
}

TEST(api_run_with_null_buffer_arrays_says_so) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, NULL, 1, NULL, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_run: the input array is NULL but nin is 1; pass an array "
                                    "of 1 input buffer (the kernel takes 1)");
    float a[128];
    wf_buffer bi = {a, WF_F32, 2, {4, 32}, {0}, -1};
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, 1, NULL, 1), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_run: the output array is NULL but nout is 1; pass an "
                                    "array of 1 output buffer (the kernel takes 1)");
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bi, -1, NULL, 0), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), "wf_run: negative buffer count (nin = -1, nout = 0)");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(api_compile_for_an_unknown_sm_is_refused) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_compile_options opt = {.sm = 999};
    CHECK(wf_compile(f, &opt) == NULL);
    check_error(TS, f, WF_ERR_ARG,
                "wf_compile: sm 999 is not a GPU architecture; use 90 (Hopper, sm_90a), 100 "
                "(Blackwell, sm_100a), another of 75, 80, 86, 87, 89, 101, 103, 110, 120, 121, "
                "or 0 for the device's");
    wf_fusion_clear_error(f);
    opt.sm = 100;
    wf_kernel *k = wf_compile(f, &opt);
    CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* sm_75 has no architecture-specific "sm_75a" target: NVRTC used to fail
   with a catastrophic error. */
TEST(api_check_nvrtc_for_sm_75_uses_the_plain_target) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    char log[4096];
    wf_status s = wf_kernel_check_nvrtc(k, 75, log, sizeof log);
    if (s == WF_ERR_UNSUPPORTED && !strstr(log, "sm_75")) { /* NVRTC absent */
        wf_kernel_free(k);
        wf_fusion_free(f);
        SKIP("NVRTC is not available");
    }
    CHECK_EQ_I64(s, WF_OK);
    CHECK_STR(log, "");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The printers as strings (for bindings): the same text as the FILE printers,
   owned by the fusion until the next call. */
static char *print_math(wf_fusion *f) {
    char *text = NULL;
    size_t size = 0;
    FILE *m = open_memstream(&text, &size);
    wf_print_math(f, m);
    fclose(m);
    return text;
}

TEST(api_printers_as_strings_match_the_file_printers) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    char *math = print_math(f), *kernel = print_kernel(f);
    CHECK_STR(wf_math_string(f), math);
    CHECK_STR(wf_math_string(f), "Inputs:\n  T0_g_float[iS0{4}, iS1{32}]\nOutputs:\n  "
                                 "T1_g_float[iS2{4}, ithreadIdx.x3{32}]\n\n%kernel_math {\n"
                                 "T1_g_float[iS2{4}, ithreadIdx.x3{32}]\n   = Set( "
                                 "T0_g_float[iS0{4}, iS1{32}] )\n}\n");
    CHECK_STR(wf_kernel_string(f), kernel);
    const char *tr = wf_transforms_string(f);
    CHECK_HAS(tr, " loop domain : (iS2{4}, ithreadIdx.x3{32})");
    free(math);
    free(kernel);
    wf_tv_split(out, 7, 2);
    CHECK_STR(wf_kernel_string(f), "// no kernel: WF_ERR_ARG: T1.split: axis 7 is out of range; "
                                   "T1 has 2 loop axes\n");
    CHECK(wf_math_string(NULL) == NULL);
    wf_fusion_free(f);
}

/* One error channel per kernel: NVRTC's failure is also wf_last_run_error. */
TEST(api_check_nvrtc_reports_through_the_kernel_error) {
    wf_tv *in, *out;
    wf_fusion *f = copy_4x32(&in, &out);
    wf_kernel *k = COMPILE(f);
    if (!k)
        return;
    CHECK_EQ_I64(wf_kernel_check_nvrtc(k, -5, NULL, 0), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k),
              "wf_kernel_check_nvrtc: sm -5 is negative; use 0 for the kernel's target");
    wf_status s = wf_kernel_check_nvrtc(k, 999, NULL, 0);
    bool absent =
        s == WF_OK || (s == WF_ERR_UNSUPPORTED && !strstr(wf_last_run_error(k), "sm_999a"));
    if (!absent)
        CHECK_HAS(wf_last_run_error(k), "sm_999a");
    wf_kernel_free(k);
    wf_fusion_free(f);
    if (absent)
        SKIP("NVRTC is not available (or knows sm_999a)");
}
