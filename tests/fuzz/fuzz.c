/*
 * fuzz.c -- random fusions, random (valid and invalid) schedules and API
 * misuse, checked against the plain reference (tests/ref.c).
 *
 * Each case is a pure function of (seed, case number). It builds a fusion of
 * 1-3 inputs (concrete or symbolic extents, several dtypes) and 2-9 ops
 * (unary, binary with broadcasts, casts, sets, transposes, permutes), makes
 * several outputs, then applies a random schedule: split/merge/reorder/
 * swizzle/parallelize/inline/cache/set_memory/set_allocation_domain/
 * set_loop_domain/loop_broadcast/compute_at/reverse_compute_at with random
 * axes (out of range and negative too) and
 * random factors, and now and then one API misuse (NULL handles, a tensor of
 * another fusion, wrong buffers and counts to wf_run). Then:
 *   - a rejection must be a clean error: a status, and a message that is not
 *     empty and names something concrete (a tensor T<n>, an axis, an
 *     argument, an API function);
 *   - an accepted fusion runs on the CPU executor with random inputs and
 *     poisoned outputs and must equal the reference (NaN equals NaN), or be
 *     refused before running for size reasons;
 *   - a crash, abort, ASan/UBSan report or leak is a failure; the signal
 *     handler prints the case to replay.
 * Usage: fuzz [-t seconds] [-n cases] [-s seed] [-c case] [-v] [-a]
 *   -t is a budget of CPU seconds of this process, not of wall time: on a
 *   shared machine (make test runs the fuzzer beside the other checks) the
 *   run takes longer but covers as many cases as on an idle one.
 *   -c replays one case (with -v: prints it as C calls and its transforms);
 *   -a turns off every known-finding switch of known.h.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include "fuzz/known.h"
#include "ir/ir.h"
#include "ref.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define HAVE_LSAN 1
#else
#define HAVE_LSAN 0
#endif

static uint64_t g_seed, g_case;
static const char *g_kinds = ""; /* " -k LIST", " -a" as given: for replay lines */
static int g_known;              /* wrong results explained by a known class */

