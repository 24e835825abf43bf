/*
 * sched.h -- schedule operations: they edit tensors' loop domains (recording
 * transforms), memory types, inline positions and the op graph (caching).
 *
 * Callers (src/api) have already normalized and range-checked axes; these
 * functions check the scheduling rules (no transform of an inlined axis,
 * swizzle extents, inline limits) and report violations through the sticky
 * error of the tensor's fusion, returning false / NULL.
 */
#ifndef WF_SCHED_SCHED_H
#define WF_SCHED_SCHED_H

#include "analysis/analysis.h"

/* The list of IterDomains a transform edits: a tensor's loop domain, or an
   abstract tensor's IDs. Split, merge, reorder and swizzle have one
   implementation on it (transform.c); on a tensor they also keep its
   inlining rules (no transform left of the compute-at position). */
typedef struct {
    wf_fusion *f;
    id_list *ids;
    wf_tv *tv;     /* the tensor whose loop domain it is; NULL: an abstract tensor */
    char name[16]; /* how messages name it: "T3", "A0" */
} sched_dom;

/* An abstract tensor (nvFuser's AbstractTensor): IterDomains of a fusion,
   transformed like a loop domain but attached to no tensor; in the fusion's
   arena, named A<id> in creation order. */
struct wf_abstract {
    wf_fusion *f;
    int id;
    id_list ids;
};

void sched_dom_of_tv(sched_dom *d, wf_tv *tv);
void sched_dom_of_abstract(sched_dom *d, wf_abstract *a);
/* ids checked by the caller (non-NULL, of f); NULL + sticky error on out of memory. */
wf_abstract *sched_abstract_new(wf_fusion *f, int n, wf_iterdomain *const *ids);
/* Axes normalized and range-checked by the caller. */
bool sched_dom_split(sched_dom *d, int axis, int64_t factor, bool inner);
bool sched_dom_merge(sched_dom *d, int outer, int inner); /* result at min(outer, inner) */
bool sched_dom_reorder(sched_dom *d, const int *old2new); /* a full permutation */
bool sched_dom_swizzle(sched_dom *d, int x, int y);

bool sched_split(wf_tv *tv, int axis, int64_t factor, bool inner);
bool sched_merge(wf_tv *tv, int outer, int inner);
bool sched_reorder(wf_tv *tv, const int *old2new); /* a full permutation */
bool sched_swizzle(wf_tv *tv, int x, int y);
bool sched_parallelize(wf_tv *tv, int axis, wf_ptype p);
/* mma.c: once tv's axes on MMA make an mma.sync tile, lay it out as the
   instruction's fragment (lanes on TIDx, registers); otherwise nothing. */
bool sched_mma_layout(wf_tv *tv);

/* domain.c: user-set domains, checked to be one cut of tv's history. */
bool sched_set_allocation_domain(wf_tv *tv, int n, wf_iterdomain *const *ids, bool contiguous);
bool sched_set_loop_domain(wf_tv *tv, int n, wf_iterdomain *const *ids);
/* A fusion input/output keeps its logical layout: false + error (prefixed by
   `what`) if the allocation domain ids[0..n) is anything else. */
bool sched_check_io_alloc(wf_tv *tv, const char *what, int n, wf_iterdomain *const *ids);

wf_tv *sched_cache_after(wf_tv *tv);
wf_tv *sched_cache_before(wf_tv *tv);

bool sched_propagate(wf_tv *ref);
/* Replay from's loop-domain transforms onto to across op (op's output and one
   of its inputs, either way round), reusing identical transforms. slot[i]
   (from->loop.n entries) gets to's IterDomain for from's loop axis i, NULL
   where to has none; *full the loop domain the replay gives to (from's order
   where mapped, then to's logical IDs no replayed ID covers). to's loop domain
   is left as it was. */
bool sched_replay_onto(wf_tv *from, wf_tv *to, ir_op *op, wf_iterdomain **slot, id_list *full);
bool sched_parallelize_all_like(wf_tv *ref, unsigned ptype_mask);

/* rfactor.c: split tv's reduction; axes (normalized, distinct checked there)
   are the loop axes the new producer reduces. */
wf_tv *sched_rfactor(wf_tv *tv, int naxes, const int *axes);
/* The op that reads partial results from tv's loop IDs (op->rf_in), when tv
   is an rfactor producer; NULL otherwise. */
const ir_op *sched_rfactor_reader(const wf_tv *tv);

bool sched_inline_at(wf_tv *tv, int pos);
/* Recompute the max_producer_pos of tv's consumers from their producers'
   positions (after tv's position changed). */
void sched_update_consumers(wf_tv *tv);
bool sched_inline_most(wf_fusion *f);
bool sched_inline_all_at(wf_tv *ref, int pos);
/* compute_at.c: compute p inside the first pos loops of c, which reads it
   (directly or through other tensors), promoting the loops p has no axis for
   (wf_compute_at). pos is normalized against c. */
bool sched_compute_at(wf_tv *p, wf_tv *c, int pos);
/* Place c, which reads p (directly or through other tensors), inside p's first
   pos loops (wf_reverse_compute_at); pos is normalized against p. */
bool sched_reverse_compute_at(wf_tv *c, wf_tv *p, int pos);
/* loopbc.c: insert a loop-only broadcast IterDomain at loop position pos
   (normalized by the caller, 0..ndim). */
bool sched_loop_broadcast(wf_tv *tv, int pos);
/* False (WF_ERR_UNSUPPORTED naming the axis) if tv's loop domain holds a loop-only
   broadcast: operations that rebuild a tensor from its logical domain (rfactor) refuse. */
bool sched_check_no_loop_broadcast(wf_tv *tv, const char *what);

#endif
