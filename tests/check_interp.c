/*
 * check_interp.c -- run a fusion's kernel on the CPU reference executor and
 * compare with the plain reference (tests/ref.c), for CHECK_INTERP; with
 * WF_TEST_GPU=1 on a GPU machine, run it on the device as well.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "ir/ir.h"
#include "ref.h"

static void free_all(wf_buffer *b, int n) {
    for (int i = 0; i < n; i++)
        ref_free(&b[i]);
}

static bool compare_outputs(test_state *ts, wf_fusion *f, wf_buffer *got, wf_buffer *want,
                            const char *file, int line) {
    for (int i = 0; i < f->outputs.n; i++) {
        int64_t bad = ref_compare(&got[i], &want[i]);
        if (bad >= 0) {
            printf("  %s:%d: output %d differs from the reference at element %lld\n", file, line, i,
                   (long long)bad);
            ts->failed = true;
            return false;
        }
    }
    return true;
}

wf_kernel *harness_interp(test_state *ts, wf_fusion *f, const int64_t *sym, const char *file,
                          int line) {
    return harness_interp_sm(ts, f, sym, 0, file, line);
}

/* Close enough for the GPU: bit-exact copies, and 1e-6 relative (1e-3 for
   16-bit types) where fast-math-free float code may still differ in the last
   bits (fused multiply-add, libdevice transcendentals). */
/* Is element i of a dense output still the poison (every byte 0xff: a NaN
   no operation produces), i.e. never written? */
static bool poisoned(const wf_buffer *b, int64_t i) {
    size_t es = wf_dtype_size(b->dtype);
    const unsigned char *p = (const unsigned char *)b->data + (size_t)i * es;
    for (size_t j = 0; j < es; j++)
        if (p[j] != 0xff)
            return false;
    return true;
}

static bool close_enough(const wf_buffer *got, const wf_buffer *want, int64_t *bad) {
    bool is_float = got->dtype == WF_F32 || got->dtype == WF_F64 || got->dtype == WF_F16 ||
                    got->dtype == WF_BF16;
    double tol = got->dtype == WF_F16 || got->dtype == WF_BF16 ? 1e-3 : is_float ? 1e-6 : 0;
    int64_t n = ref_numel(got);
    for (int64_t i = 0; i < n; i++) {
        double g = ref_get(got, i), w = ref_get(want, i), mag = w < 0 ? -w : w;
        double diff = g > w ? g - w : w - g;
        if (g != g && w != w && !poisoned(got, i)) /* a NaN computed as the reference's */
            continue;
        if (!(g == w || diff <= tol * (mag > 1 ? mag : 1))) { /* an unwritten NaN fails */
            *bad = i;
            return false;
        }
    }
    return true;
}

/* With WF_TEST_GPU=1 on a machine with a GPU, the same kernel also runs on
   the device (host buffers, outputs poisoned) and is compared with the
   reference. Kernels for a newer architecture than the device are skipped. */
static void run_on_gpu(test_state *ts, wf_fusion *f, wf_kernel *k, const wf_buffer *in,
                       const wf_buffer *want, const int64_t *sym, const char *file, int line) {
    const char *env = getenv("WF_TEST_GPU");
    if (!env || strcmp(env, "1") != 0)
        return;
    if (!wf_cuda_available()) { /* asked for explicitly: not having a GPU is a failure */
        printf("  %s:%d: WF_TEST_GPU=1 but no CUDA device is available\n", file, line);
        ts->failed = true;
        return;
    }
    wf_buffer *got = calloc((size_t)f->outputs.n + 1, sizeof *got);
    if (!got) {
        ts->failed = true;
        return;
    }
    for (int i = 0; i < f->outputs.n; i++) {
        got[i] = ref_buffer(f, f->outputs.ptr[i], sym);
        ref_poison(&got[i]);
    }
    wf_status s = wf_run(k, WF_BACKEND_CUDA, in, f->inputs.n, got, f->outputs.n);
    if (s != WF_OK) { /* every GPU failure fails: only sm >= 100 kernels are never run here */
        printf("  %s:%d: the GPU run failed: %s: %s\n", file, line, wf_status_name(s),
               wf_last_run_error(k));
        ts->failed = true;
    }
    for (int i = 0; s == WF_OK && i < f->outputs.n; i++) {
        int64_t bad = -1;
        if (!close_enough(&got[i], &want[i], &bad)) {
            printf("  %s:%d: GPU output %d differs from the reference at element %lld\n", file,
                   line, i, (long long)bad);
            ts->failed = true;
        }
    }
    free_all(got, f->outputs.n);
    free(got);
}

wf_kernel *harness_interp_sm(test_state *ts, wf_fusion *f, const int64_t *sym, int sm,
                             const char *file, int line) {
    wf_kernel *k = harness_compile_sm(ts, f, sm, file, line);
    if (!k)
        return k;
    /* As many buffers as the fusion has inputs and outputs: no fixed limit. */
    wf_buffer *in = calloc((size_t)f->inputs.n + 1, sizeof *in);
    wf_buffer *got = calloc((size_t)f->outputs.n + 1, sizeof *got);
    wf_buffer *want = calloc((size_t)f->outputs.n + 1, sizeof *want);
    if (!in || !got || !want) {
        printf("  %s:%d: out of memory in the test harness\n", file, line);
        ts->failed = true;
        free(in);
        free(got);
        free(want);
        return k;
    }
    for (int i = 0; i < f->inputs.n; i++) {
        in[i] = ref_buffer(f, f->inputs.ptr[i], sym);
        ref_fill_random(&in[i], 17u + (unsigned)i);
    }
    for (int i = 0; i < f->outputs.n; i++) {
        got[i] = ref_buffer(f, f->outputs.ptr[i], sym);
        want[i] = ref_buffer(f, f->outputs.ptr[i], sym);
        ref_poison(&got[i]);
    }
    wf_status s = wf_run(k, WF_BACKEND_INTERP, in, f->inputs.n, got, f->outputs.n);
    if (s != WF_OK) {
        printf("  %s:%d: the executor failed: %s: %s\n", file, line, wf_status_name(s),
               wf_last_run_error(k));
        ts->failed = true;
    } else if (!ref_eval(f, in, f->inputs.n, want, f->outputs.n)) {
        printf("  %s:%d: the reference failed\n", file, line);
        ts->failed = true;
    } else {
        compare_outputs(ts, f, got, want, file, line);
        if (sm < 100)
            run_on_gpu(ts, f, k, in, want, sym, file, line);
    }
    free_all(in, f->inputs.n);
    free_all(got, f->outputs.n);
    free_all(want, f->outputs.n);
    free(in);
    free(got);
    free(want);
    return k;
}
