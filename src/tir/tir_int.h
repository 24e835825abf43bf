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

/* ---- the parser (parse.c: statements; parse_expr.c: expressions; ptok.c: tokens,
   names, dtypes and shapes) ---- */

typedef struct {
    const char *name;
    tir_var *var;
    tir_buffer *buf;
    int64_t extent; /* a loop variable's extent (T.axis.remap takes it) */
} sym;

typedef struct {
    wf_tir *s;
    const char *src;
    tok *t; /* the current token */
    VEC(sym) syms;
    tir_block *blk; /* the block whose declarations are being read, or NULL */
    int depth;      /* expression nesting: bounded so that deep input cannot exhaust the stack */
    int nloops;     /* loops around the statement being read (at most TIR_MAX_LOOPS) */
} parser;
#define TIR_MAX_EXPR_DEPTH 200

/* ptok.c */
bool tir_fail_at(parser *ps, const tok *t, wf_status code, const char *msg);
bool tir_is_op(const tok *t, const char *op);
bool tir_is_name(const tok *t, const char *name);
bool tir_ok(parser *ps);
void tir_next(parser *ps);
bool tir_accept_op(parser *ps, const char *op);
bool tir_expect_op(parser *ps, const char *op);
bool tir_expect_kind(parser *ps, tok_kind k, const char *what);
char *tir_tok_str(parser *ps, const tok *t);
const tok *tir_t_attr(parser *ps);
bool tir_accept_t(parser *ps, const char *attr);
sym *tir_lookup(parser *ps, const tok *t);
bool tir_bind_name(parser *ps, const char *name, tir_var *v, tir_buffer *b);
tir_var *tir_new_var_tok(parser *ps, const tok *t);
bool tir_dtype_of(const tok *t, wf_dtype *out);
bool tir_parse_dtype_string(parser *ps, wf_dtype *out);
bool tir_parse_int(parser *ps, int64_t *out, const char *what);
bool tir_parse_shape(parser *ps, tir_buffer *b);
bool tir_parse_buffer_args(parser *ps, tir_buffer *b);
tir_buffer *tir_new_buffer(parser *ps, const tok *name);

/* parse_expr.c */
tir_expr *tir_new_expr(parser *ps, tir_expr_kind k, int nargs);
bool tir_parse_args(parser *ps, int n, tir_expr **out, const char *fn);
tir_expr *tir_parse_load(parser *ps, tir_buffer *b, const tok *at);
tir_expr *tir_parse_expr(parser *ps);

#endif
