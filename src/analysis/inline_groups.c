/*
 * inline_groups.c -- inlining rules on the loops that inlining makes one.
 *
 * A tensor's loop IDs left of its compute-at position are one loop with its
 * consumers' at the same positions (analysis/loopgraph.c), so which loops
 * are one depends on every tensor's position, not on one producer and its
 * consumers alone. Each rule here builds the loop groups of every other
 * tensor, adds tv's position by position, and stops tv at the first
 * position that makes a group break the rule (a group broken by the other
 * tensors' positions alone is theirs): a reduction's reader outside its
 * reduction loop, a reader outside the loop that writes its producer, a
 * reduction step run once per iteration, loops that can be ordered.
 * an_max_inline_pos (inline.c) applies them after the rules of each pair.
 */
#include "analysis/inline_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/heap.h"

/* Refusing to inline costs speed; inlining wrongly, the result. */
static int out_of_memory(const wf_tv *tv, char *why, size_t whysize) {
    if (why)
        snprintf(why, whysize, "out of memory while checking T%d's loops", tv->id);
    return 0;
}

/* The rules below look at the loops inlining makes one (analysis/loopgraph.c:
   a tensor's loop IDs left of its compute-at position are its consumers' at
   the same positions). The groups with every tensor but tv at its position,
   in m (heap memory: free m->parent); the rules add tv's, depth by depth
   (unite_consumers_at), and see what tv's position would make one loop.
   False on out of memory. */
static bool others_groups(an_map *m, const wf_tv *tv) {
    wf_fusion *f = tv->f;
    m->n = f->ids.n;
    m->parent = heap_malloc(((size_t)f->ids.n + 1) * sizeof(int));
    if (!m->parent)
        return false;
    for (int k = 0; k < f->ids.n; k++)
        m->parent[k] = k;
    for (int t = 0; t < f->tvs.n; t++) {
        const wf_tv *p = f->tvs.ptr[t];
        for (int u = 0; p != tv && u < p->uses.n; u++) {
            const wf_tv *c = p->uses.ptr[u]->out;
            for (int i = 0; i < p->ca_pos && i < p->loop.n && i < c->loop.n; i++)
                an_unite(m, p->loop.ptr[i]->id, c->loop.ptr[i]->id);
        }
    }
    return true;
}

/* tv's loop i made one with its consumers' (tv inlined past i). */
static void unite_consumers_at(an_map *m, const wf_tv *tv, int i) {
    for (int u = 0; i < tv->loop.n && u < tv->uses.n; u++) {
        const wf_tv *c = tv->uses.ptr[u]->out;
        if (i < c->loop.n)
            an_unite(m, tv->loop.ptr[i]->id, c->loop.ptr[i]->id);
    }
}

/* A reduction's reader must not run inside the reduction's loop: it would read
   partial results (fuzz -s 2 -c 53628: T4 = T1 * broadcast(sum(T1)), T1 inlined
   into both the sum and T4, made T4's loop the sum's). Which loops are one loop
   is decided by inlining (analysis/loopgraph.c): each tensor's loop IDs left of
   its compute-at position are one loop with its consumers' at the same
   positions. So the rule is on those loop groups: with tv inlined at i + 1 and
   every other tensor at its current position, no tensor computed from a
   reduction R's result may have a loop in the group of one of R's reduction
   loops. A tensor that is merely exactly mapped to R's reduction axis, but not
   inlined with R's inputs (exp(x - max) recomputed for the division by the
   sum), runs in a loop of its own after R's. This is nvFuser's rule that a
   reduction's input domain and the domains downstream of it are unmappable,
   applied to the loops actually shared. Returns the first position at which
   tv's inlining makes a reader share a reduction loop (limit if none); a reader
   put there by other tensors' positions alone is their fault, not tv's. */
typedef struct {
    an_map m;
    char *after; /* per tensor id: computed from the current reduction's result */
} rr_state;

