/*
 * sort.c -- the execution order of the ops, and their loop groups.
 *
 * Requires the checked fusion. Provides the loop groups (`loops`, from
 * analysis: a producer's axes left of its compute-at position are the same
 * loops as its consumers' axes at those positions) and `order`, the ops that reach
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
    int *leaf_of;  /* per topo index: its leaf node */
    int *topo_of;  /* per tensor id: its topo index, -1 for inputs */
    int *child_at; /* hash table of (parent, group) -> node, -1 = empty */
    int nchild_at; /* its size, a power of two */
    int *edge_from, *edge_to;
    int nedges, cap_edges;
    int *first_child, *next_sibling; /* per node: children in creation order */
    int *edges_at, *edge_list;       /* per node: its out-edges (CSR) */
    int *indeg;                      /* per node: edges from siblings not yet emitted */
    int *heap;                       /* ready siblings, smallest node first */
} sorter;

/* Reachable ops in dependency order (a depth-first walk from the outputs). */
static bool visit(sorter *s, wf_tv *tv, char *state) {
    if (tv->is_input || state[tv->id] == 2)
        return true;
    /* an op reads only tensors made before it: the graph has no cycle */
    err_assert(&s->c->f->err, state[tv->id] != 1);
    if (state[tv->id] == 1)
        return false;
    state[tv->id] = 1;
    for (int k = 0; k < tv->def->nin; k++)
        if (!visit(s, tv->def->in[k], state))
            return false;
    state[tv->id] = 2;
    s->topo_of[tv->id] = s->topo.n;
    return vec_push_arena(s->c->a, &s->topo, tv->def) ||
           err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

static size_t child_slot(const sorter *s, int parent, int group) {
    uint64_t h = ((uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uint32_t)group;
    return (size_t)((h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull >> 17) & (size_t)(s->nchild_at - 1);
}

static size_t find_slot(const sorter *s, int parent, int group) {
    size_t h = child_slot(s, parent, group);
    while (s->child_at[h] >= 0 && (s->nodes.ptr[s->child_at[h]].parent != parent ||
                                   s->nodes.ptr[s->child_at[h]].group != group))
        h = (h + 1) & (size_t)(s->nchild_at - 1);
    return h;
}

/* Keep the (parent, group) table at most half full. */
static bool grow_child_table(sorter *s) {
    if (2 * (s->nodes.n + 1) < s->nchild_at)
        return true;
    int n = s->nchild_at ? 2 * s->nchild_at : 256;
    int *t = ARENA_ARRAY(s->c->a, int, n);
    if (!t)
        return false;
    for (int i = 0; i < n; i++)
        t[i] = -1;
    s->child_at = t;
    s->nchild_at = n;
    for (int i = 0; i < s->nodes.n; i++)
        if (s->nodes.ptr[i].group >= 0)
            t[find_slot(s, s->nodes.ptr[i].parent, s->nodes.ptr[i].group)] = i;
    return true;
}

static int add_node(sorter *s, int parent, int group, int op) {
    int depth = parent < 0 ? 0 : s->nodes.ptr[parent].depth + 1;
    trie_node n = {group, parent, op, depth};
    if (!grow_child_table(s) || !vec_push_arena(s->c->a, &s->nodes, n))
        return -1;
    if (group >= 0)
        s->child_at[find_slot(s, parent, group)] = s->nodes.n - 1;
    return s->nodes.n - 1;
}

static int child_with_group(const sorter *s, int parent, int group) {
    return s->nchild_at ? s->child_at[find_slot(s, parent, group)] : -1;
}

static bool build_trie(sorter *s) {
    int root = add_node(s, -1, -1, -1);
    for (int k = 0; root >= 0 && k < s->topo.n; k++) {
        const wf_tv *t = s->topo.ptr[k]->out;
        int at = root;
        for (int i = 0; i < t->loop.n && at >= 0; i++) {
            int g = an_find(&s->c->loops.map, t->loop.ptr[i]->id);
            int next = child_with_group(s, at, g);
            at = next >= 0 ? next : add_node(s, at, g, -1);
        }
        if (at < 0 || (s->leaf_of[k] = add_node(s, at, -1, k)) < 0)
            return err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    return root >= 0 || err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

static bool add_edge(sorter *s, int from, int to) {
    if (s->nedges == s->cap_edges) {
        int cap = s->cap_edges ? s->cap_edges * 2 : 64;
        int *f = ARENA_ARRAY(s->c->a, int, cap), *t = ARENA_ARRAY(s->c->a, int, cap);
        if (!f || !t)
            return err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
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
            int j = op->in[i]->is_input ? -1 : s->topo_of[op->in[i]->id];
            if (j >= 0 && !depend(s, s->leaf_of[j], s->leaf_of[k]))
                return false;
        }
    }
    return true;
}

static bool emit(sorter *s, int node, int *heap);

/* Some tensor computed in the subtree of a trie node. */
static const wf_tv *some_tensor(const sorter *s, int node) {
    if (s->nodes.ptr[node].op >= 0)
        return s->topo.ptr[s->nodes.ptr[node].op]->out;
    int child = s->first_child[node];
    return child >= 0 ? some_tensor(s, child) : NULL;
}

/* Siblings that wait on each other: name two tensors of the cycle. */
static bool cycle_error(sorter *s, int node) {
    for (int e = 0; e < s->nedges; e++) {
        int from = s->edge_from[e], to = s->edge_to[e];
        if (s->nodes.ptr[to].parent != node || s->nodes.ptr[from].group == -2)
            continue;
        const wf_tv *a = some_tensor(s, from), *b = some_tensor(s, to);
        return err_failb(&s->c->f->err, WF_ERR_SCHEDULE,
                         "cannot order the loops: T%d must be computed before T%d, but the "
                         "inline positions also put T%d's loops before T%d's; inline the "
                         "producers consistently",
                         a ? a->id : -1, b ? b->id : -1, b ? b->id : -1, a ? a->id : -1);
    }
    return err_failb(&s->c->f->err, WF_ERR_SCHEDULE, "cannot order the loops");
}

static void heap_push(int *heap, int *n, int x) {
    int i = (*n)++;
    for (; i > 0 && heap[(i - 1) / 2] > x; i = (i - 1) / 2)
        heap[i] = heap[(i - 1) / 2];
    heap[i] = x;
}

static int heap_pop(int *heap, int *n) {
    int top = heap[0], x = heap[--*n], i = 0;
    for (;;) {
        int k = 2 * i + 1;
        if (k >= *n)
            break;
        if (k + 1 < *n && heap[k + 1] < heap[k])
            k++;
        if (heap[k] >= x)
            break;
        heap[i] = heap[k];
        i = k;
    }
    heap[i] = x;
    return top;
}

/* Kahn's algorithm over the children of `node`, smallest (earliest created)
   ready child first. The heap holds only this node's children, and a child's
   subtree is emitted (using the heap above this part) before the next pop. */
static bool emit_children(sorter *s, int node, int *heap) {
    int n = 0, remaining = 0;
    for (int i = s->first_child[node]; i >= 0; i = s->next_sibling[i]) {
        remaining++;
        if (s->indeg[i] == 0)
            heap_push(heap, &n, i);
    }
    while (n > 0) {
        int next = heap_pop(heap, &n);
        remaining--;
        if (!emit(s, next, heap + n))
            return false;
        s->nodes.ptr[next].group = -2; /* emitted */
        for (int e = s->edges_at[next]; e < s->edges_at[next + 1]; e++)
            if (--s->indeg[s->edge_list[e]] == 0)
                heap_push(heap, &n, s->edge_list[e]);
    }
    return remaining == 0 || cycle_error(s, node);
}

static bool emit(sorter *s, int node, int *heap) {
    int k = s->nodes.ptr[node].op;
    if (k < 0)
        return emit_children(s, node, heap);
    ir_op *op = s->topo.ptr[k];
    s->c->op_pos[op->out->id] = s->c->order.n;
    return vec_push_arena(s->c->a, &s->c->order, op) ||
           err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* Children lists, in-degrees and out-edge lists of the trie nodes. */
static bool index_trie(sorter *s) {
    int n = s->nodes.n;
    wf_arena *a = s->c->a;
    s->first_child = ARENA_ARRAY(a, int, n + 1);
    s->next_sibling = ARENA_ARRAY(a, int, n + 1);
    int *last = ARENA_ARRAY(a, int, n + 1);
    s->edges_at = ARENA_ARRAY(a, int, n + 2);
    s->edge_list = ARENA_ARRAY(a, int, s->nedges + 1);
    s->indeg = ARENA_ARRAY(a, int, n + 1);
    s->heap = ARENA_ARRAY(a, int, n + 1);
    if (!s->first_child || !s->next_sibling || !last || !s->edges_at || !s->edge_list ||
        !s->indeg || !s->heap)
        return err_failb(&s->c->f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < n; i++)
        s->first_child[i] = s->next_sibling[i] = last[i] = -1;
    for (int i = 1; i < n; i++) {
        int p = s->nodes.ptr[i].parent;
        if (last[p] < 0)
            s->first_child[p] = i;
        else
            s->next_sibling[last[p]] = i;
        last[p] = i;
    }
    for (int e = 0; e < s->nedges; e++) {
        s->edges_at[s->edge_from[e] + 2]++;
        s->indeg[s->edge_to[e]]++;
    }
    for (int i = 0; i < n; i++)
        s->edges_at[i + 2] += s->edges_at[i + 1];
    for (int e = 0; e < s->nedges; e++)
        s->edge_list[s->edges_at[s->edge_from[e] + 1]++] = s->edge_to[e];
    return true;
}

bool lower_sort(lower_ctx *c) {
    wf_fusion *f = c->f;
    sorter s = {.c = c};
    char *state = ARENA_ARRAY(c->a, char, f->tvs.n + 1);
    if (!state)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    s.topo_of = ARENA_ARRAY(c->a, int, f->tvs.n + 1);
    if (!s.topo_of)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    for (int i = 0; i < f->tvs.n; i++)
        c->op_pos[i] = s.topo_of[i] = -1;
    for (int i = 0; i < f->outputs.n; i++)
        if (!visit(&s, f->outputs.ptr[i], state))
            return false;
    s.leaf_of = ARENA_ARRAY(c->a, int, s.topo.n + 1);
    if (!s.leaf_of)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    return an_loops_unite(&c->loops, f, s.topo.ptr, s.topo.n, c->a) && build_trie(&s) &&
           collect_edges(&s) && index_trie(&s) && emit(&s, 0, s.heap);
}
