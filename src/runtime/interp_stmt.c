/*
 * interp_stmt.c -- executing one statement for a block, with checks and
 * access statistics.
 *
 * Every access goes through access(): it bounds-checks the index, applies
 * the race rules (shared memory; global cells written in the launch, across
 * blocks too) and the never-written rule, and returns the
 * element's storage (and marks output elements written). The op math is
 * interp_ops.c's, the statistics interp_stats.c's. The inner loops first try
 * ix_fast (interp_int.h), the same rules inline for the accesses that pass
 * them; anything else, every failure included, comes here, so the messages
 * and their order are this file's. A statement that only moves 4-byte
 * elements runs in a loop of its own per pair of operand kinds (copy4).
 */
#include "base/heap.h"
#include "runtime/interp_int.h"

#include <string.h>

static void thread_text(const ix_exec *x, int t, char *buf, size_t n) {
    snprintf(buf, n, "thread (%lld, %lld, %lld) of block (%lld, %lld, %lld)",
             (long long)x->tid[0][t], (long long)x->tid[1][t], (long long)x->tid[2][t],
             (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2]);
}

IX_COLD static bool out_of_bounds(ix_exec *x, const in_node *n, int tensor, int64_t index,
                                  int64_t size, int t, bool write) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "out-of-bounds %s of T%d: index %lld is outside its %lld elements, by %s, "
                   "in statement: %s",
                   write ? "write" : "read", x->p->tensors[tensor].tv, (long long)index,
                   (long long)size, who, n->text);
}

IX_COLD static bool race(ix_exec *x, const in_node *n, int tensor, int64_t index, int t, int other,
                         bool write, bool other_wrote) {
    char me[128], them[128];
    thread_text(x, t, me, sizeof me);
    snprintf(them, sizeof them, "thread (%lld, %lld, %lld)", (long long)x->tid[0][other],
             (long long)x->tid[1][other], (long long)x->tid[2][other]);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "%s race on T%d[%lld]: %s %s it after %s %s it with no barrier in between, in "
                   "statement: %s",
                   x->p->tensors[tensor].space == IT_GLOBAL_T ? "global-memory" : "shared-memory",
                   x->p->tensors[tensor].tv, (long long)index, me, write ? "writes" : "reads", them,
                   other_wrote ? "wrote" : "read", n->text);
}

/* Another block's access: block is a linear block id, thread one of its. */
IX_COLD static bool cross_block(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                                bool write, int64_t block, int other, bool other_wrote) {
    char me[128];
    thread_text(x, t, me, sizeof me);
    const int64_t *g = x->l->grid;
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "cross-block race on global T%d[%lld]: %s %s it after thread (%lld, %lld, "
                   "%lld) of block (%lld, %lld, %lld) %s it; the blocks of a launch cannot "
                   "synchronize (a GPU runs them in any order): parallelize the writer's and the "
                   "reader's axes alike on the block dimensions, or compute the reader in a "
                   "separate fusion; in statement: %s",
                   x->p->tensors[tensor].tv, (long long)index, me, write ? "writes" : "reads",
                   (long long)x->tid[0][other], (long long)x->tid[1][other],
                   (long long)x->tid[2][other], (long long)(block % g[0]),
                   (long long)(block / g[0] % g[1]), (long long)(block / g[0] / g[1]),
                   other_wrote ? "wrote" : "read", n->text);
}

/* The linear id of the block that made stamp s (an epoch before the current
   block's): the last block that stamped a cell at or before that epoch. */
IX_COLD static int64_t stamp_block(const ix_exec *x, uint64_t s) {
    uint64_t e = ix_stamp_epoch(s);
    int64_t lo = 0, hi = x->stamped.n - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (x->stamped.epoch[mid] <= e)
            lo = mid;
        else
            hi = mid - 1;
    }
    return x->stamped.blin[lo];
}