static void mark_after(const wf_tv *r, char *after) {
    for (int u = 0; u < r->uses.n; u++) {
        const wf_tv *c = r->uses.ptr[u]->out;
        if (!after[c->id]) {
            after[c->id] = 1;
            mark_after(c, after);
        }
    }
}

static bool in_group(rr_state *s, const wf_tv *c, int i, int root) {
    return s->after[c->id] && i < c->loop.n && an_find(&s->m, c->loop.ptr[i]->id) == root;
}

/* A reader of r whose loop i is in the group of r's loop i, tv's own consumers
   first (the clearest to name), or NULL. */
static const wf_tv *reader_in_loop(rr_state *s, wf_fusion *f, const wf_tv *tv, const wf_tv *r,
                                   int i) {
    int root = an_find(&s->m, r->loop.ptr[i]->id);
    for (int u = 0; u < tv->uses.n; u++)
        if (in_group(s, tv->uses.ptr[u]->out, i, root))
            return tv->uses.ptr[u]->out;
    for (int t = 0; t < f->tvs.n; t++)
        if (in_group(s, f->tvs.ptr[t], i, root))
            return f->tvs.ptr[t];
    return NULL;
}

static void reader_why(const wf_tv *tv, int i, const wf_tv *r, const wf_tv *c, char *why,
                       size_t whysize) {
    bool direct = false;
    for (int u = 0; u < tv->uses.n; u++)
        direct |= tv->uses.ptr[u]->out == c;
    if (direct)
        snprintf(why, whysize,
                 "axis %d of T%d is in the reduction loop of T%d, and its consumer T%d reads T%d's "
                 "result, which is complete only after that loop",
                 i, tv->id, r->id, c->id, r->id);
    else
        snprintf(why, whysize,
                 "axis %d of T%d would make the reduction loop of T%d one loop with axis %d of "
                 "T%d, which reads T%d's result, complete only after that loop",
                 i, tv->id, r->id, i, c->id, r->id);
}

static int reduction_reader_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why,
                                  size_t whysize) {
    wf_fusion *f = tv->f;
    if (g->nreductions == 0 || limit == 0)
        return limit;
    rr_state s = {{NULL, 0}, heap_calloc((size_t)f->tvs.n + 1, 1)};
    bool ok = s.after && others_groups(&s.m, tv);
    if (!ok) /* refusing to inline costs speed, inlining wrongly the result */
        limit = out_of_memory(tv, why, whysize);
    for (int i = 0; ok && i < limit; i++) {
        for (int t = 0; t < g->nreductions && i < limit; t++) {
            const wf_tv *r = g->reductions[t];
            if (i >= r->loop.n || r->loop.ptr[i]->itype != IT_REDUCTION)
                continue;
            memset(s.after, 0, (size_t)f->tvs.n + 1);
            mark_after(r, s.after);
            if (reader_in_loop(&s, f, tv, r, i))
                continue; /* there without tv */
            int *copy = heap_malloc(((size_t)f->ids.n + 1) * sizeof(int));
            if (!copy) {
                limit = i;
                break;
            }
            memcpy(copy, s.m.parent, (size_t)f->ids.n * sizeof(int));
            unite_consumers_at(&s.m, tv, i);
            const wf_tv *c = reader_in_loop(&s, f, tv, r, i);
            memcpy(s.m.parent, copy, (size_t)f->ids.n * sizeof(int));
            free(copy);
            if (c) {
                if (why)
                    reader_why(tv, i, r, c, why, whysize);
                limit = i;
            }
        }
        if (i < limit)
            unite_consumers_at(&s.m, tv, i);
    }
    free(s.m.parent);
    free(s.after);
    return limit;
}

