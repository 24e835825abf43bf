/*
 * tma.c -- the TMA entry points (seed 001; API.md "Additions"): the tensor
 * maps a compiled kernel issues (inferred by lower/tma.c), circular
 * buffering's stage count, the convenience that schedules a
 * shared-memory tensor's allocation into TMA's swizzle pattern, and the
 * box / coordinate classification the IterDomain diagram colours (dot.c).
 */
#include "api/api.h"

#include <stdlib.h>

#include "base/heap.h"

int wf_kernel_tma_count(const wf_kernel *k) {
    return k ? k->ntmas : 0;
}

const wf_tma_info *wf_kernel_tma(const wf_kernel *k, int i) {
    return k && i >= 0 && i < k->ntmas ? &k->tmas[i].info : NULL;
}

void wf_tv_circular_buffer(wf_tv *tv, int stages) {
    TV_GATE(tv, );
    if (stages < 1) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.circular_buffer: %d stages; give at least 1 (1 = no circular buffering)",
                 tv->id, stages);
        return;
    }
    if (tv->mem != WF_MEM_SHARED) {
        err_fail(&tv->f->err, WF_ERR_ARG,
                 "T%d.circular_buffer: only a shared-memory tensor loaded by TMA is circular "
                 "buffered, but T%d is in %s memory",
                 tv->id, tv->id, ir_memtype_name(tv->mem));
        return;
    }
    tv->stages = stages;
}

/* The two innermost loop axes of tv must be a tile of rows x (swizzle bytes). */
static bool swizzle_args(wf_tv *tv, int sw, int64_t *rows) {
    wf_err *e = &tv->f->err;
    if (sw != 32 && sw != 64 && sw != 128)
        return err_failb(e, WF_ERR_ARG, "T%d.tma_swizzle: %d bytes; TMA swizzles 32, 64 or 128",
                         tv->id, sw);
    if (tv->mem != WF_MEM_SHARED || tv->loop.n < 2)
        return err_failb(e, WF_ERR_ARG,
                         "T%d.tma_swizzle: needs a shared-memory tensor with at least two axes",
                         tv->id);
    int64_t es = (int64_t)wf_dtype_size(tv->dtype),
            cols = ir_id_const_extent(tv->loop.ptr[tv->loop.n - 1]);
    *rows = ir_id_const_extent(tv->loop.ptr[tv->loop.n - 2]);
    if (cols * es != sw || *rows <= 0 || *rows % 8 != 0) {
        sbuf b = {0};
        ir_print_id(&b, tv->loop.ptr[tv->loop.n - 2]);
        sbuf_puts(&b, " x ");
        ir_print_id(&b, tv->loop.ptr[tv->loop.n - 1]);
        err_failb(e, WF_ERR_ARG,
                  "T%d.tma_swizzle: the innermost axes %s must be rows (a multiple of 8) of "
                  "exactly %d bytes (%lld elements of %s) for a %d-byte swizzle",
                  tv->id, sbuf_str(&b), sw, (long long)(sw / es), ir_dtype_short(tv->dtype), sw);
        sbuf_free(&b);
        return false;
    }
    return true;
}

void wf_tv_tma_swizzle(wf_tv *tv, int sw) {
    TV_GATE(tv, );
    int64_t rows;
    if (!swizzle_args(tv, sw, &rows))
        return;
    wf_fusion *f = tv->f;
    int n = tv->loop.n, s = sw / 16;
    int64_t es = (int64_t)wf_dtype_size(tv->dtype);
    /* [..., rows, cols] -> [..., -1, s, 8/s, s, 16 bytes], the XOR of the two s axes */
    id_transform *c = ir_split(f, tv->loop.ptr[n - 1], 16 / es, true);
    id_transform *r = c ? ir_split(f, tv->loop.ptr[n - 2], 8 / s, true) : NULL;
    id_transform *ro = r ? ir_split(f, r->out[0], s, true) : NULL;
    id_transform *x = ro ? ir_swizzle(f, ro->out[1], c->out[0]) : NULL;
    wf_iterdomain **ids = ARENA_ARRAY(&f->arena, wf_iterdomain *, n + 3);
    if (!x || !ids) {
        api_failed(f);
        return;
    }
    for (int i = 0; i < n - 2; i++)
        ids[i] = tv->loop.ptr[i];
    wf_iterdomain *tail[5] = {ro->out[0], x->out[0], r->out[1], x->out[1], c->out[1]};
    for (int i = 0; i < 5; i++)
        ids[n - 2 + i] = tail[i];
    sched_set_allocation_domain(tv, n + 3, ids, true);
}

/* ---- the diagram's roles (seed 001, Steps 2-3; the figures' colours) ----
   The classification lower/tma.c starts from, without lowering: an
   IterDomain of the consumer's history is a box (tile) IterDomain when every
   loop axis below it is Bulk, a coordinate one when none is, and neither
   when it is mixed (a partitioned or composited one: the TMA domain's).
   IterDomains below no loop axis (a view made for the allocation, such as
   the swizzle's) take the role their inputs share. A dense tile is its box;
   strided tiles are refused by the compiler, so no stride role arises. */

enum { TILE = 1, COORD = 2 }; /* bits: which kinds of loop axes lie below */

static bool in_loop(const wf_tv *tv, const wf_iterdomain *id) {
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i] == id)
            return true;
    return false;
}

/* TILE | COORD of the loop axes below id; memo[id] = that + 1 once known. */
static int below(const wf_tv *tv, const wf_iterdomain *id, uint8_t *memo) {
    if (memo[id->id])
        return memo[id->id] - 1;
    int s = 0;
    if (in_loop(tv, id))
        s = id->ptype == WF_BULK ? TILE : COORD;
    for (int i = 0; !s && i < id->uses.n; i++) {
        const id_transform *u = id->uses.ptr[i];
        for (int k = 0; k < u->nout; k++)
            if (u->out[k]->tv == tv)
                s |= below(tv, u->out[k], memo);
    }
    memo[id->id] = (uint8_t)(s + 1);
    return s;
}

/* The role id's transform inputs share, or IR_DOT_PLAIN. */
static uint8_t inherited(const wf_iterdomain *id, const uint8_t *roles) {
    if (!id->def)
        return IR_DOT_PLAIN;
    uint8_t r = roles[id->def->in[0]->id];
    for (int k = 1; k < id->def->nin; k++)
        if (roles[id->def->in[k]->id] != r)
            return IR_DOT_PLAIN;
    return r;
}

static bool has_bulk_tile(const wf_tv *tv) {
    for (int i = 0; i < tv->loop.n; i++)
        if (tv->loop.ptr[i]->ptype == WF_BULK)
            return true;
    return false;
}

uint8_t *api_tma_dot_roles(const wf_tv *tv) {
    if (!tv || !tv->def || tv->def->ldst != WF_LDST_TMA || !has_bulk_tile(tv))
        return NULL;
    const wf_fusion *f = tv->f;
    size_t n = (size_t)f->ids.n;
    uint8_t *roles = heap_calloc(n ? n : 1, 1), *memo = heap_calloc(n ? n : 1, 1);
    if (!roles || !memo) { /* no colours rather than no diagram */
        free(roles);
        free(memo);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) { /* ids are in creation order: inputs first */
        const wf_iterdomain *id = f->ids.ptr[i];
        if (id->tv != tv)
            continue;
        int s = below(tv, id, memo);
        roles[i] = s == TILE    ? IR_DOT_BOX
                   : s == COORD ? IR_DOT_COORD
                   : s == 0     ? inherited(id, roles)
                                : IR_DOT_PLAIN;
    }
    free(memo);
    return roles;
}
