/*
 * tir.h -- the TensorIR front door: a TVMScript program as an arena-owned AST of
 * loops and blocks, the schedule primitives that rewrite it, and its printer.
 *
 * This layer sits above the core API (it calls only weft.h and base/): TVM's schedule
 * primitives rewrite the TIR program itself, as TVM does, so that show() prints what TVM
 * prints; only wf_tir_build turns the scheduled program into a fusion (blocks become
 * tensors, loops IterDomains) and hands it to the one compiler.
 *
 * Invariants: every node lives in the schedule's arena and is never freed one by one;
 * a statement that a primitive replaces is marked dead (its handle becomes stale) and
 * left in the arena. Loop bounds are constant (min 0, constant extent); block iter
 * values are expressions of loop variables. Errors are the sticky wf_err of the
 * schedule: a refused primitive leaves the program as it was.
 */
#ifndef WF_TIR_TIR_H
#define WF_TIR_TIR_H

#include "base/arena.h"
#include "base/err.h"
#include "base/sbuf.h"
#include "base/vec.h"
#include "weft.h"

typedef struct tir_var {
    const char *name; /* as printed; loops: i, i_0, ax0 ...; block iters: vi, v0 ... */
    int id;           /* dense, per program */
} tir_var;

typedef enum { TIR_GLOBAL, TIR_SHARED, TIR_LOCAL } tir_scope;

typedef struct tir_buffer {
    const char *name;
    wf_dtype dtype;
    int ndim;
    int64_t shape[WF_MAX_RANK];
    tir_scope scope;
    bool is_param;      /* a function parameter (else allocated in a block) */
    const char *handle; /* a T.handle parameter: its name (the buffer is T.match_buffer's) */
    bool matched;       /* a T.handle parameter given its buffer by T.match_buffer */
} tir_buffer;

/* An annotation of a loop or a block (TVM's annotate; T.block_attr): a key and its
   value as TVMScript prints it (normalized: 16, 1.5, "s", [0, 0, 1]). */
typedef struct {
    const char *key;
    const char *value;
} tir_ann;
typedef VEC(tir_ann) tir_anns;

typedef enum { TE_INT, TE_FLOAT, TE_VAR, TE_LOAD, TE_BIN, TE_CALL, TE_NOT } tir_expr_kind;

/* Binary operators, in the printer's precedence classes. */
typedef enum {
    TB_ADD,
    TB_SUB,
    TB_MUL,
    TB_DIV,      /* / */
    TB_FLOORDIV, /* // */
    TB_MOD,      /* % */
    TB_LT,
    TB_LE,
    TB_GT,
    TB_GE,
    TB_EQ,
    TB_NE,
    TB_AND,
    TB_OR
} tir_binop;

typedef enum {
    TC_MAX,
    TC_MIN,
    TC_EXP,
    TC_SQRT,
    TC_IF_THEN_ELSE,
    TC_CAST,
    TC_SIGMOID,
    TC_TANH
} tir_callee;

typedef struct tir_expr tir_expr;
struct tir_expr {
    tir_expr_kind kind;
    wf_dtype dtype; /* TE_FLOAT, TE_CAST, loads; int32 otherwise */
    int op;         /* tir_binop or tir_callee */
    int64_t ival;
    double fval;
    tir_var *var;
    tir_buffer *buf;
    int nargs; /* operands / indices */
    tir_expr **args;
};

typedef enum { TIR_SERIAL, TIR_UNROLL, TIR_VECTORIZED, TIR_THREAD, TIR_PARALLEL } tir_for_kind;
typedef enum { TS_FOR, TS_BLOCK, TS_SEQ, TS_STORE } tir_stmt_kind;

typedef struct tir_block tir_block;
typedef struct tir_stmt tir_stmt;

typedef struct {
    tir_var *var;
    int64_t extent;
    bool reduce;     /* T.axis.reduce */
    tir_expr *value; /* binding: an expression of loop variables */
} tir_iter;

struct tir_block {
    const char *name;
    int niters;
    tir_iter *iters;
    tir_expr *where; /* T.where predicate, or NULL */
    tir_stmt *init;  /* T.init() body, or NULL */
    tir_stmt *body;
    VEC(tir_buffer *) allocs; /* T.alloc_buffer inside the block */
    tir_stmt *stmt;           /* the TS_BLOCK statement holding it */
    bool dead;                /* removed by compute_inline: its handles are stale */
    int rv;                   /* the trace's number of the last handle given out */
    const char *rv_name;      /* "b0" ... or NULL before any */
    tir_anns anns;            /* T.block_attr, sorted by key */
};

struct tir_stmt {
    tir_stmt_kind kind;
    tir_stmt *parent; /* NULL at the function body */
    /* TS_FOR */
    tir_var *loop_var;
    int64_t extent;
    tir_for_kind for_kind;
    const char *thread; /* "threadIdx.x" ... for TIR_THREAD */
    tir_stmt *body;
    bool dead;           /* replaced by a primitive: handles to it are stale */
    int rv;              /* loops: the trace's number of the last handle given out */
    const char *rv_name; /* "l1" ... or NULL before any */
    tir_anns anns;       /* the loop's annotations, sorted by key */
    /* TS_SEQ */
    VEC(tir_stmt *) seq;
    /* TS_STORE */
    tir_buffer *buf;
    int nidx;
    tir_expr **idx;
    tir_expr *value;
    /* TS_BLOCK */
    tir_block *block;
};

