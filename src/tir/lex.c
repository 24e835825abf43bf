/*
 * lex.c -- the TVMScript tokenizer: Python's lexical rules, as much of them as the
 * TensorIR subset needs.
 *
 * Input: the source text. Output: an array of tokens ending in TK_EOF, with NEWLINE,
 * INDENT and DEDENT tokens made from the indentation as Python makes them (a logical
 * line ends at a newline outside brackets; blank and comment-only lines make no
 * tokens). Every token keeps its line and column (1-based) so that the parser's errors
 * can point at it with a caret. A character outside the subset (a tab in the
 * indentation, a stray byte) is an error here, never a crash.
 */
#include "tir/tir_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The two- and one-character operators, longest first. */
static const char *const ops[] = {
    "//=", "->", "+=", "-=", "*=", "/=", "//", "<=", ">=", "==", "!=", "**", "(", ")", "[",
    "]",   ",",  ":",  ".",  "=",  "+",  "-",  "*",  "/",  "%",  "<",  ">",  "@", "{", "}"};

/* Formats "line:col: message" with the source line and a caret under col. */
bool tir_error_at(wf_tir *s, const char *src, int line, int col, wf_status code, const char *fmt,
                  ...) {
    if (err_set(&s->err))
        return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *p = src;
    for (int l = 1; l < line && *p; p++)
        if (*p == '\n')
            l++;
    int len = 0;
    while (p[len] && p[len] != '\n' && len < 200)
        len++;
    int caret = col - 1 < len ? col - 1 : len;
    return err_failb(&s->err, code, "%d:%d: %s\n%.*s\n%*s^", line, col, msg, len, p, caret, "");
}

static bool push(lexer *lx, tok t) {
    if (!vec_push_arena(&lx->s->arena, &lx->toks, t))
        return err_failb(&lx->s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

static bool push_kind(lexer *lx, tok_kind k, const char *p, int line, int col) {
    tok t = {.kind = k, .p = p, .len = 0, .line = line, .col = col};
    return push(lx, t);
}

/* Measures the indentation of the line at p; returns -1 if the line is blank. */
static int indent_of(lexer *lx, const char *p, int line) {
    int w = 0;
    for (; *p == ' ' || *p == '\t'; p++, w++)
        if (*p == '\t') {
            tir_error_at(lx->s, lx->src, line, w + 1, WF_ERR_UNSUPPORTED,
                         "unsupported: a tab in the indentation (indent with spaces)");
            return -2;
        }
    if (*p == '\n' || *p == '#' || *p == '\0' || *p == '\r')
        return -1;
    return w;
}

/* Emits INDENT / DEDENT for a new logical line of width w. */
static bool indent_to(lexer *lx, int w, const char *p, int line) {
    if (w > lx->indents[lx->nindent - 1]) {
        if (lx->nindent == TIR_MAX_NEST)
            return tir_error_at(lx->s, lx->src, line, w + 1, WF_ERR_UNSUPPORTED,
                                "unsupported: blocks nested deeper than %d levels", TIR_MAX_NEST);
        lx->indents[lx->nindent++] = w;
        return push_kind(lx, TK_INDENT, p, line, w + 1);
    }
    while (w < lx->indents[lx->nindent - 1]) {
        lx->nindent--;
        if (!push_kind(lx, TK_DEDENT, p, line, w + 1))
            return false;
    }
    if (w != lx->indents[lx->nindent - 1])
        return tir_error_at(lx->s, lx->src, line, w + 1, WF_ERR_ARG,
                            "unindent does not match any outer indentation level");
    return true;
}

static bool lex_number(lexer *lx, const char **pp, int line, int col) {
    const char *p = *pp, *start = p;
    bool is_float = false;
    while (isdigit((unsigned char)*p) || *p == '_')
        p++;
    if (*p == '.' && isdigit((unsigned char)p[1]))
        is_float = true, p++;
    else if (*p == '.' && !isalpha((unsigned char)p[1]))
        is_float = true, p++;
    while (is_float && isdigit((unsigned char)*p))
        p++;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1;
        if (*q == '+' || *q == '-')
            q++;
        if (isdigit((unsigned char)*q)) {
            is_float = true;
            for (p = q; isdigit((unsigned char)*p);)
                p++;
        }
    }
    char buf[64];
    int len = (int)(p - start);
    if (len >= (int)sizeof buf)
        return tir_error_at(lx->s, lx->src, line, col, WF_ERR_UNSUPPORTED,
                            "unsupported: a number literal this long");
    int k = 0;
    for (int i = 0; i < len; i++)
        if (start[i] != '_')
            buf[k++] = start[i];
    buf[k] = '\0';
    tok t = {
        .kind = is_float ? TK_FLOAT : TK_INT, .p = start, .len = len, .line = line, .col = col};
    char *end;
    if (is_float)
        t.fval = strtod(buf, &end);
    else {
        t.ival = strtoll(buf, &end, 10);
        if (t.ival == INT64_MAX || t.ival < 0)
            return tir_error_at(lx->s, lx->src, line, col, WF_ERR_UNSUPPORTED,
                                "unsupported: an integer this large");
    }
    *pp = p;
    return push(lx, t);
}

static bool lex_string(lexer *lx, const char **pp, int line, int col) {
    const char *p = *pp;
    char q = *p++;
    const char *start = p;
    while (*p && *p != q && *p != '\n') {
        if (*p == '\\')
            return tir_error_at(lx->s, lx->src, line, col + (int)(p - start) + 1,
                                WF_ERR_UNSUPPORTED, "unsupported: escapes in strings");
        p++;
    }
    if (*p != q)
        return tir_error_at(lx->s, lx->src, line, col, WF_ERR_ARG, "unterminated string");
    tok t = {.kind = TK_STRING, .p = start, .len = (int)(p - start), .line = line, .col = col};
    *pp = p + 1;
    return push(lx, t);
}

static bool lex_op(lexer *lx, const char **pp, int line, int col) {
    const char *p = *pp;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t n = strlen(ops[i]);
        if (strncmp(p, ops[i], n) == 0) {
            if (strchr("([{", *p))
                lx->depth++;
            if (strchr(")]}", *p) && lx->depth > 0)
                lx->depth--;
            tok t = {.kind = TK_OP, .p = p, .len = (int)n, .line = line, .col = col};
            *pp = p + n;
            return push(lx, t);
        }
    }
    if ((unsigned char)*p >= 0x80 || isprint((unsigned char)*p))
        return tir_error_at(lx->s, lx->src, line, col, WF_ERR_UNSUPPORTED,
                            "unsupported: the character '%c'", *p);
    return tir_error_at(lx->s, lx->src, line, col, WF_ERR_UNSUPPORTED,
                        "unsupported: a control character (byte %d)", (unsigned char)*p);
}