/* The loops that inlining makes must be orderable (lower/sort.c): the
   tensors with a loop in one group run inside that one loop, so a tensor
   computed from one of them and read, directly or not, by another must run
   inside it too. With tv inlined at i + 1, the group of tv's loop i must not
   hold tensors A and C with a path A -> B -> ... -> C through tensors outside
   it (B runs outside the loop: the loop would have to run both before and
   after B). In a layer norm, d = x - mean feeds the variance through d * d and
   the output: d inlined into both would make d * d and the output one loop,
   with the variance (read by the output, computed from d * d, kept out of the
   output's loop by reduction_reader_limit) outside it. Loops are compared at
   one depth i: each tensor is its group of loop i there (groups agree on the
   outer loops: inlining shares a prefix), or itself when it has no loop i; a
   cycle among those is what the sort refuses. Only tensors that reach an
   output count, as in the sort. Checked only in fusions with reductions
   (as reduction_reader_limit), where reduction_reader_limit keeps a
   reduction's input out of its readers' loops: the walk over the fusion per
   axis made inline_most quadratic (a chain of 20000 pointwise ops); without
   reductions, a tensor kept out of a loop between its producer and its
   reader is not yet known to arise (the sort would still refuse it). */
typedef struct {
    an_map m;
    wf_fusion *f;
    int depth;
    char *live;  /* per tensor id: reaches an output */
    int *key;    /* per tensor id: its node at this depth */
    int *head;   /* per node (id root, or ids.n + tensor id): first member */
    int *next;   /* per tensor id: next member of its node */
    int *queue;  /* tensors to expand */
    int *from_a; /* per tensor id: the tensor of the start node a path left */
    int *from_b; /* per tensor id: the first tensor outside the start node */
    char *seen;  /* per tensor id: its node has been reached */
} ord_state;

static void mark_live(ord_state *s, const wf_tv *t) {
    if (s->live[t->id])
        return;
    s->live[t->id] = 1;
    for (int k = 0; t->def && k < t->def->nin; k++)
        mark_live(s, t->def->in[k]);
}

static bool counts(const ord_state *s, const wf_tv *t) {
    return !t->is_input && s->live[t->id];
}

/* Every counted tensor's node at s->depth, in member lists. */
static void ord_nodes(ord_state *s) {
    wf_fusion *f = s->f;
    for (int t = 0; t < f->tvs.n; t++) {
        const wf_tv *tv = f->tvs.ptr[t];
        s->key[tv->id] = -1;
        if (!counts(s, tv))
            continue;
        int k =
            s->depth < tv->loop.n ? an_find(&s->m, tv->loop.ptr[s->depth]->id) : f->ids.n + tv->id;
        s->key[tv->id] = k;
        s->next[tv->id] = s->head[k];
        s->head[k] = tv->id;
    }
}

static void ord_clear(ord_state *s) {
    wf_fusion *f = s->f;
    for (int t = 0; t < f->tvs.n; t++) {
        int id = f->tvs.ptr[t]->id;
        if (s->key[id] >= 0)
            s->head[s->key[id]] = -1;
        s->seen[id] = 0;
    }
}

static const wf_tv *tv_of(const ord_state *s, int id) {
    return s->f->tvs.ptr[id]; /* tensor ids are dense */
}

/* Reach node k (from a path that left the start node at a through b). */
static void ord_reach(ord_state *s, int k, int a, int b, int *nq) {
    for (int m = s->head[k]; m >= 0; m = s->next[m]) {
        s->seen[m] = 1;
        s->from_a[m] = a, s->from_b[m] = b;
        s->queue[(*nq)++] = m;
    }
}

/* Is there a path out of node `start` and back into it? Then *a, *b, *c:
   the tensor it leaves from, the first one outside, the one it comes back to. */
