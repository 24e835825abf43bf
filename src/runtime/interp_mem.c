/*
 * interp_mem.c -- the executor's memory model and its checks.
 *
 * Global tensors are the caller's buffers, bounded by the elements their
 * shape and strides can address. Shared memory is one array per block with
 * a shadow cell per element: who wrote it and who read it in the current
 * barrier epoch, and whether it was ever written. Local tensors have one
 * array per thread and a written flag per element; executing an ALLOC
 * forgets what was written (a new declaration holds garbage).
 *
 * Outputs have a written flag per element too: after a run, an element no
 * thread wrote (a launch or predicate that misses part of the tensor) is an
 * error naming the tensor and the first such element.
 *
 * Global tensors that a statement writes have a hazard cell per element
 * (ix_gread and a write stamp): which block and thread last wrote it, which
 * read it; zero is "never", so the cells are calloc'ed and cost memory only
 * where the kernel touches them. Blocks
 * run one after another here, but on a GPU in any order and concurrently,
 * so a cell written in the launch and read or written by another block is a
 * cross-block race even though the executor's order would give a result.
 * Buffers beyond IX_MAX_HAZARD_CELLS elements, or spread far beyond their
 * elements by large strides, are not tracked (the shadow would not fit).
 *
 * Reported as WF_ERR_SCHEDULE with the tensor, the index, the thread(s), the
 * block and the statement: an index outside the tensor; a read of a shared
 * cell another thread wrote in this epoch, or a write of a cell another
 * thread read or wrote in it (a race: no barrier in between); a read of a
 * shared or local cell never written.
 */
#include "runtime/interp_int.h"
#include "base/heap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ix_fail(ix_exec *x, wf_status code, const char *fmt, ...) {
    char msg[sizeof x->k->err.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_failb(&x->k->err, code, "%s", msg);
}

/* Elements from element 0 to the last one the shape and strides reach, + 1;
   -1 if that does not fit in 64 bits (UBSan saw the overflow before). */
static int64_t addressable(const rt_launch *l, int param) {
    int64_t end = 1, reach;
    for (int d = 0; d < l->buf[param]->ndim; d++) {
        if (l->shape[param][d] == 0)
            return 0;
        if (__builtin_mul_overflow(l->shape[param][d] - 1, l->stride[param][d], &reach) ||
            __builtin_add_overflow(end, reach, &end))
            return -1;
    }
    return end;
}

/* Written flags of an output, per addressable element: only for buffers that
   do not spread far beyond their elements (a huge stride skips the check). */
static bool track_writes(ix_exec *x, int i, int param) {
    int64_t n = 1;
    for (int d = 0; d < x->l->buf[param]->ndim; d++)
        if (__builtin_mul_overflow(n, x->l->shape[param][d], &n))
            return true;
    if (x->gelems[i] > 4 * n + 4096)
        return true;
    x->gwritten[i] = heap_calloc((size_t)x->gelems[i] + 1, 1);
    return x->gwritten[i] != NULL;
}

/* Hazard cells of a written global tensor (interp_stmt.c applies the rules). */
#define IX_MAX_HAZARD_CELLS ((int64_t)1 << 24) /* 16M cells: at most ~0.5 GiB of shadow */

static bool track_hazards(ix_exec *x, int i, int param) {
    int64_t n = 1;
    for (int d = 0; d < x->l->buf[param]->ndim; d++)
        if (__builtin_mul_overflow(n, x->l->shape[param][d], &n))
            return true;
    if (x->gelems[i] > IX_MAX_HAZARD_CELLS || x->gelems[i] > 4 * n + 4096)
        return true;
    x->gw[i] = heap_calloc((size_t)x->gelems[i] + 1, sizeof *x->gw[i]);
    x->gr[i] = heap_calloc((size_t)x->gelems[i] + 1, sizeof *x->gr[i]);
    return x->gw[i] && x->gr[i];
}

/* Marks in w the tensors that some statement under n writes. */
static void mark_written(const in_node *n, uint8_t *w) {
    if (n->kind == IN_STMT)
        w[n->out] = 1;
    for (int i = 0; i < n->nkids; i++)
        mark_written(n->kids[i], w);
}

