/*
 * tma.c -- a TMA copy's tensor map, inferred from the schedule (seed 001,
 * steps 1-4), and the check of its shared-memory tensor.
 *
 * Nothing about TMA is declared on the side. The consumer's loop axes
 * parallelized WF_BULK are the tile; every IterDomain of the consumer's
 * history is then "tile" (all loop axes below it are Bulk), "coordinate"
 * (none is) or "mixed". Starting from the global tensor's allocation domain,
 * with its strides and contiguity, the mixed IDs are replayed as a view:
 * splits must divide, merges must join an outer dim contiguous with its
 * inner one; a mixed ID split into a coordinate (outer) and a tile (inner)
 * is a boxing split and stays whole, partitioned. What remains is the TMA
 * domain, outer to inner: partitioned IDs (box = the split's factor), tile
 * IDs (box = their extent: "implicit whole") and coordinate IDs (box 1:
 * "implicit size-one"). Each is one dimension of the tensor map; adjacent
 * ones are merged (compositing: coordinates then tiles, or a partitioned ID
 * then tiles, contiguous in memory) only where more than five remain.
 *
 * The box's first coordinates come from indexing (the Bulk loops are at 0).
 * The shared-memory tensor is checked, not trusted (nvFuser does not): for
 * every element of the box, the offset the schedule gives it in shared
 * memory must be where TMA puts it -- dense in box order, or one of the
 * 32/64/128-byte swizzles (16-byte chunk j of row i at chunk j ^ (i % 8)
 * masked to the swizzle width), which is how the swizzle is inferred. The
 * allocation must hold whole tiles. Non-tile axes on threads make each of
 * those threads issue its own box.
 *
 * Strided tiles (step 3): a split of a box whose outer output is Bulk and
 * whose inner one (the stride IterDomain) is not is a striding split. The
 * box keeps its size, the map's element stride is the inner extent s, the
 * tile (in shared memory, dense) is the outer output, ceil(box / s) long,
 * and the stride IterDomain's index moves the box's start. A stride that
 * does not divide the box, on a tensor larger than the box, is the FTTC
 * case: refused for a store; for a load, every reader must be guarded to
 * the box (check_fttc, lower_tma_check_holes). A mixed ID whose splits end
 * in coordinates then tiles is boxed by rotation (rotated()).
 */
#include "lower/copy.h"
#include "lower/eval.h"

#include <stdio.h>
#include <string.h>

#define TMA_MAX_ENTRIES 64        /* IDs of a TMA domain before grouping */
#define TMA_MAX_BULK    16        /* Bulk loops around one TMA statement */
#define TMA_MAX_POINTS  (1 << 20) /* box elements the shared-memory check visits */

enum { ST_TILE = 1, ST_COORD = 2, ST_MIXED = 3 };
typedef enum { E_COORD, E_TILE, E_PART } entry_kind;

typedef struct {
    wf_iterdomain *id;
    const wf_val *stride; /* elements */
    bool contig;          /* stride == inner's stride * inner's extent (innermost: 1) */
    entry_kind kind;
    int64_t box;
    wf_iterdomain *tile;    /* E_PART: the box ID; E_TILE: id (the striding split's outer
                               output when strided) */
    int64_t estride;        /* the element stride: 1, or the striding split's inner extent */
    wf_iterdomain *strided; /* the striding split's input (for messages), or NULL */
} tma_entry;

typedef struct {
    lower_ctx *c;
    kir_node *s;
    wf_tv *cons, *gmem, *smem;
    int8_t *st; /* per ID: status + 1, 0 = not computed */
    tma_entry e[TMA_MAX_ENTRIES];
    int n;
    int lo[TMA_MAX_RANK], hi[TMA_MAX_RANK]; /* entries of each dim, outer first */
    int rank;                               /* dims, outer first until the end */
} tma_env;

static bool fail_id(tma_env *t, const char *fmt, const wf_iterdomain *id) {
    sbuf b = {0};
    ir_print_id(&b, id);
    err_failb(&t->c->f->err, WF_ERR_SCHEDULE, fmt, t->cons->id, sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

/* ---- Bulk axes ---- */

bool lower_tma_check_bulk(lower_ctx *c, const wf_tv *tv, int axis) {
    const wf_iterdomain *id = tv->loop.ptr[axis];
    if (!tv->def || tv->def->ldst != WF_LDST_TMA)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: axis %d is parallelized on Bulk, but T%d is not defined by a TMA "
                         "copy: ParallelType::Bulk is only supported for cp.async.bulk. Set "
                         "WF_LDST_TMA on T%d's definition, or use another parallel type",
                         tv->id, axis, tv->id, tv->id);
    if (id->itype != IT_ITER)
        return err_failb(&c->f->err, WF_ERR_SCHEDULE,
                         "T%d: axis %d is a %s axis: ParallelType::Bulk is only supported for "
                         "IterType::Iteration.",
                         tv->id, axis, id->itype == IT_BROADCAST ? "broadcast" : "reduction");
    return true;
}

static bool add_check(tma_env *t, const wf_val *cond, const char *msg);

/* ---- step 1-2: the TMA domain ---- */

/* The transform of the consumer's history that uses id, or NULL. */
static id_transform *use_of(const tma_env *t, const wf_iterdomain *id) {
    for (int i = 0; i < id->uses.n; i++)
        if (id->uses.ptr[i]->out[0]->tv == t->cons)
            return id->uses.ptr[i];
    return NULL;
}

static int status(tma_env *t, const wf_iterdomain *id) {
    if (t->st[id->id])
        return t->st[id->id] - 1;
    int s = 0;
    for (int i = 0; i < t->cons->loop.n && !s; i++)
        if (t->cons->loop.ptr[i] == id)
            s = id->ptype == WF_BULK ? ST_TILE : ST_COORD;
    id_transform *u = s ? NULL : use_of(t, id);
    for (int k = 0; u && k < u->nout; k++)
        s |= status(t, u->out[k]);
    t->st[id->id] = (int8_t)(s + 1);
    return s;
}

static bool push_entry(tma_env *t, int at, tma_entry e) {
    if (t->n == TMA_MAX_ENTRIES)
        return err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                         "T%d: the TMA domain has more than %d IterDomains", t->cons->id,
                         TMA_MAX_ENTRIES);
    memmove(&t->e[at + 1], &t->e[at], sizeof *t->e * (size_t)(t->n - at));
    t->e[at] = e;
    t->n++;
    return true;
}

