/*
 * interp_int.h -- what the executor's files share: the state of one run.
 */
#ifndef WF_RUNTIME_INTERP_INT_H
#define WF_RUNTIME_INTERP_INT_H

#include "runtime/interp.h"

#include <string.h>

/* The inner loops' helpers: inlined, their failure paths kept out of line. */
#if defined(__GNUC__)
#define IX_INLINE inline __attribute__((always_inline))
#define IX_COLD   __attribute__((cold, noinline))
#else
#define IX_INLINE inline
#define IX_COLD
#endif

/* Shadow state of one shared-memory cell (one element, at its byte offset). */
typedef struct {
    int32_t writer, reader; /* thread ids since the epoch below; -1 none; reader -2 = several */
    uint32_t wepoch, repoch;
    uint8_t written; /* 0 never, 1 written, 2 by a TMA load whose mbarrier no one waited on,
                        3 written and read by a wgmma still in flight (interp_wgmma.c) */
} ix_cell;

/* Shadow state of one global cell of a tensor the kernel writes, in two
   parts: the last write (ix_exec.gw: one packed stamp per cell) and the reads
   (ix_gread, touched only once the tensor is read). A stamp is the barrier
   epoch of the access (ix_exec.gepoch, unique over the launch: the same
   epoch means the same block and no barrier in between; 0 = none) and the
   thread, packed by ix_stamp; every epoch of the current block is at least
   ix_exec.bepoch, so a stamp below it is another block's, and
   ix_stamp_block finds which (interp_stmt.c). Reads keep the first and the
   latest reader (blocks run in order, so a reader block other than a later
   writer's is one of these two), and another thread that read in the latest
   reader's epoch. */
typedef struct {
    uint64_t first, latest; /* stamps of the first read in the launch and of the latest one */
    int32_t rother;         /* 1 + another thread that read in latest's epoch, or 0 */
} ix_gread;

#define IX_STAMP_THREAD_BITS 16 /* a block has at most 1024 threads */
#define IX_MAX_EPOCH         ((uint64_t)1 << (64 - IX_STAMP_THREAD_BITS))
static inline uint64_t ix_stamp(uint64_t epoch, int t) {
    return epoch << IX_STAMP_THREAD_BITS | (uint64_t)t;
}
static inline uint64_t ix_stamp_epoch(uint64_t s) {
    return s >> IX_STAMP_THREAD_BITS;
}
static inline int ix_stamp_thread(uint64_t s) {
    return (int)(s & ((1u << IX_STAMP_THREAD_BITS) - 1));
}

/* What an access needs of a tensor in this launch, gathered once
   (ix_exec.view): the arrays of interp_mem.c by tensor, and its type. */
typedef struct {
    unsigned char *data; /* global: the buffer; shared/tensor: smem + off; local: per thread */
    uint8_t *lwritten;   /* local: written flags */
    uint8_t *gwritten;   /* output: written flags, or NULL */
    uint64_t *gw;        /* written global tensor: the last write's stamp per cell, or NULL */
    ix_gread *gr;        /* and its reads */
    int64_t size;        /* elements (global: addressable ones) */
    int64_t off;         /* shared/tensor: byte offset in the block's memory */
    int es;              /* element size */
    it_space space;
    wf_dtype dtype;
    bool gread; /* gr: some cell has been read in the launch (else all its cells are zero) */
} ix_view;

