/*
 * vec.h -- growable arrays: VEC(T) is { T *ptr; int n, cap; }.
 *
 * Arrays grow by doubling. Arena-backed arrays (vec_push_arena) leave the old
 * storage in the arena, which is fine for the small, short-lived lists IR
 * building needs; heap-backed arrays (vec_push_heap) are freed with vec_free.
 * Both return false when memory runs out, leaving the array unchanged.
 */
#ifndef WF_BASE_VEC_H
#define WF_BASE_VEC_H

#include <stdbool.h>
#include <string.h>

#include "base/arena.h"

#define VEC(T)                                                                                     \
    struct {                                                                                       \
        T *ptr;                                                                                    \
        int n, cap;                                                                                \
    }

bool vec_grow_arena(wf_arena *a, void **ptr, int *cap, int n, size_t elem);
bool vec_grow_heap(void **ptr, int *cap, int n, size_t elem);

#define vec_push_arena(a, v, x)                                                                    \
    (((v)->n < (v)->cap ||                                                                         \
      vec_grow_arena((a), (void **)&(v)->ptr, &(v)->cap, (v)->n, sizeof(*(v)->ptr)))               \
         ? ((v)->ptr[(v)->n++] = (x), true)                                                        \
         : false)
#define vec_push_heap(v, x)                                                                        \
    (((v)->n < (v)->cap ||                                                                         \
      vec_grow_heap((void **)&(v)->ptr, &(v)->cap, (v)->n, sizeof(*(v)->ptr)))                     \
         ? ((v)->ptr[(v)->n++] = (x), true)                                                        \
         : false)
#define vec_free(v) (free((v)->ptr), (v)->ptr = NULL, (v)->n = (v)->cap = 0)

#endif
