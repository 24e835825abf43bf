/*
 * heap.h -- malloc, calloc and realloc with a test-build failure hook.
 *
 * Memory that does not live in an arena (string builders, growable arrays,
 * the CPU executor's buffers) comes from these wrappers, so the fault sweep
 * (tests/fault) can fail the Nth heap allocation as it fails the Nth arena
 * allocation, and prove every such failure ends in a clean WF_ERR_MEMORY.
 * Release the memory with plain free(). Outside WF_TEST_BUILD they are the
 * C library functions.
 */
#ifndef WF_BASE_HEAP_H
#define WF_BASE_HEAP_H

#include <stddef.h>

void *heap_malloc(size_t size);
void *heap_calloc(size_t n, size_t size);
void *heap_realloc(void *p, size_t size);
#ifdef WF_TEST_BUILD
extern long heap_test_countdown; /* heap allocations left before they fail; -1 = never */
extern long heap_test_failures;  /* heap allocations refused by the countdown so far */
#endif

#endif
