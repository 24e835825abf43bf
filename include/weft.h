/*
 * weft.h -- the public C API of weft, a GPU kernel-scheduling compiler.
 *
 * A user builds a *fusion* (a DAG of tensor operations), *schedules* each
 * tensor by transforming its IterDomains (split, merge, reorder, swizzle,
 * parallelize, inline, cache, memory types), then compiles it to a CUDA
 * kernel, run either on the GPU or on the CPU reference executor (which runs
 * the same kernel thread by thread and checks every access). docs/api.md
 * documents every name here with examples; docs/errors.md lists the error
 * messages; docs/tutorial-*.md are walk-throughs. Build with `make`, link
 * build/libweft.a (-ldl -lm) or build/libweft.so, or `make install` and use
 * `pkg-config --cflags --libs weft`.
 *
 * Not supported yet (each refused with WF_ERR_UNSUPPORTED and a message,
 * never a wrong kernel): some grid reductions (more than one per kernel,
 * a grid-reduced tensor read in the same kernel); the copy kind
 * WF_LDST_CP_ASYNC; the parallel types WF_DIDX/Y/Z (WF_MMA only on the tiles
 * of mma.sync m16n8k16 and wgmma m64nNk16: docs/tutorial-gemm.md; WF_BULK
 * only on TMA tile axes); intermediates in global memory; non-contiguous
 * allocation domains; a tensor that is both a fusion input and an output.
 *
 * Errors are sticky per fusion: the first error is recorded with a message,
 * later calls on that fusion do nothing and return NULL / -1 / the status.
 * Nothing in the library aborts, exits or prints on a user's mistake.
 * Axis arguments index the loop domain; negative axes count from the end.
 * Positions (inline_at, dim-separator) count boundaries 0..ndim; a negative
 * position wraps as pos + ndim + 1.
 */
#ifndef WEFT_H
#define WEFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WF_API __attribute__((visibility("default")))
#else
#define WF_API
#endif

#define WF_VERSION_MAJOR  0
#define WF_VERSION_MINOR  1
#define WF_VERSION_PATCH  0
#define WF_VERSION_NUMBER (WF_VERSION_MAJOR * 10000 + WF_VERSION_MINOR * 100 + WF_VERSION_PATCH)
WF_API const char *wf_version(void);

/* Named limits. A tensor has at most WF_MAX_RANK logical dims (the rank of
   wf_buffer); a kernel has at most WF_MAX_TMEM_REGIONS tensor-memory
   allocations (the arrays of wf_launch_info). Exceeding one is a clear
   WF_ERR_ARG / WF_ERR_UNSUPPORTED error; everything else grows as needed. */
#define WF_MAX_RANK         8
#define WF_MAX_TMEM_REGIONS 8

typedef struct wf_fusion wf_fusion;
typedef struct wf_tv wf_tv;
typedef struct wf_iterdomain wf_iterdomain;
typedef struct wf_kernel wf_kernel;

/* ---- status and errors ---- */
typedef enum {
    WF_OK = 0,
    WF_ERR_ARG,         /* bad argument: axis out of range, factor <= 0, NULL */
    WF_ERR_SCHEDULE,    /* a schedule that cannot be lowered */
    WF_ERR_COMPILE,     /* NVRTC rejected the generated source (log in message) */
    WF_ERR_CUDA,        /* driver / device error, or no device */
    WF_ERR_UNSUPPORTED, /* valid request this build cannot do yet */
    WF_ERR_MEMORY       /* allocation failed */
} wf_status;

WF_API wf_status wf_fusion_status(const wf_fusion *f);
WF_API const char *wf_fusion_error(const wf_fusion *f); /* "" when none */
WF_API void wf_fusion_clear_error(wf_fusion *f);
WF_API const char *wf_status_name(wf_status s);

/* ---- fusion definition ---- */
typedef enum {
    WF_F32,
    WF_F16,
    WF_BF16,
    WF_F64,
    WF_I8,
    WF_I16,
    WF_I32,
    WF_I64,
    WF_U8,
    WF_BOOL
} wf_dtype;
WF_API size_t wf_dtype_size(wf_dtype t);

WF_API wf_fusion *wf_fusion_new(void);
WF_API void wf_fusion_free(wf_fusion *f);

/* Inputs. extent -1 = symbolic (bound from the buffer at run time).
   contiguity: NULL = all contiguous; else one entry per dim, 1 = contiguous
   with the next inner dim, 0 = not (a stride is passed at run time). */
WF_API wf_tv *wf_input(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape);
WF_API wf_tv *wf_input_strided(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape,
                               const int8_t *contiguity);
/* Mark tv as the next fusion output. A tensor is output once (WF_ERR_ARG the
   second time: output a copy, wf_set, to return the values twice). */
WF_API void wf_output(wf_fusion *f, wf_tv *tv);

/* Ops. Each returns a new tensor in the same fusion (NULL on error).
   Types follow PyTorch (torch.result_type for two tensors): a binary op's
   output has the promoted type of its operands: bool < integers < floats,
   the higher category wins, within one the wider type; f16 with bf16 gives
   f32, u8 with i8 gives i16. Float-only unary ops (exp, log, sqrt, rsqrt,
   sin, cos, tanh, sigmoid, reciprocal) on integers or bools give f32; neg,
   abs and relu keep the type. Operands are converted to the output type,
   then the op computes (16-bit floats in f32). Integer semantics are the
   generated CUDA's, which the CPU executor models bit for bit: + - * wrap
   (two's complement); WF_DIV on integers truncates (like
   torch.div(rounding_mode="trunc"), not true division); x / 0 = -1 (all
   bits set) and MIN / -1 = MIN; pow with a negative exponent is 1 / a^-b in
   that division. wf_cast from a float to an integer truncates toward zero
   and saturates at the target's range, NaN -> 0 (PTX cvt.rzi.sat); to bool
   it is x != 0; to f16/bf16 it rounds through f32; between integers it
   wraps. Bool arithmetic computes on 0/1 and stores x != 0. */
