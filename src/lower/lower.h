/*
 * lower.h -- lowering a scheduled fusion to kernel IR and launch facts.
 *
 * lower_fusion runs the pass list of pipeline.c over a fusion and fills a
 * lower_result: the kernel IR, the kernel's tensor parameters, the launch
 * information and the checks that can only be made at launch. It never
 * changes the fusion; errors go to the fusion's sticky error.
 *
 * The launch: each of the six parallel dimensions (lower_pdim_table) is as
 * large as the largest loop parallelized on it. Where a loop's extent is
 * symbolic that maximum is only known at run time, so the result keeps every
 * distinct extent per dimension and the runtime takes the maximum per
 * launch. CUDA's limits on a launch (threads per block, grid extents, shared
 * memory per block, local memory per thread) are checked in one place,
 * lower_check_launch and lower_check_smem: by lowering where the values are
 * constants, and by the runtime (runtime/launch.c) for every launch on every
 * backend, with the same messages.
 */
#ifndef WF_LOWER_LOWER_H
#define WF_LOWER_LOWER_H

#include "ir/tma_rules.h"
#include "lower/kir.h"

/* ---- the parallel dimensions ---- */

/* In launch order: blockDim.x, .y, .z, then gridDim.x, .y, .z. */
enum { LOWER_NPDIMS = 6 };

typedef struct {
    wf_ptype ptype;   /* WF_TIDX ... WF_BIDZ */
    const char *name; /* "TIDx", as the printer names the parallel type */
    const char *cuda; /* "threadIdx.x": the index in CUDA C++ */
    bool grid;        /* a block index (gridDim), not a thread index (blockDim) */
    int axis;         /* 0, 1, 2 for x, y, z */
    int64_t limit;    /* the largest launch extent CUDA allows on it */
} lower_pdim;

extern const lower_pdim lower_pdim_table[LOWER_NPDIMS];
int lower_pdim_index(wf_ptype p); /* 0..5, or -1 for non-thread/block types */

/* CUDA's limits (compute capability 9.0 and 10.0) besides those per dimension. */
#define LOWER_MAX_BLOCK_THREADS 1024
#define LOWER_MAX_SMEM_BYTES    232448               /* dynamic shared memory per block: 227 KiB */
#define LOWER_MAX_LOCAL_BYTES   ((int64_t)512 << 10) /* local memory per thread: 512 KiB */

/* Check one launch's extents per dimension (launch order) against CUDA's
   limits; a -1 is not known yet and skipped. axis[d] (may be NULL, as may
   the array) names what gave dimension d its extent, for the message. */
bool lower_check_launch(const int64_t ext[LOWER_NPDIMS], const char *const *axis, wf_err *e);
/* Check a block's shared memory; detail (may be NULL) is appended to the message. */
bool lower_check_smem(int64_t bytes, const char *detail, wf_err *e);

/* ---- lowering ---- */

/* Options of one lowering, from wf_compile_options and the environment
   (api/compile.c reads WF_DUMP and WF_SKIP once). Bit i of dump/skip is the
   i-th pass of pipeline.c's list. */
typedef struct {
    int sm;         /* target, 0 = lowering picks (sm_100a for tensor memory, else sm_90a) */
    unsigned dump;  /* print the kernel IR to stderr after these passes */
    unsigned skip;  /* drop these passes (only predicate and sync may be dropped) */
    unsigned fail;  /* tests: these passes fail without an error, as a bug would */
    bool fast_math; /* wf_compile_options.fast_math: codegen spells fast f32 exp, log, div */
} lower_options;

/* Parse WF_DUMP / WF_SKIP style lists ("index,sync", "all"; NULL or "" =
   none) into o's masks; an unknown or unskippable pass name is a WF_ERR_ARG
   error in e that lists the valid names. */
bool lower_options_parse(lower_options *o, const char *dump, const char *skip, wf_err *e);

/* One kernel parameter: a fusion input or output, passed as Tensor<T, N>. */
typedef struct {
    wf_tv *tv;
    bool is_output;
    int index; /* position among the fusion's inputs or outputs */
    /* What is passed (kir.h): KP_TENSOR for every fusion input and output; KP_TENSOR_MAP
       for a TMA copy's tensor map of one of them. */
    kir_param_kind kind;
    int tma; /* KP_TENSOR_MAP: its lower_result.tmas entry; -1 otherwise */
} lower_param;

