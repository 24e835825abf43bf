/*
 * reduce_check.h -- checking reduction kernels: compile (and NVRTC for
 * sm_90a), run on the CPU executor on inputs in [0, 1) (so that sums do not
 * cancel and a relative tolerance means something), compare every output
 * with tests/ref.c's double reference within tol relative (exact for
 * integers).
 */
#ifndef WF_TESTS_REDUCE_CHECK_H
#define WF_TESTS_REDUCE_CHECK_H

#include "harness.h"
#include "ir/ir.h"

/* The kernel (caller frees) or NULL after failing the test. sym as in
   harness_interp: a symbolic dim d of input i takes sym[i * 8 + d]. */
wf_kernel *rc_check_at(test_state *ts, wf_fusion *f, const int64_t *sym, double tol,
                       const char *file, int line);
#define rc_check(ts, f, sym, tol) rc_check_at((ts), (f), (sym), (tol), __FILE__, __LINE__)
/* Run an already compiled kernel of f the same way; false after failing the test. */
bool rc_run_at(test_state *ts, wf_kernel *k, wf_fusion *f, const int64_t *sym, double tol,
               const char *file, int line);
#define rc_run(ts, k, f, sym, tol) rc_run_at((ts), (k), (f), (sym), (tol), __FILE__, __LINE__)

#endif