WF_API wf_tv *wf_set(wf_tv *a); /* LoadStoreOp, op type Set */
WF_API wf_tv *wf_cast(wf_tv *a, wf_dtype t);
typedef enum {
    WF_NEG,
    WF_ABS,
    WF_EXP,
    WF_LOG,
    WF_SQRT,
    WF_RSQRT,
    WF_SIN,
    WF_COS,
    WF_TANH,
    WF_SIGMOID,
    WF_RELU,
    WF_RECIPROCAL
} wf_unary_op;
WF_API wf_tv *wf_unary(wf_unary_op op, wf_tv *a);
/* WF_MAX / WF_MIN propagate NaN (torch.maximum / torch.minimum): if either
   operand is NaN the result is NaN. The comparisons (appended) give a bool
   tensor: their operands are converted to the promoted type and compared in
   it (16-bit floats in f32); NaN compares unequal to everything. */
typedef enum {
    WF_ADD,
    WF_SUB,
    WF_MUL,
    WF_DIV,
    WF_MAX,
    WF_MIN,
    WF_POW,
    WF_EQ,
    WF_NE,
    WF_LT,
    WF_LE,
    WF_GT,
    WF_GE
} wf_binary_op;
/* Either operand may be a scalar constant (wf_full), not both. */
WF_API wf_tv *wf_binary(wf_binary_op op, wf_tv *a, wf_tv *b);
WF_API wf_tv *wf_add(wf_tv *a, wf_tv *b);
WF_API wf_tv *wf_sub(wf_tv *a, wf_tv *b);
WF_API wf_tv *wf_mul(wf_tv *a, wf_tv *b);
WF_API wf_tv *wf_div(wf_tv *a, wf_tv *b);
/* Scalar constants (nvFuser's scalar Val): a 0-D value of type t that is an
   operand of wf_binary (and the comparisons) or wf_where, broadcast to the
   other operand's shape; it is no tensor of the graph (no schedule, never an
   output: other functions refuse it). value must be a value of t: integers
   and bool exactly (wf_full_int for integers beyond 2^53), floats rounded to
   t (16-bit types through f32). Type promotion treats it as PyTorch treats a
   0-dim tensor: it decides the type only when its category (bool < integer <
   float) is higher than the tensor operand's. An integer constant must fit
   the integer type an op computes in (WF_ERR_ARG otherwise). In the CUDA
   source it is a literal of the compute type (2.0f, 5LL, true). */
WF_API wf_tv *wf_full(wf_fusion *f, wf_dtype t, double value);
WF_API wf_tv *wf_full_int(wf_fusion *f, wf_dtype t, int64_t value);
/* cond ? a : b elementwise (torch.where). cond is a bool tensor; a and b are
   tensors or scalar constants of the promoted type's operands; the shape is
   the operands' broadcast shape (same ranks, as for wf_binary). */
WF_API wf_tv *wf_where(wf_tv *cond, wf_tv *a, wf_tv *b);
/* New broadcast dims (extent 1) where is_broadcast_dim[i]; the others take
   a's dims in order. */
WF_API wf_tv *wf_broadcast(wf_tv *a, int ndim_out, const bool *is_broadcast_dim);
WF_API wf_tv *wf_transpose(wf_tv *a, int dim0, int dim1);
/* Output dim i is input dim new2old[i]. */
WF_API wf_tv *wf_permute(wf_tv *a, const int *new2old);
WF_API wf_tv *wf_sum(wf_tv *a, int naxes, const int *axes); /* reduction */
WF_API wf_tv *wf_max(wf_tv *a, int naxes, const int *axes); /* reduction */
/* Reduce the listed dims with op: WF_ADD (init 0), WF_MUL (1), WF_MAX (-inf,
   or the type's least value), WF_MIN (+inf, or its greatest); max and min
   propagate NaN, as PyTorch's do. The output keeps the reduced dims as
   reduction IterDomains (scheduled like any axis, never inlined into a
   consumer); its buffer and its consumers see only the other dims. Integer
   and bool sums and products give i64. */
WF_API wf_tv *wf_reduce(wf_binary_op op, wf_tv *a, int naxes, const int *axes);
/* Matrix multiply-accumulate (nvFuser's fusedMultiplySum): a and b have the
   same rank, with broadcast dims where an operand lacks one (a [M, 1, K], b
   [1, N, K] for a plain matmul); the result is the sum over the listed axes
   of a * b, one op and a reduction like wf_sum (the summed axes stay in its
   loop domain as reduction axes; buffers see the others), scheduled like any
   reduction (split, reorder, rfactor, parallelize). 16-bit inputs (f16, bf16)
   accumulate and return f32; f32 inputs return f32, f64 inputs f64; integer
   and bool inputs are WF_ERR_UNSUPPORTED. Each product is rounded once to the
   output type (exact for 16-bit inputs) and added in the schedule's order
   (docs/reductions.md). Axes parallelized WF_MMA stand for one tensor-core
   instruction: wf_tv_parallelize lays a tile of M 16 x N 8 x K 16 out as
   mma.sync.m16n8k16's fragments (sm_80+; operand register tiles and the
   accumulator's consumers take WF_MMA on their two tile axes too), one of
   M 64 x N (8..256) x K 16 as wgmma.m64nNk16's accumulator (sm_90a; the
   operands are broadcast views of shared tiles, TMA with the 128-byte
   swizzle), by ordinary transforms; wf_compile checks every lane against the
   instruction's layouts (docs/tutorial-gemm.md). 16-bit operands only. */