typedef struct {
    wf_kernel *k;
    const it_program *p;
    const rt_launch *l;
    int nthreads;
    int64_t bid[3];
    int64_t *tid[3];      /* per thread */
    int64_t *loopv;       /* per loop slot */
    int64_t *symv;        /* per symbol slot */
    int64_t *regs;        /* max_regs x nthreads */
    const int64_t **regp; /* max_regs: where each instruction's result is (ix_eval) */
    int64_t *cache;       /* ncache x nthreads: block-invariant results (ix_ins.cache) */
    uint64_t *cache_gen;  /* per cache slot: the block generation it was computed in */
    uint64_t gen;         /* the current block's generation (+1 per block) */
    uint8_t *mask;        /* per thread: active */
    uint8_t *masks;       /* max_if_depth x nthreads: the masks saved by enclosing IFs */
    int if_depth;         /* IFs entered */
    int64_t *saved;       /* 2 x nthreads: a statement's input indices (the registers are reused) */
    int64_t *units;       /* statistics scratch: the words / sectors of one warp access */
    int64_t *words;
    int nunits;     /* capacity of units and words */
    uint32_t epoch; /* barrier epoch within the block (starts at 1) */
    unsigned char *smem;
    ix_cell *sshadow;      /* per byte offset of shared memory */
    unsigned char **local; /* per tensor: nthreads x size elements, or NULL */
    uint8_t **lwritten;    /* per tensor: written flags (3: a wgmma in flight writes it) */
    unsigned char **gdata; /* per tensor: global base pointer */
    int64_t *gelems;       /* per tensor: addressable elements of a global buffer */
    uint8_t **gwritten;    /* per output tensor: a flag per addressable element */
    uint64_t **gw;         /* per global tensor a statement writes: a write stamp per element,
                              or NULL (untracked: see interp_mem.c) */
    ix_gread **gr;         /* and its read stamps, per element */
    ix_view *view;         /* per tensor: what an access needs (ix_exec_init) */
    int64_t blin;          /* linear id of the current block (x fastest) */
    uint64_t gepoch;       /* barrier epoch over the launch: +1 per block and per barrier */
    uint64_t bepoch;       /* the current block's first epoch */
    struct {               /* the blocks that stamped global cells: their first epochs */
        uint64_t *epoch;
        int64_t *blin;
        int64_t n, cap;
    } stamped;
    int64_t work, budget; /* statement executions so far (per thread), the most allowed */
    int64_t *addr;        /* scratch: byte address per thread, for statistics */
    int64_t *off, *size;  /* per tensor, this launch: byte offset in the block's memory
                             (shared/tensor), elements (local/shared/tensor) */
    int64_t block_bytes;  /* tensor memory, then shared memory */

    struct ix_mbars *mbars; /* mbarriers of the current block (interp_hw.c), or NULL */
    struct ix_grid *grid;   /* a grid reduction's work buffer (interp_reduce.c), or NULL */
    struct ix_wgmma *wgmma; /* the warp groups' wgmma groups in flight (interp_wgmma.c) */
    bool in_wgmma;          /* a wgmma accesses its own accumulator: lwritten 3 is written */
    union ix_value *acc;    /* nacc x nthreads float accumulators of 16-bit reductions */
    union ix_value *rwork;  /* 2 x nthreads: a block reduction's values (interp_reduce.c) */
    int64_t *rindex;        /* 5 x nthreads: a reduction's indices and predicates */
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
/* ix_binary with t's compute type c given (ix_ctype_of(t)). */
ix_value ix_binary_c(int op, ix_value a, ix_value b, ix_ctype c);
/* Float to integer type t: cvt.rzi.sat (interp_ops.c). */
int64_t ix_saturate(double x, wf_dtype t);

/* The same for the inner loops, inline: the common cases in place, the rest
   by the functions above (identical results). */
static inline ix_value ix_load_fast(wf_dtype t, const unsigned char *p) {
    ix_value v = {0};
    if (t == WF_F32) {
        memcpy(&v.f, p, 4);
        return v;
    }
    return ix_load(t, p);
}

static inline void ix_store_fast(wf_dtype t, unsigned char *p, ix_value v) {
    if (t == WF_F32)
        memcpy(p, &v.f, 4);
    else
        ix_store(t, p, v);
}

/* v (in compute type f) to type `to` of compute type c: ix_convert. */
static inline ix_value ix_convert_ct(ix_value v, ix_ctype f, wf_dtype to, ix_ctype c) {
    double x = f == IX_CT_FLOAT ? (double)v.f : v.d;
    ix_value r = v;
    if (c == IX_CT_INT && f != IX_CT_INT)
        r.i = to == WF_BOOL ? x != 0 : ix_saturate(x, to);
    else if (c == IX_CT_INT && to == WF_BOOL)
        r.i = v.i != 0;
    else if (c == IX_CT_FLOAT)
        r.f = f == IX_CT_INT ? (float)v.i : (float)x;
    else if (c == IX_CT_DOUBLE)
        r.d = f == IX_CT_INT ? (double)v.i : x;
    return r;
}

static inline ix_value ix_binary_fast(int op, ix_value a, ix_value b, ix_ctype c) {
    ix_value r = {0};
    if (c == IX_CT_FLOAT && op == WF_ADD)
        r.f = (float)((double)a.f + (double)b.f);
    else if (c == IX_CT_FLOAT && op == WF_MUL)
        r.f = (float)((double)a.f * (double)b.f);
    else
        r = ix_binary_c(op, a, b, c);
    return r;
}
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
/* ix_access for the inner loops, from copies in registers of what it reads
   (ix_fast_init, once per statement execution: the stores through byte
   pointers would otherwise make the compiler reload it all per element):
   the accesses that pass their checks without a hazard cell (local, shared,
   untracked global) inline; it returns NULL for anything else, failures
   included, having changed nothing, and the caller then calls ix_access,
   which checks again from the start. */
typedef enum {
    IX_FAST_NONE,
    IX_FAST_LOCAL,
    IX_FAST_SHARED,
    IX_FAST_GLOBAL, /* without hazard cells */
    IX_FAST_HAZARD, /* with hazard cells: writes only, while no cell has been read */
} ix_fast_kind;
typedef struct {
    unsigned char *data; /* as ix_view's */
    uint8_t *flags;      /* local: lwritten; global: gwritten or NULL */
    uint64_t *gw;        /* hazard: the write stamps */
    const bool *gread;   /* hazard: ix_view.gread, live (a read in the statement may set it) */
    int64_t size, off;
    int es;
    ix_fast_kind kind;
} ix_fast_view;

typedef struct {
    ix_cell *shadow; /* x->sshadow */
    unsigned char *smem;
    uint32_t epoch;
    uint64_t gepoch, bepoch; /* x's */
    bool logged;             /* the block is in x->stamped already */
} ix_fast_block;

static inline ix_fast_view ix_fast_view_of(const ix_exec *x, int tensor) {
    const ix_view *v = &x->view[tensor];
    ix_fast_view f = {v->data, NULL, v->gw, &v->gread, v->size, v->off, v->es, IX_FAST_NONE};
    if (v->space == IT_LOCAL_T) {
        f.kind = IX_FAST_LOCAL;
        f.flags = v->lwritten;
    } else if (v->space == IT_SHARED_T) {
        f.kind = IX_FAST_SHARED;
    } else if (v->space == IT_GLOBAL_T) {
        f.kind = v->gw ? IX_FAST_HAZARD : IX_FAST_GLOBAL;
        f.flags = v->gwritten;
    }
    return f;
}

/* The current block is in x->stamped, added now if that needs no memory
   (else the slow path adds it, and can fail). Adding a block before it
   stamps changes no answer of stamp_block: stamps are epochs of the blocks
   before it, or of it. */
static inline bool ix_fast_log(ix_exec *x) {
    int64_t n = x->stamped.n;
    if (n && x->stamped.epoch[n - 1] == x->bepoch)
        return true;
    if (n == x->stamped.cap)
        return false;
    x->stamped.epoch[n] = x->bepoch;
    x->stamped.blin[n] = x->blin;
    x->stamped.n++;
    return true;
}

/* For a statement writing out (its view: hazard cells need the block logged). */
static inline ix_fast_block ix_fast_block_of(ix_exec *x, const ix_fast_view *out) {
    ix_fast_block b = {x->sshadow, x->smem, x->epoch, x->gepoch, x->bepoch, false};
    b.logged = out->kind == IX_FAST_HAZARD && ix_fast_log(x);
    return b;
}

static IX_INLINE unsigned char *ix_fast(const ix_fast_block *b, const ix_fast_view *v,
                                        int64_t index, int t, bool write) {
    if ((uint64_t)index >= (uint64_t)v->size)
        return NULL;
    switch (v->kind) {
    case IX_FAST_LOCAL: {
        size_t cell = (size_t)t * (size_t)v->size + (size_t)index;
        if (v->flags[cell] > 1) /* a wgmma in flight writes it: the slow path fails */
            return NULL;
        if (write)
            v->flags[cell] = 1;
        else if (!v->flags[cell])
            return NULL;
        return v->data + cell * (size_t)v->es;
    }
    case IX_FAST_GLOBAL:
        if (write && v->flags)
            v->flags[index] = 1;
        return v->data + index * (int64_t)v->es;
    case IX_FAST_HAZARD: { /* interp_stmt.c's global_hazard for a write, no cell read */
        uint64_t ws = v->gw[index];
        if (!write || *v->gread || !b->logged ||
            (ws && (ix_stamp_epoch(ws) < b->bepoch ||
                    (ix_stamp_epoch(ws) == b->gepoch && ix_stamp_thread(ws) != t))))
            return NULL;
        v->gw[index] = ix_stamp(b->gepoch, t);
        if (v->flags)
            v->flags[index] = 1;
        return v->data + index * (int64_t)v->es;
    }
    case IX_FAST_SHARED: {
        int64_t byte = v->off + index * (int64_t)v->es;
        ix_cell *c = &b->shadow[byte];
        bool wrote_now = c->wepoch == b->epoch && c->writer >= 0 && c->writer != t;
        if (write) {
            if (wrote_now || (c->repoch == b->epoch && c->reader != -1 && c->reader != t) ||
                c->written == 3)
                return NULL;
            c->writer = t;
            c->wepoch = b->epoch;
            c->written = 1;
        } else {
            if (c->written != 1 || wrote_now)
                return NULL;
            c->reader = (c->repoch == b->epoch && c->reader != -1 && c->reader != t) ? -2 : t;
            c->repoch = b->epoch;
        }
        return b->smem + byte;
    }
    default:
        return NULL;
    }
}

/* interp_reduce.c: a reduction's init, serial step, block or grid reduction;
   ix_reduce_free releases the run's grid work buffer. */
bool ix_reduce_stmt(ix_exec *x, const in_node *n);
bool ix_mma_stmt(ix_exec *x, const in_node *n); /* interp_mma.c */
void ix_reduce_free(ix_exec *x);

/* interp_wgmma.c: wgmma's asynchronous groups. A wgmma of warp group g notes
   the shared cells it reads (shadow index) and the accumulator cells it
   writes (lwritten's cell) in g's open group; commit_group closes it for the
   active warp groups, wait_group `keep` retires all but their `keep` newest. */
bool ix_wgmma_note_read(ix_exec *x, int g, int64_t byte);
bool ix_wgmma_note_acc(ix_exec *x, int g, int tensor, int64_t cell);
bool ix_wgmma_commit(ix_exec *x);
bool ix_wgmma_wait(ix_exec *x, int64_t keep);
bool ix_wgmma_block_end(ix_exec *x); /* no group may be in flight */
void ix_wgmma_free(ix_exec *x);
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
