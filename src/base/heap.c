/*
 * heap.c -- heap allocation with a test-build failure hook (see heap.h).
 *
 * The countdown works like arena.c's: when it reaches 0 the next allocation
 * returns NULL (and counts in heap_test_failures); tests/fault sweeps it over
 * N = 0, 1, 2, ... until a program runs without meeting it.
 */
#include "base/heap.h"

#include <stdbool.h>
#include <stdlib.h>

#ifdef WF_TEST_BUILD
long heap_test_countdown = -1;
long heap_test_failures;

static bool refuse(void) {
    if (heap_test_countdown == 0) {
        heap_test_failures++;
        return true;
    }
    if (heap_test_countdown > 0)
        heap_test_countdown--;
    return false;
}
#else
static bool refuse(void) {
    return false;
}
#endif

void *heap_malloc(size_t size) {
    return refuse() ? NULL : malloc(size);
}

void *heap_calloc(size_t n, size_t size) {
    return refuse() ? NULL : calloc(n, size);
}

void *heap_realloc(void *p, size_t size) {
    return refuse() ? NULL : realloc(p, size);
}
