/*
 * loops.c -- the loop nest.
 *
 * lower_loops: requires sort (the order and the loop groups); provides
 * the groups' dense numbers and promoted IDs (analysis/loopgraph.c) and the
 * kir tree. Each op runs in the loops of its output's loop domain; loops
 * already open are reused, the rest are opened
 * (sort.c made the ops that share a loop contiguous). The next pass,
 * check-loops (check.c), checks that no statement sits in two loops of one
 * thread/block type.
 * A group's loop iterates its promoted ID: the member with the resolved (not
 * broadcast) extent.
 */
#include "lower/lower_int.h"

#include <stdio.h>

/* The parallel type of each group: the promoted ID's, else the first
   non-serial type among its members in execution order (one pass). */
static wf_ptype *group_ptypes(lower_ctx *c) {
    wf_ptype *gp = ARENA_ARRAY(c->a, wf_ptype, c->loops.ngroups + 1);
    for (int g = 0; gp && g < c->loops.ngroups; g++)
        gp[g] = c->loops.promoted[g]->ptype;
    for (int k = 0; gp && k < c->order.n; k++) {
        wf_tv *t = c->order.ptr[k]->out;
        for (int i = 0; i < t->loop.n; i++) {
            int g = c->loops.group_of[t->loop.ptr[i]->id];
            if (gp[g] == WF_SERIAL)
                gp[g] = t->loop.ptr[i]->ptype;
        }
    }
    return gp;
}

static bool is_vector_set(const ir_op *op, const wf_iterdomain *id) {
    return id->ptype == WF_VECTORIZE && ir_op_moves(op);
}

/* A loop extent known only at launch may overflow int64 for some sizes (a
   split by a huge factor merged with a size): the launch checks that it
   evaluates (`extent < INT64_MAX` folds away when the extent is provably
   small), so both backends refuse those sizes with a message instead of
   running a wrapped loop. */
static bool check_extent_fits(lower_ctx *c, const wf_iterdomain *id) {
    wf_arena *a = c->a;
    const wf_val *cond = val_lt(a, id->extent, val_const(a, INT64_MAX));
    if (val_is_const_eq(cond, 1))
        return true;
    sbuf b = {0}, m = {0};
    ir_print_id(&b, id);
    sbuf_printf(&m,
                "for these sizes, the extent of T%d's loop %s does not fit in 64 bits; use "
                "smaller split factors",
                id->tv->id, sbuf_str(&b));
    lower_check chk = {.cond = cond, .message = arena_strdup(a, sbuf_str(&m))};
    sbuf_free(&b);
    sbuf_free(&m);
    return chk.message && vec_push_arena(a, &c->out->checks, chk);
}

static kir_node *new_loop(lower_ctx *c, int g, const ir_op *op, const wf_ptype *gp) {
    kir_node *n = kir_new(c->a, KIR_FOR);
    if (!n)
        return NULL;
    wf_iterdomain *id = c->loops.promoted[g];
    kir_for *l = &n->u.loop;
    l->group = g;
    l->id = id;
    l->extent = id->extent;
    l->ptype = gp[g];
    int64_t ext = ir_id_const_extent(id);
    int64_t hi = ext > 0 ? ext - 1 : INT64_MAX;
    int dim = lower_pdim_index(l->ptype);
    if (val_is_const_eq(l->extent, 1) || id->itype == IT_BROADCAST) {
        /* Nothing to iterate: a broadcast axis that no consumer resolves reads index 0. */
        l->var = val_const(c->a, 0);
        l->ptype = WF_SERIAL;
    } else if (dim >= 0) {
        const lower_pdim *p = &lower_pdim_table[dim];
        int64_t max = lower_pdim_max(dim);
        l->var = val_sym(c->a, p->grid ? SYM_BID : SYM_TID, p->axis, 0, p->cuda, 0,
                         hi < max ? hi : max, l->extent);
    } else if (l->ptype == WF_BULK) {
        /* A TMA copy's tile axes: one instruction moves the whole box, so the
           statement is issued once, at the box's first element. */
        l->var = val_const(c->a, 0);
    } else if ((l->ptype == WF_VECTORIZE && is_vector_set(op, id)) ||
               (l->ptype == WF_MMA && ir_op_is_mma(op))) {
        /* One vector access, or one tensor-core instruction over its tile
           (lower/mma.c): the statement is issued at the first element. */
        l->vector = true;
        l->var = val_const(c->a, 0);
    } else {
        char name[16];
        snprintf(name, sizeof name, "i%d", c->nvars++);
        l->var = val_sym(c->a, SYM_LOOP, g, 0, name, 0, hi, l->extent);
    }
    c->group_loop[g] = n;
    if (!val_is_const(l->extent) && !check_extent_fits(c, id))
        return NULL;
    return l->var ? n : NULL;
}