static bool ord_cycle(ord_state *s, int start, int *a, int *b, int *c) {
    int nq = 0, qi = 0;
    for (int m = s->head[start]; m >= 0; m = s->next[m])
        s->seen[m] = 1;
    for (int m = s->head[start]; m >= 0; m = s->next[m]) {
        const wf_tv *t = tv_of(s, m);
        for (int u = 0; t && u < t->uses.n; u++) {
            const wf_tv *con = t->uses.ptr[u]->out;
            if (counts(s, con) && !s->seen[con->id])
                ord_reach(s, s->key[con->id], m, con->id, &nq);
        }
    }
    while (qi < nq) {
        int m = s->queue[qi++];
        const wf_tv *t = tv_of(s, m);
        for (int u = 0; t && u < t->uses.n; u++) {
            const wf_tv *con = t->uses.ptr[u]->out;
            if (!counts(s, con))
                continue;
            if (s->key[con->id] == start) {
                *a = s->from_a[m], *b = s->from_b[m], *c = con->id;
                return true;
            }
            if (!s->seen[con->id])
                ord_reach(s, s->key[con->id], s->from_a[m], s->from_b[m], &nq);
        }
    }
    return false;
}

/* A cycle through the node of one of ids[0..n-1] at s->depth. */
static bool ord_any_cycle(ord_state *s, const int *ids, int n, int *a, int *b, int *c) {
    bool found = false;
    for (int k = 0; k < n && !found; k++) {
        ord_nodes(s);
        found = ord_cycle(s, an_find(&s->m, ids[k]), a, b, c);
        ord_clear(s);
    }
    return found;
}

static int loop_order_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why, size_t whysize) {
    wf_fusion *f = tv->f;
    if (g->nreductions == 0 || limit == 0 || !tv->uses.n)
        return limit;
    size_t nt = (size_t)f->tvs.n + 1, nid = (size_t)f->ids.n + 1;
    ord_state s = {{NULL, 0},
                   f,
                   0,
                   heap_calloc(nt, 1),
                   heap_calloc(nt, sizeof(int)),
                   heap_calloc(nid + nt, sizeof(int)),
                   heap_calloc(nt, sizeof(int)),
                   heap_calloc(nt, sizeof(int)),
                   heap_calloc(nt, sizeof(int)),
                   heap_calloc(nt, sizeof(int)),
                   heap_calloc(nt, 1)};
    int *ids = heap_calloc((size_t)tv->uses.n + 1, sizeof(int));
    bool ok = s.live && s.key && s.head && s.next && s.queue && s.from_a && s.from_b && s.seen &&
              ids && others_groups(&s.m, tv);
    if (!ok) /* refusing to inline costs speed, a loop nest that cannot run the kernel */
        limit = out_of_memory(tv, why, whysize);
    for (size_t k = 0; ok && k < nid + nt; k++)
        s.head[k] = -1;
    for (int o = 0; ok && o < f->outputs.n; o++)
        mark_live(&s, f->outputs.ptr[o]);
    for (int i = 0; ok && i < limit && i < tv->loop.n; i++) {
        int n = 0, a, b, c;
        ids[n++] = tv->loop.ptr[i]->id;
        for (int u = 0; u < tv->uses.n; u++) {
            const wf_tv *con = tv->uses.ptr[u]->out;
            if (i < con->loop.n && !an_mapped(&s.m, tv->loop.ptr[i], con->loop.ptr[i]))
                ids[n++] = con->loop.ptr[i]->id;
        }
        s.depth = i;
        bool before = n > 1 && counts(&s, tv) && ord_any_cycle(&s, ids, n, &a, &b, &c);
        for (int k = 1; k < n; k++)
            an_unite(&s.m, ids[0], ids[k]);
        if (n > 1 && counts(&s, tv) && !before && ord_any_cycle(&s, ids, 1, &a, &b, &c)) {
            if (why)
                snprintf(why, whysize,
                         "axis %d of T%d would make one loop holding T%d and T%d, but T%d, "
                         "computed from T%d and needed for T%d, runs outside that loop: the "
                         "loop would have to run both before and after T%d",
                         i, tv->id, a, c, b, a, c, b);
            limit = i;
        }
    }
    free(s.m.parent);
    free(s.live);
    free(s.key);
    free(s.head);
    free(s.next);
    free(s.queue);
    free(s.from_a);
    free(s.from_b);
    free(s.seen);
    free(ids);
    return limit;
}

static bool on_threads_or_blocks(const wf_iterdomain *id) {
    return ir_id_is_thread(id->ptype) || ir_id_is_block(id->ptype);
}

