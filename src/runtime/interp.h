/*
 * interp.h -- the CPU reference executor's program and entry points.
 *
 * At compile time the kernel IR is turned into an interpreter program owned
 * by the kernel: the same loops, predicates, allocations, statements and
 * barriers, with every index and predicate compiled to a short register
 * program. At run time the program executes block by block; the threads of a
 * block run in lockstep under an active mask, and every expression is
 * evaluated for all threads at once (uniform values once), which keeps the
 * interpretation overhead per element small. Memory is modelled per space:
 * global (the caller's buffers), shared and tensor memory (per block) and
 * local (per thread),
 * with shadow state to catch out-of-bounds accesses, races on shared memory,
 * reads of cells never written and output elements no thread wrote, and
 * global-memory hazards: a global cell written in the launch and touched by
 * another block (a cross-block race: blocks cannot synchronize), or by another
 * thread of its block without a barrier in between. A launch runs at most a
 * budget of statement executions (WF_INTERP_BUDGET), so a kernel with a loop
 * of 2^40 iterations is refused at once rather than run for hours. Op math
 * follows the generated CUDA bit for bit where it is exact (interp_ops.c).
 */
#ifndef WF_RUNTIME_INTERP_H
#define WF_RUNTIME_INTERP_H

#include "runtime/runtime.h"

typedef enum {
    IX_CONST,
    IX_LOOP,
    IX_TID,
    IX_BID,
    IX_SYM, /* leaves */
    IX_OP,  /* a binary operator: `kind` */
} ix_op;

typedef struct {
    uint8_t op;
    uint8_t kind;  /* IX_OP: the val_kind, evaluated by val_apply */
    bool vary;     /* differs between threads of a block */
    bool loop;     /* depends on a loop variable */
    int32_t a, b;  /* operand registers; leaf: slot (loop/dim/symbol) */
    int32_t cache; /* an IX_OP that varies but not with loops (the same all block long):
                      its slot in the executor's per-block cache, else -1 */
    int64_t c;     /* IX_CONST */
} ix_ins;

typedef struct {
    ix_ins *ins; /* result is the last instruction */
    int n;
} ix_expr;

typedef enum { IT_GLOBAL_T, IT_LOCAL_T, IT_SHARED_T, IT_TMEM_T } it_space;

typedef struct {
    int tv; /* tensor id, for messages */
    wf_dtype dtype;
    it_space space;
    int param;      /* global: kernel parameter index */
    int64_t size;   /* local/tensor: elements */
    int64_t offset; /* tensor: bytes into the block's memory */
    int64_t row;    /* tensor memory: elements per lane (index = lane * row + column) */
    const wf_val *shared_offset, *shared_size; /* shared: bytes into shared memory, elements
                                                  (evaluated per launch: may be symbolic) */
} it_tensor;

typedef enum { IN_FOR, IN_IF, IN_ALLOC, IN_STMT, IN_SYNC, IN_HW } in_kind;

