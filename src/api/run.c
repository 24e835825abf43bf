/*
 * run.c -- public entry points for running kernels.
 *
 * WF_BACKEND_INTERP runs the CPU reference executor (runtime/interp*.c).
 */
#include "api/api.h"
#include "base/dl.h"
#include "runtime/interp.h"

#include <stdio.h>
#include <string.h>

wf_status wf_run(wf_kernel *k, wf_backend b, const wf_buffer *in, int nin, wf_buffer *out,
                 int nout)
{
    if (!k)
        return WF_ERR_ARG;
    err_clear(&k->err);
    if (b == WF_BACKEND_INTERP)
        return rt_interp_run(k, in, nin, out, nout);
    wf_fail(&k->err, WF_ERR_UNSUPPORTED, "wf_run: the CUDA backend is not available in this build");
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
