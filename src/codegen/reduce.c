/*
 * reduce.c -- the CUDA spelling of reduction statements and their helpers.
 *
 * A reduction computes in the type its output computes in (float for 16-bit
 * floats): init stores the op's initial value (PyTorch's: 0, 1, -inf or the
 * type's least value, +inf or its greatest: ir_reduce_init_kind, spelled by
 * ir/dtype.def's cuda_lo and cuda_hi); the serial step is
 * out = wf_r<op>(out, in); a block reduction calls wf_block_reduce, which
 * every thread of the block reaches: a thread whose read predicate is false
 * contributes the initial value, and the threads whose write predicate holds
 * fold the result into out. The helpers are printed only into kernels with
 * reductions (the other kernels' sources stay as they were).
 *
 * wf_block_reduce's order is the contract the CPU executor reproduces
 * (runtime/interp_reduce.c): the threads that differ only in the reduced
 * dims form a group; r is a thread's index in the group (x fastest), R the
 * group's size. Warp path: where a group's threads lie S apart in linear
 * thread order (x fastest; S = 1, blockDim.x or blockDim.x * blockDim.y),
 * S divides 32 and R is a multiple of L = 32 / S, each warp holds L
 * consecutive members of each of S groups: they halve by shuffles (lane j
 * takes lane j + o for o = L/2, ..., 1) into the warp's partial; with W =
 * R / L > 1 partials, each warp's member 0 stores its partial into one of
 * two slots of the workspace (alternating per call, so that one barrier
 * suffices: a thread still reading one slot is before the next call's
 * barrier, which the writers of that slot pass first), one barrier, then
 * member j < M = min(W, L) folds partials j, j + L, ... in order and the M
 * values halve by shuffles (j takes j + o where j + o < M, o from half the
 * least power of two >= M). All threads take member 0's value. Otherwise:
 * each thread stores its value at w[r], then for s = P/2, P/4, ..., 1 (P
 * the least power of two >= R) thread r < s with r + s < R sets w[r] =
 * op(w[r], w[r + s]), with a barrier after each step (and one before the
 * first store, as the warp path's partials may still be read); all read w[0].
 * max and min return a NaN operand (PyTorch propagates NaN).
 */
#include "codegen/codegen_int.h"

static const char *const helpers =
    "__device__ inline float wf_radd(float a, float b) { return a + b; }\n"
    "__device__ inline double wf_radd(double a, double b) { return a + b; }\n"
    "template <typename T> __device__ inline T wf_radd(T a, T b) { return T(wf_u64(a) + "
    "wf_u64(b)); }\n"
    "__device__ inline float wf_rmul(float a, float b) { return a * b; }\n"
    "__device__ inline double wf_rmul(double a, double b) { return a * b; }\n"
    "template <typename T> __device__ inline T wf_rmul(T a, T b) { return T(wf_u64(a) * "
    "wf_u64(b)); }\n"
    "template <typename T> __device__ inline T wf_rmax(T a, T b) { return (a != a || a > b) ? a "
    ": b; }\n"
    "template <typename T> __device__ inline T wf_rmin(T a, T b) { return (a != a || a < b) ? a "
    ": b; }\n"
    "__device__ inline float wf_mmul(float a, float b) { return __fmul_rn(a, b); }\n"
    "__device__ inline double wf_mmul(double a, double b) { return __dmul_rn(a, b); }\n"
    "struct wf_op_add { template <typename T> __device__ T operator()(T a, T b) const { return "
    "wf_radd(a, b); } };\n"
    "struct wf_op_mul { template <typename T> __device__ T operator()(T a, T b) const { return "
    "wf_rmul(a, b); } };\n"
    "struct wf_op_max { template <typename T> __device__ T operator()(T a, T b) const { return "
    "wf_rmax(a, b); } };\n"
    "struct wf_op_min { template <typename T> __device__ T operator()(T a, T b) const { return "
    "wf_rmin(a, b); } };\n";

