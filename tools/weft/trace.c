/*
 * trace.c -- `weft tir FILE --schedule TRACE.py`: a schedule trace applied to a
 * parsed TVMScript program. A trace is Python lines as TVM prints `sch.trace`
 * (and as weft's wf_tir_trace writes them):
 *
 *     b0 = sch.get_block(name="B", func_name="main")
 *     l1, l2 = sch.get_loops(block=b0)
 *     l3, l4 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True)
 *     sch.bind(loop=l3, thread_axis="blockIdx.x")
 *
 * Arguments are keywords or positional, in TVM's order. Blank lines, comments,
 * `def ...:` headers (TVM's `apply_trace`) and lines that do not call `sch.` are
 * skipped; indentation is ignored. Every primitive of include/weft.h's TensorIR
 * section is understood; an unknown one, an unknown variable or a malformed
 * line stops with "TRACE:LINE: what". Uses only weft.h.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "weft.h"

#define MAXARGS 8
#define MAXLIST 16
#define MAXVARS 256

typedef enum { A_NONE, A_NAME, A_INT, A_STR, A_BOOL, A_LIST } arg_kind;

typedef struct {
    arg_kind kind;
    char key[32]; /* "" when positional */
    char text[128];
    int64_t num;
    int nlist;
    arg_kind list_kind[MAXLIST];
    int64_t list_num[MAXLIST];
    char list_text[MAXLIST][32];
} arg;

typedef struct {
    char name[32];
    bool is_loop;
    void *ptr;
} var;

typedef struct {
    wf_tir *s;
    const char *path;
    int line;
    var vars[MAXVARS];
    int nvars;
    char err[256];
} trace_ctx;

static bool fail(trace_ctx *c, const char *msg, const char *what) {
    snprintf(c->err, sizeof c->err, "%s:%d: %s%s", c->path, c->line, msg, what ? what : "");
    return false;
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *ident(const char *p, char *out, size_t cap) {
    size_t n = 0;
    while ((isalnum((unsigned char)*p) || *p == '_') && n + 1 < cap)
        out[n++] = *p++;
    out[n] = '\0';
    return n ? p : NULL;
}

/* One scalar value: a name, None/True/False, an integer or a string. */
static const char *scalar(const char *p, arg_kind *kind, int64_t *num, char *text, size_t cap) {
    p = skip_ws(p);
    if (*p == '"' || *p == '\'') {
        char q = *p++;
        size_t n = 0;
        while (*p && *p != q && n + 1 < cap)
            text[n++] = *p++;
        text[n] = '\0';
        *kind = A_STR;
        return *p == q ? p + 1 : NULL;
    }
    if (*p == '-' || isdigit((unsigned char)*p)) {
        char *end;
        *num = strtoll(p, &end, 0);
        *kind = A_INT;
        return end != p ? end : NULL;
    }
    const char *e = ident(p, text, cap);
    if (!e)
        return NULL;
    *kind = !strcmp(text, "None")                             ? A_NONE
            : !strcmp(text, "True") || !strcmp(text, "False") ? A_BOOL
                                                              : A_NAME;
    *num = !strcmp(text, "True");
    return e;
}

static const char *value(const char *p, arg *a) {
    p = skip_ws(p);
    if (*p != '[')
        return scalar(p, &a->kind, &a->num, a->text, sizeof a->text);
    a->kind = A_LIST;
    p = skip_ws(p + 1);
    while (*p != ']') {
        if (a->nlist == MAXLIST)
            return NULL;
        int i = a->nlist++;
        p = scalar(p, &a->list_kind[i], &a->list_num[i], a->list_text[i], sizeof a->list_text[i]);
        if (!p)
            return NULL;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ']')
            return NULL;
    }
    return p + 1;
}

/* The argument named key, else the positional one at pos (NULL if neither). */
static const arg *get(const arg *args, int n, const char *key, int pos) {
    for (int i = 0; i < n; i++)
        if (!strcmp(args[i].key, key))
            return &args[i];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!args[i].key[0] && k++ == pos)
            return &args[i];
    return NULL;
}

static void *lookup(trace_ctx *c, const char *name, bool loop) {
    for (int i = c->nvars - 1; i >= 0; i--)
        if (!strcmp(c->vars[i].name, name) && c->vars[i].is_loop == loop)
            return c->vars[i].ptr;
    return NULL;
}

static bool bind_var(trace_ctx *c, const char *name, bool loop, void *ptr) {
    if (c->nvars == MAXVARS)
        return fail(c, "too many variables", NULL);
    var *v = &c->vars[c->nvars++];
    snprintf(v->name, sizeof v->name, "%s", name);
    v->is_loop = loop, v->ptr = ptr;
    return true;
}

