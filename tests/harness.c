/*
 * harness.c -- the test runner: runs every registered test (or those whose
 * names contain argv[1]), prints one line per test and the summary line.
 */
#include "harness.h"

#include <stdlib.h>
#include <unistd.h>

/* Seconds the whole runner may take (CI allows 10 minutes for everything). */
#define WF_TEST_TIMEOUT_S 480

typedef struct {
    const char *name;
    test_fn fn;
} test_entry;

static test_entry tests[1024];
static int ntests;

void harness_register(const char *name, test_fn fn) {
    if (ntests < 1024)
        tests[ntests++] = (test_entry){name, fn};
}

bool harness_nvrtc(test_state *ts, wf_kernel *k, int sm, const char *file, int line) {
    char log[4096];
    if (!k) {
        ts->failed = true;
        return false;
    }
    wf_status s = wf_kernel_check_nvrtc(k, sm, log, sizeof log);
    if (s == WF_ERR_UNSUPPORTED) {
        ts->skipped = true;
        snprintf(ts->skip_reason, sizeof ts->skip_reason, "NVRTC unavailable: %.200s", log);
        return false;
    }
    if (s != WF_OK) {
        printf("  %s:%d: NVRTC failed (%s):\n%s\n--- source:\n%s\n", file, line, wf_status_name(s),
               log, wf_kernel_source(k));
        ts->failed = true;
        return false;
    }
    return true;
}

wf_kernel *harness_compile(test_state *ts, wf_fusion *f, const char *file, int line) {
    return harness_compile_sm(ts, f, 0, file, line);
}

wf_kernel *harness_compile_sm(test_state *ts, wf_fusion *f, int sm, const char *file, int line) {
    wf_compile_options opt = {sm};
    wf_kernel *k = wf_compile(f, &opt);
    if (!k) {
        printf("  %s:%d: wf_compile failed: %s: %s\n", file, line,
               wf_status_name(wf_fusion_status(f)), wf_fusion_error(f));
        ts->failed = true;
        return NULL;
    }
    /* Every kernel a test builds is also compiled by NVRTC for its target (a
       failure fails the test; without NVRTC the test counts as skipped). */
    harness_nvrtc(ts, k, sm, file, line);
    return k;
}

int main(int argc, char **argv) {
    int passed = 0, failed = 0, skipped = 0;
    /* A runaway test (an endless loop in the compiler, say) must not hang CI. */
    alarm(WF_TEST_TIMEOUT_S);
    for (int i = 0; i < ntests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        test_state ts = {0};
        tests[i].fn(&ts);
        if (ts.failed) {
            printf("[FAIL] %s\n", tests[i].name);
            failed++;
        } else if (ts.skipped) {
            printf("[SKIP] %s (%s)\n", tests[i].name, ts.skip_reason);
            skipped++;
        } else {
            printf("[PASS] %s\n", tests[i].name);
            passed++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