static const char *const block_helper =
    "template <typename T> __device__ inline T wf_shfl_down(T v, unsigned s) {\n"
    "  return (T)__shfl_down_sync(0xffffffffu, (long long)v, s);\n"
    "}\n"
    "__device__ inline float wf_shfl_down(float v, unsigned s) { return "
    "__shfl_down_sync(0xffffffffu, v, s); }\n"
    "__device__ inline double wf_shfl_down(double v, unsigned s) { return "
    "__shfl_down_sync(0xffffffffu, v, s); }\n"
    "template <typename T> __device__ inline T wf_shfl(T v, unsigned l) {\n"
    "  return (T)__shfl_sync(0xffffffffu, (long long)v, l);\n"
    "}\n"
    "__device__ inline float wf_shfl(float v, unsigned l) { return "
    "__shfl_sync(0xffffffffu, v, l); }\n"
    "__device__ inline double wf_shfl(double v, unsigned l) { return "
    "__shfl_sync(0xffffffffu, v, l); }\n"
    "template <typename T, typename F>\n"
    "__device__ inline T wf_warp_reduce(T v, F op, T *p, unsigned S, unsigned R, unsigned G, "
    "unsigned r, unsigned g, unsigned &par) {\n"
    "  unsigned L = 32u / S, W = R / L, j = r % L;\n"
    "  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
    "  for (unsigned o = L >> 1; o > 0; o >>= 1) v = op(v, wf_shfl_down(v, o * S));\n"
    "  if (W > 1u) {\n"
    "    unsigned M = W < L ? W : L, q = 1;\n"
    "    par ^= 1u;\n"
    "    p += par * (G * W);\n"
    "    if (j == 0) p[(r / L) * G + g] = v;\n"
    "    __syncthreads();\n"
    "    if (j < M) {\n"
    "      v = p[j * G + g];\n"
    "      for (unsigned k = j + L; k < W; k += L) v = op(v, p[k * G + g]);\n"
    "    }\n"
    "    while (q < M) q <<= 1;\n"
    "    for (unsigned o = q >> 1; o > 0; o >>= 1) {\n"
    "      T y = wf_shfl_down(v, o * S);\n"
    "      if (j + o < M) v = op(v, y);\n"
    "    }\n"
    "  }\n"
    "  return wf_shfl(v, (t & 31u) - j * S);\n"
    "}\n"
    "template <bool RX, bool RY, bool RZ, typename T, typename F>\n"
    "__device__ inline T wf_block_reduce(T v, F op, T *ws, unsigned &par) {\n"
    "  unsigned nx = blockDim.x, ny = blockDim.y, nz = blockDim.z;\n"
    "  unsigned R = (RX ? nx : 1u) * (RY ? ny : 1u) * (RZ ? nz : 1u);\n"
    "  unsigned r = ((RZ ? threadIdx.z : 0u) * (RY ? ny : 1u) + (RY ? threadIdx.y : 0u)) * (RX ? "
    "nx : 1u) + (RX ? threadIdx.x : 0u);\n"
    "  unsigned g = ((RZ ? 0u : threadIdx.z) * (RY ? 1u : ny) + (RY ? 0u : threadIdx.y)) * (RX ? "
    "1u : nx) + (RX ? 0u : threadIdx.x);\n"
    "  unsigned S = RX ? 1u : RY ? nx : nx * ny, N = nx * ny * nz;\n"
    "  bool lined = !(RX && !RY && RZ && ny != 1u);\n"
    "  if (lined && S <= 32u && 32u % S == 0 && R % (32u / S) == 0 && sizeof(T) <= 4u * (32u / "
    "S)) {\n"
    "    return wf_warp_reduce(v, op, ws, S, R, N / R, r, g, par);\n"
    "  }\n"
    "  T *w = ws + g * R;\n"
    "  unsigned p = 1;\n"
    "  while (p < R) p <<= 1;\n"
    "  __syncthreads();\n"
    "  w[r] = v;\n"
    "  __syncthreads();\n"
    "  for (unsigned s = p >> 1; s > 0; s >>= 1) {\n"
    "    if (r < s && r + s < R) w[r] = op(w[r], w[r + s]);\n"
    "    __syncthreads();\n"
    "  }\n"
    "  T out = w[0];\n"
    "  __syncthreads();\n"
    "  return out;\n"
    "}\n";

