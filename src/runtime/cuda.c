/*
 * cuda.c -- running compiled kernels on the GPU through the CUDA driver API.
 *
 * The driver is opened with dlopen (base/dl.h) into a table of entry points
 * (cuda_int.h). A kernel's first run builds its CUDA state and keeps it in
 * k->cuda until wf_kernel_free: a session on device 0 holding a reference
 * to its primary context, the module loaded from the kernel's image (from
 * the disk cache, cache.c, or else compiled by NVRTC for the device's
 * sm_XXa and stored there), its CUfunction, and the packed arguments that
 * every later run reuses. Each run binds the buffers (rt_bind refuses a
 * mismatch before anything reaches the GPU), packs one Tensor<T, N> per
 * parameter (8-byte data pointer, N int64 sizes, N int64 strides, as the
 * prelude in codegen/prelude.c declares it) and launches on the default
 * stream. Device buffers are used in place and the launch is asynchronous,
 * so the hot path is two driver calls and no allocation (and a run with the
 * same device buffers as the last one skips the binding and packing too:
 * same_run); host buffers are
 * copied to the device and back around a synchronous launch. Nothing here
 * keeps global state: the library handle is per session, and dl.c's
 * RTLD_NODELETE makes reopening it a reference-count bump. One kernel must
 * not run on two threads at once (its packed arguments are reused).
 */
#include "runtime/cuda_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"
#include "runtime/param.h"
#include "runtime/nvrtc.h"

/* Tensor<T, WF_MAX_RANK>: a pointer, WF_MAX_RANK sizes and as many strides. */
#define MAX_ARG_BYTES (8 + 2 * 8 * WF_MAX_RANK)
#define SMEM_DEFAULT  (48 * 1024) /* dynamic shared memory allowed without opting in */

/* ---- the driver ---- */

static const char *const cuda_sonames[] = {"libcuda.so.1", "libcuda.so"};

typedef struct {
    const char *sym, *alt;
    size_t offset; /* of the field in rt_cu_api */
} cu_symbol;

static const cu_symbol cu_symbols[] = {
#define RT_CU_ENTRY(name, sym, alt, params) {sym, alt, offsetof(rt_cu_api, name)},
    RT_CU_API(RT_CU_ENTRY)
#undef RT_CU_ENTRY
};

/* dlsym hands back an object pointer; copy its bits into the function
   pointer field, which POSIX guarantees works (nvrtc.c does the same). */
static bool load_api(rt_cu_api *api, wf_err *e) {
    char err[512];
    memset(api, 0, sizeof *api);
    api->lib = dl_open_cuda_lib(cuda_sonames, 2, err, sizeof err);
    if (!api->lib)
        return err_failb(e, WF_ERR_CUDA, "CUDA driver not found: %s", err);
    for (size_t i = 0; i < sizeof cu_symbols / sizeof cu_symbols[0]; i++) {
        const cu_symbol *s = &cu_symbols[i];
        void *p = dl_sym(api->lib, s->sym);
        if (!p && s->alt)
            p = dl_sym(api->lib, s->alt);
        if (!p) {
            dl_close(api->lib);
            api->lib = NULL;
            return err_failb(e, WF_ERR_CUDA, "the CUDA driver (libcuda) lacks %s: it is too old",
                             s->sym);
        }
        memcpy((char *)api + s->offset, &p, sizeof p);
    }
    return true;
}

bool rt_cu_check(const rt_cu_api *api, wf_err *e, cu_result r, const char *call, const char *file,
                 int line) {
    const char *name = NULL, *text = NULL;
    if (r == 0)
        return true;
    if (api->cuGetErrorName(r, &name) != 0 || !name)
        name = "an unknown CUDA error";
    if (api->cuGetErrorString(r, &text) != 0 || !text)
        text = "no description";
    return err_failb(e, WF_ERR_CUDA, "%s failed: %s (%d: %s) at %s:%d", call, name, r, text, file,
                     line);
}

/* cuInit, then device 0: its name and compute capability. A machine with
   no GPU answers cuInit with CUDA_ERROR_NO_DEVICE; say that plainly. */
