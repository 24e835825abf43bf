/*
 * reduce.c -- lowering reductions: the init statement, the kind of the
 * combine step, and the block reductions' predicates and workspace.
 *
 * lower_reduce: requires loops and alloc (the statement of each reduction
 * sits in the loops of its output's loop domain, reduction axes included;
 * reduction axes are never allocated). Provides, per reduction:
 *  - its init statement (out = the op's initial value), placed just before
 *    the outermost loop that iterates a reduction axis serially, inside
 *    copies of the iteration loops nested in that loop (an accumulator of
 *    [r, i] is initialized for every i before r starts); with no such loop,
 *    just before the statement;
 *  - the statement's kind: serial (out = op(out, in)), or a block reduction
 *    when a reduction axis runs on threadIdx: a collective that every thread
 *    of the block reaches, so that it carries its predicates as arguments
 *    (lower_reduce_guard, called by the predicate pass) instead of sitting
 *    in an IF. The result is valid in every thread of the reduced dims (an
 *    all-reduce), so a local output can feed a broadcast in the same kernel;
 *  - for a 16-bit float sum or product with serial reduction loops, a float
 *    register accumulator (kir_stmt.acc): the init and steps use it, and a
 *    final statement after the outermost serial reduction loop rounds it
 *    once into the output;
 *  - for a reduction into global memory (a fusion output), where one
 *    register per thread holds the partial, the same register accumulator
 *    in its compute type: no zeroing and read-modify-write of global memory;
 *  - one shared-memory workspace for all block reductions: 8 bytes per
 *    thread of the block, after every shared tensor.
 * A reduction axis on blockIdx makes a grid reduction: the block's result,
 * then the blocks' through a work buffer and a semaphore (codegen/reduce.c);
 * only the last block to arrive has the value, so it must be a fusion
 * output written once (no init), outside serial reduction loops (each
 * iteration of serial iteration loops around it is a reduction of its
 * own), one per kernel.
 */
#include "lower/lower_int.h"

#include <stdio.h>

static bool binds(const wf_iterdomain *id) {
    return !val_is_const_eq(id->extent, 1);
}

/* A loop that iterates in the thread (not a thread/block index, a vector or extent 1). */
static bool iterates(const kir_node *n) {
    const kir_for *l = &n->u.loop;
    return lower_pdim_index(l->ptype) < 0 && !l->vector && !val_is_const(l->var);
}

/* An iteration IterDomain (extent not 1) among the ones id was made from, or
   NULL: a logical one, or one made an iteration axis on the way (an rfactor
   producer's partial axis, split from a reduction axis: merged back with a
   reduction axis by propagate_transforms, it summed the partials into one,
   and its consumer counted that twice: fuzz -s 20261123 -c 286325). The
   history is a DAG of at most a few transforms per axis; depth caps the walk
   all the same. */
static const wf_iterdomain *iteration_ancestor(const wf_iterdomain *id, int depth) {
    if (id->itype == IT_ITER && binds(id))
        return id;
    if (!id->def)
        return NULL;
    for (int i = 0; i < id->def->nin && depth < 64; i++) {
        const wf_iterdomain *r = iteration_ancestor(id->def->in[i], depth + 1);
        if (r)
            return r;
    }
    return NULL;
}

/* A reduction axis merged (or swizzled) with an iteration axis would reduce
   across the output's elements: one init for all of them, one result
   written to the last index. Refused (fuzzer class F17, known.h). */
static bool check_mixed(lower_ctx *c, const wf_tv *t, const wf_iterdomain *id) {
    const wf_iterdomain *it = iteration_ancestor(id, 0);
    if (!it)
        return true;
    sbuf b = {0}, r = {0};
    ir_print_id(&b, id);
    ir_print_id(&r, it);
    err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
              "not supported yet: T%d's reduction loop axis %s is made from the iteration axis "
              "%s as well as a reduction axis, so it would reduce across the output's elements; "
              "merge reduction axes only with reduction axes (directly or by "
              "propagate_transforms from another tensor)",
              t->id, sbuf_str(&b), sbuf_str(&r));
    sbuf_free(&b);
    sbuf_free(&r);
    return false;
}