static void drop_entry(tma_env *t, int at) {
    memmove(&t->e[at], &t->e[at + 1], sizeof *t->e * (size_t)(t->n - at - 1));
    t->n--;
}

/* The consumer's ID exactly mapped to a global allocation ID. */
static wf_iterdomain *consumer_id(tma_env *t, const wf_iterdomain *g) {
    for (int i = 0; i < t->cons->logical.n; i++)
        if (an_mapped(&t->c->g.exact, t->cons->logical.ptr[i], g))
            return t->cons->logical.ptr[i];
    return NULL;
}

static bool seed_entries(tma_env *t) {
    lower_layout l;
    if (!lower_layout_of(t->c, t->gmem, &l))
        return false;
    for (int i = 0; i < l.n; i++) {
        if (!l.allocated[i])
            continue;
        wf_iterdomain *id = consumer_id(t, l.ids[i]);
        if (!id)
            return fail_id(t,
                           "T%d: TMA domain must be a view of the allocation domain of the gmem "
                           "tensor, but the allocation axis %s has no IterDomain in the TMA "
                           "copy's consumer",
                           l.ids[i]);
        if (!push_entry(t, t->n, (tma_entry){id, l.stride[i], false, E_COORD, 1, NULL, 1, NULL}))
            return false;
    }
    wf_arena *a = t->c->a;
    for (int i = 0; i < t->n; i++) {
        const wf_val *inner =
            i + 1 < t->n ? val_mul(a, t->e[i + 1].stride, t->e[i + 1].id->extent) : val_const(a, 1);
        t->e[i].contig = val_equal(t->e[i].stride, inner);
    }
    return true;
}

/* A symbolic extent split as a view: its divisibility is checked at launch. */
static bool symbolic_view(tma_env *t, const id_transform *u) {
    wf_arena *a = t->c->a;
    const wf_val *f = u->out[1]->extent;
    sbuf b = {0}, m = {0};
    ir_print_id(&b, u->in[0]);
    sbuf_printf(&m,
                "T%d: Invalid view in TMA: the extent of %s must be divisible by the split factor "
                "%lld (the path from the global tensor's allocation to the TMA domain must be a "
                "view)",
                t->cons->id, sbuf_str(&b), (long long)f->c);
    const wf_val *cond = val_eq(a, val_mod(a, u->in[0]->extent, f), val_const(a, 0));
    bool ok = add_check(t, cond, sbuf_str(&m));
    sbuf_free(&b);
    sbuf_free(&m);
    return ok;
}

static bool view_split(tma_env *t, int i, id_transform *u) {
    wf_arena *a = t->c->a;
    const wf_val *ext = u->in[0]->extent, *f = u->out[1]->extent;
    if (!u->divisible && !val_is_const(ext) && val_is_const(f) && !symbolic_view(t, u))
        return false;
    if (!u->divisible && val_is_const(ext) && !(val_is_const(f) && ext->c % f->c == 0)) {
        sbuf b = {0};
        ir_print_id(&b, u->in[0]);
        err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                  "T%d: Invalid view in TMA: the extent of %s must be divisible by the split "
                  "factor %lld (the path from the global tensor's allocation to the TMA domain "
                  "must be a view); split it as a boxing split (outer axes not Bulk, inner axis "
                  "Bulk) or make it divide",
                  t->cons->id, sbuf_str(&b), (long long)u->factor);
        sbuf_free(&b);
        return false;
    }
    tma_entry in = t->e[i];
    drop_entry(t, i);
    tma_entry inner = {u->out[1], in.stride, in.contig, E_COORD, 1, NULL, 1, NULL};
    tma_entry outer = {
        u->out[0], val_mul(a, in.stride, u->out[1]->extent), true, E_COORD, 1, NULL, 1, NULL};
    return push_entry(t, i, inner) && push_entry(t, i, outer);
}

static bool view_merge(tma_env *t, int i, id_transform *u) {
    if (t->e[i].id != u->in[0])
        return true; /* handled from the outer input */
    if (i + 1 >= t->n || t->e[i + 1].id != u->in[1] || !t->e[i].contig) {
        sbuf o = {0}, n = {0};
        ir_print_id(&o, u->in[0]);
        ir_print_id(&n, u->in[1]);
        err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                  "T%d: TMA domain must be a view of the allocation domain of the gmem tensor "
                  "T%d: Can not merge discontiguous dimensions, but %s and %s are merged; merge "
                  "only axes adjacent and contiguous in T%d's allocation, outer with inner",
                  t->cons->id, t->gmem->id, sbuf_str(&o), sbuf_str(&n), t->gmem->id);
        sbuf_free(&o);
        sbuf_free(&n);
        return false;
    }
    tma_entry in = t->e[i + 1];
    drop_entry(t, i);
    t->e[i] = (tma_entry){u->out[0], in.stride, in.contig, E_COORD, 1, NULL, 1, NULL};
    return true;
}

