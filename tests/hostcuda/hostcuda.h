/*
 * hostcuda.h -- the host-CUDA oracle: run the CUDA C++ that weft generates
 * on the CPU, compiled by the host C++ compiler.
 *
 * The CPU executor runs the kernel IR and never reads the CUDA text, so
 * without a GPU nothing checked that text beyond NVRTC accepting it. This
 * oracle compiles the text itself (with tests/hostcuda/shim.h standing in
 * for CUDA) and runs it, so a wrong operator, cast or helper in codegen
 * changes its outputs. Usage: add kernels that already ran on the executor
 * (hc_add; their inputs are copied), compile and run them all in one
 * program (hc_run: one compiler call for the batch), then read each case's
 * outputs (hc_output) and compare them with the executor's.
 *
 * Scope: kernels without shared memory, barriers, mbarriers, tensor memory
 * or inline assembly (elementwise and local-memory kernels); hc_add refuses
 * others with the reason. Threads run serially, one after another: warps,
 * memory ordering and races are not modelled (the executor checks races).
 */
#ifndef WF_TESTS_HOSTCUDA_HOSTCUDA_H
#define WF_TESTS_HOSTCUDA_HOSTCUDA_H

#include <stddef.h>

#include "weft.h"

typedef struct hc_batch hc_batch;

typedef enum {
    HC_OK,
    HC_NO_COMPILER, /* no host C++ compiler: the caller skips, with the message */
    HC_FAILED,      /* the compile or the run failed: the message says how */
} hc_status;

hc_batch *hc_new(void);
void hc_free(hc_batch *b);

/* Add kernel k run with these buffers (contiguous or strided host buffers,
   in wf_run's order). Returns the case's index, or -1 with the reason in
   why (out of scope, a launch the buffers do not bind, out of memory).
   source: the CUDA text to run, NULL = wf_kernel_source(k) (tests pass a
   changed text to show that the oracle sees a change). */
int hc_add(hc_batch *b, wf_kernel *k, const char *source, const wf_buffer *in, int nin,
           const wf_buffer *out, int nout, char *why, size_t whysize);

/* Write, compile (one host program for all cases) and run. The compiler is
   $WF_HOST_CXX, else g++; msg gets the reason of anything but HC_OK. */
hc_status hc_run(hc_batch *b, char *msg, size_t msgsize);

/* Output o of case c after hc_run, laid out as the output buffer given to
   hc_add; NULL when the case did not run. */
const void *hc_output(const hc_batch *b, int c, int o);

/* Seconds the last hc_run spent in the compiler and in the program. */
void hc_times(const hc_batch *b, double *compile_s, double *run_s);

#endif
