/*
 * gpu.h -- the harness of the GPU test program (make gpu-test), which runs
 * generated kernels on device 0 through the public API alone and checks
 * every result against a CPU reference on random data.
 *
 * GPU_TEST(name) registers a test; CHECK* mark it failed with file:line and
 * the values; SKIP ends it as skipped; NEED_GPU() skips it, with the reason
 * wf_run gave, on a machine where the driver finds no GPU, so that such a
 * machine reports them as skipped rather than as false passes. The runner prints
 * "[PASS]/[FAIL]/[SKIP] name" lines and ends with
 * "N passed, N failed, N skipped".
 *
 * gt_case describes one run: a kernel, its input tensors (random host data,
 * possibly strided), its output shapes and the expected outputs. gt_check
 * runs it twice, on host buffers and on device buffers, with the outputs
 * poisoned (all bytes 0xFF, a NaN in every float) before each run, and
 * compares bit for bit (GT_EXACT) or to 1e-6 relative (GT_REL).
 */
#ifndef WF_TESTS_GPU_GPU_H
#define WF_TESTS_GPU_GPU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../harness.h"
#include "weft.h"

/* The CHECK macros and the test state are the CPU suite's (tests/harness.h). */
typedef test_state gt_state;

typedef void (*gt_fn)(gt_state *);
void gt_register(const char *name, gt_fn fn);

#define GPU_TEST(name)                                                                             \
    static void gt_##name(gt_state *ts_);                                                          \
    __attribute__((constructor)) static void gt_register_##name(void) {                            \
        gt_register(#name, gt_##name);                                                             \
    }                                                                                              \
    static void gt_##name(gt_state *ts_)

#define CHECK_STATUS(s, want, k)                                                                   \
    do {                                                                                           \
        wf_status s_ = (s);                                                                        \
        if (s_ != (want)) {                                                                        \
            printf("  %s:%d: %s gave %s, not %s: %s\n", __FILE__, __LINE__, #s,                    \
                   wf_status_name(s_), wf_status_name(want), wf_last_run_error(k));                \
            ts_->failed = true;                                                                    \
        }                                                                                          \
    } while (0)

/* Is there a GPU to run on, and if not, what wf_run said was missing. */
bool gt_have_gpu(void);
const char *gt_no_gpu_reason(void);
#define NEED_GPU()                                                                                 \
    do {                                                                                           \
        if (!gt_have_gpu())                                                                        \
            SKIP(gt_no_gpu_reason());                                                              \
    } while (0)

/* ---- data ---- */

/* A tensor in host memory: dense unless strides are given (in elements). */
typedef struct {
    wf_dtype dtype;
    int ndim;
    int64_t shape[8];
    int64_t strides[8]; /* all 0 = dense */
    void *data;         /* malloc'd, gt_span() elements */
} gt_tensor;

gt_tensor gt_dense(wf_dtype t, int ndim, const int64_t *shape);
gt_tensor gt_strided(wf_dtype t, int ndim, const int64_t *shape, const int64_t *strides);
void gt_tensor_free(gt_tensor *x);
int64_t gt_numel(const gt_tensor *x);
int64_t gt_span(const gt_tensor *x); /* elements from the first to the last reachable, + 1 */
int64_t gt_offset(const gt_tensor *x, int64_t i); /* of the i-th element in row-major order */
void gt_fill_random(gt_tensor *x);                /* every element, finite, in [-2, 2) */
float gt_half_to_float(uint16_t h);
float gt_get_f32(const gt_tensor *x, int64_t i); /* i-th logical element as float */
void gt_set_f32(gt_tensor *x, int64_t i, float v);

/* ---- running and checking ---- */

typedef enum { GT_EXACT, GT_REL } gt_compare;

typedef struct {
    wf_kernel *k;
    int nin, nout;
    gt_tensor *in;       /* nin inputs with data */
    gt_tensor *expected; /* nout dense expected outputs */
    gt_compare compare;
} gt_case;

/* Run c on host buffers and on device buffers, each with poisoned outputs,
   and compare with the expected outputs. */
void gt_check(gt_state *ts, const gt_case *c, const char *file, int line);
#define CHECK_RUN(c) gt_check(ts_, (c), __FILE__, __LINE__)

/* wf_compile, failing the test with the fusion's error if that fails. */
wf_kernel *gt_compile(gt_state *ts, wf_fusion *f, const wf_compile_options *opt, const char *file,
                      int line);
#define GT_COMPILE(f) gt_compile(ts_, (f), NULL, __FILE__, __LINE__)

/* A wf_buffer over a host tensor (device -1). */
wf_buffer gt_host_buffer(const gt_tensor *x);
/* Compare a dense output with the expected one; prints the first mismatches. */
bool gt_compare_out(const gt_tensor *got, const gt_tensor *want, gt_compare how, const char *what);

/* The program's own path, for tests that need a fresh process, which it
   starts as "--child NAME"; gt_child runs that child's routine. */
const char *gt_self(void);
int gt_child(const char *name);

#endif
