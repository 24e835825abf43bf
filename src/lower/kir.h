/*
 * kir.h -- the kernel IR: the loop-nest program a fusion lowers to.
 *
 * A tree of nodes: `for` loops (an index variable, an extent and a parallel
 * type; thread- and block-parallel loops have no variable of their own and
 * print as nothing, their index is threadIdx/blockIdx), `if` (a predicate),
 * `alloc` (a tensor's buffer: memory type, size, shared-memory offset),
 * tensor statements (out[index] = op(in[index], ...), possibly a vector
 * access), and `sync` (__syncthreads). Every node lives in the compile
 * scratch arena. Lowering passes build and annotate it; codegen prints it.
 */
#ifndef WF_LOWER_KIR_H
#define WF_LOWER_KIR_H

#include "ir/ir.h"

typedef enum { KIR_FOR, KIR_IF, KIR_ALLOC, KIR_STMT, KIR_SYNC } kir_kind;

typedef struct kir_node kir_node;
typedef VEC(kir_node *) kir_list;

typedef struct {
    int group;         /* loop group (lower/loops.c) */
    wf_iterdomain *id; /* the promoted IterDomain this loop iterates */
    const wf_val *var; /* index: loop variable, threadIdx.x, ..., or 0 */
    const wf_val *extent;
    wf_ptype ptype;
    bool vector; /* a vectorized axis done by one vector access: no loop */
    kir_list body;
} kir_for;

typedef struct {
    const wf_val *cond;
    kir_list body;
} kir_if;

typedef struct {
    wf_tv *tv;
    wf_memtype mem;
    const wf_val *size;        /* elements */
    const wf_val *smem_offset; /* bytes into the dynamic shared-memory array */
    int region;                /* tensor memory: region number (launch info index) */
    int64_t row;               /* tensor memory: elements per lane; index = lane * row + column */
} kir_alloc;

typedef struct {
    ir_op *op;
    const wf_val *out_index;
    const wf_val *in_index[2];
    int vec;                            /* elements per access; 1 = scalar */
    const wf_val *pred;                 /* bounds predicate from indexing, NULL = none */
    const wf_val *tmem_lane, *tmem_col; /* StTMem/LdTMem: lane and 32-bit column */
} kir_stmt;

struct kir_node {
    kir_kind kind;
    kir_node *parent;
    union {
        kir_for loop;
        kir_if cond;
        kir_alloc alloc;
        kir_stmt stmt;
    } u;
};

kir_node *kir_new(wf_arena *a, kir_kind k);
bool kir_append(wf_arena *a, kir_list *l, kir_node *n, kir_node *parent);
bool kir_insert(wf_arena *a, kir_list *l, int at, kir_node *n, kir_node *parent);
kir_list *kir_body(kir_node *n); /* the child list of a for/if, NULL otherwise */
/* Print the tree (for WF_DUMP and golden tests), or one statement. */
void kir_print(sbuf *b, const kir_list *top);
void kir_print_stmt(sbuf *b, const kir_stmt *s);

#endif
