/*
 * arena.c -- chunked bump allocator (see arena.h).
 *
 * In the normal build a chunk is one malloc holding many objects; in the
 * WF_ARENA_DEBUG build every object gets a chunk of its own, so overflows are
 * visible to AddressSanitizer and LeakSanitizer still proves the bulk free.
 */
#include "base/arena.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct arena_chunk {
    arena_chunk *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
};

enum { FIRST_CHUNK = 64 * 1024, MAX_CHUNK = 16 * 1024 * 1024 };

void arena_init(wf_arena *a) {
    a->head = NULL;
    a->next_size = FIRST_CHUNK;
    a->failed = false;
}

void arena_free(wf_arena *a) {
    arena_chunk *c = a->head;
    while (c) {
        arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

static arena_chunk *new_chunk(wf_arena *a, size_t need) {
    size_t size = a->next_size;
#ifdef WF_ARENA_DEBUG
    size = need;
#else
    while (size < need)
        size *= 2;
    /* Doubling amortizes malloc; past 16 MiB it would only waste memory. */
    a->next_size = size * 2 > MAX_CHUNK ? MAX_CHUNK : size * 2;
#endif
    arena_chunk *c = malloc(sizeof(arena_chunk) + size);
    if (!c)
        return NULL;
    c->size = size;
    c->used = 0;
    c->next = a->head;
    a->head = c;
    return c;
}

#ifdef WF_TEST_BUILD
/* Test-only fault injection across every arena: when it reaches 0, the next
   allocation fails (tests/fault sweeps it over 1, 2, 3, ...). */
long arena_test_countdown = -1;
long arena_test_failures; /* allocations refused by the countdown */
#endif

static void *fail(wf_arena *a) {
    a->failed = true;
    return NULL;
}

void *arena_alloc(wf_arena *a, size_t size) {
#ifdef WF_TEST_BUILD
    if (arena_test_countdown == 0) {
        arena_test_failures++;
        return fail(a);
    }
    if (arena_test_countdown > 0)
        arena_test_countdown--;
#endif
    size_t align = alignof(max_align_t);
    size = (size + align - 1) / align * align;
    if (size == 0)
        size = align;
    arena_chunk *c = a->head;
#ifdef WF_ARENA_DEBUG
    c = NULL;
#endif
    if (!c || c->size - c->used < size) {
        c = new_chunk(a, size);
        if (!c)
            return fail(a);
    }
    void *p = c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strdup(wf_arena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = arena_alloc(a, n);
    if (p)
        memcpy(p, s, n);
    return p;
}
