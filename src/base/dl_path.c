/*
 * dl_path.c -- the file a loaded symbol came from, for `weft info`.
 *
 * dl.c opens CUDA's libraries from one of several places ($CUDA_HOME,
 * /usr/local/cuda, the loader's path); which one won matters when a user
 * asks why weft uses the toolkit it does. dladdr answers that from any
 * symbol of the library. It is a GNU/BSD extension, hence its own file with
 * _GNU_SOURCE, so the rest of base/ stays plain POSIX.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <stdio.h>

#include "base/dl.h"

bool dl_path_of(const void *addr, char *path, size_t size) {
    Dl_info info;
    if (!addr || !path || size == 0 || dladdr(addr, &info) == 0 || !info.dli_fname)
        return false;
    int n = snprintf(path, size, "%s", info.dli_fname);
    return n > 0 && (size_t)n < size;
}
