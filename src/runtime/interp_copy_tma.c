/*
 * interp_copy_tma.c -- the executor's TMA copies (seed 001; PTX ISA
 * "cp.async.bulk.tensor", CUDA driver API "cuTensorMapEncodeTiled").
 *
 * The copy is run as the hardware does it from the tensor map, not from
 * the statement's element indices: each issuing thread's box starts at the
 * coordinates the kernel computes; its tile has ceil(boxDim_d /
 * elementStride_d) elements along dimension d, and element (i0, ..., i<r-1>)
 * of the tile (dimension 0 fastest) is at coordinate c_d + i_d *
 * elementStride_d (past the box's end when the stride does not divide it), read
 * from (load) or written to (store) global memory at sum_d coord_d *
 * globalStride_d bytes when every coordinate is inside globalDim, and
 * otherwise zero-filled (load) or skipped (store). In shared memory the tile
 * is dense in tile order, its byte offsets swizzled by the map's mode
 * (16-byte chunk j of each 128-byte row i moves to j ^ (i % 8), masked to
 * the swizzle's width: lower_tma_smem_offset, the function lowering's check
 * of the shared-memory tile uses). A load then completes its box's bytes on its
 * mbarrier, as complete_tx does. The driver's rules on the map are applied
 * at run time with the driver's words, and the shared-memory address must
 * be 128-byte aligned (1024 with a swizzle pattern's 8 rows of the mode's
 * width), so a fault that the GPU would raise is reported here, naming the
 * buffer. Every element goes through the memory model (ix_access).
 */
#include "base/heap.h"
#include "ir/tma_rules.h"
#include "lower/eval.h"
#include "runtime/interp_hw.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const rt_tma *m;
    int64_t gdim[5], gstride[5]; /* elements, bytes */
    int gmem, smem;              /* tensor table indices */
    int mbar;                    /* load: the mbarrier it completes (a circular buffer's stage's) */
    bool load;
} tma_run;

#define DRIVER "cuTensorMapEncodeTiled for T%d: "

/* The driver's rules on the box and its element strides, in its words. */
static bool box_rules(ix_exec *x, const tma_run *r) {
    const wf_tma_info *in = &r->m->info;
    int tv = x->p->tensors[r->gmem].tv;
    for (int d = 0; d < in->rank; d++) {
        if (in->box[d] < 1 || in->box[d] > TMA_MAX_BOX)
            return ix_fail(x, WF_ERR_SCHEDULE, DRIVER TMA_RULE_BOX " (dimension %d is %lld)", tv, d,
                           (long long)in->box[d]);
        if (in->element_strides[d] < 1 || in->element_strides[d] > TMA_MAX_ESTRIDE)
            return ix_fail(x, WF_ERR_SCHEDULE, DRIVER TMA_RULE_ESTRIDE " (dimension %d is %lld)",
                           tv, d, (long long)in->element_strides[d]);
    }
    if (in->element_strides[0] != 1)
        return ix_fail(x, WF_ERR_SCHEDULE, DRIVER TMA_RULE_ESTRIDE0, tv);
    int64_t bytes0 = in->box[0] * (int64_t)wf_dtype_size(in->dtype);
    if (bytes0 % TMA_ALIGN_BYTES != 0)
        return ix_fail(x, WF_ERR_SCHEDULE, DRIVER TMA_RULE_BOX0_BYTES " (it is %lld bytes)", tv,
                       (long long)bytes0);
    return true;
}

static bool driver_rules(ix_exec *x, const in_node *n, tma_run *r) {
    const rt_tma *m = r->m;
    int tv = x->p->tensors[r->gmem].tv;
    if (!box_rules(x, r))
        return false;
    for (int d = 0; d < m->info.rank; d++) {
        if (!rt_eval(x->k, x->l, m->gdim[d], &r->gdim[d]) ||
            !rt_eval(x->k, x->l, m->gstride[d], &r->gstride[d]))
            return ix_fail(x, WF_ERR_SCHEDULE, "cannot evaluate the tensor map of: %s", n->text);
        if (d > 0 && (r->gstride[d] % TMA_ALIGN_BYTES != 0 || r->gstride[d] >= TMA_MAX_STRIDE))
            return ix_fail(x, WF_ERR_SCHEDULE,
                           DRIVER TMA_RULE_STRIDE " (dimension %d is %lld bytes)", tv, d,
                           (long long)r->gstride[d]);
    }
    if ((uintptr_t)x->gdata[r->gmem] % TMA_ALIGN_BYTES != 0)
        return ix_fail(x, WF_ERR_SCHEDULE, DRIVER TMA_RULE_ADDRESS, tv);
    return true;
}

static bool check_smem_align(ix_exec *x, const in_node *n, const tma_run *r, int64_t start) {
    int sw = r->m->info.swizzle_bytes;
    int64_t align = tma_smem_align(sw);
    int64_t es = (int64_t)wf_dtype_size(x->p->tensors[r->smem].dtype);
    int64_t byte = x->off[r->smem] - x->p->tmem_bytes + start * es;
    if (byte % align == 0)
        return true;
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "misaligned shared-memory address: the TMA box of T%d starts at byte %lld of "
                   "shared memory, which is not a multiple of %lld bytes as TMA%s needs, in "
                   "statement: %s",
                   x->p->tensors[r->smem].tv, (long long)byte, (long long)align,
                   sw ? " with this swizzle" : "", n->text);
}