typedef struct in_node in_node;
struct in_node {
    in_kind kind;
    in_node **kids;
    int nkids;
    /* IN_FOR */
    int slot; /* loop variable slot, -1 for loops without a variable */
    ix_expr extent;
    bool serial; /* iterate; otherwise the body runs once (parallel, vector, extent 1) */
    /* IN_IF */
    ix_expr cond;
    /* IN_ALLOC */
    int tensor;
    /* IN_SYNC (but a block barrier), IN_HW: the typed payload (interp_hw.c) */
    const struct ix_hw *hw;
    /* IN_SYNC and TMA loads in a circular buffer: the stage added to the mbarrier
       (n == 0: none) and a wait's phase (n == 0: the payload's constant one) */
    ix_expr mbar_off, phase;
    /* IN_STMT */
    wf_ldst copy;     /* its copy kind: the executor's hook (interp_copy.c) */
    int id;           /* statement number, for statistics */
    const char *text; /* the statement as kir prints it, for messages */
    op_kind op;
    int sub;
    int out, in[IR_MAX_OP_INPUTS], nin; /* tensor table indices */
    ix_expr out_index, in_index[IR_MAX_OP_INPUTS];
    wf_dtype cdtype; /* the type the op computes in (ir_op.cdtype) */
    int nargs;       /* operands (ir_op_operand): arg_in[k] indexes in[], or -1 for sc[k] */
    int8_t arg_in[IR_MAX_OP_INPUTS];
    ir_scalar sc[IR_MAX_OP_INPUTS]; /* scalar operands, in cdtype (copied: no IR pointer) */
    int vec;
    int tma;          /* TMA: its entry of the kernel's tensor maps (k->tmas); -1 otherwise */
    ix_expr coord[5]; /* TMA: the box's first coordinates, dimension 0 innermost */
    int ldm_count;    /* LdMatrix / StMatrix: 8x8 matrices per instruction (.x1/.x2/.x4) */
    bool ldm_trans;   /* LdMatrix: .trans */
    ix_expr ldm_row;  /* LdMatrix / StMatrix: the row address (element) each thread supplies */
    int mma;          /* > 0: mma.sync (1, its A operand in[mma_a]) or wgmma (2: wg_*) */
    int mma_a;
    bool view;            /* a wgmma operand's view: nothing to run or allocate */
    int wg_n, wg_tile[2]; /* wgmma: N; A's and B's shared tiles (tensor indices) */
    ix_expr wg_start[2];  /* their element index at the tile's first element */
    bool wg_mn[2];        /* MN-major (.trans) */
    int64_t wg_lbo[2], wg_sbo[2], wg_base[2]; /* descriptor offsets; the tiles' bytes */
    bool fill;                                /* out = fill_pred ? value : 0 (kir_stmt.fill) */
    ix_expr fill_pred;
    /* reductions (interp_reduce.c): the statement's kind, the reduced thread
       dims and a block reduction's read and write predicates */
    kir_red red;
    int acc; /* > 0: accumulates in register acc (kir_stmt.acc), not in out */
    unsigned red_tids, red_bids;
    ix_expr rpred, wpred;
    ix_expr giter, gniter; /* a grid reduction's serial iteration and their count */
};

/* Access statistics per statement, accumulated over a run. */
typedef struct {
    int64_t smem_accesses, smem_wavefronts;
    int smem_max_degree;
    int64_t gmem_accesses, gmem_sectors;
} it_stats;

typedef struct it_program {
    in_node *root; /* an IN_FOR-less list: kids are the top level */
    it_tensor *tensors;
    int ntensors;
    int nloops; /* loop variable slots */
    int nsyms;
    const wf_val **syms; /* size/stride symbols, evaluated per launch */
    int nstmts;
    it_stats *stats; /* per statement, from the last run */
    bool ran;        /* the last executor run got through (stats are whole); false before any */
    int64_t work;    /* the last run's statement executions (the work budget's count) */
    int64_t budget;  /* statement executions one launch may take; 0 = WF_INTERP_BUDGET or
                        IX_DEFAULT_BUDGET (interp_exec.c) */
    int max_regs;
    int ncache;               /* cache slots of block-invariant instructions (ix_ins.cache) */
    int max_if_depth;         /* IFs nested in IFs: the depth of the mask stack */
    int64_t max_access_bytes; /* bytes one thread moves in one access, at most */
    int64_t tmem_bytes;       /* per block, first tensor memory (128 lanes x 512 32-bit columns at
                                 most, one region per tensor), then shared memory */
} it_program;

/* Build the program from the lowering result into k's arena. */
bool rt_interp_build(wf_kernel *k, const lower_result *r);
/* Run on host buffers. Errors (and races, out-of-bounds accesses) go to k->err. */
wf_status rt_interp_run(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout);
/* WF_INTERP_BUDGET's syntax: a positive decimal count (false otherwise). */
bool rt_interp_parse_budget(const char *s, int64_t *out);

#endif