WF_API wf_tv *wf_mma(wf_tv *a, wf_tv *b, int naxes, const int *axes);
/* [..., M, K] x [..., K, N] -> [..., M, N]: a viewed as [..., M, 1, K] and b as
   [..., 1, N, K] (broadcast and permute), then wf_mma over the last axis: the
   result's loop domain is [..., M, N, rK]. Same ranks (at least 2); the batch
   dims broadcast as wf_binary's do. */
WF_API wf_tv *wf_matmul(wf_tv *a, wf_tv *b);
/* rfactor (nvFuser): split a reduction in two. Returns the new producer,
   which reduces the listed reduction axes of tv's loop domain and keeps the
   other reduction axes as iteration axes; tv then reduces what remains. */
WF_API wf_tv *wf_tv_rfactor(wf_tv *tv, int naxes, const int *axes);

/* ---- inspecting tensors ---- */
WF_API int wf_tv_ndim(const wf_tv *tv); /* loop domain */
WF_API wf_iterdomain *wf_tv_axis(wf_tv *tv, int axis);
WF_API wf_iterdomain *const *wf_tv_loop_domain(const wf_tv *tv, int *n);
WF_API wf_iterdomain *const *wf_tv_logical_domain(const wf_tv *tv, int *n);
WF_API wf_tv *wf_tv_definition_input(const wf_tv *tv, int i);
WF_API int64_t wf_iterdomain_extent(const wf_iterdomain *id); /* -1 if symbolic */
/* A reduced axis: in its tensor's logical domain, but not in its buffer (a
   wf_sum over dim 1 of [4, 8] has logical domain [4, r8] and a buffer of rank 1). */
WF_API bool wf_iterdomain_is_reduction(const wf_iterdomain *id);
/* Where a symbolic extent comes from: true, with *input (its position among the
   fusion's inputs) and *dim, when id's extent is the size of that input's dim,
   bound from its buffer at run time; false for a constant or another expression.
   The ops give each symbolic output dim an input's size, so the shape of every
   output follows from its inputs' shapes (weft's Python binding sizes outputs so). */
WF_API bool wf_iterdomain_extent_input(const wf_iterdomain *id, int *input, int *dim);
WF_API wf_fusion *wf_tv_fusion(const wf_tv *tv);
WF_API int wf_tv_name(const wf_tv *tv); /* the N of "TN" in printouts */
/* The tensor printed as T<name>, or NULL if f has none (scalar constants have no name). */
WF_API wf_tv *wf_fusion_tensor(const wf_fusion *f, int name);
/* Its element type (an rfactor producer of a 16-bit sum holds float partials). */
WF_API wf_dtype wf_tv_dtype(const wf_tv *tv);

/* ---- schedule ----
   Parallel types. Not supported yet (wf_compile refuses them with
   WF_ERR_UNSUPPORTED): WF_DIDX/Y/Z (devices); WF_MMA only on tensor-core
   tiles of a wf_mma (see wf_mma), WF_BULK only on the tile axes of a TMA
   copy. */
typedef enum {
    WF_SERIAL,
    WF_BIDX,
    WF_BIDY,
    WF_BIDZ,
    WF_TIDX,
    WF_TIDY,
    WF_TIDZ,
    WF_DIDX,
    WF_DIDY,
    WF_DIDZ,
    WF_UNROLL,
    WF_VECTORIZE,
    WF_BULK,
    WF_MMA
} wf_ptype;
/* Memory types. Fusion inputs and outputs are in global memory; an
   intermediate in global memory is not supported yet (local = registers,
   shared, or tensor memory: Blackwell, sm_100). */
typedef enum { WF_MEM_GLOBAL, WF_MEM_LOCAL, WF_MEM_SHARED, WF_MEM_TENSOR } wf_memtype;
/* Copy kinds: the op type of a wf_set's definition. Supported: SET (a plain
   load/store), TMEM_LOAD / TMEM_STORE (tcgen05.ld / tcgen05.st between
   registers and tensor memory), TMA (cp.async.bulk.tensor between global
   and shared memory, below), LDMATRIX / STMATRIX (ldmatrix / stmatrix
   between shared memory and registers, 16-bit data; seed 002). Not
   supported yet (wf_compile refuses it with WF_ERR_UNSUPPORTED): CP_ASYNC. */
typedef enum {
    WF_LDST_SET,
    WF_LDST_TMEM_LOAD /* LdTMem */,
    WF_LDST_TMEM_STORE /* StTMem */,
    WF_LDST_TMA /* CpAsyncBulkTensorTile */,
    WF_LDST_LDMATRIX,
    WF_LDST_STMATRIX,
    WF_LDST_CP_ASYNC
} wf_ldst;
typedef enum { WF_SWIZZLE_XOR } wf_swizzle;

/* Transforms (split, merge, swizzle) apply to serial axes only: one of an
   axis already parallelized (threads, blocks, unroll, vectorize, ...) is a
   WF_ERR_SCHEDULE error naming the tensor, the axis and its parallel type.
   Transform first, then parallelize the results; wf_tv_parallelize(tv, axis,
   WF_SERIAL) undoes a parallelization. Reorder keeps parallel types. */
