/*
 * launch.c -- launch dimensions, CUDA's launch limits, kernel parameters.
 *
 * lower_launch requires pdims and alloc. It provides, per parallel
 * dimension, every distinct extent of a loop parallelized on it (the launch
 * takes their maximum: a dimension is as large as its largest loop, and the
 * predicate pass guards the smaller ones), wf_launch_info (-1 where a value
 * depends on run-time sizes), and the kernel's tensor parameters: the
 * fusion's inputs, then its outputs. Whatever is known now is checked
 * against CUDA's limits, so a constant violation is a compile error; the
 * runtime (runtime/launch.c) checks the rest per launch with the same
 * functions, lower_check_launch and lower_check_smem.
 *
 * Limits: CUDA C++ Programming Guide, "Compute Capabilities", table
 * "Technical Specifications per Compute Capability" (9.0 and 10.0).
 */
#include "lower/lower_int.h"

#include <stdio.h>

/* ---- the limits, shared with the runtime ---- */

static void put_extent(sbuf *b, int64_t v) {
    if (v < 0)
        sbuf_puts(b, "?");
    else
        sbuf_printf(b, "%lld", (long long)v);
}

/* " (TIDx from T2's axis iS3{2048}, ...)" for the dimensions in [from, from+3)
   that `show` selects. */
static void put_axes(sbuf *b, const int64_t *ext, const char *const *axis, int from,
                     bool (*show)(int d, int64_t v)) {
    int n = 0;
    for (int d = from; d < from + 3; d++) {
        if (!axis || !axis[d] || !show(d, ext[d]))
            continue;
        sbuf_printf(b, "%s%s from %s", n++ ? ", " : " (", lower_pdim_table[d].name, axis[d]);
    }
    if (n)
        sbuf_puts(b, ")");
}

static void put_dims(sbuf *b, const int64_t *ext, int from) {
    for (int d = from; d < from + 3; d++) {
        put_extent(b, ext[d]);
        sbuf_puts(b, d < from + 2 ? " x " : "");
    }
}

static bool more_than_one(int d, int64_t v) {
    (void)d;
    return v > 1;
}

static bool over_limit(int d, int64_t v) {
    return v > lower_pdim_table[d].limit;
}

/* total: the product of the known extents; wrapped: it overflowed; some
   unknown: it is a lower bound. */