/* The grid reduction (after the block's): per group of threads not reduced,
   each block's lead thread stores its block result at
   work[(gb * NT + gt) * NRB + rb]; the block's arrival is counted on the
   semaphore of its non-reduced block group gb (times the serial
   iterations around the reduction, plus this one's: each has its own); the last block to arrive
   resets it and folds the NRB partials in order 0..NRB-1, which every
   thread of that block returns. */
static const char *const grid_helper =
    "__device__ unsigned long long wf_gwork[1048576];\n"
    "__device__ unsigned wf_gsem[65536];\n"
    "template <bool RX, bool RY, bool RZ, bool BX, bool BY, bool BZ, typename T, typename F>\n"
    "__device__ inline T wf_grid_reduce(T v, T init, F op, T *ws, unsigned long long it, "
    "unsigned long long nit, bool *last, unsigned &par) {\n"
    "  T bv = wf_block_reduce<RX, RY, RZ>(v, op, ws, par);\n"
    "  unsigned long long nx = blockDim.x, ny = blockDim.y, nz = blockDim.z;\n"
    "  unsigned long long gx = gridDim.x, gy = gridDim.y, gz = gridDim.z;\n"
    "  unsigned long long NT = (RX ? 1ull : nx) * (RY ? 1ull : ny) * (RZ ? 1ull : nz);\n"
    "  unsigned long long gt = ((RZ ? 0ull : threadIdx.z) * (RY ? 1ull : ny) + (RY ? 0ull : "
    "threadIdx.y)) * (RX ? 1ull : nx) + (RX ? 0ull : threadIdx.x);\n"
    "  bool lead = (!RX || threadIdx.x == 0) && (!RY || threadIdx.y == 0) && (!RZ || "
    "threadIdx.z == 0);\n"
    "  unsigned long long NRB = (BX ? gx : 1ull) * (BY ? gy : 1ull) * (BZ ? gz : 1ull);\n"
    "  unsigned long long rb = ((BZ ? blockIdx.z : 0ull) * (BY ? gy : 1ull) + (BY ? blockIdx.y "
    ": 0ull)) * (BX ? gx : 1ull) + (BX ? blockIdx.x : 0ull);\n"
    "  unsigned long long gb = ((BZ ? 0ull : blockIdx.z) * (BY ? 1ull : gy) + (BY ? 0ull : "
    "blockIdx.y)) * (BX ? 1ull : gx) + (BX ? 0ull : blockIdx.x);\n"
    "  gb = gb * nit + it;\n"
    "  volatile T *slot = reinterpret_cast<T *>(wf_gwork) + (gb * NT + gt) * NRB;\n"
    "  __shared__ unsigned wf_last;\n"
    "  if (lead) slot[rb] = bv;\n"
    "  __threadfence();\n"
    "  __syncthreads();\n"
    "  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n"
    "    unsigned old = atomicAdd(&wf_gsem[gb], 1u);\n"
    "    wf_last = old == NRB - 1;\n"
    "    if (wf_last) wf_gsem[gb] = 0;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  *last = wf_last != 0;\n"
    "  T r = init;\n"
    "  if (*last) {\n"
    "    __threadfence();\n"
    "    for (unsigned long long i = 0; i < NRB; ++i) r = op(r, (T)slot[i]);\n"
    "  }\n"
    "  __syncthreads();\n"
    "  return r;\n"
    "}\n";

static bool has_reduction(const kir_list *l, bool *block, bool *grid_out) {
    bool any = false, grid = false;
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        const kir_list *body = kir_body((kir_node *)n);
        if (body)
            any |= has_reduction(body, block, grid_out);
        else if (n->kind == KIR_STMT && n->u.stmt.red != KRED_NONE) {
            any = true;
            *block |= n->u.stmt.red >= KRED_BLOCK;
            grid |= n->u.stmt.red == KRED_GRID;
        }
    }
    *grid_out |= grid;
    return any;
}

