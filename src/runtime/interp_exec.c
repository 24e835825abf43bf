/*
 * interp_exec.c -- running an interpreter program: the CPU reference executor.
 *
 * Blocks run one after another; the threads of a block run in lockstep under
 * an active mask. A serial loop runs its body once per iteration for all
 * active threads; an IF narrows the mask; a SYNC ends a barrier epoch. Each
 * statement evaluates its index programs for the whole block, then performs
 * the element operation thread by thread, checking every access and
 * gathering per-warp access statistics. Every node executed counts against
 * the launch's work budget (see "the work budget" below), checked up front
 * from the loop extents and again as the kernel runs.
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

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
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
        return ix_fail(x, WF_ERR_SCHEDULE, "a loop extent divides by zero or overflows int64");
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
        return ix_fail(x, WF_ERR_SCHEDULE, "a predicate divides by zero or overflows int64");
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

/* Global cells pack an epoch with a thread (ix_stamp): 2^48 epochs, far more
   than a launch within any budget that finishes in a lifetime reaches. */
static bool epochs_fit(ix_exec *x) {
    err_assert(&x->k->err, x->gepoch < IX_MAX_EPOCH);
    return x->gepoch < IX_MAX_EPOCH;
}

static bool run_sync(ix_exec *x) {
    for (int t = 0; t < x->nthreads; t++)
        if (!x->mask[t])
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "__syncthreads() is reached by only some threads of block (%lld, "
                           "%lld, %lld)",
                           (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2]);
    x->epoch++;
    x->gepoch++;
    return epochs_fit(x);
}

static bool over_budget(ix_exec *x);