/* The current block stamps a global cell: remember its first epoch once. */
static bool log_block(ix_exec *x) {
    if (x->stamped.n && x->stamped.epoch[x->stamped.n - 1] == x->bepoch)
        return true;
    if (x->stamped.n == x->stamped.cap) {
        int64_t cap = x->stamped.cap ? 2 * x->stamped.cap : 64;
        uint64_t *e = heap_realloc(x->stamped.epoch, sizeof *e * (size_t)cap);
        if (e)
            x->stamped.epoch = e;
        int64_t *b = e ? heap_realloc(x->stamped.blin, sizeof *b * (size_t)cap) : NULL;
        if (!b)
            return ix_fail(x, WF_ERR_MEMORY, "out of memory in the CPU reference executor");
        x->stamped.blin = b;
        x->stamped.cap = cap;
    }
    x->stamped.epoch[x->stamped.n] = x->bepoch;
    x->stamped.blin[x->stamped.n++] = x->blin;
    return true;
}

IX_COLD static bool cross_stamp(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                                bool write, uint64_t s, bool other_wrote) {
    return cross_block(x, n, tensor, index, t, write, stamp_block(x, s), ix_stamp_thread(s),
                       other_wrote);
}

/* The hazard rules of a global cell written in this launch (ix_gread). */
static bool global_hazard(ix_exec *x, const in_node *n, int tensor, ix_view *v, int64_t index,
                          int t, bool write) {
    uint64_t *w = &v->gw[index], ws = *w, now = x->gepoch, b0 = x->bepoch;
    ix_gread *r = v->gread ? &v->gr[index] : NULL; /* never read: all zero */
    if (ws && ix_stamp_epoch(ws) < b0)
        return cross_stamp(x, n, tensor, index, t, write, ws, true);
    if (write && r && r->first && ix_stamp_epoch(r->first) < b0)
        return cross_stamp(x, n, tensor, index, t, true, r->first, false);
    if (write && r && r->latest && ix_stamp_epoch(r->latest) < b0)
        return cross_stamp(x, n, tensor, index, t, true, r->latest, false);
    if (ws && ix_stamp_epoch(ws) == now && ix_stamp_thread(ws) != t)
        return race(x, n, tensor, index, t, ix_stamp_thread(ws), write, true);
    if (write && r && r->latest && ix_stamp_epoch(r->latest) == now &&
        (ix_stamp_thread(r->latest) != t || r->rother > 0))
        return race(x, n, tensor, index, t,
                    ix_stamp_thread(r->latest) != t ? ix_stamp_thread(r->latest) : r->rother - 1,
                    true, false);
    if (!log_block(x))
        return false;
    if (write) {
        *w = ix_stamp(now, t);
        return true;
    }
    r = &v->gr[index];
    v->gread = true;
    if (!r->first)
        r->first = ix_stamp(now, t);
    if (!r->latest || ix_stamp_epoch(r->latest) != now)
        r->rother = 0;
    else if (ix_stamp_thread(r->latest) != t)
        r->rother = ix_stamp_thread(r->latest) + 1;
    r->latest = ix_stamp(now, t);
    return true;
}

IX_COLD static bool unwritten(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    const it_tensor *tt = &x->p->tensors[tensor];
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "read of T%d[%lld] (%s memory), which was never written, by %s, in "
                   "statement: %s",
                   tt->tv, (long long)index,
                   tt->space == IT_SHARED_T ? "shared"
                   : tt->space == IT_TMEM_T ? "tensor"
                                            : "local",
                   who, n->text);
}

IX_COLD static bool in_flight(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "read of T%d[%lld] (shared memory) by %s before the mbarrier wait of the TMA "
                   "load that writes it: the copy may still be in flight, in statement: %s",
                   x->p->tensors[tensor].tv, (long long)index, who, n->text);
}

/* An access a wgmma in flight forbids: a write of a shared cell it reads, or
   any access of an accumulator cell it writes. */
IX_COLD static bool wgmma_in_flight(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                                    bool shared, bool write) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "%s of T%d[%lld]%s by %s while a wgmma still %s it: no wgmma.wait_group has "
                   "retired the wgmma's group, in statement: %s",
                   write ? "write" : "read", x->p->tensors[tensor].tv, (long long)index,
                   shared ? " (shared memory)" : "", who, shared ? "reads" : "writes", n->text);
}

