/*
 * pipeline.c -- the lowering pass list, in order, in one function, and the
 * table of parallel dimensions every layer shares.
 *
 * Each pass reads the fusion and what earlier passes built, and adds to the
 * kernel IR or the context. After each pass the kernel-IR verifier runs in
 * test builds. The options (lower_options, parsed once by api/compile.c from
 * WF_DUMP and WF_SKIP) name passes: the kernel IR is printed to stderr after
 * the dumped ones -- a debugging aid that never runs unasked -- and skipped
 * ones are dropped: the kernels are then wrong on purpose, which is how the
 * tests prove that the CPU reference executor catches out-of-bounds accesses
 * and shared-memory races. A pass that fails must say why; one that returns
 * false without an error is a bug in weft, reported as an internal error
 * naming the pass (never as "out of memory").
 */
#include "lower/copy.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    bool (*run)(lower_ctx *);
    bool skippable; /* WF_SKIP may drop it, to build deliberately broken kernels */
} lower_pass;

static const lower_pass passes[] = {
    {"check", lower_check_fusion, false}, {"sort", lower_sort, false},
    {"loops", lower_loops, false},        {"check-loops", lower_check_loops, false},
    {"pdims", lower_pdims, false},        {"alloc", lower_alloc, false},
    {"reduce", lower_reduce, false},      {"index", lower_index, false},
    {"copy", lower_copy_index, false},    {"mma", lower_mma, false},
    {"predicate", lower_predicate, true}, {"sync", lower_sync, true},
    {"place", lower_copy_place, false},   {"tmem", lower_tmem, false},
    {"launch", lower_launch, false},
};
enum { NPASSES = sizeof passes / sizeof *passes };

/* ---- options ---- */

static void list_names(sbuf *b, bool skippable_only) {
    for (int i = 0, first = 1; i < NPASSES; i++)
        if (!skippable_only || passes[i].skippable) {
            sbuf_printf(b, "%s%s", first ? "" : ", ", passes[i].name);
            first = 0;
        }
}

static bool bad_name(wf_err *e, const char *var, const char *name, size_t len, bool known) {
    sbuf b = {0};
    sbuf_printf(&b, "%s: %s '%.*s'; the passes %s are ", var,
                known ? "cannot skip the pass" : "unknown pass", (int)len, name,
                known ? "that can be skipped" : "(besides \"all\")");
    list_names(&b, known);
    err_failb(e, WF_ERR_ARG, "%s", sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

/* One comma-separated list into a mask of passes; "all" is every pass
   (every skippable one for WF_SKIP). */
static bool parse_list(const char *var, const char *list, bool skip, unsigned *mask, wf_err *e) {
    *mask = 0;
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool all = len == 3 && strncmp(p, "all", 3) == 0, found = all;
        for (int i = 0; i < NPASSES; i++) {
            bool named = strlen(passes[i].name) == len && strncmp(p, passes[i].name, len) == 0;
            if (named && skip && !passes[i].skippable)
                return bad_name(e, var, p, len, true);
            if ((named || all) && (!skip || passes[i].skippable))
                *mask |= 1u << i;
            found |= named;
        }
        if (!found && len > 0)
            return bad_name(e, var, p, len, false);
        p += len + (end ? 1 : 0);
    }
    return true;
}

bool lower_options_parse(lower_options *o, const char *dump, const char *skip, wf_err *e) {
    return parse_list("WF_DUMP", dump, false, &o->dump, e) &&
           parse_list("WF_SKIP", skip, true, &o->skip, e);
}

/* ---- the pipeline ---- */

static void dump(const lower_ctx *c, const char *pass) {
    sbuf b = {0};
    sbuf_printf(&b, "== kernel IR after %s\n", pass);
    kir_print(&b, &c->out->top);
    fputs(sbuf_str(&b), stderr); // ok: debugging output the user asked for with WF_DUMP
    sbuf_free(&b);
}

static bool init_ctx(lower_ctx *c, wf_fusion *f, lower_result *out) {
    memset(c, 0, sizeof *c);
    c->f = f;
    c->out = out;
    c->a = &out->arena;
    int nids = f->ids.n + 1, ntvs = f->tvs.n + 1;
    c->op_pos = ARENA_ARRAY(c->a, int, ntvs);
    c->group_loop = ARENA_ARRAY(c->a, kir_node *, nids);
    c->stmt_of = ARENA_ARRAY(c->a, kir_node *, f->ops.n + 1);
    c->alloc_of = ARENA_ARRAY(c->a, kir_node *, ntvs);
    if (!c->op_pos || !c->group_loop || !c->stmt_of || !c->alloc_of)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    return an_idgraph_build(&c->g, f, c->a);
}

/* After a pass: an error it reported stands; memory that ran out is out of
   memory; a pass that failed silently is a bug. */
static bool pass_ok(lower_ctx *c, int i, bool ok) {
    wf_fusion *f = c->f;
    if (err_set(&f->err))
        return false;
    if (c->a->failed || f->arena.failed)
        return err_failb(&f->err, WF_ERR_MEMORY, "out of memory while lowering (%s)",
                         passes[i].name);
    if (!ok)
        return err_failb(&f->err, WF_ERR_UNSUPPORTED,
                         "internal error: the lowering pass '%s' failed without saying why (a bug "
                         "in weft; please report it with the fusion)",
                         passes[i].name);
    return true;
}

bool lower_fusion(wf_fusion *f, const lower_options *opt, lower_result *out) {
    static const lower_options none = {0};
    lower_ctx c;
    if (!opt)
        opt = &none;
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    out->sm = opt->sm;
    out->fast_math = opt->fast_math;
    if (!init_ctx(&c, f, out)) {
        if (!err_set(&f->err))
            err_fail(&f->err, WF_ERR_MEMORY, "out of memory while lowering");
        return false;
    }
    for (int i = 0; i < NPASSES; i++) {
        if (opt->skip & (1u << i))
            continue;
        if (!pass_ok(&c, i, !(opt->fail & (1u << i)) && passes[i].run(&c)))
            return false;
#ifdef WF_TEST_BUILD
        if (!lower_verify(&c))
            return pass_ok(&c, i, false);
#endif
        if (opt->dump & (1u << i))
            dump(&c, passes[i].name);
    }
    /* Not a pass of the list: an analysis of the finished kernel IR that
       changes nothing (it only fails when memory runs out). */
    return lower_in_place(&c) ||
           err_failb(&f->err, WF_ERR_MEMORY, "out of memory while lowering (in-place analysis)");
}

void lower_result_free(lower_result *r) {
    arena_free(&r->arena);
}