/* One element of the box: lin is its position in box order. */
static bool element(ix_exec *x, const in_node *n, const tma_run *r, int t, const int64_t *coord,
                    int64_t start, int64_t lin) {
    const wf_tma_info *in = &r->m->info;
    int64_t es = (int64_t)wf_dtype_size(in->dtype), goff = 0, rest = lin;
    bool inside = true;
    for (int d = 0; d < in->rank; d++) {
        int64_t tile = lower_tma_tile(in, d);
        int64_t g = coord[d] + rest % tile * in->element_strides[d];
        rest /= tile;
        inside &= g >= 0 && g < r->gdim[d];
        goff += g * r->gstride[d];
    }
    int64_t sidx = start + lower_tma_smem_offset(lin, es, in->swizzle_bytes);
    if (!inside && !r->load)
        return true; /* a store skips what lies outside the tensor */
    unsigned char *s = ix_access(x, n, r->smem, sidx, t, r->load);
    if (!s)
        return false;
    if (r->load) /* in flight until a wait on the mbarrier (interp_hw.c) */
        x->sshadow[x->off[r->smem] + sidx * es].written = 2;
    if (!inside) {
        memset(s, 0, (size_t)es); /* a load fills it with zeros */
        return true;
    }
    unsigned char *g = ix_access(x, n, r->gmem, goff / es, t, !r->load);
    if (!g)
        return false;
    memcpy(r->load ? s : g, r->load ? g : s, (size_t)es);
    return true;
}

static bool issue(ix_exec *x, const in_node *n, const tma_run *r, int t, const int64_t *coord,
                  int64_t start) {
    const wf_tma_info *in = &r->m->info;
    int64_t total = 1;
    for (int d = 0; d < in->rank; d++)
        total *= lower_tma_tile(in, d);
    if (!check_smem_align(x, n, r, start))
        return false;
    for (int64_t lin = 0; lin < total; lin++)
        if (!element(x, n, r, t, coord, start, lin))
            return false;
    int64_t es = (int64_t)wf_dtype_size(in->dtype), lo = x->off[r->smem] + start * es;
    return !r->load || ix_mbar_complete_tx(x, r->mbar, r->m->box_bytes, lo, lo + total * es);
}

/* Coordinates per thread (rank x nthreads) and the box's start in shared memory. */
static bool evaluate(ix_exec *x, const in_node *n, const tma_run *r, int64_t *coords,
                     int64_t *start) {
    int T = x->nthreads, rank = r->m->info.rank;
    const int64_t *v;
    bool vary;
    for (int d = 0; d < rank; d++) {
        if (!ix_eval(x, &n->coord[d], &v, &vary))
            return false;
        for (int t = 0; t < T; t++)
            coords[(size_t)t * (size_t)rank + (size_t)d] = v[vary ? t : 0];
    }
    if (!ix_eval(x, r->load ? &n->out_index : &n->in_index[0], &v, &vary))
        return false;
    for (int t = 0; t < T; t++)
        start[t] = v[vary ? t : 0];
    return true;
}

/* A circular buffer's load completes the mbarrier of its stage (uniform: loops only). */
static bool stage_mbar(ix_exec *x, const in_node *n, tma_run *r) {
    const int64_t *v;
    bool vary;
    r->mbar = r->m->mbar;
    if (!n->mbar_off.n)
        return true;
    if (!ix_eval(x, &n->mbar_off, &v, &vary) || v[0] < 0 || v[0] > 1024)
        return ix_fail(x, WF_ERR_SCHEDULE, "a TMA load's stage is out of range in: %s", n->text);
    r->mbar += (int)v[0];
    return true;
}

bool ix_copy_execute_tma(ix_exec *x, const in_node *n) {
    tma_run r = {.m = &x->k->tmas[n->tma]};
    r.load = !r.m->info.is_store;
    if (!stage_mbar(x, n, &r))
        return false;
    r.gmem = r.load ? n->in[0] : n->out;
    r.smem = r.load ? n->out : n->in[0];
    if (!driver_rules(x, n, &r))
        return false;
    int rank = r.m->info.rank;
    int64_t *coords = heap_calloc((size_t)x->nthreads * (size_t)(rank + 1), sizeof *coords);
    if (!coords)
        return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
    int64_t *start = coords + (size_t)x->nthreads * (size_t)rank;
    bool ok = evaluate(x, n, &r, coords, start);
    if (!ok)
        ix_fail(x, WF_ERR_SCHEDULE, "a TMA coordinate divides by zero or overflows in: %s",
                n->text);
    for (int t = 0; ok && t < x->nthreads; t++)
        if (x->mask[t])
            ok = issue(x, n, &r, t, coords + (size_t)t * (size_t)rank, start[t]);
    free(coords);
    return ok;
}

/* The payload: its tensor map, the box's first coordinates and a circular
   buffer's stage. */
void ix_copy_build_tma(ix_builder *b, in_node *n, const kir_stmt *s) {
    n->tma = s->hw.tma.index;
    for (int d = 0; d < s->hw.tma.rank; d++)
        n->coord[d] = ix_build_expr(b, s->hw.tma.coord[d]);
    if (s->hw.tma.mbar_off)
        n->mbar_off = ix_build_expr(b, s->hw.tma.mbar_off);
}
