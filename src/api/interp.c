/*
 * interp.c -- public entry points for the CPU reference executor's access
 * statistics (what a profiler would show, computed without a GPU). Their
 * errors go to the kernel's run error (wf_last_run_error), like wf_run's.
 */
#include "api/api.h"
#include "runtime/interp.h"

#include <string.h>

/* The run-error record of a kernel is not part of its logical value (a const
   kernel still reports why a call on it failed), like a C++ mutable member. */
static wf_err *run_err(const wf_kernel *k) {
    return (wf_err *)&k->err;
}

wf_status wf_interp_stats(const wf_kernel *k, wf_access_stats *out) {
    if (!k)
        return WF_ERR_ARG;
    if (!out)
        return err_fails(run_err(k), WF_ERR_ARG, "wf_interp_stats: the result pointer is NULL");
    memset(out, 0, sizeof *out);
    const it_program *p = k->interp;
    err_assert(run_err(k), p); /* wf_compile builds it for every kernel */
    if (!p)
        return k->err.code;
    if (err_set(&k->err)) /* the last run failed: its statistics are partial */
        return k->err.code;
    if (!p->ran)
        return err_fails(run_err(k), WF_ERR_ARG,
                         "wf_interp_stats: the kernel has not run on the executor yet; call "
                         "wf_run(k, WF_BACKEND_INTERP, ...) first");
    out->smem_max_conflict_degree = 1;
    for (int i = 0; i < p->nstmts; i++) {
        const it_stats *s = &p->stats[i];
        out->smem_accesses += s->smem_accesses;
        out->smem_wavefronts += s->smem_wavefronts;
        out->gmem_accesses += s->gmem_accesses;
        out->gmem_sectors += s->gmem_sectors;
        if (s->smem_max_degree > out->smem_max_conflict_degree)
            out->smem_max_conflict_degree = s->smem_max_degree;
    }
    return WF_OK;
}

static void report_node(const in_node *n, const it_program *p, FILE *out) {
    if (n->kind == IN_STMT) {
        const it_stats *s = &p->stats[n->id];
        fprintf(out, "%s\n", n->text);
        if (s->gmem_accesses)
            fprintf(out, "  global: %lld warp accesses, %lld sectors (%.2f per access)\n",
                    (long long)s->gmem_accesses, (long long)s->gmem_sectors,
                    (double)s->gmem_sectors / (double)s->gmem_accesses);
        if (s->smem_accesses)
            fprintf(out, "  shared: %lld warp accesses, %lld wavefronts, worst %d-way conflict\n",
                    (long long)s->smem_accesses, (long long)s->smem_wavefronts, s->smem_max_degree);
    }
    for (int i = 0; i < n->nkids; i++)
        report_node(n->kids[i], p, out);
}

void wf_interp_report(const wf_kernel *k, FILE *out) {
    if (!k || !out)
        return;
    if (!k->interp) {
        fputs("no executor statistics for this kernel\n", out);
        return;
    }
    report_node(k->interp->root, k->interp, out);
    if (k->interp->ran)
        fprintf(out,
                "executed: %lld statement executions (statements, loop steps and predicates, "
                "per thread)\n",
                (long long)k->interp->work);
}
