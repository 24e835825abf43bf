/*
 * alloc.c -- allocation of intermediates.
 *
 * lower_alloc: requires loops and pdims; provides an ALLOC node per
 * intermediate tensor, placed at its compute-at scope, sized by seed 000's
 * rules over its allocation domain (which defaults to the loop domain):
 * IDs whose parallel type the memory is distributed across are not
 * allocated, IDs it is shared among always are, the others only right of
 * the compute-at position. Shared buffers get 16-byte-aligned offsets in
 * the one dynamic shared-memory array. Registers need constant sizes.
 * Tensor memory (seed 000) is 2-D: allocation IDs left of the dim-separator
 * give lanes (at most 128), the others columns of 32-bit cells (at most
 * 512, allocated in powers of two of at least 32), one region per tensor.
 * The next pass, reduce (lower/reduce.c), lowers the reductions'
 * allocations and init statements, whose block workspace comes after every
 * shared tensor.
 */
#include "lower/lower_int.h"

#include <stdio.h>

/* Position and parallel type of an allocation ID: its own loop position, or
   that of the loop ID it is exactly mapped to; right of everything if none.
   The parallel type comes from the loop that runs, never from the ID's own
   field: an ID that is not (mapped to) a loop ID runs in no parallel loop,
   whatever it was parallelized on before the loop domain changed, so it is
   serial here and allocated in full. */
static int alloc_position(lower_ctx *c, const wf_tv *tv, const wf_iterdomain *id, wf_ptype *p) {
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < tv->loop.n; i++) {
            const wf_iterdomain *l = tv->loop.ptr[i];
            if (l == id || (pass == 1 && an_mapped(&c->g.exact, l, id))) {
                *p = lower_loop_ptype(c, l);
                return i;
            }
        }
    *p = WF_SERIAL;
    return tv->loop.n;
}

static bool is_allocated(lower_ctx *c, const wf_tv *tv, const wf_iterdomain *id) {
    if (tv->mem == WF_MEM_GLOBAL)
        return true;
    wf_ptype p;
    int pos = alloc_position(c, tv, id, &p);
    if (an_mem_distributed(tv->mem, p))
        return false;
    if (an_mem_shared(tv->mem, p))
        return true;
    return pos >= tv->ca_pos;
}

/* Strides of a global tensor's logical dims: literal when the extents are
   known and contiguous, the tensor's size symbols when symbolic, a stride
   parameter where the user declared a dim non-contiguous. */
static const wf_val *global_stride(lower_ctx *c, wf_tv *tv, int d, const wf_val *inner) {
    if (tv->is_input && tv->contig && !tv->contig[d]) {
        char name[48];
        snprintf(name, sizeof name, "T%d.stride[%d]", tv->id, d);
        return val_sym(c->a, SYM_STRIDE, tv->id, d, name, 0, INT64_MAX, NULL);
    }
    return inner;
}

/* A loop ID shared with a consumer (left of the compute-at position) iterates
   the loop's promoted ID, which may be a broadcast resolved to a real extent:
   if it is allocated (shared memory among threads), allocate the promoted ID,
   so that each thread of the loop gets its own cell (nvFuser's loop promotion).
   A fusion input or output is laid out as the user's buffer is: its
   broadcast dims hold one element, written once (index.c, write_once). */
static wf_iterdomain *promoted(lower_ctx *c, const wf_tv *tv, wf_iterdomain *id) {
    int g = c->loops.group_of[id->id];
    /* A loop-only broadcast marks a loop the tensor does not index: allocated
       without it, every iteration of it rewrites the same cells. */
    if (tv->alloc.n || tv->is_input || tv->is_output || id->loop_only || g < 0 ||
        !c->loops.promoted[g])
        return id;
    for (int i = 0; i < tv->loop.n && i < tv->ca_pos; i++)
        if (tv->loop.ptr[i] == id)
            return c->loops.promoted[g];
    return id;
}

/* Strides over the allocated IDs in [from, to), innermost first, starting at
   `unit`; returns the product of their extents. */
static const wf_val *contiguous(lower_ctx *c, wf_tv *tv, lower_layout *l, int from, int to,
                                const wf_val *unit) {
    const wf_val *stride = unit, *extent = val_const(c->a, 1);
    for (int i = to - 1; i >= from; i--) {
        if (!l->allocated[i])
            continue;
        if (tv->mem == WF_MEM_GLOBAL && !tv->alloc.n)
            stride = global_stride(c, tv, i, stride);
        l->stride[i] = stride;
        stride = val_mul(c->a, stride, l->ids[i]->extent);
        extent = val_mul(c->a, extent, l->ids[i]->extent);
    }
    return extent;
}

static int64_t pow2_at_least(int64_t x, int64_t min) {
    int64_t p = min;
    while (p < x)
        p *= 2;
    return p;
}

/* Tensor memory is 2-D: columns are laid out contiguously within a lane and
   rounded up to a power of two of at least 32 cells; lanes follow. */
