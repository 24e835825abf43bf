/*
 * print.c -- deterministic text printers for the fusion IR.
 *
 * IterDomains print nvFuser-style as <itype><ptype><id>{<extent>} (iS3{4},
 * ithreadIdx.x5{32}, bS7{1}); tensors as T<id>_<mem>_<dtype>[loop domain].
 * The loop summary uses the seed's notation, where serial axes are plain
 * extents and markers show the compute-at and dim-separator positions:
 * T2[BIDx{2}, TIDx{3}, 5, (CA), BIDy{7}, TIDy{11}, 13, (DimSep), 17].
 */
#include "ir/ir.h"

#include <stdlib.h>

static char itype_letter(id_itype it) {
    return it == IT_REDUCTION ? 'r' : it == IT_BROADCAST ? 'b' : 'i';
}

/* The parallel type in an IterDomain's printed name, as nvFuser's printer
   writes it (the printer's own names, not generated code). */
static const char *id_ptype_name(wf_ptype p) {
    const ir_ptype_info *r = ir_ptype(p);
    return p == WF_SERIAL ? "S" : r->kind != IR_PT_DEVICE && r->cuda ? r->cuda : r->name;
}

void ir_print_id(sbuf *b, const wf_iterdomain *id) {
    const char *p = id_ptype_name(id->ptype);
    sbuf_printf(b, "%c%s%d{", itype_letter(id->itype), p, id->id);
    val_print(b, id->extent);
    sbuf_puts(b, "}");
}

static void print_ids(sbuf *b, wf_iterdomain *const *ids, int n) {
    for (int i = 0; i < n; i++) {
        if (i)
            sbuf_puts(b, ", ");
        ir_print_id(b, ids[i]);
    }
}

void ir_print_tv(sbuf *b, const wf_tv *tv) {
    static const char mem[] = {'g', 'l', 's', 't'};
    sbuf_printf(b, "T%d_%c_%s[", tv->id, mem[tv->mem], ir_dtype_short(tv->dtype));
    print_ids(b, tv->loop.ptr, tv->loop.n);
    sbuf_puts(b, "]");
    if (tv->ca_pos > 0)
        sbuf_printf(b, " ca_pos( %d )", tv->ca_pos);
}

static void print_op(sbuf *b, const ir_op *op) {
    ir_print_tv(b, op->out);
    sbuf_puts(b, "\n   = ");
    switch (op->kind) {
    case OP_SET:
        sbuf_puts(b, op->ldst == WF_LDST_SET ? "Set" : ir_ldst_name(op->ldst));
        break;
    case OP_CAST:
        sbuf_printf(b, "Cast<%s>", ir_dtype_short(op->out->dtype));
        break;
    case OP_UNARY:
        sbuf_puts(b, ir_unary_name(op->sub));
        break;
    case OP_BINARY:
        sbuf_puts(b, ir_binary_name(op->sub));
        break;
    case OP_REDUCE:
        sbuf_puts(b, ir_op_is_mma(op) ? "mma" : ir_op_name(op->kind));
        break;
    default:
        sbuf_puts(b, ir_op_name(op->kind));
        break;
    }
    sbuf_puts(b, "( ");
    for (int k = 0; k < op->nargs; k++) {
        const ir_scalar *sc;
        int i = ir_op_operand(op, k, &sc);
        if (k)
            sbuf_puts(b, ",\n       ");
        if (i < 0)
            ir_print_scalar(b, op->sc_given[k]);
        else
            ir_print_tv(b, op->in[i]);
    }
    sbuf_puts(b, " )\n");
}

/* Producers first: caching inserts ops out of creation order. */
static void print_in_order(sbuf *b, const ir_op *op, char *done) {
    if (done[op->id])
        return;
    done[op->id] = 1;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i]->def)
            print_in_order(b, op->in[i]->def, done);
    print_op(b, op);
}

void ir_print_math(sbuf *b, const wf_fusion *f) {
    sbuf_puts(b, "Inputs:\n");
    for (int i = 0; i < f->inputs.n; i++) {
        sbuf_puts(b, "  ");
        ir_print_tv(b, f->inputs.ptr[i]);
        sbuf_puts(b, "\n");
    }
    sbuf_puts(b, "Outputs:\n");
    for (int i = 0; i < f->outputs.n; i++) {
        sbuf_puts(b, "  ");
        ir_print_tv(b, f->outputs.ptr[i]);
        sbuf_puts(b, "\n");
    }
    sbuf_puts(b, "\n%kernel_math {\n");
    char *done = calloc((size_t)f->ops.n + 1, 1);
    for (int i = 0; done && i < f->ops.n; i++)
        print_in_order(b, f->ops.ptr[i], done);
    free(done);
    sbuf_puts(b, "}\n");
}

