/*
 * run.c -- public entry points for running kernels.
 *
 * The CUDA runtime and the CPU reference executor are separate issues; until
 * they land, wf_run says so with WF_ERR_UNSUPPORTED rather than pretending.
 */
#include "api/api.h"
#include "base/dl.h"

#include <stdio.h>
#include <string.h>

wf_status wf_run(wf_kernel *k, wf_backend b, const wf_buffer *in, int nin, wf_buffer *out,
                 int nout)
{
    (void)in;
    (void)nin;
    (void)out;
    (void)nout;
    if (!k)
        return WF_ERR_ARG;
    err_clear(&k->err);
    wf_fail(&k->err, WF_ERR_UNSUPPORTED, "wf_run: the %s backend is not available in this build",
            b == WF_BACKEND_INTERP ? "CPU reference executor" : "CUDA");
    return k->err.code;
}

const char *wf_last_run_error(const wf_kernel *k)
{
    return k ? k->err.msg : "no kernel (NULL)";
}

bool wf_cuda_available(void)
{
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    char err[256];
    void *h = dl_open_cuda_lib(names, 2, err, sizeof err);
    if (!h)
        return false;
    typedef int (*init_fn)(unsigned);
    typedef int (*count_fn)(int *);
    void *pi = dl_sym(h, "cuInit"), *pc = dl_sym(h, "cuDeviceGetCount");
    init_fn init;
    count_fn count;
    int n = 0;
    bool ok = pi && pc;
    if (ok) {
        memcpy(&init, &pi, sizeof init);
        memcpy(&count, &pc, sizeof count);
        ok = init(0) == 0 && count(&n) == 0 && n > 0;
    }
    dl_close(h);
    return ok;
}

wf_status wf_interp_stats(const wf_kernel *k, wf_access_stats *out)
{
    if (!k || !out)
        return WF_ERR_ARG;
    memset(out, 0, sizeof *out);
    return WF_ERR_UNSUPPORTED;
}

void wf_interp_report(const wf_kernel *k, FILE *out)
{
    if (k && out)
        fputs("no executor statistics: the CPU reference executor is not in this build\n", out);
}