static bool find_device(rt_cu *c, wf_err *e) {
    int n = 0, major = 0, minor = 0;
    cu_result r = c->api.cuInit(0);
    if (r == CU_ERR_NO_DEVICE)
        return err_failb(e, WF_ERR_CUDA,
                         "no CUDA device: the driver found no GPU (cuInit: CUDA_ERROR_NO_DEVICE)");
    if (!rt_cu_check(&c->api, e, r, "cuInit(0)", __FILE__, __LINE__) ||
        !CU_TRY(c, e, cuDeviceGetCount(&n)))
        return false;
    if (n == 0)
        return err_failb(e, WF_ERR_CUDA, "no CUDA device: the driver reports 0 devices");
    if (!CU_TRY(c, e, cuDeviceGet(&c->dev, 0)) ||
        !CU_TRY(c, e, cuDeviceGetName(c->name, (int)sizeof c->name, c->dev)) ||
        !CU_TRY(c, e, cuDeviceGetAttribute(&major, CU_ATTR_CC_MAJOR, c->dev)) ||
        !CU_TRY(c, e, cuDeviceGetAttribute(&minor, CU_ATTR_CC_MINOR, c->dev)))
        return false;
    c->sm = 10 * major + minor;
    return true;
}

bool rt_cu_open_driver(rt_cu *c, wf_err *e) {
    memset(c, 0, sizeof *c);
    if (!load_api(&c->api, e))
        return false;
    if (find_device(c, e))
        return true;
    rt_cu_close(c);
    return false;
}

bool rt_cu_open(rt_cu *c, wf_err *e) {
    if (!rt_cu_open_driver(c, e))
        return false;
    if (CU_TRY(c, e, cuDevicePrimaryCtxRetain(&c->ctx, c->dev)) &&
        CU_TRY(c, e, cuCtxSetCurrent(c->ctx)))
        return true;
    rt_cu_close(c);
    return false;
}

/* Teardown cannot report: a failure here has no caller to tell, and the
   driver reclaims everything at exit anyway. */
void rt_cu_close(rt_cu *c) {
    if (c->ctx)
        (void)c->api.cuDevicePrimaryCtxRelease(c->dev);
    dl_close(c->api.lib);
    memset(c, 0, sizeof *c);
}

/* ---- a kernel's CUDA state ---- */

typedef struct {
    rt_cu cu;
    cu_module mod;
    cu_function fn;
    int sm;    /* the target the image was built for */
    bool sync; /* WF_CUDA_SYNC: wait after each launch */
    /* Per parameter (k->nparams of each, allocated with the state): */
    void **args;                         /* kernelParams: args[i] = arg[i], fixed */
    unsigned char (*arg)[MAX_ARG_BYTES]; /* the packed Tensor<T, N> */
    cu_ptr *staged;                      /* device copies of host buffers, in a run */
    int64_t smem_allowed;                /* dynamic shared memory opted in so far */
    /* The last run on device buffers: its buffers (ninputs + noutputs) and
       launch. A run with the same buffers launches at once (same_run). */
    wf_buffer *last;
    rt_launch last_launch;
    bool last_ok;
} cuda_state;

/* The kernel's own sm when wf_compile was given one, else the device's. An
   sm_XXa image runs only on exactly that SM, so a mismatch cannot load. */
static bool pick_target(wf_kernel *k, cuda_state *s) {
    s->sm = k->sm_explicit ? k->sm : s->cu.sm;
    if (s->sm != s->cu.sm)
        return err_failb(&k->err, WF_ERR_CUDA,
                         "the kernel targets sm_%da (wf_compile_options.sm = %d), but device 0 "
                         "(%s) is sm_%d",
                         k->sm, k->sm, s->cu.name, s->cu.sm);
    return true;
}

/* Compile with NVRTC; the image is the cubin, or NUL-terminated PTX for the
   driver to JIT where this NVRTC cannot emit cubins. */