/* Place op's statement, reusing the open loops that its nest shares. */
static bool place(lower_ctx *c, ir_op *op, kir_node **stack, int *depth, const wf_ptype *gp) {
    wf_tv *t = op->out;
    int k = 0;
    while (k < *depth && k < t->loop.n &&
           stack[k]->u.loop.group == c->loops.group_of[t->loop.ptr[k]->id])
        k++;
    *depth = k;
    for (int i = k; i < t->loop.n; i++) {
        int g = c->loops.group_of[t->loop.ptr[i]->id];
        /* Never a loop closed before: sort.c emits the ops by a depth-first walk of
           a trie of loop groups, so the ops under one group are contiguous, and a
           group has one place in that trie (inlining unites axis i of a producer
           and a consumer only with their axes left of i united too); an order it
           cannot make is refused there ("cannot order the loops: ..."). */
        err_assert(&c->f->err, !c->group_loop[g]);
        if (c->group_loop[g])
            return false;
        kir_node *n = new_loop(c, g, op, gp);
        kir_list *body = i == 0 ? &c->out->top : &stack[i - 1]->u.loop.body;
        if (!n || !kir_append(c->a, body, n, i == 0 ? NULL : stack[i - 1]))
            return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
        stack[i] = n;
    }
    *depth = t->loop.n;
    kir_node *s = kir_new(c->a, KIR_STMT);
    kir_node *parent = t->loop.n ? stack[t->loop.n - 1] : NULL;
    kir_list *body = parent ? &parent->u.loop.body : &c->out->top;
    if (!s || !kir_append(c->a, body, s, parent))
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    s->u.stmt.op = op;
    s->u.stmt.copy = op->ldst;
    s->u.stmt.vec = 1;
    c->stmt_of[c->op_pos[t->id]] = s;
    return true;
}

bool lower_loops(lower_ctx *c) {
    /* The open loops, outermost first: as deep as the deepest loop domain. */
    int maxdepth = 1;
    for (int k = 0; k < c->order.n; k++)
        if (c->order.ptr[k]->out->loop.n > maxdepth)
            maxdepth = c->order.ptr[k]->out->loop.n;
    kir_node **stack = ARENA_ARRAY(c->a, kir_node *, maxdepth);
    if (!stack)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    int depth = 0;
    if (!an_loops_promote(&c->loops, c->f, c->order.ptr, c->order.n, c->a))
        return false;
    wf_ptype *gp = group_ptypes(c);
    if (!gp)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    for (int k = 0; k < c->order.n; k++)
        if (!place(c, c->order.ptr[k], stack, &depth, gp))
            return false;
    return true;
}

bool lower_uses_loop_of(lower_ctx *c, const kir_node *s, const wf_val *v,
                        bool (*axis)(const wf_iterdomain *id)) {
    const wf_tv *t = s->u.stmt.op->out;
    for (const kir_node *n = s->parent; n; n = n->parent) {
        const wf_val *var = n->kind == KIR_FOR ? n->u.loop.var : NULL;
        if (!var || var->kind != V_SYM || !val_uses_sym(v, var->sym, var->sym_a))
            continue;
        for (int j = 0; j < t->loop.n; j++)
            if (axis(t->loop.ptr[j]) && c->loops.group_of[t->loop.ptr[j]->id] == n->u.loop.group)
                return true;
    }
    return false;
}