/* The limit on loops above one block and on factors of one split. */
#define TIR_MAX_LOOPS 32
/* The most buffers (and blocks) one program may have to be built. */
#define TIR_MAX_BUFFERS 64

/* The program and its schedule: the public wf_tir. */
struct wf_tir {
    wf_arena arena;
    wf_err err;
    const char *name;   /* the function's global_symbol (its name unless T.func_attr says) */
    const char *fname;  /* the name after def */
    bool in_module;     /* given as an IRModule class (printed as one, the function by fname) */
    const char *module; /* that class's name */
    int noalias;        /* T.func_attr's "tir.noalias": 0 absent, 1 True, 2 False */
    tir_block root;     /* the root block's handle (get_block("root"), get_child_blocks) */
    VEC(tir_buffer *) params;
    VEC(tir_buffer *) root_allocs; /* allocated in the implicit root block */
    tir_stmt *body;                /* the root block's body */
    VEC(tir_block *) blocks;       /* every block made, dead ones included */
    VEC(tir_stmt *) loops;         /* every loop made, dead ones included */
    int nvars;                     /* ids handed out */
    sbuf script;                   /* the last wf_tir_script text */
    sbuf trace;                    /* the schedule calls made so far, as Python */
    int nhandles;                  /* b0, l1 ... numbering of the trace */
    wf_fusion *fusion;             /* the last wf_tir_build's fusion (kept with the kernel) */
    int nbuilt;                    /* that build's blocks and the tensors they wrote */
    const tir_block *built_block[TIR_MAX_BUFFERS];
    wf_tv *built_tv[TIR_MAX_BUFFERS];
    bool parsed; /* the whole text parsed: the program is complete */
};

/* ---- building nodes (parse.c, the primitives) ---- */
tir_var *tir_var_new(wf_tir *s, const char *name);
tir_expr *tir_int(wf_tir *s, int64_t v);
tir_expr *tir_var_ref(wf_tir *s, tir_var *v);
tir_expr *tir_bin(wf_tir *s, tir_binop op, tir_expr *a, tir_expr *b);
tir_expr *tir_load(wf_tir *s, tir_buffer *b, int n, tir_expr *const *idx);
tir_stmt *tir_stmt_new(wf_tir *s, tir_stmt_kind kind);
tir_stmt *tir_for_new(wf_tir *s, tir_var *v, int64_t extent, tir_stmt *body);
bool tir_seq_push(wf_tir *s, tir_stmt *seq, tir_stmt *x);
/* Sets parent pointers below st (after a rewrite). */
void tir_fix_parents(tir_stmt *st, tir_stmt *parent);

/* ---- parse.c ---- */
bool tir_parse(wf_tir *s, const char *src);

/* The canonical spelling of a thread axis ("threadIdx.x"), or NULL if it is none. */
const char *tir_thread_name(const char *p, int len);
/* Are loops[0..n) nested one directly in the next, each the only child? */
bool tir_perfect_chain(wf_tir *s, int n, tir_stmt *const *loops, const char *fn);

/* ---- print.c ---- */
void tir_print(wf_tir *s, sbuf *out);
void tir_print_expr(sbuf *out, const tir_expr *e);
/* {"key": value, ...}: annotations as TVMScript writes them (annot.c keeps them). */
void tir_print_anns(sbuf *out, const tir_anns *anns);
/* A float as TVM prints one: an integral value with ".0" (fixed), else 17 digits. */
void tir_print_float(sbuf *out, double v);
const char *tir_dtype_name(wf_dtype t);
const char *tir_scope_name(tir_scope sc);

/* ---- expr.c: expression utilities ---- */
/* A copy of e with every variable in from[i] replaced by the expression to[i]. */
tir_expr *tir_subst(wf_tir *s, const tir_expr *e, int n, tir_var *const *from, tir_expr *const *to);
/* The same, nothing simplified: TVM's fuse substitutes a block's T.where so. */
tir_expr *tir_subst_raw(wf_tir *s, const tir_expr *e, int n, tir_var *const *from,
                        tir_expr *const *to);
/* Folds constants and x*1, x+0, 0*x: the forms TVM's simplifier prints. */
tir_expr *tir_simplify(wf_tir *s, tir_expr *e);
bool tir_expr_equal(const tir_expr *a, const tir_expr *b);
bool tir_expr_uses(const tir_expr *e, const tir_var *v);
/* Reads and writes of a block, each buffer once, in first-access order. */
typedef struct {
    tir_buffer *buf;
    tir_expr *lo[WF_MAX_RANK]; /* region start per dimension */
    int64_t ext[WF_MAX_RANK];  /* region extent per dimension (1: a point) */
} tir_region;
typedef VEC(tir_region) tir_regions;
bool tir_block_regions(wf_tir *s, const tir_block *b, tir_regions *reads, tir_regions *writes);

