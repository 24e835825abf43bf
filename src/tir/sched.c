/*
 * sched.c -- TVM's loop primitives on the TIR program: split, fuse, reorder, and the
 * loop annotations bind / vectorize / unroll, with TVM's checks.
 *
 * Each primitive checks everything first and only then rewrites, so a refused request
 * leaves the program unchanged. A rewritten loop is a new statement (its old handle is
 * stale, as TVM's LoopRV would be); the block iter bindings under it are rewritten in
 * terms of the new loop variables: split binds i = i_0 * f1 + i_1 (and adds T.where
 * when the factors cover more than the extent), fuse binds i = f // n, j = f % n.
 */
#include "tir/tir.h"

#include <stdio.h>
#include <string.h>

/* ---- walking the tree ---- */

int tir_loops_of(const tir_block *b, tir_stmt **out, int max) {
    tir_stmt *rev[TIR_MAX_LOOPS * 4];
    int n = 0;
    if (!b->stmt) /* a block made by the build (rfactor's rebuilt block) sits in no tree */
        return 0;
    for (tir_stmt *p = b->stmt->parent; p; p = p->parent)
        if (p->kind == TS_FOR && n < (int)(sizeof rev / sizeof rev[0]))
            rev[n++] = p;
    for (int i = 0; i < n && i < max; i++)
        out[i] = rev[n - 1 - i];
    return n < max ? n : max; /* the primitives keep nests within TIR_MAX_LOOPS */
}

int tir_loop_depth(const tir_stmt *st) {
    int n = 0;
    for (const tir_stmt *p = st->parent; p; p = p->parent)
        n += p->kind == TS_FOR;
    return n;
}

static bool deepest_block(tir_block *b, void *ctx) {
    int d = tir_loop_depth(b->stmt);
    if (d > *(int *)ctx)
        *(int *)ctx = d;
    return true;
}

tir_block *tir_find_block(wf_tir *s, const char *name) {
    for (int i = 0; i < s->blocks.n; i++)
        if (!s->blocks.ptr[i]->dead && !strcmp(s->blocks.ptr[i]->name, name))
            return s->blocks.ptr[i];
    return NULL;
}

bool tir_each_block(tir_stmt *st, tir_block_fn fn, void *ctx) {
    if (!st)
        return true;
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            if (!tir_each_block(st->seq.ptr[i], fn, ctx))
                return false;
        return true;
    case TS_FOR:
        return tir_each_block(st->body, fn, ctx);
    case TS_BLOCK:
        return fn(st->block, ctx) && tir_each_block(st->block->body, fn, ctx);
    case TS_STORE:
        return true;
    }
    return true;
}

void tir_replace(wf_tir *s, tir_stmt *old, tir_stmt *repl) {
    tir_stmt *p = old->parent;
    repl->parent = p;
    if (!p) {
        s->body = repl;
        return;
    }
    if (p->kind == TS_FOR)
        p->body = repl;
    else if (p->kind == TS_SEQ) {
        for (int i = 0; i < p->seq.n; i++)
            if (p->seq.ptr[i] == old)
                p->seq.ptr[i] = repl;
    } else if (p->kind == TS_BLOCK) {
        if (p->block->body == old)
            p->block->body = repl;
        else
            p->block->init = repl;
    }
}

/* ---- rebinding the blocks under a loop ---- */

typedef struct {
    wf_tir *s;
    int n;
    tir_var *const *from;
    tir_expr *const *to;
    tir_expr *pred;            /* a predicate to add to every block, or NULL */
    tir_expr *const *where_to; /* what T.where gets instead of to (TVM's unsimplified form) */
    bool where_raw;            /* T.where substituted without simplifying (fuse, as TVM) */
} rebind_ctx;

static tir_expr *and_pred(wf_tir *s, tir_expr *a, tir_expr *b) {
    return a ? tir_bin(s, TB_AND, a, b) : b;
}

static bool rebind_block(tir_block *b, void *vctx) {
    rebind_ctx *c = vctx;
    for (int i = 0; i < b->niters; i++)
        if (!(b->iters[i].value = tir_subst(c->s, b->iters[i].value, c->n, c->from, c->to)))
            return false;
    tir_expr *const *wto = c->where_to ? c->where_to : c->to;
    if (b->where && !(b->where = c->where_raw ? tir_subst_raw(c->s, b->where, c->n, c->from, wto)
                                              : tir_subst(c->s, b->where, c->n, c->from, wto)))
        return false;
    if (c->pred && !(b->where = and_pred(c->s, b->where, c->pred)))
        return false;
    return true;
}

