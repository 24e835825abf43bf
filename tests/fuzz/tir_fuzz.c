/*
 * tir_fuzz.c -- a libFuzzer target for the TensorIR front door: any bytes as TVMScript.
 *
 * Each input is parsed; a program that parses is printed, printed text is parsed again
 * and must print the same (the round trip), and a few primitives run on its first
 * block (get_loops, split by 2 with an inferred factor, fuse of the two outermost
 * loops, cache_read, compute_inline, rfactor). Nothing may crash, leak or hang; errors are fine.
 * Built by `make tir-fuzz` with clang -fsanitize=fuzzer,address,undefined; the corpus
 * is tests/fuzz/tir_corpus/ (the tests' programs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise(wf_tir *s, const char *first_block) {
    wf_tir_block *b = wf_tir_get_block(s, first_block);
    wf_tir_loop *l[8];
    int n = wf_tir_get_loops(s, b, l, 8);
    if (n >= 2) {
        wf_tir_loop *two[2] = {l[0], l[1]};
        wf_tir_fuse(s, 2, two);
        wf_tir_clear_error(s);
        n = wf_tir_get_loops(s, b, l, 8);
    }
    if (n >= 1) {
        int64_t f[2] = {-1, 2};
        wf_tir_loop *out[2];
        wf_tir_split(s, l[n - 1], 2, f, out);
        wf_tir_clear_error(s);
    }
    wf_tir_cache_read(s, b, 0, "shared");
    wf_tir_clear_error(s);
    wf_tir_compute_inline(s, b);
    wf_tir_clear_error(s);
    n = wf_tir_get_loops(s, b, l, 8);
    if (n >= 1)
        wf_tir_rfactor(s, l[n - 1], 0);
    wf_tir_clear_error(s);
    (void)wf_tir_script(s);
    (void)wf_tir_trace(s);
}

/* The name of the first block in the printed text, or NULL. */
static char *first_block_name(const char *text) {
    const char *p = strstr(text, "T.block(\"");
    while (p && !strncmp(p + 9, "root", 4))
        p = strstr(p + 1, "T.block(\"");
    if (!p)
        return NULL;
    p += 9;
    const char *q = strchr(p, '"');
    if (!q)
        return NULL;
    char *name = malloc((size_t)(q - p) + 1);
    if (name) {
        memcpy(name, p, (size_t)(q - p));
        name[q - p] = '\0';
    }
    return name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = '\0';
    wf_tir *s = wf_tir_parse(src);
    const char *text = wf_tir_status(s) == WF_OK ? wf_tir_script(s) : NULL;
    if (text) {
        char *copy = strdup(text);
        wf_tir *again = wf_tir_parse(copy);
        const char *t2 = wf_tir_script(again);
        if (!t2 || strcmp(t2, copy) != 0) {
            fprintf(stderr, "round trip changed the program:\n%s\n----\n%s\n", copy,
                    t2 ? t2 : wf_tir_error(again));
            abort();
        }
        wf_tir_free(again);
        char *name = first_block_name(copy);
        if (name)
            exercise(s, name);
        free(name);
        free(copy);
    }
    wf_tir_free(s);
    free(src);
    return 0;
}
