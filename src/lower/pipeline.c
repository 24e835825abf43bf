/*
 * pipeline.c -- the lowering pass list, in order, in one function.
 *
 * Each pass reads the fusion and what earlier passes built, and adds to the
 * kernel IR or the context. After each pass the kernel-IR verifier runs in
 * test builds, and WF_DUMP=<pass>[,<pass>] (or "all") prints the kernel IR to
 * stderr after the named passes -- a debugging aid that never runs unasked.
 * WF_SKIP=predicate,sync drops those passes: the kernels are then wrong on
 * purpose, which is how the tests prove that the CPU reference executor
 * catches out-of-bounds accesses and shared-memory races.
 */
#include "lower/copy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    bool (*run)(lower_ctx *);
    bool skippable; /* WF_SKIP may drop it, to build deliberately broken kernels */
} lower_pass;

/* Is `name` in the comma-separated list of environment variable `var`? */
static bool env_lists(const char *var, const char *name) {
    const char *env = getenv(var);
    if (!env)
        return false;
    size_t n = strlen(name);
    for (const char *p = env; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if ((len == n && strncmp(p, name, n) == 0) || (len == 3 && strncmp(p, "all", 3) == 0))
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

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
    c->loop_uf = ARENA_ARRAY(c->a, int, nids);
    c->group_of = ARENA_ARRAY(c->a, int, nids);
    c->promoted = ARENA_ARRAY(c->a, wf_iterdomain *, nids);
    c->group_loop = ARENA_ARRAY(c->a, kir_node *, nids);
    c->stmt_of = ARENA_ARRAY(c->a, kir_node *, f->ops.n + 1);
    c->alloc_of = ARENA_ARRAY(c->a, kir_node *, ntvs);
    if (!c->op_pos || !c->loop_uf || !c->group_of || !c->promoted || !c->group_loop ||
        !c->stmt_of || !c->alloc_of)
        return wf_failb(&f->err, WF_ERR_MEMORY, "out of memory");
    return an_idgraph_build(&c->g, f, c->a);
}

bool lower_fusion(wf_fusion *f, int sm, lower_result *out) {
    static const lower_pass passes[] = {
        {"check", lower_check_fusion, false}, {"sort", lower_sort, false},
        {"loops", lower_loops, false},        {"pdims", lower_pdims, false},
        {"alloc", lower_alloc, false},        {"index", lower_index, false},
        {"copy", lower_copy_index, false},    {"predicate", lower_predicate, true},
        {"sync", lower_sync, true},           {"place", lower_copy_place, false},
        {"tmem", lower_tmem, false},          {"launch", lower_launch, false},
    };
    lower_ctx c;
    memset(out, 0, sizeof *out);
    arena_init(&out->arena);
    out->sm = sm;
    if (!init_ctx(&c, f, out))
        return false;
    for (size_t i = 0; i < sizeof passes / sizeof *passes; i++) {
        if (env_lists("WF_SKIP", passes[i].name) && passes[i].skippable)
            continue;
        bool ok = passes[i].run(&c);
        if (c.a->failed || f->arena.failed)
            return wf_failb(&f->err, WF_ERR_MEMORY, "out of memory while lowering (%s)",
                            passes[i].name);
        if (!ok || err_set(&f->err))
            return false;
#ifdef WF_TEST_BUILD
        if (!lower_verify(&c))
            return false;
#endif
        if (env_lists("WF_DUMP", passes[i].name))
            dump(&c, passes[i].name);
    }
    return true;
}

void lower_result_free(lower_result *r) {
    arena_free(&r->arena);
}

int64_t lower_pdim_max(int d) {
    static const int64_t max[NPDIMS] = {1023, 1023, 63, 2147483646, 65534, 65534};
    return max[d];
}

int lower_pdim_index(wf_ptype p) {
    switch (p) {
    case WF_TIDX:
        return 0;
    case WF_TIDY:
        return 1;
    case WF_TIDZ:
        return 2;
    case WF_BIDX:
        return 3;
    case WF_BIDY:
        return 4;
    case WF_BIDZ:
        return 5;
    default:
        return -1;
    }
}
