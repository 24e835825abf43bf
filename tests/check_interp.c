/*
 * check_interp.c -- run a fusion's kernel on the CPU reference executor and
 * compare with the plain reference (tests/ref.c), for CHECK_INTERP.
 */
#include <stdlib.h>

#include "harness.h"
#include "ir/ir.h"
#include "ref.h"

static void free_all(wf_buffer *b, int n)
{
    for (int i = 0; i < n; i++)
        ref_free(&b[i]);
}

static bool compare_outputs(test_state *ts, wf_fusion *f, wf_buffer *got, wf_buffer *want,
                            const char *file, int line)
{
    for (int i = 0; i < f->outputs.n; i++) {
        int64_t bad = ref_compare(&got[i], &want[i]);
        if (bad >= 0) {
            printf("  %s:%d: output %d differs from the reference at element %lld\n", file, line,
                   i, (long long)bad);
            ts->failed = true;
            return false;
        }
    }
    return true;
}

wf_kernel *harness_interp(test_state *ts, wf_fusion *f, const int64_t *sym, const char *file,
                          int line)
{
    return harness_interp_sm(ts, f, sym, 0, file, line);
}

wf_kernel *harness_interp_sm(test_state *ts, wf_fusion *f, const int64_t *sym, int sm,
                             const char *file, int line)
{
    wf_buffer in[8], got[8], want[8];
    wf_kernel *k = harness_compile_sm(ts, f, sm, file, line);
    if (!k || f->inputs.n > 8 || f->outputs.n > 8)
        return k;
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
    }
    free_all(in, f->inputs.n);
    free_all(got, f->outputs.n);
    free_all(want, f->outputs.n);
    return k;
}