static bool const_box(tma_env *t, tma_entry *e, wf_iterdomain *tile) {
    int64_t ext = ir_id_const_extent(tile);
    if (ext <= 0)
        return fail_id(t,
                       "T%d: the tile IterDomain %s of the TMA copy has a symbolic extent; "
                       "boxes need constant sizes",
                       tile);
    e->box = ext;
    e->tile = tile;
    return true;
}

/* A striding split (seed 001, step 3): a split whose outer output is tile
   (Bulk) and whose inner output, the stride IterDomain, is not. */
static bool is_striding(tma_env *t, const id_transform *u) {
    return u && u->kind == TF_SPLIT && status(t, u->out[0]) == ST_TILE &&
           status(t, u->out[1]) == ST_COORD;
}

/* Entry e's box is `box`, cut by the striding split u: the tile is every
   s-th element of the box, s the stride IterDomain's extent. */
static bool strided_box(tma_env *t, tma_entry *e, wf_iterdomain *box, const id_transform *u) {
    int64_t s = ir_id_const_extent(u->out[1]);
    if (s <= 0)
        return fail_id(t,
                       "T%d: the stride IterDomain %s of a striding split of the TMA copy has a "
                       "symbolic extent; element strides need constant sizes",
                       u->out[1]);
    if (!const_box(t, e, box))
        return false;
    e->tile = u->out[0];
    e->estride = s;
    e->strided = box;
    return true;
}

/* Boxing by rotation (seed 001, Figures 7-10): splits of a mixed ID whose
   leaves, outer to inner, are coordinate IDs then tile IDs are one boxing
   split of it by the product of the tile leaves' extents, by the equivalence
   of split-split (outer by b after a = by a * b, then inner by a). A split on
   the outermost path needs not divide (its overflow is past the tensor's
   end, where TMA zero-fills); any other one must, or its holes would cut the
   box. *box accumulates the tile leaves' extents, *tile is the innermost
   one; *coords says whether a coordinate leaf came yet, *tiles whether a tile
   leaf did (a coordinate after a tile is not a box). */
static bool rotated(tma_env *t, wf_iterdomain *id, bool outermost, int64_t *box,
                    wf_iterdomain **tile, bool *tiles) {
    int s = status(t, id);
    if (s == ST_COORD)
        return !*tiles;
    if (s == ST_TILE) {
        int64_t ext = ir_id_const_extent(id);
        if (ext <= 0 || *box > TMA_MAX_BOX)
            return false;
        *box *= ext;
        *tile = id;
        *tiles = true;
        return true;
    }
    id_transform *u = use_of(t, id);
    if (!u || u->kind != TF_SPLIT || is_striding(t, u))
        return false;
    if (!outermost) {
        int64_t ext = ir_id_const_extent(id);
        if (ext <= 0 || ext % u->factor != 0)
            return false;
    }
    return rotated(t, u->out[0], outermost, box, tile, tiles) &&
           rotated(t, u->out[1], false, box, tile, tiles);
}

/* Is split u a view as it is (it divides a constant extent)? Then it stays
   one, and rotation is only for the splits that are not. */
static bool view_divides(const id_transform *u) {
    const wf_val *ext = u->in[0]->extent, *f = u->out[1]->extent;
    return u->divisible || (val_is_const(ext) && val_is_const(f) && f->c > 0 && ext->c % f->c == 0);
}

/* A mixed entry boxed by rotation becomes a partitioned one. */
static bool rotate_box(tma_env *t, int i) {
    int64_t box = 1;
    wf_iterdomain *tile = NULL;
    bool tiles = false;
    if (!rotated(t, t->e[i].id, true, &box, &tile, &tiles) || !tiles)
        return false;
    t->e[i].kind = E_PART;
    t->e[i].box = box;
    t->e[i].tile = tile;
    return true;
}

/* One step on a mixed entry; *changed says whether the list moved. */
static bool step_mixed(tma_env *t, int i) {
    id_transform *u = use_of(t, t->e[i].id);
    if (!u)
        return fail_id(t,
                       "T%d: TMA domain must be a view of the allocation domain of the gmem "
                       "tensor, but %s mixes tile and non-tile IterDomains that no split "
                       "separates; do not transform tile and non-tile IterDomains together",
                       t->e[i].id);
    if (u->kind == TF_SWIZZLE)
        return fail_id(t,
                       "T%d: TMA domain must be a view of the allocation domain of the gmem "
                       "tensor, but a swizzle of %s is not a valid expression for view",
                       t->e[i].id);
    if (u->kind == TF_MERGE)
        return view_merge(t, i, u);
    if (is_striding(t, u)) { /* the whole extent is the box ("implicit whole"), strided */
        t->e[i].kind = E_TILE;
        return strided_box(t, &t->e[i], t->e[i].id, u);
    }
    if (status(t, u->out[0]) != ST_COORD)
        return (!view_divides(u) && rotate_box(t, i)) || view_split(t, i, u);
    if (status(t, u->out[1]) == ST_TILE) {
        t->e[i].kind = E_PART; /* a boxing split */
        return const_box(t, &t->e[i], u->out[1]);
    }
    id_transform *v = use_of(t, u->out[1]);
    if (is_striding(t, v)) { /* a boxing split whose box is then strided */
        t->e[i].kind = E_PART;
        return strided_box(t, &t->e[i], u->out[1], v);
    }
    return (!view_divides(u) && rotate_box(t, i)) || view_split(t, i, u);
}