static bool run_node(ix_exec *x, const in_node *n) {
    if (x->budget - x->work < x->nthreads)
        return over_budget(x);
    x->work += x->nthreads;
    switch (n->kind) {
    case IN_FOR:
        return run_for(x, n);
    case IN_IF:
        return run_if(x, n);
    case IN_ALLOC:
        return n->view || ix_alloc(x, n->tensor);
    case IN_STMT:
        if (n->view) /* a wgmma operand's view: the instruction reads the tile */
            return true;
        return n->mma                ? ix_mma_stmt(x, n)
               : n->red != KRED_NONE ? ix_reduce_stmt(x, n)
                                     : ix_copy_execute(x, n);
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

/* ---- the work budget ---- */

/* A kernel's work is its statement executions: a statement, a loop
   iteration's body step or a predicate, for one thread (the executor runs
   every node for all threads of a block, so a block of T threads counts T).
   A launch may take at most the budget: the default is some minutes of CPU,
   far beyond any test, but a split by 2^40 makes a loop that would run for
   days. WF_INTERP_BUDGET (a positive decimal count) overrides it, read once
   per process; a bad value fails every executor run with its message. */
#define IX_DEFAULT_BUDGET ((int64_t)1 << 34)

static struct {
    int64_t budget;
    char bad[64]; /* the bad value, or "" */
} env_budget;
static pthread_once_t budget_once = PTHREAD_ONCE_INIT;

bool rt_interp_parse_budget(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = s ? strtoll(s, &end, 10) : 0;
    if (!s || end == s || *end || errno || v <= 0)
        return false;
    *out = v;
    return true;
}

static void read_budget(void) {
    const char *s = getenv("WF_INTERP_BUDGET");
    env_budget.budget = IX_DEFAULT_BUDGET;
    if (s && !rt_interp_parse_budget(s, &env_budget.budget))
        snprintf(env_budget.bad, sizeof env_budget.bad, "%s", s);
}

static int64_t sat_mul(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/* An extent fixed for the whole launch (constants and size symbols only). */
static bool launch_constant(ix_exec *x, const ix_expr *e, int64_t *v) {
    for (int i = 0; i < e->n; i++)
        if (e->ins[i].op == IX_LOOP || e->ins[i].op == IX_TID || e->ins[i].op == IX_BID)
            return false;
    const int64_t *r;
    bool vary;
    if (!ix_eval(x, e, &r, &vary) || vary)
        return false;
    *v = r[0];
    return true;
}

/* Statement executions of n for one thread, every predicate taken as true;
   a loop whose extent depends on a loop or thread counts one iteration (the
   run-time count catches it). */
static int64_t work_of(ix_exec *x, const in_node *n) {
    int64_t body = 0, extent = 1;
    for (int i = 0; i < n->nkids; i++)
        body = sat_add(body, work_of(x, n->kids[i]));
    if (n->kind == IN_FOR && n->serial && !(launch_constant(x, &n->extent, &extent) && extent >= 0))
        extent = 1;
    return sat_add(1, sat_mul(extent, body));
}

static bool refuse(ix_exec *x, int64_t would, bool more) {
    return ix_fail(x, WF_ERR_UNSUPPORTED,
                   "the CPU reference executor stops after %lld statement executions (a "
                   "statement, loop step or predicate for one thread; WF_INTERP_BUDGET sets "
                   "the limit); this kernel would run %s%lld: check its split factors and loop "
                   "extents (a split by a huge factor makes a loop of that many iterations)",
                   (long long)x->budget, more || would == INT64_MAX ? "more than " : "",
                   (long long)would);
}

static bool over_budget(ix_exec *x) {
    return refuse(x, x->budget, true);
}

/* The budget of this launch, and the whole launch's work checked against it
   up front, so a hopeless kernel is refused at once. */
static bool check_budget(ix_exec *x) {
    pthread_once(&budget_once, read_budget);
    if (env_budget.bad[0])
        return ix_fail(x, WF_ERR_ARG,
                       "WF_INTERP_BUDGET=%s is not a positive decimal count of statement "
                       "executions",
                       env_budget.bad);
    x->budget = x->p->budget > 0 ? x->p->budget : env_budget.budget;
    const int64_t *g = x->l->grid;
    int64_t per_thread = work_of(x, x->p->root) - 1; /* the root is a list, not a node */
    int64_t would = sat_mul(sat_mul(sat_mul(g[0], g[1]), g[2]), sat_mul(per_thread, x->nthreads));
    return would <= x->budget || refuse(x, would, false);
}

/* ---- blocks and the launch ---- */

static bool run_blocks(ix_exec *x) {
    const rt_launch *l = x->l;
    if (!check_budget(x))
        return false;
    x->blin = -1;
    for (int64_t z = 0; z < l->grid[2]; z++)
        for (int64_t y = 0; y < l->grid[1]; y++)
            for (int64_t w = 0; w < l->grid[0]; w++) {
                x->bid[0] = w;
                x->bid[1] = y;
                x->bid[2] = z;
                x->blin++;
                ix_block_reset(x);
                memset(x->mask, 1, (size_t)x->nthreads);
                if (!epochs_fit(x) || !run_list(x, x->p->root) || !ix_hw_block_end(x) ||
                    !ix_wgmma_block_end(x))
                    return false;
            }
    return true;
}

wf_status rt_interp_run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout) {
    rt_launch l;
    err_assert(&k->err, k->interp); /* wf_compile builds it for every kernel */
    if (!k->interp)
        return k->err.code;
    k->interp->ran = false;
    if (rt_bind(k, in, nin, out, nout, &l) != WF_OK)
        return k->err.code;
    for (int i = 0; i < k->nparams; i++)
        if (l.buf[i]->device != -1)
            return err_fails(&k->err, WF_ERR_ARG,
                             "the CPU reference executor needs host buffers, but parameter %d "
                             "is on device %d",
                             i, l.buf[i]->device);
    if (l.empty) {
        memset(k->interp->stats, 0, sizeof(it_stats) * (size_t)(k->interp->nstmts + 1));
        k->interp->work = 0;
        k->interp->ran = true; /* a tensor without elements: nothing to run */
        return WF_OK;
    }
    ix_exec x;
    if (!ix_exec_init(&x, k, &l))
        return k->err.code ? k->err.code : err_fails(&k->err, WF_ERR_MEMORY, "out of memory");
    if (run_blocks(&x))
        ix_check_outputs(&x);
    k->interp->work = x.work;
    ix_hw_free(&x);     /* the hardware state (mbarriers) of the run */
    ix_reduce_free(&x); /* the grid reductions' work buffer */
    ix_wgmma_free(&x);  /* the wgmma groups' cell lists */
    ix_exec_free(&x);
    k->interp->ran = k->err.code == WF_OK;
    return k->err.code;
}
