/*
 * interp_stats.c -- the executor's access statistics, per warp (32
 * consecutive linear thread ids) and per access: for global memory, the
 * 32-byte sectors touched; for shared memory, the wavefronts needed, i.e.
 * the most distinct 4-byte words any one of the 32 banks must serve (a word
 * read by several threads is broadcast), and at least one wavefront per 128
 * bytes. The conflict degree is the wavefronts over that least number (1 =
 * conflict-free at every access width: a 16-byte access needs 4 with no
 * conflict). Depends on nothing else of the executor.
 */
#include "runtime/interp_int.h"

static int64_t count_distinct(int64_t *v, int n) {
    int64_t d = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = v[j] == v[i];
        d += !seen;
    }
    return d;
}

/* x->addr holds, per thread, the first byte of its access (-1 if inactive). */
static void warp_stats(ix_exec *x, it_stats *s, bool shared, int bytes) {
    int64_t *units = x->units, *words = x->words; /* x->nunits: enough for 32 lanes */
    for (int w = 0; w < x->nthreads; w += 32) {
        int n = 0, lanes = x->nthreads - w < 32 ? x->nthreads - w : 32;
        int unit = shared ? 4 : 32;
        for (int t = w; t < w + lanes; t++) /* every word / sector the bytes touch */
            for (int64_t u = x->addr[t] / unit;
                 x->addr[t] >= 0 && u <= (x->addr[t] + bytes - 1) / unit; u++)
                units[n++] = u;
        if (n == 0)
            continue;
        int64_t distinct = count_distinct(units, n);
        if (!shared) {
            s->gmem_accesses++;
            s->gmem_sectors += distinct;
            continue;
        }
        int64_t per_bank[32] = {0}; /* the 32 shared-memory banks */
        int nw = 0;
        for (int i = 0; i < n; i++) {
            bool seen = false;
            for (int j = 0; j < nw && !seen; j++)
                seen = words[j] == units[i];
            if (!seen)
                per_bank[(words[nw++] = units[i]) % 32]++;
        }
        /* A vector access needs distinct / 32 wavefronts with no conflict at
           all: the conflict degree is the wavefronts over that minimum. */
        int64_t least = (distinct + 31) / 32, wave = least;
        for (int b = 0; b < 32; b++)
            wave = per_bank[b] > wave ? per_bank[b] : wave;
        int64_t degree = (wave + least - 1) / least;
        s->smem_accesses++;
        s->smem_wavefronts += wave;
        if (degree > s->smem_max_degree)
            s->smem_max_degree = (int)degree;
    }
}

void ix_record_stats(ix_exec *x, const in_node *n, int tensor, const int64_t *idx, bool vary) {
    const it_tensor *tt = &x->p->tensors[tensor];
    if (tt->space == IT_LOCAL_T || tt->space == IT_TMEM_T)
        return;
    int es = (int)wf_dtype_size(tt->dtype);
    for (int t = 0; t < x->nthreads; t++)
        x->addr[t] = x->mask[t]
                         ? idx[vary ? t : 0] * es + (tt->space == IT_SHARED_T ? x->off[tensor] : 0)
                         : -1;
    warp_stats(x, &x->p->stats[n->id], tt->space == IT_SHARED_T, es * n->vec);
}