/* The block or loop an argument names. */
static void *handle(trace_ctx *c, const arg *a, bool loop, const char *what) {
    void *p = a && a->kind == A_NAME ? lookup(c, a->text, loop) : NULL;
    if (!p) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s: expected a %s variable, got ", what,
                 loop ? "loop" : "block");
        fail(c, msg, a ? (a->kind == A_NAME ? a->text : "a value") : "nothing");
    }
    return p;
}

static const char *str_arg(trace_ctx *c, const arg *a, const char *what) {
    if (a && a->kind == A_STR)
        return a->text;
    fail(c, what, ": expected a string");
    return NULL;
}

static bool int_arg(trace_ctx *c, const arg *a, const char *what, int64_t dflt, int64_t *out) {
    if (!a)
        return *out = dflt, true;
    if (a->kind != A_INT)
        return fail(c, what, ": expected an integer");
    *out = a->num;
    return true;
}

/* Bind the call's results to the names left of '='. */
static bool results(trace_ctx *c, char (*lhs)[32], int nlhs, bool loop, void *const *ptrs, int n) {
    if (nlhs && nlhs != n) {
        char msg[96];
        snprintf(msg, sizeof msg, "%d names for %d results", nlhs, n);
        return fail(c, msg, NULL);
    }
    for (int i = 0; i < nlhs; i++)
        if (strcmp(lhs[i], "_") && !bind_var(c, lhs[i], loop, ptrs[i]))
            return false;
    return true;
}

static bool call(trace_ctx *c, const char *fn, const arg *args, int n, char (*lhs)[32], int nlhs) {
    wf_tir *s = c->s;
    if (!strcmp(fn, "get_block")) {
        const char *name = str_arg(c, get(args, n, "name", 0), "get_block: name");
        void *b = name ? wf_tir_get_block(s, name) : NULL;
        return name && (!b || results(c, lhs, nlhs, false, &b, 1));
    }
    if (!strcmp(fn, "get_loops")) {
        wf_tir_block *b = handle(c, get(args, n, "block", 0), false, "get_loops: block");
        wf_tir_loop *loops[MAXLIST];
        int k = b ? wf_tir_get_loops(s, b, loops, MAXLIST) : 0;
        return b && (k < 0 || k > MAXLIST || results(c, lhs, nlhs, true, (void **)loops, k));
    }
    if (!strcmp(fn, "split")) {
        wf_tir_loop *l = handle(c, get(args, n, "loop", 0), true, "split: loop");
        const arg *f = get(args, n, "factors", 1);
        if (!l)
            return false;
        if (!f || f->kind != A_LIST || f->nlist < 1)
            return fail(c, "split: factors: expected a list such as [None, 32]", NULL);
        int64_t factors[MAXLIST];
        for (int i = 0; i < f->nlist; i++) {
            if (f->list_kind[i] != A_INT && f->list_kind[i] != A_NONE)
                return fail(c, "split: factors: expected integers and at most one None", NULL);
            factors[i] = f->list_kind[i] == A_NONE ? -1 : f->list_num[i];
        }
        wf_tir_loop *out[MAXLIST] = {NULL};
        wf_tir_split(s, l, f->nlist, factors, out);
        return wf_tir_status(s) != WF_OK || results(c, lhs, nlhs, true, (void **)out, f->nlist);
    }
    if (!strcmp(fn, "fuse") || !strcmp(fn, "reorder")) {
        wf_tir_loop *loops[MAXARGS];
        int k = 0;
        for (int i = 0; i < n; i++)
            if (!args[i].key[0] && !(loops[k++] = handle(c, &args[i], true, fn)))
                return false;
        if (!strcmp(fn, "reorder")) {
            wf_tir_reorder(s, k, loops);
            return true;
        }
        void *fused = wf_tir_fuse(s, k, loops);
        return !fused || results(c, lhs, nlhs, true, &fused, 1);
    }
    if (!strcmp(fn, "bind")) {
        wf_tir_loop *l = handle(c, get(args, n, "loop", 0), true, "bind: loop");
        const char *axis =
            l ? str_arg(c, get(args, n, "thread_axis", 1), "bind: thread_axis") : NULL;
        if (axis)
            wf_tir_bind(s, l, axis);
        return axis != NULL;
    }
    if (!strcmp(fn, "vectorize") || !strcmp(fn, "unroll")) {
        wf_tir_loop *l = handle(c, get(args, n, "loop", 0), true, fn);
        if (l)
            (fn[0] == 'v' ? wf_tir_vectorize : wf_tir_unroll)(s, l);
        return l != NULL;
    }
    if (!strcmp(fn, "cache_read") || !strcmp(fn, "cache_write")) {
        bool rd = fn[6] == 'r';
        wf_tir_block *b = handle(c, get(args, n, "block", 0), false, fn);
        int64_t idx;
        if (!b || !int_arg(c, get(args, n, rd ? "read_buffer_index" : "write_buffer_index", 1), fn,
                           -1, &idx))
            return false;
        if (idx < 0)
            return fail(c, fn, ": expected a buffer index");
        const char *scope = str_arg(c, get(args, n, "storage_scope", 2), fn);
        if (!scope)
            return false;
        void *nb = (rd ? wf_tir_cache_read : wf_tir_cache_write)(s, b, (int)idx, scope);
        return !nb || results(c, lhs, nlhs, false, &nb, 1);
    }
    if (!strcmp(fn, "compute_at") || !strcmp(fn, "reverse_compute_at")) {
        wf_tir_block *b = handle(c, get(args, n, "block", 0), false, fn);
        wf_tir_loop *l = b ? handle(c, get(args, n, "loop", 1), true, fn) : NULL;
        if (l)
            (fn[0] == 'c' ? wf_tir_compute_at : wf_tir_reverse_compute_at)(s, b, l);
        return l != NULL;
    }
    if (!strcmp(fn, "compute_inline") || !strcmp(fn, "reverse_compute_inline")) {
        wf_tir_block *b = handle(c, get(args, n, "block", 0), false, fn);
        if (b)
            (fn[0] == 'c' ? wf_tir_compute_inline : wf_tir_reverse_compute_inline)(s, b);
        return b != NULL;
    }
    if (!strcmp(fn, "rfactor")) {
        wf_tir_loop *l = handle(c, get(args, n, "loop", 0), true, "rfactor: loop");
        int64_t axis;
        if (!l || !int_arg(c, get(args, n, "factor_axis", 1), "rfactor: factor_axis", 0, &axis))
            return false;
        void *rf = wf_tir_rfactor(s, l, (int)axis);
        return !rf || results(c, lhs, nlhs, false, &rf, 1);
    }
    return fail(c, "unknown schedule primitive sch.", fn);
}

