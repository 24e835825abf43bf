/*
 * harness_int.h -- what harness.c (registry, NVRTC check) and harness_run.c
 * (the runner's main) share; tests include harness.h only.
 */
#ifndef WF_TESTS_HARNESS_INT_H
#define WF_TESTS_HARNESS_INT_H

#include <sys/types.h>

#include "harness.h"

typedef struct {
    const char *name;
    test_fn fn;
} test_entry;

/* The registered tests in registration order; *n = -1 if registering ran
   out of memory. */
const test_entry *harness_tests(int *n);

typedef enum { RES_PENDING, RES_PASS, RES_FAIL, RES_SKIP } test_result;

/* One test's outcome, in memory shared with the worker that runs it. */
typedef struct {
    test_result result;
    char reason[256];            /* a skip's reason */
    double seconds;              /* wall time of the test body */
    double nvrtc_seconds;        /* CPU time in NVRTC */
    int nvrtc_calls, nvrtc_hits; /* hits: compiles the run's cache saved */
} test_slot;

/* The slot that the NVRTC check accounts to (NULL: none). */
void harness_set_current(test_slot *slot);
/* The shared set of sources NVRTC accepted; call before the first fork. */
void harness_nvrtc_cache_init(void);
/* One NVRTC compile in this process, so that forked tests inherit it loaded. */
void harness_nvrtc_warm(void);
double harness_now(void); /* monotonic seconds */

#endif