static void print_summary_axis(sbuf *b, const wf_iterdomain *id) {
    if (id->ptype != WF_SERIAL)
        sbuf_printf(b, "%s{", ir_ptype_name(id->ptype));
    else if (id->itype != IT_ITER)
        sbuf_printf(b, "%c{", itype_letter(id->itype));
    val_print(b, id->extent);
    if (id->ptype != WF_SERIAL || id->itype != IT_ITER)
        sbuf_puts(b, "}");
}

void ir_print_loop_summary(sbuf *b, const wf_tv *tv) {
    sbuf_printf(b, "T%d[", tv->id);
    bool dimsep_here = tv->dimsep >= 0 && !tv->alloc.n;
    for (int i = 0; i <= tv->loop.n; i++) {
        bool first = i == 0;
        if (i == tv->ca_pos && tv->ca_pos > 0) {
            sbuf_puts(b, first ? "(CA)" : ", (CA)");
            first = false;
        }
        if (dimsep_here && i == tv->dimsep) {
            sbuf_puts(b, first ? "(DimSep)" : ", (DimSep)");
            first = false;
        }
        if (i == tv->loop.n)
            break;
        if (!first)
            sbuf_puts(b, ", ");
        print_summary_axis(b, tv->loop.ptr[i]);
    }
    sbuf_puts(b, "]");
}

static int cmp_transform(const void *x, const void *y) {
    const id_transform *a = *(id_transform *const *)x, *c = *(id_transform *const *)y;
    return (a->id > c->id) - (a->id < c->id);
}

typedef VEC(id_transform *) tf_list;

/* The transforms between tv's logical domain and its loop/allocation domains,
   in creation order, into *out (heap; the caller frees it). A transform is
   listed once: it is marked in `seen`, one byte per transform of the fusion.
   On out of memory the list is cut short (a printout, not a decision). */
static void history(const wf_tv *tv, tf_list *out) {
    VEC(const wf_iterdomain *) stack = {0};
    char *seen = calloc((size_t)tv->f->transforms.n + 1, 1);
    bool ok = seen != NULL;
    for (int i = 0; ok && i < tv->loop.n; i++)
        ok = vec_push_heap(&stack, tv->loop.ptr[i]);
    for (int i = 0; ok && i < tv->alloc.n; i++)
        ok = vec_push_heap(&stack, tv->alloc.ptr[i]);
    while (ok && stack.n > 0) {
        id_transform *t = stack.ptr[--stack.n]->def;
        if (!t || seen[t->id])
            continue;
        seen[t->id] = 1;
        ok = vec_push_heap(out, t);
        for (int i = 0; ok && i < t->nin; i++)
            ok = vec_push_heap(&stack, t->in[i]);
    }
    free(seen);
    vec_free(&stack);
    if (out->n > 1)
        qsort(out->ptr, (size_t)out->n, sizeof *out->ptr, cmp_transform);
}

static void print_transform(sbuf *b, const id_transform *t) {
    switch (t->kind) {
    case TF_SPLIT:
        sbuf_puts(b, "  Split: ");
        ir_print_id(b, t->in[0]);
        sbuf_printf(b, " by factor %lld%s -> ", (long long)t->factor, t->inner ? "" : " (outer)");
        break;
    case TF_MERGE:
        sbuf_puts(b, "  Merge: ");
        ir_print_id(b, t->in[0]);
        sbuf_puts(b, " and ");
        ir_print_id(b, t->in[1]);
        sbuf_puts(b, " -> ");
        break;
    case TF_SWIZZLE:
        sbuf_puts(b, "  Swizzle XOR: ");
        ir_print_id(b, t->in[0]);
        sbuf_puts(b, " , ");
        ir_print_id(b, t->in[1]);
        sbuf_puts(b, " -> ");
        break;
    }
    print_ids(b, t->out, t->nout);
    sbuf_puts(b, "\n");
}

static void print_tv_transforms(sbuf *b, const wf_tv *tv) {
    tf_list hist = {0};
    ir_print_tv(b, tv);
    sbuf_puts(b, "\n logical domain : (");
    print_ids(b, tv->logical.ptr, tv->logical.n);
    sbuf_puts(b, ")\n");
    history(tv, &hist);
    for (int i = 0; i < hist.n; i++)
        print_transform(b, hist.ptr[i]);
    vec_free(&hist);
    if (tv->alloc.n) {
        sbuf_puts(b, " allocation domain : (");
        print_ids(b, tv->alloc.ptr, tv->alloc.n);
        sbuf_puts(b, ")\n");
    }
    sbuf_puts(b, " loop domain : (");
    print_ids(b, tv->loop.ptr, tv->loop.n);
    sbuf_puts(b, ")\n ");
    ir_print_loop_summary(b, tv);
    sbuf_puts(b, "\n");
}

void ir_print_transforms(sbuf *b, const wf_fusion *f) {
    for (int i = 0; i < f->tvs.n; i++) {
        if (i)
            sbuf_puts(b, "\n");
        print_tv_transforms(b, f->tvs.ptr[i]);
    }
}