void cg_reduce_helpers(sbuf *b, const lower_result *r) {
    bool block = false, grid = false;
    if (!has_reduction(&r->top, &block, &grid))
        return;
    sbuf_puts(b, helpers);
    if (block)
        sbuf_puts(b, block_helper);
    if (grid)
        sbuf_puts(b, grid_helper);
}

/* The initial value, in the compute type. */
static void emit_init(sbuf *b, int op, wf_dtype t) {
    ir_reduce_init k = ir_reduce_init_kind(op);
    if (k == IR_INIT_LOWEST || k == IR_INIT_HIGHEST)
        sbuf_puts(b, k == IR_INIT_LOWEST ? ir_dtype(t)->cuda_lo : ir_dtype(t)->cuda_hi);
    else
        sbuf_printf(b, "(%s)%d", cg_compute_name(t), k == IR_INIT_ONE);
}

static const char *combine_name(int op) {
    return op == WF_ADD ? "add" : op == WF_MUL ? "mul" : op == WF_MAX ? "max" : "min";
}

static void emit_access(sbuf *b, const wf_tv *tv, const wf_val *index, const char *ct) {
    sbuf_printf(b, "(%s)T%d[", ct, tv->id);
    cg_print_val(b, index);
    sbuf_puts(b, "]");
}

/* The accumulator a step folds into: the output, or a float register. */
static void emit_out(sbuf *b, const kir_stmt *s) {
    if (s->acc > 0 && s->red != KRED_FINAL) {
        sbuf_printf(b, "wf_acc%d = ", s->acc);
        return;
    }
    sbuf_printf(b, "T%d[", s->op->out->id);
    cg_print_val(b, s->out_index);
    sbuf_puts(b, "] = ");
}

/* The accumulator's current value, in the compute type. */
static void emit_acc(sbuf *b, const kir_stmt *s, const char *ct) {
    if (s->acc > 0)
        sbuf_printf(b, "wf_acc%d", s->acc);
    else
        emit_access(b, s->op->out, s->out_index, ct);
}

/* The statement that accumulates in register k, or NULL. */
static const kir_stmt *acc_stmt(const kir_list *l, int k) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        const kir_list *body = kir_body((kir_node *)n);
        const kir_stmt *s = body ? acc_stmt(body, k) : NULL;
        if (s)
            return s;
        if (!body && n->kind == KIR_STMT && n->u.stmt.acc == k)
            return &n->u.stmt;
    }
    return NULL;
}

/* The float registers of 16-bit reductions (kir_stmt.acc), declared at the
   kernel's top: their init, steps and final store sit in different loops. */
void cg_reduce_decls(sbuf *b, const lower_result *r) {
    bool block = false, grid = false;
    if (has_reduction(&r->top, &block, &grid) && block)
        sbuf_puts(b, "  unsigned wf_rpar = 0u;\n");
    for (int k = 1; k <= r->nacc; k++) {
        const kir_stmt *s = acc_stmt(&r->top, k);
        sbuf_printf(b, "  %s wf_acc%d;\n", s ? cg_compute_name(s->op->out->dtype) : "float", k);
    }
}

/* (ct)in, or a wf_mma's product wf_mmul((ct)a, (ct)b): rounded once, never
   contracted into the accumulation (the executor's order and rounding). */
static void emit_input(sbuf *b, const kir_stmt *s, const char *ct) {
    if (s->op->nin < 2) {
        emit_access(b, s->op->in[0], s->in_index[0], ct);
        return;
    }
    sbuf_puts(b, "wf_mmul(");
    emit_access(b, s->op->in[0], s->in_index[0], ct);
    sbuf_puts(b, ", ");
    emit_access(b, s->op->in[1], s->in_index[1], ct);
    sbuf_puts(b, ")");
}

/* {pred ? (ct)in : init} */
static void emit_contribution(sbuf *b, const kir_stmt *s, const char *ct) {
    if (s->pred) {
        sbuf_puts(b, "(");
        cg_print_val(b, s->pred);
        sbuf_puts(b, ") ? ");
    }
    emit_input(b, s, ct);
    if (s->pred) {
        sbuf_printf(b, " : (%s)", ct);
        emit_init(b, s->op->sub, s->op->out->dtype);
    }
}