static bool build_image(wf_kernel *k, int sm, void **data, size_t *size) {
    char msg[sizeof k->err.msg];
    rt_nvrtc_result res;
    wf_status st = rt_nvrtc_compile(k->source, "weft_kernel.cu", sm, &res, msg, sizeof msg);
    if (st == WF_ERR_UNSUPPORTED)
        return err_failb(&k->err, st, "cannot build the kernel for sm_%da: %s", sm, msg);
    if (st != WF_OK)
        return err_failb(&k->err, st, "%s", msg);
    if (res.cubin) {
        *data = res.cubin;
        *size = res.cubin_size;
        res.cubin = NULL;
    } else {
        *data = res.ptx;
        *size = res.ptx_size + 1;
        res.ptx = NULL;
    }
    rt_nvrtc_result_free(&res);
    return true;
}

/* From the disk cache if it holds this exact image, else built and stored. */
static bool get_image(wf_kernel *k, int sm, void **data, size_t *size) {
    char id[4200];
    bool keyed = rt_cache_nvrtc_id(id, sizeof id);
    uint64_t key = keyed ? rt_cache_key(k->source, sm, id) : 0;
    if (keyed && rt_cache_load(key, sm, data, size))
        return true;
    if (!build_image(k, sm, data, size))
        return false;
    if (keyed)
        rt_cache_store(key, sm, *data, *size);
    return true;
}

/* Past 48 KiB of dynamic shared memory a kernel must opt in, up to the
   device's per-block limit. */
static bool allow_smem(wf_kernel *k, cuda_state *s, int64_t smem) {
    rt_cu *c = &s->cu;
    int optin = 0;
    if (smem <= SMEM_DEFAULT || smem <= s->smem_allowed)
        return true;
    if (!CU_TRY(c, &k->err, cuDeviceGetAttribute(&optin, CU_ATTR_SMEM_OPTIN, c->dev)))
        return false;
    if (smem > optin)
        return err_failb(&k->err, WF_ERR_CUDA,
                         "the kernel needs %lld bytes of shared memory, but device 0 (%s) allows "
                         "%d per block",
                         (long long)smem, c->name, optin);
    if (!CU_TRY(c, &k->err, cuFuncSetAttribute(s->fn, CU_FUNC_MAX_DYNAMIC_SMEM, (int)smem)))
        return false;
    s->smem_allowed = smem;
    return true;
}

static bool load_module(wf_kernel *k, cuda_state *s) {
    void *image = NULL;
    size_t size = 0;
    if (!get_image(k, s->sm, &image, &size))
        return false;
    bool ok = CU_TRY(&s->cu, &k->err, cuModuleLoadData(&s->mod, image));
    free(image);
    return ok && CU_TRY(&s->cu, &k->err, cuModuleGetFunction(&s->fn, s->mod, "weft_kernel")) &&
           allow_smem(k, s, k->launch.smem_bytes);
}

static void state_free(cuda_state *s) {
    if (s->mod) {
        /* Unloading needs the module's context current; see rt_cu_close
           on why teardown does not report. */
        (void)s->cu.api.cuCtxSetCurrent(s->cu.ctx);
        (void)s->cu.api.cuModuleUnload(s->mod);
    }
    rt_cu_close(&s->cu);
    free(s->args);
    free(s->arg);
    free(s->staged);
    free(s->last);
    free(s);
}

static bool env_flag(const char *name) {
    const char *v = getenv(name);
    return v && v[0] && strcmp(v, "0") != 0;
}

/* The kernel's CUDA state, built on its first run; NULL with k->err set. */
static cuda_state *ready(wf_kernel *k) {
    if (k->cuda)
        return k->cuda;
    size_t n = (size_t)k->nparams + 1;
    cuda_state *s = calloc(1, sizeof *s);
    if (s) {
        s->args = calloc(n, sizeof *s->args);
        s->arg = calloc(n, sizeof *s->arg);
        s->staged = calloc(n, sizeof *s->staged);
        s->last = calloc((size_t)(k->ninputs + k->noutputs) + 1, sizeof *s->last);
    }
    if (!s || !s->args || !s->arg || !s->staged || !s->last) {
        if (s)
            state_free(s);
        return err_fail(&k->err, WF_ERR_MEMORY, "out of memory for the kernel's CUDA state");
    }
    if (!rt_cu_open(&s->cu, &k->err) || !pick_target(k, s) || !load_module(k, s)) {
        state_free(s);
        return NULL;
    }
    for (int i = 0; i < k->nparams; i++)
        s->args[i] = s->arg[i];
    s->sync = env_flag("WF_CUDA_SYNC");
    k->cuda = s;
    return s;
}

