/*
 * pointwise.c -- the "pointwise" scheduler: a fusion without reductions.
 *
 * Like bench.h's bandwidth schedule (the one bench/add_bw.c measures): the
 * reference output's dims merged into one, split [BIDx, (unroll), TIDx,
 * vector]; with a vector width > 1 the full-rank contiguous inputs are read
 * through register caches (cache_after) and the outputs written from them
 * (cache_before), those copies vectorized (16-byte accesses where the
 * innermost extent and the element size allow: an_vector_width), other ops
 * unrolled over the vector's elements. Every other tensor takes the same
 * loops (propagate + parallelize_all_like) and is inlined as far as legal.
 */
#include "heur/heur.h"

#include <stdio.h>

typedef struct {
    int64_t threads, vec, unroll;
    bool two_d; /* [outer dims x inner blocks, threads, vector]: symbolic extents */
} pw_params;

static bool pw_can(const heur_facts *hf, char *why, size_t whysize) {
    if (hf->nred) {
        snprintf(why, whysize, "T%d is a reduction", hf->red[0]->id);
        return false;
    }
    for (int i = 0; i < hf->f->outputs.n; i++) {
        wf_tv *o = hf->f->outputs.ptr[i];
        if (o->logical.n != hf->ref->logical.n) {
            snprintf(why, whysize, "outputs T%d and T%d have different ranks (%d, %d)", hf->ref->id,
                     o->id, hf->ref->logical.n, o->logical.n);
            return false;
        }
    }
    return true;
}

/* Inputs read through a vectorized cache: full rank, read by the fusion. */
static bool vector_input(const heur_facts *hf, const wf_tv *in) {
    return in->uses.n > 0 && in->logical.n == hf->ref->logical.n;
}

static int64_t numel(const heur_facts *hf, const wf_tv *tv) {
    int64_t n = 1;
    for (int d = 0; d < tv->logical.n; d++) {
        int64_t e = heur_extent(hf, tv->logical.ptr[d]);
        if (e < 0)
            return -1;
        n *= e;
    }
    return n;
}

static void pw_heuristics(const heur_facts *hf, void *params) {
    pw_params *p = params;
    wf_fusion *f = hf->f;
    wf_tv *ref = hf->ref;
    int n = ref->logical.n;
    p->threads = 128;
    p->vec = 1;
    p->unroll = 1;
    if (n == 0)
        return;
    int64_t inner = heur_extent(hf, ref->logical.ptr[n - 1]);
    /* A symbolic innermost extent: its rows may start anywhere (wf_auto_kernel
       makes it concrete for signatures whose rows allow vectors). */
    int64_t v = hf->has_permute || !val_is_const(ref->logical.ptr[n - 1]->extent) ? 1 : 16;
    for (int i = 0; v > 1 && i < f->outputs.n + f->inputs.n; i++) {
        wf_tv *t = i < f->outputs.n ? f->outputs.ptr[i] : f->inputs.ptr[i - f->outputs.n];
        if (i >= f->outputs.n && !vector_input(hf, t))
            continue;
        int64_t want = hf->dev->max_vector_bytes / (int64_t)wf_dtype_size(t->dtype);
        int64_t w = an_vector_width(t, inner, want < v ? want : v);
        v = w < v ? w : v;
    }
    p->vec = v;
    /* A merge of symbolic extents cannot be proven contiguous for vectors, and
       a generic inner extent may be short: split the innermost dim on its own. */
    for (int d = 0; d < n; d++)
        if (!val_is_const(ref->logical.ptr[d]->extent))
            p->two_d = n > 1;
    int64_t total = numel(hf, ref);
    if (total > 0) {
        int64_t per_thread_blocks = total / (p->vec * p->threads);
        int64_t sms = hf->dev->sm_count;
        p->unroll = per_thread_blocks >= sms * 64 ? 4 : per_thread_blocks >= sms * 16 ? 2 : 1;
        /* Small tensors: fewer threads per block, more blocks. */
        while (p->threads > 32 && total / (p->vec * p->threads) < sms)
            p->threads /= 2;
    }
    if (p->two_d && inner > 0)
        while (p->threads > 32 && p->threads / 2 >= (inner + p->vec - 1) / p->vec)
            p->threads /= 2;
}

static bool pw_apply(const heur_facts *hf, const void *params, heur_result *out) {
    const pw_params *p = params;
    wf_fusion *f = hf->f;
    wf_tv *ref = hf->ref;
    int n = ref->logical.n;
    wf_tv *caches[64];
    int ncache = 0;
    if (p->vec > 1) {
        int nin = f->inputs.n, nout = f->outputs.n;
        for (int i = 0; i < nin && ncache < 64; i++)
            if (vector_input(hf, f->inputs.ptr[i]))
                if (!(caches[ncache++] = sched_cache_after(f->inputs.ptr[i])))
                    return false;
        for (int i = 0; i < nout && ncache < 64; i++)
            if (!(caches[ncache++] = sched_cache_before(f->outputs.ptr[i])))
                return false;
    }
    if (n == 0) {
        snprintf(out->summary, sizeof out->summary, "rank 0: one thread");
        return sched_inline_most(f);
    }
    int ax = 0;
    if (p->two_d) { /* [outer, inner] -> [outer * inner/(vec threads), threads, vec] */
        if (!heur_merge_range(ref, 0, n - 1))
            return false;
        if (p->vec > 1 && !sched_split(ref, 1, p->vec, true))
            return false;
        if (!sched_split(ref, 1, p->threads, true) || !sched_merge(ref, 0, 1))
            return false;
    } else {
        if (!heur_merge_range(ref, 0, n))
            return false;
        if (p->vec > 1 && !sched_split(ref, 0, p->vec, true))
            return false;
        if (!sched_split(ref, 0, p->threads, true))
            return false;
    }
    if (p->unroll > 1 && !sched_split(ref, 0, p->unroll, true))
        return false;
    if (!sched_propagate(ref))
        return false;
    if (!sched_parallelize(ref, ax++, WF_BIDX))
        return false;
    if (p->unroll > 1 && !sched_parallelize(ref, ax++, WF_UNROLL))
        return false;
    if (!sched_parallelize(ref, ax++, WF_TIDX))
        return false;
    unsigned mask = (1u << WF_BIDX) | (1u << WF_TIDX) | (1u << WF_UNROLL);
    if (!sched_parallelize_all_like(ref, mask))
        return false;
    if (p->vec > 1) {
        for (int i = 0; i < f->outputs.n; i++) {
            wf_tv *o = f->outputs.ptr[i];
            if (!sched_parallelize(o, o->loop.n - 1, WF_VECTORIZE))
                return false;
        }
        for (int i = 0; i < ncache; i++) {
            wf_tv *c = caches[i];
            bool is_input_cache = c->def && c->def->kind == OP_SET && c->def->in[0]->is_input;
            if (is_input_cache && !sched_parallelize(c, c->loop.n - 1, WF_VECTORIZE))
                return false;
        }
    }
    if (!sched_inline_most(f))
        return false;
    if (p->unroll > 1) /* all loads of a thread before its first store */
        for (int i = 0; i < ncache; i++)
            if (!sched_inline_at(caches[i], 1))
                return false;
    snprintf(out->summary, sizeof out->summary,
             "%s over %d dim%s, threads %lld, vector %lld, unroll %lld", p->two_d ? "2-D" : "1-D",
             n, n == 1 ? "" : "s", (long long)p->threads, (long long)p->vec, (long long)p->unroll);
    return true;
}

const heur_scheduler heur_pointwise = {"pointwise", pw_can, pw_heuristics, pw_apply};