static bool build_domain(tma_env *t) {
    if (!seed_entries(t))
        return false;
    for (bool moved = true; moved;) {
        moved = false;
        for (int i = 0; i < t->n && !moved; i++) {
            if (t->e[i].tile || status(t, t->e[i].id) != ST_MIXED)
                continue;
            int n = t->n;
            wf_iterdomain *id = t->e[i].id;
            if (!step_mixed(t, i))
                return false;
            moved = t->n != n || t->e[i].id != id;
        }
    }
    for (int i = 0; i < t->n; i++) {
        tma_entry *e = &t->e[i];
        if (e->strided)
            continue; /* resolved by its striding split */
        int s = e->kind == E_PART ? ST_MIXED : status(t, e->id);
        if (s == ST_TILE && !const_box(t, e, e->id))
            return false;
        if (s == ST_TILE)
            e->kind = E_TILE;
        if (s == 0 || (s == ST_MIXED && e->kind != E_PART))
            return fail_id(t,
                           "T%d: TMA domain must be a view of the allocation domain of the gmem "
                           "tensor, but %s does not reach the consumer's loop domain",
                           e->id);
    }
    if (t->n == 0 || !t->e[t->n - 1].contig)
        return fail_id(t,
                       "T%d: The innermost dimension of the TMA domain must be contiguous, but %s "
                       "is not (its stride in global memory is not 1)",
                       t->n ? t->e[t->n - 1].id : t->cons->loop.ptr[0]);
    return true;
}

/* ---- grouping into at most five dimensions ---- */

/* A dimension is coordinates then tiles, or a partitioned ID then tiles; a
   strided box stays a dimension of its own (its element stride is its own). */
static bool valid_dim(const tma_env *t, int lo, int hi) {
    int k = lo;
    for (int j = lo; j <= hi && lo < hi; j++)
        if (t->e[j].strided)
            return false;
    if (t->e[k].kind == E_PART)
        k++;
    else
        while (k <= hi && t->e[k].kind == E_COORD)
            k++;
    while (k <= hi && t->e[k].kind == E_TILE)
        k++;
    for (int j = lo; j < hi; j++)
        if (!t->e[j].contig)
            return false;
    return k > hi;
}

static bool group_dims(tma_env *t) {
    int lo[TMA_MAX_ENTRIES], hi[TMA_MAX_ENTRIES], n = t->n;
    for (int i = 0; i < n; i++)
        lo[i] = hi[i] = i;
    for (int d = n - 2; d >= 0 && n > TMA_MAX_RANK; d--) {
        if (!valid_dim(t, lo[d], hi[d + 1]))
            continue;
        hi[d] = hi[d + 1];
        memmove(&lo[d + 1], &lo[d + 2], sizeof *lo * (size_t)(n - d - 2));
        memmove(&hi[d + 1], &hi[d + 2], sizeof *hi * (size_t)(n - d - 2));
        n--;
        d++; /* try the merged dim with the next outer one */
        if (d > n - 1)
            d = n - 1;
    }
    if (n > TMA_MAX_RANK)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the TMA domain has %d dimensions that cannot be composited into "
                         "at most 5 (TMA's limit): merge contiguous coordinate or tile "
                         "IterDomains before the boxing splits",
                         t->cons->id, n);
    t->rank = n;
    memcpy(t->lo, lo, sizeof *lo * (size_t)n);
    memcpy(t->hi, hi, sizeof *hi * (size_t)n);
    return true;
}

/* ---- the tensor map ---- */

static void tile_names(const tma_env *t, sbuf *b) {
    int k = 0;
    for (int i = 0; i < t->n; i++)
        if (t->e[i].tile) {
            sbuf_puts(b, k++ ? ", " : "");
            ir_print_id(b, t->e[i].tile);
        }
}

static bool add_check(tma_env *t, const wf_val *cond, const char *msg) {
    wf_arena *a = t->c->a;
    lower_check chk = {.cond = cond, .message = arena_strdup(a, msg)};
    if (!chk.message || !vec_push_arena(a, &t->c->out->checks, chk))
        return err_failb(&t->c->f->err, WF_ERR_MEMORY, "out of memory");
    return true;
}

static bool check_stride(tma_env *t, int d, const wf_val *bytes) {
    char msg[400];
    snprintf(msg, sizeof msg, "T%d: TMA dimension %d: " TMA_RULE_STRIDE, t->cons->id, d);
    wf_arena *a = t->c->a;
    const wf_val *ok = val_and(a, val_eq(a, val_mod(a, bytes, val_const(a, 16)), val_const(a, 0)),
                               val_lt(a, bytes, val_const(a, TMA_MAX_STRIDE)));
    if (val_is_const_eq(ok, 1))
        return true;
    if (val_is_const(ok))
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE, "%s (it is %lld bytes)", msg,
                         (long long)bytes->c);
    return add_check(t, ok, msg);
}