static bool classify(lower_ctx *c, kir_stmt *s) {
    const wf_tv *t = s->op->out;
    s->red = KRED_SERIAL;
    for (int i = 0; i < t->loop.n; i++) {
        const wf_iterdomain *id = t->loop.ptr[i];
        if (id->itype == IT_REDUCTION && !check_mixed(c, t, id))
            return false;
        wf_ptype p = lower_loop_ptype(c, id);
        /* MMA: the instruction's K, reduced inside one mma.sync (lower/mma.c) */
        if (id->itype != IT_REDUCTION || !binds(id) || p == WF_SERIAL || p == WF_UNROLL ||
            p == WF_MMA)
            continue;
        if (ir_id_is_thread(p)) {
            s->red = s->red == KRED_GRID ? KRED_GRID : KRED_BLOCK;
            s->red_tids |= 1u << (p - WF_TIDX);
        } else if (p == WF_BIDX || p == WF_BIDY || p == WF_BIDZ) {
            s->red = KRED_GRID;
            s->red_bids |= 1u << (p - WF_BIDX);
        } else {
            /* Vectorize, Bulk and the device types: lower/check.c refuses them on a
               reduction (and on any tensor inlined into its loops) before this pass */
            err_assert(&c->f->err, false);
            return false;
        }
    }
    return true;
}

/* A tensor-core instruction's axis (loops.c): no loop in the step, which the
   instruction does once for the whole tile. */
static bool mma_loop(const kir_node *n) {
    return n->u.loop.ptype == WF_MMA && n->u.loop.vector;
}

/* A copy of an iteration loop for the init statement: same IterDomain, a loop
   variable of its own (the executor and codegen key variables by name/slot);
   an instruction's axis becomes a real loop. */
static kir_node *clone_loop(lower_ctx *c, const kir_node *n) {
    kir_node *m = kir_new(c->a, KIR_FOR);
    if (!m)
        return NULL;
    const kir_for *l = &n->u.loop;
    m->u.loop.group = l->group;
    m->u.loop.id = l->id;
    m->u.loop.extent = l->extent;
    m->u.loop.ptype = l->ptype;
    m->u.loop.var = l->var;
    if (mma_loop(n)) { /* the init writes every register of the fragment */
        char name[16];
        int64_t e = ir_id_const_extent(l->id);
        snprintf(name, sizeof name, "i%d", c->nvars++);
        m->u.loop.ptype = WF_UNROLL;
        m->u.loop.var = val_sym(c->a, SYM_LOOP, l->group, 0, name, 0, e - 1, l->extent);
    } else if (l->var->kind == V_SYM && l->var->sym == SYM_LOOP) {
        char name[16];
        snprintf(name, sizeof name, "i%d", c->nvars++);
        m->u.loop.var =
            val_sym(c->a, SYM_LOOP, l->var->sym_a, 0, name, l->var->lo, l->var->hi, l->extent);
    }
    return m->u.loop.var ? m : NULL;
}

static int position(const kir_list *l, const kir_node *n) {
    int i = 0;
    while (i < l->n && l->ptr[i] != n)
        i++;
    return i;
}

/* The loops around s, outermost first: one per axis of its output's loop domain. */
static kir_node **ancestors(lower_ctx *c, kir_node *s, int n) {
    kir_node **anc = ARENA_ARRAY(c->a, kir_node *, n + 1);
    kir_node *p = s->parent;
    for (int j = n - 1; anc && j >= 0; j--, p = p ? p->parent : NULL) {
        err_assert(&c->f->err, p && p->kind == KIR_FOR); /* lower/loops.c placed it in them */
        if (!p || p->kind != KIR_FOR)
            return NULL;
        anc[j] = p;
    }
    return anc;
}

/* ---- grid reductions ----
   The work buffer and the semaphores are the generated module's __device__
   arrays (zero at load, reused by every launch: the last block resets its
   semaphore), WF_GRID_WORK partial results and WF_GRID_SEMS semaphores;
   a launch needing more is refused by a launch check. */