WF_API void wf_tv_split(wf_tv *tv, int axis, int64_t factor);       /* inner split */
WF_API void wf_tv_split_outer(wf_tv *tv, int axis, int64_t factor); /* outer split */
WF_API void wf_tv_merge(wf_tv *tv, int axis);                       /* merge axis and axis+1 */
WF_API void wf_tv_merge_axes(wf_tv *tv, int outer, int inner);
/* reorder by (old, new) pairs, like nvFuser's reorder({{6, 2}, {7, 3}}) */
WF_API void wf_tv_reorder(wf_tv *tv, int npairs, const int (*old_new)[2]);
/* reorder by a full vector: old axis i goes to position old2new[i] */
WF_API void wf_tv_reorder_all(wf_tv *tv, const int *old2new);
/* XOR swizzle: (x, y) -> (x, x ^ y); power-of-two constant extents, ext(x) <= ext(y). */
WF_API void wf_tv_swizzle(wf_tv *tv, wf_swizzle kind, int x, int y);
/* Run an axis on threads/blocks, unroll it, or vectorize it (the innermost
   axis of a copy; 1-16 bytes, or up to 512 for tensor-memory copies). A
   broadcast axis of extent 1 stays serial: there is nothing to spread. A
   fusion input is only read, so it has no loops: parallelizing it is
   WF_ERR_ARG (parallelize its readers, or a cache of it). */
WF_API void wf_tv_parallelize(wf_tv *tv, int axis, wf_ptype p);
WF_API void wf_tv_set_memory(wf_tv *tv, wf_memtype m);
WF_API void wf_tv_set_ldst(wf_tv *tv, wf_ldst op); /* op type of tv's definition */
WF_API void wf_tv_set_tmem_dimsep(wf_tv *tv, int pos);
/* Set a domain by hand. It must be one cut of tv's transform history: IDs of
   tv only, none twice, none beside one of its parts (an ancestor and a
   descendant), every output of a transform or none, covering every
   non-broadcast logical ID; else WF_ERR_ARG naming the IterDomains. A fusion
   input or output is laid out as its wf_buffer says (logical order, the
   buffer's strides): its allocation domain can only be its logical domain,
   and wf_output refuses a tensor with another one. For another layout,
   permute the tensor or give the layout to a cache of it. contiguous =
   false is not supported yet (WF_ERR_UNSUPPORTED). */
WF_API void wf_tv_set_allocation_domain(wf_tv *tv, int n, wf_iterdomain *const *ids,
                                        bool contiguous);
WF_API void wf_tv_set_loop_domain(wf_tv *tv, int n, wf_iterdomain *const *ids);
/* Inline tv into its consumers' loops up to pos; a smaller pos (0: not
   inlined) moves it back and frees the consumers' axes again. */
WF_API void wf_tv_inline_at(wf_tv *tv, int pos);
WF_API void wf_inline_most(wf_fusion *f);
WF_API void wf_inline_all_at(wf_tv *ref, int pos);
/* Compute tv inside the first pos loops of consumer, a tensor that reads tv
   directly or through others (nvFuser's computeAt(consumer, pos), TVM's
   compute_at(block, loop)), with loop promotion: tv gets a new loop domain
   whose first pos axes are consumer's loops -- tv's own axis where it has one
   (consumer's transforms replayed on it), a loop-only broadcast where it has
   none (a loop over j for A[i, k] read as C[i, j, k]: tv is computed again in
   each iteration, and allocated without it). In shared memory, tv's axes under
   consumer's thread loops go inside instead (the block computes the whole
   tile; bind those inner axes to the threads for a cooperative fetch). tv's
   other axes follow as serial loops in the order of its dims; schedule them
   afterwards. The tensors between tv and
   consumer are aligned alike and inlined as deep as allowed. pos counts
   consumer's loop positions (negative: from the end). An illegal position
   (WF_ERR_SCHEDULE, with the axis that stops it), tv a fusion input, or a
   consumer that does not read tv (WF_ERR_ARG) changes nothing. */
WF_API void wf_compute_at(wf_tv *tv, wf_tv *consumer, int pos);
/* Place tv, a tensor that reads producer directly or through others, inside
   the first pos loops of producer (TVM's reverse_compute_at(block, loop): a
   matmul accumulator's write-back or an epilogue at the accumulator's thread
   loops). tv gets a new loop domain: producer's first pos loops replayed onto
   tv's axes (on their parallel types), then tv's other axes as serial loops in
   the order of its dims; producer keeps its loops and is inlined at pos; the
   tensors between are aligned with their consumers and inlined as deep as
   allowed. pos counts producer's loop positions (negative: from the end). An
   illegal position (WF_ERR_SCHEDULE, with the axis that stops it), tv already
   inlined into its own consumers (WF_ERR_SCHEDULE), producer a fusion input or
   not read by tv (WF_ERR_ARG) changes nothing. */
WF_API void wf_reverse_compute_at(wf_tv *tv, wf_tv *producer, int pos);
/* Insert a loop-only broadcast IterDomain (extent 1, in no logical domain) at
   position pos of tv's loop domain (nvFuser's loop-domain broadcast). Inlined,
   it takes the loop of the consumer axis at that position, which tv does not
   index: tv is computed once per iteration of that loop and allocated without
   it. pos may not be left of tv's compute-at position or of a producer's. */
WF_API void wf_tv_loop_broadcast(wf_tv *tv, int pos);
/* New tv reading tv; tv's uses now read it. On an output nothing reads, the
   cache would be read by nothing: WF_ERR_ARG (wf_cache_before is meant). */
WF_API wf_tv *wf_cache_after(wf_tv *tv);
WF_API wf_tv *wf_cache_before(wf_tv *tv); /* new tv computing what tv computed */
/* Replay ref's loop-domain transforms onto every tensor it reaches; each
   tensor's loop domain is ordered like ref's where its axes are mapped. */
WF_API void wf_propagate_transforms(wf_tv *ref);
/* Copy ref's parallel types to every mapped axis of every other tensor.
   ptype_mask: 0 = all types, else a bit set of (1u << WF_...). */
WF_API void wf_parallelize_all_like(wf_tv *ref, unsigned ptype_mask);
/* The compute-at position of tv (0 = not inlined). */
WF_API int wf_tv_compute_at(const wf_tv *tv);

/* ---- printing ----
   Each printer also comes as a string (for bindings): the text is owned by
   the fusion and valid until the next wf_*_string call on it or
   wf_fusion_free; NULL for a NULL fusion or when memory runs out. */
