/*
 * cuda.c -- print kernel IR as CUDA C++.
 *
 * One function per node kind. Serial loops become `for` loops over wf_index
 * variables; thread- and block-parallel loops, loops of extent 1 and vector
 * loops print nothing (their index is threadIdx/blockIdx, 0, or covered by
 * the vector access). Statements compute in float for 16-bit types and in
 * their own type otherwise; vector statements become wf_vec_copy calls.
 */
#include "codegen/codegen_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    sbuf b;
    const lower_result *r;
    char *aligned; /* per tensor id: used by a vector access */
} emitter;

static const char *compute_type(wf_dtype t) {
    return (t == WF_F16 || t == WF_BF16) ? "float" : ir_dtype_name(t);
}

static void emit_access(emitter *e, const wf_tv *tv, const wf_val *index) {
    sbuf_printf(&e->b, "T%d[", tv->id);
    val_print_cuda(&e->b, index);
    sbuf_puts(&e->b, "]");
}

/* An operand converted to the type the op computes in. */
static void emit_operand(emitter *e, const kir_stmt *s, int k, const char *ctype) {
    const wf_tv *in = s->op->in[k];
    if (strcmp(ir_dtype_name(in->dtype), ctype) != 0)
        sbuf_printf(&e->b, "(%s)", ctype);
    emit_access(e, in, s->in_index[k]);
}

static const char *binary_infix(int op) {
    switch (op) {
    case WF_ADD:
        return " + ";
    case WF_SUB:
        return " - ";
    case WF_MUL:
        return " * ";
    case WF_DIV:
        return " / ";
    default:
        return NULL;
    }
}

static void emit_value(emitter *e, const kir_stmt *s) {
    const ir_op *op = s->op;
    const char *ct = compute_type(op->out->dtype);
    switch (op->kind) {
    case OP_CAST: {
        const char *from = compute_type(op->in[0]->dtype);
        if (strcmp(from, ir_dtype_name(op->out->dtype)) != 0)
            sbuf_printf(&e->b, "(%s)", ir_dtype_name(op->out->dtype));
        emit_operand(e, s, 0, from);
        break;
    }
    case OP_UNARY:
        if (op->sub == WF_NEG) {
            sbuf_puts(&e->b, "-");
            emit_operand(e, s, 0, ct);
            break;
        }
        sbuf_printf(&e->b, "wf_%s(", ir_unary_name(op->sub));
        emit_operand(e, s, 0, ct);
        sbuf_puts(&e->b, ")");
        break;
    case OP_BINARY: {
        const char *infix = binary_infix(op->sub);
        if (!infix)
            sbuf_printf(&e->b, "wf_%s<%s>(", ir_binary_name(op->sub), ct);
        emit_operand(e, s, 0, ct);
        sbuf_puts(&e->b, infix ? infix : ", ");
        emit_operand(e, s, 1, ct);
        if (!infix)
            sbuf_puts(&e->b, ")");
        break;
    }
    default: /* set, broadcast, permute: a copy */
        emit_access(e, op->in[0], s->in_index[0]);
        break;
    }
}

static void emit_stmt(emitter *e, const kir_stmt *s, int depth) {
    if (s->tmem_lane) {
        cg_tmem_stmt(&e->b, s, depth);
        return;
    }
    sbuf_indent(&e->b, depth);
    if (s->vec > 1) {
        sbuf_printf(&e->b, "wf_vec_copy<%s, %d>(&", ir_dtype_name(s->op->out->dtype), s->vec);
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
    val_print_cuda(&e->b, l->extent);
    sbuf_printf(&e->b, "; ++%s) {\n", l->var->name);
    emit_list(e, &l->body, depth + 1);
    sbuf_indent(&e->b, depth);
    sbuf_puts(&e->b, "}\n");
}

static void emit_alloc(emitter *e, const kir_alloc *a, int depth) {
    const char *t = ir_dtype_name(a->tv->dtype);
    if (a->mem == WF_MEM_TENSOR) {
        cg_tmem_alloc(&e->b, e->r, a, depth);
        return;
    }
    sbuf_indent(&e->b, depth);
    if (a->mem == WF_MEM_SHARED) {
        sbuf_printf(&e->b, "%s *T%d = reinterpret_cast<%s *>(wf_smem + ", t, a->tv->id, t);
        val_print_cuda(&e->b, a->smem_offset);
        sbuf_puts(&e->b, ");\n");
        return;
    }
    sbuf_printf(&e->b, "%s%s T%d[", e->aligned[a->tv->id] ? "__align__(16) " : "", t, a->tv->id);
    val_print_cuda(&e->b, a->size);
    sbuf_puts(&e->b, "];\n");
}

static void emit_node(emitter *e, const kir_node *n, int depth) {
    switch (n->kind) {
    case KIR_FOR:
        emit_for(e, &n->u.loop, depth);
        break;
    case KIR_IF:
        sbuf_indent(&e->b, depth);
        sbuf_puts(&e->b, "if (");
        val_print_cuda(&e->b, n->u.cond.cond);
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
        sbuf_indent(&e->b, depth);
        /* Tensor-memory accesses are ordered around barriers by tcgen05 fences. */
        sbuf_puts(&e->b, e->r->launch.ntmem_regions ? "wf_tmem_sync();\n" : "__syncthreads();\n");
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
        else if (n->kind == KIR_STMT && n->u.stmt.vec > 1) {
            e->aligned[n->u.stmt.op->out->id] = 1;
            e->aligned[n->u.stmt.op->in[0]->id] = 1;
        }
    }
}

static void emit_signature(emitter *e) {
    sbuf_puts(&e->b, "\nextern \"C\" __global__ void " CG_KERNEL_NAME "(");
    for (int i = 0; i < e->r->params.n; i++) {
        const wf_tv *tv = e->r->params.ptr[i].tv;
        sbuf_printf(&e->b, "%sTensor<%s, %d> T%d", i ? ", " : "", ir_dtype_name(tv->dtype),
                    tv->logical.n, tv->id);
    }
    sbuf_puts(&e->b, ") {\n");
    if (!val_is_const_eq(e->r->smem, 0))
        sbuf_puts(&e->b, "  extern __shared__ __align__(16) unsigned char wf_smem[];\n");
}

char *cg_emit_cuda(const lower_result *r) {
    emitter e = {{0}, r, calloc((size_t)r->params.ptr[0].tv->f->tvs.n + 1, 1)};
    if (!e.aligned)
        return NULL;
    mark_aligned(&e, &r->top);
    cg_emit_prelude(&e.b);
    cg_tmem_helpers(&e.b, r);
    emit_signature(&e);
    cg_tmem_prologue(&e.b, r);
    emit_list(&e, &r->top, 1);
    cg_tmem_epilogue(&e.b, r);
    sbuf_puts(&e.b, "}\n");
    free(e.aligned);
    if (e.b.oom) {
        sbuf_free(&e.b);
        return NULL;
    }
    return sbuf_take(&e.b);
}