#define WF_GRID_WORK ((int64_t)1 << 20)
#define WF_GRID_SEMS ((int64_t)1 << 16)

static bool refuse_grid(lower_ctx *c, const wf_tv *t, const char *why) {
    return err_failb(&c->f->err, WF_ERR_UNSUPPORTED, "T%d is reduced across blocks: %s", t->id,
                     why);
}

static const wf_val *dims_product(lower_ctx *c, int from, int to, unsigned mask, bool in) {
    const wf_val *p = val_const(c->a, 1);
    for (int d = from; d < to; d++)
        if (((mask >> (d - from)) & 1u) == in)
            p = val_mul(c->a, p, c->pdim[d]);
    return p;
}

static bool add_launch_check(lower_ctx *c, const wf_val *n, int64_t cap, const char *msg) {
    lower_check chk = {.cond = val_lt(c->a, n, val_const(c->a, cap + 1)),
                       .message = arena_strdup(c->a, msg)};
    return (chk.cond && chk.message && vec_push_arena(c->a, &c->out->checks, chk)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* The serial loops around a grid reduction: each iteration is a reduction of
   its own (its own semaphores and partials, as a fast block may arrive at the
   next iteration before the last block of this one); a serial reduction loop
   around it would fold several grid results into one output: refused. */
static bool grid_iterations(lower_ctx *c, kir_node *s) {
    kir_stmt *st = &s->u.stmt;
    const wf_tv *t = st->op->out;
    kir_node **anc = ancestors(c, s, t->loop.n);
    const wf_val *it = val_const(c->a, 0), *nit = val_const(c->a, 1);
    for (int j = 0; anc && j < t->loop.n; j++) {
        if (!iterates(anc[j]))
            continue;
        if (t->loop.ptr[j]->itype == IT_REDUCTION)
            return refuse_grid(c, t,
                               "a serial reduction loop around a grid reduction is not "
                               "supported; rfactor the serial reduction axes into a "
                               "producer");
        it = val_add(c->a, val_mul(c->a, it, anc[j]->u.loop.extent), anc[j]->u.loop.var);
        nit = val_mul(c->a, nit, anc[j]->u.loop.extent);
    }
    st->grid_iter = it;
    st->grid_niter = nit;
    return anc != NULL;
}

/* A grid reduction's need for partial results or semaphores known at
   compile time to exceed what the module holds is refused here rather than
   at every launch, naming the serial iteration loops around it, which
   multiply it (each iteration is a grid reduction of its own: a split_outer
   by 1000003 around one needed 3 million partials: fuzz -s 20261123 -c
   663680, -c 774211, -s 3 -c 92754). A size known only at launch keeps the
   launch check. */
static bool refuse_known_size(lower_ctx *c, kir_node *s, const wf_val *need, int64_t cap,
                              const char *what, const char *where) {
    const wf_tv *t = s->u.stmt.op->out;
    if (!val_is_const(need) || need->c <= cap)
        return true;
    kir_node **anc = ancestors(c, s, t->loop.n);
    sbuf b = {0};
    int nloops = 0;
    for (int j = 0; anc && j < t->loop.n; j++) {
        if (!iterates(anc[j]))
            continue;
        sbuf_puts(&b, nloops++ ? ", " : "");
        ir_print_id(&b, t->loop.ptr[j]);
    }
    if (!anc) {
        sbuf_free(&b);
        return false;
    }
    err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
              "T%d is reduced across blocks: the grid reduction needs %lld %s (blocks x threads "
              "not reduced x iterations of the serial loops around it%s%s%s), more than %s's "
              "%lld; each iteration is a grid reduction of its own: make the serial loops "
              "around it shorter, or reduce more per block",
              t->id, (long long)need->c, what, nloops ? ": " : "", nloops ? sbuf_str(&b) : "",
              nloops ? "" : ": none", where, (long long)cap);
    sbuf_free(&b);
    return false;
}

static bool check_grid(lower_ctx *c, kir_node *s, int *ngrid) {
    const kir_stmt *st = &s->u.stmt;
    const wf_tv *t = st->op->out;
    char msg[256];
    if (++*ngrid > 1)
        return refuse_grid(c, t,
                           "one grid reduction per kernel is supported yet; compute the "
                           "others in separate fusions");
    if (t->uses.n > 0)
        return refuse_grid(c, t,
                           "only the last block has its value, so it can only be a fusion "
                           "output; compute its readers in a separate fusion");
    if (!grid_iterations(c, s))
        return false;
    for (int d = 0; d < NPDIMS; d++)
        if (!c->pdim_exact[d])
            return refuse_grid(c, t,
                               "a grid reduction needs every loop on a thread or block "
                               "dimension to have the launch's extent");
    const wf_val *parts =
        val_mul(c->a, dims_product(c, 3, 6, 0, false), dims_product(c, 0, 3, st->red_tids, false));
    parts = val_mul(c->a, parts, st->grid_niter);
    const wf_val *sems = val_mul(c->a, dims_product(c, 3, 6, st->red_bids, false), st->grid_niter);
    if (!refuse_known_size(c, s, parts, WF_GRID_WORK, "partial results", "its work buffer") ||
        !refuse_known_size(c, s, sems, WF_GRID_SEMS, "semaphores", "the semaphores"))
        return false;
    snprintf(msg, sizeof msg,
             "T%d: the grid reduction needs more than %lld partial results (blocks x threads "
             "not reduced x serial iterations), its work buffer's size; reduce more per block",
             t->id, (long long)WF_GRID_WORK);
    if (!add_launch_check(c, parts, WF_GRID_WORK, msg))
        return false;
    snprintf(msg, sizeof msg,
             "T%d: the grid reduction needs more than %lld semaphores (blocks not reduced x "
             "serial iterations)",
             t->id, (long long)WF_GRID_SEMS);
    return add_launch_check(c, sems, WF_GRID_SEMS, msg);
}

/* The statements around the outermost serial reduction loop anc[first]: a
   copy of the statement of kind `red`, inside copies of the iteration loops
   nested in that loop, inserted before (init) or after (final) it. */
static kir_node *place_around(lower_ctx *c, kir_node *s, kir_node **anc, int first, kir_red red) {
    const wf_tv *t = s->u.stmt.op->out;
    kir_node *st = kir_new(c->a, KIR_STMT), *node = st;
    if (!st)
        return err_fail(&c->f->err, WF_ERR_MEMORY, "out of memory");
    st->u.stmt = s->u.stmt;
    st->u.stmt.red = red;
    for (int j = t->loop.n - 1; j > first; j--) {
        /* Without a serial reduction loop the statement goes just before the
           step, inside its loops: only the instruction's axes need loops. */
        if (t->loop.ptr[j]->itype == IT_REDUCTION || (first < 0 && !mma_loop(anc[j])))
            continue;
        kir_node *l = clone_loop(c, anc[j]);
        if (!l || !kir_append(c->a, &l->u.loop.body, node, l))
            return err_fail(&c->f->err, WF_ERR_MEMORY, "out of memory");
        node = l;
    }
    kir_node *at = first < 0 ? s : anc[first];
    kir_list *body = at->parent ? kir_body(at->parent) : &c->out->top;
    int pos = position(body, at) + (red == KRED_FINAL);
    if (!kir_insert(c->a, body, pos, node, at->parent))
        return err_fail(&c->f->err, WF_ERR_MEMORY, "out of memory");
    return st;
}

/* A sum or product of a 16-bit float tensor computes in float (PyTorch's
   rule): folding each step into a 16-bit output would round at every step.
   Where serial reduction loops fold into the output, the partial result lives
   in a float register instead, initialized before the outermost of them and
   rounded once into the output after it. A register holds one value per
   thread, so every iteration loop inside that outermost loop must be a
   thread or block index (or of extent 1); a serial or vectorized one would
   need an array of partials: refused. */
static bool needs_acc(const kir_node *s, int first) {
    const wf_tv *t = s->u.stmt.op->out;
    return first >= 0 && (t->dtype == WF_F16 || t->dtype == WF_BF16) &&
           (s->u.stmt.op->sub == WF_ADD || s->u.stmt.op->sub == WF_MUL);
}

/* The first iteration loop inside the outermost serial reduction loop
   anc[first] that iterates in the thread (serial or vectorized), or -1: a
   register accumulator would need one partial per iteration. */
static int serial_inside(const wf_tv *t, kir_node **anc, int first) {
    for (int j = first + 1; first >= 0 && j < t->loop.n; j++) {
        const kir_for *l = &anc[j]->u.loop;
        if (t->loop.ptr[j]->itype == IT_REDUCTION || val_is_const(l->var))
            continue;
        if (!l->vector && lower_pdim_index(l->ptype) >= 0)
            continue;
        return j;
    }
    return -1;
}

/* A reduction into global memory (a fusion output) accumulates in a register
   of its compute type, initialized with the op's identity and stored once
   after the reduction (its serial loops, its block reduction), instead of
   zeroing the output and reading and writing it back at every step --
   where one register per thread holds the partial (serial_inside). */
static bool wants_register(const kir_node *s, kir_node **anc, int first) {
    const wf_tv *t = s->u.stmt.op->out;
    return t->mem == WF_MEM_GLOBAL && serial_inside(t, anc, first) < 0;
}

static bool check_acc(lower_ctx *c, const wf_tv *t, kir_node **anc, int first) {
    int j = serial_inside(t, anc, first);
    if (j >= 0) {
        sbuf b = {0}, r = {0};
        ir_print_id(&b, t->loop.ptr[j]);
        ir_print_id(&r, t->loop.ptr[first]);
        err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                  "not supported yet: T%d, a %s sum or product, accumulates in float registers, "
                  "one per thread, but its loop %s iterates serially inside its reduction loop "
                  "%s; reorder the reduction axis %s inside it, or parallelize %s on a "
                  "thread or block dimension",
                  t->id, t->dtype == WF_F16 ? "f16" : "bf16", sbuf_str(&b), sbuf_str(&r),
                  sbuf_str(&r), sbuf_str(&b));
        sbuf_free(&b);
        sbuf_free(&r);
        return false;
    }
    return true;
}

