/*
 * interp_stats.c -- the executor's access statistics, per warp (32
 * consecutive linear thread ids) and per access: for global memory, the
 * 32-byte sectors touched; for shared memory, the wavefronts needed, i.e.
 * the most distinct 4-byte words any one of the 32 banks must serve (a word
 * read by several threads is broadcast), and at least one wavefront per 128
 * bytes. The conflict degree is the wavefronts over that least number (1 =
 * conflict-free at every access width: a 16-byte access needs 4 with no
 * conflict). A warp whose bytes form one run, or whose units lie close
 * together, is counted without comparing lanes pairwise (the same numbers).
 * Depends on nothing else of the executor.
 */
#include "runtime/interp_int.h"

#include <string.h>

/* Adds one warp access's numbers to s: distinct units (sectors or words), and
   for shared memory the distinct words per bank. */
static void account(it_stats *s, bool shared, int64_t distinct, const int64_t *per_bank) {
    if (!shared) {
        s->gmem_accesses++;
        s->gmem_sectors += distinct;
        return;
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

/* Any warp: every unit each lane touches, compared pairwise. */
static void warp_general(ix_exec *x, it_stats *s, bool shared, int bytes, const int64_t *addr,
                         int lanes) {
    int64_t *units = x->units, *words = x->words; /* x->nunits: enough for 32 lanes */
    int n = 0, unit = shared ? 4 : 32;
    for (int t = 0; t < lanes; t++) /* every word / sector the bytes touch */
        for (int64_t u = addr[t] / unit; addr[t] >= 0 && u <= (addr[t] + bytes - 1) / unit; u++)
            units[n++] = u;
    if (n == 0)
        return;
    int64_t per_bank[32] = {0}; /* the 32 shared-memory banks */
    int nw = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < nw && !seen; j++)
            seen = words[j] == units[i];
        if (!seen)
            per_bank[(words[nw++] = units[i]) % 32]++;
    }
    account(s, shared, nw, per_bank);
}

/* The units a warp touches span at most IX_SPAN of them (from a multiple of
   32): a bit per unit, distinct = set bits, bank = bit % 32. */
#define IX_SPAN 1024

/* A warp whose units are exactly lo..hi (the accesses overlap or abut). */
static void warp_run(it_stats *s, bool shared, int64_t lo, int64_t hi) {
    int64_t n = hi - lo + 1, per_bank[32];
    for (int b = 0; shared && b < 32; b++) /* the words w in lo..hi with w % 32 == b */
        per_bank[b] = n / 32 + ((b - lo % 32 + 32) % 32 < n % 32);
    account(s, shared, n, per_bank);
}

/* One warp's access (addr: its lanes' first bytes, -1 where inactive):
   where the lanes' bytes form one run, its units at once; where the units
   are close together (the common case), a bit set; warp_general otherwise.
   All three count the same. */
static void warp_stats(ix_exec *x, it_stats *s, bool shared, int bytes, const int64_t *addr,
                       int lanes) {
    int shift = shared ? 2 : 5; /* units of 4 or 32 bytes; active lanes' addresses are >= 0 */
    int64_t d = lanes > 1 ? addr[1] - addr[0] : 0;
    bool run = addr[0] >= 0 && d >= -bytes && d <= bytes;
    for (int t = 1; run && t < lanes; t++)
        run = addr[t] >= 0 && addr[t] - addr[t - 1] == d;
    if (run) {
        int64_t first = d < 0 ? addr[lanes - 1] : addr[0], last = d < 0 ? addr[0] : addr[lanes - 1];
        warp_run(s, shared, first >> shift, (last + bytes - 1) >> shift);
        return;
    }
    int64_t lo = INT64_MAX, hi = -1;
    for (int t = 0; t < lanes; t++)
        if (addr[t] >= 0) {
            int64_t a = addr[t] >> shift, b = (addr[t] + bytes - 1) >> shift;
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
    if (hi < 0)
        return; /* no lane active */
    int64_t base = lo & ~(int64_t)31;
    if (hi - base >= IX_SPAN) {
        warp_general(x, s, shared, bytes, addr, lanes);
        return;
    }
    uint64_t bits[IX_SPAN / 64];
    int nwords = (int)((hi - base) >> 6) + 1;
    memset(bits, 0, sizeof *bits * (size_t)nwords);
    for (int t = 0; t < lanes; t++)
        if (addr[t] >= 0)
            for (int64_t u = (addr[t] >> shift) - base, e = ((addr[t] + bytes - 1) >> shift) - base;
                 u <= e; u++)
                bits[u >> 6] |= (uint64_t)1 << (u & 63);
    int64_t distinct = 0, per_bank[32] = {0};
    for (int i = 0; i < nwords; i++) {
        distinct += __builtin_popcountll(bits[i]);
        for (uint64_t m = shared ? bits[i] : 0; m; m &= m - 1)
            per_bank[__builtin_ctzll(m) & 31]++;
    }
    account(s, shared, distinct, per_bank);
}

void ix_record_stats(ix_exec *x, const in_node *n, int tensor, const int64_t *idx, bool vary) {
    const it_tensor *tt = &x->p->tensors[tensor];
    if (tt->space == IT_LOCAL_T || tt->space == IT_TMEM_T)
        return;
    int64_t es = x->view[tensor].es, base = tt->space == IT_SHARED_T ? x->off[tensor] : 0;
    bool shared = tt->space == IT_SHARED_T;
    it_stats *s = &x->p->stats[n->id];
    const uint8_t *mask = x->mask;
    int64_t *addr = x->addr;
    for (int w = 0; w < x->nthreads; w += 32) {
        int lanes = x->nthreads - w < 32 ? x->nthreads - w : 32;
        for (int t = 0; t < lanes; t++)
            addr[t] = mask[w + t] ? idx[vary ? w + t : 0] * es + base : -1;
        warp_stats(x, s, shared, (int)es * n->vec, addr, lanes);
    }
}
