/*
 * arena.h -- the chunked bump allocator that owns all IR of a fusion.
 *
 * Memory comes from chunks (64 KiB, doubling up to 16 MiB), aligned to max_align_t and
 * zeroed; nothing is freed one by one, arena_free() releases everything.
 * With WF_ARENA_DEBUG defined, each allocation is its own malloc so that
 * AddressSanitizer sees per-object overflows a bump arena would hide.
 * A test hook (arena_test_countdown, test builds only) makes the Nth allocation
 * fail, so tests can prove that out-of-memory paths end in WF_ERR_MEMORY and
 * never crash.
 */
#ifndef WF_BASE_ARENA_H
#define WF_BASE_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct {
    arena_chunk *head; /* newest chunk first */
    size_t next_size;  /* size of the next chunk to allocate */
    bool failed;       /* an allocation failed (sticky): the owner reports WF_ERR_MEMORY */
} wf_arena;

void arena_init(wf_arena *a);
void arena_free(wf_arena *a);
void *arena_alloc(wf_arena *a, size_t size); /* zeroed; NULL when out of memory */
char *arena_strdup(wf_arena *a, const char *s);
#ifdef WF_TEST_BUILD
extern long arena_test_countdown; /* allocations left before all arenas fail; -1 = never */
extern long arena_test_failures;  /* allocations refused by the countdown so far */
#endif

#define ARENA_NEW(a, T)      ((T *)arena_alloc((a), sizeof(T)))
#define ARENA_ARRAY(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