WF_API void wf_print_math(const wf_fusion *f, FILE *out);
WF_API void wf_print_transforms(const wf_fusion *f, FILE *out);
WF_API const char *wf_math_string(wf_fusion *f);
WF_API const char *wf_transforms_string(wf_fusion *f);
WF_API const char *wf_kernel_string(wf_fusion *f); /* as wf_print_kernel prints it */
/* tv's IterDomain graph as Graphviz DOT (render with `dot -Tsvg`): logical
   domain on top, loop domain (with the compute-at marker) at the bottom,
   split/merge/swizzle between them; each box says where it sits ("logical
   0", "alloc 1", "loop 2"), parallel types colour it (in a tensor a TMA
   copy defines, seed 001's colours: green box, brown coordinate IterDomains),
   reductions are dashed, broadcasts dotted, loop axes left of compute-at
   double-bordered. */
WF_API void wf_print_dot(wf_tv *tv, FILE *out);
WF_API const char *wf_dot_string(wf_tv *tv); /* the same, kept as above */
/* Lowers and prints CUDA; when the fusion has (or the compile hits) an error,
   prints "// no kernel: <status>: <message>" instead. */
WF_API void wf_print_kernel(wf_fusion *f, FILE *out);

/* ---- compile ---- */
typedef struct {
    /* target: 90 (Hopper, sm_90a), 100 (Blackwell, sm_100a), or another real
       architecture: 75, 80, 86, 87, 89, 101, 103, 110, 120, 121 (sm_XXa from
       90 on, plain sm_XX below); 0 = the device's or 90. Others: WF_ERR_ARG. */
    int sm;
    /* nonzero: fast, less accurate float math on the GPU (exp and log of f32
       as __expf / __logf, f32 division as __fdividef, as nvcc's
       --use_fast_math does); 0 (the default): IEEE results. The CPU executor
       always computes the accurate ones. */
    int fast_math;
} wf_compile_options;

typedef struct {
    int64_t grid[3], block[3]; /* -1 where it depends on run-time sizes */
    int64_t smem_bytes;        /* shared memory of the kernel; -1 if it depends on sizes */
    int ntmem_regions;         /* tensor-memory allocations */
    int64_t
        tmem_columns[WF_MAX_TMEM_REGIONS]; /* columns allocated per region (power of 2, >= 32) */
    int64_t tmem_lanes[WF_MAX_TMEM_REGIONS];
} wf_launch_info;

/* NULL on error. Compiling never changes the fusion: a failed compile records
   its error in the fusion like any other call (so later calls do nothing),
   and after wf_fusion_clear_error the schedule can be fixed and the fusion
   compiled again. A fusion may be compiled any number of times. */
WF_API wf_kernel *wf_compile(wf_fusion *f, const wf_compile_options *opt);
WF_API const char *wf_kernel_source(const wf_kernel *k); /* CUDA C++ */
WF_API const wf_launch_info *wf_kernel_launch(const wf_kernel *k);
WF_API void wf_kernel_free(wf_kernel *k);
/* Compile the source with NVRTC to PTX and, where possible, to a cubin for the
   target (sm 0 = the kernel's; sm_XXa from 90 on, sm_XX below), without
   needing a GPU. WF_ERR_UNSUPPORTED if NVRTC is absent or too old for sm. */
WF_API wf_status wf_kernel_check_nvrtc(wf_kernel *k, int sm, char *log, size_t logsize);

/* ---- run ----
   A buffer describes one array: fill data, dtype, ndim and shape (logical
   order); leave strides all 0 for a contiguous row-major array, and set
   device to -1 for host memory. For a 3 x 5 float array on the host:
       float x[15];
       wf_buffer in = {x, WF_F32, 2, {3, 5}, {0}, -1};
   WF_BACKEND_INTERP (the CPU reference executor) takes host buffers only;
   WF_BACKEND_CUDA takes host buffers (copied in and out) or device ones
   (wf_device_alloc, device 0). */
typedef enum { WF_BACKEND_AUTO, WF_BACKEND_CUDA, WF_BACKEND_INTERP } wf_backend;
typedef struct {
    void *data; /* host pointer (device == -1) or device pointer */
    wf_dtype dtype;
    int ndim;
    int64_t shape[WF_MAX_RANK];
    int64_t strides[WF_MAX_RANK]; /* in elements; all 0 = contiguous */
    int device;                   /* -1 = host memory */
} wf_buffer;

/* Runs the kernel: inputs in fusion-input order, outputs in fusion-output
   order (output buffers are allocated by the caller). Errors (a NULL array
   with a nonzero count, counts, shapes, races...) are the status and
   wf_last_run_error(k), which every kernel call below reports through.
   An output may not share memory with an input or another output
   (WF_ERR_ARG naming both), except the very same array as an input where
   the kernel is provably safe in place (elementwise: each thread reads the
   element it then writes; docs/api.md "Running"). */
WF_API wf_status wf_run(wf_kernel *k, wf_backend b, const wf_buffer *in, int nin, wf_buffer *out,
                        int nout);
WF_API const char *wf_last_run_error(const wf_kernel *k);
WF_API bool wf_cuda_available(void);

/* What the CPU reference executor (WF_BACKEND_INTERP) saw in the kernel's last
   run. WF_ERR_ARG (and a message in wf_last_run_error) before any executor
   run; the failed run's status after a run that failed. */