/* The FTTC case (seed 001, step 3): an element stride that does not divide
   the box leaves holes in the box's last stride phase; TMA reaches past the
   box's end for them, i.e. into the next box, and only past the tensor's end
   are they zeros (load) or skipped (store). A store would write its holes
   over the next box's elements: weft refuses it unless the tensor's extent
   along the dimension fits in the box. A load only leaves the next box's
   elements in the holes, which a reader guarded to the box never reads (the
   seed's Figure 14 (a)): it is accepted, and its readers are checked after
   placement (lower_tma_check_holes). */
static bool check_fttc(tma_env *t, lower_tma *m, int d, const tma_entry *e, const char *split) {
    wf_arena *a = t->c->a;
    int64_t box = m->info.box[d], s = e->estride, fit = (box + s - 1) / s * s;
    char msg[900];
    snprintf(msg, sizeof msg,
             "T%d: %s, the element stride of TMA dimension %d, does not divide the box of %lld "
             "elements, and T%d is larger than the box along that dimension: the last stride "
             "phase of each box reaches past its end, where %s (seed 001, the fundamental "
             "theorem of TMA correctness, FTTC)",
             t->cons->id, split, d, (long long)box, t->gmem->id,
             m->info.is_store ? "the TMA store would write the tile's holes over the next box's "
                                "elements, which would be silently wrong"
                              : "the TMA load puts the next box's elements into the tile's holes "
                                "instead of zeros");
    const wf_val *ok = val_lt(a, m->gdim[d], val_const(a, box + 1));
    if (box % s == 0 || val_is_const_eq(ok, 1))
        return true;
    if (!m->info.is_store) {
        m->hole_id[d] = e->strided;
        m->hole_fits[d] = ok;
        m->hole_why[d] = arena_strdup(a, msg);
        return m->hole_why[d] || err_failb(&t->c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    char fix[200];
    snprintf(fix, sizeof fix,
             ". Make the element stride divide the box (a box of %lld), or the box hold the "
             "whole extent",
             (long long)(fit <= TMA_MAX_BOX ? fit : fit - s));
    strncat(msg, fix, sizeof msg - strlen(msg) - 1);
    if (val_is_const(ok))
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE, "%s", msg);
    return add_check(t, ok, msg);
}

/* The driver's rules on a strided dimension, and the FTTC case. */
static bool check_estride(tma_env *t, lower_tma *m, int d, const tma_entry *e) {
    sbuf b = {0};
    ir_print_id(&b, e->strided);
    char split[300];
    snprintf(split, sizeof split, "the striding split of %s by %lld", sbuf_str(&b),
             (long long)e->estride);
    sbuf_free(&b);
    if (e->estride > TMA_MAX_ESTRIDE)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: %s makes TMA dimension %d's element stride %lld: " TMA_RULE_ESTRIDE
                         " Split the box by a stride of at most 8",
                         t->cons->id, split, d, (long long)e->estride);
    if (d == 0)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: %s strides the innermost TMA dimension: " TMA_RULE_ESTRIDE0
                         " Stride an outer dimension of the box, or copy the whole box",
                         t->cons->id, split);
    if (e->estride > m->info.box[d])
        return err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                         "T%d: not supported yet: an element stride larger than the box (%s, a "
                         "box of %lld elements); make the stride at most the box",
                         t->cons->id, split, (long long)m->info.box[d]);
    return check_fttc(t, m, d, e, split);
}

static bool fill_dims(tma_env *t, lower_tma *m) {
    wf_arena *a = t->c->a;
    int64_t es = (int64_t)wf_dtype_size(t->gmem->dtype), total = es;
    for (int k = 0; k < t->rank; k++) {
        int d = t->rank - 1 - k; /* dim 0 is the innermost */
        const wf_val *ext = val_const(a, 1);
        int64_t box = 1;
        for (int j = t->lo[k]; j <= t->hi[k]; j++) {
            ext = val_mul(a, ext, t->e[j].id->extent);
            box *= t->e[j].box;
        }
        m->gdim[d] = ext;
        m->gstride[d] = val_mul(a, t->e[t->hi[k]].stride, val_const(a, es));
        m->info.global_dims[d] = val_is_const(ext) ? ext->c : -1;
        m->info.global_strides_bytes[d] = val_is_const(m->gstride[d]) ? m->gstride[d]->c : -1;
        m->info.box[d] = box;
        m->info.element_strides[d] = t->e[t->lo[k]].estride; /* 1 unless alone and strided */
        total *= lower_tma_tile(&m->info, d);
        if (t->e[t->lo[k]].strided && !check_estride(t, m, d, &t->e[t->lo[k]]))
            return false;
        if (box > TMA_MAX_BOX)
            return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                             "T%d: the box of TMA dimension %d has %lld elements, more than the "
                             "256 TMA allows; split the tile IterDomains smaller",
                             t->cons->id, d, (long long)box);
        if (d > 0 && !check_stride(t, d, m->gstride[d]))
            return false;
    }
    m->info.global_strides_bytes[0] = es;
    m->info.rank = t->rank;
    m->box_bytes = total;
    if (total % TMA_ALIGN_BYTES != 0)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: The expected bytes must be a multiple of 16 bytes, but %lld is not. "
                         "Make the box larger",
                         t->cons->id, (long long)total);
    if (m->info.box[0] * es % TMA_ALIGN_BYTES != 0)
        return err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
                         "T%d: the innermost box dimension is %lld bytes, but TMA needs a multiple "
                         "of 16 bytes (boxDim[0] times the element size)",
                         t->cons->id, (long long)(m->info.box[0] * es));
    return true;
}

