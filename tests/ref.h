/*
 * ref.h -- plain C reference semantics of a fusion, for checking kernels.
 *
 * ref_eval computes every output of a fusion from host input buffers by
 * walking the ops over whole logical tensors, ignoring the schedule
 * entirely. Arithmetic happens in the type the CUDA code computes in (float
 * for 16- and 32-bit floats), so results compare bit for bit with the CPU
 * reference executor. Also: helpers to make random / poisoned host buffers.
 */
#ifndef WF_TESTS_REF_H
#define WF_TESTS_REF_H

#include "weft.h"

/* Outputs must be allocated host buffers with the outputs' shapes. */
bool ref_eval(wf_fusion *f, const wf_buffer *in, int nin, wf_buffer *out, int nout);
/* ref_eval, and scale[i] (malloc'd; the caller frees it) gets output i's
   scales, row-major: per element a bound on the magnitudes of the partial
   results it was computed from (ref.c), at which an executor that sums or
   multiplies in another order rounds. */
bool ref_eval_scaled(wf_fusion *f, const wf_buffer *in, int nin, wf_buffer *out, double **scale,
                     int nout);

/* A contiguous host buffer for tensor tv of fusion f: its logical shape, where
   a symbolic dim d of input i is sym[i * 8 + d]. Data is malloc'd. */
wf_buffer ref_buffer(wf_fusion *f, wf_tv *tv, const int64_t *sym);
void ref_fill_random(wf_buffer *b, unsigned seed);
void ref_poison(wf_buffer *b);
void ref_free(wf_buffer *b);
int64_t ref_numel(const wf_buffer *b);
/* Element i (row-major over the logical shape) as a double. */
double ref_get(const wf_buffer *b, int64_t i);
/* Index of the first differing element, or -1 if equal bytewise. */
int64_t ref_compare(const wf_buffer *a, const wf_buffer *b);

#endif
