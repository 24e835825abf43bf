/*
 * driver.h -- the fixed part of a host-CUDA driver program (the generated
 * part is written by tests/hostcuda/hostcuda.c): binding files of bytes to
 * a kernel's Tensor parameters and running the kernel function once per
 * (block, thread) of the launch, serially, blocks outer.
 *
 * The kernel's parameter types are read from the function's own type (a
 * tuple of its arguments), so the generated text names no type: each kernel
 * lives in its own namespace with its own copy of the prelude.
 */
#ifndef WF_TESTS_HOSTCUDA_DRIVER_H
#define WF_TESTS_HOSTCUDA_DRIVER_H

#include "shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <tuple>
#include <utility>

#define HC_MAX_RANK 8 /* = WF_MAX_RANK; hostcuda.c checks */

template <template <class, int> class TT, class T, int N>
static void hc_bind(TT<T, N> &t, void *p, const long long *size, const long long *stride) {
    t.data = static_cast<T *>(p);
    if constexpr (N > 0)
        for (int d = 0; d < N; d++) {
            t.size[d] = size[d];
            t.stride[d] = stride[d];
        }
}

template <class... A, size_t... I>
static void hc_launch_impl(void (*fn)(A...), void *const *ptr, const long long (*size)[HC_MAX_RANK],
                           const long long (*stride)[HC_MAX_RANK], const unsigned *grid,
                           const unsigned *block, std::index_sequence<I...>) {
    std::tuple<A...> args;
    (hc_bind(std::get<I>(args), ptr[I], size[I], stride[I]), ...);
    gridDim = {grid[0], grid[1], grid[2]};
    blockDim = {block[0], block[1], block[2]};
    for (unsigned bz = 0; bz < grid[2]; bz++)
        for (unsigned by = 0; by < grid[1]; by++)
            for (unsigned bx = 0; bx < grid[0]; bx++)
                for (unsigned tz = 0; tz < block[2]; tz++)
                    for (unsigned ty = 0; ty < block[1]; ty++)
                        for (unsigned tx = 0; tx < block[0]; tx++) {
                            blockIdx = {bx, by, bz};
                            threadIdx = {tx, ty, tz};
                            std::apply(fn, args);
                        }
}

template <class... A>
static void hc_launch(void (*fn)(A...), void *const *ptr, const long long (*size)[HC_MAX_RANK],
                      const long long (*stride)[HC_MAX_RANK], const unsigned *grid,
                      const unsigned *block) {
    hc_launch_impl(fn, ptr, size, stride, grid, block, std::index_sequence_for<A...>{});
}

/* Parameter j of case c: read (an input) or poisoned with 0xFF (an output,
   as the executor's tests do, so that an unwritten element shows). */
static void *hc_load(const char *dir, int c, int j, size_t bytes, bool input) {
    void *p = calloc(bytes ? bytes : 1, 1);
    char path[4096];
    snprintf(path, sizeof path, "%s/c%d_p%d.bin", dir, c, j);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (!input) {
        memset(p, 0xFF, bytes);
        return p;
    }
    FILE *f = fopen(path, "rb");
    if (!f || fread(p, 1, bytes, f) != bytes) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    return p;
}

static void hc_store(const char *dir, int c, int j, const void *p, size_t bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/c%d_p%d.out", dir, c, j);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

#endif
