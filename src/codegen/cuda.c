/*
 * cuda.c -- print kernel IR as CUDA C++.
 *
 * One function per node kind. Serial loops become `for` loops over wf_index
 * variables; thread- and block-parallel loops, loops of extent 1 and vector
 * loops print nothing (their index is threadIdx/blockIdx, 0, or covered by
 * the vector access). Statements compute in float for 16-bit types and in
 * their own type otherwise, each operand converted to the op's output type
 * (the IR's promotion rule, ir/ops.c); vector statements become wf_vec_copy
 * calls.
 */
#include "codegen/copy.h"
#include "codegen/param.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    sbuf b;
    const lower_result *r;
    char *aligned; /* per tensor id: used by a vector access */
} emitter;

static void emit_access(emitter *e, const wf_tv *tv, const wf_val *index) {
    sbuf_printf(&e->b, "T%d[", tv->id);
    cg_print_val(&e->b, index);
    sbuf_puts(&e->b, "]");
}

/* Operand k (a tensor or a scalar, ir_op_operand) converted to the type the op
   computes in; a scalar is a literal of that type already (cg_scalar_literal). */
static void emit_operand(emitter *e, const kir_stmt *s, int k, const char *ctype) {
    const ir_scalar *sc;
    int i = ir_op_operand(s->op, k, &sc);
    if (i < 0) {
        cg_scalar_literal(&e->b, sc);
        return;
    }
    const wf_tv *in = s->op->in[i];
    if (strcmp(cg_dtype_name(in->dtype), ctype) != 0)
        sbuf_printf(&e->b, "(%s)", ctype);
    emit_access(e, in, s->in_index[i]);
}

/* ---- the op table: each op's CUDA spelling, by the type it computes in ----
   Float types use C++ operators and libm-like wrappers; integer and bool
   types use the prelude's wrapping helpers (C++ leaves signed overflow and
   x / 0 undefined). A spelling ending in "(" is a call; else an infix or
   prefix operator. Float-only ops never see integers: the IR promotes. */

typedef struct {
    const char *flt, *intg;
} cuda_spelling;

static const cuda_spelling unary_cuda[] = {
    [WF_NEG] = {"-", "wf_ineg("},         [WF_ABS] = {"wf_abs(", "wf_iabs("},
    [WF_EXP] = {"wf_exp(", NULL},         [WF_LOG] = {"wf_log(", NULL},
    [WF_SQRT] = {"wf_sqrt(", NULL},       [WF_RSQRT] = {"wf_rsqrt(", NULL},
    [WF_SIN] = {"wf_sin(", NULL},         [WF_COS] = {"wf_cos(", NULL},
    [WF_TANH] = {"wf_tanh(", NULL},       [WF_SIGMOID] = {"wf_sigmoid(", NULL},
    [WF_RELU] = {"wf_relu(", "wf_relu("}, [WF_RECIPROCAL] = {"wf_reciprocal(", NULL},
};

static const cuda_spelling binary_cuda[] = {
    [WF_ADD] = {" + ", "wf_iadd("},     [WF_SUB] = {" - ", "wf_isub("},
    [WF_MUL] = {" * ", "wf_imul("},     [WF_DIV] = {" / ", "wf_idiv("},
    [WF_MAX] = {"wf_max(", "wf_max("},  [WF_MIN] = {"wf_min(", "wf_min("},
    [WF_POW] = {"wf_pow(", "wf_ipow("}, [WF_EQ] = {" == ", " == "},
    [WF_NE] = {" != ", " != "},         [WF_LT] = {" < ", " < "},
    [WF_LE] = {" <= ", " <= "},         [WF_GT] = {" > ", " > "},
    [WF_GE] = {" >= ", " >= "},
};

static bool is_call(const char *spelling) {
    size_t n = strlen(spelling);
    return n && spelling[n - 1] == '(';
}

/* A call to an integer helper names its type: operands may be promoted by C++. */
static void emit_open(emitter *e, const char *spelling, bool flt, const char *ct) {
    size_t n = strlen(spelling);
    if (flt || !is_call(spelling)) {
        sbuf_puts(&e->b, spelling);
        return;
    }
    sbuf_printf(&e->b, "%.*s<%s>(", (int)(n - 1), spelling, ct);
}

