/*
 * interp_int.h -- what the executor's files share: the state of one run.
 */
#ifndef WF_RUNTIME_INTERP_INT_H
#define WF_RUNTIME_INTERP_INT_H

#include "runtime/interp.h"

/* Shadow state of one shared-memory cell (one element, at its byte offset). */
typedef struct {
    int32_t writer, reader; /* thread ids since the epoch below; -1 none; reader -2 = several */
    uint32_t wepoch, repoch;
    uint8_t written; /* 0 never, 1 written, 2 by a TMA load whose mbarrier no one waited on */
} ix_cell;

/* Shadow state of one global cell of a tensor the kernel writes: the last
   writer, the first and the latest reader (blocks run in order, so a reader
   block other than a later writer's is one of these two), and the readers of
   the current barrier epoch. Epochs (ix_exec.gepoch) are unique over the
   launch: the same epoch means the same block and no barrier in between. */
typedef struct {
    int64_t wblock, rblock[2]; /* linear block ids; -1 none */
    uint64_t wepoch, repoch;   /* epoch of the last write, of the latest read */
    int32_t wthread, rthread[2];
    int32_t rother; /* another thread that read in epoch repoch besides rthread[1], or -1 */
} ix_gcell;

typedef struct {
    wf_kernel *k;
    const it_program *p;
    const rt_launch *l;
    int nthreads;
    int64_t bid[3];
    int64_t *tid[3]; /* per thread */
    int64_t *loopv;  /* per loop slot */
    int64_t *symv;   /* per symbol slot */
    int64_t *regs;   /* max_regs x nthreads */
    uint8_t *mask;   /* per thread: active */
    uint8_t *masks;  /* max_if_depth x nthreads: the masks saved by enclosing IFs */
    int if_depth;    /* IFs entered */
    int64_t *saved;  /* 2 x nthreads: a statement's input indices (the registers are reused) */
    int64_t *units;  /* statistics scratch: the words / sectors of one warp access */
    int64_t *words;
    int nunits;     /* capacity of units and words */
    uint32_t epoch; /* barrier epoch within the block (starts at 1) */
    unsigned char *smem;
    ix_cell *sshadow;      /* per byte offset of shared memory */
    unsigned char **local; /* per tensor: nthreads x size elements, or NULL */
    uint8_t **lwritten;    /* per tensor: written flags */
    unsigned char **gdata; /* per tensor: global base pointer */
    int64_t *gelems;       /* per tensor: addressable elements of a global buffer */
    uint8_t **gwritten;    /* per output tensor: a flag per addressable element */
    ix_gcell **ghazard;    /* per global tensor a statement writes: a cell per element, or NULL
                              (untracked: see interp_mem.c) */
    int64_t blin;          /* linear id of the current block (x fastest) */
    uint64_t gepoch;       /* barrier epoch over the launch: +1 per block and per barrier */
    int64_t work, budget;  /* statement executions so far (per thread), the most allowed */
    int64_t *addr;         /* scratch: byte address per thread, for statistics */
    int64_t *off, *size;   /* per tensor, this launch: byte offset in the block's memory
                              (shared/tensor), elements (local/shared/tensor) */
    int64_t block_bytes;   /* tensor memory, then shared memory */

    struct ix_mbars *mbars; /* mbarriers of the current block (interp_hw.c), or NULL */
    struct ix_grid *grid;   /* a grid reduction's work buffer (interp_reduce.c), or NULL */
    union ix_value *acc;    /* nacc x nthreads float accumulators of 16-bit reductions */
    int nacc;
} ix_exec;

/* ---- op math (interp_ops.c): the generated CUDA's semantics ---- */
typedef union ix_value {
    double d;
    float f;
    int64_t i;
} ix_value;
typedef enum { IX_CT_FLOAT, IX_CT_DOUBLE, IX_CT_INT } ix_ctype; /* what an op computes in */
/* Floats in their compute type (f32 for the 16-bit ones, f64), the rest in int64. */
static inline ix_ctype ix_ctype_of(wf_dtype t) {
    return !ir_dtype_is_float(t)            ? IX_CT_INT
           : ir_dtype(t)->compute == WF_F64 ? IX_CT_DOUBLE
                                            : IX_CT_FLOAT;
}
ix_value ix_load(wf_dtype t, const unsigned char *p);
void ix_store(wf_dtype t, unsigned char *p, ix_value v);
ix_value ix_convert(ix_value v, wf_dtype from, wf_dtype to);
bool ix_op_valid(op_kind kind, int sub, wf_dtype out); /* the table has this op for out */
ix_value ix_unary(int op, ix_value v, wf_dtype t);
ix_value ix_binary(int op, ix_value a, ix_value b, wf_dtype t);
/* A scalar operand's value in its type's compute type (the IR converted it). */
ix_value ix_scalar(const ir_scalar *s);

bool ix_exec_init(ix_exec *x, wf_kernel *k, const rt_launch *l);
void ix_exec_free(ix_exec *x);
void ix_block_reset(ix_exec *x);
bool ix_alloc(ix_exec *x, int tensor);
/* After a run: fail, naming the tensor and index, if an output element was never written. */
bool ix_check_outputs(ix_exec *x);
bool ix_stmt(ix_exec *x, const in_node *n);
/* interp_stmt.c: the storage of element `index` of a tensor for thread t,
   after every check of the access (NULL and the run's error on a failure). */
unsigned char *ix_access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                         bool write);
/* interp_reduce.c: a reduction's init, serial step, block or grid reduction;
   ix_reduce_free releases the run's grid work buffer. */
bool ix_reduce_stmt(ix_exec *x, const in_node *n);
void ix_reduce_free(ix_exec *x);
/* interp_expr.c: evaluate e for the block; the result is T registers, or 1
   if uniform (*vary says which). False on a division by zero. */
bool ix_eval(ix_exec *x, const ix_expr *e, const int64_t **res, bool *vary);
/* interp_stats.c: account one access of statement n to tensor at idx. */
void ix_record_stats(ix_exec *x, const in_node *n, int tensor, const int64_t *idx, bool vary);
/* Record an error of the run (first one wins, like err_failb): code says what
   kind (WF_ERR_SCHEDULE for what the kernel does wrong, WF_ERR_MEMORY when
   the executor runs out of memory, WF_ERR_UNSUPPORTED for its own limits). */
bool ix_fail(ix_exec *x, wf_status code, const char *fmt, ...) WF_PRINTF(3, 4);

#endif
