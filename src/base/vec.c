/*
 * vec.c -- growth of VEC(T) arrays (see vec.h).
 */
#include "base/vec.h"

#include <stdlib.h>

#include "base/heap.h"

bool vec_grow_arena(wf_arena *a, void **ptr, int *cap, int n, size_t elem) {
    int ncap = *cap ? *cap * 2 : 8;
    void *p = arena_alloc(a, elem * (size_t)ncap);
    if (!p)
        return false;
    if (n)
        memcpy(p, *ptr, elem * (size_t)n);
    *ptr = p;
    *cap = ncap;
    return true;
}

bool vec_grow_heap(void **ptr, int *cap, int n, size_t elem) {
    (void)n;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = heap_realloc(*ptr, elem * (size_t)ncap);
    if (!p)
        return false;
    *ptr = p;
    *cap = ncap;
    return true;
}
