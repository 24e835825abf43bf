/*
 * dot.c -- the public entry points of the IterDomain-graph diagram:
 * wf_print_dot (to a FILE) and wf_dot_string (kept in the fusion, for
 * bindings), both over ir_print_dot.
 *
 * Like the other printers they only read the fusion and print even when its
 * sticky error is set (a picture of the schedule helps most when it failed).
 * The hook for TMA (seed 001): once a TMA analysis classifies IterDomains
 * as box, coordinate, tile or stride, render_dot passes one ir_dot_role per
 * IterDomain id and the diagram colours them as the seed's figures do; until
 * then no IterDomain has a TMA role and none is coloured as one.
 */
#include "api/api.h"

/* No TMA analysis exists yet, so no IterDomain has a TMA role: roles is
   NULL. The TMA pass fills one ir_dot_role per IterDomain id here. */
static void render_dot(sbuf *b, const wf_tv *tv) {
    const uint8_t *roles = NULL;
    ir_print_dot(b, tv, roles);
}

void wf_print_dot(wf_tv *tv, FILE *out) {
    if (!tv || !out)
        return;
    sbuf b = {0};
    render_dot(&b, tv);
    fputs(sbuf_str(&b), out);
    sbuf_free(&b);
}

const char *wf_dot_string(wf_tv *tv) {
    if (!tv)
        return NULL;
    sbuf b = {0};
    render_dot(&b, tv);
    return api_keep_text(tv->f, &b);
}
