/*
 * run.c -- public entry points for running kernels.
 *
 * WF_BACKEND_CUDA runs on the GPU (runtime/cuda.c), WF_BACKEND_INTERP on the
 * CPU reference executor (runtime/interp*.c), and WF_BACKEND_AUTO on the GPU
 * when the driver finds one, else on the executor. The GPU utilities (timing
 * and device memory for tests and benchmarks) delegate to runtime/cuda.c.
 */
#include "api/api.h"
#include "runtime/interp.h"

#include <stdio.h>
#include <string.h>

/* The buffer arrays against their counts: a NULL array with a nonzero count,
   or a negative count, is named as such (the count check comes later). */
static wf_status check_arrays(wf_kernel *k, const char *what, const wf_buffer *in, int nin,
                              const wf_buffer *out, int nout) {
    if (nin < 0 || nout < 0)
        return err_fails(&k->err, WF_ERR_ARG, "%s: negative buffer count (nin = %d, nout = %d)",
                         what, nin, nout);
    if (nin > 0 && !in)
        return err_fails(&k->err, WF_ERR_ARG,
                         "%s: the input array is NULL but nin is %d; pass an array of %d input "
                         "buffer%s (the kernel takes %d)",
                         what, nin, nin, nin == 1 ? "" : "s", k->ninputs);
    if (nout > 0 && !out)
        return err_fails(&k->err, WF_ERR_ARG,
                         "%s: the output array is NULL but nout is %d; pass an array of %d output "
                         "buffer%s (the kernel takes %d)",
                         what, nout, nout, nout == 1 ? "" : "s", k->noutputs);
    return WF_OK;
}

wf_status wf_run(wf_kernel *k, wf_backend b, const wf_buffer *in, int nin, wf_buffer *out,
                 int nout) {
    if (!k)
        return WF_ERR_ARG;
    err_clear(&k->err);
    if (check_arrays(k, "wf_run", in, nin, out, nout) != WF_OK)
        return k->err.code;
    switch (b) {
    case WF_BACKEND_CUDA:
        return rt_cuda_run(k, in, nin, out, nout);
    case WF_BACKEND_INTERP:
        return rt_interp_run(k, in, nin, out, nout);
    case WF_BACKEND_AUTO:
        /* A kernel with CUDA state has run on the GPU before: skip the probe. */
        if (k->cuda || rt_cuda_available())
            return rt_cuda_run(k, in, nin, out, nout);
        return rt_interp_run(k, in, nin, out, nout);
    }
    return err_fails(&k->err, WF_ERR_ARG, "wf_run: unknown backend %d", (int)b);
}

const char *wf_last_run_error(const wf_kernel *k) {
    return k ? k->err.msg : "no kernel (NULL)";
}

bool wf_cuda_available(void) {
    return rt_cuda_available();
}

wf_status wf_time(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout, int warmup,
                  int reps, double *median_us) {
    if (!k)
        return WF_ERR_ARG;
    err_clear(&k->err);
    if (warmup < 0 || reps <= 0 || !median_us)
        return err_fails(&k->err, WF_ERR_ARG,
                         "wf_time: need warmup >= 0, reps > 0 and a result pointer (got warmup "
                         "%d, reps %d, %s)",
                         warmup, reps, median_us ? "a result pointer" : "a NULL result pointer");
    if (check_arrays(k, "wf_time", in, nin, out, nout) != WF_OK)
        return k->err.code;
    return rt_cuda_time(k, in, nin, out, nout, warmup, reps, median_us);
}

void *wf_device_alloc(size_t bytes) {
    return rt_cuda_mem_alloc(bytes);
}

void wf_device_free(void *p) {
    rt_cuda_mem_free(p);
}

wf_status wf_device_copy(void *dst, const void *src, size_t bytes) {
    if (bytes == 0)
        return WF_OK;
    if (!dst || !src)
        return WF_ERR_ARG;
    return rt_cuda_mem_copy(dst, src, bytes);
}

wf_status wf_device_memcpy_time(void *dst, const void *src, size_t bytes, int warmup, int reps,
                                double *median_us) {
    if (!dst || !src || bytes == 0 || warmup < 0 || reps <= 0 || !median_us)
        return WF_ERR_ARG;
    return rt_cuda_mem_copy_time(dst, src, bytes, warmup, reps, median_us);
}
