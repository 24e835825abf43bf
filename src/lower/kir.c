/*
 * kir.c -- building and printing kernel IR nodes.
 *
 * The printer is the WF_DUMP format: one node per line, indented by depth,
 * with loops, predicates, allocations and statements with their indices,
 * barriers, mbarrier operations and fences by their kind's name, and the
 * hardware statements (WARP0 holds a body, like IF).
 */
#include "lower/kir.h"

kir_node *kir_new(wf_arena *a, kir_kind k) {
    kir_node *n = ARENA_NEW(a, kir_node);
    if (n)
        n->kind = k;
    return n;
}

kir_node *kir_new_sync(wf_arena *a, kir_sync_kind k) {
    kir_node *n = kir_new(a, KIR_SYNC);
    if (n)
        n->u.sync.kind = k;
    return n;
}

kir_node *kir_new_hw(wf_arena *a, kir_hw_kind k) {
    kir_node *n = kir_new(a, KIR_HW);
    if (n)
        n->u.hw.kind = k;
    return n;
}

const char *kir_sync_name(kir_sync_kind k) {
    static const char *const names[] = {
#define X(kind, name) name,
        KIR_SYNC_KINDS(X)
#undef X
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *kir_hw_name(kir_hw_kind k) {
    static const char *const names[] = {
#define X(kind, name) name,
        KIR_HW_KINDS(X)
#undef X
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

const char *kir_param_name(kir_param_kind k) {
    static const char *const names[] = {
#define X(kind, name) name,
        KIR_PARAM_KINDS(X)
#undef X
    };
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

kir_list *kir_body(kir_node *n) {
    if (n->kind == KIR_FOR)
        return &n->u.loop.body;
    if (n->kind == KIR_IF)
        return &n->u.cond.body;
    if (n->kind == KIR_HW && (n->u.hw.kind == KHW_WARP0 || n->u.hw.kind == KHW_ELECT))
        return &n->u.hw.body;
    return NULL;
}

bool kir_runs_nothing(const kir_node *n) {
    if (n->kind == KIR_STMT)
        return n->u.stmt.view;
    if (n->kind == KIR_ALLOC)
        return n->u.alloc.view;
    if (n->kind != KIR_FOR && n->kind != KIR_IF)
        return false;
    const kir_list *body = n->kind == KIR_FOR ? &n->u.loop.body : &n->u.cond.body;
    for (int i = 0; i < body->n; i++)
        if (!kir_runs_nothing(body->ptr[i]))
            return false;
    return body->n > 0;
}

bool kir_append(wf_arena *a, kir_list *l, kir_node *n, kir_node *parent) {
    if (!n || !vec_push_arena(a, l, n))
        return false;
    n->parent = parent;
    return true;
}

bool kir_insert(wf_arena *a, kir_list *l, int at, kir_node *n, kir_node *parent) {
    if (!kir_append(a, l, n, parent))
        return false;
    for (int i = l->n - 1; i > at; i--)
        l->ptr[i] = l->ptr[i - 1];
    l->ptr[at] = n;
    return true;
}

static void print_list(sbuf *b, const kir_list *l, int depth);

/* The rest of a reduction statement after "T<n>[index". */
static void print_reduce(sbuf *b, const kir_stmt *s) {
    const char *op = ir_binary_name(s->op->sub);
    if (s->red == KRED_FINAL) {
        sbuf_printf(b, "] = acc%d", s->acc);
        return;
    }
    if (s->red == KRED_INIT) {
        sbuf_printf(b, "] = init(%s)", op);
        return;
    }
    if (s->red >= KRED_BLOCK) {
        sbuf_puts(b, s->red == KRED_GRID ? "] = grid_" : "] = block_");
        for (int d = 0; d < 6; d++)
            if ((d < 3 ? s->red_tids : s->red_bids << 3) & (1u << d))
                sbuf_puts(b, ir_ptype_name((wf_ptype)(d < 3 ? WF_TIDX + d : WF_BIDX + d - 3)));
        sbuf_puts(b, " ");
    } else
        sbuf_puts(b, s->mma ? "] = mma_m16n8k16 " : "] = ");
    for (int k = 0; k < s->op->nin; k++) { /* a wf_mma folds the product of two */
        if (k)
            sbuf_printf(b, " * T%d[", s->op->in[k]->id);
        else
            sbuf_printf(b, "%s(T%d[", op, s->op->in[k]->id);
        if (s->in_index[k])
            val_print(b, s->in_index[k]);
        sbuf_puts(b, "]");
    }
    sbuf_puts(b, ")");
    if (s->red >= KRED_BLOCK && s->wpred) {
        sbuf_puts(b, " write if ");
        val_print(b, s->wpred);
    }
}

void kir_print_stmt(sbuf *b, const kir_stmt *s) {
    if (s->acc > 0 && s->red != KRED_FINAL) /* computed in a float register, not in T<n> */
        sbuf_printf(b, "acc%d for ", s->acc);
    sbuf_printf(b, "T%d[", s->op->out->id);
    if (s->out_index)
        val_print(b, s->out_index);
    /* A hardware copy prints as its kind (StTMem, ...), everything else as its op. */
    bool hw = s->copy != WF_LDST_SET;
    if (s->red != KRED_NONE) {
        print_reduce(b, s);
        return;
    }
    sbuf_printf(b, "] = %s(", hw ? ir_ldst_name(s->copy) : ir_op_name(s->op->kind));
    for (int k = 0; k < s->op->nargs; k++) {
        const ir_scalar *sc;
        int i = ir_op_operand(s->op, k, &sc);
        if (k)
            sbuf_puts(b, ", ");
        if (i < 0) {
            ir_print_scalar(b, s->op->sc_given[k]);
            continue;
        }
        sbuf_printf(b, "T%d[", s->op->in[i]->id);
        if (s->in_index[i])
            val_print(b, s->in_index[i]);
        sbuf_puts(b, "]");
    }
    sbuf_puts(b, ")");
    if (s->vec > 1)
        sbuf_printf(b, " vec=%d", s->vec);
    if (s->fill && s->pred) {
        sbuf_puts(b, " where ");
        val_print(b, s->pred);
        sbuf_puts(b, " else 0");
    }
}

/* " 2", or " 0+(i0 % 3)" for a circular buffer's stage. */
static void print_mbar(sbuf *b, const kir_sync *s) {
    sbuf_printf(b, " %d", s->mbar);
    if (s->mbar_off) {
        sbuf_puts(b, "+(");
        val_print(b, s->mbar_off);
        sbuf_puts(b, ")");
    }
}

/* SYNC, or e.g. "MBAR_WAIT 0 phase=1". */
static void print_sync(sbuf *b, const kir_sync *s) {
    sbuf_puts(b, kir_sync_name(s->kind));
    if (kir_sync_uses_mbar(s->kind))
        print_mbar(b, s);
    switch (s->kind) {
    case KSYNC_MBAR_INIT:
        sbuf_printf(b, " count=%lld", (long long)s->count);
        break;
    case KSYNC_WGMMA_WAIT:
        sbuf_printf(b, " %lld", (long long)s->count);
        break;
    case KSYNC_MBAR_ARRIVE_TX:
    case KSYNC_MBAR_COMPLETE_TX:
        sbuf_puts(b, " bytes=");
        val_print(b, s->bytes);
        break;
    case KSYNC_MBAR_WAIT:
        if (s->phase_val) {
            sbuf_puts(b, " phase=");
            val_print(b, s->phase_val);
        } else
            sbuf_printf(b, " phase=%lld", (long long)s->phase);
        break;
    default:
        break;
    }
    sbuf_puts(b, "\n");
}

static void print_hw(sbuf *b, const kir_hw *h, int depth) {
    sbuf_puts(b, kir_hw_name(h->kind));
    if (h->kind == KHW_TMEM_ALLOC || h->kind == KHW_TMEM_DEALLOC)
        sbuf_printf(b, " region=%d columns=%lld", h->region, (long long)h->columns);
    if (h->kind == KHW_TMEM_SLOTS) {
        sbuf_puts(b, " @");
        val_print(b, h->offset);
    }
    sbuf_puts(b, "\n");
    if (h->kind == KHW_WARP0 || h->kind == KHW_ELECT)
        print_list(b, &h->body, depth + 1);
}

static void print_node(sbuf *b, const kir_node *n, int depth) {
    sbuf_indent(b, depth);
    switch (n->kind) {
    case KIR_FOR:
        sbuf_printf(b, "FOR %s ", ir_ptype_name(n->u.loop.ptype));
        val_print(b, n->u.loop.var);
        sbuf_puts(b, " in ");
        val_print(b, n->u.loop.extent);
        sbuf_puts(b, n->u.loop.vector ? " (vector)\n" : "\n");
        print_list(b, &n->u.loop.body, depth + 1);
        break;
    case KIR_IF:
        sbuf_puts(b, "IF ");
        val_print(b, n->u.cond.cond);
        sbuf_puts(b, "\n");
        print_list(b, &n->u.cond.body, depth + 1);
        break;
    case KIR_ALLOC:
        sbuf_printf(b, "ALLOC T%d %s ", n->u.alloc.tv->id, ir_memtype_name(n->u.alloc.mem));
        val_print(b, n->u.alloc.size);
        if (n->u.alloc.mem == WF_MEM_SHARED) {
            sbuf_puts(b, " @");
            val_print(b, n->u.alloc.smem_offset);
        }
        sbuf_puts(b, "\n");
        break;
    case KIR_STMT:
        kir_print_stmt(b, &n->u.stmt);
        sbuf_puts(b, "\n");
        break;
    case KIR_SYNC:
        print_sync(b, &n->u.sync);
        break;
    case KIR_HW:
        print_hw(b, &n->u.hw, depth);
        break;
    }
}

static void print_list(sbuf *b, const kir_list *l, int depth) {
    for (int i = 0; i < l->n; i++)
        print_node(b, l->ptr[i], depth);
}

void kir_print(sbuf *b, const kir_list *top) {
    print_list(b, top, 0);
}