/* Float to integer saturates (wf_f2i); everything else is a C++ conversion. */
static void emit_cast(emitter *e, const kir_stmt *s) {
    const ir_op *op = s->op;
    wf_dtype to = op->out->dtype;
    const char *from = cg_compute_name(op->in[0]->dtype), *tn = cg_dtype_name(to);
    if (ir_dtype_is_float(op->in[0]->dtype) && !ir_dtype_is_float(to) && to != WF_BOOL) {
        sbuf_printf(&e->b, "wf_f2i<%s>(", tn);
        emit_operand(e, s, 0, from);
        sbuf_puts(&e->b, ")");
        return;
    }
    if (strcmp(from, tn) != 0)
        sbuf_printf(&e->b, "(%s)", tn);
    emit_operand(e, s, 0, from);
}

static void emit_unary(emitter *e, const kir_stmt *s, const char *ct) {
    const ir_op *op = s->op;
    bool flt = ir_dtype_is_float(op->out->dtype);
    const char *sp = flt ? unary_cuda[op->sub].flt : unary_cuda[op->sub].intg;
    emit_open(e, sp, flt, ct);
    emit_operand(e, s, 0, ct);
    if (is_call(sp))
        sbuf_puts(&e->b, ")");
}

static void emit_binary(emitter *e, const kir_stmt *s, const char *ct) {
    const ir_op *op = s->op;
    bool flt = ir_dtype_is_float(op->cdtype);
    const char *sp = flt ? binary_cuda[op->sub].flt : binary_cuda[op->sub].intg;
    if (e->r->fast_math && op->sub == WF_DIV && strcmp(ct, "float") == 0)
        sp = "__fdividef("; /* wf_compile_options.fast_math */
    bool call = is_call(sp);
    if (call)
        emit_open(e, sp, flt, ct);
    emit_operand(e, s, 0, ct);
    sbuf_puts(&e->b, call ? ", " : sp);
    emit_operand(e, s, 1, ct);
    if (call)
        sbuf_puts(&e->b, ")");
}

/* cond ? a : b; the condition is a bool tensor, the operands in the compute type. */
static void emit_where(emitter *e, const kir_stmt *s, const char *ct) {
    sbuf_puts(&e->b, "(");
    emit_operand(e, s, 0, "bool");
    sbuf_puts(&e->b, " ? ");
    emit_operand(e, s, 1, ct);
    sbuf_puts(&e->b, " : ");
    emit_operand(e, s, 2, ct);
    sbuf_puts(&e->b, ")");
}

static void emit_value(emitter *e, const kir_stmt *s) {
    const ir_op *op = s->op;
    const char *ct = cg_compute_name(op->cdtype);
    switch (op->kind) {
    case OP_CAST:
        emit_cast(e, s);
        break;
    case OP_UNARY:
        emit_unary(e, s, ct);
        break;
    case OP_BINARY:
        emit_binary(e, s, ct);
        break;
    case OP_WHERE:
        emit_where(e, s, ct);
        break;
    default: /* set, broadcast, permute: a copy */
        emit_access(e, op->in[0], s->in_index[0]);
        break;
    }
}

static void emit_stmt(emitter *e, const kir_stmt *s, int depth);

/* A filling statement (lower/mma.c): where its bounds fail, its cells get 0. */
static bool emit_fill(emitter *e, const kir_stmt *s, int depth) {
    if (!s->fill || !s->pred)
        return false;
    sbuf_indent(&e->b, depth);
    sbuf_puts(&e->b, "if (");
    cg_print_val(&e->b, s->pred);
    sbuf_puts(&e->b, ") {\n");
    kir_stmt inner = *s;
    inner.fill = false;
    emit_stmt(e, &inner, depth + 1);
    sbuf_indent(&e->b, depth);
    sbuf_puts(&e->b, "} else {\n");
    for (int v = 0; v < s->vec; v++) {
        sbuf_indent(&e->b, depth + 1);
        sbuf_printf(&e->b, "T%d[", s->op->out->id);
        cg_print_val(&e->b, s->out_index);
        if (v)
            sbuf_printf(&e->b, " + %d", v);
        sbuf_printf(&e->b, "] = %s(0);\n", cg_dtype_name(s->op->out->dtype));
    }
    sbuf_indent(&e->b, depth);
    sbuf_puts(&e->b, "}\n");
    return true;
}