static bool tmem_layout(lower_ctx *c, wf_tv *tv, lower_layout *l) {
    int sep = tv->dimsep < 0 ? 0 : tv->dimsep > l->n ? l->n : tv->dimsep;
    int64_t es = (int64_t)wf_dtype_size(tv->dtype);
    const wf_val *cols = contiguous(c, tv, l, sep, l->n, val_const(c->a, 1));
    if (!val_is_const(cols))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: tensor-memory allocations must have constant sizes", tv->id);
    l->cells = (cols->c * es + 3) / 4;
    l->row = pow2_at_least(l->cells, 32) * 4 / es;
    const wf_val *lanes = contiguous(c, tv, l, 0, sep, val_const(c->a, l->row));
    if (!val_is_const(lanes))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: tensor-memory allocations must have constant sizes", tv->id);
    l->lanes = lanes->c;
    l->size = val_const(c->a, l->lanes * l->row);
    return true;
}

bool lower_layout_of(lower_ctx *c, wf_tv *tv, lower_layout *l) {
    const id_list *dom = ir_alloc_domain(tv);
    l->n = dom->n;
    l->ids = ARENA_ARRAY(c->a, wf_iterdomain *, dom->n + 1);
    l->allocated = ARENA_ARRAY(c->a, bool, dom->n + 1);
    l->stride = ARENA_ARRAY(c->a, const wf_val *, dom->n + 1);
    if (!l->ids || !l->allocated || !l->stride)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    l->lanes = l->cells = l->row = 0;
    for (int i = 0; i < dom->n; i++) {
        wf_iterdomain *id = promoted(c, tv, dom->ptr[i]);
        l->ids[i] = id;
        /* Broadcast and reduction axes hold no data of their own. */
        l->allocated[i] = is_allocated(c, tv, dom->ptr[i]) && id->itype != IT_BROADCAST &&
                          dom->ptr[i]->itype != IT_REDUCTION;
        l->stride[i] = NULL;
    }
    if (tv->mem == WF_MEM_TENSOR)
        return tmem_layout(c, tv, l);
    l->size = contiguous(c, tv, l, 0, l->n, val_const(c->a, 1));
    return true;
}

static int first_non_alloc(const kir_list *l) {
    int i = 0;
    while (i < l->n && l->ptr[i]->kind == KIR_ALLOC)
        i++;
    return i;
}

static bool place_alloc(lower_ctx *c, wf_tv *tv, kir_node *n) {
    kir_node *parent = NULL;
    if (tv->mem == WF_MEM_LOCAL && tv->ca_pos > 0) {
        int g = c->loops.group_of[tv->loop.ptr[tv->ca_pos - 1]->id];
        parent = c->group_loop[g];
    }
    kir_list *body = parent ? &parent->u.loop.body : &c->out->top;
    if (!kir_insert(c->a, body, first_non_alloc(body), n, parent))
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    c->alloc_of[tv->id] = n;
    return true;
}

/* One tensor-memory region per tensor, with the seed's limits. */
static bool tmem_region(lower_ctx *c, wf_tv *tv, const lower_layout *l, kir_alloc *a) {
    wf_launch_info *li = &c->out->launch;
    if (l->lanes > 128)
        return err_failb(
            &c->f->err, WF_ERR_SCHEDULE,
            "T%d: Not enough tensor memory lanes: tried to allocate %lld, but only 128 "
            "available.",
            tv->id, (long long)l->lanes);
    if (l->cells > 512)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: Not enough tensor memory columns: tried to allocate %lld, but only "
                         "512 available.",
                         tv->id, (long long)l->cells);
    int64_t used = 0;
    for (int i = 0; i < li->ntmem_regions; i++)
        used += li->tmem_columns[i];
    int64_t cols = l->row * (int64_t)wf_dtype_size(tv->dtype) / 4;
    if (li->ntmem_regions == 8 || used + cols > 512)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: Not enough tensor memory columns: tried to allocate %lld more, but "
                         "only %lld of 512 are left",
                         tv->id, (long long)cols, (long long)(512 - used));
    a->region = li->ntmem_regions;
    a->row = l->row;
    li->tmem_columns[li->ntmem_regions] = cols;
    li->tmem_lanes[li->ntmem_regions++] = l->lanes;
    return true;
}

static kir_node *alloc_node(lower_ctx *c, wf_tv *tv, const lower_layout *l) {
    kir_node *n = kir_new(c->a, KIR_ALLOC);
    if (!n)
        return err_fail(&c->f->err, WF_ERR_MEMORY, "out of memory");
    n->u.alloc.tv = tv;
    n->u.alloc.mem = tv->mem;
    n->u.alloc.size = l->size;
    return n;
}

/* x rounded up to a multiple of 16 bytes. */
static const wf_val *align16(wf_arena *a, const wf_val *x) {
    return val_mul(a, val_ceildiv(a, x, val_const(a, 16)), val_const(a, 16));
}

