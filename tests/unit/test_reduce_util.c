/*
 * test_reduce_util.c -- the reduction tests' checker (reduce_check.h).
 */
#include "reduce_check.h"

#include <math.h>
#include <stdlib.h>

#include "ref.h"

static void fill_unit(wf_buffer *b, unsigned seed) {
    ref_fill_random(b, seed);
    if (b->dtype != WF_F32 && b->dtype != WF_F64)
        return; /* integers keep [-10, 10]: their sums are exact */
    int64_t n = ref_numel(b);
    for (int64_t i = 0; i < n; i++) {
        double x = (ref_get(b, i) + 10.0) / 20.0;
        if (b->dtype == WF_F32)
            ((float *)b->data)[i] = (float)x;
        else
            ((double *)b->data)[i] = x;
    }
}

static bool close_enough(double got, double want, double tol) {
    if (isnan(want))
        return isnan(got);
    return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

static bool compare(test_state *ts, wf_fusion *f, const wf_buffer *got, const wf_buffer *want,
                    double tol, const char *file, int line) {
    for (int o = 0; o < f->outputs.n; o++) {
        int64_t n = ref_numel(&got[o]);
        for (int64_t i = 0; i < n; i++) {
            double g = ref_get(&got[o], i), w = ref_get(&want[o], i);
            if (close_enough(g, w, tol))
                continue;
            printf("  %s:%d: output %d element %lld: got %.9g, reference %.9g (tol %g)\n", file,
                   line, o, (long long)i, g, w, tol);
            ts->failed = true;
            return false;
        }
    }
    return true;
}

bool rc_run_at(test_state *ts, wf_kernel *k, wf_fusion *f, const int64_t *sym, double tol,
               const char *file, int line) {
    int ni = f->inputs.n, no = f->outputs.n;
    wf_buffer in[8], out[8], ref[8];
    bool ok = ni <= 8 && no <= 8;
    for (int i = 0; ok && i < ni; i++) {
        in[i] = ref_buffer(f, f->inputs.ptr[i], sym);
        fill_unit(&in[i], 17u + (unsigned)i);
    }
    for (int i = 0; ok && i < no; i++) {
        out[i] = ref_buffer(f, f->outputs.ptr[i], sym);
        ref[i] = ref_buffer(f, f->outputs.ptr[i], sym);
        ref_poison(&out[i]);
    }
    wf_status s = ok ? wf_run(k, WF_BACKEND_INTERP, in, ni, out, no) : WF_ERR_ARG;
    if (s != WF_OK) {
        printf("  %s:%d: executor run failed: %s: %s\n", file, line, wf_status_name(s),
               wf_last_run_error(k));
        ts->failed = true;
        ok = false;
    } else if (!ref_eval(f, in, ni, ref, no)) {
        printf("  %s:%d: the reference failed\n", file, line);
        ts->failed = true;
        ok = false;
    } else
        ok = compare(ts, f, out, ref, tol, file, line);
    for (int i = 0; i < ni && ni <= 8; i++)
        ref_free(&in[i]);
    for (int i = 0; i < no && no <= 8; i++) {
        ref_free(&out[i]);
        ref_free(&ref[i]);
    }
    return ok;
}

wf_kernel *rc_check_at(test_state *ts, wf_fusion *f, const int64_t *sym, double tol,
                       const char *file, int line) {
    wf_kernel *k = harness_compile(ts, f, file, line);
    if (!k)
        return NULL;
    if (!harness_nvrtc(ts, k, 90, file, line) && ts->failed) {
        wf_kernel_free(k);
        return NULL;
    }
    if (!rc_run_at(ts, k, f, sym, tol, file, line)) {
        wf_kernel_free(k);
        return NULL;
    }
    return k;
}
