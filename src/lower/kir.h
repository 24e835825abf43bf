/*
 * kir.h -- the kernel IR: the loop-nest program a fusion lowers to.
 *
 * A tree of nodes: `for` loops (an index variable, an extent and a parallel
 * type; thread- and block-parallel loops have no variable of their own and
 * print as nothing, their index is threadIdx/blockIdx), `if` (a predicate),
 * `alloc` (a tensor's buffer: memory type, size, shared-memory offset),
 * tensor statements (out[index] = op(in[index], ...), possibly a vector
 * access, carrying their copy kind: ir/ldst.def), `sync` (a barrier, an
 * mbarrier operation or a proxy fence: kir_sync_kind) and `hw` (the other
 * hardware statements: tensor-memory allocation and waits, and the warp-0
 * region that holds the warp-collective ones). Every node is typed: passes,
 * the printer, codegen, the executor and the verifier switch on the kinds,
 * never on which fields happen to be set. Every node lives in the compile
 * scratch arena. Lowering passes build and annotate it; codegen prints it.
 */
#ifndef WF_LOWER_KIR_H
#define WF_LOWER_KIR_H

#include "ir/ir.h"

typedef enum { KIR_FOR, KIR_IF, KIR_ALLOC, KIR_STMT, KIR_SYNC, KIR_HW } kir_kind;

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
    int stages; /* circular buffering (lower/tma_cb.c): copies of the buffer, 0 = 1 */
    bool view;  /* a wgmma operand's view (kir_stmt.view): allocates nothing */
    const wf_val *stage_elems; /* circular buffering: elements from one stage to the next */
} kir_alloc;

/* A reduction's statements (lower/reduce.c): its init, then its combine step,
   serial (out = op(out, in)) or a block-wide collective over the reduced
   thread dims, which every thread of the block reaches (never under an IF:
   its predicates are arguments). */
typedef enum {
    KRED_NONE,   /* not a reduction statement */
    KRED_INIT,   /* out[index] = the op's initial value; no input */
    KRED_FINAL,  /* out[index] = accumulator `acc` rounded to out's type; no input */
    KRED_SERIAL, /* out[index] = op(out[index], in[index]) */
    KRED_BLOCK,  /* v = op over the threads of the reduced dims of (pred ? in : init);
                    where wpred: out = op(out, v) */
    KRED_GRID    /* the block's v, then op over the blocks of the reduced block dims
                    (a work buffer and a semaphore); the last block to arrive writes
                    out = v where wpred */
} kir_red;

/* Init and final statements read no input. */
static inline bool kir_red_no_input(kir_red r) {
    return r == KRED_INIT || r == KRED_FINAL;
}

typedef struct {
    ir_op *op;
    wf_ldst copy; /* the copy kind (ir/ldst.def); WF_LDST_SET for every non-copy op */
    kir_red red;
    int acc;           /* > 0: the reduction accumulates in register wf_acc<acc> (its compute
                          type), not in out (a 16-bit float sum or product, or an output in
                          global memory: reduce.c); KRED_FINAL stores it */
    unsigned red_tids; /* KRED_BLOCK/GRID: bit d set where threadIdx dim d (x, y, z) is reduced */
    unsigned red_bids; /* KRED_GRID: bit d set where blockIdx dim d is reduced */
    const wf_val *grid_iter, *grid_niter; /* KRED_GRID: the enclosing serial loops' linear
                                             iteration and their count (each has its own
                                             semaphores and partials) */
    const wf_val *wpred; /* KRED_BLOCK: who writes the result (NULL = every thread) */
    const wf_val *out_index;
    const wf_val *in_index[IR_MAX_OP_INPUTS];
    int vec;            /* elements per access; 1 = scalar */
    const wf_val *pred; /* bounds predicate from indexing, NULL = none */
    bool fill;          /* out = pred ? value : 0, unguarded by pred (predicate.c): a tensor-core
                           operand tile, which the instruction reads whole (lower/mma.c) */
    int mma;            /* > 0: the tensor-core instruction of a wf_mma step (lower/mma.c):
                           1 = mma.sync.m16n8k16, its indices the fragments' first registers,
                           its A operand in[mma_a]; 2 = wgmma.m64nNk16 (hw.wg) */
    int mma_a;
    bool view; /* a wgmma operand's broadcast of its shared tile: nothing to compute (the
                  instruction reads the tile; lower/mma.c) */
    union {    /* what the copy kind's index hook adds, by `copy` */
        struct {
            const wf_val *lane, *col; /* StTMem/LdTMem: lane and 32-bit column */
        } tmem;
        struct {                    /* CpAsyncBulkTensorTile */
            int index;              /* its lower_result.tmas entry (tensor map: wf_tmap<index>) */
            int mbar;               /* load: the mbarrier it completes; -1 for a store */
            const wf_val *mbar_off; /* circular buffering: the stage, added to mbar (NULL = 0) */
            int rank;               /* dimensions of the tensor map */
            const wf_val *coord[5]; /* the box's first coordinates, dimension 0 innermost */
        } tma;
        struct {                    /* wgmma (mma == 2, lower/mma.c): A is operand 0 here */
            int n;                  /* the instruction's N */
            const wf_tv *smem[2];   /* A's and B's shared-memory tiles */
            const wf_val *start[2]; /* their element index at the tile's first element */
            bool mn_major[2];       /* the tile's M (A) or N (B) is contiguous (.trans) */
            int64_t lbo[2], sbo[2]; /* the descriptors' byte offsets (ir/mma_frag.h) */
            int64_t base[2];        /* the tiles' byte offsets in shared memory */
        } wg;
        struct {               /* LdMatrix / StMatrix (copy_ldmatrix.c) */
            int count;         /* 8x8 matrices per instruction: 1, 2, 4 (.x1/.x2/.x4) */
            bool trans;        /* .trans: lane t gets column t / 4 of stored rows */
            const wf_val *row; /* the shared-memory element index of the row this
                                  thread's lane supplies (row lane % 8 of matrix lane / 8) */
        } ldm;
    } hw;
} kir_stmt;

