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

bool ix_fail(ix_exec *x, const char *fmt, ...) {
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return wf_failb(&x->k->err, WF_ERR_SCHEDULE, "%s", msg);
}

static int64_t addressable(const rt_launch *l, int param) {
    int64_t end = 1;
    for (int d = 0; d < l->buf[param]->ndim; d++) {
        if (l->shape[param][d] == 0)
            return 0;
        end += (l->shape[param][d] - 1) * l->stride[param][d];
    }
    return end;
}

/* Where each tensor lives in this launch: shared tiles may be sized by the
   run-time extents. */
static bool place_tensors(ix_exec *x) {
    const it_program *p = x->p;
    int64_t shared_base = (p->tmem_bytes + 15) / 16 * 16;
    for (int i = 0; i < p->ntensors; i++) {
        const it_tensor *t = &p->tensors[i];
        x->off[i] = t->offset;
        x->size[i] = t->space == IT_GLOBAL_T ? x->gelems[i] : t->size;
        if (t->space != IT_SHARED_T)
            continue;
        if (!rt_eval(x->k, x->l, t->shared_offset, &x->off[i]) ||
            !rt_eval(x->k, x->l, t->shared_size, &x->size[i]))
            return wf_failb(&x->k->err, WF_ERR_ARG, "cannot evaluate the size of T%d", t->tv);
        x->off[i] += shared_base;
    }
    x->block_bytes = shared_base + x->l->smem_bytes;
    return true;
}

static bool alloc_tensors(ix_exec *x) {
    const it_program *p = x->p;
    int n = p->ntensors + 1;
    x->local = heap_calloc((size_t)n, sizeof *x->local);
    x->lwritten = heap_calloc((size_t)n, sizeof *x->lwritten);
    x->gdata = heap_calloc((size_t)n, sizeof *x->gdata);
    x->gelems = heap_calloc((size_t)n, sizeof *x->gelems);
    x->off = heap_calloc((size_t)n, sizeof *x->off);
    x->size = heap_calloc((size_t)n, sizeof *x->size);
    if (!x->local || !x->lwritten || !x->gdata || !x->gelems || !x->off || !x->size)
        return false;
    for (int i = 0; i < p->ntensors; i++) {
        const it_tensor *t = &p->tensors[i];
        if (t->space == IT_GLOBAL_T) {
            x->gdata[i] = x->l->buf[t->param]->data;
            x->gelems[i] = addressable(x->l, t->param);
        } else if (t->space == IT_LOCAL_T) {
            size_t cells = (size_t)x->nthreads * (size_t)t->size;
            x->local[i] = heap_calloc(cells, wf_dtype_size(t->dtype));
            x->lwritten[i] = heap_calloc(cells, 1);
            if (!x->local[i] || !x->lwritten[i])
                return false;
        }
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
    x->mask = heap_malloc((size_t)T);
    x->addr = heap_malloc(sizeof(int64_t) * (size_t)T * 16);
    x->smem = heap_malloc(smem);
    x->sshadow = heap_malloc(sizeof(ix_cell) * smem);
    return x->loopv && x->symv && x->regs && x->mask && x->addr && x->smem && x->sshadow;
}

static bool bind_symbols(ix_exec *x) {
    for (int i = 0; i < x->p->nsyms; i++)
        if (!rt_eval(x->k, x->l, x->p->syms[i], &x->symv[i]))
            return wf_failb(&x->k->err, WF_ERR_ARG, "cannot evaluate a size or stride");
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
        return wf_failb(&k->err, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    }
    if (!place_tensors(x)) {
        ix_exec_free(x);
        return false;
    }
    if (!alloc_block(x)) {
        ix_exec_free(x);
        return wf_failb(&k->err, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    }
    set_thread_ids(x);
    if (!bind_symbols(x)) {
        ix_exec_free(x);
        return false;
    }
    return true;
}

void ix_exec_free(ix_exec *x) {
    for (int i = 0; x->local && i < x->p->ntensors; i++) {
        free(x->local[i]);
        free(x->lwritten[i]);
    }
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
    free(x->mask);
    free(x->addr);
    free(x->smem);
    free(x->sshadow);
    memset(x, 0, sizeof *x);
}

void ix_block_reset(ix_exec *x) {
    size_t n = (size_t)x->block_bytes + 1;
    for (size_t i = 0; i < n; i++)
        x->sshadow[i] = (ix_cell){-1, -1, 0, 0, 0};
    x->epoch = 1;
}

bool ix_alloc(ix_exec *x, int tensor) {
    const it_tensor *t = &x->p->tensors[tensor];
    if (t->space == IT_LOCAL_T)
        memset(x->lwritten[tensor], 0, (size_t)x->nthreads * (size_t)t->size);
    return true;
}
