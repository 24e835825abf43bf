/*
 * dot.c -- a tensor's IterDomain graph as Graphviz DOT, the picture that
 * nvFuser's and TVM's users read a schedule from.
 *
 * Input: one tensor. Output: a `digraph` whose boxes are the tensor's
 * IterDomains, named as print.c names them (iS3{32}, ithreadIdx.x5{4}), and
 * whose small grey boxes are the transforms between them (split with its
 * factor, merge, XOR swizzle), edges labelled with the role of each operand.
 * The logical domain is the top row and the loop domain (in loop order, with
 * a (CA) marker at the compute-at position) the bottom row; each box's second
 * line says where the IterDomain sits: "logical 0", "alloc 1", "loop 2".
 * Parallel types colour the fill, reductions are dashed, broadcasts dotted,
 * loop axes left of the compute-at position have a double border.
 *
 * TMA (seed 001, Steps 2-3) classifies IterDomains as box, coordinate, tile
 * or stride; the caller passes that classification as `roles` (one entry per
 * IterDomain id of the fusion) and the boxes take seed 001's colours: green
 * for a box, brown for a coordinate. The IR knows nothing of TMA itself.
 * The output is deterministic (nodes in id order) so tests diff it exactly.
 */
#include "ir/ir.h"

#include <stdlib.h>

#include "base/heap.h"

/* Fill colours of parallel types, one per family (blocks, threads, ...). */
static const char *ptype_fill(wf_ptype p) {
    if (ir_id_is_block(p))
        return ir_ptype(p)->kind == IR_PT_DEVICE ? "#d9d2e9" : "#cfe2f3";
    if (ir_id_is_thread(p))
        return "#fce5cd";
    switch (p) {
    case WF_UNROLL:
        return "#fff2cc";
    case WF_VECTORIZE:
        return "#f4cccc";
    case WF_BULK:
        return "#d0e0e3";
    case WF_MMA:
        return "#ead1dc";
    default:
        return NULL;
    }
}

/* Seed 001's figures: green means box IterDomain, brown coordinate. A dense
   tile is its box; a strided tile is a darker green over a grey stride. */
static const struct {
    const char *fill, *name;
} role_style[] = {
    [IR_DOT_BOX] = {"#93c47d", "TMA box"},
    [IR_DOT_COORD] = {"#c9a27e", "TMA coordinate"},
    [IR_DOT_TILE] = {"#6aa84f", "TMA tile"},
    [IR_DOT_STRIDE] = {"#d9d9d9", "TMA stride"},
};

static ir_dot_role role_of(const wf_iterdomain *id, const uint8_t *roles) {
    if (!roles)
        return IR_DOT_PLAIN;
    ir_dot_role r = (ir_dot_role)roles[id->id];
    return (unsigned)r < sizeof role_style / sizeof *role_style ? r : IR_DOT_PLAIN;
}

/* The text of sub inside a DOT double-quoted string, then sub freed; a
   sub that ran out of memory makes b out of memory too (no cut labels). */
static void put_escaped(sbuf *b, sbuf *sub) {
    for (const char *s = sbuf_str(sub); *s; s++) {
        if (*s == '"' || *s == '\\')
            sbuf_puts(b, "\\");
        sbuf_printf(b, "%c", *s);
    }
    if (sub->oom)
        b->oom = true;
    sbuf_free(sub);
}

static int position_in(const id_list *l, const wf_iterdomain *id) {
    for (int i = 0; i < l->n; i++)
        if (l->ptr[i] == id)
            return i;
    return -1;
}

/* "logical 0, alloc 1, loop 2, TMA box": where the IterDomain sits. */
static void put_place(sbuf *b, const char *what, int pos) {
    if (pos >= 0)
        sbuf_printf(b, "%s%s %d", b->len ? ", " : "", what, pos);
}

static void put_places(sbuf *b, const wf_tv *tv, const wf_iterdomain *id, ir_dot_role role) {
    put_place(b, "logical", position_in(&tv->logical, id));
    put_place(b, "alloc", position_in(&tv->alloc, id));
    put_place(b, "loop", position_in(&tv->loop, id));
    if (role != IR_DOT_PLAIN)
        sbuf_printf(b, "%s%s", b->len ? ", " : "", role_style[role].name);
}