static bool place_init(lower_ctx *c, int k, kir_node *s) {
    const wf_tv *t = s->u.stmt.op->out;
    int n = t->loop.n, first = -1;
    kir_node **anc = ancestors(c, s, n);
    if (!anc)
        return err_set(&c->f->err) ? false : err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    for (int j = 0; j < n && first < 0; j++)
        if (t->loop.ptr[j]->itype == IT_REDUCTION && iterates(anc[j]))
            first = j;
    if (needs_acc(s, first) || wants_register(s, anc, first)) {
        if (!check_acc(c, t, anc, first))
            return false;
        s->u.stmt.acc = ++c->out->nacc;
        c->final_of[k] = place_around(c, s, anc, first, KRED_FINAL);
        if (!c->final_of[k])
            return false;
    }
    c->init_of[k] = place_around(c, s, anc, first, KRED_INIT);
    return c->init_of[k] != NULL;
}

/* 8 bytes (the widest type a reduction computes in) per thread of the block. */
static void add_workspace(lower_ctx *c) {
    wf_arena *a = c->a;
    const wf_val *threads = val_mul(a, val_mul(a, c->pdim[0], c->pdim[1]), c->pdim[2]);
    const wf_val *at = val_mul(a, val_ceildiv(a, c->out->smem, val_const(a, 16)), val_const(a, 16));
    c->out->red_smem = at;
    c->out->smem = val_add(a, at, val_mul(a, threads, val_const(a, 8)));
    c->out->launch.smem_bytes = val_is_const(c->out->smem) ? c->out->smem->c : -1;
}

