/*
 * eval.h -- an index at concrete values, and where TMA puts a box's
 * elements in shared memory: the one place that the copy kinds' checks
 * (lower/tma.c, copy_ldmatrix.c, copy_tmem.c) and the executor's TMA copy
 * (runtime/interp_copy_tma.c) share.
 *
 * A lower_point gives values to the symbols of an index expression: the
 * thread indices, and any symbol bound to it (a loop's variable, or a symbol
 * a check put in an index in place of a loop, as lower_index_ids allows).
 * The loops around a statement can be bound at once and their values
 * enumerated (every combination; a long loop at its first and last four
 * values). What no binding gives is either 0 (a check that only the bound
 * positions matter for) or unknown, which makes the evaluation fail.
 */
#ifndef WF_LOWER_EVAL_H
#define WF_LOWER_EVAL_H

#include "lower/lower.h"

#define LOWER_POINT_BINDS 32

typedef struct {
    const wf_val *sym; /* matched by val_equal */
    int64_t val;
    int64_t ext; /* the values lower_point_each visits: 0 .. ext - 1 */
} lower_bind;

typedef struct {
    int64_t tid[3]; /* threadIdx; blockIdx is always 0 */
    lower_bind b[LOWER_POINT_BINDS];
    int n;
    bool zero;    /* a symbol bound to nothing is 0 (otherwise evaluation fails) */
    int64_t size; /* with zero: a run-time size's value; 0: sizes and strides fail */
} lower_point;

/* v's value at p; false where it uses an unknown symbol (or divides by 0). */
bool lower_point_eval(const lower_point *p, const wf_val *v, int64_t *out);

/* Binds sym (to 0, visited over 0 .. ext - 1); false when p is full. */
bool lower_point_bind(lower_point *p, const wf_val *sym, int64_t ext);

/* Binds the serial loops around statement s, innermost first (at most
   `most`; a symbolic extent is visited at 0 alone). */
void lower_point_loops(lower_point *p, const kir_node *s, int most);

/* The thread of linear id lin in a block of the given size. */
void lower_point_thread(lower_point *p, const int64_t block[3], int64_t lin);

/* Calls visit at every combination of the values of bindings first .. n - 1
   (binding `first` varies slowest); a binding of more than `full` values is
   visited at its first and last four. Stops at the first false. */
typedef bool (*lower_point_visit)(void *ctx, lower_point *p);
bool lower_point_each(lower_point *p, int first, int64_t full, lower_point_visit visit, void *ctx);

/* ---- the TMA swizzle ---- */

/* Where TMA puts byte offset x of a box in shared memory under a swizzle of
   sw bytes (0: none; PTX ISA "Tensor-copy swizzling modes"): 16-byte chunk j
   of 128-byte row i moves to chunk j ^ (i % (sw / 16)), i.e. j ^ (i % 8)
   masked to the swizzle's width. */
int64_t lower_tma_swizzle(int64_t x, int sw);

/* The element offset, from the tile's start in shared memory, of box
   element lin (box order, dimension 0 fastest) of es-byte elements. */
int64_t lower_tma_smem_offset(int64_t lin, int64_t es, int sw);

#endif