/* Does an XOR swizzle produce id (TMA's swizzled layouts)? */
static bool from_swizzle(const wf_iterdomain *id, int depth) {
    const id_transform *t = id->def;
    if (!t || depth > 64)
        return false;
    if (t->kind == TF_SWIZZLE)
        return true;
    for (int i = 0; i < t->nin; i++)
        if (from_swizzle(t->in[i], depth + 1))
            return true;
    return false;
}

/* The alignment of a shared-memory buffer: 16 bytes; a TMA copy's buffer
   128 bytes, 1024 when its allocation is swizzled (the PTX ISA's rule for the
   128-byte swizzle, which covers the 32- and 64-byte ones). */
static int64_t smem_alignment(const wf_tv *tv) {
    bool tma = tv->def && tv->def->ldst == WF_LDST_TMA;
    for (int i = 0; i < tv->uses.n; i++)
        tma |= tv->uses.ptr[i]->ldst == WF_LDST_TMA;
    if (!tma)
        return 16;
    const id_list *dom = ir_alloc_domain(tv);
    for (int i = 0; i < dom->n; i++)
        if (from_swizzle(dom->ptr[i], 0))
            return 1024;
    return 128;
}

/* A circular-buffered tensor (lower/tma_cb.c) holds `stages` copies of its
   buffer, each starting on the buffer's alignment (check.c allowed stages
   only on TMA loads, whose alignment is at least 128 bytes). */
static void stage_copies(lower_ctx *c, wf_tv *tv, kir_node *n, int64_t align) {
    wf_arena *a = c->a;
    const wf_val *per = val_const(a, align / (int64_t)wf_dtype_size(tv->dtype));
    n->u.alloc.stages = tv->stages;
    n->u.alloc.stage_elems = val_mul(a, val_ceildiv(a, n->u.alloc.size, per), per);
    n->u.alloc.size = val_mul(a, n->u.alloc.stage_elems, val_const(a, tv->stages));
}

/* Registers need sizes known at compile time; shared memory may be sized by
   the run-time extents (the kernel's dynamic shared memory is then computed
   at launch). */
static bool alloc_tensor(lower_ctx *c, wf_tv *tv, const wf_val **smem_end) {
    lower_layout l;
    kir_node *n;
    if (!lower_layout_of(c, tv, &l))
        return false;
    if (tv->mem == WF_MEM_TENSOR)
        return (n = alloc_node(c, tv, &l)) && tmem_region(c, tv, &l, &n->u.alloc) &&
               place_alloc(c, tv, n);
    if (tv->mem == WF_MEM_LOCAL && !val_is_const(l.size)) {
        sbuf b = {0};
        val_print(&b, l.size);
        err_failb(&c->f->err, WF_ERR_SCHEDULE,
                  "Allocations must be based on constant integers for local memory. However, T%d "
                  "needs %s elements",
                  tv->id, sbuf_str(&b));
        sbuf_free(&b);
        return false;
    }
    if (!(n = alloc_node(c, tv, &l)))
        return false;
    if (tv->mem == WF_MEM_SHARED) {
        wf_arena *a = c->a;
        int64_t align = smem_alignment(tv);
        if (tv->stages > 1) /* circular buffering: stages copies, each aligned like the first */
            stage_copies(c, tv, n, align);
        n->u.alloc.smem_offset =
            align == 16
                ? align16(a, *smem_end)
                : val_mul(a, val_ceildiv(a, *smem_end, val_const(a, align)), val_const(a, align));
        if (align > c->out->smem_align)
            c->out->smem_align = align;
        *smem_end =
            val_add(a, n->u.alloc.smem_offset,
                    val_mul(a, n->u.alloc.size, val_const(a, (int64_t)wf_dtype_size(tv->dtype))));
    }
    return place_alloc(c, tv, n);
}

bool lower_alloc(lower_ctx *c) {
    wf_arena *a = c->a;
    const wf_val *smem_end = val_const(a, 0);
    for (int k = 0; k < c->order.n; k++) {
        wf_tv *tv = c->order.ptr[k]->out;
        if (tv->mem != WF_MEM_GLOBAL && !alloc_tensor(c, tv, &smem_end))
            return false;
    }
    /* Tensor-memory addresses come back from tcgen05.alloc through shared memory. */
    if (c->out->launch.ntmem_regions) {
        c->out->tmem_slot = align16(a, smem_end);
        smem_end = val_add(a, c->out->tmem_slot, val_const(a, 4 * c->out->launch.ntmem_regions));
    }
    /* The dynamic shared memory is only 16-byte aligned: the kernel aligns its
       base up (codegen/cuda.c), within this much more. */
    if (c->out->smem_align > 16)
        smem_end = val_add(a, smem_end, val_const(a, c->out->smem_align - 16));
    c->out->smem = smem_end;
    c->out->launch.smem_bytes = val_is_const(smem_end) ? smem_end->c : -1;
    return true;
}