static unsigned char *shared_access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                                    bool write) {
    const ix_view *v = &x->view[tensor];
    int64_t byte = v->off + index * (int64_t)v->es;
    ix_cell *c = &x->sshadow[byte];
    bool wrote_now = c->wepoch == x->epoch && c->writer >= 0 && c->writer != t;
    bool read_now = c->repoch == x->epoch && c->reader != -1 && c->reader != t;
    if (write && (wrote_now || read_now))
        return race(x, n, tensor, index, t, wrote_now ? c->writer : (c->reader < 0 ? 0 : c->reader),
                    true, wrote_now),
               NULL;
    if (!write && c->written == 2)
        return in_flight(x, n, tensor, index, t), NULL;
    if (write && c->written == 3)
        return wgmma_in_flight(x, n, tensor, index, t, true, true), NULL;
    if (!write && wrote_now)
        return race(x, n, tensor, index, t, c->writer, false, true), NULL;
    if (!write && !c->written)
        return unwritten(x, n, tensor, index, t), NULL;
    if (write) {
        c->writer = t;
        c->wepoch = x->epoch;
        c->written = 1;
    } else {
        c->reader = (c->repoch == x->epoch && c->reader != -1 && c->reader != t) ? -2 : t;
        c->repoch = x->epoch;
    }
    return x->smem + byte;
}

IX_COLD static bool outside_subpartition(ix_exec *x, const in_node *n, int tensor, int64_t index,
                                         int t) {
    const it_tensor *tt = &x->p->tensors[tensor];
    int64_t lane = index / tt->row, warp = t / 32;
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "tensor-memory lane %lld of T%d is outside the sub-partition %lld of warp "
                   "%lld (%s), in statement: %s",
                   (long long)lane, tt->tv, (long long)(warp % 4), (long long)warp, who, n->text);
}

/* Warp w may only reach the tensor-memory lanes of sub-partition w % 4. */
static bool in_subpartition(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
    int64_t lane = index / x->p->tensors[tensor].row, warp = t / 32;
    return lane / 32 == warp % 4 || outside_subpartition(x, n, tensor, index, t);
}

/* The storage of element `index` of a tensor for thread t, after the checks:
   the common cases inline, every failure in a function of its own. */
static unsigned char *access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                             bool write) {
    ix_view *v = &x->view[tensor];
    if ((uint64_t)index >= (uint64_t)v->size)
        return out_of_bounds(x, n, tensor, index, v->size, t, write), NULL;
    if (v->space == IT_GLOBAL_T) {
        if (v->gw && !global_hazard(x, n, tensor, v, index, t, write))
            return NULL;
        if (write && v->gwritten)
            v->gwritten[index] = 1;
        return v->data + index * (int64_t)v->es;
    }
    if (v->space == IT_LOCAL_T) {
        size_t cell = (size_t)t * (size_t)v->size + (size_t)index;
        if (v->lwritten[cell] == 3 && !x->in_wgmma)
            return wgmma_in_flight(x, n, tensor, index, t, false, write), NULL;
        if (write)
            v->lwritten[cell] = 1;
        else if (!v->lwritten[cell])
            return unwritten(x, n, tensor, index, t), NULL;
        return v->data + cell * (size_t)v->es;
    }
    if (v->space == IT_TMEM_T && !in_subpartition(x, n, tensor, index, t))
        return NULL;
    return shared_access(x, n, tensor, index, t, write);
}

unsigned char *ix_access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                         bool write) {
    return access(x, n, tensor, index, t, write);
}

/* ---- values (the math is interp_ops.c's) ---- */

/* What one execution of a statement needs, gathered once for all its threads:
   the index registers (uniform: one), the operands' types and fast views. */
typedef struct {
    const int64_t *oi, *ii[IR_MAX_OP_INPUTS];
    bool ov, iv[IR_MAX_OP_INPUTS];
    wf_dtype idt[IR_MAX_OP_INPUTS], odt, cd;
    ix_ctype ict[IR_MAX_OP_INPUTS], oct, cct;
    ix_fast_view fin[IR_MAX_OP_INPUTS], fout;
    ix_fast_block fb;
} stmt_ctx;

/* Operand k of an op (a loaded input or a scalar constant) in the compute type. */
static IX_INLINE ix_value operand(const stmt_ctx *c, const in_node *n, const ix_value *in, int k) {
    int i = n->arg_in[k];
    if (i >= 0)
        return ix_convert_ct(in[i], c->ict[i], c->cd, c->cct);
    return ix_scalar(&n->sc[k]); /* already in the compute type */
}