void fz_trace(fcase *c, const char *fmt, ...) {
    if (c->verbose < 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("    ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static void on_signal(int sig) {
    char buf[200];
    int n =
        snprintf(buf, sizeof buf,
                 "\nfuzz: signal %d in seed %llu case %llu; replay: fuzz -s %llu -c %llu%s -v\n",
                 sig, (unsigned long long)g_seed, (unsigned long long)g_case,
                 (unsigned long long)g_seed, (unsigned long long)g_case, g_kinds);
    if (write(2, buf, (size_t)n) < 0)
        _exit(3);
    signal(sig, SIG_DFL);
    raise(sig);
}

static wf_dtype pick_dtype(rng *r) {
    static const wf_dtype d[] = {WF_F32, WF_F32, WF_F32, WF_F64, WF_F16, WF_BF16, WF_I32, WF_I64};
    return d[rnd(r, sizeof d / sizeof *d)];
}

static void make_inputs(fcase *c) {
    static const int64_t pick[] = {1, 2, 3, 4, 5, 7, 8, 16, 17, 32};
    c->nin = 1 + (int)rnd(&c->r, MAX_IN);
    for (int i = 0; i < c->nin; i++) {
        int nd = 1 + (int)rnd(&c->r, 3);
        int64_t decl[WF_MAX_RANK], shape[WF_MAX_RANK];
        /* Later inputs often reuse the first one's extents so that binary ops can pair them. */
        bool same = i > 0 && chance(&c->r, 70);
        if (same)
            nd = c->n[0].ndim;
        int64_t numel = 1;
        for (int d = 0; d < nd; d++) {
            shape[d] = same ? c->n[0].shape[d] : pick[rnd(&c->r, sizeof pick / sizeof *pick)];
            /* At most MAX_NUMEL elements: a schedule may replicate the work per thread. */
            while (!same && numel * shape[d] > MAX_NUMEL)
                shape[d] = pick[rnd(&c->r, 6)];
            numel *= shape[d];
            decl[d] = chance(&c->r, 20) ? -1 : shape[d];
            c->sym[i * 8 + d] = shape[d];
        }
        wf_dtype dt = pick_dtype(&c->r);
        node *n = add_node(c, wf_input(c->f, dt, nd, decl), nd);
        fz_trace(c,
                 "wf_tv *t%d = wf_input(f, %d, %d, (int64_t[]){%lld, %lld, %lld}); /* run at "
                 "%lld x %lld x %lld */",
                 c->nn - 1, (int)dt, nd, (long long)decl[0], (long long)(nd > 1 ? decl[1] : 0),
                 (long long)(nd > 2 ? decl[2] : 0), (long long)shape[0],
                 (long long)(nd > 1 ? shape[1] : 0), (long long)(nd > 2 ? shape[2] : 0));
        for (int d = 0; n && d < nd; d++) {
            n->shape[d] = shape[d];
            n->orig[d] = 1u << (i * 8 + d);
        }
    }
}

/* Input dims an op maps together: union-find over input * 8 + dim. */
static int uf_find(int *uf, int x) {
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Union the dims of a and b position by position (into uf). */
static void uf_join(int *uf, const node *a, const node *b) {
    for (int d = 0; d < a->ndim; d++) {
        uint32_t m = a->orig[d] | b->orig[d];
        for (int x = 0, first = -1; x < MAX_IN * 8; x++)
            if (m & (1u << x)) {
                if (first < 0)
                    first = x;
                uf[uf_find(uf, x)] = uf_find(uf, first);
            }
    }
}

/* Two positions of n hold mapped dims (an input dim at two places). */
static bool node_self_maps(int *uf, const uint32_t *orig, int ndim) {
    int cls[WF_MAX_RANK];
    for (int d = 0; d < ndim; d++) {
        cls[d] = -1;
        for (int x = 0; x < MAX_IN * 8 && cls[d] < 0; x++)
            if (orig[d] & (1u << x))
                cls[d] = uf_find(uf, x);
        for (int e = 0; e < d; e++)
            if (cls[d] >= 0 && cls[d] == cls[e])
                return true;
    }
    return false;
}

/* Would a binary op on a and b map two dims of one input together, at any
   tensor of the case (the self-mapping class)? Mapping is global: a later op
   can map the two dims of an earlier outer product. */
static bool self_mapping(const fcase *c, const node *a, const node *b) {
    int uf[MAX_IN * 8];
    uint32_t res[WF_MAX_RANK];
    memcpy(uf, c->uf, sizeof uf);
    uf_join(uf, a, b);
    for (int x = 0; x < MAX_IN * 8; x++)
        for (int y = x + 1; y < (x / 8 + 1) * 8; y++)
            if (uf_find(uf, x) == uf_find(uf, y))
                return true;
    for (int i = 0; i < c->nn; i++)
        if (node_self_maps(uf, c->n[i].orig, c->n[i].ndim))
            return true;
    for (int d = 0; d < a->ndim; d++)
        res[d] = a->orig[d] | b->orig[d];
    return node_self_maps(uf, res, a->ndim);
}

/* b can pair with a in a binary op: same rank, equal extents or a broadcast dim. */
static bool pairs(const node *a, const node *b) {
    if (a->ndim != b->ndim)
        return false;
    int64_t numel = 1; /* outer products stay small: MAX_NUMEL elements */
    for (int d = 0; d < a->ndim; d++)
        numel *= a->shape[d] > b->shape[d] ? a->shape[d] : b->shape[d];
    if (numel > MAX_NUMEL)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d] && a->orig[d] && b->orig[d])
            return false;
    return true;
}

static void op_unary(fcase *c, node *a) {
    if (a->inexact_half)
        return; /* a rounded sum takes no arithmetic (fuzz_reduce.c) */
    int op = (int)rnd(&c->r, WF_RECIPROCAL + 1);
    bool float_only = op >= WF_EXP && op != WF_RELU;
    if (c->known && KNOWN_TYPE_PROMOTION && float_only && !is_float(a->dt))
        op = WF_NEG;
    if (c->known && KNOWN_INT_ARITHMETIC && op == WF_RECIPROCAL && !is_float(a->dt))
        op = WF_ABS;
    if (a->inexact && op != WF_NEG && op != WF_ABS && op != WF_RELU)
        op = WF_NEG; /* exp, log, ... would magnify a last-bit difference */
    node *o = add_node(c, wf_unary((wf_unary_op)op, a->tv), a->ndim);
    fz_trace(c, "wf_tv *t%d = wf_unary(%d, t%d);", c->nn - 1, op, (int)(a - c->n));
    if (o) {
        memcpy(o->shape, a->shape, sizeof o->shape);
        memcpy(o->orig, a->orig, sizeof o->orig);
        mark_inexact(o, a, NULL);
    }
}

static void op_binary(fcase *c, node *a) {
    int cand[MAX_NODES], nc = 0;
    for (int i = 0; i < c->nn; i++) {
        node *b = &c->n[i];
        if (!pairs(a, b) || b->inexact_half)
            continue;
        if (c->known && KNOWN_SELF_MAPPING && self_mapping(c, a, b))
            continue;
        if (c->known && KNOWN_TYPE_PROMOTION && a->dt != b->dt)
            continue;
        cand[nc++] = i;
    }
    if (!nc || a->inexact_half)
        return;
    node *b = &c->n[cand[rnd(&c->r, (unsigned)nc)]];
    int op = (int)rnd(&c->r, WF_POW + 1);
    if (c->known && KNOWN_INT_ARITHMETIC && (op == WF_DIV || op == WF_POW || op == WF_MUL) &&
        !is_float(a->dt))
        op = WF_SUB; /* squaring chains overflow int64 */
    if (op == WF_POW && chance(&c->r, 50))
        op = WF_MUL; /* pow of [-10, 10] is mostly NaN or huge */
    bool inexact = a->inexact || b->inexact;
    if (inexact && (op == WF_DIV || op == WF_POW))
        op = WF_ADD; /* a near-zero divisor magnifies a last-bit difference */
    node *o = add_node(c, wf_binary((wf_binary_op)op, a->tv, b->tv), a->ndim);
    fz_trace(c, "wf_tv *t%d = wf_binary(%d, t%d, t%d);", c->nn - 1, op, (int)(a - c->n),
             (int)(b - c->n));
    b->nuses++;
    uf_join(c->uf, a, b);
    for (int d = 0; d < a->ndim; d++)
        c->expanded |= !a->orig[d] != !b->orig[d];
    for (int d = 0; o && d < a->ndim; d++) {
        o->shape[d] = a->orig[d] ? a->shape[d] : b->shape[d];
        o->orig[d] = a->orig[d] | b->orig[d];
    }
    if (o)
        mark_inexact(o, a, b);
}

static void op_permute(fcase *c, node *a) {
    int perm[WF_MAX_RANK];
    if (a->ndim < 1)
        return; /* a full reduction's 0-D result */
    for (int i = 0; i < a->ndim; i++)
        perm[i] = i;
    for (int i = a->ndim - 1; i > 0; i--) {
        int j = (int)rnd(&c->r, (unsigned)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    wf_tv *tv;
    if (a->ndim == 2 || chance(&c->r, 30)) {
        int d0 = (int)rnd(&c->r, (unsigned)a->ndim), d1 = (int)rnd(&c->r, (unsigned)a->ndim);
        for (int i = 0; i < a->ndim; i++)
            perm[i] = i == d0 ? d1 : i == d1 ? d0 : i;
        tv = wf_transpose(a->tv, d0, d1);
        fz_trace(c, "wf_tv *t%d = wf_transpose(t%d, %d, %d);", c->nn, (int)(a - c->n), d0, d1);
    } else {
        tv = wf_permute(a->tv, perm);
        fz_trace(c, "wf_tv *t%d = wf_permute(t%d, (int[]){%d, %d, %d});", c->nn, (int)(a - c->n),
                 perm[0], perm[1], perm[2]);
    }
    node *o = add_node(c, tv, a->ndim);
    for (int d = 0; o && d < a->ndim; d++) {
        o->shape[d] = a->shape[perm[d]];
        o->orig[d] = a->orig[perm[d]];
    }
    if (o)
        mark_inexact(o, a, NULL);
}

static void op_broadcast(fcase *c, node *a) {
    if (a->ndim >= 3)
        return;
    bool bc[WF_MAX_RANK] = {false};
    int at = (int)rnd(&c->r, (unsigned)a->ndim + 1);
    bc[at] = true;
    node *o = add_node(c, wf_broadcast(a->tv, a->ndim + 1, bc), a->ndim + 1);
    fz_trace(c, "wf_tv *t%d = wf_broadcast(t%d, %d, bc at %d);", c->nn - 1, (int)(a - c->n),
             a->ndim + 1, at);
    for (int d = 0, s = 0; o && d < a->ndim + 1; d++) {
        o->shape[d] = d == at ? 1 : a->shape[s];
        o->orig[d] = d == at ? 0 : a->orig[s++];
    }
    if (o)
        mark_inexact(o, a, NULL);
}

static void op_cast(fcase *c, node *a) {
    wf_dtype t = pick_dtype(&c->r);
    if (c->known && KNOWN_FLOAT_INT_CAST && is_float(a->dt) && !is_float(t))
        t = WF_F32;
    if (a->inexact && !is_float(t))
        t = WF_F32; /* truncation would turn a last-bit difference into 1 */
    node *o = add_node(c, chance(&c->r, 30) ? wf_set(a->tv) : wf_cast(a->tv, t), a->ndim);
    if (!o)
        return;
    mark_inexact(o, a, NULL);
    fz_trace(c, "wf_tv *t%d = wf_cast(t%d, %d); (or wf_set)", c->nn - 1, (int)(a - c->n), (int)t);
    memcpy(o->shape, a->shape, sizeof o->shape);
    memcpy(o->orig, a->orig, sizeof o->orig);
}

static void make_ops(fcase *c) {
    int nops = 2 + (int)rnd(&c->r, 8);
    for (int i = 0; i < nops && c->nn < MAX_NODES; i++) {
        node *a = &c->n[rnd(&c->r, (unsigned)c->nn)];
        a->nuses++;
        switch (rnd(&c->r, 7)) {
        case 0:
            op_unary(c, a);
            break;
        case 6:
            fz_op_reduce(c, a);
            break;
        case 1:
        case 2:
            op_binary(c, a);
            break;
        case 3:
            op_permute(c, a);
            break;
        case 4:
            op_broadcast(c, a);
            break;
        default:
            op_cast(c, a);
            break;
        }
    }
}

/* Every unused non-input tensor is an output; now and then an intermediate too. */
static void make_outputs(fcase *c) {
    int nout = 0;
    for (int i = c->nin; i < c->nn; i++)
        if (!c->n[i].nuses || chance(&c->r, 15)) {
            wf_output(c->f, c->n[i].tv);
            fz_trace(c, "wf_output(f, t%d);", i);
            nout++;
        }
    if (!nout) {
        node *a = &c->n[rnd(&c->r, (unsigned)c->nn)];
        node *o = add_node(c, wf_set(a->tv), a->ndim);
        if (o) {
            memcpy(o->shape, a->shape, sizeof o->shape);
            memcpy(o->orig, a->orig, sizeof o->orig);
            mark_inexact(o, a, NULL);
            wf_output(c->f, o->tv);
            fz_trace(c, "wf_tv *t%d = wf_set(t%d); wf_output(f, t%d);", c->nn - 1, (int)(a - c->n),
                     c->nn - 1);
        }
    }
}

/* ---- schedules ---- */

/* Mostly a valid axis; sometimes negative or out of range. */
static int axis(fcase *c, wf_tv *tv) {
    int n = wf_tv_ndim(tv);
    if (n <= 0 || chance(&c->r, 8))
        return (int)rnd(&c->r, 12) - 6;
    return chance(&c->r, 15) ? -1 - (int)rnd(&c->r, (unsigned)n) : (int)rnd(&c->r, (unsigned)n);
}

static int64_t factor(fcase *c) {
    static const int64_t odd[] = {0, -1, -4, INT64_MAX, INT64_MIN, ((int64_t)1 << 40), 1000003};
    if (chance(&c->r, 5)) {
        int64_t x = odd[rnd(&c->r, sizeof odd / sizeof *odd)];
        c->huge_factor |= x > 1000;
        if (c->known && KNOWN_HUGE_SPLIT && c->huge_factor)
            return 33; /* 2^20 and more iterations per element would run for hours */
        return x;
    }
    return 1 + rnd(&c->r, 8);
}

static wf_tv *any_tv(fcase *c) {
    return c->f->tvs.ptr[rnd(&c->r, (unsigned)c->f->tvs.n)];
}

static void sched_domains(fcase *c, wf_tv *tv) {
    int n = 0;
    wf_iterdomain *const *loop = wf_tv_loop_domain(tv, &n);
    wf_iterdomain *ids[WF_MAX_RANK * 4];
    if (!loop || n <= 0 || n > WF_MAX_RANK * 4)
        return;
    int m = n;
    for (int i = 0; i < n; i++)
        ids[i] = loop[i];
    for (int i = n - 1; i > 0; i--) { /* permute; sometimes drop or repeat an id */
        int j = (int)rnd(&c->r, (unsigned)i + 1);
        wf_iterdomain *t = ids[i];
        ids[i] = ids[j];
        ids[j] = t;
    }
    c->set_domains = true;
    if (chance(&c->r, 15) && m > 1)
        m--;
    if (chance(&c->r, 10) && m > 1)
        ids[0] = ids[1];
    if (chance(&c->r, 50)) {
        bool contig = chance(&c->r, 70);
        fz_trace(c, "wf_tv_set_allocation_domain(T%d, %d, ..., %d);", tv->id, m, contig);
        wf_tv_set_allocation_domain(tv, m, ids, contig);
    } else {
        int ln = 0;
        wf_iterdomain *const *logical = wf_tv_logical_domain(tv, &ln);
        if (chance(&c->r, 30) && logical && ln <= WF_MAX_RANK) {
            m = ln;
            memcpy(ids, logical, sizeof *ids * (size_t)ln);
        }
        fz_trace(c, "wf_tv_set_loop_domain(T%d, %d, ...);", tv->id, m);
        wf_tv_set_loop_domain(tv, m, ids);
    }
}

static void sched_parallel(fcase *c, wf_tv *tv) {
    static const wf_ptype p[] = {WF_BIDX,   WF_BIDY,      WF_TIDX, WF_TIDY, WF_TIDZ, WF_SERIAL,
                                 WF_UNROLL, WF_VECTORIZE, WF_BIDZ, WF_DIDX, WF_BULK, WF_MMA};
    unsigned np = chance(&c->r, 90) ? 7 : sizeof p / sizeof *p;
    int ax = axis(c, tv);
    wf_ptype t = p[rnd(&c->r, np)];
    bool thread_or_block = t >= WF_BIDX && t <= WF_TIDZ;
    if (c->known && KNOWN_LAUNCH_LIMITS && t == WF_TIDZ)
        t = WF_TIDY;
    /* Conflicting types on several tensors can replicate the whole work on
       millions of executor threads: steer around F5 rather than time out. */
    if (c->known && KNOWN_PARALLEL_CONFLICT && thread_or_block && c->par_tv && c->par_tv != tv)
        t = WF_UNROLL;
    fz_trace(c, "wf_tv_parallelize(T%d, %d, %d);", tv->id, ax, (int)t);
    if (t >= WF_BIDX && t <= WF_TIDZ) {
        c->par_mixed |= c->par_tv && c->par_tv != tv;
        c->par_tv = tv;
    }
    wf_tv_parallelize(tv, ax, t);
}

static void sched_one(fcase *c, wf_tv *tv) {
    int a = axis(c, tv), b = axis(c, tv);
    int64_t fa = factor(c);
    switch (rnd(&c->r, 14)) {
    case 0:
    case 1:
        fz_trace(c, "wf_tv_split(T%d, %d, %lld);", tv->id, a, (long long)fa);
        wf_tv_split(tv, a, fa);
        break;
    case 2:
        fz_trace(c, "wf_tv_split_outer(T%d, %d, %lld);", tv->id, a, (long long)fa);
        wf_tv_split_outer(tv, a, fa);
        break;
    case 3:
        fz_trace(c, "wf_tv_merge(T%d, %d);", tv->id, a);
        wf_tv_merge(tv, a);
        break;
    case 4:
        fz_trace(c, "wf_tv_merge_axes(T%d, %d, %d);", tv->id, a, b);
        wf_tv_merge_axes(tv, a, b);
        break;
    case 5: {
        int pairs[1][2] = {{a, b}};
        fz_trace(c, "wf_tv_reorder(T%d, 1, {{%d, %d}});", tv->id, a, b);
        wf_tv_reorder(tv, 1, (const int(*)[2])pairs);
        break;
    }
    case 6:
        fz_trace(c, "wf_tv_swizzle(T%d, XOR, %d, %d);", tv->id, a, b);
        wf_tv_swizzle(tv, WF_SWIZZLE_XOR, a, b);
        break;
    case 7:
    case 8:
        sched_parallel(c, tv);
        break;
    case 9: {
        int pos = (int)rnd(&c->r, (unsigned)wf_tv_ndim(tv) + 3) - 1;
        fz_trace(c, "wf_tv_inline_at(T%d, %d);", tv->id, pos);
        wf_tv_inline_at(tv, pos);
        break;
    }
    case 10: {
        wf_memtype m = (wf_memtype)rnd(&c->r, chance(&c->r, 90) ? 3 : 4);
        fz_trace(c, "wf_tv_set_memory(T%d, %d);", tv->id, (int)m);
        wf_tv_set_memory(tv, m);
        break;
    }
    case 11:
        if (chance(&c->r, 30))
            sched_domains(c, tv);
        break;
    case 12:
        fz_trace(c, "wf_propagate_transforms(T%d);", tv->id);
        wf_propagate_transforms(tv);
        c->whole_fusion_after_rfactor |= c->rfactored;
        break;
    default:
        fz_trace(c, "wf_parallelize_all_like(T%d, 0);", tv->id);
        wf_parallelize_all_like(tv, 0);
        c->whole_fusion_after_rfactor |= c->rfactored;
        break;
    }
}

/* A tensor that reads t (NULL if none). */
static wf_tv *a_consumer(fcase *c, const wf_tv *t) {
    if (!t->uses.n)
        return NULL;
    const ir_op *op = t->uses.ptr[rnd(&c->r, (unsigned)t->uses.n)];
    return op->out;
}

/* The placement calls that came after the first fuzzer (F22): a loop broadcast
   (a producer computed inside a loop it does not index), compute_at /
   reverse_compute_at at random positions (out of range too), each on a random
   producer-consumer pair, sometimes several. */
static void sched_placement(fcase *c) {
    for (int i = 0, n = 1 + (int)rnd(&c->r, 3); i < n; i++) {
        wf_tv *t = any_tv(c), *u = a_consumer(c, t);
        int pos = (int)rnd(&c->r, (unsigned)wf_tv_ndim(u ? u : t) + 3) - 1;
        switch (rnd(&c->r, 3)) {
        case 0:
            fz_trace(c, "wf_tv_loop_broadcast(T%d, %d);", t->id, pos);
            wf_tv_loop_broadcast(t, pos);
            break;
        case 1:
            if (!u)
                break;
            fz_trace(c, "wf_compute_at(T%d, T%d, %d);", t->id, u->id, pos);
            wf_compute_at(t, u, pos);
            break;
        default:
            if (!u)
                break;
            fz_trace(c, "wf_reverse_compute_at(T%d, T%d, %d);", u->id, t->id, pos);
            wf_reverse_compute_at(u, t, pos);
            break;
        }
    }
}

static void schedule(fcase *c) {
    /* Most cases with a reduction get a reduction schedule first; some then
       end with inlining, the others go on with random moves like any case. */
    if (c->nreds && chance(&c->r, 60) && fz_sched_reduction(c) && chance(&c->r, 60)) {
        if (chance(&c->r, 70)) {
            fz_trace(c, "wf_inline_most(f);");
            wf_inline_most(c->f);
        }
        return;
    }
    if (chance(&c->r, 30)) {
        wf_tv *t = c->n[rnd(&c->r, (unsigned)c->nin)].tv;
        fz_trace(c, "wf_cache_after(T%d);", t->id);
        wf_cache_after(t);
        c->whole_fusion_after_rfactor |= c->rfactored;
    }
    /* a cache of a reduction's result (F19: only with the switch off, so
       that the other cases replay as before) */
    if (!(c->known && KNOWN_CACHE_AFTER_REDUCTION) && c->nreds && chance(&c->r, 20)) {
        wf_tv *t = c->reds[rnd(&c->r, (unsigned)c->nreds)];
        fz_trace(c, "wf_cache_after(T%d);", t->id);
        wf_cache_after(t);
        c->whole_fusion_after_rfactor |= c->rfactored;
    }
    if (chance(&c->r, 20)) {
        wf_tv *t = any_tv(c);
        fz_trace(c, "wf_cache_before(T%d);", t->id);
        wf_cache_before(t);
        c->whole_fusion_after_rfactor |= c->rfactored;
    }
    wf_tv *ref = c->f->outputs.n ? c->f->outputs.ptr[0] : any_tv(c);
    for (int i = 0, n = (int)rnd(&c->r, 5); i < n; i++)
        sched_one(c, ref);
    if (chance(&c->r, 70)) {
        fz_trace(c, "wf_propagate_transforms(T%d);", ref->id);
        wf_propagate_transforms(ref);
        c->whole_fusion_after_rfactor |= c->rfactored;
    }
    for (int i = 0, n = (int)rnd(&c->r, 3); i < n; i++)
        sched_parallel(c, ref);
    if (chance(&c->r, 60)) {
        fz_trace(c, "wf_parallelize_all_like(T%d, 0);", ref->id);
        wf_parallelize_all_like(ref, 0);
        c->whole_fusion_after_rfactor |= c->rfactored;
    }
    for (int i = 0, n = (int)rnd(&c->r, 4); i < n; i++)
        sched_one(c, any_tv(c));
    if (!(c->known && KNOWN_PLACEMENT) && chance(&c->r, 25))
        sched_placement(c);
    if (chance(&c->r, 50)) {
        fz_trace(c, "wf_inline_most(f);");
        wf_inline_most(c->f);
    } else if (chance(&c->r, 50)) {
        int pos = (int)rnd(&c->r, (unsigned)wf_tv_ndim(ref) + 1);
        fz_trace(c, "wf_inline_all_at(T%d, %d);", ref->id, pos);
        wf_inline_all_at(ref, pos);
    }
}

/* ---- checking ---- */

/* A message names something concrete: a tensor T<n>, an IterDomain, an axis,
   an argument or an API function. */
static bool concrete(const char *msg) {
    if (!msg || strlen(msg) < 12)
        return false;
    for (const char *p = strchr(msg, 'T'); p; p = strchr(p + 1, 'T'))
        if (p[1] >= '0' && p[1] <= '9')
            return true;
    static const char *words[] = {"axis",     "axes",   "wf_",    "{",   "input",
                                  "output",   "buffer", "factor", "dim", "NULL",
                                  "position", "launch", "size"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(msg, words[i]))
            return true;
    return false;
}

int fz_fail(fcase *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(c->why, sizeof c->why, "(%s) ", c->stage);
    vsnprintf(c->why + n, sizeof c->why - (size_t)n, fmt, ap);
    va_end(ap);
    return 1;
}

static void print_failure(const fcase *c) {
    printf("FAIL seed %llu case %llu %s\n  replay: fuzz -s %llu -c %llu%s -v\n",
           (unsigned long long)g_seed, (unsigned long long)g_case, c->why,
           (unsigned long long)g_seed, (unsigned long long)g_case, g_kinds);
}

/* F5: two loops of one tensor on one thread or block type. */
static bool has_duplicate_ptype(const fcase *c) {
    for (int i = 0; i < c->f->tvs.n; i++) {
        const wf_tv *tv = c->f->tvs.ptr[i];
        unsigned seen = 0;
        for (int d = 0; d < tv->loop.n; d++) {
            wf_ptype p = tv->loop.ptr[d]->ptype;
            if (p < WF_BIDX || p > WF_TIDZ)
                continue;
            if (seen & (1u << p))
                return true;
            seen |= 1u << p;
        }
    }
    return false;
}

/* F7: a block-parallel loop somewhere, and a global tensor some op reads
   that the kernel writes (an output that is also an operand). */
static bool grid_dependency(const fcase *c) {
    bool bid = false, global_raw = false;
    for (int i = 0; i < c->f->tvs.n; i++) {
        const wf_tv *tv = c->f->tvs.ptr[i];
        for (int d = 0; d < tv->loop.n; d++)
            bid |= tv->loop.ptr[d]->ptype >= WF_BIDX && tv->loop.ptr[d]->ptype <= WF_BIDZ;
        global_raw |= !tv->is_input && tv->mem == WF_MEM_GLOBAL && tv->uses.n > 0;
    }
    return bid && global_raw;
}

/* F10: a global tensor with a broadcast dim, in a fusion where some binary op
   expands a broadcast dim. */
static bool global_broadcast_read(const fcase *c) {
    if (!c->expanded)
        return false;
    for (int i = 0; i < c->f->tvs.n; i++) {
        const wf_tv *tv = c->f->tvs.ptr[i];
        bool bcast = false;
        for (int d = 0; d < tv->logical.n; d++)
            bcast |= tv->logical.ptr[d]->itype == IT_BROADCAST;
        if (bcast && tv->mem == WF_MEM_GLOBAL && !tv->is_input)
            return true;
    }
    return false;
}

/* The known class (known.h) that explains a wrong result, or NULL. */
static const char *known_cause(const fcase *c) {
    if (!c->known)
        return NULL;
    if (KNOWN_PARALLEL_CONFLICT && (has_duplicate_ptype(c) || c->par_mixed))
        return "F5";
    if (KNOWN_DOMAIN_VALIDATION && c->set_domains)
        return "F6";
    if (KNOWN_GRID_DEPENDENCY && grid_dependency(c))
        return "F7";
    if (KNOWN_HUGE_SPLIT && c->huge_factor)
        return "F8";
    if (KNOWN_BROADCAST_OUTPUT_READ && global_broadcast_read(c))
        return "F10";
    if (KNOWN_REDUCTION_UNWRITTEN_READ && c->nreds && strstr(c->why, "which was never written"))
        return "F13";
    if (KNOWN_REDUCTION_INIT_RACE && c->nreds && strstr(c->why, "race on") &&
        strstr(c->why, "= init("))
        return "F14";
    if (KNOWN_RFACTOR_THEN_PROPAGATE && c->whole_fusion_after_rfactor && strstr(c->why, "element"))
        return "F15";
    if (KNOWN_HALF_ACCUMULATION && c->half_sum && strstr(c->why, "element"))
        return "F16";
    if (KNOWN_REDUCTION_OTHER && c->nreds)
        return "F17";
    if (KNOWN_TMA_THREAD_ISSUE_DEADLOCK && c->tma_thread_issue &&
        (strstr(c->why, "deadlock") || strstr(c->why, "mbarrier")))
        return "F18";
    if (KNOWN_TIR_INTERNAL_ERROR && (c->tir_rfactor || c->tir_reorder) &&
        strstr(c->why, "internal error"))
        return "F20";
    if (KNOWN_TIR_COMPUTE_AT_REDUCTION_LOOP && c->tir_compute_at && strstr(c->why, ".inline_at("))
        return "F21";
    return NULL;
}

/* Is output tensor tv computed from a float sum or product (fuzz_reduce.c)?
   A tensor the generator did not make itself (wf_cache_before's) counts as
   inexact when any node is. */
static fz_exactness output_inexact(const fcase *c, const wf_tv *tv) {
    fz_exactness any = FZ_EXACT;
    for (int i = 0; i < c->nn; i++) {
        fz_exactness e = c->n[i].inexact_half ? FZ_INEXACT_HALF
                         : c->n[i].inexact    ? FZ_INEXACT
                                              : FZ_EXACT;
        if (c->n[i].tv == tv)
            return e;
        any = e > any ? e : any;
    }
    return any;
}

/* A launch the device's limits refuse for the sizes of this run (the same
   kernel runs with smaller ones): a clean rejection, not a failure. */
bool fz_size_refusal(const char *msg) {
    return strncmp(msg, "invalid number of threads: ", 27) == 0 ||
           strncmp(msg, "invalid grid: ", 14) == 0 ||
           strstr(msg, "bytes of shared memory per block") ||
           strstr(msg, "the vectorized split needs") ||
           /* the grid reductions' fixed work buffer and semaphores, checked at
              launch where the sizes are symbolic (fuzz -s 9002 -c 62466) */
           strstr(msg, "the grid reduction needs more than ") ||
           /* a size that overflows int64 for this run's extents */
           strstr(msg, "does not fit in 64 bits") ||
           /* a split by a huge factor: the executor's work budget, refused up front */
           strncmp(msg, "the CPU reference executor stops after ", 39) == 0;
}

static void free_bufs(wf_buffer *b, int n) {
    for (int i = 0; i < n; i++)
        ref_free(&b[i]);
}

static int run_and_compare(fcase *c, wf_kernel *k) {
    wf_fusion *f = c->f;
    int nin = f->inputs.n, nout = f->outputs.n, bad = 0;
    wf_buffer *in = calloc((size_t)nin + 1, sizeof *in);
    wf_buffer *got = calloc((size_t)nout + 1, sizeof *got);
    wf_buffer *want = calloc((size_t)nout + 1, sizeof *want);
    double **scale = calloc((size_t)nout + 1, sizeof *scale);
    for (int i = 0; i < nin; i++) {
        in[i] = ref_buffer(f, f->inputs.ptr[i], c->sym);
        ref_fill_random(&in[i], (unsigned)(g_case * 7 + (uint64_t)i));
    }
    for (int i = 0; i < nout; i++) {
        got[i] = ref_buffer(f, f->outputs.ptr[i], c->sym);
        want[i] = ref_buffer(f, f->outputs.ptr[i], c->sym);
        ref_poison(&got[i]);
    }
    c->stage = "run";
    wf_status s = wf_run(k, WF_BACKEND_INTERP, in, nin, got, nout);
    const char *msg = wf_last_run_error(k);
    if (s != WF_OK) {
        if (!fz_size_refusal(msg))
            bad = fz_fail(c, "accepted kernel failed on the executor: %s: %s", wf_status_name(s),
                          msg);
    } else if (!ref_eval_scaled(f, in, nin, want, scale, nout)) {
        bad = fz_fail(c, "the reference could not evaluate the fusion");
    } else {
        for (int o = 0; o < nout && !bad; o++)
            for (int64_t i = 0, n = ref_numel(&want[o]),
                         inexact = output_inexact(c, f->outputs.ptr[o]);
                 i < n && !bad; i++)
                if (!fz_close_enough(&got[o], &want[o], scale[o][i], i, (fz_exactness)inexact))
                    bad = fz_fail(c, "output %d (T%d) element %lld: got %g, expected %g", o,
                                  f->outputs.ptr[o]->id, (long long)i, ref_get(&got[o], i),
                                  ref_get(&want[o], i));
    }
    free_bufs(in, nin);
    free_bufs(got, nout);
    free_bufs(want, nout);
    for (int i = 0; i < nout; i++)
        free(scale[i]);
    free(scale);
    free(in);
    free(got);
    free(want);
    return bad;
}

/* ---- API misuse ---- */

/* One misuse of the API that must be refused cleanly; returns nonzero on a
   failure of the library. Misuse on a NULL handle must leave f untouched. */
static int misuse_fusion(fcase *c) {
    wf_tv *t = any_tv(c);
    c->stage = "misuse";
    switch (rnd(&c->r, 8)) {
    case 0:
        wf_tv_split(NULL, 0, 2);
        wf_tv_merge(NULL, 0);
        wf_tv_parallelize(NULL, 0, WF_TIDX);
        wf_output(NULL, NULL);
        wf_output(c->f, NULL);
        fz_trace(c, "wf_output(f, NULL); (and NULL tensors to split/merge/parallelize)");
        break;
    case 1: {
        wf_fusion *g = wf_fusion_new();
        int64_t s[1] = {4};
        wf_tv *o = wf_input(g, WF_F32, 1, s);
        fz_trace(c, "wf_add(T%d, <a tensor of another fusion>);", t->id);
        wf_add(t, o);
        wf_fusion_free(g);
        break;
    }
    case 2:
        fz_trace(c, "wf_tv_set_allocation_domain(T%d, 1, {NULL}, true);", t->id);
        wf_tv_set_allocation_domain(t, 1, (wf_iterdomain *[]){NULL}, true);
        break;
    case 3:
        fz_trace(c, "wf_tv_set_loop_domain(T%d, -1, NULL);", t->id);
        wf_tv_set_loop_domain(t, -1, NULL);
        break;
    case 4: {
        wf_fusion *g = wf_fusion_new();
        int64_t s[2] = {4, 4};
        wf_tv *o = wf_input(g, WF_F32, 2, s);
        int n = 0;
        wf_iterdomain *const *ids = wf_tv_loop_domain(o, &n);
        fz_trace(c, "wf_tv_set_loop_domain(T%d, 2, <IterDomains of another fusion>);", t->id);
        wf_tv_set_loop_domain(t, n, ids);
        wf_fusion_free(g);
        break;
    }
    case 5:
        fz_trace(c, "wf_permute(T%d, NULL); wf_broadcast(T%d, 0, NULL);", t->id, t->id);
        wf_permute(t, NULL);
        break;
    case 6:
        fz_trace(c, "wf_transpose(T%d, 0, 9);", t->id);
        wf_transpose(t, 0, 9);
        break;
    default:
        fz_trace(c, "wf_tv_reorder_all(T%d, NULL);", t->id);
        wf_tv_reorder_all(t, NULL);
        break;
    }
    if (wf_fusion_status(c->f) == WF_OK)
        return fz_fail(c, "API misuse accepted without an error");
    if (!concrete(wf_fusion_error(c->f)))
        return fz_fail(c, "misuse rejected with an unclear message: \"%s\"", wf_fusion_error(c->f));
    return 0;
}

/* Wrong buffers to wf_run: each must be WF_ERR_ARG with a clear message. */
static int misuse_run(fcase *c, wf_kernel *k) {
    wf_fusion *f = c->f;
    int nin = f->inputs.n, nout = f->outputs.n, bad = 0;
    wf_buffer in[MAX_IN + 2], out[MAX_NODES + 2];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int i = 0; i < nin; i++)
        in[i] = ref_buffer(f, f->inputs.ptr[i], c->sym);
    for (int i = 0; i < nout && i < MAX_NODES; i++)
        out[i] = ref_buffer(f, f->outputs.ptr[i], c->sym);
    int kind = (int)rnd(&c->r, 7);
    wf_buffer save = in[0];
    c->stage = "run misuse";
    switch (kind) {
    case 0:
        nin++;
        break;
    case 1:
        nout = 0;
        break;
    case 2:
        in[0].data = NULL;
        break;
    case 3:
        in[0].dtype = in[0].dtype == WF_F32 ? WF_I32 : WF_F32;
        break;
    case 4:
        in[0].ndim = in[0].ndim + 1;
        break;
    case 5:
        in[0].shape[0] = -3;
        break;
    default:
        in[0].strides[0] = -1;
        break;
    }
    fz_trace(c, "wf_run with a wrong buffer (kind %d)", kind);
    wf_status s = wf_run(k, WF_BACKEND_INTERP, kind == 1 ? in : in, nin, out, nout);
    const char *msg = wf_last_run_error(k);
    /* Negative strides and shapes are known to slip through (issue 9 "Messages"). */
    bool known = c->known && kind >= 5;
    if (s == WF_OK && !known)
        bad = fz_fail(c, "wrong buffers (kind %d) accepted by wf_run", kind);
    else if (s != WF_OK && !concrete(msg) && !known)
        bad = fz_fail(c, "wrong buffers (kind %d) refused with an unclear message: \"%s\"", kind,
                      msg);
    in[0] = save;
    free_bufs(in, f->inputs.n);
    free_bufs(out, f->outputs.n < MAX_NODES ? f->outputs.n : MAX_NODES);
    return bad;
}

/* ---- one case ---- */

/* The kinds of case: a fusion of pointwise ops (and reductions: counted as
   reduction cases when it has one), a TMA copy (fuzz_tma.c), a TensorIR
   program (fuzz_tir.c). */
enum { K_POINTWISE, K_REDUCTION, K_TMA, K_TIR, K_COUNT };
static const char *const kind_names[K_COUNT] = {"pointwise", "reduction", "TMA", "TensorIR"};

typedef struct {
    uint64_t cases[K_COUNT];
    uint64_t accepted[K_COUNT]; /* compiled (built) and ran */
} counts;

/* The kind of case n of seed: a pure function of both (not of the case's
   random stream), so that -k fusion replays the fusion cases of earlier
   versions case for case. mask: the kinds -k allows. */
static int case_kind(uint64_t seed, uint64_t n, unsigned mask) {
    uint64_t x = seed * 0xD6E8FEB86659FD93ull + n * 0x9E3779B97F4A7C15ull + 0x5851F42D4C957F2Dull;
    x ^= x >> 32;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    unsigned pct = (unsigned)(x % 100);
    /* 70% fusions, 18% TMA, 12% TensorIR, among the kinds allowed */
    int k = pct < 70 ? K_POINTWISE : pct < 88 ? K_TMA : K_TIR;
    if (mask & (1u << k))
        return k;
    int allowed[K_COUNT], na = 0; /* -k: spread over the kinds allowed */
    for (int i = 0; i < K_COUNT; i++)
        if (i != K_REDUCTION && (mask & (1u << i)))
            allowed[na++] = i;
    return na ? allowed[pct % (unsigned)na] : K_POINTWISE;
}

/* Compiles c->f (a scheduled fusion), runs it and compares; 1 on a failure. */
static int compile_and_check(fcase *c, const wf_compile_options *opt, bool misuse, int verbose,
                             bool *accepted) {
    int bad = 0;
    wf_status fs = wf_fusion_status(c->f);
    if (fs != WF_OK) {
        if (!concrete(wf_fusion_error(c->f)))
            bad = fz_fail(c, "schedule rejected with an unclear message: %s: \"%s\"",
                          wf_status_name(fs), wf_fusion_error(c->f));
        else if (verbose)
            printf("    rejected: %s\n", wf_fusion_error(c->f));
        return bad;
    }
    c->stage = "compile";
    wf_kernel *k = wf_compile(c->f, opt);
    if (!k) {
        fs = wf_fusion_status(c->f);
        if (fs == WF_OK || !concrete(wf_fusion_error(c->f)))
            bad = fz_fail(c, "compile rejected with an unclear message: %s: \"%s\"",
                          wf_status_name(fs), wf_fusion_error(c->f));
        if (verbose)
            printf("    rejected: %s\n", wf_fusion_error(c->f));
        return bad;
    }
    *accepted = true;
    bad = misuse && chance(&c->r, 10) ? misuse_run(c, k) : run_and_compare(c, k);
    if (verbose && !bad)
        printf("    ran and matched the reference\n");
    wf_kernel_free(k);
    return bad;
}

static int one_case(uint64_t seed, uint64_t n, unsigned kinds, bool known, int verbose,
                    counts *cnt) {
    fcase c;
    memset(&c, 0, sizeof c);
    g_seed = seed;
    g_case = n;
    c.r.s = (seed * 0x9E3779B97F4A7C15ull) ^ (n * 0xD1B54A32D192ED03ull) ^ 1;
    c.known = known;
    c.verbose = verbose;
    c.stage = "build";
    for (int i = 0; i < MAX_IN * 8; i++)
        c.uf[i] = i;
    int kind = case_kind(seed, n, kinds), bad = 0;
    bool accepted = false;
    if (verbose)
        printf("    (a %s case)\n", kind_names[kind]);
    if (kind == K_TIR) {
        bad = fz_tir_case(&c, &accepted);
    } else {
        c.f = wf_fusion_new();
        fz_trace(&c, "wf_fusion *f = wf_fusion_new();");
        if (kind == K_TMA) {
            c.stage = "schedule";
            fz_tma_build(&c);
            if (verbose > 1)
                wf_print_transforms(c.f, stdout);
            wf_compile_options sm90 = {.sm = 90};
            bad = compile_and_check(&c, &sm90, false, verbose, &accepted);
        } else {
            make_inputs(&c);
            make_ops(&c);
            make_outputs(&c);
            kind = c.nreds ? K_REDUCTION : K_POINTWISE;
            if (wf_fusion_status(c.f) != WF_OK) {
                bad = fz_fail(&c, "building a valid fusion failed: %s", wf_fusion_error(c.f));
            } else {
                c.stage = "schedule";
                schedule(&c);
                if (chance(&c.r, 10))
                    bad = misuse_fusion(&c);
                if (verbose > 1)
                    wf_print_transforms(c.f, stdout);
                if (!bad)
                    bad = compile_and_check(&c, NULL, true, verbose, &accepted);
            }
        }
    }
    cnt->cases[kind]++;
    cnt->accepted[kind] += accepted;
    const char *cause = bad ? known_cause(&c) : NULL;
    /* a wrong result is known only from the run; a TensorIR internal error
       (F20, F21) from any stage */
    if (cause && (strcmp(cause, "F20") == 0 || strcmp(cause, "F21") == 0 ||
                  (c.stage && strcmp(c.stage, "run") == 0))) {
        if (verbose)
            printf("    known finding class %s: %s\n", cause, c.why);
        g_known++;
        bad = 0;
    }
    if (bad)
        print_failure(&c);
    if (c.f)
        wf_fusion_free(c.f);
    return bad;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* -k LIST: the kinds of case to make, a comma-separated list of fusion
   (pointwise ops and reductions), tma, tir; 0 if LIST names none. */
static unsigned parse_kinds(const char *list) {
    unsigned m = 0;
    char buf[80];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        m |= strcmp(t, "fusion") == 0 ? 1u << K_POINTWISE | 1u << K_REDUCTION
             : strcmp(t, "tma") == 0  ? 1u << K_TMA
             : strcmp(t, "tir") == 0  ? 1u << K_TIR
                                      : 1u << 31;
    return m & (1u << 31) ? 0 : m;
}

int main(int argc, char **argv) {
    double budget = 10;
    uint64_t seed = 1, only = UINT64_MAX, max_cases = UINT64_MAX;
    bool known = true;
    int verbose = 0, opt;
    unsigned kinds = ~0u;
    static char kinds_arg[80];
    while ((opt = getopt(argc, argv, "t:n:s:c:k:va")) != -1) {
        if (opt == 't')
            budget = atof(optarg);
        else if (opt == 'n')
            max_cases = strtoull(optarg, NULL, 10);
        else if (opt == 's')
            seed = strtoull(optarg, NULL, 10);
        else if (opt == 'c')
            only = strtoull(optarg, NULL, 10);
        else if (opt == 'v')
            verbose++;
        else if (opt == 'a')
            known = false;
        else if (opt == 'k' && (kinds = parse_kinds(optarg)) != 0)
            snprintf(kinds_arg, sizeof kinds_arg, " -k %.60s", optarg);
        else {
            fprintf(stderr, "usage: fuzz [-t seconds] [-n cases] [-s seed] [-c case] "
                            "[-k fusion,tma,tir] [-v] [-a]\n");
            return 2;
        }
    }
    /* what a replay line repeats besides -s and -c */
    static char flags[100];
    snprintf(flags, sizeof flags, "%s%s", kinds_arg, known ? "" : " -a");
    g_kinds = flags;
    /* Tensors hold at most MAX_NUMEL elements, so a correct small kernel runs
       far below 2^25 statement executions; a loop made by a huge split factor
       would take minutes of the fuzzing budget. The executor refuses such a
       kernel up front (a size refusal), unless the user set a budget. */
    setenv("WF_INTERP_BUDGET", "33554432", 0);
    signal(SIGSEGV, on_signal);
    signal(SIGABRT, on_signal);
    signal(SIGFPE, on_signal);
    signal(SIGALRM, on_signal);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int failures = 0;
    counts cnt;
    memset(&cnt, 0, sizeof cnt);
    uint64_t n = 0;
    double t0 = now_s(), c0 = cpu_s();
    for (uint64_t i = only == UINT64_MAX ? 0 : only; n < max_cases; i++, n++) {
        if (only == UINT64_MAX && cpu_s() - c0 > budget)
            break;
        alarm(CASE_TIMEOUT_S);
        if (verbose)
            printf("case %llu:\n", (unsigned long long)i);
        double tc = cpu_s();
        failures += one_case(seed, i, kinds, known, verbose, &cnt);
        alarm(0);
        if (cpu_s() - tc > SLOW_CASE_S)
            printf("fuzz: slow case (%.1f s cpu): fuzz -s %llu -c %llu%s -v\n", cpu_s() - tc,
                   (unsigned long long)seed, (unsigned long long)i, g_kinds);
#if HAVE_LSAN
        /* A leak check scans the heap: once per LEAK_EVERY cases, or after a replayed one. */
        if ((i % LEAK_EVERY == LEAK_EVERY - 1 || only != UINT64_MAX) &&
            __lsan_do_recoverable_leak_check()) {
            printf("FAIL seed %llu: memory leaked (see the report above) in one of cases "
                   "%llu..%llu; replay each with fuzz -s %llu -c N\n",
                   (unsigned long long)seed, (unsigned long long)(i - i % LEAK_EVERY),
                   (unsigned long long)i, (unsigned long long)seed);
            failures++;
            break;
        }
#endif
        if (only != UINT64_MAX || failures >= 10)
            break;
    }
    /* one line: the summary make test shows */
    uint64_t ran = 0;
    for (int k = 0; k < K_COUNT; k++)
        ran += cnt.accepted[k];
    printf("fuzz: seed %llu, %llu cases: %llu pointwise, %llu reduction, %llu TMA (%llu "
           "accepted), %llu TensorIR (%llu built); %llu compiled and ran, %d wrong in known "
           "classes, %d failures, %.1f s cpu, %.1f s wall\n",
           (unsigned long long)seed, (unsigned long long)n + (only != UINT64_MAX),
           (unsigned long long)cnt.cases[K_POINTWISE], (unsigned long long)cnt.cases[K_REDUCTION],
           (unsigned long long)cnt.cases[K_TMA], (unsigned long long)cnt.accepted[K_TMA],
           (unsigned long long)cnt.cases[K_TIR], (unsigned long long)cnt.accepted[K_TIR],
           (unsigned long long)ran, g_known, failures, cpu_s() - c0, now_s() - t0);
    return failures ? 1 : 0;
}
