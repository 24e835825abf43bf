/*
 * nvrtc.h -- turn generated CUDA C++ into PTX and a cubin with NVRTC.
 *
 * NVRTC is opened with dlopen on every call (see base/dl.h), so weft builds
 * and runs without a CUDA toolkit; callers ask rt_nvrtc_available() or
 * treat WF_ERR_UNSUPPORTED as "no compiler here". Nothing here prints,
 * aborts or keeps global state; every failure comes back as a wf_status
 * and a message.
 */
#ifndef WF_RUNTIME_NVRTC_H
#define WF_RUNTIME_NVRTC_H

#include <stdbool.h>
#include <stddef.h>

#include "weft.h"

typedef struct {
    char *ptx;       /* malloc'd, NUL-terminated */
    size_t ptx_size; /* strlen(ptx): the NUL is not counted */
    char *cubin;     /* malloc'd; NULL if NVRTC produced no cubin */
    size_t cubin_size;
    int nvrtc_major, nvrtc_minor;
} rt_nvrtc_result;

/* Compile src (name is the file name in diagnostics; NULL = "weft_kernel.cu")
   for sm_<sm>a from 90 on (sm=90 -> --gpu-architecture=sm_90a) and plain
   sm_<sm> below (there is no sm_75a), with -std=c++17 and
   -default-device (no --use_fast_math).
   Returns WF_OK with *out filled (if out is not NULL; on any failure *out is
   left zeroed); WF_ERR_ARG for a NULL src or sm <= 0; WF_ERR_UNSUPPORTED if
   NVRTC cannot be loaded or lacks a needed entry point, or rejects the
   options (an NVRTC too old for sm_<sm>a); WF_ERR_COMPILE if compilation
   fails (msg = "NVRTC compilation failed for sm_XXa:\n<log>", the log cut
   with "..." to fit msgsize) or another NVRTC call fails (msg names the call
   and NVRTC's error string); WF_ERR_MEMORY if an allocation fails.
   msg may be NULL or msgsize 0. */
wf_status rt_nvrtc_compile(const char *src, const char *name, int sm, rt_nvrtc_result *out,
                           char *msg, size_t msgsize);

/* Free what rt_nvrtc_compile returned and zero *r; NULL is ignored. */
void rt_nvrtc_result_free(rt_nvrtc_result *r);

/* True if NVRTC can be loaded and has every entry point we need. */
bool rt_nvrtc_available(void);

/* The path NVRTC is loaded from and its version; false with the reason in
   err (msg style as above) when it cannot be loaded. */
bool rt_nvrtc_locate(char *path, size_t pathsize, int *major, int *minor, char *err,
                     size_t errsize);

#endif /* WF_RUNTIME_NVRTC_H */