/* Barriers, mbarriers and proxy fences. The sync pass makes KSYNC_BLOCK; the
   mbarrier kinds are the completion mechanism of asynchronous copies (TMA):
   an mbarrier (64 bits of shared memory, wf_mbar[mbar]) counts arrivals and
   transaction bytes per phase; when both reach zero its phase completes. */
#define KIR_SYNC_KINDS(X)                                                                          \
    X(KSYNC_BLOCK, "SYNC")                           /* __syncthreads() */                         \
    X(KSYNC_MBAR_INIT, "MBAR_INIT")                  /* mbarrier.init: `count` arrivals a phase */ \
    X(KSYNC_MBAR_ARRIVE_TX, "MBAR_ARRIVE_EXPECT_TX") /* each thread arrives, expecting `bytes` */  \
    X(KSYNC_MBAR_COMPLETE_TX, "MBAR_COMPLETE_TX")    /* `bytes` of transactions complete */        \
    X(KSYNC_MBAR_WAIT, "MBAR_WAIT")                  /* try_wait.parity until `phase` completes */ \
    X(KSYNC_FENCE_PROXY_ASYNC, "FENCE_PROXY_ASYNC")  /* order generic before async-proxy accesses  \
                                                      */                                           \
    X(KSYNC_MBAR_INVAL, "MBAR_INVAL")         /* mbarrier.inval: it may be initialized again       \
                                               */                                                  \
    X(KSYNC_BULK_COMMIT, "BULK_COMMIT")       /* cp.async.bulk.commit_group */                     \
    X(KSYNC_BULK_WAIT_READ, "BULK_WAIT_READ") /* cp.async.bulk.wait_group.read 0 */                \
    X(KSYNC_WGMMA_FENCE, "WGMMA_FENCE")       /* wgmma.fence: registers before wgmma */            \
    X(KSYNC_WGMMA_COMMIT, "WGMMA_COMMIT")     /* wgmma.commit_group */                             \
    X(KSYNC_WGMMA_WAIT, "WGMMA_WAIT")         /* wgmma.wait_group `count` */
typedef enum {
#define X(kind, name) kind,
    KIR_SYNC_KINDS(X)
#undef X
} kir_sync_kind;

/* Does a sync of this kind operate on an mbarrier (the MBAR_* kinds)? */
static inline bool kir_sync_uses_mbar(kir_sync_kind k) {
    return k == KSYNC_MBAR_INIT || k == KSYNC_MBAR_ARRIVE_TX || k == KSYNC_MBAR_COMPLETE_TX ||
           k == KSYNC_MBAR_WAIT || k == KSYNC_MBAR_INVAL;
}

typedef struct {
    kir_sync_kind kind;
    int mbar;            /* mbarrier kinds: which mbarrier */
    int64_t count;       /* MBAR_INIT: arrivals that complete a phase; WGMMA_WAIT: the groups
                            left in flight */
    const wf_val *bytes; /* ARRIVE_TX / COMPLETE_TX: transaction bytes */
    int64_t phase;       /* MBAR_WAIT: the phase waited for (its parity is what PTX tests) */
    /* Circular buffering (lower/tma_cb.c): the mbarrier and phase depend on the loop. */
    const wf_val *mbar_off;  /* added to mbar (NULL = 0): the stage of this iteration */
    const wf_val *phase_val; /* MBAR_WAIT: the phase as a value; NULL = `phase` */
} kir_sync;