static void emit_block(sbuf *b, const lower_result *r, const kir_stmt *s, int depth,
                       const char *ct) {
    const char *op = combine_name(s->op->sub);
    sbuf_indent(b, depth);
    sbuf_printf(b, "{\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b, "%s wf_r = wf_block_reduce<%s, %s, %s>(", ct,
                (s->red_tids & 1) ? "true" : "false", (s->red_tids & 2) ? "true" : "false",
                (s->red_tids & 4) ? "true" : "false");
    emit_contribution(b, s, ct);
    sbuf_printf(b, ", wf_op_%s(), reinterpret_cast<%s *>(wf_smem + ", op, ct);
    cg_print_val(b, r->red_smem);
    sbuf_puts(b, "), wf_rpar);\n");
    sbuf_indent(b, depth + 1);
    if (s->wpred) {
        sbuf_puts(b, "if (");
        cg_print_val(b, s->wpred);
        sbuf_puts(b, ") ");
    }
    emit_out(b, s);
    sbuf_printf(b, "wf_r%s(", op);
    emit_acc(b, s, ct);
    sbuf_puts(b, ", wf_r);\n");
    sbuf_indent(b, depth);
    sbuf_puts(b, "}\n");
}

static void emit_grid(sbuf *b, const lower_result *r, const kir_stmt *s, int depth,
                      const char *ct) {
    sbuf_indent(b, depth);
    sbuf_puts(b, "{\n");
    sbuf_indent(b, depth + 1);
    sbuf_puts(b, "bool wf_last;\n");
    sbuf_indent(b, depth + 1);
    sbuf_printf(b, "%s wf_r = wf_grid_reduce<", ct);
    for (int d = 0; d < 6; d++)
        sbuf_printf(b, "%s%s", d ? ", " : "",
                    ((d < 3 ? s->red_tids >> d : s->red_bids >> (d - 3)) & 1u) ? "true" : "false");
    sbuf_puts(b, ">(");
    emit_contribution(b, s, ct);
    sbuf_printf(b, ", (%s)", ct);
    emit_init(b, s->op->sub, s->op->out->dtype);
    sbuf_printf(b, ", wf_op_%s(), reinterpret_cast<%s *>(wf_smem + ", combine_name(s->op->sub), ct);
    cg_print_val(b, r->red_smem);
    sbuf_puts(b, "), ");
    cg_print_val(b, s->grid_iter);
    sbuf_puts(b, ", ");
    cg_print_val(b, s->grid_niter);
    sbuf_puts(b, ", &wf_last, wf_rpar);\n");
    sbuf_indent(b, depth + 1);
    sbuf_puts(b, "if (wf_last");
    if (s->wpred) {
        sbuf_puts(b, " && (");
        cg_print_val(b, s->wpred);
        sbuf_puts(b, ")");
    }
    sbuf_puts(b, ") ");
    emit_out(b, s);
    sbuf_puts(b, "wf_r;\n");
    sbuf_indent(b, depth);
    sbuf_puts(b, "}\n");
}

void cg_reduce_emit(sbuf *b, const lower_result *r, const kir_stmt *s, int depth) {
    const char *ct = cg_compute_name(s->op->out->dtype);
    if (s->red == KRED_GRID) {
        emit_grid(b, r, s, depth, ct);
        return;
    }
    if (s->red == KRED_BLOCK) {
        emit_block(b, r, s, depth, ct);
        return;
    }
    sbuf_indent(b, depth);
    emit_out(b, s);
    if (s->red == KRED_INIT)
        emit_init(b, s->op->sub, s->op->out->dtype);
    else if (s->red == KRED_FINAL) /* the one rounding to the 16-bit type */
        sbuf_printf(b, "wf_acc%d", s->acc);
    else {
        sbuf_printf(b, "wf_r%s(", combine_name(s->op->sub));
        emit_acc(b, s, ct);
        sbuf_puts(b, ", ");
        emit_input(b, s, ct);
        sbuf_puts(b, ")");
    }
    sbuf_puts(b, ";\n");
}
