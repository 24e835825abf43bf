/*
 * tir_int.h -- what the files of src/tir/ share privately: the token array of the
 * lexer, the error helper that points at a line and column, and the scoped name table.
 */
#ifndef WF_TIR_TIR_INT_H
#define WF_TIR_TIR_INT_H

#include "tir/tir.h"

/* The deepest indentation the lexer follows. */
#define TIR_MAX_NEST 64

typedef enum {
    TK_NAME,
    TK_INT,
    TK_FLOAT,
    TK_STRING,
    TK_OP,
    TK_NEWLINE,
    TK_INDENT,
    TK_DEDENT,
    TK_EOF
} tok_kind;

typedef struct {
    tok_kind kind;
    const char *p; /* the text (a string: without its quotes) */
    int len;
    int line, col; /* 1-based */
    int64_t ival;
    double fval;
} tok;

typedef struct {
    wf_tir *s;
    const char *src;
    VEC(tok) toks;
    int indents[TIR_MAX_NEST];
    int nindent;
    int depth; /* open brackets: newlines inside them join lines */
} lexer;

bool tir_lex(lexer *lx);
/* Records "line:col: message", the source line and a caret as the sticky error. */
bool tir_error_at(wf_tir *s, const char *src, int line, int col, wf_status code, const char *fmt,
                  ...) WF_PRINTF(6, 7);

#endif