/* Each dim's coordinate: the merged index of its IDs, from entry indices. */
static const wf_val *dim_value(tma_env *t, int k, const wf_val *const *idx) {
    wf_arena *a = t->c->a;
    const wf_val *v = val_const(a, 0);
    for (int j = t->lo[k]; j <= t->hi[k]; j++)
        v = val_add(a, val_mul(a, v, t->e[j].id->extent), idx[j]);
    return v;
}

static bool coordinates(tma_env *t, lower_tma *m, const wf_val **idx) {
    const wf_iterdomain *ids[TMA_MAX_ENTRIES];
    for (int i = 0; i < t->n; i++)
        ids[i] = t->e[i].id;
    if (!lower_index_ids(t->c, t->s, t->cons, 0, NULL, NULL, t->n, ids, idx))
        return false;
    for (int i = 0; i < t->n; i++)
        if (!idx[i])
            return fail_id(t, "T%d: cannot compute the TMA coordinate of %s from the loops",
                           t->e[i].id);
    for (int k = 0; k < t->rank; k++)
        m->coord[t->rank - 1 - k] = dim_value(t, k, idx);
    return true;
}

/* ---- step 4: the shared-memory tensor ---- */

typedef struct {
    tma_env *t;
    lower_tma *m;
    const wf_val *dimv[TMA_MAX_RANK]; /* dims' values at the box point, dim 0 innermost */
    const wf_val *smem;               /* shared-memory index at the box point */
    const wf_val *smem0;
    unsigned ok;              /* bit k: swizzle mode k (0, 32, 64, 128 bytes) agrees so far */
    int64_t bad_elem, bad_at; /* the first disagreement with the dense layout */
} smem_check;

static bool fail_tile(tma_env *t, const char *what, long long x, long long y) {
    sbuf b = {0};
    tile_names(t, &b);
    char msg[700];
    snprintf(msg, sizeof msg, what, x, y);
    err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
              "T%d: the tile of its TMA copy (tile IterDomains %s) must be contiguous in the "
              "allocation of the shared-memory tensor T%d, as a whole number of tiles: %s",
              t->cons->id, sbuf_str(&b), t->smem->id, msg);
    sbuf_free(&b);
    return false;
}

/* One element of the box: the Bulk loops at the values p binds them to. */
static bool visit_point(void *ctx, lower_point *p) {
    smem_check *k = ctx;
    tma_env *t = k->t;
    lower_tma *m = k->m;
    int64_t es = (int64_t)wf_dtype_size(t->smem->dtype), lin = 0, at, at0;
    for (int d = t->rank - 1; d >= 0; d--) {
        int64_t v, v0;
        if (!lower_point_eval(p, k->dimv[d], &v) || !lower_point_eval(p, m->coord[d], &v0))
            return false;
        int64_t off = v - v0, s = m->info.element_strides[d];
        if (off < 0 || off >= m->info.box[d])
            return true; /* past a non-divisible split of the tile: never written */
        if (off % s != 0)
            return fail_tile(t,
                             "element %lld of the box along a dimension of element stride %lld "
                             "is not on the stride: the tile IterDomains must be the striding "
                             "split's outer output alone",
                             off, s);
        lin = lin * lower_tma_tile(&m->info, d) + off / s;
    }
    if (!lower_point_eval(p, k->smem, &at) || !lower_point_eval(p, k->smem0, &at0))
        return false;
    for (int i = 0; i < TMA_SWIZZLE_MODES; i++)
        if (lower_tma_smem_offset(lin, es, tma_swizzle_bytes[i]) != at - at0)
            k->ok &= ~(1u << i);
    if (!(k->ok & 1) && k->bad_elem < 0) {
        k->bad_elem = lin;
        k->bad_at = at - at0;
    }
    return true;
}

/* The Bulk loops around the statement, with a symbol for each one's position. */
static bool bulk_loops(tma_env *t, const kir_node **over, lower_point *p) {
    int64_t points = 1;
    p->n = 0;
    for (kir_node *n = t->s->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || n->u.loop.ptype != WF_BULK)
            continue;
        if (p->n == TMA_MAX_BULK)
            return err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED, "T%d: more than %d Bulk axes",
                             t->cons->id, TMA_MAX_BULK);
        int64_t ext = ir_id_const_extent(n->u.loop.id);
        if (ext <= 0)
            return fail_id(t,
                           "T%d: the Bulk axis %s has a symbolic extent; tiles need constant "
                           "sizes",
                           n->u.loop.id);
        points *= ext;
        char name[16];
        snprintf(name, sizeof name, "b%d", p->n);
        over[p->n] = n;
        lower_point_bind(p,
                         val_sym(t->c->a, SYM_LOOP, -1000 - p->n, 0, arena_strdup(t->c->a, name), 0,
                                 ext - 1, NULL),
                         ext);
        if (points > TMA_MAX_POINTS)
            return err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                             "T%d: the TMA box has more than %d elements", t->cons->id,
                             TMA_MAX_POINTS);
    }
    return true;
}

