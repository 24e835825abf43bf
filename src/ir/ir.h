/*
 * ir.h -- the fusion IR: scalar expressions, IterDomains and their
 * transforms, TensorViews, tensor ops and the fusion container.
 *
 * Everything here lives in the fusion's arena and is never freed one by one.
 * Invariants: every IterDomain has a dense id and at most one defining
 * transform; a tensor's loop domain is reachable from its logical domain
 * through transforms (or was set by the user from IDs of its history);
 * tensors are created in topological order, and every op's output has
 * exactly one definition. Scalar expressions (wf_val) are simplified on
 * construction, so structurally equal values usually print identically.
 */
#ifndef WF_IR_IR_H
#define WF_IR_IR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"
#include "base/vec.h"
#include "weft.h"

/* ---- scalar expressions (val.c) ---- */

typedef enum {
    V_CONST,
    V_SYM, /* a named symbol: loop variable, thread index, tensor size or stride */
    V_ADD,
    V_SUB,
    V_MUL,
    V_DIV, /* truncating; operands are non-negative in practice */
    V_MOD,
    V_CEILDIV,
    V_XOR,
    V_LT,  /* a < b, 0 or 1 */
    V_EQ,  /* a == b, 0 or 1 */
    V_AND, /* logical and */
} val_kind;

typedef enum {
    SYM_LOOP,   /* a serial loop's index variable */
    SYM_TID,    /* threadIdx.{x,y,z}: index 0..2 */
    SYM_BID,    /* blockIdx.{x,y,z} */
    SYM_SIZE,   /* logical size of a kernel tensor argument */
    SYM_STRIDE, /* allocation stride (elements) of a kernel tensor argument */
} sym_kind;

typedef struct wf_val wf_val;
struct wf_val {
    val_kind kind;
    int64_t c;           /* V_CONST: the value */
    sym_kind sym;        /* V_SYM */
    int sym_a, sym_b;    /* V_SYM: loop id / dim index / tensor id, dim */
    const char *name;    /* V_SYM: printed name */
    int64_t lo, hi;      /* V_SYM: known range, inclusive (hi = INT64_MAX if unknown) */
    const wf_val *a, *b; /* operands; for V_SYM, b is the optional symbolic bound */
};

const wf_val *val_const(wf_arena *a, int64_t c);
/* bound: optional symbolic exclusive upper bound (a loop index is < its extent). */
const wf_val *val_sym(wf_arena *a, sym_kind k, int sa, int sb, const char *name, int64_t lo,
                      int64_t hi, const wf_val *bound);