typedef struct {
    int64_t smem_accesses;        /* warp-wide shared-memory access instructions */
    int64_t smem_wavefronts;      /* wavefronts they needed (= accesses when conflict-free) */
    int smem_max_conflict_degree; /* worst wavefronts / least for the access width (1 = none) */
    int64_t gmem_accesses;        /* warp-wide global-memory access instructions */
    int64_t gmem_sectors;         /* 32-byte sectors they touched */
} wf_access_stats;
WF_API wf_status wf_interp_stats(const wf_kernel *k, wf_access_stats *out);
WF_API void wf_interp_report(const wf_kernel *k, FILE *out); /* per statement */

/* ---- GPU utilities (device 0; for tests and benchmarks) ----
   wf_run on device buffers only enqueues the kernel on the default stream and
   returns; wf_time, wf_device_copy and host-buffer runs wait for all work
   enqueued before them (so a fault surfaces there; WF_CUDA_SYNC=1 makes every
   run wait). Built kernels are cached on disk in $WF_CACHE_DIR (default
   ~/.cache/weft; set but empty = no cache). */
/* Median device time (CUDA events) of reps launches after warmup ones, in
   microseconds. Host buffers are copied in once before and out once after. */
WF_API wf_status wf_time(wf_kernel *k, const wf_buffer *in, int nin, wf_buffer *out, int nout,
                         int warmup, int reps, double *median_us);
WF_API void *wf_device_alloc(size_t bytes); /* NULL on failure or no device */
WF_API void wf_device_free(void *p);        /* p from wf_device_alloc, or NULL */
/* Copy between host and device memory, the direction taken from the
   addresses (unified addressing); complete on return. */
WF_API wf_status wf_device_copy(void *dst, const void *src, size_t bytes);
/* Median device time of a device-to-device copy of bytes, in microseconds. */
WF_API wf_status wf_device_memcpy_time(void *dst, const void *src, size_t bytes, int warmup,
                                       int reps, double *median_us);

/* ---- this machine (what `weft info` prints) ----
   What weft finds here, probed the way compiling and running look: NVRTC
   and the CUDA driver in $CUDA_HOME/lib64, then /usr/local/cuda/lib64, then
   the loader's path; device 0; the kernel cache ($WF_CACHE_DIR, default
   ~/.cache/weft). A missing piece is not an error: its flag is false and
   *_error says why. Text fields are cut to fit WF_INFO_TEXT bytes. */
#define WF_INFO_TEXT 512
typedef struct {
    bool nvrtc_found;
    char nvrtc_path[WF_INFO_TEXT]; /* the file NVRTC was loaded from */
    int nvrtc_major, nvrtc_minor;  /* its version */
    char nvrtc_error[WF_INFO_TEXT];
    bool driver_found;              /* libcuda loads */
    char driver_path[WF_INFO_TEXT]; /* ... from this file */
    bool device_found;              /* the driver finds device 0 */
    char device_name[WF_INFO_TEXT];
    int device_sm;                   /* compute capability, 10 * major + minor */
    char driver_error[WF_INFO_TEXT]; /* no driver, or no device */
    bool cache_enabled;              /* false: WF_CACHE_DIR set but empty, or no HOME */
    char cache_dir[WF_INFO_TEXT];
    int64_t cache_entries, cache_bytes; /* kernel images stored there */
    /* Device 0's facts the automatic schedulers use (0 without a device; the
       schedulers then assume an H100's: 132 SMs, 227 KiB, 65536 registers). */
    int device_sm_count;           /* streaming multiprocessors */
    int64_t device_smem_per_block; /* opt-in shared memory per block, bytes */
    int device_regs_per_block;     /* 32-bit registers per block */
} wf_system_info;
WF_API wf_status wf_system_info_get(wf_system_info *out); /* WF_ERR_ARG for NULL */
/* Remove every kernel image from the cache directory (only weft's own
   files); entries and bytes (either may be NULL) say how much went. */
WF_API wf_status wf_cache_clear(int64_t *entries, int64_t *bytes);

/* ---- automatic scheduling ----
   wf_schedule_auto picks a scheduler for the whole fusion from its shapes, dtypes and the
   target, and applies it with the ordinary schedule calls (wf_print_transforms shows what
   it did). Schedulers: "pointwise"; "reduction" (plain reductions); "normalization" (a
   reduction whose result is broadcast back and combined with its input: softmax, layer
   norm, x - mean); "transpose" (inputs and outputs disagree on their innermost dim).
   sizes: NULL, or one entry per dim of every input, inputs in order, concrete dims
   included (they must match); symbolic extents are scheduled for those sizes, or for a
   generic size when NULL (the schedule is then correct at every size). opt NULL =
   defaults; info may be NULL. Any schedule already present is replaced. Sticky: a
   pending error is returned as it is; WF_ERR_UNSUPPORTED names what no scheduler covers;
   NULL f gives WF_ERR_ARG. docs/auto.md. */
typedef struct {
    char scheduler[32]; /* one of the names above */
    char summary[256];  /* the main choices, e.g. "rows per block 1, threads 512, vector 4" */
} wf_auto_info;
WF_API wf_status wf_schedule_auto(wf_fusion *f, const int64_t *sizes, const wf_compile_options *opt,
                                  wf_auto_info *info);

/* A fusion that schedules and compiles itself per input signature (nvFuser's
   FusionExecutorCache): the first run of each signature (dtypes, ranks, sizes bucketed as
   the heuristics need, alignment) schedules a copy of the fusion with wf_schedule_auto and
   compiles it; later runs of that signature reuse the kernel (and the disk cache across
   processes). The fusion stays the caller's and must not change afterwards.
   wf_auto_compile returns NULL for a NULL fusion or one with a pending error. Compiling
   is lazy: wf_auto_kernel_count is 0 before the first run and never decreases. A run
   with bad buffers (dtype, rank, count) returns WF_ERR_ARG with wf_auto_last_error,
   compiles nothing, and the object keeps working. wf_auto_kernel_free(NULL) does
   nothing. */