static bool alloc_hazards(ix_exec *x) {
    const it_program *p = x->p;
    uint8_t *w = heap_calloc((size_t)p->ntensors + 1, 1);
    x->gw = heap_calloc((size_t)p->ntensors + 1, sizeof *x->gw);
    x->gr = heap_calloc((size_t)p->ntensors + 1, sizeof *x->gr);
    bool ok = w && x->gw && x->gr;
    if (ok)
        mark_written(p->root, w);
    for (int i = 0; ok && i < p->ntensors; i++)
        if (w[i] && p->tensors[i].space == IT_GLOBAL_T)
            ok = track_hazards(x, i, p->tensors[i].param);
    free(w);
    return ok;
}

/* Where each tensor lives in this launch: shared tiles may be sized by the
   run-time extents. */
#define IX_MAX_BLOCK_BYTES ((int64_t)1 << 32) /* a bound on the per-block shadow memory */

static bool place_tensors(ix_exec *x) {
    const it_program *p = x->p;
    int64_t shared_base = (p->tmem_bytes + 15) / 16 * 16;
    for (int i = 0; i < p->ntensors; i++) {
        const it_tensor *t = &p->tensors[i];
        x->off[i] = t->offset;
        x->size[i] = t->space == IT_GLOBAL_T ? x->gelems[i] : t->size;
        if (t->space != IT_SHARED_T)
            continue;
        /* Parts of the block's shared-memory size, which rt_bind evaluated and found
           within 227 KiB: they evaluate too. */
        bool known = rt_eval(x->k, x->l, t->shared_offset, &x->off[i]) &&
                     rt_eval(x->k, x->l, t->shared_size, &x->size[i]);
        err_assert(&x->k->err, known);
        if (!known)
            return false;
        x->off[i] += shared_base;
    }
    /* rt_bind refused more than 227 KiB of shared memory (lower_check_smem), and tensor
       memory is at most 512 columns of 128 lanes: far below the bound. */
    bool fits = !__builtin_add_overflow(shared_base, x->l->smem_bytes, &x->block_bytes) &&
                x->block_bytes <= IX_MAX_BLOCK_BYTES;
    err_assert(&x->k->err, fits);
    return fits;
}

static bool alloc_tensors(ix_exec *x) {
    const it_program *p = x->p;
    int n = p->ntensors + 1;
    x->local = heap_calloc((size_t)n, sizeof *x->local);
    x->lwritten = heap_calloc((size_t)n, sizeof *x->lwritten);
    x->gdata = heap_calloc((size_t)n, sizeof *x->gdata);
    x->gelems = heap_calloc((size_t)n, sizeof *x->gelems);
    x->gwritten = heap_calloc((size_t)n, sizeof *x->gwritten);
    x->off = heap_calloc((size_t)n, sizeof *x->off);
    x->size = heap_calloc((size_t)n, sizeof *x->size);
    if (!x->local || !x->lwritten || !x->gdata || !x->gelems || !x->gwritten || !x->off || !x->size)
        return false;
    for (int i = 0; i < p->ntensors; i++) {
        const it_tensor *t = &p->tensors[i];
        if (t->space == IT_GLOBAL_T) {
            x->gdata[i] = x->l->buf[t->param]->data;
            x->gelems[i] = addressable(x->l, t->param);
            /* rt_bind refused a buffer spanning more than 2^63 bytes (launch.c, layout), so
               its reach in elements fits. */
            err_assert(&x->k->err, x->gelems[i] >= 0);
            if (x->gelems[i] < 0)
                return false;
            if (x->k->params[t->param].is_output && !track_writes(x, i, t->param))
                return false;
        } else if (t->space == IT_LOCAL_T) {
            int64_t cells, bytes;
            /* At most 1024 threads, and wf_compile refused a local array past CUDA's
               local-memory limit per thread (lower/launch.c): this cannot overflow. */
            bool fits = !__builtin_mul_overflow((int64_t)x->nthreads, t->size, &cells) &&
                        !__builtin_mul_overflow(cells, (int64_t)wf_dtype_size(t->dtype), &bytes);
            err_assert(&x->k->err, fits);
            if (!fits)
                return false;
            x->local[i] = heap_calloc((size_t)cells, wf_dtype_size(t->dtype));
            x->lwritten[i] = heap_calloc((size_t)cells, 1);
            if (!x->local[i] || !x->lwritten[i])
                return false;
        }
    }
    return true;
}