void rt_cuda_release(wf_kernel *k) {
    if (k && k->cuda)
        state_free(k->cuda);
    if (k)
        k->cuda = NULL;
}

/* ---- one launch ---- */

/* Device buffers must be on device 0, the one weft runs on; *host says
   whether any buffer is in host memory and needs staging. */
static bool check_devices(wf_kernel *k, const rt_launch *l, bool *host) {
    *host = false;
    for (int i = 0; i < k->nparams; i++) {
        const rt_param *p = &k->params[i];
        int dev = l->buf[i]->device;
        if (dev > 0)
            return err_failb(&k->err, WF_ERR_UNSUPPORTED,
                             "%s %d: the buffer is on device %d, but weft runs on device 0 only",
                             p->is_output ? "output" : "input", p->index, dev);
        *host |= dev < 0;
    }
    return true;
}

/* The argument bytes by parameter kind (runtime/param.c). */
/* A TMA tensor map (CUtensorMap: 128 bytes, 64-byte aligned), encoded by
   the driver from the buffer's device address (runtime/tma.c has the rest). */
static bool encode_tensor_map(cuda_state *s, wf_kernel *k, const rt_launch *l, int i, cu_ptr data) {
    struct {
        _Alignas(64) unsigned char bytes[128];
    } map;
    rt_tma_args a;
    rt_cu *c = &s->cu;
    memset(&map, 0, sizeof map);
    if (!rt_tma_encode_args(k, l, i, &a) ||
        !CU_TRY(c, &k->err,
                cuTensorMapEncodeTiled(&map, a.dtype, a.rank, (void *)(uintptr_t)data, a.dims,
                                       a.strides, a.box, a.estrides, 0, a.swizzle, 0, 0)))
        return false;
    memcpy(s->arg[i], map.bytes, sizeof map.bytes);
    return true;
}

static bool pack(cuda_state *s, wf_kernel *k, const rt_launch *l, int i, cu_ptr data) {
    if (k->params[i].kind == KP_TENSOR_MAP)
        return encode_tensor_map(s, k, l, i, data);
    rt_param_pack(k, l, i, (uint64_t)data, s->arg[i]);
    return true;
}

static size_t span(const wf_kernel *k, const rt_launch *l, int i, size_t *offset);

/* A tensor map describes the buffer of the tensor parameter of the same
   tensor (they come first): it must see that parameter's device copy. */
static cu_ptr shared_copy(wf_kernel *k, cuda_state *s, const rt_launch *l, int i, cu_ptr d) {
    size_t offset;
    for (int j = 0; j < i && k->params[i].kind == KP_TENSOR_MAP; j++)
        if (k->params[j].tv == k->params[i].tv && k->params[j].kind == KP_TENSOR)
            return s->staged[j] && span(k, l, j, &offset) ? s->staged[j] + offset : d;
    return d;
}

static bool launch(wf_kernel *k, cuda_state *s, const rt_launch *l) {
    rt_cu *c = &s->cu;
    unsigned gx = (unsigned)l->grid[0], gy = (unsigned)l->grid[1], gz = (unsigned)l->grid[2];
    unsigned bx = (unsigned)l->block[0], by = (unsigned)l->block[1], bz = (unsigned)l->block[2];
    unsigned smem = (unsigned)l->smem_bytes; /* symbolic tiles: sized for this launch */
    return allow_smem(k, s, l->smem_bytes) && CU_TRY(c, &k->err, cuCtxSetCurrent(c->ctx)) &&
           CU_TRY(c, &k->err,
                  cuLaunchKernel(s->fn, gx, gy, gz, bx, by, bz, smem, NULL, s->args, NULL)) &&
           (!s->sync || CU_TRY(c, &k->err, cuCtxSynchronize()));
}