/* One token at *pp (not whitespace, not a newline). */
static bool lex_one(lexer *lx, const char **pp, int line, int col) {
    const char *p = *pp;
    if (isalpha((unsigned char)*p) || *p == '_') {
        const char *start = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        tok t = {.kind = TK_NAME, .p = start, .len = (int)(p - start), .line = line, .col = col};
        *pp = p;
        return push(lx, t);
    }
    if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
        return lex_number(lx, pp, line, col);
    if (*p == '"' || *p == '\'')
        return lex_string(lx, pp, line, col);
    return lex_op(lx, pp, line, col);
}

bool tir_lex(lexer *lx) {
    const char *p = lx->src, *line_start = p;
    int line = 1;
    bool at_line_start = true;
    lx->indents[0] = 0;
    lx->nindent = 1;
    while (!err_set(&lx->s->err)) {
        if (at_line_start && lx->depth > 0)
            at_line_start = false; /* a continuation line inside brackets */
        if (at_line_start) {
            int w = indent_of(lx, p, line);
            if (w == -2)
                return false;
            if (w >= 0 && !indent_to(lx, w, p + w, line))
                return false;
            at_line_start = false;
        }
        if (*p == '\0')
            break;
        if (*p == ' ' || *p == '\r' || *p == '\t') {
            p++;
            continue;
        }
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (*p == '\\' && p[1] == '\n') {
            p += 2, line++, line_start = p;
            continue;
        }
        if (*p == '\n') {
            int n = lx->toks.n;
            if (lx->depth == 0 && n > 0 && lx->toks.ptr[n - 1].kind != TK_NEWLINE &&
                lx->toks.ptr[n - 1].kind != TK_INDENT && lx->toks.ptr[n - 1].kind != TK_DEDENT &&
                !push_kind(lx, TK_NEWLINE, p, line, (int)(p - line_start) + 1))
                return false;
            p++, line++, line_start = p, at_line_start = true;
            continue;
        }
        if (!lex_one(lx, &p, line, (int)(p - line_start) + 1))
            return false;
    }
    if (err_set(&lx->s->err))
        return false;
    int n = lx->toks.n;
    if (n > 0 && lx->toks.ptr[n - 1].kind != TK_NEWLINE && lx->toks.ptr[n - 1].kind != TK_DEDENT &&
        !push_kind(lx, TK_NEWLINE, p, line, (int)(p - line_start) + 1))
        return false;
    while (lx->nindent > 1) {
        lx->nindent--;
        if (!push_kind(lx, TK_DEDENT, p, line, (int)(p - line_start) + 1))
            return false;
    }
    return push_kind(lx, TK_EOF, p, line, (int)(p - line_start) + 1);
}