/* The tensors' views (ix_view), once the memory is placed and allocated. */
static bool make_views(ix_exec *x) {
    const it_program *p = x->p;
    x->view = heap_calloc((size_t)p->ntensors + 1, sizeof *x->view);
    if (!x->view)
        return false;
    for (int i = 0; i < p->ntensors; i++) {
        const it_tensor *t = &p->tensors[i];
        ix_view *v = &x->view[i];
        v->space = t->space;
        v->dtype = t->dtype;
        v->es = (int)wf_dtype_size(t->dtype);
        v->size = x->size[i];
        v->off = x->off[i];
        v->lwritten = x->lwritten[i];
        v->gwritten = x->gwritten[i];
        v->gw = x->gw[i];
        v->gr = x->gr[i];
        v->data = t->space == IT_GLOBAL_T  ? x->gdata[i]
                  : t->space == IT_LOCAL_T ? x->local[i]
                                           : x->smem + x->off[i];
    }
    return true;
}

static bool alloc_block(ix_exec *x) {
    int T = x->nthreads;
    size_t smem = (size_t)x->block_bytes + 1;
    for (int d = 0; d < 3; d++)
        if (!(x->tid[d] = heap_malloc(sizeof(int64_t) * (size_t)T)))
            return false;
    x->loopv = heap_calloc((size_t)x->p->nloops + 1, sizeof(int64_t));
    x->symv = heap_calloc((size_t)x->p->nsyms + 1, sizeof(int64_t));
    x->regs = heap_malloc(sizeof(int64_t) * (size_t)T * (size_t)(x->p->max_regs + 1));
    x->regp = heap_calloc((size_t)x->p->max_regs + 1, sizeof *x->regp);
    x->cache = heap_malloc(sizeof(int64_t) * (size_t)T * (size_t)(x->p->ncache + 1));
    x->cache_gen = heap_calloc((size_t)x->p->ncache + 1, sizeof *x->cache_gen);
    x->gen = 1; /* generation 0: a slot never computed */
    x->mask = heap_malloc((size_t)T);
    x->masks = heap_malloc((size_t)T * (size_t)(x->p->max_if_depth + 1));
    x->saved = heap_malloc(sizeof(int64_t) * (size_t)T * IR_MAX_OP_INPUTS);
    /* One warp access touches at most bytes / 4 + 1 words (or sectors) per lane. */
    x->nunits = 32 * (int)(x->p->max_access_bytes / 4 + 2);
    x->units = heap_malloc(sizeof(int64_t) * (size_t)x->nunits);
    x->words = heap_malloc(sizeof(int64_t) * (size_t)x->nunits);
    x->addr = heap_malloc(sizeof(int64_t) * (size_t)T);
    x->rwork = heap_malloc(sizeof *x->rwork * 2 * (size_t)T);
    x->rindex = heap_malloc(sizeof *x->rindex * 5 * (size_t)T);
    x->smem = heap_malloc(smem);
    x->sshadow = heap_malloc(sizeof(ix_cell) * smem);
    return x->loopv && x->symv && x->regs && x->regp && x->cache && x->cache_gen && x->mask &&
           x->masks && x->saved && x->units && x->words && x->addr && x->rwork && x->rindex &&
           x->smem && x->sshadow && make_views(x);
}

static bool bind_symbols(ix_exec *x) {
    for (int i = 0; i < x->p->nsyms; i++)
        if (!rt_eval(x->k, x->l, x->p->syms[i], &x->symv[i])) {
            /* A symbol is the size or stride of a parameter, which rt_bind bound. */
            err_assert(&x->k->err, !"a size or stride symbol of no parameter");
            return false;
        }
    return true;
}

static void set_thread_ids(ix_exec *x) {
    int t = 0;
    for (int64_t z = 0; z < x->l->block[2]; z++)
        for (int64_t y = 0; y < x->l->block[1]; y++)
            for (int64_t w = 0; w < x->l->block[0]; w++, t++) {
                x->tid[0][t] = w;
                x->tid[1][t] = y;
                x->tid[2][t] = z;
            }
}