typedef struct wf_auto_kernel wf_auto_kernel;
WF_API wf_auto_kernel *wf_auto_compile(wf_fusion *f, const wf_compile_options *opt);
WF_API wf_status wf_auto_run(wf_auto_kernel *k, wf_backend b, const wf_buffer *in, int nin,
                             wf_buffer *out, int nout);
WF_API const char *wf_auto_last_error(const wf_auto_kernel *k);
WF_API const wf_auto_info *wf_auto_last_info(const wf_auto_kernel *k); /* of the last run's
                                                                           kernel */
WF_API int wf_auto_kernel_count(const wf_auto_kernel *k);              /* kernels compiled so far */
WF_API void wf_auto_kernel_free(wf_auto_kernel *k);

/* ---- TMA (seed 001) ----
   A TMA copy is a wf_set / cache_after / cache_before whose op type is WF_LDST_TMA: load
   when global -> shared, store when shared -> global. The TMA domain, boxes, tiles,
   element strides and swizzle are inferred from the schedule; tile axes of the consumer
   are parallelized WF_BULK. */
/* One tensor map of a compiled kernel, as passed to cuTensorMapEncodeTiled. Dimension 0
   is the innermost. rank: one dimension per partitioned IterDomain or composited slice of
   the TMA domain; adjacent dimensions are merged only where more than five would remain. */
typedef struct {
    bool is_store; /* shared -> global */
    int rank;      /* 1..5 */
    wf_dtype dtype;
    int64_t global_dims[5];          /* elements; -1 where symbolic */
    int64_t global_strides_bytes[5]; /* [0] = element size; [i] = bytes between consecutive
                                        coordinates of dim i; -1 if symbolic */
    int64_t box[5];                  /* boxDim */
    int64_t element_strides[5];      /* 1 for dense tiles */
    int swizzle_bytes;               /* 0, 32, 64 or 128 */
    const wf_tv *global_tv;          /* the tensor in global memory (of the fusion) */
    const wf_tv *shared_tv;          /* the tensor in shared memory */
} wf_tma_info;
WF_API int wf_kernel_tma_count(const wf_kernel *k);
/* NULL if out of range; in the order the kernel issues them. */
WF_API const wf_tma_info *wf_kernel_tma(const wf_kernel *k, int i);
/* Multi-stage (circular) buffering of a TMA-loaded shared-memory tensor: `stages` copies,
   loads issued stages-1 iterations ahead, one mbarrier per stage. Applies to the serial
   loop at tv's inline position (at most 16 stages; docs/tma.md). */
WF_API void wf_tv_circular_buffer(wf_tv *tv, int stages);
/* Schedule the allocation domain of a shared-memory tensor's two innermost axes into the
   TMA swizzle pattern [-1, s, 8/s, s, 16 bytes] with the XOR of axes 1 and 3. */
WF_API void wf_tv_tma_swizzle(wf_tv *smem_tv, int swizzle_bytes);

/* ---- abstract tensors (seed 002) ----
   nvFuser's AbstractTensor: a list of IterDomains of a fusion, transformed like a loop
   domain (split, merge, reorder, swizzle) but attached to no tensor until it is set as
   one (wf_tv_set_loop_domain, or wf_tv_set_allocation_domain). Allocated in the fusion;
   freed with it. Named A0, A1... in messages, in creation order. Axis arguments count
   from the end when negative; errors are the fusion's sticky error (NULL arguments:
   WF_ERR_ARG where the fusion is known; calls on NULL do nothing). */
typedef struct wf_abstract wf_abstract;
/* ids: n >= 1 distinct IterDomains of f (any tensor's, any mix of them). */
WF_API wf_abstract *wf_abstract_new(wf_fusion *f, int n, wf_iterdomain *const *ids);
WF_API wf_abstract *wf_abstract_of_loop(wf_tv *tv); /* a copy of tv's loop domain */
WF_API int wf_abstract_ndim(const wf_abstract *a);  /* -1 for NULL */
/* Its IterDomains (valid until the next transform of a); *n gets how many. */
WF_API wf_iterdomain *const *wf_abstract_ids(const wf_abstract *a, int *n);
WF_API void wf_abstract_split(wf_abstract *a, int axis, int64_t factor); /* inner split */
WF_API void wf_abstract_merge(wf_abstract *a, int outer, int inner);     /* result at min */
/* (old, new) pairs, like wf_tv_reorder */
WF_API void wf_abstract_reorder(wf_abstract *a, int npairs, const int (*old_new)[2]);
WF_API void wf_abstract_swizzle(wf_abstract *a, wf_swizzle kind, int x, int y);

/* ---- TensorIR front-end (seed 004) ----
   A TVMScript function, parsed in C, scheduled with TVM's primitives. Block and loop
   handles belong to the schedule (freed with it); a handle whose loop was replaced
   (by split, fuse, compute_at...) is stale: using it is an error naming the loop. */
typedef struct wf_tir wf_tir;             /* an IRModule-like program + its schedule */
typedef struct wf_tir_block wf_tir_block; /* TVM's BlockRV */
typedef struct wf_tir_loop wf_tir_loop;   /* TVM's LoopRV */

/* Parses the text of one @T.prim_func (classic TVMScript). Never NULL except out of
   memory; a parse error is the sticky error, with line:column and the offending line. */
WF_API wf_tir *wf_tir_parse(const char *src);
WF_API void wf_tir_free(wf_tir *s);
WF_API wf_status wf_tir_status(const wf_tir *s);
WF_API const char *wf_tir_error(const wf_tir *s);
WF_API void wf_tir_clear_error(wf_tir *s);

WF_API wf_tir_block *wf_tir_get_block(wf_tir *s, const char *name);
/* Writes up to max loops above the block, outermost first; returns how many there are. */
WF_API int wf_tir_get_loops(wf_tir *s, wf_tir_block *b, wf_tir_loop **loops, int max);
/* factors: nfactors entries, at most one -1 (TVM's None) which is inferred; writes the
   new loops, outermost first, to out. */