const wf_val *val_add(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_sub(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_mul(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_div(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_mod(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_ceildiv(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_xor(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_lt(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_eq(wf_arena *a, const wf_val *x, const wf_val *y);
const wf_val *val_and(wf_arena *a, const wf_val *x, const wf_val *y);
/* The binary value of kind k (V_ADD ... V_AND) by its constructor; NULL for another kind. */
const wf_val *val_binary(wf_arena *a, val_kind k, const wf_val *x, const wf_val *y);
/* v with every symbol (sym, sym_a) replaced by `to` (NULL on out of memory). */
const wf_val *val_subst(wf_arena *a, const wf_val *v, sym_kind sym, int sym_a, const wf_val *to);

static inline bool val_is_const(const wf_val *v) {
    return v && v->kind == V_CONST;
}
static inline bool val_is_const_eq(const wf_val *v, int64_t c) {
    return v && v->kind == V_CONST && v->c == c;
}
bool val_equal(const wf_val *x, const wf_val *y);
/* Does v mention the symbol of kind k with sym_a == a (e.g. threadIdx.y)? */
bool val_uses_sym(const wf_val *v, sym_kind k, int a);
/* Inclusive bounds of v's value from the symbols' ranges; hi = INT64_MAX if unknown. */
void val_range(const wf_val *v, int64_t *lo, int64_t *hi);
/* Can an operation inside v overflow int64 for some values of its symbols
   in their ranges? Decided only where the operands' ranges are known (a
   tensor size has none): false means "not provably"; false for NULL (a
   statement without that index, e.g. a reduction's init). */
bool val_may_overflow(const wf_val *v);
/* Provably x < y / x <= y, from ranges. */
bool val_prove_lt(const wf_val *x, const wf_val *y);
/* Evaluate under a binding of symbols; false if a symbol is unbound, a
   division by 0 or an int64 overflow (see val_apply). */
typedef bool (*val_binding)(void *ctx, const wf_val *sym, int64_t *out);
bool val_eval(const wf_val *v, val_binding bind, void *ctx, int64_t *out);
/* One binary operator on values (C semantics on int64); false on division by
   zero or when the result overflows int64 (C leaves that undefined, so no
   answer is right). Inline: the CPU reference executor applies it per thread. */
static inline bool val_apply(val_kind k, int64_t x, int64_t y, int64_t *out) {
    switch (k) {
    case V_ADD:
        return !__builtin_add_overflow(x, y, out);
    case V_SUB:
        return !__builtin_sub_overflow(x, y, out);
    case V_MUL:
        return !__builtin_mul_overflow(x, y, out);
    case V_XOR:
        *out = x ^ y;
        return true;
    case V_LT:
        *out = x < y;
        return true;
    case V_EQ:
        *out = x == y;
        return true;
    case V_AND:
        *out = x && y;
        return true;
    case V_DIV:
    case V_MOD:
        if (y == 0 || (x == INT64_MIN && y == -1))
            return false;
        *out = k == V_DIV ? x / y : x % y;
        return true;
    case V_CEILDIV:
        /* ceil(x / y) without the overflow of (x + y - 1) / y: the same as
           constant folding and the generated wf_ceildiv */
        if (y == 0 || (x == INT64_MIN && y == -1))
            return false;
        *out = x / y + (x % y != 0 && (x > 0) == (y > 0));
        return true;
    default:
        return false;
    }
}
/* Deep copy into another arena, preserving sharing (memo maps old -> new).
   val_memo_free releases the memo's heap table. NULL on out of memory. */
typedef struct {
    const wf_val **from, **to;
    size_t cap, n;
} val_memo;
const wf_val *val_clone(wf_arena *dst, const wf_val *v, val_memo *m);
void val_memo_free(val_memo *m);
/* Print as C; symbols print their name, or what `sym` prints for them (a
   backend's spelling, e.g. codegen's widened thread indices). */
typedef void (*val_sym_printer)(sbuf *b, const wf_val *sym);
void val_print(sbuf *b, const wf_val *v);
void val_print_with(sbuf *b, const wf_val *v, val_sym_printer sym);

/* ---- IterDomains and transforms (iterdomain.c) ---- */

typedef enum { IT_ITER, IT_REDUCTION, IT_BROADCAST } id_itype;
typedef enum { TF_SPLIT, TF_MERGE, TF_SWIZZLE } tf_kind;

typedef struct id_transform id_transform;
typedef struct wf_tv wf_tv;

struct wf_iterdomain {
    int id;               /* dense per fusion; printed as iS<id> */
    const wf_val *extent; /* in the fusion arena */
    id_itype itype;
    wf_ptype ptype;
    id_transform *def; /* transform that produced it, NULL for logical IDs */
    VEC(id_transform *) uses;
    wf_tv *tv;      /* the tensor whose history holds it */
    bool loop_only; /* a loop-domain broadcast (wf_tv_loop_broadcast): in no logical
                       domain, mapped to nothing; it only marks a consumer loop position */
};

struct id_transform {
    int id;
    tf_kind kind;
    wf_iterdomain *in[2], *out[2];
    int nin, nout;
    int64_t factor; /* split */
    bool inner;     /* split: inner split (factor is the inner extent) */
    bool divisible; /* split: known to divide its input evenly */
};

typedef struct wf_fusion wf_fusion;

wf_iterdomain *ir_id_new(wf_fusion *f, wf_tv *tv, const wf_val *extent, id_itype it);
/* Create outputs; NULL (with the sticky error set) when memory runs out. */
id_transform *ir_split(wf_fusion *f, wf_iterdomain *in, int64_t factor, bool inner);
id_transform *ir_merge(wf_fusion *f, wf_iterdomain *outer, wf_iterdomain *inner);
id_transform *ir_swizzle(wf_fusion *f, wf_iterdomain *x, wf_iterdomain *y);
/* An XOR swizzle needs iteration (not broadcast or reduction) axes with
   constant power-of-two extents, extent(x) <= extent(y), so that x ^ y stays
   inside y's extent. */
bool ir_swizzle_ok(const wf_iterdomain *x, const wf_iterdomain *y);
/* An existing transform of `kind` with these inputs/params (for replay reuse), or NULL. */
id_transform *ir_find_use(wf_iterdomain *in0, wf_iterdomain *in1, tf_kind k, int64_t factor,
                          bool inner);
int64_t ir_id_const_extent(const wf_iterdomain *id); /* -1 if symbolic */

/* ---- parallel types (ptype.c: the rows of ir/ptype.def, which says what each column is) ---- */

typedef enum { IR_PT_SERIAL, IR_PT_BLOCK, IR_PT_THREAD, IR_PT_DEVICE, IR_PT_OTHER } ir_ptype_kind;
typedef struct {
    wf_ptype p;
    const char *name; /* "TIDx": the printer's */
    const char *cuda; /* "threadIdx.x", or NULL */
    ir_ptype_kind kind;
    int axis;      /* 0, 1, 2 for x, y, z; -1 */
    int64_t limit; /* CUDA's largest launch extent on it; 0 */
} ir_ptype_info;
enum {
#define PTYPE(p, ...) IR_PTYPE_ROW_##p,
#include "ir/ptype.def"
#undef PTYPE
    IR_NPTYPES
};
const ir_ptype_info *ir_ptype(wf_ptype p); /* its row; no type: a row named "?" */
bool ir_id_is_thread(wf_ptype p);          /* TIDx/y/z */
bool ir_id_is_block(wf_ptype p);           /* BIDx/y/z, DIDx/y/z */
const char *ir_ptype_name(wf_ptype p);     /* "TIDx" ... */

/* ---- tensors and ops (tv.c, ops.c) ---- */

typedef VEC(wf_iterdomain *) id_list;

typedef enum {
#define OP(name, sym, nin) OP_##name,
#include "ir/ops.def"
#undef OP
    OP_COUNT
} op_kind;

/* The most tensor inputs (and operands) of one op: wf_where's three. */
#define IR_MAX_OP_INPUTS 3

/* A scalar constant (wf_full, scalar.c): a value of dtype, exact. */
typedef struct {
    wf_dtype dtype;
    double f;  /* float dtypes: the value, already rounded to dtype */
    int64_t i; /* integer and bool dtypes */
} ir_scalar;

typedef struct ir_op ir_op;
struct ir_op {
    int id;
    op_kind kind;
    wf_tv *out;
    wf_tv *in[IR_MAX_OP_INPUTS]; /* the tensor operands, in operand order */
    int nin;
    int sub;      /* wf_unary_op / wf_binary_op */
    wf_ldst ldst; /* OP_SET: hardware flavour of the copy */
    /* per input: out root dim d reads input logical dim in_dim[i][d], or -1 */
    int *in_dim[IR_MAX_OP_INPUTS];
    /* Operands (nvFuser's Vals: tensors or scalars) in the op's order: operand k is
       the scalar sc[k] when it is non-NULL, else the next tensor of in[]. nargs ==
       nin for ops without scalars. See ir_op_operand. */
    int nargs;
    const ir_scalar *sc[IR_MAX_OP_INPUTS];       /* converted to cdtype (computed with) */
    const ir_scalar *sc_given[IR_MAX_OP_INPUTS]; /* as the user gave them (printed) */
    /* The type the operands are converted to and the op computes in: out's type,
       but the promoted operand type of a comparison (whose out is bool). */
    wf_dtype cdtype;
    /* rfactor (sched/rfactor.c): out root dim d reads input 0's loop ID rf_in[d] where
       in_dim[0][d] is -1 (a partial result of the producer); NULL for other ops */
    wf_iterdomain **rf_in;
};

struct wf_tv {
    int id; /* printed T<id> */
    wf_fusion *f;
    wf_dtype dtype;
    wf_memtype mem;
    id_list logical; /* the tensor's shape; root == logical (no reshape yet) */
    id_list alloc;   /* explicit allocation domain, or n == 0 for the default */
    id_list loop;    /* the scheduled domain */
    int8_t *contig;  /* per logical dim (inputs) or per alloc dim when alloc set */
    int ca_pos;      /* compute-at (inline) position */
    int max_producer_pos;
    int dimsep; /* tensor-memory dim-separator position, -1 if unset */
    int stages; /* circular buffering (wf_tv_circular_buffer): copies of the buffer; 0 = none */
    ir_op *def;
    VEC(ir_op *) uses;
    bool is_input, is_output;
    const ir_scalar *scalar; /* a scalar constant (wf_full): no tensor of the graph */
};

struct wf_fusion {
    wf_arena arena;
    wf_err err;
    VEC(wf_tv *) tvs;
    VEC(wf_tv *) inputs;
    VEC(wf_tv *) outputs;
    VEC(ir_op *) ops;         /* in creation order; not necessarily topological after caching */
    VEC(wf_iterdomain *) ids; /* every IterDomain, indexed by its id */
    VEC(id_transform *) transforms; /* every transform, indexed by its id */
    char *text;    /* the last wf_*_string result (heap), valid until the next one */
    int nabstract; /* abstract tensors made so far (sched/transform.c names them A<n>) */
};

const char *ir_op_name(op_kind k);
/* Set and permute only move data (nvFuser's LoadStoreOp): they can carry a
   hardware op type and be done as vector copies. */
static inline bool ir_op_is_copy(const ir_op *op) {
    return op->kind == OP_SET || op->kind == OP_PERMUTE;
}
/* May op carry copy kind k? A copy, or, for ldmatrix, a broadcast: the
   fragment of a tensor-core operand is a broadcast view of a shared tile
   (lower/mma.c) that ldmatrix loads. */
static inline bool ir_op_takes_ldst(const ir_op *op, wf_ldst k) {
    return ir_op_is_copy(op) || (op->kind == OP_BROADCAST && k == WF_LDST_LDMATRIX);
}
/* Is op's statement a data movement: a copy, or a broadcast done by ldmatrix? */
static inline bool ir_op_moves(const ir_op *op) {
    return ir_op_takes_ldst(op, op->ldst);
}
const char *ir_unary_name(int op);
const char *ir_binary_name(int op);
const char *ir_memtype_name(wf_memtype m);
const char *ir_ldst_name(wf_ldst l); /* from ir/ldst.def, the copy-kind table */
/* The rows of ir/ldst.def: IR_LDST_ROW_<kind> is a row's position (it must
   equal the kind: the layers' hook tables are indexed by wf_ldst). */
enum {
#define LDST(kind, name, hooks, wide) IR_LDST_ROW_##kind,
#include "ir/ldst.def"
#undef LDST
    IR_NLDST
};

/* ---- dtypes (dtype.c: the rows of ir/dtype.def, which says what each column is) ---- */

typedef enum { IR_DT_FLOAT, IR_DT_INT, IR_DT_UINT, IR_DT_BOOL } ir_dtype_cat;
typedef struct {
    wf_dtype t;
    const char *name; /* "float", "half", "bfloat", ...: the printer's */
    const char *cuda; /* "float", "wf_half", ...: generated CUDA's */
    size_t size;
    ir_dtype_cat cat;
    wf_dtype compute;              /* what an op on it computes in (f32 for the 16-bit floats) */
    int64_t lo, hi;                /* integer and bool types: the range (floats: 0) */
    const char *cuda_lo, *cuda_hi; /* the compute type's least and greatest, in CUDA */
} ir_dtype_info;
enum {
#define DTYPE(t, ...) IR_DTYPE_ROW_##t,
#include "ir/dtype.def"
#undef DTYPE
    IR_NDTYPES
};
const ir_dtype_info *ir_dtype(wf_dtype t); /* its row; no dtype: a row named "?", size 0 */
const char *ir_dtype_short(wf_dtype t);    /* ir_dtype(t)->name */
static inline bool ir_dtype_is_float(wf_dtype t) {
    return ir_dtype(t)->cat == IR_DT_FLOAT;
}

wf_fusion *ir_fusion_new(void);
void ir_fusion_free(wf_fusion *f);
wf_tv *ir_tv_new(wf_fusion *f, wf_dtype t, int ndim, const wf_val *const *extents,
                 const id_itype *itypes);
wf_tv *ir_input(wf_fusion *f, wf_dtype t, int ndim, const int64_t *shape, const int8_t *contig);
ir_op *ir_op_new(wf_fusion *f, op_kind k, wf_tv *out, int nin, wf_tv *const *in);
bool ir_push_id(wf_fusion *f, id_list *l, wf_iterdomain *id);
bool ir_copy_ids(wf_fusion *f, id_list *dst, wf_iterdomain *const *src, int n);
bool ir_add_use(wf_tv *tv, ir_op *op);
void ir_remove_use(wf_tv *tv, ir_op *op);
/* The allocation domain: explicit if set; else logical for global, loop otherwise. */
const id_list *ir_alloc_domain(const wf_tv *tv);

/* ops.c: op constructors; they check shapes and set the sticky error. */
wf_tv *ir_set(wf_tv *a);
wf_tv *ir_cast(wf_tv *a, wf_dtype t);
wf_tv *ir_unary(int op, wf_tv *a);
wf_tv *ir_binary(int op, wf_tv *a, wf_tv *b);
wf_tv *ir_broadcast(wf_tv *a, int ndim_out, const bool *is_bcast);
/* A broadcast whose new dims are iteration dims of the given extents (nvFuser's
   expand): a's value repeated along them; the op's input does not index them. */
wf_tv *ir_expand(wf_tv *a, int ndim_out, const bool *is_bcast, const int64_t *extent);
wf_tv *ir_permute(wf_tv *a, const int *new2old);
/* reduce.c: a reduction (op: WF_ADD, WF_MUL, WF_MAX, WF_MIN) of a's listed
   dims (indices among a's non-reduction dims, negatives from the end). The
   output keeps every dim, the reduced ones as reduction IDs; integer and
   bool sums and products give i64 (PyTorch). */
wf_tv *ir_reduce(int op, wf_tv *a, int naxes, const int *axes);
/* The value a reduction starts from (the RED rows of ir/ops.def): its kind,
   and that value of type t (floats in .f: 0, 1, -inf, +inf; the others in .i:
   0, 1, the type's least or greatest). */
typedef enum { IR_INIT_ZERO, IR_INIT_ONE, IR_INIT_LOWEST, IR_INIT_HIGHEST } ir_reduce_init;
ir_reduce_init ir_reduce_init_kind(int op);
ir_scalar ir_reduce_init_value(int op, wf_dtype t);
/* The dims a consumer sees: a tensor's logical dims that are not reductions. */
int ir_tv_rank(const wf_tv *tv);
/* The logical position of the d-th of those dims (-1 when out of range). */
int ir_tv_dim(const wf_tv *tv, int d);
/* Give tv new logical and loop domains (rfactor): its consumers' in_dim,
   which name its logical positions, follow the IDs they read. */
bool ir_relogical(wf_tv *tv, const id_list *logical, const id_list *loop);

/* scalar.c: scalar constants as operands (nvFuser's scalar Vals). */
/* A scalar "tensor" of the fusion (not in f->tvs, id -1): value must be a value of t. */
wf_tv *ir_full(wf_fusion *f, wf_dtype t, double fv, int64_t iv, bool is_int);
/* Operand k of op: its tensor input index (>= 0), or -1 with *sc set to its scalar. */
int ir_op_operand(const ir_op *op, int k, const ir_scalar **sc);
/* A scalar's value converted to dtype t (for an op computing in t): false, with the
   sticky error, if an integer value does not fit t. */
bool ir_scalar_to(wf_fusion *f, const ir_scalar *s, wf_dtype t, ir_scalar *out);
/* Printed as in the math printout: float(2), double(0.10000000000000001), int64_t(5). */
void ir_print_scalar(sbuf *b, const ir_scalar *s);
static inline bool ir_binary_is_compare(int op) {
    return op >= WF_EQ && op <= WF_GE;
}
/* PyTorch's torch.result_type of two operands, either of which may be a scalar. */
wf_dtype ir_promote(const wf_tv *a, const wf_tv *b);
/* The broadcast shape of tensor operands of one rank (a broadcast dim takes the
   other's extent): ext, it and *rank; false with the sticky error (naming `name`). */
bool ir_operand_shape(const char *name, wf_tv *const *ts, int nt, const wf_val **ext, id_itype *it,
                      int *rank);
/* mma.c: wf_mma, a fused multiply-sum: an OP_REDUCE (sub WF_ADD) with two inputs
   whose steps fold a * b (ir_op_is_mma); wf_matmul builds one from views. */
wf_tv *ir_mma(wf_tv *a, wf_tv *b, int naxes, const int *axes);
wf_tv *ir_matmul(wf_tv *a, wf_tv *b);
static inline bool ir_op_is_mma(const ir_op *op) {
    return op->kind == OP_REDUCE && op->nin == 2;
}
/* where(cond, a, b) (ops: OP_WHERE). */
wf_tv *ir_where(wf_tv *cond, wf_tv *a, wf_tv *b);

/* print.c */
void ir_print_id(sbuf *b, const wf_iterdomain *id);
void ir_print_tv(sbuf *b, const wf_tv *tv); /* T1_s_float[iS2{2}, iS3{4}] */
void ir_print_math(sbuf *b, const wf_fusion *f);
void ir_print_loop_summary(sbuf *b, const wf_tv *tv); /* T2[BIDx{2}, TIDx{3}, 5, (CA), ...] */
void ir_print_transforms(sbuf *b, const wf_fusion *f);

/* dot.c: tv's IterDomain graph as Graphviz DOT. roles: NULL, or one
   ir_dot_role per IterDomain id of the fusion (TMA's classification, seed
   001), which colours the boxes as the seed's figures do. */
typedef enum { IR_DOT_PLAIN, IR_DOT_BOX, IR_DOT_COORD, IR_DOT_TILE, IR_DOT_STRIDE } ir_dot_role;
void ir_print_dot(sbuf *b, const wf_tv *tv, const uint8_t *roles);

#endif