static void put_id_node(sbuf *b, const wf_tv *tv, const wf_iterdomain *id, const uint8_t *roles) {
    ir_dot_role role = role_of(id, roles);
    sbuf name = {0}, places = {0};
    ir_print_id(&name, id);
    sbuf_printf(b, "  id%d [label=\"", id->id);
    put_escaped(b, &name);
    put_places(&places, tv, id, role);
    if (places.len || places.oom)
        sbuf_puts(b, "\\n");
    put_escaped(b, &places);
    sbuf_puts(b, "\"");
    const char *fill = role != IR_DOT_PLAIN ? role_style[role].fill : ptype_fill(id->ptype);
    if (fill)
        sbuf_printf(b, ", fillcolor=\"%s\"", fill);
    if (id->itype != IT_ITER)
        sbuf_printf(b, ", style=\"rounded,filled,%s\"",
                    id->itype == IT_REDUCTION ? "dashed" : "dotted");
    int p = position_in(&tv->loop, id);
    if (p >= 0 && p < tv->ca_pos)
        sbuf_puts(b, ", peripheries=2");
    sbuf_puts(b, "];\n");
}

/* One transform: its node, an edge from each input, an edge to each output,
   labelled with the operand's role. */
static void put_transform(sbuf *b, const id_transform *t) {
    static const char *const in_names[][2] = {
        [TF_SPLIT] = {"", ""}, [TF_MERGE] = {"outer", "inner"}, [TF_SWIZZLE] = {"x", "y"}};
    static const char *const out_names[][2] = {
        [TF_SPLIT] = {"outer", "inner"}, [TF_MERGE] = {"", ""}, [TF_SWIZZLE] = {"x", "x ^ y"}};
    sbuf_printf(b, "  tf%d [label=\"", t->id);
    if (t->kind == TF_SPLIT)
        sbuf_printf(b, "split %lld%s", (long long)t->factor, t->inner ? "" : " (outer)");
    else
        sbuf_puts(b, t->kind == TF_MERGE ? "merge" : "swizzle XOR");
    sbuf_puts(b, "\", shape=box, style=filled, fillcolor=\"#eeeeee\", fontsize=9, height=0.2];\n");
    for (int i = 0; i < t->nin; i++) {
        sbuf_printf(b, "  id%d -> tf%d", t->in[i]->id, t->id);
        if (*in_names[t->kind][i])
            sbuf_printf(b, " [label=\"%s\"]", in_names[t->kind][i]);
        sbuf_puts(b, ";\n");
    }
    for (int i = 0; i < t->nout; i++) {
        sbuf_printf(b, "  tf%d -> id%d", t->id, t->out[i]->id);
        if (*out_names[t->kind][i])
            sbuf_printf(b, " [label=\"%s\"]", out_names[t->kind][i]);
        sbuf_puts(b, ";\n");
    }
}

/* Mark every IterDomain and transform between tv's logical domain and its
   loop and allocation domains (one byte per id of the fusion). */
static bool collect(const wf_tv *tv, char *id_seen, char *tf_seen) {
    VEC(wf_iterdomain *) stack = {0};
    bool ok = true;
    const id_list *lists[] = {&tv->logical, &tv->alloc, &tv->loop};
    for (int l = 0; l < 3; l++)
        for (int i = 0; ok && i < lists[l]->n; i++)
            ok = vec_push_heap(&stack, lists[l]->ptr[i]);
    while (ok && stack.n > 0) {
        wf_iterdomain *id = stack.ptr[--stack.n];
        if (id_seen[id->id])
            continue;
        id_seen[id->id] = 1;
        id_transform *t = id->def;
        if (!t || tf_seen[t->id])
            continue;
        tf_seen[t->id] = 1;
        for (int i = 0; ok && i < t->nin; i++)
            ok = vec_push_heap(&stack, t->in[i]);
        for (int i = 0; ok && i < t->nout; i++)
            ok = vec_push_heap(&stack, t->out[i]);
    }
    vec_free(&stack);
    return ok;
}

/* A row of nodes side by side, in order, kept there by invisible edges;
   ids[i] is an IterDomain id, or -1 for the (CA) marker. */
static void put_node_name(sbuf *b, int id) {
    if (id < 0)
        sbuf_puts(b, "ca");
    else
        sbuf_printf(b, "id%d", id);
}