/* A tensor that runs in the loop that writes one of its producers may read
   only what that loop has written so far: the producer's cells of the
   current iteration (the producer's axis there is the reader's own image of
   it: an_shares_loop), or cells every iteration writes (an axis whose index is
   always 0). Which loops are one is decided by inlining, and not by the pair
   alone: in fuzz -s 780 -c 451267, T2 inlined into T3 and T10 made T3's
   loop T10's, into which T4 = broadcast(T3) was inlined too (through the
   sum T5 of its broadcast axis, permissively T10's axis): T4 read all of T3
   in the first iteration, where only T3[0] was written (-c 246740: the same
   with T3 an output in global memory, whose unwritten cells gave NaN). A
   loop on threads or blocks is no sequence of iterations: reading across it
   is reading across threads, which the memory rules and syncs govern. Such
   reads are found once per graph (they depend on the loop domains, not on
   the positions), then each position is checked on the loop groups it
   makes, as reduction_reader_limit does. */
struct an_crossing_read {
    const ir_op *op; /* the reader's op */
    const wf_tv *p;  /* the producer it reads */
    int depth;       /* the loop position at which the two could be one loop */
};

/* Groups grow only by the pairs an_shares_loop allows (inline.c's
   consumer_limit): their
   union over every op and position holds every loop inlining can make. */
static bool possible_loops(an_idgraph *g, wf_fusion *f, an_map *m) {
    if (!an_map_init(m, f->ids.n, g->scratch))
        return false;
    for (int k = 0; k < f->ops.n; k++) {
        const ir_op *op = f->ops.ptr[k];
        const wf_tv *c = op->out;
        for (int j = 0; j < op->nin; j++) {
            const wf_tv *p = op->in[j];
            for (int i = 0; i < p->loop.n && i < c->loop.n; i++)
                if (an_shares_loop(g, op, p->loop.ptr[i], c->loop.ptr[i]))
                    an_unite(m, p->loop.ptr[i]->id, c->loop.ptr[i]->id);
        }
    }
    return true;
}

/* Would op's output, reading p, cross the iterations of its loop i if that
   loop were the one that writes p? */
static bool crosses(an_idgraph *g, an_map *possible, const ir_op *op, const wf_tv *p, int i) {
    const wf_tv *c = op->out;
    if (p->is_input || !g->live[c->id] || i >= p->loop.n || i >= c->loop.n)
        return false;
    const wf_iterdomain *pi = p->loop.ptr[i], *ci = c->loop.ptr[i];
    return !an_always_zero(pi) && !on_threads_or_blocks(pi) && !on_threads_or_blocks(ci) &&
           an_mapped(possible, pi, ci) && !an_shares_loop(g, op, pi, ci);
}

/* g->crossing: every (op, producer, position) that crosses. */
static bool find_crossing_reads(an_idgraph *g, wf_fusion *f) {
    an_map possible;
    if (g->ncrossing >= 0)
        return true;
    if (!possible_loops(g, f, &possible))
        return false;
    for (int pass = 0, n = 0; pass < 2; pass++, n = 0) {
        for (int k = 0; k < f->ops.n; k++) {
            const ir_op *op = f->ops.ptr[k];
            for (int j = 0; j < op->nin; j++)
                for (int i = 0; i < op->in[j]->loop.n; i++) {
                    if (!crosses(g, &possible, op, op->in[j], i))
                        continue;
                    if (pass == 1)
                        g->crossing[n] = (an_crossing_read){op, op->in[j], i};
                    n++;
                }
        }
        if (pass == 0 && !(g->crossing = ARENA_ARRAY(g->scratch, an_crossing_read, n + 1)))
            return false;
        g->ncrossing = n;
    }
    return true;
}

/* Does crossing read x count at loop position i, where tv's inlining is
   tried: its producer is another tensor, not inlined past i (inlined, it
   would share the reader's loop as inline.c's consumer_limit allowed it to)? */
