/*
 * util.c -- what the schedulers of src/heur share: extents for the
 * heuristics, merging ranges of axes, reordering reductions.
 */
#include "heur/heur.h"

typedef struct {
    const heur_facts *hf;
} bind_ctx;

static bool bind_size(void *ctx, const wf_val *sym, int64_t *out) {
    const heur_facts *hf = ((bind_ctx *)ctx)->hf;
    if (!hf->sizes || sym->sym != SYM_SIZE)
        return false;
    int off = 0;
    for (int i = 0; i < hf->f->inputs.n; i++) {
        wf_tv *in = hf->f->inputs.ptr[i];
        if (in->id == sym->sym_a) {
            if (sym->sym_b < 0 || sym->sym_b >= in->logical.n)
                return false;
            *out = hf->sizes[off + sym->sym_b];
            return true;
        }
        off += in->logical.n;
    }
    return false;
}

int64_t heur_extent(const heur_facts *hf, const wf_iterdomain *id) {
    if (val_is_const(id->extent))
        return id->extent->c;
    bind_ctx c = {hf};
    int64_t v;
    return val_eval(id->extent, bind_size, &c, &v) ? v : -1;
}

int64_t heur_pow2_ceil(int64_t x) {
    int64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

bool heur_merge_range(wf_tv *tv, int from, int to) {
    for (int i = from + 1; i < to; i++)
        if (!sched_merge(tv, from, from + 1))
            return false;
    return true;
}