/* Does any block under st bind v in one of its reduction iters? Returns that block. */
typedef struct {
    const tir_var *v;
    tir_block *hit;
    int iter;
} uses_ctx;

static bool find_reduce_use(tir_block *b, void *vctx) {
    uses_ctx *c = vctx;
    for (int i = 0; i < b->niters; i++)
        if (b->iters[i].reduce && tir_expr_uses(b->iters[i].value, c->v)) {
            c->hit = b, c->iter = i;
            return false;
        }
    return true;
}

/* ---- split ---- */

/* base + suffix (+ i): a loop name of any length (NULL when out of memory). */
static const char *suffixed(wf_tir *s, const char *base, const char *suffix, int i) {
    sbuf b = {0};
    sbuf_printf(&b, "%s%s", base, suffix);
    if (i >= 0)
        sbuf_printf(&b, "%d", i);
    const char *name = b.oom ? NULL : arena_strdup(&s->arena, sbuf_str(&b));
    sbuf_free(&b);
    return name;
}

static bool split_factors(wf_tir *s, tir_stmt *l, int n, const int64_t *factors, int64_t *f) {
    int none = -1;
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        if (factors[i] == -1) {
            if (none >= 0)
                return err_failb(&s->err, WF_ERR_ARG,
                                 "split: Only one factor can be specified as -1 or None (loop %s)",
                                 l->loop_var->name);
            none = i;
            continue;
        }
        if (factors[i] <= 0)
            return err_failb(&s->err, WF_ERR_ARG,
                             "split: All the constant factors are required to be positive. "
                             "However, the factor %lld of loop %s is not",
                             (long long)factors[i], l->loop_var->name);
        if (prod > INT64_MAX / factors[i])
            return err_failb(&s->err, WF_ERR_ARG, "split: the factors of loop %s overflow",
                             l->loop_var->name);
        prod *= factors[i];
    }
    for (int i = 0; i < n; i++)
        f[i] = i == none ? (l->extent + prod - 1) / prod : factors[i];
    if (none >= 0)
        prod *= f[none];
    if (prod < l->extent)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "split: The product of factors is not larger than or equal to the extent "
                         "of loop %s: the factors multiply to %lld but the loop has %lld "
                         "iterations (make a factor larger, or pass None for one of them)",
                         l->loop_var->name, (long long)prod, (long long)l->extent);
    return true;
}

bool tir_split(wf_tir *s, tir_stmt *l, int n, const int64_t *factors, tir_stmt **out) {
    int64_t f[TIR_MAX_LOOPS];
    if (!split_factors(s, l, n, factors, f))
        return false;
    int deepest = 0;
    tir_each_block(l->body, deepest_block, &deepest);
    if (deepest + n - 1 > TIR_MAX_LOOPS)
        return err_failb(&s->err, WF_ERR_UNSUPPORTED,
                         "split: not supported yet: more than %d loops around one block (loop %s)",
                         TIR_MAX_LOOPS, l->loop_var->name);
    tir_var *vars[TIR_MAX_LOOPS] = {0};
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        prod *= f[i];
        vars[i] = tir_var_new(s, suffixed(s, l->loop_var->name, "_", i));
        if (!vars[i] || !vars[i]->name)
            return false;
    }
    /* i = ((i_0 * f1 + i_1) * f2 + i_2) ..., written flat as TVM's simplifier prints it */
    tir_expr *value = NULL;
    int64_t stride = 1;
    for (int i = n - 1; i >= 0; i--) {
        tir_expr *term = tir_var_ref(s, vars[i]);
        if (stride != 1)
            term = tir_bin(s, TB_MUL, term, tir_int(s, stride));
        value = value ? tir_bin(s, TB_ADD, term, value) : term;
        stride *= f[i];
    }
    tir_expr *pred = prod > l->extent ? tir_bin(s, TB_LT, value, tir_int(s, l->extent)) : NULL;
    /* the sum was built right-nested; rebuild it left-nested: a * 8 + b * 4 + c */
    if (n > 2) {
        tir_expr *acc = NULL;
        stride = prod;
        for (int i = 0; i < n; i++) {
            stride /= f[i];
            tir_expr *term = tir_var_ref(s, vars[i]);
            if (stride != 1)
                term = tir_bin(s, TB_MUL, term, tir_int(s, stride));
            acc = acc ? tir_bin(s, TB_ADD, acc, term) : term;
        }
        value = acc;
    }
    /* TVM's predicates keep the split's nested form: (i_0 * f1 + i_1) * f2 + i_2 */
    tir_expr *horner = tir_var_ref(s, vars[0]);
    for (int i = 1; i < n; i++)
        horner = tir_bin(s, TB_ADD, tir_bin(s, TB_MUL, horner, tir_int(s, f[i])),
                         tir_var_ref(s, vars[i]));
    if (pred && n > 2)
        pred->args[0] = horner;
    if (!value || err_set(&s->err))
        return false;
    tir_var *from[1] = {l->loop_var};
    tir_expr *to[1] = {value};
    tir_expr *where_to[1] = {horner};
    rebind_ctx c = {s, 1, from, to, pred, where_to, false};
    if (!tir_each_block(l->body, rebind_block, &c))
        return false;
    tir_stmt *body = l->body;
    for (int i = n - 1; i >= 0; i--) {
        out[i] = tir_for_new(s, vars[i], f[i], body);
        if (!out[i])
            return false;
        body = out[i];
    }
    tir_replace(s, l, out[0]);
    l->dead = true;
    return true;
}

