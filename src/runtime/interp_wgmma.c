/*
 * interp_wgmma.c -- wgmma's asynchronous groups in the CPU reference
 * executor.
 *
 * interp_mma.c computes a wgmma when it is issued, but on the GPU the
 * instruction runs on after that: its reads of the shared tiles and its
 * writes of the accumulator are in flight until a wgmma.wait_group retires
 * the group it was committed in. Here each warp group keeps its groups,
 * oldest first (the last one open until wgmma.commit_group), each the
 * shadow cells it reads and the accumulator cells it writes; while a group
 * is in flight its shared cells are marked ix_cell.written == 3 and its
 * accumulator cells lwritten == 3. interp_stmt.c refuses a write of such a
 * shared cell (a TMA load or a store over a tile still being read) and any
 * other access of such an accumulator cell (reading the result before the
 * wait); wait_group N retires all but the N newest committed groups, and a
 * block may not end with a group in flight.
 */
#include "ir/mma_frag.h"
#include "runtime/interp_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int64_t *v;
    int64_t n, cap;
} cells;

typedef struct {
    cells smem; /* shadow indices (byte offsets) of the shared cells read */
    cells acc;  /* accumulator cells: tensor << 40 | cell */
} group;

typedef struct {
    group *g; /* g[0 .. n - 1] committed, oldest first; g[n] the open one if open */
    int n, cap;
    bool open;
} queue;

struct ix_wgmma {
    int nwg;
    queue q[];
};

#define ACC_SHIFT 40

static bool push(cells *c, int64_t v) {
    if (c->n == c->cap) {
        int64_t cap = c->cap ? 2 * c->cap : 256;
        int64_t *p = realloc(c->v, sizeof *p * (size_t)cap);
        if (!p)
            return false;
        c->v = p;
        c->cap = cap;
    }
    c->v[c->n++] = v;
    return true;
}

static bool oom(ix_exec *x) {
    return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
}

/* Warp group g's open group (made on first use). */
static group *open_group(ix_exec *x, int g) {
    if (!x->wgmma) {
        int nwg = (x->nthreads + WGMMA_THREADS - 1) / WGMMA_THREADS;
        x->wgmma = calloc(1, sizeof *x->wgmma + sizeof(queue) * (size_t)nwg);
        if (!x->wgmma)
            return NULL;
        x->wgmma->nwg = nwg;
    }
    queue *q = &x->wgmma->q[g];
    if (!q->open) {
        if (q->n + 1 > q->cap) {
            int cap = q->cap ? 2 * q->cap : 4;
            group *p = realloc(q->g, sizeof *p * (size_t)cap);
            if (!p)
                return NULL;
            memset(p + q->cap, 0, sizeof *p * (size_t)(cap - q->cap));
            q->g = p;
            q->cap = cap;
        }
        q->g[q->n].smem.n = q->g[q->n].acc.n = 0;
        q->open = true;
    }
    return &q->g[q->n];
}

static void mark(ix_exec *x, const group *gr, uint8_t to) {
    for (int64_t i = 0; i < gr->smem.n; i++) {
        ix_cell *c = &x->sshadow[gr->smem.v[i]];
        if (c->written == 1 || c->written == 3)
            c->written = to;
    }
    for (int64_t i = 0; i < gr->acc.n; i++) {
        int64_t e = gr->acc.v[i];
        uint8_t *f = &x->lwritten[e >> ACC_SHIFT][e & (((int64_t)1 << ACC_SHIFT) - 1)];
        if (*f == 1 || *f == 3)
            *f = to;
    }
}

bool ix_wgmma_note_read(ix_exec *x, int g, int64_t byte) {
    group *gr = open_group(x, g);
    if (!gr || !push(&gr->smem, byte))
        return oom(x);
    if (x->sshadow[byte].written == 1)
        x->sshadow[byte].written = 3;
    return true;
}

bool ix_wgmma_note_acc(ix_exec *x, int g, int tensor, int64_t cell) {
    group *gr = open_group(x, g);
    if (!gr || !push(&gr->acc, (int64_t)tensor << ACC_SHIFT | cell))
        return oom(x);
    x->lwritten[tensor][cell] = 3;
    return true;
}

/* The warp groups with an active thread: the ones a collective runs for. */
static bool active(const ix_exec *x, int g) {
    for (int t = g * WGMMA_THREADS; t < x->nthreads && t < (g + 1) * WGMMA_THREADS; t++)
        if (x->mask[t])
            return true;
    return false;
}

bool ix_wgmma_commit(ix_exec *x) {
    for (int g = 0; x->wgmma && g < x->wgmma->nwg; g++) {
        queue *q = &x->wgmma->q[g];
        if (active(x, g) && q->open) {
            q->open = false;
            q->n++;
        }
    }
    return true;
}

bool ix_wgmma_wait(ix_exec *x, int64_t keep) {
    struct ix_wgmma *w = x->wgmma;
    bool retired = false;
    for (int g = 0; w && g < w->nwg; g++) {
        queue *q = &w->q[g];
        if (!active(x, g) || q->n <= keep)
            continue;
        int drop = q->n - (int)keep, live = q->n + q->open;
        for (int i = 0; i < drop; i++) {
            mark(x, &q->g[0], 1);
            /* the newest groups (and the open one) move to the front; the retired
               ones' buffers go after them, to be reused */
            group t = q->g[0];
            memmove(&q->g[0], &q->g[1], sizeof *q->g * (size_t)(live - 1));
            q->g[live - 1] = t;
        }
        q->n -= drop;
        retired = true;
    }
    /* a cell retired here may still be in a group of another warp group (both
       read one tile of B) or a newer group of this one (the accumulator) */
    for (int g = 0; retired && g < w->nwg; g++)
        for (int i = 0; i < w->q[g].n + w->q[g].open; i++)
            mark(x, &w->q[g].g[i], 3);
    return true;
}

bool ix_wgmma_block_end(ix_exec *x) {
    for (int g = 0; x->wgmma && g < x->wgmma->nwg; g++) {
        const queue *q = &x->wgmma->q[g];
        if (q->n || q->open)
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "block (%lld, %lld, %lld) ends with %d wgmma group%s of warp group %d "
                           "in flight%s; a wgmma.wait_group 0 must retire them before the "
                           "accumulator is read",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2],
                           q->n + q->open, q->n + q->open == 1 ? "" : "s", g,
                           q->open ? " (the last not committed)" : "");
    }
    return true;
}

void ix_wgmma_free(ix_exec *x) {
    struct ix_wgmma *w = x->wgmma;
    for (int g = 0; w && g < w->nwg; g++) {
        for (int i = 0; i < w->q[g].cap; i++) {
            free(w->q[g].g[i].smem.v);
            free(w->q[g].g[i].acc.v);
        }
        free(w->q[g].g);
    }
    free(w);
    x->wgmma = NULL;
}