/* ---- host buffers: staged through device memory ---- */

/* The bytes buffer i spans and where its element 0 sits in them; a
   negative stride reaches below element 0. */
static size_t span(const wf_kernel *k, const rt_launch *l, int i, size_t *offset) {
    int64_t lo = 0, hi = 0;
    size_t esize = wf_dtype_size(k->params[i].dtype);
    *offset = 0;
    for (int d = 0; d < k->params[i].ndim; d++) {
        int64_t reach = (l->shape[i][d] - 1) * l->stride[i][d];
        if (l->shape[i][d] == 0)
            return 0;
        if (reach < 0)
            lo += reach;
        else
            hi += reach;
    }
    *offset = (size_t)-lo * esize;
    return (size_t)(hi - lo + 1) * esize;
}

/* Copy every host buffer to fresh device memory (outputs too, so that an
   element the kernel does not write keeps the caller's value, exactly as
   in place) and pack all arguments. */
static bool stage_in(wf_kernel *k, cuda_state *s, const rt_launch *l) {
    rt_cu *c = &s->cu;
    for (int i = 0; i < k->nparams; i++) {
        const wf_buffer *b = l->buf[i];
        size_t offset, bytes;
        cu_ptr d = (cu_ptr)(uintptr_t)b->data;
        if (k->params[i].kind == KP_TENSOR_MAP) {
            if (!pack(s, k, l, i, shared_copy(k, s, l, i, d)))
                return false;
            continue;
        }
        if (b->device < 0 && (bytes = span(k, l, i, &offset)) > 0) {
            const char *host = (const char *)b->data - offset;
            if (!CU_TRY(c, &k->err, cuMemAlloc(&s->staged[i], bytes)) ||
                !CU_TRY(c, &k->err, cuMemcpyHtoD(s->staged[i], host, bytes)))
                return false;
            d = s->staged[i] + offset;
        }
        if (!pack(s, k, l, i, d))
            return false;
    }
    return true;
}

static bool stage_out(wf_kernel *k, cuda_state *s, const rt_launch *l) {
    rt_cu *c = &s->cu;
    for (int i = 0; i < k->nparams; i++) {
        size_t offset, bytes = span(k, l, i, &offset);
        if (!k->params[i].is_output || !s->staged[i])
            continue;
        char *host = (char *)l->buf[i]->data - offset;
        if (!CU_TRY(c, &k->err, cuMemcpyDtoH(host, s->staged[i], bytes)))
            return false;
    }
    return true;
}

static void unstage(wf_kernel *k, cuda_state *s) {
    for (int i = 0; i < k->nparams; i++) {
        if (s->staged[i])
            (void)CU_TRY(&s->cu, &k->err, cuMemFree(s->staged[i]));
        s->staged[i] = 0;
    }
}

static bool pack_in_place(cuda_state *s, wf_kernel *k, const rt_launch *l) {
    for (int i = 0; i < k->nparams; i++)
        if (!pack(s, k, l, i, (cu_ptr)(uintptr_t)l->buf[i]->data))
            return false;
    return true;
}

/* Bind, check and prepare a run: the state, the packed arguments (staging
   host buffers when *host). NULL with k->err set, or on an empty launch
   (*empty, no error). */
static cuda_state *prepare(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                           rt_launch *l, bool *host, bool *empty) {
    if (rt_bind(k, in, nin, out, nout, l) != WF_OK || !check_devices(k, l, host))
        return NULL;
    /* rt_bind checked CUDA's limits; an empty launch needs no device at all. */
    *empty = l->empty;
    cuda_state *s = *empty ? NULL : ready(k);
    if (!s)
        return NULL;
    s->last_ok = false; /* the packed arguments change below (wf_time too) */
    if (!*host)
        return pack_in_place(s, k, l) ? s : NULL;
    if (stage_in(k, s, l))
        return s;
    unstage(k, s);
    return NULL;
}

