/*
 * analysis.h -- facts derived from a scheduled fusion: the IterDomain graph
 * (exact and permissive maps), loop groups and their promotion, inlining
 * limits and allocation.
 *
 * Nothing here changes the IR. Maps are union-find structures over IterDomain
 * ids, built in a caller-supplied scratch arena:
 *  - exact: an op's output root ID and the input logical ID it reads are the
 *    same index space; transforms of the same kind and parameters on mapped
 *    inputs give mapped outputs;
 *  - permissive: additionally a broadcast ID maps to the ID it is broadcast
 *    against (used for inlining and for sharing loops).
 * Only live ops (whose outputs reach a fusion output) seed the maps: a dead
 * op never influences indexing. Maps stay valid only while no two
 * IterDomains of one tensor are exactly mapped (an_check_self_mapping).
 */
#ifndef WF_ANALYSIS_ANALYSIS_H
#define WF_ANALYSIS_ANALYSIS_H

#include "ir/ir.h"

typedef struct {
    int *parent; /* union-find over IterDomain ids */
    int n;
} an_map;

typedef struct an_crossing_read an_crossing_read; /* inline_groups.c */

typedef struct {
    an_map exact, permissive;
    wf_tv **reductions; /* the outputs of reduction ops, for the inlining rules */
    int nreductions;
    char *live;                 /* per tensor id: reaches a fusion output (its op is lowered) */
    wf_arena *scratch;          /* the build's arena: facts the inlining rules compute once */
    an_crossing_read *crossing; /* inline_groups.c: reads that would cross a shared loop */
    int ncrossing;              /* -1 until inline_groups.c first needs them */
} an_idgraph;

bool an_idgraph_build(an_idgraph *g, wf_fusion *f, wf_arena *scratch);
/* False (WF_ERR_SCHEDULE naming the tensor and both IDs) when two logical or
   two loop IDs of one tensor are exactly mapped: one loop or index would then
   stand for both (nvFuser's self-mapping check). */
bool an_check_self_mapping(an_idgraph *g, wf_fusion *f);
/* The one union-find of weft: over ids 0..n-1, in a scratch arena. */
bool an_map_init(an_map *m, int n, wf_arena *scratch);
int an_find(an_map *m, int id);
bool an_unite(an_map *m, int a, int b); /* false if already one group */
/* One transform per class of transforms equal under m (kind, parameters,
   input and output groups), the latest of each, in creation order: a walk
   over them finds what a walk over all finds, in time independent of how
   many tensors repeat one schedule. NULL on out of memory. */
id_transform **an_unique_transforms(an_map *m, wf_fusion *f, wf_arena *a, int *n);
static inline bool an_mapped(an_map *m, const wf_iterdomain *a, const wf_iterdomain *b) {
    return an_find(m, a->id) == an_find(m, b->id);
}

/* Loop groups (loopgraph.c): which loop IterDomains of different tensors
   are one loop, through inlining, and the ID each group's loop iterates. */
typedef struct {
    an_map map;               /* union-find over IterDomain ids */
    int *group_of;            /* per IterDomain id: dense group, -1 if in no loop */
    int ngroups;              /* groups are numbered in execution order */
    wf_iterdomain **promoted; /* per group: the member with the resolved extent */
} an_loopgraph;
/* The groups of the loop IDs of ops' outputs and their consumers: each
   output's IDs left of its compute-at position with its consumers' at the
   same positions. False (with the fusion's error) on out of memory. */
bool an_loops_unite(an_loopgraph *lg, wf_fusion *f, ir_op *const *ops, int n, wf_arena *a);
/* Dense group numbers in the execution order `order`, and each group's
   promoted ID: its member from the tensor latest in that order, a broadcast
   member only when every member is broadcast. */
bool an_loops_promote(an_loopgraph *lg, wf_fusion *f, ir_op *const *order, int n, wf_arena *a);
static inline int an_loop_group(const an_loopgraph *lg, const wf_iterdomain *id) {
    return lg->group_of[id->id];
}

/* The deepest legal compute-at position of tv; *why gets a reason sentence
   when it is smaller than tv's loop rank (may be NULL). */
int an_max_inline_pos(an_idgraph *g, const wf_tv *tv, char *why, size_t whysize);
/* Running tv's loop axis i in a loop that iterates loop_id (a consumer's ID, or
   the loop's promoted one): when tv's axis is always at index 0 (a broadcast, or
   of extent 1) and not exactly mapped to loop_id, the other ID of tv's history that loop_id is
   exactly mapped to, or NULL. Indexing knows one index per exact group, so that
   ID would take the loop's index instead of its own (fuzz -s 1 -c 12659: a max
   over T2's axis read T2 at the outer loop's index). */
const wf_iterdomain *an_own_id_mapped(an_idgraph *g, const wf_tv *tv, int i,
                                      const wf_iterdomain *loop_id);
/* Is memory type m distributed (not allocated) / shared (always allocated) across p? */
bool an_mem_distributed(wf_memtype m, wf_ptype p);
bool an_mem_shared(wf_memtype m, wf_ptype p);

/* legal.c: questions the automatic schedulers ask. The widest vector (elements,
   a power of two <= want, at most 16 bytes) an innermost axis of `extent`
   elements of tv can take: 1 when extent is unknown (< 1), when tv is a strided
   input, or when no such width divides extent. */
int an_vector_width(const wf_tv *tv, int64_t extent, int64_t want);
/* Does a shared-memory allocation of bytes fit a block's limit? */
bool an_smem_fits(int64_t bytes, int64_t limit);

#endif
