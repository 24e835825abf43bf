/*
 * tma.c -- the TMA entry points (seed 001; API.md "Additions"): the tensor
 * maps a compiled kernel issues (inferred by lower/tma.c), circular
 * buffering's stage count, and the convenience that schedules a
 * shared-memory tensor's allocation into TMA's swizzle pattern.
 */
#include "api/api.h"

int wf_kernel_tma_count(const wf_kernel *k) {
    return k ? k->ntmas : 0;
}

const wf_tma_info *wf_kernel_tma(const wf_kernel *k, int i) {
    return k && i >= 0 && i < k->ntmas ? &k->tmas[i].info : NULL;
}

void wf_tv_circular_buffer(wf_tv *tv, int stages) {
    TV_GATE(tv, );
    if (stages < 1) {
        wf_fail(&tv->f->err, WF_ERR_ARG,
                "T%d.circular_buffer: %d stages; give at least 1 (1 = no circular buffering)",
                tv->id, stages);
        return;
    }
    if (tv->mem != WF_MEM_SHARED) {
        wf_fail(&tv->f->err, WF_ERR_ARG,
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
        return wf_failb(e, WF_ERR_ARG, "T%d.tma_swizzle: %d bytes; TMA swizzles 32, 64 or 128",
                        tv->id, sw);
    if (tv->mem != WF_MEM_SHARED || tv->loop.n < 2)
        return wf_failb(e, WF_ERR_ARG,
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
        wf_failb(e, WF_ERR_ARG,
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