/* ---- fuse ---- */

bool tir_perfect_chain(wf_tir *s, int n, tir_stmt *const *loops, const char *fn) {
    for (int i = 0; i + 1 < n; i++) {
        /* the inner loop directly in the outer's body, beside other statements (a block
           compute_at put there) */
        const tir_stmt *p = loops[i + 1]->parent;
        bool beside = p && p->kind == TS_SEQ && p->parent == loops[i];
        if (p != loops[i] && !beside)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: The loops can't be fused because the outer loop %s is not the "
                             "parent of the inner loop %s",
                             fn, loops[i]->loop_var->name, loops[i + 1]->loop_var->name);
        if (loops[i]->body != loops[i + 1])
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "%s: The loops can't be fused because the inner loop %s is not the "
                             "only child of outer loop %s",
                             fn, loops[i + 1]->loop_var->name, loops[i]->loop_var->name);
    }
    return true;
}

static bool check_plain(wf_tir *s, tir_stmt *l, const char *fn) {
    if (l->for_kind != TIR_SERIAL)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: The primitive can't be applied because the loop %s has annotation "
                         "or thread binding",
                         fn, l->loop_var->name);
    return true;
}

tir_stmt *tir_fuse(wf_tir *s, int n, tir_stmt *const *loops) {
    if (!tir_perfect_chain(s, n, loops, "fuse"))
        return NULL;
    int64_t prod = 1;
    char name[256] = "";
    for (int i = 0; i < n; i++) {
        if (!check_plain(s, loops[i], "fuse"))
            return NULL;
        if (prod > INT64_MAX / loops[i]->extent)
            return err_fail(&s->err, WF_ERR_ARG, "fuse: the fused extent overflows");
        prod *= loops[i]->extent;
        size_t len = strlen(name);
        snprintf(name + len, sizeof name - len, "%s_", loops[i]->loop_var->name);
    }
    tir_var *fv = tir_var_new(s, suffixed(s, name, "fused", -1));
    if (!fv || !fv->name)
        return NULL;
    tir_var *from[TIR_MAX_LOOPS];
    tir_expr *to[TIR_MAX_LOOPS];
    int64_t inner = prod;
    for (int i = 0; i < n; i++) {
        int64_t e = loops[i]->extent;
        inner /= e;
        /* TVM's simplifier knows the fused loop's range: an extent-1 loop's digit is 0,
           and the modulo is dropped where only extent-1 loops are outside */
        tir_expr *x = tir_var_ref(s, fv);
        if (prod / (e * inner) > 1)
            x = tir_bin(s, TB_MOD, x, tir_int(s, e * inner));
        if (inner != 1)
            x = tir_bin(s, TB_FLOORDIV, x, tir_int(s, inner));
        if (e == 1)
            x = tir_int(s, 0);
        from[i] = loops[i]->loop_var, to[i] = tir_simplify(s, x);
    }
    if (err_set(&s->err))
        return NULL;
    rebind_ctx c = {s, n, from, to, NULL, NULL, true};
    if (!tir_each_block(loops[n - 1]->body, rebind_block, &c))
        return NULL;
    tir_stmt *f = tir_for_new(s, fv, prod, loops[n - 1]->body);
    if (!f)
        return NULL;
    tir_replace(s, loops[0], f);
    for (int i = 0; i < n; i++)
        loops[i]->dead = true;
    return f;
}