/* ---- sched.c / cache.c: the primitives (arguments checked by api.c) ---- */
/* Loops above a block, outermost first; returns the count (up to max written). */
int tir_loops_of(const tir_block *b, tir_stmt **out, int max);
/* The number of loops around a statement. */
int tir_loop_depth(const tir_stmt *st);
tir_block *tir_find_block(wf_tir *s, const char *name);
bool tir_split(wf_tir *s, tir_stmt *loop, int n, const int64_t *factors, tir_stmt **out);
tir_stmt *tir_fuse(wf_tir *s, int n, tir_stmt *const *loops);
bool tir_reorder(wf_tir *s, int n, tir_stmt *const *loops);
bool tir_annotate(wf_tir *s, tir_stmt *loop, tir_for_kind kind, const char *thread);
tir_block *tir_cache_read(wf_tir *s, tir_block *b, int index, tir_scope scope);
tir_block *tir_cache_write(wf_tir *s, tir_block *b, int index, tir_scope scope);
bool tir_compute_at(wf_tir *s, tir_block *b, tir_stmt *loop, bool reverse);
bool tir_compute_inline(wf_tir *s, tir_block *b);
bool tir_reverse_compute_inline(wf_tir *s, tir_block *b);
/* rfactor.c: TVM's rfactor of the reduction block under loop; returns the new block. */
tir_block *tir_rfactor(wf_tir *s, tir_stmt *loop, int factor_axis);
/* Inserts x into the root sequence right after the root statement holding anchor. */
bool tir_insert_after(wf_tir *s, tir_stmt *anchor, tir_stmt *x);
/* Replaces old by new in old's parent (or the function body). */
void tir_replace(wf_tir *s, tir_stmt *old, tir_stmt *repl);
/* Iterates every block statement in program order. */
typedef bool (*tir_block_fn)(tir_block *b, void *ctx);
bool tir_each_block(tir_stmt *st, tir_block_fn fn, void *ctx);

/* ---- annot.c: annotations (TVM's annotate / unannotate, T.block_attr) ---- */
/* The value text[0..len) (an int, a float, a "string", True / False or a [list] of
   them) as TVMScript prints it, in the arena; NULL with *why set if it is none. */
const char *tir_ann_value(wf_tir *s, const char *text, size_t len, const char **why);
/* Sets key to value in anns (replacing its value), keeping the keys sorted. */
bool tir_ann_set(wf_tir *s, tir_anns *anns, const char *key, const char *value);
/* Removes key from anns; false if it is not there. */
bool tir_ann_remove(tir_anns *anns, const char *key);
const char *tir_ann_get(const tir_anns *anns, const char *key);
/* A copy of from's annotations (their own array: each list is changed alone). */
bool tir_ann_copy(wf_tir *s, tir_anns *to, const tir_anns *from);

/* ---- blocks.c: block queries and the block primitives ---- */
/* The live blocks under a block's body or a loop, outermost first, in program order
   (TVM's get_child_blocks: nested blocks are not listed); up to max written. */
int tir_child_blocks(wf_tir *s, tir_stmt *under, tir_block **out, int max);
/* The blocks writing what b reads (producers) or reading what b writes (consumers),
   in program order. */
int tir_block_deps(wf_tir *s, tir_block *b, bool consumers, tir_block **out, int max);
bool tir_set_scope(wf_tir *s, tir_block *b, int index, tir_scope scope);
bool tir_storage_align(wf_tir *s, tir_block *b, int index, int axis, int64_t factor,
                       int64_t offset);
tir_block *tir_decompose_reduction(wf_tir *s, tir_block *b, tir_stmt *loop);
/* The init block decompose_reduction made for b (b has reduce iters and no T.init()):
   the last block before b writing b's buffer, one store of a constant at its iters
   (none reduced) in order, over the whole buffer; or NULL. */
const tir_block *tir_split_init(const wf_tir *s, const tir_block *b);
/* The store that starts b's reduction: its T.init(), or its split init block's body;
   NULL if neither. */
const tir_stmt *tir_init_of(const wf_tir *s, const tir_block *b);

/* ---- build.c ---- */
wf_kernel *tir_build(wf_tir *s, const wf_compile_options *opt);
/* build_loops.c: the loops around b become tv's loop domain; tv's dims are the iters
   of mask (bit k: iter k), in order. A loop j no dim uses is a loop-domain broadcast
   IterDomain if may_broadcast[j], else an error. */
/* The parallel type a loop's kind and thread binding give. */
wf_ptype tir_loop_ptype(const tir_stmt *loop);
bool tir_build_loop_domain(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                           const bool *may_broadcast);
/* The same for a block computed at pos loops of its reader by the core's
   wf_compute_at (tv's first pos axes are the reader's): the loops inside them. */
bool tir_build_loop_domain_at(wf_tir *s, const tir_block *b, wf_tv *tv, uint32_t mask,
                              const bool *may_broadcast, int pos);

#endif