bool lower_reduce(lower_ctx *c) {
    bool block = false;
    int ngrid = 0;
    c->init_of = ARENA_ARRAY(c->a, kir_node *, c->order.n + 1);
    c->final_of = ARENA_ARRAY(c->a, kir_node *, c->order.n + 1);
    if (!c->init_of || !c->final_of)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    for (int k = 0; k < c->order.n; k++) {
        kir_node *s = c->stmt_of[k];
        if (c->order.ptr[k]->kind != OP_REDUCE)
            continue;
        if (!classify(c, &s->u.stmt))
            return false;
        /* A grid reduction writes its output once, from the last block: no init. */
        if (s->u.stmt.red == KRED_GRID ? !check_grid(c, s, &ngrid) : !place_init(c, k, s))
            return false;
        block |= s->u.stmt.red >= KRED_BLOCK;
    }
    if (block)
        add_workspace(c);
    return true;
}

/* ---- the block reduction's predicates ---- */

/* Does v use the index of a loop around s that iterates a reduction axis of
   s's tensor? By loop group, so that it holds for a statement at any depth:
   the reduction itself, or the store of its accumulator (outside the serial
   reduction loops, inside the thread-parallel ones). */
static bool is_reduction(const wf_iterdomain *id) {
    return id->itype == IT_REDUCTION;
}