/* One line: [NAMES =] sch.FN(ARGS). */
static bool line(trace_ctx *c, const char *p) {
    p = skip_ws(p);
    if (!*p || *p == '#' || !strncmp(p, "def ", 4) || !strstr(p, "sch."))
        return true;
    char lhs[MAXLIST][32];
    int nlhs = 0;
    const char *call_at = strstr(p, "sch.");
    const char *eq = strchr(p, '=');
    if (eq && eq < call_at) {
        while (p < eq) {
            if (nlhs == MAXLIST || !(p = ident(skip_ws(p), lhs[nlhs++], 32)))
                return fail(c, "expected names before '='", NULL);
            p = skip_ws(p);
            if (*p == ',')
                p++;
            else if (p != eq)
                return fail(c, "expected names before '='", NULL);
        }
    }
    char fn[32];
    p = ident(call_at + 4, fn, sizeof fn);
    if (!p || *(p = skip_ws(p)) != '(')
        return fail(c, "expected sch.PRIMITIVE(...)", NULL);
    arg args[MAXARGS];
    int n = 0;
    p = skip_ws(p + 1);
    while (*p != ')') {
        if (n == MAXARGS)
            return fail(c, "too many arguments", NULL);
        arg *a = memset(&args[n++], 0, sizeof *a);
        const char *q = ident(p, a->key, sizeof a->key);
        if (q && *skip_ws(q) == '=' && skip_ws(q)[1] != '=')
            p = skip_ws(q) + 1;
        else
            a->key[0] = '\0';
        if (!(p = value(p, a)))
            return fail(c, "cannot read the arguments of sch.", fn);
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')')
            return fail(c, "cannot read the arguments of sch.", fn);
    }
    if (!call(c, fn, args, n, lhs, nlhs))
        return false;
    if (wf_tir_status(c->s) != WF_OK)
        return fail(c, wf_tir_error(c->s), NULL);
    return true;
}

int cli_tir_apply_trace(struct wf_tir *s, const char *path, const char *text) {
    trace_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "weft: out of memory\n");
        return 1;
    }
    c->s = s, c->path = path;
    int rc = 0;
    for (const char *p = text; *p && !rc;) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char buf[1024];
        c->line++;
        if (len >= sizeof buf) {
            fail(c, "line too long", NULL);
            rc = 1;
        } else {
            memcpy(buf, p, len);
            buf[len] = '\0';
            rc = line(c, buf) ? 0 : 1;
        }
        p = end ? end + 1 : p + len;
    }
    if (rc)
        fprintf(stderr, "weft: %s\n", c->err);
    free(c);
    return rc;
}
