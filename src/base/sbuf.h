/*
 * sbuf.h -- a heap string builder for printers and code generation.
 *
 * sbuf_printf appends formatted text; on allocation failure the buffer
 * remembers it (oom) and further appends do nothing, so callers check once
 * at the end instead of after every append.
 */
#ifndef WF_BASE_SBUF_H
#define WF_BASE_SBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *s;    /* NUL-terminated text, or NULL while empty */
    size_t len; /* bytes used, without the NUL */
    size_t cap;
    bool oom; /* an append failed */
} sbuf;

#if defined(__GNUC__)
#define WF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define WF_PRINTF(f, a)
#endif

void sbuf_printf(sbuf *b, const char *fmt, ...) WF_PRINTF(2, 3);
void sbuf_puts(sbuf *b, const char *s);
void sbuf_indent(sbuf *b, int depth); /* two spaces per level */
const char *sbuf_str(const sbuf *b);  /* "" when empty */
char *sbuf_take(sbuf *b);             /* caller frees; buffer becomes empty */
void sbuf_free(sbuf *b);

#endif
