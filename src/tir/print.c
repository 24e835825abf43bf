/*
 * print.c -- the TIR program as TVMScript, in TVM's printer layout (classic spelling:
 * `tir`, `T.block`, `T.alloc_buffer`).
 *
 * What the layout follows (TVM's script printer): a header comment and the decorator;
 * `def main(...)` with the original name kept as global_symbol; the implicit root
 * block as the comment `# with T.block("root"):` and its allocations; perfectly nested
 * serial loops as one `T.grid`; block iter variables as `T.axis.remap` for runs of two
 * or more whose value is a loop variable of the same extent, one `T.axis.spatial` /
 * `T.axis.reduce` line otherwise; then T.where, T.reads / T.writes (inferred), the
 * block's allocations, T.init() and the body. Expressions take Python's precedence and
 * only the parentheses it needs; float constants print as T.float32(<repr>).
 */
#include "tir/tir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tir_dtype_name(wf_dtype t) {
    static const char *const names[] = {"float32", "float16", "bfloat16", "float64", "int8",
                                        "int16",   "int32",   "int64",    "uint8",   "bool"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

const char *tir_scope_name(tir_scope sc) {
    return sc == TIR_SHARED ? "shared" : sc == TIR_LOCAL ? "local" : "global";
}

/* TVM's float layout: an integral value in fixed notation with ".0"
   (100000000000000000000.0), any other with 17 significant digits (0.10000000000000001). */
void tir_print_float(sbuf *out, double v) {
    if (isinf(v) || isnan(v)) {
        sbuf_puts(out, isnan(v) ? "\"nan\"" : v > 0 ? "\"inf\"" : "\"-inf\"");
        return;
    }
    if (v == floor(v))
        sbuf_printf(out, "%.1f", v);
    else
        sbuf_printf(out, "%.17g", v);
}

static int prec_of(const tir_expr *e) {
    if (e->kind == TE_NOT)
        return 3;
    if (e->kind != TE_BIN)
        return 9;
    switch (e->op) {
    case TB_OR:
        return 1;
    case TB_AND:
        return 2;
    case TB_ADD:
    case TB_SUB:
        return 5;
    case TB_MUL:
    case TB_DIV:
    case TB_FLOORDIV:
    case TB_MOD:
        return 6;
    default:
        return 4;
    }
}

static const char *binop_text(int op) {
    static const char *const t[] = {" + ",  " - ", " * ",  " / ",  " // ", " % ",   " < ",
                                    " <= ", " > ", " >= ", " == ", " != ", " and ", " or "};
    return t[op];
}

static void print_sub(sbuf *out, const tir_expr *e, bool paren) {
    if (paren)
        sbuf_puts(out, "(");
    tir_print_expr(out, e);
    if (paren)
        sbuf_puts(out, ")");
}

static void print_call(sbuf *out, const tir_expr *e) {
    static const char *const names[] = {"T.max",          "T.min", "T.exp",     "T.sqrt",
                                        "T.if_then_else", "",      "T.sigmoid", "T.tanh"};
    if (e->op == TC_CAST)
        sbuf_printf(out, "T.Cast(\"%s\", ", tir_dtype_name(e->dtype));
    else
        sbuf_printf(out, "%s(", names[e->op]);
    for (int i = 0; i < e->nargs; i++) {
        if (i)
            sbuf_puts(out, ", ");
        tir_print_expr(out, e->args[i]);
    }
    sbuf_puts(out, ")");
}

void tir_print_expr(sbuf *out, const tir_expr *e) {
    switch (e->kind) {
    case TE_INT:
        if (e->dtype == WF_I32)
            sbuf_printf(out, "%lld", (long long)e->ival);
        else if (e->dtype == WF_BOOL)
            sbuf_puts(out, e->ival ? "T.bool(True)" : "T.bool(False)");
        else
            sbuf_printf(out, "T.%s(%lld)", tir_dtype_name(e->dtype), (long long)e->ival);
        return;
    case TE_FLOAT:
        sbuf_printf(out, "T.%s(", tir_dtype_name(e->dtype));
        tir_print_float(out, e->fval);
        sbuf_puts(out, ")");
        return;
    case TE_VAR:
        sbuf_puts(out, e->var->name);
        return;
    case TE_LOAD:
        sbuf_printf(out, "%s[", e->buf->name);
        for (int i = 0; i < e->nargs; i++) {
            sbuf_puts(out, i ? ", " : "");
            tir_print_expr(out, e->args[i]);
        }
        sbuf_puts(out, "]");
        return;
    case TE_NOT:
        sbuf_puts(out, "not ");
        print_sub(out, e->args[0], prec_of(e->args[0]) < 3);
        return;
    case TE_CALL:
        print_call(out, e);
        return;
    case TE_BIN: {
        int p = prec_of(e);
        /* comparisons do not chain: parenthesize a comparison operand */
        print_sub(out, e->args[0], prec_of(e->args[0]) < p || (p == 4 && prec_of(e->args[0]) == 4));
        sbuf_puts(out, binop_text(e->op));
        print_sub(out, e->args[1], prec_of(e->args[1]) <= p);
        return;
    }
    }
}

void tir_print_anns(sbuf *out, const tir_anns *anns) {
    sbuf_puts(out, "{");
    for (int i = 0; i < anns->n; i++)
        sbuf_printf(out, "%s\"%s\": %s", i ? ", " : "", anns->ptr[i].key, anns->ptr[i].value);
    sbuf_puts(out, "}");
}

/* ---- statements ---- */

static void ind(sbuf *out, int depth) {
    for (int i = 0; i < depth; i++)
        sbuf_puts(out, "    ");
}

typedef struct {
    sbuf *out;
    wf_tir *s;
    const tir_stmt *loops[TIR_MAX_LOOPS * 4]; /* the loops around the current point */
    int nloops;
} printer;

static void print_stmt(printer *p, const tir_stmt *st, int depth);

static void print_shape(sbuf *out, const tir_buffer *b) {
    sbuf_puts(out, "(");
    for (int i = 0; i < b->ndim; i++)
        sbuf_printf(out, i ? ", %lld" : "%lld", (long long)b->shape[i]);
    sbuf_puts(out, b->ndim == 1 ? ",)" : ")");
}

static void print_alloc(sbuf *out, const tir_buffer *b, int depth) {
    ind(out, depth);
    sbuf_printf(out, "%s = T.alloc_buffer(", b->name);
    print_shape(out, b);
    if (b->dtype != WF_F32)
        sbuf_printf(out, ", \"%s\"", tir_dtype_name(b->dtype));
    if (b->scope != TIR_GLOBAL)
        sbuf_printf(out, ", scope=\"%s\"", tir_scope_name(b->scope));
    sbuf_puts(out, ")\n");
}

static void print_region(sbuf *out, const tir_region *r) {
    sbuf_printf(out, "%s[", r->buf->name);
    for (int d = 0; d < r->buf->ndim; d++) {
        sbuf_puts(out, d ? ", " : "");
        tir_print_expr(out, r->lo[d]);
        if (r->ext[d] != 1) {
            sbuf_puts(out, ":");
            if (r->lo[d]->kind == TE_INT)
                sbuf_printf(out, "%lld", (long long)(r->lo[d]->ival + r->ext[d]));
            else {
                print_sub(out, r->lo[d], prec_of(r->lo[d]) < 5);
                sbuf_printf(out, " + %lld", (long long)r->ext[d]);
            }
        }
    }
    sbuf_puts(out, "]");
}

static void print_regions(sbuf *out, const char *what, const tir_regions *rs, int depth) {
    ind(out, depth);
    sbuf_printf(out, "T.%s(", what);
    for (int i = 0; i < rs->n; i++) {
        sbuf_puts(out, i ? ", " : "");
        print_region(out, &rs->ptr[i]);
    }
    sbuf_puts(out, ")\n");
}

/* A loop around the block whose variable is e, with the iter's extent. */
static bool remappable(const printer *p, const tir_iter *it) {
    if (it->value->kind != TE_VAR)
        return false;
    for (int i = 0; i < p->nloops; i++)
        if (p->loops[i]->loop_var == it->value->var)
            return p->loops[i]->extent == it->extent;
    return false;
}

static void print_one_iter(printer *p, const tir_iter *it, int depth) {
    ind(p->out, depth);
    sbuf_printf(p->out, "%s = T.axis.%s(%lld, ", it->var->name, it->reduce ? "reduce" : "spatial",
                (long long)it->extent);
    tir_print_expr(p->out, it->value);
    sbuf_puts(p->out, ")\n");
}

/* Prints the pending run [from, to) of remappable iters. */
static void flush_remap(printer *p, const tir_block *b, int from, int to, int depth) {
    if (to - from == 1)
        print_one_iter(p, &b->iters[from], depth);
    if (to - from < 2)
        return;
    ind(p->out, depth);
    for (int i = from; i < to; i++)
        sbuf_printf(p->out, i > from ? ", %s" : "%s", b->iters[i].var->name);
    sbuf_puts(p->out, " = T.axis.remap(\"");
    for (int i = from; i < to; i++)
        sbuf_puts(p->out, b->iters[i].reduce ? "R" : "S");
    sbuf_puts(p->out, "\", [");
    for (int i = from; i < to; i++)
        sbuf_printf(p->out, i > from ? ", %s" : "%s", b->iters[i].value->var->name);
    sbuf_puts(p->out, "])\n");
}

static void print_iters(printer *p, const tir_block *b, int depth) {
    int run = 0;
    for (int i = 0; i < b->niters; i++) {
        if (remappable(p, &b->iters[i]))
            continue;
        flush_remap(p, b, run, i, depth);
        print_one_iter(p, &b->iters[i], depth);
        run = i + 1;
    }
    flush_remap(p, b, run, b->niters, depth);
}

static void print_block(printer *p, const tir_block *b, int depth) {
    sbuf *out = p->out;
    ind(out, depth);
    sbuf_printf(out, "with T.block(\"%s\"):\n", b->name);
    depth++;
    print_iters(p, b, depth);
    if (b->where) {
        ind(out, depth);
        sbuf_puts(out, "T.where(");
        tir_print_expr(out, b->where);
        sbuf_puts(out, ")\n");
    }
    tir_regions reads = {0}, writes = {0};
    if (tir_block_regions(p->s, b, &reads, &writes)) {
        print_regions(out, "reads", &reads, depth);
        print_regions(out, "writes", &writes, depth);
    }
    if (b->anns.n) {
        ind(out, depth);
        sbuf_puts(out, "T.block_attr(");
        tir_print_anns(out, &b->anns);
        sbuf_puts(out, ")\n");
    }
    for (int i = 0; i < b->allocs.n; i++)
        print_alloc(out, b->allocs.ptr[i], depth);
    if (b->init) {
        ind(out, depth);
        sbuf_puts(out, "with T.init():\n");
        print_stmt(p, b->init, depth + 1);
    }
    print_stmt(p, b->body, depth);
}

static bool plain_serial(const tir_stmt *st) {
    return st->kind == TS_FOR && st->for_kind == TIR_SERIAL && !st->anns.n;
}

static void print_for(printer *p, const tir_stmt *st, int depth) {
    const tir_stmt *chain[TIR_MAX_LOOPS];
    int n = 0;
    sbuf *out = p->out;
    if (plain_serial(st))
        for (const tir_stmt *x = st; plain_serial(x) && n < TIR_MAX_LOOPS; x = x->body)
            chain[n++] = x;
    else
        chain[n++] = st;
    ind(out, depth);
    sbuf_puts(out, "for ");
    for (int i = 0; i < n; i++)
        sbuf_printf(out, i ? ", %s" : "%s", chain[i]->loop_var->name);
    static const char *const kinds[] = {"T.serial", "T.unroll", "T.vectorized", "T.thread_binding",
                                        "T.parallel"};
    if (n > 1) {
        sbuf_puts(out, " in T.grid(");
        for (int i = 0; i < n; i++)
            sbuf_printf(out, i ? ", %lld" : "%lld", (long long)chain[i]->extent);
        sbuf_puts(out, "):\n");
    } else if (st->for_kind == TIR_SERIAL && !st->anns.n)
        sbuf_printf(out, " in range(%lld):\n", (long long)st->extent);
    else {
        sbuf_printf(out, " in %s(%lld", kinds[st->for_kind], (long long)st->extent);
        if (st->for_kind == TIR_THREAD)
            sbuf_printf(out, ", thread=\"%s\"", st->thread);
        if (st->anns.n) {
            sbuf_puts(out, ", annotations=");
            tir_print_anns(out, &st->anns);
        }
        sbuf_puts(out, "):\n");
    }
    int saved = p->nloops;
    for (int i = 0; i < n && p->nloops < (int)(sizeof p->loops / sizeof p->loops[0]); i++)
        p->loops[p->nloops++] = chain[i];
    print_stmt(p, chain[n - 1]->body, depth + 1);
    p->nloops = saved;
}

static void print_store(sbuf *out, const tir_stmt *st, int depth) {
    ind(out, depth);
    sbuf_printf(out, "%s[", st->buf->name);
    for (int i = 0; i < st->nidx; i++) {
        sbuf_puts(out, i ? ", " : "");
        tir_print_expr(out, st->idx[i]);
    }
    sbuf_puts(out, "] = ");
    tir_print_expr(out, st->value);
    sbuf_puts(out, "\n");
}

static void print_stmt(printer *p, const tir_stmt *st, int depth) {
    switch (st->kind) {
    case TS_SEQ:
        for (int i = 0; i < st->seq.n; i++)
            print_stmt(p, st->seq.ptr[i], depth);
        return;
    case TS_FOR:
        print_for(p, st, depth);
        return;
    case TS_STORE:
        print_store(p->out, st, depth);
        return;
    case TS_BLOCK:
        print_block(p, st->block, depth);
        return;
    }
}

/* TVM prints global_symbol when it is not the function's name in the module ("main"
   for a lone function) and "tir.noalias" when the function has it. */
static void print_func_attr(wf_tir *s, sbuf *out, int depth) {
    const char *gvar = s->in_module ? s->fname : "main";
    bool sym = strcmp(s->name, gvar) != 0;
    if (!sym && !s->noalias)
        return;
    ind(out, depth);
    sbuf_puts(out, "T.func_attr({");
    if (sym)
        sbuf_printf(out, "\"global_symbol\": \"%s\"", s->name);
    if (s->noalias)
        sbuf_printf(out, "%s\"tir.noalias\": %s", sym ? ", " : "",
                    s->noalias == 1 ? "True" : "False");
    sbuf_puts(out, "})\n");
}

void tir_print(wf_tir *s, sbuf *out) {
    int d = s->in_module;
    if (s->in_module)
        sbuf_printf(out,
                    "# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n"
                    "@I.ir_module\nclass %s:\n    @T.prim_func\n    def %s(",
                    s->module, s->fname);
    else
        sbuf_puts(out, "# from tvm.script import tir as T\n\n@T.prim_func\ndef main(");
    for (int i = 0; i < s->params.n; i++) {
        const tir_buffer *b = s->params.ptr[i];
        sbuf_printf(out, "%s%s: T.Buffer(", i ? ", " : "", b->name);
        print_shape(out, b);
        sbuf_printf(out, ", \"%s\")", tir_dtype_name(b->dtype));
    }
    sbuf_puts(out, "):\n");
    print_func_attr(s, out, d + 1);
    ind(out, d + 1);
    sbuf_puts(out, "# with T.block(\"root\"):\n");
    for (int i = 0; i < s->root_allocs.n; i++)
        print_alloc(out, s->root_allocs.ptr[i], d + 1);
    printer p = {.out = out, .s = s};
    print_stmt(&p, s->body, d + 1);
}