/* ---- reorder ---- */

static int depth_of(const tir_stmt *l) {
    int d = 0;
    for (const tir_stmt *p = l->parent; p; p = p->parent)
        d++;
    return d;
}

bool tir_reorder(wf_tir *s, int n, tir_stmt *const *loops) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (loops[i] == loops[j])
                return err_failb(&s->err, WF_ERR_ARG,
                                 "reorder: Loop %s appears in the input array for multiple times",
                                 loops[i]->loop_var->name);
    /* the chain runs from the outermost to the innermost given loop */
    tir_stmt *top = loops[0], *bottom = loops[0];
    for (int i = 1; i < n; i++) {
        if (depth_of(loops[i]) < depth_of(top))
            top = loops[i];
        if (depth_of(loops[i]) > depth_of(bottom))
            bottom = loops[i];
    }
    tir_stmt *chain[TIR_MAX_LOOPS * 4];
    int m = 0;
    for (tir_stmt *p = bottom; p; p = p->parent) {
        if (p->kind == TS_FOR && m < (int)(sizeof chain / sizeof chain[0]))
            chain[m++] = p;
        if (p == top)
            break;
        if (!p->parent)
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "reorder: the loops are not in a chain: %s is not inside %s",
                             bottom->loop_var->name, top->loop_var->name);
    }
    int given = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            given += chain[i] == loops[j];
    if (given != n)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "reorder: the loops are not in a chain (one loop nest from the outermost "
                         "to the innermost given loop)");
    /* chain is inner -> outer; every link must be the only child */
    for (int i = m - 1; i > 0; i--) {
        if (chain[i]->body != chain[i - 1])
            return err_failb(&s->err, WF_ERR_SCHEDULE,
                             "reorder: the loop %s is not the only child of the loop %s",
                             chain[i - 1]->loop_var->name, chain[i]->loop_var->name);
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (chain[i] == loops[j] && chain[i]->for_kind == TIR_THREAD)
                return check_plain(s, chain[i], "reorder");
    /* new order, outer -> inner: given loops fill their positions in the given order */
    tir_stmt *order[TIR_MAX_LOOPS * 4] = {NULL};
    int k = 0;
    for (int i = m - 1; i >= 0; i--) {
        bool is_given = false;
        for (int j = 0; j < n; j++)
            is_given |= chain[i] == loops[j];
        order[m - 1 - i] = is_given ? loops[k++] : chain[i];
    }
    /* the new outermost loop takes the old one's place (found through the old one's
       parent, so before the links change), then the chain is relinked */
    tir_stmt *inner_body = chain[0]->body;
    tir_replace(s, chain[m - 1], order[0]);
    for (int i = 0; i + 1 < m; i++)
        order[i]->body = order[i + 1], order[i + 1]->parent = order[i];
    order[m - 1]->body = inner_body, inner_body->parent = order[m - 1];
    return true;
}

/* ---- bind / vectorize / unroll ---- */

bool tir_annotate(wf_tir *s, tir_stmt *l, tir_for_kind kind, const char *thread) {
    static const char *const what[] = {"serial", "unrolled", "vectorized", "bound", "parallelized"};
    static const char *const fns[] = {"serial", "unroll", "vectorize", "bind", "parallel"};
    /* a reduction loop on threadIdx is TVM's cross-thread reduction (built once the core
       has reductions); on blockIdx, vectorized or parallel it is refused */
    bool cross_thread_ok = kind == TIR_THREAD && thread && !strncmp(thread, "threadIdx", 9);
    bool unroll_ok = kind == TIR_UNROLL;
    uses_ctx c = {l->loop_var, NULL, 0};
    tir_each_block(l->body, find_reduce_use, &c);
    if (c.hit && !unroll_ok && !cross_thread_ok)
        return err_failb(&s->err, WF_ERR_SCHEDULE,
                         "%s: The loop %s cannot be %s because the block iter %s of block \"%s\" "
                         "is of reduction type and is bound to it",
                         fns[kind], l->loop_var->name, what[kind], c.hit->iters[c.iter].var->name,
                         c.hit->name);
    if (l->for_kind == TIR_THREAD && kind != TIR_THREAD)
        return err_failb(&s->err, WF_ERR_SCHEDULE, "%s: the loop %s is bound to %s already",
                         fns[kind], l->loop_var->name, l->thread);
    l->for_kind = kind;
    l->thread = thread;
    return true;
}
