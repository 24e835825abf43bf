/*
 * interp_stmt.c -- executing one statement for a block, with checks and
 * access statistics.
 *
 * Every access goes through access(): it bounds-checks the index, applies
 * the race rules (shared memory; global cells written in the launch, across
 * blocks too) and the never-written rule, and returns the
 * element's storage (and marks output elements written). The op math is
 * interp_ops.c's, the statistics interp_stats.c's.
 */
#include "runtime/interp_int.h"

#include <string.h>

static void thread_text(const ix_exec *x, int t, char *buf, size_t n) {
    snprintf(buf, n, "thread (%lld, %lld, %lld) of block (%lld, %lld, %lld)",
             (long long)x->tid[0][t], (long long)x->tid[1][t], (long long)x->tid[2][t],
             (long long)x->bid[0], (long long)x->bid[1], (long long)x->bid[2]);
}

static bool out_of_bounds(ix_exec *x, const in_node *n, int tensor, int64_t index, int64_t size,
                          int t, bool write) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "out-of-bounds %s of T%d: index %lld is outside its %lld elements, by %s, "
                   "in statement: %s",
                   write ? "write" : "read", x->p->tensors[tensor].tv, (long long)index,
                   (long long)size, who, n->text);
}

static bool race(ix_exec *x, const in_node *n, int tensor, int64_t index, int t, int other,
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
static bool cross_block(ix_exec *x, const in_node *n, int tensor, int64_t index, int t, bool write,
                        int64_t block, int other, bool other_wrote) {
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

/* The hazard rules of a global cell written in this launch (ix_gcell). */
static bool global_hazard(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                          bool write) {
    ix_gcell *c = &x->ghazard[tensor][index];
    int64_t b = x->blin;
    if (c->wblock >= 0 && c->wblock != b)
        return cross_block(x, n, tensor, index, t, write, c->wblock, c->wthread, true);
    for (int i = 0; write && i < 2; i++)
        if (c->rblock[i] >= 0 && c->rblock[i] != b)
            return cross_block(x, n, tensor, index, t, true, c->rblock[i], c->rthread[i], false);
    if (c->wepoch == x->gepoch && c->wthread != t)
        return race(x, n, tensor, index, t, c->wthread, write, true);
    if (write && c->repoch == x->gepoch && (c->rthread[1] != t || c->rother >= 0))
        return race(x, n, tensor, index, t, c->rthread[1] != t ? c->rthread[1] : c->rother, true,
                    false);
    if (write) {
        c->wblock = b;
        c->wthread = t;
        c->wepoch = x->gepoch;
        return true;
    }
    if (c->rblock[0] < 0) {
        c->rblock[0] = b;
        c->rthread[0] = t;
    }
    if (c->repoch != x->gepoch)
        c->rother = -1;
    else if (c->rthread[1] != t)
        c->rother = c->rthread[1];
    c->rblock[1] = b;
    c->rthread[1] = t;
    c->repoch = x->gepoch;
    return true;
}

static bool unwritten(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
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

static bool in_flight(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "read of T%d[%lld] (shared memory) by %s before the mbarrier wait of the TMA "
                   "load that writes it: the copy may still be in flight, in statement: %s",
                   x->p->tensors[tensor].tv, (long long)index, who, n->text);
}

static unsigned char *shared_access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                                    bool write) {
    const it_tensor *tt = &x->p->tensors[tensor];
    size_t es = wf_dtype_size(tt->dtype);
    int64_t byte = x->off[tensor] + index * (int64_t)es;
    ix_cell *c = &x->sshadow[byte];
    bool wrote_now = c->wepoch == x->epoch && c->writer >= 0 && c->writer != t;
    bool read_now = c->repoch == x->epoch && c->reader != -1 && c->reader != t;
    if (write && (wrote_now || read_now))
        return race(x, n, tensor, index, t, wrote_now ? c->writer : (c->reader < 0 ? 0 : c->reader),
                    true, wrote_now),
               NULL;
    if (!write && c->written == 2)
        return in_flight(x, n, tensor, index, t), NULL;
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

/* Warp w may only reach the tensor-memory lanes of sub-partition w % 4. */
static bool in_subpartition(ix_exec *x, const in_node *n, int tensor, int64_t index, int t) {
    const it_tensor *tt = &x->p->tensors[tensor];
    int64_t lane = index / tt->row, warp = t / 32;
    if (lane / 32 == warp % 4)
        return true;
    char who[128];
    thread_text(x, t, who, sizeof who);
    return ix_fail(x, WF_ERR_SCHEDULE,
                   "tensor-memory lane %lld of T%d is outside the sub-partition %lld of warp "
                   "%lld (%s), in statement: %s",
                   (long long)lane, tt->tv, (long long)(warp % 4), (long long)warp, who, n->text);
}

/* The storage of element `index` of a tensor for thread t, after the checks. */
static unsigned char *access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                             bool write) {
    const it_tensor *tt = &x->p->tensors[tensor];
    size_t es = wf_dtype_size(tt->dtype);
    int64_t size = x->size[tensor];
    if (index < 0 || index >= size)
        return out_of_bounds(x, n, tensor, index, size, t, write), NULL;
    if (tt->space == IT_GLOBAL_T) {
        if (x->ghazard[tensor] && !global_hazard(x, n, tensor, index, t, write))
            return NULL;
        if (write && x->gwritten[tensor])
            x->gwritten[tensor][index] = 1;
        return x->gdata[tensor] + index * (int64_t)es;
    }
    if (tt->space == IT_TMEM_T && !in_subpartition(x, n, tensor, index, t))
        return NULL;
    if (tt->space == IT_SHARED_T || tt->space == IT_TMEM_T)
        return shared_access(x, n, tensor, index, t, write);
    size_t cell = (size_t)t * (size_t)tt->size + (size_t)index;
    if (write)
        x->lwritten[tensor][cell] = 1;
    else if (!x->lwritten[tensor][cell])
        return unwritten(x, n, tensor, index, t), NULL;
    return x->local[tensor] + cell * es;
}

unsigned char *ix_access(ix_exec *x, const in_node *n, int tensor, int64_t index, int t,
                         bool write) {
    return access(x, n, tensor, index, t, write);
}

/* ---- values (the math is interp_ops.c's) ---- */

/* Operand k of an op (a loaded input or a scalar constant) in type `to`. */
static ix_value operand(const ix_exec *x, const in_node *n, const ix_value *in, int k,
                        wf_dtype to) {
    int i = n->arg_in[k];
    if (i >= 0)
        return ix_convert(in[i], x->p->tensors[n->in[i]].dtype, to);
    return ix_scalar(&n->sc[k]); /* already in the compute type */
}

/* The value an op computes from its loaded inputs (in their storage types). */
static ix_value compute(const ix_exec *x, const in_node *n, const ix_value in[]) {
    wf_dtype cd = n->cdtype;
    switch (n->op) {
    case OP_CAST:
        return ix_convert(in[0], x->p->tensors[n->in[0]].dtype, x->p->tensors[n->out].dtype);
    case OP_UNARY:
        return ix_unary(n->sub, operand(x, n, in, 0, cd), cd);
    case OP_BINARY:
        return ix_binary(n->sub, operand(x, n, in, 0, cd), operand(x, n, in, 1, cd), cd);
    case OP_WHERE:
        return operand(x, n, in, 0, WF_BOOL).i ? operand(x, n, in, 1, cd)
                                               : operand(x, n, in, 2, cd);
    default:
        return in[0];
    }
}

/* ---- the statement ---- */

static bool element(ix_exec *x, const in_node *n, int t, int64_t e, const int64_t *oi, bool ov,
                    const int64_t *ii[], const bool iv[]) {
    ix_value in[IR_MAX_OP_INPUTS] = {{0}};
    for (int k = 0; k < n->nin; k++) {
        const unsigned char *p = access(x, n, n->in[k], ii[k][iv[k] ? t : 0] + e, t, false);
        if (!p)
            return false;
        in[k] = ix_load(x->p->tensors[n->in[k]].dtype, p);
    }
    ix_value out = compute(x, n, in);
    unsigned char *p = access(x, n, n->out, oi[ov ? t : 0] + e, t, true);
    if (!p)
        return false;
    ix_store(x->p->tensors[n->out].dtype, p, out);
    return true;
}

bool ix_stmt(ix_exec *x, const in_node *n) {
    const int64_t *oi, *ii[IR_MAX_OP_INPUTS] = {NULL};
    bool ov, iv[IR_MAX_OP_INPUTS] = {false};
    /* Index results live in the register file: evaluate, then copy the inputs'. */
    for (int k = 0; k < n->nin; k++) {
        if (!ix_eval(x, &n->in_index[k], &ii[k], &iv[k]))
            return ix_fail(x, WF_ERR_SCHEDULE,
                           "an index divides by zero or overflows int64 in statement: %s", n->text);
        int64_t *copy = x->saved + (size_t)k * (size_t)x->nthreads;
        memcpy(copy, ii[k], sizeof(int64_t) * (size_t)(iv[k] ? x->nthreads : 1));
        ii[k] = copy;
    }
    if (!ix_eval(x, &n->out_index, &oi, &ov))
        return ix_fail(x, WF_ERR_SCHEDULE,
                       "an index divides by zero or overflows int64 in statement: %s", n->text);
    for (int t = 0; t < x->nthreads; t++)
        for (int64_t e = 0; x->mask[t] && e < n->vec; e++)
            if (!element(x, n, t, e, oi, ov, ii, iv))
                return false;
    for (int k = 0; k < n->nin; k++)
        ix_record_stats(x, n, n->in[k], ii[k], iv[k]);
    ix_record_stats(x, n, n->out, oi, ov);
    return true;
}