static bool pick_swizzle(tma_env *t, lower_tma *m, const smem_check *k) {
    int64_t es = (int64_t)wf_dtype_size(t->smem->dtype);
    if (k->ok & 1)
        return true;
    for (int i = 1; i < TMA_SWIZZLE_MODES; i++)
        if ((k->ok >> i & 1) && m->info.box[0] * es == tma_swizzle_bytes[i]) {
            m->info.swizzle_bytes = tma_swizzle_bytes[i];
            return true;
        }
    return fail_tile(t,
                     "box element %lld (counting dimension 0 fastest) is at element %lld of the "
                     "tile in shared memory, which is neither the dense position nor a "
                     "32/64/128-byte swizzle of it with the innermost box as wide as the "
                     "swizzle; order the allocation so that the tile IterDomains are "
                     "innermost and adjacent, in the order of the box",
                     k->bad_elem, k->bad_at);
}

/* The box's start in shared memory must be aligned as TMA needs: checked for
   each loop around the copy at a few of its values, the others at 0 (a start
   that depends on run-time sizes is left to the executor, which checks every
   box's address). */
static bool check_start(tma_env *t, lower_tma *m, const wf_val *start) {
    int64_t align = tma_smem_align(m->info.swizzle_bytes);
    int64_t es = (int64_t)wf_dtype_size(t->smem->dtype), at = 0;
    lower_point o = {.n = 1, .zero = true}; /* one loop at a time; run-time sizes unknown */
    o.b[0].sym = NULL;
    if (!lower_point_eval(&o, start, &at))
        return true; /* run-time sizes: the executor checks */
    bool ok = at * es % align == 0;
    for (kir_node *n = t->s->parent; ok && n; n = n->parent) {
        if (n->kind != KIR_FOR || val_is_const(n->u.loop.var))
            continue;
        int64_t ext = ir_id_const_extent(n->u.loop.id), vals[5] = {1, 2, 3, 4, ext - 1};
        o.b[0].sym = n->u.loop.var;
        for (int i = 0; i < 5 && ok; i++) {
            o.b[0].val = vals[i];
            if (vals[i] <= 0 || (ext > 0 && vals[i] >= ext))
                continue;
            if (!lower_point_eval(&o, start, &at))
                return true; /* run-time sizes: the executor checks */
            ok = at * es % align == 0;
        }
    }
    if (ok)
        return true;
    sbuf b = {0};
    val_print(&b, val_mul(t->c->a, start, val_const(t->c->a, es)));
    err_failb(&t->c->f->err, WF_ERR_SCHEDULE,
              "T%d: a TMA box starts at byte %s of the shared-memory tensor T%d, which is not "
              "always a multiple of %lld bytes, as TMA%s needs (it is %lld bytes here); allocate "
              "whole tiles%s",
              t->cons->id, sbuf_str(&b), t->smem->id, (long long)align,
              m->info.swizzle_bytes ? " with this swizzle" : "", (long long)(at * es),
              m->info.swizzle_bytes ? " of whole swizzle patterns (8 rows)" : " of 128 bytes");
    sbuf_free(&b);
    return false;
}

static bool whole_tiles(tma_env *t, lower_tma *m) {
    lower_layout l;
    if (!lower_layout_of(t->c, t->smem, &l))
        return false;
    int64_t tile = m->box_bytes / (int64_t)wf_dtype_size(t->smem->dtype);
    if (val_is_const(l.size) && l.size->c % tile != 0)
        return fail_tile(t,
                         "the allocation holds %lld elements, not a multiple of the %lld of a "
                         "tile",
                         l.size->c, tile);
    return true;
}

static bool check_smem(tma_env *t, lower_tma *m) {
    const kir_node *over[TMA_MAX_BULK];
    const wf_val *vals[TMA_MAX_BULK], *idx[TMA_MAX_ENTRIES];
    lower_point p = {.zero = true, .size = 1 << 20}; /* only the Bulk positions may matter */
    smem_check k = {.t = t, .m = m, .ok = 15, .bad_elem = -1};
    const wf_iterdomain *ids[TMA_MAX_ENTRIES];
    for (int i = 0; i < t->n; i++)
        ids[i] = t->e[i].id;
    if (!bulk_loops(t, over, &p))
        return false;
    for (int i = 0; i < p.n; i++)
        vals[i] = p.b[i].sym;
    k.smem0 = lower_index_ids(t->c, t->s, t->smem, 0, NULL, NULL, 0, NULL, NULL);
    k.smem = lower_index_ids(t->c, t->s, t->smem, p.n, over, vals, t->n, ids, idx);
    if (!k.smem || !k.smem0)
        return false;
    for (int i = 0; i < t->n; i++)
        if (!idx[i])
            return fail_id(t, "T%d: cannot index %s at the box's elements", t->e[i].id);
    for (int q = 0; q < t->rank; q++)
        k.dimv[t->rank - 1 - q] = dim_value(t, q, idx);
    if (!lower_point_each(&p, 0, INT64_MAX, visit_point, &k)) {
        if (!err_set(&t->c->f->err))
            err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                      "T%d: cannot evaluate the shared-memory layout of the TMA box of T%d (it "
                      "depends on run-time values)",
                      t->cons->id, t->smem->id);
        return false;
    }
    return pick_swizzle(t, m, &k) && check_start(t, m, k.smem0) && whole_tiles(t, m);
}

/* ---- the statement ---- */

/* Non-tile axes of the consumer on threads: each of those threads issues its
   own box (seed 001, step 5); their number must be known to count arrivals. */
