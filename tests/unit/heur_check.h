/*
 * heur_check.h -- checking automatic schedules (test_heur_*.c): schedule a
 * fusion with wf_schedule_auto (for the sizes sym gives, or generic when
 * generic is true), check the scheduler chosen, then compile it (NVRTC for
 * sm_90a) and run it on the CPU executor against the reference
 * (reduce_check.h: within tol relative, inputs in [0, 1)).
 */
#ifndef WF_TESTS_HEUR_CHECK_H
#define WF_TESTS_HEUR_CHECK_H

#include "reduce_check.h"

/* The flat sizes wf_schedule_auto takes, from the fusion's inputs: a concrete
   dim its extent, a symbolic dim d of input i sym[i * 8 + d]. */
static inline void hc_sizes(wf_fusion *f, const int64_t *sym, int64_t *sizes) {
    int k = 0;
    for (int i = 0; i < f->inputs.n; i++) {
        wf_tv *in = f->inputs.ptr[i];
        for (int d = 0; d < in->logical.n; d++) {
            int64_t e = wf_iterdomain_extent(in->logical.ptr[d]);
            sizes[k++] = e > 0 ? e : sym[i * 8 + d];
        }
    }
}

/* Schedule and check; the info is written to *info when it is not NULL.
   Returns whether the run matched (the test has failed otherwise). */
static inline bool hc_check_at(test_state *ts, wf_fusion *f, const int64_t *sym, bool generic,
                               const char *want, double tol, wf_auto_info *info, const char *file,
                               int line) {
    int64_t sizes[64];
    wf_auto_info mine;
    if (!info)
        info = &mine;
    hc_sizes(f, sym, sizes);
    wf_status s = wf_schedule_auto(f, generic ? NULL : sizes, NULL, info);
    if (s != WF_OK) {
        printf("  %s:%d: wf_schedule_auto: %s: %s\n", file, line, wf_status_name(s),
               wf_fusion_error(f));
        ts->failed = true;
        return false;
    }
    if (strcmp(info->scheduler, want) != 0) {
        printf("  %s:%d: scheduler %s, want %s\n", file, line, info->scheduler, want);
        ts->failed = true;
        return false;
    }
    wf_kernel *k = rc_check_at(ts, f, sym, tol, file, line);
    if (!k) {
        printf("  %s:%d: schedule: %s\n%s", file, line, info->summary, wf_transforms_string(f));
        return false;
    }
    wf_kernel_free(k);
    return true;
}
#define HC_CHECK(f, sym, generic, want, tol, info)                                                 \
    hc_check_at(ts_, (f), (sym), (generic), (want), (tol), (info), __FILE__, __LINE__)

#endif