static bool uses_reduced(lower_ctx *c, kir_node *s, const wf_val *v) {
    return lower_uses_loop_of(c, s, v, is_reduction);
}

/* Does v use a reduced block index (a grid reduction's one writer is the
   last block to arrive, not block 0)? */
static bool uses_reduced_bid(lower_ctx *c, kir_node *s, const wf_val *v) {
    (void)c;
    for (int d = 0; d < 3; d++)
        if ((s->u.stmt.red_bids & (1u << d)) && val_uses_sym(v, SYM_BID, d))
            return true;
    return false;
}

/* The conjuncts of p for which drop() is false. */
static const wf_val *keep(lower_ctx *c, kir_node *s, const wf_val *p,
                          bool (*drop)(lower_ctx *, kir_node *, const wf_val *)) {
    if (!p)
        return NULL;
    if (p->kind == V_AND) {
        const wf_val *x = keep(c, s, p->a, drop), *y = keep(c, s, p->b, drop);
        return x && y ? val_and(c->a, x, y) : x ? x : y;
    }
    return drop(c, s, p) ? NULL : p;
}

static const wf_val *and_into(wf_arena *a, const wf_val *p, const wf_val *q) {
    return p && q ? val_and(a, p, q) : p ? p : q;
}

const wf_val *lower_reduce_final_pred(lower_ctx *c, kir_node *s, const wf_val *p) {
    return keep(c, s, p, uses_reduced);
}

/* Does v use no block index? */
static bool uses_no_bid(lower_ctx *c, kir_node *s, const wf_val *v) {
    (void)c, (void)s;
    for (int d = 0; d < 3; d++)
        if (val_uses_sym(v, SYM_BID, d))
            return false;
    return true;
}

bool lower_reduce_guard(lower_ctx *c, kir_node *s, const wf_val *cover,
                        lower_single_writer single) {
    kir_stmt *st = &s->u.stmt;
    const wf_val *read = and_into(c->a, cover, st->pred);
    st->pred = keep(c, s, read, uses_reduced);
    const wf_val *writer = single(c, st); /* which sees the write's own bounds */
    st->wpred = and_into(c->a, st->pred, writer);
    if (st->red == KRED_GRID)
        st->wpred = keep(c, s, st->wpred, uses_reduced_bid);
    /* A block that will not write the result (blockIdx.x == 0 writes a global
       cell no block index picks) need not read the input either: its reads
       would race with the writing block's stores into the same tensor (fuzz
       -s 2 -c 7582), or with another block's writes of an input computed in
       the same kernel by one block along that dimension (a grid reduction
       over blockIdx.x of T6[blockIdx.x], which only blockIdx.y == 0 wrote:
       fuzz -s 20261123 -c 846856, with the F19 switches 1). The condition is
       uniform across the block, and for a grid reduction across the blocks
       it combines (it names no reduced block index), so every thread and
       every block of a group still reaches the collective. */
    const wf_val *block_writer = keep(c, s, writer, uses_no_bid);
    if (st->red == KRED_GRID)
        block_writer = keep(c, s, block_writer, uses_reduced_bid);
    read = and_into(c->a, read, block_writer);
    st->pred = read;
    return !err_set(&c->f->err);
}