static bool crossing_at(const an_crossing_read *x, const wf_tv *tv, int i) {
    return x->depth == i && x->p != tv && x->p->ca_pos <= i;
}

static bool one_loop(an_map *m, const an_crossing_read *x) {
    return an_find(m, x->p->loop.ptr[x->depth]->id) ==
           an_find(m, x->op->out->loop.ptr[x->depth]->id);
}

static void crossing_why(const wf_tv *tv, const an_crossing_read *x, char *why, size_t whysize) {
    const wf_tv *c = x->op->out;
    int i = x->depth;
    sbuf sp = {0}, sc = {0};
    ir_print_id(&sp, x->p->loop.ptr[i]);
    ir_print_id(&sc, c->loop.ptr[i]);
    snprintf(why, whysize,
             "axis %d of T%d would make axis %d of T%d (%s) one loop with axis %d of its "
             "producer T%d (%s), which is not inlined into T%d there: in each iteration T%d "
             "would read cells of T%d that later iterations write",
             i, tv->id, i, c->id, sbuf_str(&sc), i, x->p->id, sbuf_str(&sp), c->id, c->id,
             x->p->id);
    sbuf_free(&sp);
    sbuf_free(&sc);
}

static int crossing_read_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why,
                               size_t whysize) {
    if (limit == 0)
        return limit;
    if (!find_crossing_reads(g, tv->f))
        return out_of_memory(tv, why, whysize);
    bool any = false;
    for (int k = 0; k < g->ncrossing && !any; k++)
        any =
            g->crossing[k].depth < limit && crossing_at(&g->crossing[k], tv, g->crossing[k].depth);
    if (!any)
        return limit;
    an_map m = {NULL, 0};
    char *before = heap_calloc((size_t)g->ncrossing + 1, 1);
    if (!before || !others_groups(&m, tv))
        limit = out_of_memory(tv, why, whysize);
    for (int i = 0; i < limit; i++) {
        for (int k = 0; k < g->ncrossing; k++)
            before[k] = crossing_at(&g->crossing[k], tv, i) && one_loop(&m, &g->crossing[k]);
        unite_consumers_at(&m, tv, i);
        for (int k = 0; k < g->ncrossing && i < limit; k++) {
            const an_crossing_read *x = &g->crossing[k];
            if (!crossing_at(x, tv, i) || before[k] || !one_loop(&m, x))
                continue; /* a crossing made by other tensors' positions alone is theirs */
            if (why)
                crossing_why(tv, x, why, whysize);
            limit = i;
        }
    }
    free(m.parent);
    free(before);
    return limit;
}

/* A reduction step runs once in each iteration of every loop around it, and
   the accumulator is initialized just before the outermost reduction loop
   that runs serially (lower/reduce.c, place_init): inside it, a loop that
   iterates more than the reduction's own axis there adds each value again.
   inline.c's reductions_agree keeps a reduction axis out of the loops of its producer's
   other consumers; an axis of extent 1 at or inside that loop must stay out
   of longer loops too, whichever tensors make them one (fuzz -s 2811100 -c
   166810: T3 = broadcast(T1), inlined into T6 and into the rfactor producer
   T7, made T7's iS12{1}, the reduced broadcast it keeps as an iteration
   axis, one loop with T6's iS10{7}: T7 added each value 7 times). Loops
   outside the init's run it again too, and a loop on threads or blocks runs
   its iterations side by side, not one after another (which threads write
   is the predicates' and the memory rules' concern): neither repeats. */

/* Is r's axis i of extent 1 (its loop should run once) and at or after a
   reduction axis? (Cheap: the groups decide the rest.) */
static bool once_after_reduction(const wf_tv *r, int i) {
    const wf_iterdomain *id = r->loop.ptr[i];
    if (!val_is_const_eq(id->extent, 1) || id->loop_only)
        return false;
    for (int j = 0; j <= i; j++)
        if (r->loop.ptr[j]->itype == IT_REDUCTION)
            return true;
    return false;
}

