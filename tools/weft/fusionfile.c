/*
 * fusionfile.c -- loading a saved fusion (`weft-fusion 1`, written by Python's
 * Fusion.save; the format is in docs/python.md, "Saving a fusion"): a log of the
 * public C calls that built and scheduled it, one per line, replayed here in
 * order through include/weft.h, so the fusion is rebuilt by the same mechanism
 * that built it.
 *
 *   weft-fusion 1
 *   T0 = input f32 [64 32]
 *   T1 = set T0
 *   output T1
 *   split T1 0 16
 *   parallelize T1 1 tidx
 *
 * A line is `[HANDLE =] CALL ARG...`; tokens are separated by blanks, `[` and
 * `]` bracket a list, `#` starts a comment. Handles are T<n> (a tensor: n must
 * be the name weft gives it, wf_tv_name) or S<n> (a scalar constant);
 * IterDomains are T<n>.loop.<i> or T<n>.logical.<i>; enums are spelled as the
 * Python enums' lower-case names (f32, tidx, shared, tma, xor, add ...). Any
 * line weft cannot apply, the library's own refusals included, is reported as
 * "FILE:LINE: what" and the load fails; nothing crashes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "weft.h"

#define MAX_TOKENS 160
#define MAX_LIST   128

static const char *const dtypes[] = {"f32", "f16", "bf16", "f64",  "i8", "i16",
                                     "i32", "i64", "u8",   "bool", NULL};
static const char *const unary_ops[] = {"neg",   "abs",        "exp", "log",  "sqrt",
                                        "rsqrt", "sin",        "cos", "tanh", "sigmoid",
                                        "relu",  "reciprocal", NULL};
static const char *const binary_ops[] = {"add", "sub", "mul", "div", "max", "min", "pow",
                                         "eq",  "ne",  "lt",  "le",  "gt",  "ge",  NULL};
static const char *const ptypes[] = {"serial", "bidx",      "bidy", "bidz", "tidx",
                                     "tidy",   "tidz",      "didx", "didy", "didz",
                                     "unroll", "vectorize", "bulk", "mma",  NULL};
static const char *const memtypes[] = {"global", "local", "shared", "tensor", NULL};
static const char *const ldsts[] = {"set",      "tmem_load", "tmem_store", "tma",
                                    "ldmatrix", "stmatrix",  "cp_async",   NULL};
static const char *const swizzles[] = {"xor", NULL};

/* What a call's arguments are, one letter each:
   t tensor or scalar handle, i integer, f number, d dtype, u unary op, b binary op,
   p parallel type, m memory type, l load/store op, z swizzle,
   I [integers], P [parallel types], X [IterDomains]. */
typedef struct {
    const char *name;
    const char *args;
    char result; /* 'T' a tensor, 'S' a scalar, 0 nothing */
} call;

static const call calls[] = {
    {"input", "dI", 'T'},
    {"input_strided", "dII", 'T'},
    {"full", "df", 'S'},
    {"full_int", "di", 'S'},
    {"set", "t", 'T'},
    {"cast", "td", 'T'},
    {"unary", "ut", 'T'},
    {"binary", "btt", 'T'},
    {"where", "ttt", 'T'},
    {"broadcast", "tI", 'T'},
    {"transpose", "tii", 'T'},
    {"permute", "tI", 'T'},
    {"reduce", "btI", 'T'},
    {"mma", "ttI", 'T'},
    {"matmul", "tt", 'T'},
    {"rfactor", "tI", 'T'},
    {"cache_after", "t", 'T'},
    {"cache_before", "t", 'T'},
    {"output", "t", 0},
    {"split", "tii", 0},
    {"split_outer", "tii", 0},
    {"merge", "ti", 0},
    {"merge_axes", "tii", 0},
    {"reorder", "tI", 0},
    {"reorder_all", "tI", 0},
    {"swizzle", "tzii", 0},
    {"parallelize", "tip", 0},
    {"set_memory", "tm", 0},
    {"set_ldst", "tl", 0},
    {"set_tmem_dimsep", "ti", 0},
    {"set_allocation_domain", "tXi", 0},
    {"set_loop_domain", "tX", 0},
    {"tma_swizzle", "ti", 0},
    {"circular_buffer", "ti", 0},
    {"inline_at", "ti", 0},
    {"inline_all_at", "ti", 0},
    {"loop_broadcast", "ti", 0},
    {"propagate_transforms", "t", 0},
    {"parallelize_all_like", "tP", 0},
    {"inline_most", "", 0},
};
#define NCALLS (int)(sizeof calls / sizeof *calls)

