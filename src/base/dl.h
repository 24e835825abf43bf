/*
 * dl.h -- load CUDA's shared libraries at run time.
 *
 * weft never links against CUDA: a build on a machine without a toolkit
 * must still compile, schedule and print kernels. The pieces that do need
 * CUDA (NVRTC, the driver) are opened with dlopen when first used, and a
 * missing library becomes an ordinary error the caller can report, not a
 * loader failure at program start.
 */
#ifndef WF_BASE_DL_H
#define WF_BASE_DL_H

#include <stdbool.h>
#include <stddef.h>

/* Try each soname in order, each in $CUDA_HOME/lib64, then
   /usr/local/cuda/lib64, then the plain name (the loader's search path).
   Returns the first handle that opens, or NULL with err (if errsize > 0)
   naming everything tried and the loader's last complaint. */
void *dl_open_cuda_lib(const char *const *sonames, int nnames, char *err, size_t errsize);

/* The address of symbol name in handle, or NULL if absent. */
void *dl_sym(void *handle, const char *name);

/* Release a handle from dl_open_cuda_lib; NULL is ignored. The library
   itself stays mapped for the life of the process (see dl.c). */
void dl_close(void *handle);

/* The path of the shared library that holds addr (a symbol from dl_sym),
   as the loader opened it (dl_path.c). False if unknown or it does not fit. */
bool dl_path_of(const void *addr, char *path, size_t size);

#endif /* WF_BASE_DL_H */