/* The value an op computes from its loaded inputs (in their storage types). */
static IX_INLINE ix_value compute(const stmt_ctx *c, const in_node *n, const ix_value in[]) {
    switch (n->op) {
    case OP_CAST:
        return ix_convert_ct(in[0], c->ict[0], c->odt, c->oct);
    case OP_UNARY:
        return ix_unary(n->sub, operand(c, n, in, 0), c->cd);
    case OP_BINARY:
        return ix_binary_fast(n->sub, operand(c, n, in, 0), operand(c, n, in, 1), c->cct);
    case OP_WHERE: {
        ix_value w = n->arg_in[0] >= 0
                         ? ix_convert_ct(in[n->arg_in[0]], c->ict[n->arg_in[0]], WF_BOOL, IX_CT_INT)
                         : ix_scalar(&n->sc[0]);
        return w.i ? operand(c, n, in, 1) : operand(c, n, in, 2);
    }
    default:
        return in[0];
    }
}

/* ---- the statement ---- */

static IX_INLINE bool element(ix_exec *x, const in_node *n, const stmt_ctx *c, int t, int64_t e) {
    ix_value in[IR_MAX_OP_INPUTS];
    in[0].i = 0; /* an op without inputs reads none but the first (zero) */
    for (int k = 0; k < n->nin; k++) {
        int64_t idx = c->ii[k][c->iv[k] ? t : 0] + e;
        const unsigned char *p = ix_fast(&c->fb, &c->fin[k], idx, t, false);
        if (!p && !(p = ix_access(x, n, n->in[k], idx, t, false)))
            return false;
        in[k] = ix_load_fast(c->idt[k], p);
    }
    ix_value out = compute(c, n, in);
    int64_t idx = c->oi[c->ov ? t : 0] + e;
    unsigned char *p = ix_fast(&c->fb, &c->fout, idx, t, true);
    if (!p && !(p = ix_access(x, n, n->out, idx, t, true)))
        return false;
    ix_store_fast(c->odt, p, out);
    return true;
}

/* A statement that moves 4 bytes per element unchanged (one input, an op
   without math, the same 4-byte type in and out, whose load and store are
   a byte copy): the same accesses in the same order as element(), with the
   operands' kinds constants where it is called, so that the compiler makes
   one loop per pair of kinds. */
static IX_INLINE bool copy4(ix_exec *x, const in_node *n, const stmt_ctx *c, ix_fast_kind kin,
                            ix_fast_kind kout) {
    ix_fast_view fi = c->fin[0], fo = c->fout;
    ix_fast_block fb = c->fb;
    const int64_t *ii = c->ii[0], *oi = c->oi;
    int si = c->iv[0], so = c->ov, T = x->nthreads;
    int64_t vec = n->vec;
    const uint8_t *mask = x->mask;
    fi.kind = kin;
    fo.kind = kout;
    for (int t = 0; t < T; t++) {
        if (!mask[t])
            continue;
        int64_t a0 = ii[t * si], o0 = oi[t * so];
        for (int64_t e = 0; e < vec; e++) {
            int64_t a = a0 + e, o = o0 + e;
            uint32_t v;
            const unsigned char *p = ix_fast(&fb, &fi, a, t, false);
            if (!p && !(p = ix_access(x, n, n->in[0], a, t, false)))
                return false;
            memcpy(&v, p, 4);
            unsigned char *q = ix_fast(&fb, &fo, o, t, true);
            if (!q && !(q = ix_access(x, n, n->out, o, t, true)))
                return false;
            memcpy(q, &v, 4);
        }
    }
    return true;
}

static bool copy4_out(ix_exec *x, const in_node *n, const stmt_ctx *c, ix_fast_kind kin) {
    switch (c->fout.kind) {
    case IX_FAST_LOCAL:
        return copy4(x, n, c, kin, IX_FAST_LOCAL);
    case IX_FAST_SHARED:
        return copy4(x, n, c, kin, IX_FAST_SHARED);
    case IX_FAST_GLOBAL:
        return copy4(x, n, c, kin, IX_FAST_GLOBAL);
    case IX_FAST_HAZARD:
        return copy4(x, n, c, kin, IX_FAST_HAZARD);
    default:
        return copy4(x, n, c, kin, IX_FAST_NONE);
    }
}

