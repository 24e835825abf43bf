/*
 * sort.c -- the execution order of the ops, and their loop groups.
 *
 * Requires the checked fusion. Provides `loop_uf` (which loop IDs are one
 * loop: a producer's axes left of its compute-at position are the same loops
 * as its consumers' axes at those positions) and `order`, the ops that reach
 * an output, in an order where producers come before consumers and the ops
 * that share a loop are contiguous, so the loop nest can be built by
 * opening and closing loops as it goes.
 *
 * The ops are placed in a trie of loop groups (each op under the path of its
 * output's loop groups). A dependency between two ops becomes an edge
 * between the two children of their lowest common trie node that hold them;
 * the children of each node are sorted topologically by those edges (ties
 * in dependency order), and a depth-first walk of the trie gives the order.
 * A cycle among siblings means no loop nest can run the schedule: the
 * inlining asks one loop to run both before and after another.
 */
#include "lower/lower_int.h"

typedef struct {
    int group;  /* loop group root, or -1 for an op leaf */
    int parent; /* -1 for the root */
    int op;     /* leaf: index into topo, else -1 */
    int depth;
} trie_node;

typedef struct {
    lower_ctx *c;
    VEC(ir_op *) topo; /* reachable ops, producers first */
    VEC(trie_node) nodes;
    int *leaf_of; /* per topo index: its leaf node */
    int *edge_from, *edge_to;
    int nedges, cap_edges;
} sorter;

