/*
 * dot.c -- the public entry points of the IterDomain-graph diagram:
 * wf_print_dot (to a FILE) and wf_dot_string (kept in the fusion, for
 * bindings), both over ir_print_dot.
 *
 * Like the other printers they only read the fusion and print even when its
 * sticky error is set (a picture of the schedule helps most when it failed).
 * TMA (seed 001): for the consumer of a TMA copy (the shared-memory tensor
 * of a load, the global one of a store) render_dot passes one ir_dot_role
 * per IterDomain id, box or coordinate as api_tma_dot_roles (tma.c)
 * classifies them, and the diagram colours them as the seed's figures do:
 * green for box IterDomains, brown for coordinate ones.
 */
#include "api/api.h"

#include <stdlib.h>

static void render_dot(sbuf *b, const wf_tv *tv) {
    uint8_t *roles = api_tma_dot_roles(tv); /* NULL: no TMA copy defines tv */
    ir_print_dot(b, tv, roles);
    free(roles);
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