/* After a staged run: wait, copy the outputs back, free the copies. */
static bool finish_staged(wf_kernel *k, cuda_state *s, const rt_launch *l, bool ok) {
    ok = ok && CU_TRY(&s->cu, &k->err, cuCtxSynchronize()) && stage_out(k, s, l);
    unstage(k, s);
    return ok;
}

/* ---- the fast path: the same buffers as the last run ---- */

/* Do a and b describe the same memory, type and layout? (Field by field: the
   padding and the entries past ndim may differ.) */
static bool same_buffer(const wf_buffer *a, const wf_buffer *b) {
    if (a->data != b->data || a->dtype != b->dtype || a->ndim != b->ndim || a->device != b->device)
        return false;
    for (int d = 0; d < a->ndim && d < WF_MAX_RANK; d++)
        if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d])
            return false;
    return true;
}

/* A run whose buffers equal the last successful run's on device buffers
   binds to the same checks, launch and packed arguments (every check and
   every argument, tensor maps included, is a function of the buffers), so it
   launches at once: wf_run's host time is then cuLaunchKernel's. */
static bool same_run(const wf_kernel *k, const cuda_state *s, const wf_buffer *in, int nin,
                     const wf_buffer *out, int nout) {
    if (!s || !s->last_ok || nin != k->ninputs || nout != k->noutputs)
        return false;
    for (int i = 0; i < nin; i++)
        if (!same_buffer(&in[i], &s->last[i]))
            return false;
    for (int i = 0; i < nout; i++)
        if (!same_buffer(&out[i], &s->last[nin + i]))
            return false;
    return true;
}

static void remember_run(cuda_state *s, const rt_launch *l, const wf_buffer *in, int nin,
                         const wf_buffer *out, int nout) {
    memcpy(s->last, in, sizeof *in * (size_t)nin);
    memcpy(s->last + nin, out, sizeof *out * (size_t)nout);
    s->last_launch = *l;
    s->last_ok = true;
}

wf_status rt_cuda_run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout) {
    cuda_state *s = k->cuda;
    if (same_run(k, s, in, nin, out, nout))
        return launch(k, s, &s->last_launch) ? WF_OK : k->err.code;
    rt_launch l;
    bool host = false, empty = false;
    s = prepare(k, in, nin, out, nout, &l, &host, &empty);
    if (!s)
        return k->err.code;
    bool ok = launch(k, s, &l);
    if (host)
        ok = finish_staged(k, s, &l, ok);
    else if (ok)
        remember_run(s, &l, in, nin, out, nout);
    return ok ? WF_OK : k->err.code;
}

/* ---- timing with events ---- */

typedef bool (*timed_op)(void *ctx);

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each repetition is bracketed by its own pair of events and waited for,
   so the samples are device time of op alone, without launch gaps. */
static bool run_reps(rt_cu *c, wf_err *e, timed_op op, void *ctx, cu_event *ev, int warmup,
                     int reps, double *us) {
    for (int i = 0; i < warmup; i++)
        if (!op(ctx))
            return false;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        if (!CU_TRY(c, e, cuEventRecord(ev[0], NULL)) || !op(ctx) ||
            !CU_TRY(c, e, cuEventRecord(ev[1], NULL)) || !CU_TRY(c, e, cuEventSynchronize(ev[1])) ||
            !CU_TRY(c, e, cuEventElapsedTime(&ms, ev[0], ev[1])))
            return false;
        us[i] = 1000.0 * ms;
    }
    return true;
}

static bool time_median(rt_cu *c, wf_err *e, timed_op op, void *ctx, int warmup, int reps,
                        double *median_us) {
    cu_event ev[2] = {NULL, NULL};
    double *us = malloc((size_t)reps * sizeof *us);
    if (!us)
        return err_failb(e, WF_ERR_MEMORY, "out of memory for %d timing samples", reps);
    bool ok = CU_TRY(c, e, cuEventCreate(&ev[0], 0)) && CU_TRY(c, e, cuEventCreate(&ev[1], 0)) &&
              run_reps(c, e, op, ctx, ev, warmup, reps, us);
    if (ok)
        *median_us = median(us, reps);
    for (int i = 0; i < 2; i++)
        if (ev[i])
            (void)CU_TRY(c, e, cuEventDestroy(ev[i]));
    free(us);
    return ok;
}