static void emit_stmt(emitter *e, const kir_stmt *s, int depth) {
    if (s->view || emit_fill(e, s, depth))
        return;
    if (s->mma) {
        (s->mma == 2 ? cg_wgmma_emit : cg_mma_emit)(&e->b, s, depth);
        return;
    }
    if (s->red != KRED_NONE) {
        cg_reduce_emit(&e->b, e->r, s, depth);
        return;
    }
    if (cg_copy_emit(&e->b, s, depth))
        return;
    sbuf_indent(&e->b, depth);
    if (s->vec > 1) {
        sbuf_printf(&e->b, "wf_vec_copy<%s, %d>(&", cg_dtype_name(s->op->out->dtype), s->vec);
        emit_access(e, s->op->out, s->out_index);
        sbuf_puts(&e->b, ", &");
        emit_access(e, s->op->in[0], s->in_index[0]);
        sbuf_puts(&e->b, ");\n");
        return;
    }
    emit_access(e, s->op->out, s->out_index);
    sbuf_puts(&e->b, " = ");
    emit_value(e, s);
    sbuf_puts(&e->b, ";\n");
}

static void emit_list(emitter *e, const kir_list *l, int depth);

static void emit_for(emitter *e, const kir_for *l, int depth) {
    bool no_loop = lower_pdim_index(l->ptype) >= 0 || l->vector || val_is_const(l->var);
    if (no_loop) {
        emit_list(e, &l->body, depth);
        return;
    }
    if (l->ptype == WF_UNROLL || l->ptype == WF_VECTORIZE) {
        sbuf_indent(&e->b, depth);
        sbuf_puts(&e->b, "#pragma unroll\n");
    }
    sbuf_indent(&e->b, depth);
    sbuf_printf(&e->b, "for (wf_index %s = 0; %s < ", l->var->name, l->var->name);
    cg_print_val(&e->b, l->extent);
    sbuf_printf(&e->b, "; ++%s) {\n", l->var->name);
    emit_list(e, &l->body, depth + 1);
    sbuf_indent(&e->b, depth);
    sbuf_puts(&e->b, "}\n");
}

static void emit_alloc(emitter *e, const kir_alloc *a, int depth) {
    const char *t = cg_dtype_name(a->tv->dtype);
    if (a->view) /* a wgmma operand's view of a shared tile */
        return;
    if (a->mem == WF_MEM_TENSOR) {
        cg_tmem_alloc(&e->b, e->r, a, depth);
        return;
    }
    sbuf_indent(&e->b, depth);
    if (a->mem == WF_MEM_SHARED) {
        sbuf_printf(&e->b, "%s *T%d = reinterpret_cast<%s *>(wf_smem + ", t, a->tv->id, t);
        cg_print_val(&e->b, a->smem_offset);
        sbuf_puts(&e->b, ");\n");
        return;
    }
    sbuf_printf(&e->b, "%s%s T%d[", e->aligned[a->tv->id] ? "__align__(16) " : "", t, a->tv->id);
    cg_print_val(&e->b, a->size);
    sbuf_puts(&e->b, "];\n");
}