WF_API void wf_tir_split(wf_tir *s, wf_tir_loop *l, int nfactors, const int64_t *factors,
                         wf_tir_loop **out);
WF_API wf_tir_loop *wf_tir_fuse(wf_tir *s, int n, wf_tir_loop *const *loops);
WF_API void wf_tir_reorder(wf_tir *s, int n, wf_tir_loop *const *loops);
WF_API void wf_tir_bind(wf_tir *s, wf_tir_loop *l, const char *thread_axis); /* "threadIdx.x" */
WF_API void wf_tir_vectorize(wf_tir *s, wf_tir_loop *l);
WF_API void wf_tir_unroll(wf_tir *s, wf_tir_loop *l);
WF_API wf_tir_block *wf_tir_cache_read(wf_tir *s, wf_tir_block *b, int read_buffer_index,
                                       const char *storage_scope); /* "shared", "local" */
WF_API wf_tir_block *wf_tir_cache_write(wf_tir *s, wf_tir_block *b, int write_buffer_index,
                                        const char *storage_scope);
WF_API void wf_tir_compute_at(wf_tir *s, wf_tir_block *b, wf_tir_loop *l);
WF_API void wf_tir_reverse_compute_at(wf_tir *s, wf_tir_block *b, wf_tir_loop *l);
WF_API void wf_tir_compute_inline(wf_tir *s, wf_tir_block *b);
WF_API void wf_tir_reverse_compute_inline(wf_tir *s, wf_tir_block *b);
WF_API wf_tir_block *wf_tir_rfactor(wf_tir *s, wf_tir_loop *l, int factor_axis);
/* More of TVM's primitives. parallel: a T.parallel loop (built as a serial one: on the
   GPU its iterations run in one thread). annotate / unannotate a loop or a block: value is
   TVMScript text, an int ("16"), a float, a "string", True / False or a [list]
   ("[0, 0, 1]"); printed as TVM prints them (annotations={...}, T.block_attr). The build
   knows pragma_auto_unroll_max_step, pragma_unroll_explicit, software_pipeline_stage /
   _order / _async_stages and buffer_dim_align, which change no result, and refuses other
   keys. set_scope: the scope of the buffer b writes at buffer_index (renamed
   <name>_<scope>, as TVM 0.27 does). storage_align: recorded and printed as TVM's
   buffer_dim_align; the build does not pad the allocation. decompose_reduction: b's
   T.init() becomes the block <name>_init just before l (returned); b becomes
   <name>_update. blockize is refused (WF_ERR_UNSUPPORTED). */
WF_API void wf_tir_parallel(wf_tir *s, wf_tir_loop *l);
WF_API void wf_tir_annotate_loop(wf_tir *s, wf_tir_loop *l, const char *key, const char *value);
WF_API void wf_tir_annotate_block(wf_tir *s, wf_tir_block *b, const char *key, const char *value);
WF_API void wf_tir_unannotate_loop(wf_tir *s, wf_tir_loop *l, const char *key);
WF_API void wf_tir_unannotate_block(wf_tir *s, wf_tir_block *b, const char *key);
WF_API void wf_tir_set_scope(wf_tir *s, wf_tir_block *b, int buffer_index,
                             const char *storage_scope);
WF_API void wf_tir_storage_align(wf_tir *s, wf_tir_block *b, int buffer_index, int axis, int factor,
                                 int offset);
WF_API wf_tir_block *wf_tir_decompose_reduction(wf_tir *s, wf_tir_block *b, wf_tir_loop *l);
WF_API wf_tir_block *wf_tir_blockize(wf_tir *s, wf_tir_loop *l);
/* Block queries: each writes up to max blocks, in program order, and returns how many
   there are (-1 on error). get_child_blocks of a block (wf_tir_get_block(s, "root") is
   the function's root block) or of a loop: the blocks directly inside it; producers:
   the blocks writing a buffer b reads; consumers: those reading a buffer b writes. */
WF_API int wf_tir_get_child_blocks(wf_tir *s, wf_tir_block *b, wf_tir_block **blocks, int max);
WF_API int wf_tir_get_loop_child_blocks(wf_tir *s, wf_tir_loop *l, wf_tir_block **blocks, int max);
WF_API int wf_tir_get_producers(wf_tir *s, wf_tir_block *b, wf_tir_block **blocks, int max);
WF_API int wf_tir_get_consumers(wf_tir *s, wf_tir_block *b, wf_tir_block **blocks, int max);
/* The block's name as printed (NULL with the sticky error for a bad handle). */
WF_API const char *wf_tir_block_name(wf_tir *s, wf_tir_block *b);
/* The current program as TVMScript (TVM's printer layout, classic spelling), valid until
   the next call on s; and the trace of schedule calls made so far, as Python. */
WF_API const char *wf_tir_script(wf_tir *s);
WF_API const char *wf_tir_trace(wf_tir *s);
WF_API void wf_tir_show(wf_tir *s, FILE *out);
/* Lowers to a kernel. wf_run's buffers: inputs = the parameters only read, outputs = the
   parameters written, each in parameter order. */
WF_API wf_kernel *wf_tir_build(wf_tir *s, const wf_compile_options *opt);
/* The fusion the last wf_tir_build made (owned by s, replaced by the next build; there
   even when the build failed), or NULL before any; and the tensor of it holding the
   buffer block b writes, as the build scheduled it (NULL with the sticky error when the
   program is not built, or b was made after the build). */
WF_API wf_fusion *wf_tir_fusion(wf_tir *s);
WF_API wf_tv *wf_tir_block_tensor(wf_tir *s, wf_tir_block *b);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_H */