typedef struct {
    char *name; /* "T3", "S0" */
    wf_tv *tv;
} handle;

typedef struct {
    const char *path;
    int line;
    wf_fusion *f;
    handle *h;
    int nh, cap;
    wf_tv *last_output;
} loader;

/* One call's arguments, decoded. */
typedef struct {
    wf_tv *t[3];
    int nt;
    int64_t i[3];
    int ni;
    double num;
    int e[2]; /* enums, in order */
    int ne;
    int64_t list[2][MAX_LIST];
    int nlist[2], nl;
    wf_iterdomain *ids[MAX_LIST];
    int nids;
} args;

static bool fail(loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(loader *L, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "weft: %s:%d: ", L->path, L->line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return false;
}

static wf_tv *lookup(loader *L, const char *name) {
    for (int i = 0; i < L->nh; i++)
        if (strcmp(L->h[i].name, name) == 0)
            return L->h[i].tv;
    return NULL;
}

static bool define(loader *L, const char *name, wf_tv *tv) {
    if (L->nh == L->cap) {
        int cap = L->cap ? 2 * L->cap : 32;
        handle *h = realloc(L->h, (size_t)cap * sizeof *h);
        if (!h)
            return fail(L, "out of memory");
        L->h = h, L->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return fail(L, "out of memory");
    L->h[L->nh++] = (handle){copy, tv};
    return true;
}

/* Splits line into tokens in buf (at least twice line's length): blanks separate them,
   "[" and "]" are tokens of their own, "#" ends the line. The count, -1 if too many. */
static int tokenize(const char *line, char *buf, char **tok) {
    int n = 0;
    bool in = false;
    for (const char *p = line; *p && *p != '#'; p++) {
        bool blank = *p == ' ' || *p == '\t' || *p == '\r', bracket = *p == '[' || *p == ']';
        if (in && (blank || bracket))
            *buf++ = '\0', in = false;
        if (blank)
            continue;
        if (!in) {
            if (n == MAX_TOKENS)
                return -1;
            tok[n++] = buf, in = !bracket;
        }
        *buf++ = *p;
        if (bracket)
            *buf++ = '\0';
    }
    *buf = '\0';
    return n;
}

static bool parse_int(const char *s, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || errno)
        return false;
    *out = v;
    return true;
}

static int enum_of(const char *const *names, const char *s) {
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

static const char *enum_what(char kind, const char *const **names) {
    switch (kind) {
    case 'd':
        *names = dtypes;
        return "a dtype";
    case 'u':
        *names = unary_ops;
        return "a unary op";
    case 'b':
        *names = binary_ops;
        return "a binary op";
    case 'p':
    case 'P':
        *names = ptypes;
        return "a parallel type";
    case 'm':
        *names = memtypes;
        return "a memory type";
    case 'l':
        *names = ldsts;
        return "a load/store op";
    default:
        *names = swizzles;
        return "a swizzle";
    }
}

/* "T3.loop.2" / "T3.logical.0" -> the IterDomain, or NULL with a message. */
static wf_iterdomain *iterdomain(loader *L, const char *fn, const char *s) {
    char name[32];
    const char *dot = strchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : 0;
    if (!dot || n == 0 || n >= sizeof name) {
        fail(L, "%s: expected an IterDomain (T<n>.loop.<i> or T<n>.logical.<i>), got '%s'", fn, s);
        return NULL;
    }
    memcpy(name, s, n);
    name[n] = '\0';
    wf_tv *tv = lookup(L, name);
    if (!tv) {
        fail(L, "%s: %s is not defined above", fn, name);
        return NULL;
    }
    bool loop = strncmp(dot, ".loop.", 6) == 0, logical = strncmp(dot, ".logical.", 9) == 0;
    int64_t i;
    if (!(loop || logical) || !parse_int(dot + (loop ? 6 : 9), &i)) {
        fail(L, "%s: expected an IterDomain (T<n>.loop.<i> or T<n>.logical.<i>), got '%s'", fn, s);
        return NULL;
    }
    int nd;
    wf_iterdomain *const *d = loop ? wf_tv_loop_domain(tv, &nd) : wf_tv_logical_domain(tv, &nd);
    if (i < 0 || i >= nd) {
        fail(L, "%s: %s has %d %s IterDomains; there is no %s", fn, name, nd,
             loop ? "loop" : "logical", s);
        return NULL;
    }
    return d[i];
}

/* Decodes tok[0..n) by the call's signature. */
static bool decode(loader *L, const call *c, char **tok, int n, args *a) {
    int k = 0;
    memset(a, 0, sizeof *a);
    for (const char *s = c->args; *s; s++) {
        int argno = (int)(s - c->args) + 1;
        if (k >= n)
            return fail(L, "%s: argument %d is missing (%s takes %d)", c->name, argno, c->name,
                        (int)strlen(c->args));
        const char *t = tok[k++];
        const char *const *names;
        if (*s == 't') {
            wf_tv *tv = lookup(L, t);
            if (!tv)
                return fail(L, "%s: argument %d: %s is not a tensor defined above", c->name, argno,
                            t);
            a->t[a->nt++] = tv;
        } else if (*s == 'i') {
            if (!parse_int(t, &a->i[a->ni++]))
                return fail(L, "%s: argument %d: expected an integer, got '%s'", c->name, argno, t);
        } else if (*s == 'f') {
            char *end;
            errno = 0;
            a->num = strtod(t, &end);
            if (*end || end == t)
                return fail(L, "%s: argument %d: expected a number, got '%s'", c->name, argno, t);
        } else if (strchr("dubpmlz", *s)) {
            const char *what = enum_what(*s, &names);
            int e = enum_of(names, t);
            if (e < 0)
                return fail(L, "%s: argument %d: '%s' is not %s", c->name, argno, t, what);
            a->e[a->ne++] = e;
        } else { /* a list: I, P or X */
            if (strcmp(t, "[") != 0)
                return fail(L, "%s: argument %d: expected a list [...], got '%s'", c->name, argno,
                            t);
            int m = 0;
            for (; k < n && strcmp(tok[k], "]") != 0; k++, m++) {
                if (m == MAX_LIST)
                    return fail(L, "%s: argument %d: more than %d entries", c->name, argno,
                                MAX_LIST);
                if (*s == 'X') {
                    if (!(a->ids[m] = iterdomain(L, c->name, tok[k])))
                        return false;
                } else if (*s == 'P') {
                    int e = enum_of(ptypes, tok[k]);
                    if (e < 0)
                        return fail(L, "%s: argument %d: '%s' is not a parallel type", c->name,
                                    argno, tok[k]);
                    a->list[a->nl][m] = e;
                } else if (!parse_int(tok[k], &a->list[a->nl][m]))
                    return fail(L, "%s: argument %d: expected an integer, got '%s'", c->name, argno,
                                tok[k]);
            }
            if (k == n)
                return fail(L, "%s: argument %d: the list has no closing ]", c->name, argno);
            k++;
            if (*s == 'X')
                a->nids = m;
            else
                a->nlist[a->nl++] = m;
        }
    }
    if (k < n)
        return fail(L, "%s: unexpected '%s' after its %d arguments", c->name, tok[k],
                    (int)strlen(c->args));
    return true;
}

static int ints(const args *a, int l, int *out) {
    for (int i = 0; i < a->nlist[l]; i++)
        out[i] = (int)a->list[l][i];
    return a->nlist[l];
}

/* Calls c with a; the tensor it returns (NULL for none). */
static wf_tv *apply(loader *L, const call *c, args *a) {
    wf_tv *t = a->t[0], *r = NULL;
    int iv[MAX_LIST], n, p = (int)a->i[0], q = (int)a->i[1];
    const char *nm = c->name;
    if (!strcmp(nm, "input") || !strcmp(nm, "input_strided")) {
        if (a->nlist[0] > 8)
            return fail(L, "%s: %d dims; weft has at most 8", nm, a->nlist[0]), NULL;
        if (nm[5] == '\0')
            return wf_input(L->f, (wf_dtype)a->e[0], a->nlist[0], a->list[0]);
        if (a->nlist[1] != a->nlist[0])
            return fail(L, "input_strided: %d contiguity flags for %d dims", a->nlist[1],
                        a->nlist[0]),
                   NULL;
        int8_t con[8];
        for (int i = 0; i < a->nlist[0]; i++)
            con[i] = (int8_t)a->list[1][i];
        return wf_input_strided(L->f, (wf_dtype)a->e[0], a->nlist[0], a->list[0], con);
    }
    if (!strcmp(nm, "full"))
        return wf_full(L->f, (wf_dtype)a->e[0], a->num);
    if (!strcmp(nm, "full_int"))
        return wf_full_int(L->f, (wf_dtype)a->e[0], a->i[0]);
    if (!strcmp(nm, "set"))
        return wf_set(t);
    if (!strcmp(nm, "cast"))
        return wf_cast(t, (wf_dtype)a->e[0]);
    if (!strcmp(nm, "unary"))
        return wf_unary((wf_unary_op)a->e[0], t);
    if (!strcmp(nm, "binary"))
        return wf_binary((wf_binary_op)a->e[0], t, a->t[1]);
    if (!strcmp(nm, "where"))
        return wf_where(t, a->t[1], a->t[2]);
    if (!strcmp(nm, "broadcast")) {
        bool flags[MAX_LIST];
        for (int i = 0; i < a->nlist[0]; i++)
            flags[i] = a->list[0][i] != 0;
        return wf_broadcast(t, a->nlist[0], flags);
    }
    if (!strcmp(nm, "transpose"))
        return wf_transpose(t, p, q);
    if (!strcmp(nm, "permute")) {
        int nd; /* wf_permute reads one entry per dim */
        n = ints(a, 0, iv);
        wf_tv_logical_domain(t, &nd);
        if (n != nd)
            return fail(L, "permute: %d entries for the %d dims of T%d", n, nd, wf_tv_name(t)),
                   NULL;
        return wf_permute(t, iv);
    }
    if (!strcmp(nm, "reduce"))
        return n = ints(a, 0, iv), wf_reduce((wf_binary_op)a->e[0], t, n, iv);
    if (!strcmp(nm, "mma"))
        return n = ints(a, 0, iv), wf_mma(t, a->t[1], n, iv);
    if (!strcmp(nm, "matmul"))
        return wf_matmul(t, a->t[1]);
    if (!strcmp(nm, "rfactor"))
        return n = ints(a, 0, iv), wf_tv_rfactor(t, n, iv);
    if (!strcmp(nm, "cache_after"))
        return wf_cache_after(t);
    if (!strcmp(nm, "cache_before"))
        return wf_cache_before(t);
    if (!strcmp(nm, "output"))
        wf_output(L->f, t), L->last_output = t;
    else if (!strcmp(nm, "split"))
        wf_tv_split(t, p, a->i[1]);
    else if (!strcmp(nm, "split_outer"))
        wf_tv_split_outer(t, p, a->i[1]);
    else if (!strcmp(nm, "merge"))
        wf_tv_merge(t, p);
    else if (!strcmp(nm, "merge_axes"))
        wf_tv_merge_axes(t, p, q);
    else if (!strcmp(nm, "reorder")) {
        int pairs[MAX_LIST / 2][2];
        if (a->nlist[0] % 2)
            return fail(L, "reorder: %d entries: give pairs old new", a->nlist[0]), NULL;
        for (int i = 0; i < a->nlist[0] / 2; i++)
            pairs[i][0] = (int)a->list[0][2 * i], pairs[i][1] = (int)a->list[0][2 * i + 1];
        wf_tv_reorder(t, a->nlist[0] / 2, (const int(*)[2])pairs);
    } else if (!strcmp(nm, "reorder_all")) {
        if ((n = ints(a, 0, iv)) != wf_tv_ndim(t))
            return fail(L, "reorder_all: %d entries for the %d loop axes of T%d", n, wf_tv_ndim(t),
                        wf_tv_name(t)),
                   NULL;
        wf_tv_reorder_all(t, iv);
    } else if (!strcmp(nm, "swizzle"))
        wf_tv_swizzle(t, (wf_swizzle)a->e[0], p, q);
    else if (!strcmp(nm, "parallelize"))
        wf_tv_parallelize(t, p, (wf_ptype)a->e[0]);
    else if (!strcmp(nm, "set_memory"))
        wf_tv_set_memory(t, (wf_memtype)a->e[0]);
    else if (!strcmp(nm, "set_ldst"))
        wf_tv_set_ldst(t, (wf_ldst)a->e[0]);
    else if (!strcmp(nm, "set_tmem_dimsep"))
        wf_tv_set_tmem_dimsep(t, p);
    else if (!strcmp(nm, "set_allocation_domain"))
        wf_tv_set_allocation_domain(t, a->nids, a->ids, a->i[0] != 0);
    else if (!strcmp(nm, "set_loop_domain"))
        wf_tv_set_loop_domain(t, a->nids, a->ids);
    else if (!strcmp(nm, "tma_swizzle"))
        wf_tv_tma_swizzle(t, p);
    else if (!strcmp(nm, "circular_buffer"))
        wf_tv_circular_buffer(t, p);
    else if (!strcmp(nm, "inline_at"))
        wf_tv_inline_at(t, p);
    else if (!strcmp(nm, "inline_all_at"))
        wf_inline_all_at(t, p);
    else if (!strcmp(nm, "loop_broadcast"))
        wf_tv_loop_broadcast(t, p);
    else if (!strcmp(nm, "propagate_transforms"))
        wf_propagate_transforms(t);
    else if (!strcmp(nm, "parallelize_all_like")) {
        unsigned mask = 0;
        for (int i = 0; i < a->nlist[0]; i++)
            mask |= 1u << a->list[0][i];
        wf_parallelize_all_like(t, mask);
    } else if (!strcmp(nm, "inline_most"))
        wf_inline_most(L->f);
    return r;
}

static bool load_tokens(loader *L, char **tok, int n);

/* One line of the log; false (the message printed) if it cannot be applied. */
static bool load_line(loader *L, const char *line) {
    char *tok[MAX_TOKENS], *buf = malloc(2 * strlen(line) + 2);
    if (!buf)
        return fail(L, "out of memory");
    bool ok = load_tokens(L, tok, tokenize(line, buf, tok));
    free(buf);
    return ok;
}

static bool load_tokens(loader *L, char **tok, int n) {
    if (n < 0)
        return fail(L, "more than %d tokens on one line", MAX_TOKENS);
    if (n == 0)
        return true;
    const char *result = NULL;
    if (n >= 2 && strcmp(tok[1], "=") == 0) {
        result = tok[0];
        tok += 2, n -= 2;
        if (n == 0)
            return fail(L, "nothing after '%s ='", result);
    }
    const call *c = NULL;
    for (int i = 0; i < NCALLS && !c; i++)
        if (strcmp(calls[i].name, tok[0]) == 0)
            c = &calls[i];
    if (!c)
        return fail(L, "unknown call '%s'", tok[0]);
    if (c->result && !result)
        return fail(L, "%s makes a %s: write '%c<n> = %s ...'", c->name,
                    c->result == 'T' ? "tensor" : "scalar", c->result, c->name);
    if (!c->result && result)
        return fail(L, "%s makes nothing to name '%s'", c->name, result);
    int64_t num = -1;
    if (result && (result[0] != c->result || !parse_int(result + 1, &num) || num < 0))
        return fail(L, "%s makes a %s: name it %c<n>, not '%s'", c->name,
                    c->result == 'T' ? "tensor" : "scalar", c->result, result);
    if (result && lookup(L, result))
        return fail(L, "%s is defined twice", result);
    args a;
    if (!decode(L, c, tok + 1, n - 1, &a))
        return false;
    wf_tv *tv = apply(L, c, &a);
    if (wf_fusion_status(L->f) != WF_OK)
        return fail(L, "%s", wf_fusion_error(L->f));
    if (!c->result)
        return true;
    if (!tv)
        return false; /* apply printed why */
    if (c->result == 'T' && wf_tv_name(tv) != num)
        return fail(L,
                    "%s made T%d, not %s (the lines above do not make the tensors the file "
                    "names; was it edited?)",
                    c->name, wf_tv_name(tv), result);
    return define(L, result, tv);
}

wf_fusion *cli_load_fusion(const char *path, wf_tv **last_output) {
    char *text = cli_read_file(path, "saved fusion (.weft)");
    if (!text)
        return NULL;
    loader L = {path, 1, wf_fusion_new(), NULL, 0, 0, NULL};
    bool ok = L.f != NULL;
    if (!ok)
        fail(&L, "out of memory");
    char *line = text, *next;
    for (; ok && line; line = next, L.line++) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        else if (!*line)
            break;
        if (L.line == 1) {
            int version;
            char extra;
            if (sscanf(line, "weft-fusion %d %c", &version, &extra) != 1)
                ok = fail(&L, "not a saved fusion: the first line must be \"weft-fusion 1\"");
            else if (version != 1)
                ok = fail(&L, "version %d of the weft-fusion format; this weft reads version 1",
                          version);
            continue;
        }
        ok = load_line(&L, line);
    }
    if (ok && L.line == 1)
        ok = fail(&L, "empty file: the first line must be \"weft-fusion 1\"");
    for (int i = 0; i < L.nh; i++)
        free(L.h[i].name);
    free(L.h);
    free(text);
    if (!ok) {
        wf_fusion_free(L.f);
        return NULL;
    }
    *last_output = L.last_output;
    return L.f;
}
