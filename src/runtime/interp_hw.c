/*
 * interp_hw.c -- the executor's hardware statements: mbarriers, proxy
 * fences, warp 0's region and tensor memory's life cycle.
 *
 * An mbarrier (PTX ISA "mbarrier") is modelled per block: initialized with
 * the arrivals that complete a phase; arrive.expect_tx adds the transaction
 * bytes each arriving thread announces and counts its arrival;
 * complete_tx subtracts bytes (what a finished asynchronous copy does); a
 * phase completes when both counts reach zero, and the next phase begins.
 * Threads run in lockstep, so a wait for a phase that has not completed
 * when every active thread reached it can never complete: it is reported
 * as a deadlock (a GPU would hang). A parity wait only tells the current
 * phase from the one before, so waiting for any other phase is reported
 * too. Every phase must receive exactly the arrivals it was initialized
 * for and exactly the transaction bytes its arrivals expect: more arrivals,
 * a copy that completes more bytes than the arrivals so far expect (on a
 * GPU the phase could complete before every copy has landed, or never),
 * and a phase left unfinished by mbarrier.inval or by the end of the block
 * are reported as well, whether or not a thread waits on it. Every access
 * of the executor is in program order, so a proxy fence has nothing to do;
 * tensor memory is block memory here, with its limits checked at compile
 * time, so its allocation statements are no-ops.
 */
#include "base/heap.h"
#include "runtime/interp_hw.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    bool init;
    int64_t count;   /* arrivals per phase */
    int64_t pending; /* arrivals still missing in the current phase */
    int64_t tx;      /* transaction bytes still pending in the current phase */
    int64_t phase;   /* the current phase = phases completed */
    int64_t lo, hi;  /* shared-memory bytes an asynchronous copy wrote for this phase: cells
                        marked in flight (ix_cell.written == 2) until a wait sees the phase */
} ix_mbar;

struct ix_mbars {
    int64_t bid[3]; /* the block the state belongs to */
    int n;
    ix_mbar *m;
};

struct ix_hw *ix_hw_of_sync(wf_kernel *k, const kir_sync *s) {
    struct ix_hw *h = ARENA_NEW(&k->arena, struct ix_hw);
    if (!h)
        return NULL;
    h->is_sync = true;
    h->sync = s->kind;
    h->mbar = s->mbar;
    h->count = s->count;
    h->phase = s->phase;
    if (s->bytes) {
        val_memo m = {0};
        h->bytes = val_clone(&k->arena, s->bytes, &m);
        val_memo_free(&m);
        if (!h->bytes)
            return NULL;
    }
    return h;
}

struct ix_hw *ix_hw_of_node(wf_kernel *k, const kir_hw *hw) {
    struct ix_hw *h = ARENA_NEW(&k->arena, struct ix_hw);
    if (h)
        h->hw = hw->kind;
    return h;
}

void ix_hw_free(ix_exec *x) {
    if (x->mbars)
        free(x->mbars->m);
    free(x->mbars);
    x->mbars = NULL;
}

/* The mbarrier an operation addresses and the phase a wait waits for, with a
   circular buffer's stage and phase evaluated for this iteration. */
typedef struct {
    kir_sync_kind sync;
    int mbar;
    int64_t count, phase;
    const wf_val *bytes;
} ix_ref;

/* A uniform value of the block (the stage and phase depend on loops only). */
static bool uniform(ix_exec *x, const ix_expr *e, int64_t *out) {
    const int64_t *v;
    bool vary;
    if (!ix_eval(x, e, &v, &vary))
        return false;
    int t = 0;
    while (vary && t < x->nthreads - 1 && !x->mask[t])
        t++;
    *out = v[vary ? t : 0];
    return true;
}

static bool resolve(ix_exec *x, const in_node *n, ix_ref *r) {
    const struct ix_hw *h = n->hw;
    int64_t off = 0;
    *r = (ix_ref){h->sync, h->mbar, h->count, h->phase, h->bytes};
    if ((n->mbar_off.n && !uniform(x, &n->mbar_off, &off)) ||
        (n->phase.n && !uniform(x, &n->phase, &r->phase)))
        return ix_fail(x, WF_ERR_SCHEDULE, "an mbarrier's stage or phase overflows int64");
    if (off < 0 || off > INT32_MAX - h->mbar)
        return ix_fail(x, WF_ERR_SCHEDULE, "mbarrier %d + %lld does not exist", h->mbar,
                       (long long)off);
    r->mbar = h->mbar + (int)off;
    return true;
}

