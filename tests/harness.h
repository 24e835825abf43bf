/*
 * harness.h -- the test harness: TEST(name) registers a test; CHECK macros
 * print file:line and both values on failure and mark the test failed.
 * SKIP(reason) ends a test as skipped (reported, never counted as passed).
 * The runner prints "[PASS] name" / "[FAIL] name" / "[SKIP] name" lines and
 * ends with "N passed, N failed, N skipped".
 */
#ifndef WF_TESTS_HARNESS_H
#define WF_TESTS_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "weft.h"

typedef struct {
    bool failed;
    bool skipped;
    char skip_reason[256];
} test_state;

typedef void (*test_fn)(test_state *);
void harness_register(const char *name, test_fn fn);

#define TEST(name)                                                                                 \
    static void test_##name(test_state *ts_);                                                      \
    __attribute__((constructor)) static void register_##name(void) {                               \
        harness_register(#name, test_##name);                                                      \
    }                                                                                              \
    static void test_##name(test_state *ts_)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                      \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            printf("  %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_,     \
                   b_);                                                                            \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                   \
            printf("  %s:%d: %s == %s failed:\n    got:      \"%s\"\n    expected: \"%s\"\n",      \
                   __FILE__, __LINE__, #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");            \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

/* a contains b */
#define CHECK_HAS(a, b)                                                                            \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || !strstr(a_, b_)) {                                                       \
            printf("  %s:%d: %s does not contain \"%s\"; it is:\n%s\n", __FILE__, __LINE__, #a,    \
                   b_ ? b_ : "(null)", a_ ? a_ : "(null)");                                        \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

#define CHECK_LACKS(a, b)                                                                          \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strstr(a_, b_)) {                                                        \
            printf("  %s:%d: %s contains \"%s\" but should not\n", __FILE__, __LINE__, #a, b_);    \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

#define SKIP(reason)                                                                               \
    do {                                                                                           \
        ts_->skipped = true;                                                                       \
        snprintf(ts_->skip_reason, sizeof ts_->skip_reason, "%s", (reason));                       \
        return;                                                                                    \
    } while (0)

#define TS ts_

/* Compile k with NVRTC for sm; fails the test on a compile error, skips it
   when NVRTC is absent. Returns false if the caller should stop. */
bool harness_nvrtc(test_state *ts, wf_kernel *k, int sm, const char *file, int line);
#define CHECK_NVRTC(k, sm)                                                                         \
    do {                                                                                           \
        if (!harness_nvrtc(ts_, (k), (sm), __FILE__, __LINE__))                                    \
            return;                                                                                \
    } while (0)

/* Compile f (failing the test with the fusion's error if that fails), and
   compile the kernel with NVRTC for sm (0: sm_90a) as CHECK_NVRTC does. */
wf_kernel *harness_compile(test_state *ts, wf_fusion *f, const char *file, int line);
wf_kernel *harness_compile_sm(test_state *ts, wf_fusion *f, int sm, const char *file, int line);
#define COMPILE(f) harness_compile(ts_, (f), __FILE__, __LINE__)

#endif

/* Compile f, run it on the CPU reference executor on random inputs (a
   symbolic dim d of input i takes sym[i * 8 + d]; sym may be NULL when no
   extent is symbolic) with poisoned outputs, and compare
   with the plain reference bit for bit. Returns the kernel (caller frees) or
   NULL after failing the test. */
wf_kernel *harness_interp(test_state *ts, wf_fusion *f, const int64_t *sym, const char *file,
                          int line);
#define CHECK_INTERP(f, sym) harness_interp(ts_, (f), (sym), __FILE__, __LINE__)
/* The same, compiled for target sm (e.g. 100 for tensor memory). */
wf_kernel *harness_interp_sm(test_state *ts, wf_fusion *f, const int64_t *sym, int sm,
                             const char *file, int line);
#define CHECK_INTERP_SM(f, sym, sm) harness_interp_sm(ts_, (f), (sym), (sm), __FILE__, __LINE__)
