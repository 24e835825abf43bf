/*
 * annot.c -- annotations of loops and blocks: TVM's annotate / unannotate, the
 * `annotations={...}` of a loop and T.block_attr({...}) of a block.
 *
 * A value is kept as the text TVMScript prints for it: an int (16), a float (1.5, in
 * TVM's float layout), a "string", True / False, or a [list] of values ([0, 0, 1],
 * storage_align's [[0, 0, 32, 1]]). Values are checked and normalized once, when they
 * come in (from the C API or the parser); the keys of one loop or block are kept
 * sorted, as TVM's printer sorts them. Annotations change no computation: the build
 * reads only the keys it knows (build.c).
 */
#include "tir/tir.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *p, *end;
    sbuf *out;
    const char *why;
    int depth;
} vscan;

static void skip_space(vscan *v) {
    while (v->p < v->end && (*v->p == ' ' || *v->p == '\t' || *v->p == '\n'))
        v->p++;
}

static bool is_word(vscan *v, const char *w) {
    size_t n = strlen(w);
    return (size_t)(v->end - v->p) >= n && !strncmp(v->p, w, n) &&
           (v->p + n == v->end || !isalnum((unsigned char)v->p[n]));
}

static bool scan_number(vscan *v) {
    char buf[64];
    size_t n = 0;
    while (v->p + n < v->end && n + 1 < sizeof buf &&
           (isalnum((unsigned char)v->p[n]) || strchr("+-.", v->p[n])))
        n++;
    memcpy(buf, v->p, n);
    buf[n] = 0;
    char *e;
    long long i = strtoll(buf, &e, 10);
    if (n && *e == 0) {
        sbuf_printf(v->out, "%lld", i);
        v->p += n;
        return true;
    }
    double d = strtod(buf, &e);
    if (!n || *e != 0) {
        v->why = "not a number";
        return false;
    }
    tir_print_float(v->out, d);
    v->p += n;
    return true;
}

static bool scan_value(vscan *v) {
    skip_space(v);
    if (v->p == v->end) {
        v->why = "nothing where a value belongs";
        return false;
    }
    if (*v->p == '"') {
        const char *q = v->p + 1;
        while (q < v->end && *q != '"' && *q != '\\')
            q++;
        if (q == v->end || *q != '"') {
            v->why = "a string without its closing quote (or with a backslash)";
            return false;
        }
        sbuf_printf(v->out, "%.*s", (int)(q + 1 - v->p), v->p);
        v->p = q + 1;
        return true;
    }
    if (*v->p == '[') {
        if (++v->depth > 8) {
            v->why = "lists nested more than 8 deep";
            return false;
        }
        v->p++;
        sbuf_puts(v->out, "[");
        skip_space(v);
        for (int i = 0; v->p < v->end && *v->p != ']'; i++) {
            sbuf_puts(v->out, i ? ", " : "");
            if (!scan_value(v))
                return false;
            skip_space(v);
            if (v->p < v->end && *v->p == ',')
                v->p++, skip_space(v);
            else
                break;
        }
        if (v->p == v->end || *v->p != ']') {
            v->why = "a list without its closing ']'";
            return false;
        }
        v->p++, v->depth--;
        sbuf_puts(v->out, "]");
        return true;
    }
    if (is_word(v, "True") || is_word(v, "False")) {
        bool t = *v->p == 'T';
        sbuf_puts(v->out, t ? "True" : "False");
        v->p += t ? 4 : 5;
        return true;
    }
    if (isdigit((unsigned char)*v->p) || *v->p == '-' || *v->p == '.')
        return scan_number(v);
    v->why = "not an int, a float, a \"string\", True, False or a [list] of them";
    return false;
}

const char *tir_ann_value(wf_tir *s, const char *text, size_t len, const char **why) {
    sbuf out = {0};
    vscan v = {text, text + len, &out, NULL, 0};
    bool ok = scan_value(&v);
    skip_space(&v);
    if (ok && v.p != v.end)
        ok = false, v.why = "more after the value";
    *why = v.why;
    const char *r = ok && !out.oom ? arena_strdup(&s->arena, sbuf_str(&out)) : NULL;
    if (ok && out.oom)
        err_fail(&s->err, WF_ERR_MEMORY, "out of memory");
    sbuf_free(&out);
    return r;
}

bool tir_ann_set(wf_tir *s, tir_anns *anns, const char *key, const char *value) {
    int at = 0;
    for (; at < anns->n; at++) {
        int c = strcmp(anns->ptr[at].key, key);
        if (c == 0) {
            anns->ptr[at].value = value;
            return true;
        }
        if (c > 0)
            break;
    }
    tir_ann a = {arena_strdup(&s->arena, key), value};
    if (!a.key || !vec_push_arena(&s->arena, anns, a))
        return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    memmove(anns->ptr + at + 1, anns->ptr + at, sizeof a * (size_t)(anns->n - 1 - at));
    anns->ptr[at] = a;
    return true;
}

bool tir_ann_remove(tir_anns *anns, const char *key) {
    for (int i = 0; i < anns->n; i++)
        if (!strcmp(anns->ptr[i].key, key)) {
            memmove(anns->ptr + i, anns->ptr + i + 1,
                    sizeof anns->ptr[0] * (size_t)(anns->n - 1 - i));
            anns->n--;
            return true;
        }
    return false;
}

bool tir_ann_copy(wf_tir *s, tir_anns *to, const tir_anns *from) {
    memset(to, 0, sizeof *to);
    for (int i = 0; i < from->n; i++)
        if (!vec_push_arena(&s->arena, to, from->ptr[i]))
            return err_failb(&s->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

const char *tir_ann_get(const tir_anns *anns, const char *key) {
    for (int i = 0; i < anns->n; i++)
        if (!strcmp(anns->ptr[i].key, key))
            return anns->ptr[i].value;
    return NULL;
}
