/*
 * runtime.h -- compiled kernels and what running them needs.
 *
 * A wf_kernel owns everything it uses in its own arena, so it outlives the
 * fusion it came from: the CUDA source, the launch information, the tensor
 * parameters (dtype, rank, extents as expressions over the inputs' size
 * symbols, contiguity), the grid/block extents as expressions, the checks
 * that can only be made at launch, and the backends' state. rt_bind turns a
 * call's buffers into concrete launch values, refusing any buffer that does
 * not match the fusion (count, dtype, rank, extents, strides) or overlaps
 * another in a way the kernel cannot run with (an output sharing memory with
 * an input or another output) with a clear error in k->err, so that a
 * mismatch never reaches a launch.
 */
#ifndef WF_RUNTIME_RUNTIME_H
#define WF_RUNTIME_RUNTIME_H

#include "lower/lower.h"

/* Sizes or strides of one tensor parameter, per logical dim. */
typedef int64_t rt_dims[WF_MAX_RANK];

typedef struct {
    int tv; /* tensor id: SYM_SIZE/SYM_STRIDE symbols name it */
    wf_dtype dtype;
    int ndim; /* <= WF_MAX_RANK (lowering checks) */
    bool is_output;
    int index;                         /* among the fusion's inputs or outputs */
    const wf_val *extent[WF_MAX_RANK]; /* logical extents (constants or size symbols) */
    int8_t contig[WF_MAX_RANK];        /* inputs: 1 = contiguous with the next inner dim */
    kir_param_kind kind;               /* what is passed (runtime/param.h) */
} rt_param;

typedef struct {
    const wf_val *cond;
    const char *message;
    bool buffers;          /* lower_check's: WF_ERR_ARG rather than WF_ERR_SCHEDULE */
    const wf_val *vals[2]; /* lower_check's: shown where the message says {0} and {1} */
} rt_check;

/* One parallel dimension: its launch extent is the largest of these. */
typedef struct {
    const wf_val **extent;
    const char **axis; /* per extent: "T2's axis iS3{128}", for messages */
    int n;
} rt_dim;

/* A TMA copy's tensor map (lower_tma, copied): what wf_kernel_tma reports, the
   host encodes for the GPU (param.c) and the executor applies (interp_copy_tma.c). */
typedef struct {
    wf_tma_info info;
    const wf_val *gdim[TMA_MAX_RANK], *gstride[TMA_MAX_RANK]; /* elements, bytes */
    int64_t box_bytes;
    int mbar;  /* load: its mbarrier; -1 for a store */
    int param; /* its KP_TENSOR_MAP parameter */
} rt_tma;

struct wf_kernel {
    wf_arena arena;
    char *source; /* CUDA C++, in the arena */
    wf_launch_info launch;
    int sm;
    bool sm_explicit; /* sm came from wf_compile_options; else the CUDA runtime uses the device's */
    wf_err err;       /* the last run's error */
    char *ptx;        /* from wf_kernel_check_nvrtc, malloc'd */
    rt_param *params;
    int nparams, ninputs, noutputs;
    rt_dim dims[LOWER_NPDIMS]; /* launch order: blockDim.x..z, gridDim.x..z */
    const wf_val *smem;        /* dynamic shared-memory bytes */
    rt_check *checks;
    int nchecks;
    /* rt_launch's per-parameter arrays, nparams each: a run allocates nothing */
    const wf_buffer **bound;
    rt_dims *shapes, *strides;
    void *cuda;                /* runtime/cuda.c state, or NULL */
    struct it_program *interp; /* the CPU reference executor's program (interp.h) */
    rt_tma *tmas;              /* TMA copies, in issue order */
    int ntmas;
    /* (input, output) parameter pairs that may be one buffer (lower/inplace.c); any
       other overlap of an output with an input or another output is refused */
    lower_in_place_pair *in_place;
    int nin_place;
};

/* Build a kernel from a lowering result and its source (copied). NULL on OOM. */
wf_kernel *rt_kernel_new(const lower_result *r, const char *source);
void rt_kernel_free(wf_kernel *k);

/* Concrete values of one launch. The per-parameter arrays are the kernel's
   (bound, shapes, strides): one kernel runs one launch at a time. */
typedef struct {
    const wf_buffer **buf; /* per parameter */
    rt_dims *shape;        /* logical sizes per parameter */
    rt_dims *stride;       /* element strides per parameter (actual) */
    int64_t grid[3], block[3];
    int64_t smem_bytes;
    bool empty; /* a launch extent is 0 (a tensor without elements): nothing to run */
} rt_launch;

/* Validate buffers against the kernel's parameters and evaluate the launch,
   checking CUDA's limits (lower_check_launch, lower_check_smem) for every
   backend alike. Returns WF_OK (l->empty: nothing to run), or an error
   recorded in k->err. */
wf_status rt_bind(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                  rt_launch *l);
/* Evaluate an expression of the kernel under a launch's bindings. */
bool rt_eval(const wf_kernel *k, const rt_launch *l, const wf_val *v, int64_t *out);

/* The CUDA backend (cuda.c): wf_run and wf_time on device 0, the kernel's
   state kept in k->cuda (rt_cuda_release frees it), and device memory for
   tests and benchmarks. Errors of a kernel's runs go to k->err. */
wf_status rt_cuda_run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout);
wf_status rt_cuda_time(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                       int warmup, int reps, double *median_us);
void rt_cuda_release(wf_kernel *k);
bool rt_cuda_available(void);
/* Fill s for wf_system_info_get (sysinfo.c). */
void rt_system_info(wf_system_info *s);
/* Device 0's compute capability, SM count, opt-in shared memory per block and
   registers per block, probed once per process; false when there is none. */
bool rt_device_facts(int *sm, int *sm_count, int64_t *smem, int *regs);
/* Remove the kernel cache's entries (cache_admin.c); 0s when it is off. */
void rt_cache_clear(int64_t *entries, int64_t *bytes);
void *rt_cuda_mem_alloc(size_t bytes);
void rt_cuda_mem_free(void *p);
wf_status rt_cuda_mem_copy(void *dst, const void *src, size_t bytes);
wf_status rt_cuda_mem_copy_time(void *dst, const void *src, size_t bytes, int warmup, int reps,
                                double *median_us);

#endif