/* A condition that must hold at launch (e.g. divisibility of a symbolic extent). */
typedef struct {
    const wf_val *cond;
    const char *message;
    /* true: it compares extents of the caller's buffers with each other, so a
       failure is a bad argument (WF_ERR_ARG); false: the schedule does not
       fit these sizes (WF_ERR_SCHEDULE) */
    bool buffers;
    /* Optional: values the message shows, evaluated at launch, where it says {0}
       and {1} (the extents that disagree); NULL when it shows none. */
    const wf_val *vals[2];
} lower_check;

/* One extent of a loop parallelized on a dimension. */
typedef struct {
    const wf_val *extent;
    const char *axis; /* "T2's axis iS3{128}", for messages */
} lower_extent;
typedef VEC(lower_extent) lower_extents;

/* Circular buffering: stages of one tensor (mbarriers, prologue). */
#define LOWER_TMA_MAX_STAGES 16

/* One TMA copy (lower/tma.c): its tensor map, inferred from the schedule,
   and what each issue of it needs. Dimension 0 is the innermost. */
typedef struct {
    wf_tma_info info;                    /* as wf_kernel_tma reports it */
    const wf_val *gdim[TMA_MAX_RANK];    /* elements per dimension */
    const wf_val *gstride[TMA_MAX_RANK]; /* bytes between consecutive coordinates */
    const wf_val *coord[TMA_MAX_RANK];   /* the box's first coordinates, per issue */
    int64_t box_bytes;                   /* the bytes one issue moves (the whole box) */
    int64_t issuers;                     /* threads that issue a box each (TIDx/y/z axes
                                            of the consumer that are not tile axes) */
    int mbar;                            /* load: the mbarrier it completes; -1 store */
    int param;                           /* index of its KP_TENSOR_MAP parameter */
    /* A load's FTTC dimensions (seed 001, step 3): the box ID B of a striding
       split that does not divide it; where B's index passes its extent, the
       tile holds the next box's elements (holes), unless `fits` (the tensor is
       no larger than the box). Its readers must be guarded to B's extent
       (lower_tma_check_holes). `why` says it, for the message. */
    const wf_iterdomain *hole_id[TMA_MAX_RANK];
    const wf_val *hole_fits[TMA_MAX_RANK];
    const char *hole_why[TMA_MAX_RANK];
} lower_tma;

/* Elements of a TMA tile along dimension d: every element_strides[d]-th of
   the box, the first one included (the driver's ceil(boxDim / stride)). A
   strided copy moves only the tile: its box_bytes are the tile's bytes. */
static inline int64_t lower_tma_tile(const wf_tma_info *m, int d) {
    int64_t s = m->element_strides[d] > 0 ? m->element_strides[d] : 1;
    return (m->box[d] + s - 1) / s;
}

/* An input and an output (indices into lower_result.params) that may share
   one buffer: inplace.c proves each thread reads the input only at the very
   cell of the output it then writes, and no two write one cell. */
typedef struct {
    int in, out;
} lower_in_place_pair;

typedef struct {
    wf_arena arena; /* owns everything below */
    kir_list top;
    VEC(lower_param) params;
    VEC(lower_check) checks;
    lower_extents dims[LOWER_NPDIMS]; /* every distinct extent per dimension; none = 1 */
    wf_launch_info launch;
    const wf_val *smem;      /* dynamic shared-memory bytes (symbolic when a tile is) */
    const wf_val *tmem_slot; /* shared-memory offset of the tensor-memory address table */
    VEC(lower_tma) tmas;     /* TMA copies, in issue order (kir_stmt.hw.tma.index) */
    int64_t smem_align;      /* alignment the dynamic shared memory needs (bytes; 0 = 16) */
    const wf_val *red_smem;  /* shared-memory offset of the block reductions' workspace, or NULL */
    int nacc; /* float accumulator registers of 16-bit reductions (kir_stmt.acc: 1..nacc) */
    int sm;
    bool fast_math; /* from lower_options */
    VEC(lower_in_place_pair)
    in_place; /* the pairs safe in place (inplace.c); others must not
                 overlap */
} lower_result;

bool lower_fusion(wf_fusion *f, const lower_options *opt, lower_result *out);
void lower_result_free(lower_result *r);

#endif