/* Mbarrier i of the current block (state from another block is dropped). */
static ix_mbar *mbar_of(ix_exec *x, int i) {
    struct ix_mbars *s = x->mbars;
    if (!s && !(s = x->mbars = heap_calloc(1, sizeof *s)))
        return NULL;
    if (memcmp(s->bid, x->bid, sizeof s->bid) != 0) {
        memcpy(s->bid, x->bid, sizeof s->bid);
        memset(s->m, 0, sizeof *s->m * (size_t)s->n);
    }
    if (i >= s->n) {
        ix_mbar *grown = heap_realloc(s->m, sizeof *grown * (size_t)(i + 1));
        if (!grown)
            return NULL;
        memset(grown + s->n, 0, sizeof *grown * (size_t)(i + 1 - s->n));
        s->m = grown;
        s->n = i + 1;
    }
    return &s->m[i];
}

static int64_t active_threads(const ix_exec *x) {
    int64_t n = 0;
    for (int t = 0; t < x->nthreads; t++)
        n += x->mask[t];
    return n;
}

/* Bytes have been completed on m: no more than its arrivals expect. */
static bool complete_phase(ix_exec *x, int i, ix_mbar *m, int64_t bytes) {
    if (m->tx < 0)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "block (%lld, %lld, %lld): asynchronous copies complete %lld transaction "
                       "bytes on mbarrier %d in phase %lld, but its arrivals expect only %lld "
                       "(%lld of %lld arrivals still to come)",
                       (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                       (long long)bytes, i, (long long)m->phase, (long long)(m->tx + bytes),
                       (long long)m->pending, (long long)m->count);
    if (m->pending == 0 && m->tx == 0) {
        m->phase++;
        m->pending = m->count;
    }
    return true;
}

/* The waiting threads have seen the phase: what the copies wrote is visible
   to them. Where every thread of the block waited, it is visible to all (no
   thread is its writer: no barrier is needed before reading it); else it
   stays the issuing thread's write, which a barrier must publish. */
static void land(ix_exec *x, ix_mbar *m) {
    bool all = active_threads(x) == x->nthreads;
    for (int64_t b = m->lo; b < m->hi; b++)
        if (x->sshadow[b].written == 2) {
            x->sshadow[b].written = 1;
            if (all)
                x->sshadow[b].writer = -1;
        }
    m->lo = m->hi = 0;
}

static bool wait(ix_exec *x, const ix_ref *h, ix_mbar *m) {
    if (h->phase == m->phase - 1) {
        land(x, m);
        return true;
    }
    if (h->phase == m->phase)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "deadlock: block (%lld, %lld, %lld) waits on mbarrier %d for phase %lld, "
                       "which never completes: %lld of %lld arrivals and %lld transaction bytes "
                       "are still pending",
                       (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2], h->mbar,
                       (long long)h->phase, (long long)m->pending, (long long)m->count,
                       (long long)m->tx);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "block (%lld, %lld, %lld) waits on mbarrier %d for phase %lld, but it is in "
                   "phase %lld; a parity wait only tells the current phase from the one before",
                   (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2], h->mbar,
                   (long long)h->phase, (long long)m->phase);
}

/* Arrivals and transaction bytes of the active threads. */
static bool account(ix_exec *x, const ix_ref *h, ix_mbar *m) {
    int64_t bytes = 0, n = active_threads(x);
    if (!rt_eval(x->k, x->l, h->bytes, &bytes))
        return ix_fail(x, WF_ERR_SCHEDULE, "cannot evaluate the transaction bytes of mbarrier %d",
                       h->mbar);
    if (h->sync == KSYNC_MBAR_COMPLETE_TX) {
        m->tx -= bytes * n;
        return complete_phase(x, h->mbar, m, bytes * n);
    } else {
        m->tx += bytes * n;
        m->pending -= n;
        if (m->pending < 0)
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "mbarrier %d receives %lld more arrivals in phase %lld than the %lld "
                           "it was initialized for",
                           h->mbar, (long long)-m->pending, (long long)m->phase,
                           (long long)m->count);
    }
    return complete_phase(x, h->mbar, m, 0);
}

