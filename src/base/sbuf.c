/*
 * sbuf.c -- heap string builder (see sbuf.h).
 */
#include "base/sbuf.h"

#include "base/heap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(sbuf *b, size_t extra) {
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + extra + 1)
        ncap *= 2;
    char *s = heap_realloc(b->s, ncap);
    if (!s) {
        b->oom = true;
        return false;
    }
    b->s = s;
    b->cap = ncap;
    return true;
}

void sbuf_printf(sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sbuf_puts(sbuf *b, const char *s) {
    size_t n = strlen(s);
    if (!reserve(b, n))
        return;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

void sbuf_indent(sbuf *b, int depth) {
    for (int i = 0; i < depth; i++)
        sbuf_puts(b, "  ");
}

const char *sbuf_str(const sbuf *b) {
    return b->s ? b->s : "";
}

char *sbuf_take(sbuf *b) {
    char *s = b->s;
    if (!s) {
        s = heap_malloc(1);
        if (s)
            s[0] = 0;
    }
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void sbuf_free(sbuf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}