static bool bad_threads(const int64_t *ext, const char *const *axis, int64_t total, bool wrapped,
                        wf_err *e) {
    sbuf b = {0};
    bool unknown = ext[0] < 0 || ext[1] < 0 || ext[2] < 0;
    sbuf_puts(&b, "invalid number of threads: the block needs ");
    put_dims(&b, ext, 0);
    if (wrapped)
        sbuf_puts(&b, " = more than 2^63 threads");
    else
        sbuf_printf(&b, " = %s%lld threads", unknown ? "at least " : "", (long long)total);
    sbuf_printf(&b, "; CUDA allows at most %d per block, %lld along x and y and %lld along z",
                LOWER_MAX_BLOCK_THREADS, (long long)lower_pdim_table[0].limit,
                (long long)lower_pdim_table[2].limit);
    put_axes(&b, ext, axis, 0, more_than_one);
    sbuf_puts(&b, "; split an axis and parallelize only its inner part on threads");
    err_failb(e, WF_ERR_SCHEDULE, "%s", sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

static bool bad_grid(const int64_t *ext, const char *const *axis, wf_err *e) {
    sbuf b = {0};
    sbuf_puts(&b, "invalid grid: the launch needs ");
    put_dims(&b, ext, 3);
    sbuf_printf(&b, " blocks; CUDA allows at most %lld along x and %lld along y and z",
                (long long)lower_pdim_table[3].limit, (long long)lower_pdim_table[4].limit);
    put_axes(&b, ext, axis, 3, over_limit);
    sbuf_puts(&b, "; put the largest axis on BIDx, or split an axis over two block dimensions");
    err_failb(e, WF_ERR_SCHEDULE, "%s", sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

bool lower_check_launch(const int64_t ext[LOWER_NPDIMS], const char *const *axis, wf_err *e) {
    int64_t total = 1;
    bool wrapped = false, too_many = false;
    for (int d = 0; d < 3; d++) {
        if (ext[d] < 0)
            continue; /* known only at run time */
        too_many |= ext[d] > lower_pdim_table[d].limit;
        wrapped |= __builtin_mul_overflow(total, ext[d], &total);
    }
    if (too_many || wrapped || total > LOWER_MAX_BLOCK_THREADS)
        return bad_threads(ext, axis, total, wrapped, e);
    for (int d = 3; d < 6; d++)
        if (ext[d] > lower_pdim_table[d].limit)
            return bad_grid(ext, axis, e);
    return true;
}

bool lower_check_smem(int64_t bytes, const char *detail, wf_err *e) {
    if (bytes <= LOWER_MAX_SMEM_BYTES)
        return true;
    return err_failb(e, WF_ERR_SCHEDULE,
                     "the kernel needs %lld bytes of shared memory per block, but CUDA allows at "
                     "most %d (227 KiB)%s%s; use smaller shared-memory tiles",
                     (long long)bytes, LOWER_MAX_SMEM_BYTES, detail ? ": " : "",
                     detail ? detail : "");
}

/* ---- the launch dimensions ---- */

static const char *axis_name(lower_ctx *c, const wf_iterdomain *id) {
    sbuf b = {0};
    sbuf_printf(&b, "T%d's axis ", id->tv->id);
    ir_print_id(&b, id);
    char *s = b.oom ? NULL : arena_strdup(c->a, sbuf_str(&b));
    sbuf_free(&b);
    return s;
}

/* Add a loop's extent to its dimension's list, unless an equal one is there. */
static bool add_extent(lower_ctx *c, int d, const kir_for *l) {
    lower_extents *v = &c->out->dims[d];
    for (int i = 0; i < v->n; i++)
        if (val_equal(v->ptr[i].extent, l->extent))
            return true;
    lower_extent x = {l->extent, axis_name(c, l->id)};
    return (x.axis && vec_push_arena(c->a, v, x)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* The launch extent of dimension d when all its extents are constants (their
   maximum, 1 if none), else -1; *axis gets the largest constant's axis. */
static int64_t const_extent(const lower_extents *v, const char **axis) {
    int64_t max = 1;
    *axis = NULL;
    for (int i = 0; i < v->n; i++) {
        if (!val_is_const(v->ptr[i].extent))
            return -1;
        if (i == 0 || v->ptr[i].extent->c > max) {
            max = v->ptr[i].extent->c;
            *axis = v->ptr[i].axis;
        }
    }
    return max;
}

static bool launch_dims(lower_ctx *c) {
    wf_launch_info *li = &c->out->launch;
    int64_t ext[LOWER_NPDIMS];
    const char *axis[LOWER_NPDIMS];
    for (int g = 0; g < c->loops.ngroups; g++) {
        const kir_node *n = c->group_loop[g];
        int d = n ? lower_pdim_index(n->u.loop.ptype) : -1;
        if (d >= 0 && !add_extent(c, d, &n->u.loop))
            return false;
    }
    for (int d = 0; d < LOWER_NPDIMS; d++) {
        ext[d] = const_extent(&c->out->dims[d], &axis[d]);
        if (lower_pdim_table[d].grid)
            li->grid[lower_pdim_table[d].axis] = ext[d];
        else
            li->block[lower_pdim_table[d].axis] = ext[d];
    }
    return lower_check_launch(ext, axis, &c->f->err);
}

/* ---- memory per block and per thread ---- */

/* Bytes of an allocation of constant size; -1 if it overflows. */
static int64_t alloc_bytes(const kir_alloc *a) {
    int64_t bytes;
    if (__builtin_mul_overflow(a->size->c, (int64_t)wf_dtype_size(a->tv->dtype), &bytes))
        return -1;
    return bytes;
}

static bool too_much_local(lower_ctx *c, const kir_alloc *a, int64_t bytes) {
    return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                     "T%d needs %s%lld bytes of local memory per thread (%lld elements of %s), "
                     "but CUDA allows at most %lld (512 KiB); inline T%d into its consumers "
                     "(wf_tv_inline_at, wf_inline_most) so that each thread keeps only the "
                     "elements it uses, or put it in shared memory (at most 227 KiB per block; "
                     "this build keeps no intermediate in global memory)",
                     a->tv->id, bytes < 0 ? "more than " : "",
                     (long long)(bytes < 0 ? INT64_MAX : bytes), (long long)a->size->c,
                     ir_dtype_short(a->tv->dtype), (long long)LOWER_MAX_LOCAL_BYTES, a->tv->id);
}

typedef struct {
    int64_t local;    /* bytes of local memory per thread, all allocations */
    int64_t smem_max; /* the largest constant shared tile, bytes */
    const wf_tv *smem_max_tv;
} mem_use;

/* Local memory per thread (every allocation counts, wherever it is) and the
   largest shared tile, for the shared-memory message. */
static bool walk_allocs(lower_ctx *c, const kir_list *l, mem_use *u) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        const kir_alloc *a = &n->u.alloc;
        if (n->kind == KIR_FOR || n->kind == KIR_IF) {
            if (!walk_allocs(c, n->kind == KIR_FOR ? &n->u.loop.body : &n->u.cond.body, u))
                return false;
            continue;
        }
        if (n->kind != KIR_ALLOC || !val_is_const(a->size))
            continue;
        int64_t bytes = alloc_bytes(a);
        if (a->mem == WF_MEM_LOCAL && (bytes < 0 || bytes > LOWER_MAX_LOCAL_BYTES ||
                                       __builtin_add_overflow(u->local, bytes, &u->local)))
            return too_much_local(c, a, bytes);
        if (a->mem == WF_MEM_SHARED && (bytes < 0 || bytes > u->smem_max)) {
            u->smem_max = bytes < 0 ? INT64_MAX : bytes;
            u->smem_max_tv = a->tv;
        }
    }
    return true;
}

static bool check_memory(lower_ctx *c) {
    mem_use u = {0, 0, NULL};
    char detail[96] = "";
    if (!walk_allocs(c, &c->out->top, &u))
        return false;
    if (u.local > LOWER_MAX_LOCAL_BYTES)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "the kernel needs %lld bytes of local memory per thread, but CUDA allows "
                         "at most %lld (512 KiB); inline its register tensors further "
                         "(wf_tv_inline_at, wf_inline_most) or put some in shared memory",
                         (long long)u.local, (long long)LOWER_MAX_LOCAL_BYTES);
    if (c->out->launch.smem_bytes < 0)
        return true; /* sized at run time: checked per launch */
    if (u.smem_max_tv)
        snprintf(detail, sizeof detail, "T%d alone needs %lld", u.smem_max_tv->id,
                 (long long)u.smem_max);
    return lower_check_smem(c->out->launch.smem_bytes, u.smem_max_tv ? detail : NULL, &c->f->err);
}

/* ---- the parameters ---- */

static bool add_param(lower_ctx *c, wf_tv *tv, bool is_output, int index) {
    lower_param p = {tv, is_output, index, KP_TENSOR, -1};
    /* inputs are made within WF_MAX_RANK, and no op makes a larger rank */
    err_assert(&c->f->err, ir_tv_rank(tv) <= WF_MAX_RANK);
    if (ir_tv_rank(tv) > WF_MAX_RANK)
        return false;
    return vec_push_arena(c->a, &c->out->params, p) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

/* A TMA copy's tensor map follows the tensor parameters: it describes the
   same buffer (lower/tma.c). */
static bool add_tensor_maps(lower_ctx *c) {
    for (int t = 0; t < c->out->tmas.n; t++) {
        lower_tma *m = &c->out->tmas.ptr[t];
        wf_tv *g = (wf_tv *)m->info.global_tv;
        lower_param p = {g, g->is_output, -1, KP_TENSOR_MAP, t};
        for (int i = 0; i < c->out->params.n && p.index < 0; i++)
            if (c->out->params.ptr[i].tv == g)
                p.index = c->out->params.ptr[i].index;
        m->param = c->out->params.n;
        /* lower/check.c refuses global intermediates, so g is a parameter */
        err_assert(&c->f->err, p.index >= 0);
        if (p.index < 0)
            return false;
        if (!vec_push_arena(c->a, &c->out->params, p))
            return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    return true;
}

bool lower_launch(lower_ctx *c) {
    if (!launch_dims(c) || !check_memory(c))
        return false;
    for (int i = 0; i < c->f->inputs.n; i++)
        if (!add_param(c, c->f->inputs.ptr[i], false, i))
            return false;
    for (int i = 0; i < c->f->outputs.n; i++)
        if (!add_param(c, c->f->outputs.ptr[i], true, i))
            return false;
    return add_tensor_maps(c);
}
