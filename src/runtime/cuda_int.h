/*
 * cuda_int.h -- what runtime/cuda.c and runtime/cache.c share: the CUDA
 * driver API as weft loads it, a session on device 0, and the disk cache of
 * compiled kernel images.
 *
 * weft never links CUDA. The driver entry points are declared here by hand
 * (their C ABI is stable; the "_v2" names are the ones cuda.h maps to) and
 * looked up with dlsym into an rt_cu_api table, one table per session: a
 * kernel holds its session from its first run until wf_kernel_free, the
 * device-memory helpers open one per call. Every driver call goes through
 * CU_TRY, which records WF_ERR_CUDA with the call's text, the driver's error
 * name and file:line in a wf_err and evaluates to false.
 */
#ifndef WF_RUNTIME_CUDA_INT_H
#define WF_RUNTIME_CUDA_INT_H

#include <stdint.h>

#include "runtime/runtime.h"

/* The driver's types, as its ABI sees them. */
typedef int cu_result; /* CUresult; 0 = CUDA_SUCCESS */
typedef int cu_device;
typedef struct cu_context_st *cu_context;
typedef struct cu_module_st *cu_module;
typedef struct cu_function_st *cu_function;
typedef struct cu_stream_st *cu_stream;
typedef struct cu_event_st *cu_event;
typedef unsigned long long cu_ptr; /* CUdeviceptr */

enum {
    CU_ERR_NO_DEVICE = 100,      /* CUDA_ERROR_NO_DEVICE */
    CU_ATTR_CC_MAJOR = 75,       /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    CU_ATTR_CC_MINOR = 76,       /* ..._MINOR */
    CU_ATTR_SMEM_OPTIN = 97,     /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    CU_ATTR_SM_COUNT = 16,       /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    CU_ATTR_REGS_PER_BLOCK = 12, /* CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK */
    CU_FUNC_MAX_DYNAMIC_SMEM = 8 /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

/* X(field, symbol, older symbol or NULL, parameter list). The older symbol is
   tried when a driver predates the first (cuEventElapsedTime_v2: 12.8). */
// clang-format off
#define RT_CU_API(X)                                                                               \
    X(cuInit,                    "cuInit",                       NULL, (unsigned))                 \
    X(cuDeviceGetCount,          "cuDeviceGetCount",             NULL, (int *))                    \
    X(cuDeviceGet,               "cuDeviceGet",                  NULL, (cu_device *, int))         \
    X(cuDeviceGetAttribute,      "cuDeviceGetAttribute",         NULL, (int *, int, cu_device))    \
    X(cuDeviceGetName,           "cuDeviceGetName",              NULL, (char *, int, cu_device))   \
    X(cuDevicePrimaryCtxRetain,  "cuDevicePrimaryCtxRetain",     NULL, (cu_context *, cu_device))  \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL, (cu_device))                \
    X(cuCtxSetCurrent,           "cuCtxSetCurrent",              NULL, (cu_context))               \
    X(cuCtxSynchronize,          "cuCtxSynchronize",             NULL, (void))                     \
    X(cuModuleLoadData,          "cuModuleLoadData",             NULL, (cu_module *, const void *))\
    X(cuModuleUnload,            "cuModuleUnload",               NULL, (cu_module))                \
    X(cuModuleGetFunction,       "cuModuleGetFunction",          NULL,                             \
      (cu_function *, cu_module, const char *))                                                    \
    X(cuFuncSetAttribute,        "cuFuncSetAttribute",           NULL, (cu_function, int, int))    \
    X(cuLaunchKernel,            "cuLaunchKernel",               NULL,                             \
      (cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,          \
       cu_stream, void **, void **))                                                               \
    X(cuMemAlloc,                "cuMemAlloc_v2",                NULL, (cu_ptr *, size_t))         \
    X(cuMemFree,                 "cuMemFree_v2",                 NULL, (cu_ptr))                   \
    X(cuMemcpyHtoD,              "cuMemcpyHtoD_v2",              NULL, (cu_ptr, const void *, size_t)) \
    X(cuMemcpyDtoH,              "cuMemcpyDtoH_v2",              NULL, (void *, cu_ptr, size_t))   \
    X(cuMemcpy,                  "cuMemcpy",                     NULL, (cu_ptr, cu_ptr, size_t))   \
    X(cuMemcpyDtoDAsync,         "cuMemcpyDtoDAsync_v2",         NULL,                             \
      (cu_ptr, cu_ptr, size_t, cu_stream))                                                         \
    X(cuEventCreate,             "cuEventCreate",                NULL, (cu_event *, unsigned))     \
    X(cuEventDestroy,            "cuEventDestroy_v2",            NULL, (cu_event))                 \
    X(cuEventRecord,             "cuEventRecord",                NULL, (cu_event, cu_stream))      \
    X(cuEventSynchronize,        "cuEventSynchronize",           NULL, (cu_event))                 \
    X(cuEventElapsedTime,        "cuEventElapsedTime_v2", "cuEventElapsedTime",                    \
      (float *, cu_event, cu_event))                                                               \
    X(cuGetErrorName,            "cuGetErrorName",               NULL, (cu_result, const char **)) \
    X(cuGetErrorString,          "cuGetErrorString",             NULL, (cu_result, const char **)) \
    X(cuTensorMapEncodeTiled,    "cuTensorMapEncodeTiled",       NULL,                             \
      (void *, int, unsigned, void *, const unsigned long long *, const unsigned long long *,      \
       const unsigned *, const unsigned *, int, int, int, int))