typedef struct {
    wf_kernel *k;
    cuda_state *s;
    const rt_launch *l;
} kernel_op;

static bool launch_op(void *ctx) {
    kernel_op *o = ctx;
    return launch(o->k, o->s, o->l);
}

wf_status rt_cuda_time(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                       int warmup, int reps, double *median_us) {
    rt_launch l;
    bool host = false, empty = false;
    *median_us = 0;
    cuda_state *s = prepare(k, in, nin, out, nout, &l, &host, &empty);
    if (!s)
        return k->err.code;
    kernel_op op = {k, s, &l};
    bool ok = time_median(&s->cu, &k->err, launch_op, &op, warmup, reps, median_us);
    if (host)
        ok = finish_staged(k, s, &l, ok);
    return ok ? WF_OK : k->err.code;
}

/* ---- device memory for tests and benchmarks ---- */

bool rt_cuda_available(void) {
    rt_cu c;
    wf_err e = {0};
    if (!rt_cu_open_driver(&c, &e))
        return false;
    rt_cu_close(&c);
    return true;
}

/* Every live allocation keeps one reference to device 0's primary context,
   so the memory outlives whichever kernels come and go; rt_cuda_mem_free
   gives it back. */
void *rt_cuda_mem_alloc(size_t bytes) {
    rt_cu c;
    wf_err e = {0};
    cu_ptr p = 0;
    if (bytes == 0 || !rt_cu_open(&c, &e))
        return NULL;
    if (CU_TRY(&c, &e, cuMemAlloc(&p, bytes)))
        c.ctx = NULL; /* the allocation's reference now */
    rt_cu_close(&c);
    return (void *)(uintptr_t)p;
}

void rt_cuda_mem_free(void *p) {
    rt_cu c;
    wf_err e = {0};
    if (!p || !rt_cu_open(&c, &e))
        return;
    if (CU_TRY(&c, &e, cuMemFree((cu_ptr)(uintptr_t)p)))
        (void)c.api.cuDevicePrimaryCtxRelease(c.dev); /* the allocation's reference */
    rt_cu_close(&c);
}

/* cuMemcpy infers the direction from the addresses (unified addressing);
   the synchronize makes the copy complete, after all earlier work, on
   return, also from device to device. */
wf_status rt_cuda_mem_copy(void *dst, const void *src, size_t bytes) {
    rt_cu c;
    wf_err e = {0};
    if (!rt_cu_open(&c, &e))
        return e.code;
    (void)(CU_TRY(&c, &e, cuMemcpy((cu_ptr)(uintptr_t)dst, (cu_ptr)(uintptr_t)src, bytes)) &&
           CU_TRY(&c, &e, cuCtxSynchronize()));
    rt_cu_close(&c);
    return e.code;
}

typedef struct {
    rt_cu *c;
    wf_err *e;
    cu_ptr dst, src;
    size_t bytes;
} copy_op;

static bool copy_op_run(void *ctx) {
    copy_op *o = ctx;
    return CU_TRY(o->c, o->e, cuMemcpyDtoDAsync(o->dst, o->src, o->bytes, NULL));
}

wf_status rt_cuda_mem_copy_time(void *dst, const void *src, size_t bytes, int warmup, int reps,
                                double *median_us) {
    rt_cu c;
    wf_err e = {0};
    *median_us = 0;
    if (!rt_cu_open(&c, &e))
        return e.code;
    copy_op op = {&c, &e, (cu_ptr)(uintptr_t)dst, (cu_ptr)(uintptr_t)src, bytes};
    (void)time_median(&c, &e, copy_op_run, &op, warmup, reps, median_us);
    rt_cu_close(&c);
    return e.code;
}