bool ix_hw_sync(ix_exec *x, const in_node *n) {
    ix_ref ref, *h = &ref;
    /* bulk stores complete at once here (interp_copy_tma.c); wgmma computes at
       once, its groups in flight until a wait (interp_wgmma.c) */
    if (n->hw->sync == KSYNC_WGMMA_COMMIT)
        return ix_wgmma_commit(x);
    if (n->hw->sync == KSYNC_WGMMA_WAIT)
        return ix_wgmma_wait(x, n->hw->count);
    if (!kir_sync_uses_mbar(n->hw->sync))
        return true;
    if (!resolve(x, n, &ref))
        return false;
    ix_mbar *m = mbar_of(x, h->mbar);
    if (!m)
        return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    if (h->sync == KSYNC_MBAR_INIT) {
        if (h->count <= 0)
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "mbarrier %d is initialized for %lld arrivals; it needs at least 1",
                           h->mbar, (long long)h->count);
        *m = (ix_mbar){true, h->count, h->count, 0, 0, 0, 0};
        return true;
    }
    if (!m->init)
        return ix_fail(
            x, WF_ERR_SCHEDULE,
            "block (%lld, %lld, %lld) uses mbarrier %d before it is initialized (mbarrier.init)",
            (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2], h->mbar);
    if (h->sync == KSYNC_MBAR_INVAL) {
        if (m->pending != m->count || m->tx != 0)
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "mbarrier %d is invalidated in the middle of phase %lld (%lld arrivals "
                           "and %lld transaction bytes pending)",
                           h->mbar, (long long)m->phase, (long long)m->pending, (long long)m->tx);
        m->init = false;
        return true;
    }
    return h->sync == KSYNC_MBAR_WAIT ? wait(x, h, m) : account(x, h, m);
}

bool ix_mbar_complete_tx(ix_exec *x, int mbar, int64_t bytes, int64_t lo, int64_t hi) {
    ix_mbar *m = mbar_of(x, mbar);
    if (!m)
        return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    if (!m->init)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "a bulk copy completes its bytes on mbarrier %d, which is not initialized",
                       mbar);
    m->tx -= bytes;
    m->lo = m->hi > m->lo && m->lo < lo ? m->lo : lo;
    m->hi = m->hi > hi ? m->hi : hi;
    return complete_phase(x, mbar, m, bytes);
}

bool ix_hw_block_end(ix_exec *x) {
    struct ix_mbars *s = x->mbars;
    if (!s || memcmp(s->bid, x->bid, sizeof s->bid) != 0)
        return true;
    for (int i = 0; i < s->n; i++) {
        const ix_mbar *m = &s->m[i];
        if (m->init && (m->pending != m->count || m->tx != 0))
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "block (%lld, %lld, %lld) ends in the middle of phase %lld of mbarrier "
                           "%d: %lld of %lld arrivals and %lld transaction bytes are still "
                           "pending",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                           (long long)m->phase, i, (long long)m->pending, (long long)m->count,
                           (long long)m->tx);
    }
    return true;
}

/* Warp 0 runs the body; the other threads skip it. */
static bool run_warp0(ix_exec *x, const in_node *n, ix_run_body run_body) {
    uint8_t saved[1024]; /* a block has at most 1024 threads (rt_bind) */
    int T = x->nthreads < 1024 ? x->nthreads : 1024, active = 0;
    memcpy(saved, x->mask, (size_t)T);
    for (int t = 0; t < T; t++)
        active += x->mask[t] = (uint8_t)(x->mask[t] && t < 32);
    bool ok = active == 0 || run_body(x, n);
    memcpy(x->mask, saved, (size_t)T);
    return ok;
}

/* elect.sync over warp 0 with a full mask: every lane of warp 0 must reach
   it together (PTX); the executor elects lane 0. */
static bool run_elect(ix_exec *x, const in_node *n, ix_run_body run_body) {
    if (x->nthreads < 32)
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "elect.sync needs a full warp, but block (%lld, %lld, %lld) has %d threads",
                       (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                       x->nthreads);
    for (int t = 1; t < 32; t++)
        if (x->mask[t] != x->mask[0])
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "elect.sync is reached by only some threads of warp 0 of block (%lld, "
                           "%lld, %lld) (thread %d but not thread %d)",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                           x->mask[0] ? 0 : t, x->mask[0] ? t : 0);
    if (!x->mask[0])
        return true;
    uint8_t saved[1024]; /* a block has at most 1024 threads (rt_bind) */
    int T = x->nthreads < 1024 ? x->nthreads : 1024;
    memcpy(saved, x->mask, (size_t)T);
    memset(x->mask + 1, 0, (size_t)(T - 1));
    bool ok = run_body(x, n);
    memcpy(x->mask, saved, (size_t)T);
    return ok;
}

bool ix_hw_run(ix_exec *x, const in_node *n, ix_run_body run_body) {
    switch (n->hw->hw) {
    case KHW_WARP0:
        return run_warp0(x, n, run_body);
    case KHW_ELECT:
        return run_elect(x, n, run_body);
    default:
        return true; /* tensor memory's life cycle: see the comment atop */
    }
}