bool ix_exec_init(ix_exec *x, wf_kernel *k, const rt_launch *l) {
    memset(x, 0, sizeof *x);
    x->k = k;
    x->p = k->interp;
    x->l = l;
    x->nthreads = (int)(l->block[0] * l->block[1] * l->block[2]); /* 1..1024: rt_bind */
    memset(x->p->stats, 0, sizeof(it_stats) * (size_t)(x->p->nstmts + 1));
    if (!alloc_tensors(x)) {
        ix_exec_free(x);
        return err_failb(&k->err, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    }
    if (!alloc_hazards(x)) {
        ix_exec_free(x);
        return err_failb(&k->err, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    }
    if (!place_tensors(x)) {
        ix_exec_free(x);
        return false;
    }
    if (!alloc_block(x)) {
        ix_exec_free(x);
        return err_failb(&k->err, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    }
    set_thread_ids(x);
    if (!bind_symbols(x)) {
        ix_exec_free(x);
        return false;
    }
    return true;
}

void ix_exec_free(ix_exec *x) {
    /* Any of these arrays may be missing after a failed ix_exec_init. */
    for (int i = 0; x->local && i < x->p->ntensors; i++)
        free(x->local[i]);
    for (int i = 0; x->lwritten && i < x->p->ntensors; i++)
        free(x->lwritten[i]);
    for (int i = 0; x->gwritten && i < x->p->ntensors; i++)
        free(x->gwritten[i]);
    free(x->gwritten);
    for (int i = 0; x->gw && i < x->p->ntensors; i++)
        free(x->gw[i]);
    for (int i = 0; x->gr && i < x->p->ntensors; i++)
        free(x->gr[i]);
    free(x->gw);
    free(x->gr);
    free(x->view);
    free(x->stamped.epoch);
    free(x->stamped.blin);
    for (int d = 0; d < 3; d++)
        free(x->tid[d]);
    free(x->local);
    free(x->lwritten);
    free(x->gdata);
    free(x->gelems);
    free(x->off);
    free(x->size);
    free(x->loopv);
    free(x->symv);
    free(x->regs);
    free(x->regp);
    free(x->cache);
    free(x->cache_gen);
    free(x->mask);
    free(x->masks);
    free(x->saved);
    free(x->units);
    free(x->words);
    free(x->addr);
    free(x->rwork);
    free(x->rindex);
    free(x->smem);
    free(x->sshadow);
    memset(x, 0, sizeof *x);
}

void ix_block_reset(ix_exec *x) {
    size_t n = (size_t)x->block_bytes + 1;
    for (size_t i = 0; i < n; i++)
        x->sshadow[i] = (ix_cell){-1, -1, 0, 0, 0};
    x->epoch = 1;
    x->gepoch++;
    x->bepoch = x->gepoch;
    x->gen++; /* the cached block-invariant values are stale */
}

bool ix_alloc(ix_exec *x, int tensor) {
    const it_tensor *t = &x->p->tensors[tensor];
    if (t->space == IT_LOCAL_T)
        memset(x->lwritten[tensor], 0, (size_t)x->nthreads * (size_t)t->size);
    return true;
}

/* The first element, in row-major logical order, of output tensor i that no
   thread wrote: -1 if none. idx gets its multi-index. */
static int64_t first_unwritten(const ix_exec *x, int i, int64_t *idx) {
    int param = x->p->tensors[i].param, nd = x->l->buf[param]->ndim;
    const int64_t *shape = x->l->shape[param], *stride = x->l->stride[param];
    int64_t n = 1;
    bool dense = true; /* row-major without gaps: logical order is memory order */
    for (int d = nd - 1; d >= 0; d--) {
        dense = dense && (shape[d] == 1 || stride[d] == n);
        n *= shape[d]; /* rt_bind checked the sizes */
    }
    int64_t from = 0;
    if (dense) { /* the flags of all n elements in order: start at the first zero */
        const uint8_t *z = memchr(x->gwritten[i], 0, (size_t)n);
        if (!z)
            return -1;
        from = z - x->gwritten[i];
    }
    for (int64_t lin = from; lin < n; lin++) {
        int64_t rest = lin, off = 0;
        for (int d = nd - 1; d >= 0; d--) {
            idx[d] = rest % shape[d];
            rest /= shape[d];
            off += idx[d] * stride[d];
        }
        if (!x->gwritten[i][off])
            return lin;
    }
    return -1;
}

bool ix_check_outputs(ix_exec *x) {
    for (int i = 0; i < x->p->ntensors; i++) {
        int64_t idx[WF_MAX_RANK] = {0};
        if (!x->gwritten[i] || first_unwritten(x, i, idx) < 0)
            continue;
        char at[WF_MAX_RANK * 24 + 4] = "[";
        int nd = x->l->buf[x->p->tensors[i].param]->ndim;
        for (int d = 0; d < nd; d++)
            snprintf(at + strlen(at), sizeof at - strlen(at), "%s%lld", d ? ", " : "",
                     (long long)idx[d]);
        snprintf(at + strlen(at), sizeof at - strlen(at), "]");
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "output T%d: element %s was never written by any thread; the launch or "
                       "the predicates do not cover the tensor (check the parallelized axes "
                       "and the extents of its loop domain)",
                       x->p->tensors[i].tv, nd ? at : "[] (the scalar)");
    }
    return true;
}