/* Hardware statements other than copies and barriers: tensor memory's life
   cycle (seed 000) and the region of warp 0 that runs its collectives. */
#define KIR_HW_KINDS(X)                                                                            \
    X(KHW_WARP0, "WARP0")                     /* body: run by the threads of warp 0 only */        \
    X(KHW_ELECT, "ELECT")                     /* body: one thread of warp 0, by elect.sync */      \
    X(KHW_TMEM_SLOTS, "TMEM_SLOTS")           /* the shared table tcgen05.alloc writes into */     \
    X(KHW_TMEM_ALLOC, "TMEM_ALLOC")           /* tcgen05.alloc of `columns` for `region` */        \
    X(KHW_TMEM_RELINQUISH, "TMEM_RELINQUISH") /* tcgen05.relinquish_alloc_permit */                \
    X(KHW_TMEM_DEALLOC, "TMEM_DEALLOC")       /* tcgen05.dealloc of `region` */                    \
    X(KHW_TMEM_WAIT_LD, "TMEM_WAIT_LD")       /* tcgen05.wait::ld: loads reached the registers */  \
    X(KHW_TMEM_WAIT_ST, "TMEM_WAIT_ST")       /* tcgen05.wait::st: stores left the registers */
typedef enum {
#define X(kind, name) kind,
    KIR_HW_KINDS(X)
#undef X
} kir_hw_kind;

typedef struct {
    kir_hw_kind kind;
    int region;           /* TMEM_ALLOC / TMEM_DEALLOC: the region (launch info index) */
    int64_t columns;      /* TMEM_ALLOC / TMEM_DEALLOC: 32-bit columns */
    const wf_val *offset; /* TMEM_SLOTS: bytes into the dynamic shared memory */
    kir_list body;        /* WARP0, ELECT */
} kir_hw;

/* What a kernel parameter passes (lower_param, rt_param). Each layer keeps a
   table keyed by this one: codegen's declaration (codegen/param.c), the
   CUDA launch's argument bytes and the executor's binding (runtime/param.c). */
#define KIR_PARAM_KINDS(X)                                                                         \
    X(KP_TENSOR, "tensor")           /* Tensor<T, N>: data pointer, sizes, strides */              \
    X(KP_SCALAR, "scalar")           /* a value, e.g. a run-time size or a constant */             \
    X(KP_TENSOR_MAP, "tensor map")   /* a CUtensorMap for TMA, passed __grid_constant__ */         \
    X(KP_WORK_BUFFER, "work buffer") /* scratch global memory, e.g. grid reductions' partials */
typedef enum {
#define X(kind, name) kind,
    KIR_PARAM_KINDS(X)
#undef X
        KIR_NPARAM_KINDS
} kir_param_kind;
const char *kir_param_name(kir_param_kind k);

struct kir_node {
    kir_kind kind;
    kir_node *parent;
    union {
        kir_for loop;
        kir_if cond;
        kir_alloc alloc;
        kir_stmt stmt;
        kir_sync sync;
        kir_hw hw;
    } u;
};

kir_node *kir_new(wf_arena *a, kir_kind k);
/* Does n run nothing: a view statement (kir_stmt.view) or allocation, or a
   loop or IF whose body runs nothing? Codegen and the executor skip it. */
bool kir_runs_nothing(const kir_node *n);
bool kir_append(wf_arena *a, kir_list *l, kir_node *n, kir_node *parent);
bool kir_insert(wf_arena *a, kir_list *l, int at, kir_node *n, kir_node *parent);
kir_list *kir_body(kir_node *n); /* the child list of a for/if/WARP0, NULL otherwise */
kir_node *kir_new_sync(wf_arena *a, kir_sync_kind k);
kir_node *kir_new_hw(wf_arena *a, kir_hw_kind k);
/* A block-wide barrier (__syncthreads), as opposed to mbarrier operations and fences. */
static inline bool kir_is_barrier(const kir_node *n) {
    return n->kind == KIR_SYNC && n->u.sync.kind == KSYNC_BLOCK;
}
const char *kir_sync_name(kir_sync_kind k);
const char *kir_hw_name(kir_hw_kind k);
/* Print the tree (for WF_DUMP and golden tests), or one statement. */
void kir_print(sbuf *b, const kir_list *top);
void kir_print_stmt(sbuf *b, const kir_stmt *s);

#endif
