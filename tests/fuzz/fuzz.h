/*
 * fuzz.h -- what the fuzzer's files share (tests/fuzz/): one case's state
 * (the generator's random stream, the fusion, a node per tensor it built)
 * and the small helpers every generator part uses. fuzz.c builds pointwise
 * fusions, schedules them and checks them; fuzz_reduce.c adds reductions
 * and their schedules (serial, block, grid, rfactor); fuzz_tma.c builds TMA
 * copies and their schedules; fuzz_tir.c schedules TensorIR programs.
 */
#ifndef WF_TESTS_FUZZ_FUZZ_H
#define WF_TESTS_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ir/ir.h"

enum {
    MAX_NODES = 32,
    MAX_IN = 3,
    CASE_TIMEOUT_S = 240, /* a hang, not a slow case: some take 30 s under ASan on 2 cores */
    LEAK_EVERY = 200,
    SLOW_CASE_S = 2,
    MAX_NUMEL = 1024
};

typedef struct {
    uint64_t s;
} rng;

static inline unsigned rnd(rng *r, unsigned n) {
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)((r->s >> 33) % n) : 0;
}

static inline bool chance(rng *r, unsigned percent) {
    return rnd(r, 100) < percent;
}

/* A tensor of the case: its run-time shape and, per dim, the input dims its
   values come from (bit input * 8 + dim; 0 for a broadcast dim). */
typedef struct {
    wf_tv *tv;
    wf_dtype dt;
    int ndim;
    int64_t shape[WF_MAX_RANK];
    uint32_t orig[WF_MAX_RANK];
    int nuses;
    /* computed from a float sum or product: the executor's order of
       additions is not the reference's, so it compares within a tolerance,
       and the generator keeps it away from ops that would magnify the
       difference (exp, division, casts to integers, ...) */
    bool inexact;
    bool inexact_half; /* and rounded to a 16-bit float on the way */
} node;

typedef struct {
    rng r;
    wf_fusion *f;
    node n[MAX_NODES];
    int nn, nin;
    int64_t sym[MAX_IN * 8];
    int uf[MAX_IN * 8]; /* input dims mapped together by binary ops so far */
    bool known;         /* steer around known.h classes */
    int verbose;
    const char *stage;
    bool set_domains;       /* set_allocation_domain / set_loop_domain was called (F6) */
    bool expanded;          /* a binary op expands a broadcast dim (F10) */
    bool huge_factor;       /* a split by more than 1000 (F8) */
    wf_tv *par_tv;          /* the first tensor given a thread/block type directly */
    bool par_mixed;         /* and another one was given one too (F5) */
    char why[1200];         /* the failure, printed unless a known class explains it */
    wf_tv *reds[MAX_NODES]; /* the reductions the case built */
    int nreds;
    bool rfactored; /* wf_tv_rfactor was called (F13) */
    /* and then a call that schedules several tensors at once: propagate,
       parallelize_all_like, cache_after / cache_before (F15) */
    bool whole_fusion_after_rfactor;
    bool half_sum; /* a sum or product with a 16-bit float result (F16) */
    /* TMA cases (fuzz_tma.c): a coordinate of the TMA copy on threads (several
       issuing threads) with a box or element stride that does not divide its
       extent (F18); circular buffering */
    bool tma_thread_issue, tma_circular;
    /* TensorIR cases (fuzz_tir.c) called rfactor, reorder (F20), compute_at
       or reverse_compute_at (F21) */
    bool tir_rfactor, tir_reorder, tir_compute_at;
} fcase;

static inline bool is_float(wf_dtype t) {
    return t == WF_F32 || t == WF_F16 || t == WF_BF16 || t == WF_F64;
}

/* With -v, prints one generator step (as the C call it made). */
void fz_trace(fcase *c, const char *fmt, ...);

/* The node's dtype is the tensor's: an op's result type follows type
   promotion (exp of an integer is f32), which the generator's choices about
   casts must see. */
static inline node *add_node(fcase *c, wf_tv *tv, int ndim) {
    if (!tv || c->nn >= MAX_NODES)
        return NULL;
    node *n = &c->n[c->nn++];
    memset(n, 0, sizeof *n);
    n->tv = tv;
    n->dt = tv->dtype;
    n->ndim = ndim;
    return n;
}

/* o computed from a (and b): inexact if an operand is, and through 16 bits
   if an operand was or o is a 16-bit float. */
static inline void mark_inexact(node *o, const node *a, const node *b) {
    o->inexact = a->inexact || (b && b->inexact);
    o->inexact_half = o->inexact && (a->inexact_half || (b && b->inexact_half) || o->dt == WF_F16 ||
                                     o->dt == WF_BF16);
}

/* ---- reductions (fuzz_reduce.c) ---- */

/* A reduction of a over random dims (sum, max, min, product), as a new node. */
void fz_op_reduce(fcase *c, node *a);
/* A schedule for one of the case's reductions: serial, block (threadIdx),
   grid (blockIdx) or rfactored levels; false when the case has none. */
bool fz_sched_reduction(fcase *c);
/* Output element i of got against the reference want: bit-exact, or (for
   a tensor computed from a float sum or product, whose order of operations
   the reference does not follow) within a tolerance of its type or of the
   element's scale (ref_eval_scaled). */
typedef enum { FZ_EXACT, FZ_INEXACT, FZ_INEXACT_HALF } fz_exactness;
bool fz_close_enough(const wf_buffer *got, const wf_buffer *want, double scale, int64_t i,
                     fz_exactness how);

/* ---- shared by the generators (fuzz.c) ---- */

/* Records the failure (with the stage) in c->why; returns 1. */
int fz_fail(fcase *c, const char *fmt, ...);
/* A run refused for the sizes of this run (launch limits, the executor's
   budget): a clean rejection, not a failure. */
bool fz_size_refusal(const char *msg);

/* ---- TMA (fuzz_tma.c) ---- */

/* Builds c->f: an input, TMA copies through shared memory and their
   schedule (compiled for sm_90 by the caller). */
void fz_tma_build(fcase *c);

/* ---- TensorIR (fuzz_tir.c) ---- */

/* One TensorIR case: a program, random primitives, the build and, if it
   builds (*built), a run against the reference; 1 on a failure (c->why). */
int fz_tir_case(fcase *c, bool *built);

#endif
