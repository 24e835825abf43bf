/*
 * lower_int.h -- what the lowering passes share: the compile context.
 *
 * The context holds the IterDomain graph, the topological op order, the loop
 * groups (which loop IDs are one loop, through inlining) with their promoted
 * IterDomain and kir loop, and the parallel-dimension map. Each pass is
 * `bool lower_<name>(lower_ctx *)`, states what it requires and provides,
 * and reports problems through the fusion's sticky error.
 */
#ifndef WF_LOWER_LOWER_INT_H
#define WF_LOWER_LOWER_INT_H

#include "analysis/analysis.h"
#include "lower/lower.h"

enum { NPDIMS = LOWER_NPDIMS }; /* TIDx, TIDy, TIDz, BIDx, BIDy, BIDz: lower_pdim_table */

typedef struct {
    wf_fusion *f;
    wf_arena *a; /* the result arena: kir, vals */
    lower_result *out;
    an_idgraph g;
    VEC(ir_op *) order;    /* ops in execution order */
    int *op_pos;           /* per tensor id: position of its definition in order, -1 = input */
    an_loopgraph loops;    /* loop groups (sort) and their promoted IDs (loops) */
    kir_node **group_loop; /* per group: its kir loop, once opened */
    kir_node **stmt_of;    /* per op position: its statement */
    kir_node **alloc_of;   /* per tensor id */
    kir_node **init_of;    /* per op position: a reduction's init statement (reduce.c), or NULL */
    kir_node **final_of;   /* per op position: its accumulator's store (reduce.c), or NULL */
    const wf_val *pdim[NPDIMS];
    bool pdim_exact[NPDIMS];              /* every loop on this dim has the same extent */
    const wf_iterdomain *pdim_id[NPDIMS]; /* an IterDomain with the launch extent */
    int nvars;
} lower_ctx;

int64_t lower_pdim_max(int d); /* largest threadIdx/blockIdx value CUDA allows on d */

bool lower_check_fusion(lower_ctx *c);
/* After loops: no two loops around one statement on one thread/block type. */
bool lower_check_loops(lower_ctx *c);
bool lower_sort(lower_ctx *c);
bool lower_loops(lower_ctx *c);
/* Does v use the index of a loop around statement s that is the loop of one of
   its tensor's loop axes for which axis() holds (by loop group, so at any depth)? */
bool lower_uses_loop_of(lower_ctx *c, const kir_node *s, const wf_val *v,
                        bool (*axis)(const wf_iterdomain *id));
bool lower_pdims(lower_ctx *c);
bool lower_alloc(lower_ctx *c);
bool lower_index(lower_ctx *c);
bool lower_predicate(lower_ctx *c);
/* reduce.c: the pass after alloc (before index): each reduction's init
   statement, the kind of its combine step, the block reductions' shared-memory
   workspace after every shared tensor. */
bool lower_reduce(lower_ctx *c);
/* predicate.c hands a block reduction its predicates instead of an IF: cover
   (the launch coverage of every enclosing loop) and the bounds predicate
   decide what each thread contributes; what remains of them without the
   reduced loops, with predicate.c's one-writer rule (single, applied to the
   statement with that predicate), decides who writes. */
typedef const wf_val *(*lower_single_writer)(lower_ctx *c, const kir_stmt *s);
bool lower_reduce_guard(lower_ctx *c, kir_node *s, const wf_val *cover, lower_single_writer single);
/* The conjuncts of p that do not use a reduced loop's index: the store of an
   accumulator (KRED_FINAL) writes the one result of every reduced iteration,
   so the bounds of the reduced axes (threadIdx.x < 2 under a split on TIDx)
   must not keep threads from storing their copy of it. */
const wf_val *lower_reduce_final_pred(lower_ctx *c, kir_node *s, const wf_val *p);
bool lower_sync(lower_ctx *c);
bool lower_launch(lower_ctx *c);
bool lower_verify(lower_ctx *c);
/* After every pass: the (input, output) pairs that may share a buffer (inplace.c). */
bool lower_in_place(lower_ctx *c);

/* alloc.c: the allocation layout of a tensor, shared with indexing. */
typedef struct {
    int n;               /* allocation axes; the arrays below have n entries */
    wf_iterdomain **ids; /* in the result arena, so any rank fits */
    bool *allocated;
    const wf_val **stride; /* elements; NULL where not allocated */
    const wf_val *size;    /* elements allocated (tensor memory: lanes x row) */
    /* Tensor memory: IDs left of the dim-separator give lanes, the others
       columns; linear index = lane * row + column (row in elements). */
    int64_t lanes, cells; /* allocated lanes and 32-bit columns before rounding */
    int64_t row;          /* elements per lane of the region (rounded columns) */
} lower_layout;
bool lower_layout_of(lower_ctx *c, wf_tv *tv, lower_layout *l);
/* The ptype a tensor's loop ID runs on (the loop group's, for shared loops). */
wf_ptype lower_loop_ptype(lower_ctx *c, const wf_iterdomain *id);

/* index.c: the indices statement s's walk gives ids[0..nids) (NULL where it
   does not reach one), with the loops over[i] at vals[i] instead of their own
   index; returns tv's linear index, NULL on error (lower/tma.c's box
   coordinates and shared-memory check). */
const wf_val *lower_index_ids(lower_ctx *c, kir_node *s, wf_tv *tv, int nover,
                              const kir_node *const *over, const wf_val *const *vals, int nids,
                              const wf_iterdomain *const *ids, const wf_val **out);

#endif
