/*
 * interp_exec.c -- running an interpreter program: the CPU reference executor.
 *
 * Blocks run one after another; the threads of a block run in lockstep under
 * an active mask. A serial loop runs its body once per iteration for all
 * active threads; an IF narrows the mask; a SYNC ends a barrier epoch. Each
 * statement evaluates its index programs for the whole block, then performs
 * the element operation thread by thread, checking every access and
 * gathering per-warp access statistics.
 *
 * The executor's files depend one way: interp_exec.c (the tree, the launch)
 * -> interp_stmt.c (a statement: accesses and their checks) -> interp_expr.c
 * (index programs), interp_ops.c (op math), interp_stats.c (statistics),
 * interp_mem.c (memory, its checks, errors); none calls back up, and
 * interp_build.c (compile time) uses only interp_ops.c. Values are computed
 * in the type the CUDA code computes in (float for 16- and 32-bit floats,
 * double, or 64-bit integers) so results match the GPU's bit for bit where
 * the operations are exact.
 */
#include "runtime/interp_hw.h"

#include <string.h>

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
        return ix_fail(x, "a loop extent divides by zero or overflows int64");
    int64_t extent = ext[0]; /* the register file is reused by the body */
    for (int64_t i = 0; i < extent; i++) {
        x->loopv[n->slot] = i;
        if (!run_list(x, n))
            return false;
    }
    return true;
}

/* The enclosing mask is saved on the executor's stack (no allocation per IF). */
static bool run_if(ix_exec *x, const in_node *n) {
    const int64_t *c;
    bool vary;
    if (!ix_eval(x, &n->cond, &c, &vary))
        return ix_fail(x, "a predicate divides by zero or overflows int64");
    int T = x->nthreads;
    uint8_t *saved = x->masks + (size_t)x->if_depth * (size_t)T;
    memcpy(saved, x->mask, (size_t)T);
    int active = 0;
    for (int t = 0; t < T; t++) {
        x->mask[t] = x->mask[t] && c[vary ? t : 0];
        active += x->mask[t];
    }
    x->if_depth++;
    bool ok = active == 0 || run_list(x, n);
    x->if_depth--;
    memcpy(x->mask, saved, (size_t)T);
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
        return ix_copy_execute(x, n);
    case IN_SYNC:
        return n->hw ? ix_hw_sync(x, n) : run_sync(x);
    case IN_HW:
        return ix_hw_run(x, n, run_list);
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
    if (run_blocks(&x))
        ix_check_outputs(&x);
    ix_exec_free(&x);
    return k->err.code;
}
