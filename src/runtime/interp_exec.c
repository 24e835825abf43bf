/*
 * interp_exec.c -- running an interpreter program: the CPU reference executor.
 *
 * Blocks run one after another; the threads of a block run in lockstep under
 * an active mask. A serial loop runs its body once per iteration for all
 * active threads; an IF narrows the mask; a SYNC ends a barrier epoch. Each
 * statement evaluates its index programs for the whole block, then performs
 * the element operation thread by thread, checking every access (memcheck.c)
 * and gathering per-warp access statistics. Values are computed in the type
 * the CUDA code computes in (float for 16- and 32-bit floats, double, or
 * 64-bit integers) so results match the GPU's bit for bit where the
 * operations are exact.
 */
#include "runtime/interp_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- expressions, for all threads of the block ---- */

static int64_t leaf(const ix_exec *x, const ix_ins *in, int t) {
    switch (in->op) {
    case IX_CONST:
        return in->c;
    case IX_LOOP:
        return x->loopv[in->a];
    case IX_TID:
        return x->tid[in->a][t];
    case IX_BID:
        return x->bid[in->a];
    default:
        return x->symv[in->a];
    }
}

/* Evaluates e; returns the register array of the result (length T, or 1 if
   uniform: *vary says which). False on a division by zero. */
bool ix_eval(ix_exec *x, const ix_expr *e, const int64_t **res, bool *vary) {
    int T = x->nthreads;
    for (int i = 0; i < e->n; i++) {
        const ix_ins *in = &e->ins[i];
        int64_t *r = x->regs + (size_t)i * (size_t)T;
        int n = in->vary ? T : 1;
        if (in->op <= IX_SYM) {
            for (int t = 0; t < n; t++)
                r[t] = leaf(x, in, t);
            continue;
        }
        const int64_t *a = x->regs + (size_t)in->a * (size_t)T;
        const int64_t *b = x->regs + (size_t)in->b * (size_t)T;
        bool va = e->ins[in->a].vary, vb = e->ins[in->b].vary;
        for (int t = 0; t < n; t++)
            if (!val_apply((val_kind)in->kind, a[va ? t : 0], b[vb ? t : 0], &r[t]))
                return false;
    }
    *res = x->regs + (size_t)(e->n - 1) * (size_t)T;
    *vary = e->ins[e->n - 1].vary;
    return true;
}

/* ---- the tree ---- */

static bool run_list(ix_exec *x, const in_node *n);

static bool run_for(ix_exec *x, const in_node *n) {
    if (!n->serial) {
        if (n->slot >= 0)
            x->loopv[n->slot] = 0;
        return run_list(x, n);
    }
    const int64_t *ext;
    bool vary;
    if (!ix_eval(x, &n->extent, &ext, &vary))
        return ix_fail(x, "a loop extent divides by zero");
    int64_t extent = ext[0]; /* the register file is reused by the body */
    for (int64_t i = 0; i < extent; i++) {
        x->loopv[n->slot] = i;
        if (!run_list(x, n))
            return false;
    }
    return true;
}

static bool run_if(ix_exec *x, const in_node *n) {
    const int64_t *c;
    bool vary;
    if (!ix_eval(x, &n->cond, &c, &vary))
        return ix_fail(x, "a predicate divides by zero");
    int T = x->nthreads;
    uint8_t *saved = malloc((size_t)T);
    if (!saved)
        return ix_fail(x, "out of memory");
    memcpy(saved, x->mask, (size_t)T);
    int active = 0;
    for (int t = 0; t < T; t++) {
        x->mask[t] = x->mask[t] && c[vary ? t : 0];
        active += x->mask[t];
    }
    bool ok = active == 0 || run_list(x, n);
    memcpy(x->mask, saved, (size_t)T);
    free(saved);
    return ok;
}

static bool run_sync(ix_exec *x) {
    for (int t = 0; t < x->nthreads; t++)
        if (!x->mask[t])
            return ix_fail(x,
                           "__syncthreads() is reached by only some threads of block (%lld, "
                           "%lld, %lld)",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2]);
    x->epoch++;
    return true;
}

static bool run_node(ix_exec *x, const in_node *n) {
    switch (n->kind) {
    case IN_FOR:
        return run_for(x, n);
    case IN_IF:
        return run_if(x, n);
    case IN_ALLOC:
        return ix_alloc(x, n->tensor);
    case IN_STMT:
        return ix_stmt(x, n);
    case IN_SYNC:
        return run_sync(x);
    }
    return false;
}

static bool run_list(ix_exec *x, const in_node *n) {
    for (int i = 0; i < n->nkids; i++)
        if (!run_node(x, n->kids[i]))
            return false;
    return true;
}

/* ---- blocks and the launch ---- */

static bool run_blocks(ix_exec *x) {
    const rt_launch *l = x->l;
    for (int64_t z = 0; z < l->grid[2]; z++)
        for (int64_t y = 0; y < l->grid[1]; y++)
            for (int64_t w = 0; w < l->grid[0]; w++) {
                x->bid[0] = w;
                x->bid[1] = y;
                x->bid[2] = z;
                ix_block_reset(x);
                memset(x->mask, 1, (size_t)x->nthreads);
                if (!run_list(x, x->p->root))
                    return false;
            }
    return true;
}

wf_status rt_interp_run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout) {
    rt_launch l;
    if (!k->interp)
        return wf_fails(&k->err, WF_ERR_UNSUPPORTED, "this kernel has no interpreter program");
    if (rt_bind(k, in, nin, out, nout, &l) != WF_OK)
        return k->err.code;
    for (int i = 0; i < k->nparams; i++)
        if (l.buf[i]->device != -1)
            return wf_fails(&k->err, WF_ERR_ARG,
                            "the CPU reference executor needs host buffers, but parameter %d "
                            "is on device %d",
                            i, l.buf[i]->device);
    if (l.empty)
        return WF_OK; /* a tensor without elements: nothing to run */
    ix_exec x;
    if (!ix_exec_init(&x, k, &l))
        return k->err.code ? k->err.code : wf_fails(&k->err, WF_ERR_MEMORY, "out of memory");
    run_blocks(&x);
    ix_exec_free(&x);
    return k->err.code;
}