static bool copy4_in(ix_exec *x, const in_node *n, const stmt_ctx *c) {
    switch (c->fin[0].kind) {
    case IX_FAST_LOCAL:
        return copy4_out(x, n, c, IX_FAST_LOCAL);
    case IX_FAST_SHARED:
        return copy4_out(x, n, c, IX_FAST_SHARED);
    case IX_FAST_GLOBAL:
        return copy4_out(x, n, c, IX_FAST_GLOBAL);
    default:
        return copy4_out(x, n, c, IX_FAST_NONE);
    }
}

/* Does the statement only move its one input's 4-byte elements (copy4)? */
static bool is_copy4(const in_node *n, const stmt_ctx *c) {
    bool math = n->op == OP_CAST || n->op == OP_UNARY || n->op == OP_BINARY || n->op == OP_WHERE;
    return n->nin == 1 && !math && c->idt[0] == c->odt && (c->odt == WF_F32 || c->odt == WF_I32);
}

/* A filling statement's element where its predicate fails: 0 (kir_stmt.fill). */
static bool zero(ix_exec *x, const in_node *n, const stmt_ctx *c, int t, int64_t e) {
    unsigned char *p = ix_access(x, n, n->out, c->oi[c->ov ? t : 0] + e, t, true);
    if (p)
        ix_store(c->odt, p, (ix_value){.i = 0});
    return p != NULL;
}

/* The fill predicate per thread, copied out of the register file (x->rindex). */
static bool fill_pred(ix_exec *x, const in_node *n, const int64_t **fp, bool *fv) {
    if (!ix_eval(x, &n->fill_pred, fp, fv))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    memcpy(x->rindex, *fp, sizeof(int64_t) * (size_t)(*fv ? x->nthreads : 1));
    *fp = x->rindex;
    return true;
}

bool ix_stmt(ix_exec *x, const in_node *n) {
    stmt_ctx c;
    const int64_t *fp = NULL;
    bool fv = false;
    if (n->fill && !fill_pred(x, n, &fp, &fv))
        return false;
    /* Index results live in the register file: evaluate, then copy the inputs'. */
    for (int k = 0; k < n->nin; k++) {
        if (!ix_eval(x, &n->in_index[k], &c.ii[k], &c.iv[k]))
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "an index divides by zero or overflows int64 in statement: %s", n->text);
        int64_t *copy = x->saved + (size_t)k * (size_t)x->nthreads;
        memcpy(copy, c.ii[k], sizeof(int64_t) * (size_t)(c.iv[k] ? x->nthreads : 1));
        c.ii[k] = copy;
        c.idt[k] = x->view[n->in[k]].dtype;
        c.ict[k] = ix_ctype_of(c.idt[k]);
        c.fin[k] = ix_fast_view_of(x, n->in[k]);
    }
    if (!ix_eval(x, &n->out_index, &c.oi, &c.ov))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    c.odt = x->view[n->out].dtype;
    c.fout = ix_fast_view_of(x, n->out);
    c.fb = ix_fast_block_of(x, &c.fout);
    c.oct = ix_ctype_of(c.odt);
    c.cd = n->cdtype;
    c.cct = ix_ctype_of(c.cd);
    const uint8_t *mask = x->mask;
    int T = x->nthreads;
    int64_t vec = n->vec;
    if (fp) {
        for (int t = 0; t < T; t++)
            for (int64_t e = 0; mask[t] && e < vec; e++)
                if (!(fp[fv ? t : 0] ? element(x, n, &c, t, e) : zero(x, n, &c, t, e)))
                    return false;
    } else if (is_copy4(n, &c)) {
        if (!copy4_in(x, n, &c))
            return false;
    } else {
        for (int t = 0; t < T; t++)
            for (int64_t e = 0; mask[t] && e < vec; e++)
                if (!element(x, n, &c, t, e))
                    return false;
    }
    for (int k = 0; k < n->nin; k++)
        ix_record_stats(x, n, n->in[k], c.ii[k], c.iv[k]);
    ix_record_stats(x, n, n->out, c.oi, c.ov);
    return true;
}