/* Does the loop of r's axis i, in groups m, run serially more than once?
   Then *longer: a tensor whose axis there makes it so. */
static bool runs_serially(an_idgraph *g, an_map *m, const wf_tv *r, int i, const wf_tv **longer) {
    int root = an_find(m, r->loop.ptr[i]->id);
    wf_fusion *f = r->f;
    *longer = NULL;
    for (int t = 0; t < f->tvs.n; t++) {
        const wf_tv *x = f->tvs.ptr[t];
        if (!g->live[x->id] || i >= x->loop.n || an_find(m, x->loop.ptr[i]->id) != root)
            continue;
        const wf_iterdomain *id = x->loop.ptr[i];
        if (on_threads_or_blocks(id) || id->ptype == WF_VECTORIZE)
            return false;
        if (!*longer && !val_is_const_eq(id->extent, 1))
            *longer = x;
    }
    return *longer != NULL;
}

/* Does reduction r's axis i of extent 1 sit, at or inside the loop its init
   precedes, in a serial loop of several iterations (*longer: why)? */
static bool repeats(an_idgraph *g, an_map *m, const wf_tv *r, int i, const wf_tv **longer) {
    if (!g->live[r->id] || i >= r->loop.n || !once_after_reduction(r, i))
        return false;
    bool after_init = false;
    for (int j = 0; j <= i && !after_init; j++)
        after_init = r->loop.ptr[j]->itype == IT_REDUCTION && runs_serially(g, m, r, j, longer);
    return after_init && runs_serially(g, m, r, i, longer);
}

static bool any_runs_once(an_idgraph *g, int limit) {
    for (int t = 0; t < g->nreductions; t++) {
        const wf_tv *r = g->reductions[t];
        for (int i = 0; g->live[r->id] && i < limit && i < r->loop.n; i++)
            if (once_after_reduction(r, i))
                return true;
    }
    return false;
}

static void repeated_why(const wf_tv *tv, int i, const wf_tv *r, const wf_tv *longer, char *why,
                         size_t whysize) {
    sbuf sr = {0}, sl = {0};
    ir_print_id(&sr, r->loop.ptr[i]);
    ir_print_id(&sl, longer->loop.ptr[i]);
    snprintf(why, whysize,
             "axis %d of T%d would make axis %d of the reduction T%d (%s), inside its reduction "
             "loops, one loop with axis %d of T%d (%s): T%d's steps would run again in every "
             "iteration",
             i, tv->id, i, r->id, sbuf_str(&sr), i, longer->id, sbuf_str(&sl), r->id);
    sbuf_free(&sr);
    sbuf_free(&sl);
}

static int repeated_step_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why,
                               size_t whysize) {
    if (limit == 0 || !any_runs_once(g, limit))
        return limit;
    an_map m = {NULL, 0};
    char *before = heap_calloc((size_t)g->nreductions + 1, 1);
    if (!before || !others_groups(&m, tv))
        limit = out_of_memory(tv, why, whysize);
    const wf_tv *longer;
    for (int i = 0; i < limit; i++) {
        for (int t = 0; t < g->nreductions; t++)
            before[t] = repeats(g, &m, g->reductions[t], i, &longer);
        unite_consumers_at(&m, tv, i);
        for (int t = 0; t < g->nreductions && i < limit; t++) {
            const wf_tv *r = g->reductions[t];
            if (before[t] || !repeats(g, &m, r, i, &longer))
                continue; /* made by other tensors' positions alone: theirs */
            if (why)
                repeated_why(tv, i, r, longer, why, whysize);
            limit = i;
        }
    }
    free(m.parent);
    free(before);
    return limit;
}

int an_group_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why, size_t whysize) {
    limit = reduction_reader_limit(g, tv, limit, why, whysize);
    limit = crossing_read_limit(g, tv, limit, why, whysize);
    limit = repeated_step_limit(g, tv, limit, why, whysize);
    return loop_order_limit(g, tv, limit, why, whysize);
}