static void emit_node(emitter *e, const kir_node *n, int depth) {
    if (kir_runs_nothing(n))
        return;
    switch (n->kind) {
    case KIR_FOR:
        emit_for(e, &n->u.loop, depth);
        break;
    case KIR_IF:
        sbuf_indent(&e->b, depth);
        sbuf_puts(&e->b, "if (");
        cg_print_val(&e->b, n->u.cond.cond);
        sbuf_puts(&e->b, ") {\n");
        emit_list(e, &n->u.cond.body, depth + 1);
        sbuf_indent(&e->b, depth);
        sbuf_puts(&e->b, "}\n");
        break;
    case KIR_ALLOC:
        emit_alloc(e, &n->u.alloc, depth);
        break;
    case KIR_STMT:
        emit_stmt(e, &n->u.stmt, depth);
        break;
    case KIR_SYNC:
        cg_emit_sync(&e->b, e->r, &n->u.sync, depth);
        break;
    case KIR_HW:
        if (cg_emit_hw(&e->b, &n->u.hw, depth)) {
            emit_list(e, &n->u.hw.body, depth + 1);
            sbuf_indent(&e->b, depth);
            sbuf_puts(&e->b, "}\n");
        }
        break;
    }
}

static void emit_list(emitter *e, const kir_list *l, int depth) {
    for (int i = 0; i < l->n; i++)
        emit_node(e, l->ptr[i], depth);
}

static void mark_aligned(emitter *e, const kir_list *l) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        if (n->kind == KIR_FOR)
            mark_aligned(e, &n->u.loop.body);
        else if (n->kind == KIR_IF)
            mark_aligned(e, &n->u.cond.body);
        else if (n->kind == KIR_STMT && (n->u.stmt.vec > 1 || n->u.stmt.mma)) {
            e->aligned[n->u.stmt.op->out->id] = 1;
            for (int k = 0; k < n->u.stmt.op->nin; k++)
                e->aligned[n->u.stmt.op->in[k]->id] = 1;
        }
    }
}

static void emit_signature(emitter *e) {
    /* A static block size bounds the registers the compiler may give a thread,
       so that a block of that size always launches. It binds only above 256
       threads: 256 threads of 255 registers (the most a thread can have) fit
       the 64 Ki registers of an SM, so smaller blocks keep the plain signature. */
    const int64_t *bd = e->r->launch.block;
    int64_t threads = bd[0] > 0 && bd[1] > 0 && bd[2] > 0 ? bd[0] * bd[1] * bd[2] : 0;
    sbuf_puts(&e->b, "\nextern \"C\" __global__ void ");
    if (threads > 256)
        sbuf_printf(&e->b, "__launch_bounds__(%lld) ", (long long)threads);
    sbuf_puts(&e->b, CG_KERNEL_NAME "(");
    for (int i = 0; i < e->r->params.n; i++) {
        sbuf_puts(&e->b, i ? ", " : "");
        cg_emit_param(&e->b, &e->r->params.ptr[i]);
    }
    sbuf_puts(&e->b, ") {\n");
    if (!val_is_const_eq(e->r->smem, 0) && e->r->smem_align > 16)
        sbuf_printf(
            &e->b,
            "  extern __shared__ __align__(16) unsigned char wf_smem_raw[];\n"
            "  unsigned char *wf_smem = (unsigned char *)(((unsigned long long)wf_smem_raw + "
            "%lldull) & ~%lldull);\n",
            (long long)(e->r->smem_align - 1), (long long)(e->r->smem_align - 1));
    else if (!val_is_const_eq(e->r->smem, 0))
        sbuf_puts(&e->b, "  extern __shared__ __align__(16) unsigned char wf_smem[];\n");
}

char *cg_emit_cuda(const lower_result *r) {
    emitter e = {{0}, r, calloc((size_t)r->params.ptr[0].tv->f->tvs.n + 1, 1)};
    if (!e.aligned)
        return NULL;
    mark_aligned(&e, &r->top);
    cg_emit_prelude(&e.b, r->fast_math);
    cg_reduce_helpers(&e.b, r);
    cg_tmem_helpers(&e.b, r);
    cg_tma_helpers(&e.b, r);
    emit_signature(&e);
    cg_sync_decls(&e.b, r);
    cg_reduce_decls(&e.b, r);
    emit_list(&e, &r->top, 1);
    sbuf_puts(&e.b, "}\n");
    free(e.aligned);
    if (e.b.oom) {
        sbuf_free(&e.b);
        return NULL;
    }
    return sbuf_take(&e.b);
}