static void put_row(sbuf *b, const int *ids, int n) {
    if (n == 0)
        return;
    sbuf_puts(b, "  { rank=same;");
    for (int i = 0; i < n; i++) {
        sbuf_puts(b, " ");
        put_node_name(b, ids[i]);
        sbuf_puts(b, ";");
    }
    sbuf_puts(b, " }\n");
    if (n < 2)
        return;
    sbuf_puts(b, "  ");
    for (int i = 0; i < n; i++) {
        if (i)
            sbuf_puts(b, " -> ");
        put_node_name(b, ids[i]);
    }
    sbuf_puts(b, " [style=invis];\n");
}

/* The logical row on top, the loop row (loop IDs that are not logical) at
   the bottom. The (CA) marker joins the loop row, or the logical row when
   every loop ID is logical (nothing was transformed). */
static void put_rows(sbuf *b, const wf_tv *tv) {
    int *top = heap_calloc((size_t)tv->logical.n + 1, sizeof *top);
    int *bottom = heap_calloc((size_t)tv->loop.n + 1, sizeof *bottom);
    int ntop = 0, nbottom = 0;
    int ca = tv->ca_pos > 0 && tv->ca_pos <= tv->loop.n ? tv->ca_pos : -1;
    if (!top || !bottom) {
        b->oom = true;
        ca = -1;
    }
    for (int i = 0; top && bottom && i <= tv->loop.n; i++) {
        if (i == ca)
            bottom[nbottom++] = -1;
        if (i < tv->loop.n && position_in(&tv->logical, tv->loop.ptr[i]) < 0)
            bottom[nbottom++] = tv->loop.ptr[i]->id;
    }
    bool ca_on_top = ca > 0 && nbottom == 1;
    for (int i = 0; top && bottom && i < tv->logical.n; i++) {
        top[ntop++] = tv->logical.ptr[i]->id;
        if (ca_on_top && tv->logical.ptr[i] == tv->loop.ptr[ca - 1])
            top[ntop++] = -1;
    }
    if (ca > 0)
        sbuf_puts(b, "  ca [label=\"(CA)\", shape=plaintext, style=\"\"];\n");
    put_row(b, top, ntop);
    if (!ca_on_top)
        put_row(b, bottom, nbottom);
    free(top);
    free(bottom);
}

/* The graph's title: the tensor as print.c prints it, its memory and where
   its allocation domain comes from. */
static void put_title(sbuf *b, const wf_tv *tv) {
    sbuf t = {0};
    ir_print_tv(&t, tv);
    sbuf_printf(b, "digraph T%d {\n  label=\"", tv->id);
    put_escaped(b, &t);
    sbuf_printf(b, "\\n%s memory, allocation domain: ", ir_memtype_name(tv->mem));
    if (tv->alloc.n)
        sbuf_puts(b, "set (positions marked alloc)");
    else
        sbuf_puts(b, tv->mem == WF_MEM_GLOBAL ? "logical (default)" : "loop (default)");
    if (tv->dimsep >= 0)
        sbuf_printf(b, ", dim-separator %d", tv->dimsep);
    sbuf_puts(b, "\";\n  labelloc=t;\n  fontname=\"Helvetica\";\n  nodesep=0.25;\n"
                 "  ranksep=0.35;\n  ordering=out;\n");
    sbuf_puts(b, "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
                 "fontname=\"Helvetica\", fontsize=11];\n");
    sbuf_puts(b, "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];\n");
}

void ir_print_dot(sbuf *b, const wf_tv *tv, const uint8_t *roles) {
    const wf_fusion *f = tv->f;
    char *id_seen = heap_calloc((size_t)f->ids.n + 1, 1);
    char *tf_seen = heap_calloc((size_t)f->transforms.n + 1, 1);
    if (!id_seen || !tf_seen || !collect(tv, id_seen, tf_seen)) {
        b->oom = true;
    } else {
        put_title(b, tv);
        for (int i = 0; i < f->ids.n; i++)
            if (id_seen[i])
                put_id_node(b, tv, f->ids.ptr[i], roles);
        for (int i = 0; i < f->transforms.n; i++)
            if (tf_seen[i])
                put_transform(b, f->transforms.ptr[i]);
        put_rows(b, tv);
        sbuf_puts(b, "}\n");
    }
    free(id_seen);
    free(tf_seen);
}