static bool count_issuers(tma_env *t, lower_tma *m) {
    m->issuers = 1;
    for (kir_node *n = t->s->parent; n; n = n->parent) {
        if (n->kind != KIR_FOR || !ir_id_is_thread(n->u.loop.ptype))
            continue;
        int64_t ext = ir_id_const_extent(n->u.loop.id);
        if (ext > 0) {
            m->issuers *= ext;
            continue;
        }
        sbuf b = {0};
        ir_print_id(&b, n->u.loop.id);
        err_failb(&t->c->f->err, WF_ERR_UNSUPPORTED,
                  "T%d: not supported yet: a symbolic number of threads issuing TMA boxes (the "
                  "non-tile axis %s is parallelized on threads); give it a constant extent",
                  t->cons->id, sbuf_str(&b));
        sbuf_free(&b);
        return false;
    }
    return true;
}

bool lower_tma_infer(lower_ctx *c, kir_node *stmt, lower_tma *m) {
    const ir_op *op = stmt->u.stmt.op;
    tma_env t = {.c = c, .s = stmt, .cons = op->out};
    bool load = op->out->mem == WF_MEM_SHARED;
    t.gmem = load ? op->in[0] : op->out;
    t.smem = load ? op->out : op->in[0];
    t.st = ARENA_ARRAY(c->a, int8_t, c->f->ids.n + 1);
    if (!t.st)
        return err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    memset(m, 0, sizeof *m);
    m->info.is_store = !load;
    m->info.dtype = t.gmem->dtype;
    m->info.global_tv = t.gmem;
    m->info.shared_tv = t.smem;
    m->mbar = -1;
    const wf_val **idx = ARENA_ARRAY(c->a, const wf_val *, TMA_MAX_ENTRIES);
    return idx && count_issuers(&t, m) && build_domain(&t) && group_dims(&t) && fill_dims(&t, m) &&
           coordinates(&t, m, idx) && check_smem(&t, m);
}

/* ---- readers of a tile with holes (FTTC loads) ---- */

/* Is cond one of the conjuncts of p? */
static bool has_conjunct(const wf_val *p, const wf_val *cond) {
    if (!p)
        return false;
    if (p->kind == V_AND)
        return has_conjunct(p->a, cond) || has_conjunct(p->b, cond);
    return val_equal(p, cond);
}

/* Does the guard of statement s (the IFs around it; a collective's own
   predicate) hold only where cond does? */
static bool guarded_by(const kir_node *s, const wf_val *cond) {
    if (s->u.stmt.red >= KRED_BLOCK && has_conjunct(s->u.stmt.pred, cond))
        return true;
    for (const kir_node *n = s->parent; n; n = n->parent)
        if (n->kind == KIR_IF && has_conjunct(n->u.cond.cond, cond))
            return true;
    return false;
}

/* Reader r of m's tile, in statement s: the index it reads along hole
   dimension d must stay below the box ID's extent wherever s runs. */
static bool check_reader(lower_ctx *c, const lower_tma *m, int d, kir_node *s) {
    wf_arena *a = c->a;
    const wf_iterdomain *b = m->hole_id[d];
    const wf_val *idx = NULL;
    wf_tv *smem = s->u.stmt.op->in[0];
    for (int q = 0; smem != m->info.shared_tv && q < s->u.stmt.op->nin; q++)
        smem = s->u.stmt.op->in[q];
    if (!lower_index_ids(c, s, smem, 0, NULL, NULL, 1, &b, &idx))
        return false;
    const wf_val *in_box = idx ? val_lt(a, idx, b->extent) : NULL;
    if (idx && (val_prove_lt(idx, b->extent) || guarded_by(s, in_box)))
        return true;
    sbuf sb = {0}, si = {0};
    ir_print_id(&sb, b);
    if (idx)
        val_print(&si, idx);
    char msg[1800];
    snprintf(msg, sizeof msg,
             "%s; T%d reads T%d where the index of %s (%s) is not guarded to its extent %lld, so "
             "it would read those holes. Guard T%d to the box (schedule it like T%d, whose split "
             "of %s bounds that index), make the element stride divide the box, or the box hold "
             "the whole extent",
             m->hole_why[d], s->u.stmt.op->out->id, m->info.shared_tv->id, sbuf_str(&sb),
             idx ? sbuf_str(&si) : "unknown", (long long)ir_id_const_extent(b),
             s->u.stmt.op->out->id, m->info.shared_tv->id, sbuf_str(&sb));
    sbuf_free(&sb);
    sbuf_free(&si);
    if (val_is_const(m->hole_fits[d]))
        return err_failb(&c->f->err, WF_ERR_SCHEDULE, "%s", msg);
    lower_check chk = {.cond = m->hole_fits[d], .message = arena_strdup(a, msg)};
    return (chk.message && vec_push_arena(a, &c->out->checks, chk)) ||
           err_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
}

bool lower_tma_check_holes(lower_ctx *c) {
    for (int i = 0; i < c->out->tmas.n; i++) {
        const lower_tma *m = &c->out->tmas.ptr[i];
        for (int d = 0; d < m->info.rank; d++) {
            if (!m->hole_id[d])
                continue;
            for (int k = 0; k < c->order.n; k++) {
                const ir_op *op = c->order.ptr[k];
                for (int q = 0; q < op->nin; q++)
                    if (op->in[q] == m->info.shared_tv && !check_reader(c, m, d, c->stmt_of[k]))
                        return false;
            }
        }
    }
    return true;
}