// clang-format on

typedef struct {
    void *lib; /* from dl_open_cuda_lib; the library stays mapped (dl.c) */
#define RT_CU_FIELD(name, sym, alt, params) cu_result(*name) params;
    RT_CU_API(RT_CU_FIELD)
#undef RT_CU_FIELD
} rt_cu_api;

/* An open session on device 0: the driver table, the device, its retained
   primary context (NULL until rt_cu_open_ctx) and what the device is. */
typedef struct {
    rt_cu_api api;
    cu_device dev;
    cu_context ctx;
    int sm;         /* compute capability as 10 * major + minor */
    char name[128]; /* e.g. "NVIDIA H100 80GB HBM3", for messages */
} rt_cu;

/* Load the driver, cuInit, find device 0 and read its name and compute
   capability. False with WF_ERR_CUDA in e ("CUDA driver not found: ...",
   "no CUDA device: ..." or a failed call) and nothing left open. */
bool rt_cu_open_driver(rt_cu *c, wf_err *e);
/* rt_cu_open_driver, then retain device 0's primary context and make it
   current on this thread. */
bool rt_cu_open(rt_cu *c, wf_err *e);
/* Release what rt_cu_open* took (the context reference, the library handle). */
void rt_cu_close(rt_cu *c);

/* Record a failed driver call in e; true when r is success. */
bool rt_cu_check(const rt_cu_api *api, wf_err *e, cu_result r, const char *call, const char *file,
                 int line);
#define CU_TRY(c, e, call) rt_cu_check(&(c)->api, (e), (c)->api.call, #call, __FILE__, __LINE__)

/* TMA (runtime/tma.c): the arguments of cuTensorMapEncodeTiled for parameter
   i, a tensor map (KP_TENSOR_MAP), at this launch; false with k->err set. */
typedef struct {
    int dtype; /* CUtensorMapDataType */
    unsigned rank;
    unsigned long long dims[5], strides[5]; /* strides: rank - 1 of them, bytes */
    unsigned box[5], estrides[5];
    int swizzle; /* CUtensorMapSwizzle */
} rt_tma_args;
bool rt_tma_encode_args(wf_kernel *k, const rt_launch *l, int i, rt_tma_args *a);

/* ---- the disk cache of kernel images (cache.c) ---- */

/* What identifies the NVRTC that rt_nvrtc_compile would load, without
   loading it when its file can be found (see cache.c). False if no NVRTC. */
bool rt_cache_nvrtc_id(char *id, size_t idsize);
/* The cache key of a kernel image: a hash of everything that shapes it. */
uint64_t rt_cache_key(const char *source, int sm, const char *nvrtc_id);
/* The image stored under key, malloc'd into *data; false when absent,
   unreadable, truncated or corrupt (the caller rebuilds and stores it). */
bool rt_cache_load(uint64_t key, int sm, void **data, size_t *size);
/* Store an image under key, atomically (temp file + rename). Best effort:
   a cache that cannot be written only costs the next process a compile. */
void rt_cache_store(uint64_t key, int sm, const void *data, size_t size);
/* The cache directory (not created); false when the cache is off. */
bool rt_cache_dir(char *dir, size_t size);
/* Count weft's entries in dir (and their bytes), removing them when remove
   is set (cache_admin.c); other files there are never touched. A missing
   directory holds 0 entries. */
void rt_cache_scan(const char *dir, bool remove, int64_t *entries, int64_t *bytes);

#endif