static int uf_find(int *uf, int x) {
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Reachable ops in dependency order (a depth-first walk from the outputs). */
static bool visit(sorter *s, wf_tv *tv, char *state) {
    if (tv->is_input || state[tv->id] == 2)
        return true;
    if (state[tv->id] == 1)
        return wf_failb(&s->c->f->err, WF_ERR_SCHEDULE, "the fusion has a cycle through T%d",
                        tv->id);
    state[tv->id] = 1;
    for (int k = 0; k < tv->def->nin; k++)
        if (!visit(s, tv->def->in[k], state))
            return false;
    state[tv->id] = 2;
    return vec_push_arena(s->c->a, &s->topo, tv->def) ||
           wf_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

static void unite_loops(lower_ctx *c, ir_op *const *ops, int n) {
    for (int i = 0; i < c->f->ids.n; i++)
        c->loop_uf[i] = i;
    for (int k = 0; k < n; k++) {
        wf_tv *p = ops[k]->out;
        for (int u = 0; u < p->uses.n; u++) {
            wf_tv *con = p->uses.ptr[u]->out;
            for (int i = 0; i < p->ca_pos && i < con->loop.n; i++) {
                int a = uf_find(c->loop_uf, p->loop.ptr[i]->id);
                int b = uf_find(c->loop_uf, con->loop.ptr[i]->id);
                c->loop_uf[a > b ? a : b] = a > b ? b : a;
            }
        }
    }
}

static int add_node(sorter *s, int parent, int group, int op) {
    int depth = parent < 0 ? 0 : s->nodes.ptr[parent].depth + 1;
    trie_node n = {group, parent, op, depth};
    if (!vec_push_arena(s->c->a, &s->nodes, n))
        return -1;
    return s->nodes.n - 1;
}

static int child_with_group(const sorter *s, int parent, int group) {
    for (int i = 0; i < s->nodes.n; i++)
        if (s->nodes.ptr[i].parent == parent && s->nodes.ptr[i].group == group)
            return i;
    return -1;
}

static bool build_trie(sorter *s) {
    int root = add_node(s, -1, -1, -1);
    for (int k = 0; root >= 0 && k < s->topo.n; k++) {
        const wf_tv *t = s->topo.ptr[k]->out;
        int at = root;
        for (int i = 0; i < t->loop.n && at >= 0; i++) {
            int g = uf_find(s->c->loop_uf, t->loop.ptr[i]->id);
            int next = child_with_group(s, at, g);
            at = next >= 0 ? next : add_node(s, at, g, -1);
        }
        if (at < 0 || (s->leaf_of[k] = add_node(s, at, -1, k)) < 0)
            return wf_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    return root >= 0 || wf_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

static bool add_edge(sorter *s, int from, int to) {
    if (s->nedges == s->cap_edges) {
        int cap = s->cap_edges ? s->cap_edges * 2 : 64;
        int *f = ARENA_ARRAY(s->c->a, int, cap), *t = ARENA_ARRAY(s->c->a, int, cap);
        if (!f || !t)
            return wf_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
        for (int i = 0; i < s->nedges; i++) {
            f[i] = s->edge_from[i];
            t[i] = s->edge_to[i];
        }
        s->edge_from = f;
        s->edge_to = t;
        s->cap_edges = cap;
    }
    s->edge_from[s->nedges] = from;
    s->edge_to[s->nedges++] = to;
    return true;
}

/* Producer leaf a must run before consumer leaf b: order the siblings that
   hold them under their lowest common node. */
static bool depend(sorter *s, int a, int b) {
    while (s->nodes.ptr[a].depth > s->nodes.ptr[b].depth)
        a = s->nodes.ptr[a].parent;
    while (s->nodes.ptr[b].depth > s->nodes.ptr[a].depth)
        b = s->nodes.ptr[b].parent;
    while (s->nodes.ptr[a].parent != s->nodes.ptr[b].parent) {
        a = s->nodes.ptr[a].parent;
        b = s->nodes.ptr[b].parent;
    }
    return a == b || add_edge(s, a, b);
}

static bool collect_edges(sorter *s) {
    for (int k = 0; k < s->topo.n; k++) {
        const ir_op *op = s->topo.ptr[k];
        for (int i = 0; i < op->nin; i++) {
            if (op->in[i]->is_input)
                continue;
            for (int j = 0; j < k; j++)
                if (s->topo.ptr[j] == op->in[i]->def && !depend(s, s->leaf_of[j], s->leaf_of[k]))
                    return false;
        }
    }
    return true;
}

static bool emit(sorter *s, int node);

/* Some tensor computed in the subtree of a trie node. */
static const wf_tv *some_tensor(const sorter *s, int node) {
    if (s->nodes.ptr[node].op >= 0)
        return s->topo.ptr[s->nodes.ptr[node].op]->out;
    for (int i = 0; i < s->nodes.n; i++)
        if (s->nodes.ptr[i].parent == node)
            return some_tensor(s, i);
    return NULL;
}

/* Siblings that wait on each other: name two tensors of the cycle. */
static bool cycle_error(sorter *s, int node) {
    for (int e = 0; e < s->nedges; e++) {
        int from = s->edge_from[e], to = s->edge_to[e];
        if (s->nodes.ptr[to].parent != node || s->nodes.ptr[from].group == -2)
            continue;
        const wf_tv *a = some_tensor(s, from), *b = some_tensor(s, to);
        return wf_failb(&s->c->f->err, WF_ERR_SCHEDULE,
                        "cannot order the loops: T%d must be computed before T%d, but the "
                        "inline positions also put T%d's loops before T%d's; inline the "
                        "producers consistently",
                        a ? a->id : -1, b ? b->id : -1, b ? b->id : -1, a ? a->id : -1);
    }
    return wf_failb(&s->c->f->err, WF_ERR_SCHEDULE, "cannot order the loops");
}

/* Kahn's algorithm over the children of `node`, in creation order on ties. */
static bool emit_children(sorter *s, int node) {
    for (;;) {
        int next = -1, remaining = 0;
        for (int i = 0; i < s->nodes.n && next < 0; i++) {
            if (s->nodes.ptr[i].parent != node || s->nodes.ptr[i].group == -2)
                continue;
            remaining++;
            bool blocked = false;
            for (int e = 0; e < s->nedges && !blocked; e++)
                blocked = s->edge_to[e] == i && s->nodes.ptr[s->edge_from[e]].group != -2;
            if (!blocked)
                next = i;
        }
        if (next < 0)
            return remaining == 0 || cycle_error(s, node);
        if (!emit(s, next))
            return false;
        s->nodes.ptr[next].group = -2; /* emitted */
    }
}

static bool emit(sorter *s, int node) {
    int k = s->nodes.ptr[node].op;
    if (k < 0)
        return emit_children(s, node);
    ir_op *op = s->topo.ptr[k];
    s->c->op_pos[op->out->id] = s->c->order.n;
    return vec_push_arena(s->c->a, &s->c->order, op) ||
           wf_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

bool lower_sort(lower_ctx *c) {
    wf_fusion *f = c->f;
    sorter s = {.c = c};
    char *state = ARENA_ARRAY(c->a, char, f->tvs.n + 1);
    if (!state)
        return wf_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < f->tvs.n; i++)
        c->op_pos[i] = -1;
    for (int i = 0; i < f->outputs.n; i++)
        if (!visit(&s, f->outputs.ptr[i], state))
            return false;
    s.leaf_of = ARENA_ARRAY(c->a, int, s.topo.n + 1);
    if (!s.leaf_of)
        return wf_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    unite_loops(c, s.topo.ptr, s.topo.n);
    return build_trie(&s) && collect_edges(&s) && emit(&s, 0);
}
