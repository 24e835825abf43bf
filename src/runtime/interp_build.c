/*
 * interp_build.c -- kernel IR to the CPU reference executor's program.
 *
 * Requires a complete lowering result. The tree keeps the kernel IR's shape
 * node for node; each wf_val becomes a register program (common
 * subexpressions, which the simplifier shares by pointer, are computed once),
 * and each instruction knows whether it varies between the threads of a
 * block, so uniform work is done once per block step.
 */
#include "base/heap.h"
#include "runtime/interp_builder.h"
#include "runtime/interp_hw.h"
#include "runtime/param.h"

#include <stdlib.h>
#include <string.h>

static int add_tensor(builder *b, const wf_tv *tv, it_space space, int param, int64_t size,
                      int64_t offset) {
    it_program *p = b->p;
    it_tensor *t = &p->tensors[p->ntensors];
    t->tv = tv->id;
    t->dtype = tv->dtype;
    t->space = space;
    t->param = param;
    t->size = size;
    t->offset = offset;
    b->tensor_of_tv[tv->id] = p->ntensors;
    return p->ntensors++;
}

static in_node *build_list(builder *b, const kir_list *l, in_node *n);

static void build_stmt(builder *b, in_node *n, const kir_stmt *s) {
    sbuf text = {0};
    kir_print_stmt(&text, s);
    n->text = arena_strdup(&b->k->arena, sbuf_str(&text));
    sbuf_free(&text);
    n->id = b->p->nstmts++;
    n->op = s->op->kind;
    n->copy = s->copy;
    n->sub = s->op->sub;
    /* The IR's promotion gives every op a type its math is defined for. */
    err_assert(&b->k->err, ix_op_valid(n->op, n->sub, s->op->out->dtype));
    n->out = b->tensor_of_tv[s->op->out->id];
    n->nin = s->op->nin;
    n->vec = s->vec;
    for (int i = 0; i < s->op->nin + 1; i++) { /* the widest access, for the statistics */
        const wf_tv *tv = i ? s->op->in[i - 1] : s->op->out;
        int64_t bytes = (int64_t)wf_dtype_size(tv->dtype) * s->vec;
        if (bytes > b->p->max_access_bytes)
            b->p->max_access_bytes = bytes;
    }
    n->out_index = ix_build_expr(b, s->out_index);
    n->tma = -1;
    ix_copy_build(b, n, s); /* the copy kind's own payload (interp_copy.c) */
    n->red = s->red;
    n->red_tids = s->red_tids;
    n->red_bids = s->red_bids;
    n->acc = s->acc;
    n->mma = s->mma;
    n->mma_a = s->mma_a;
    n->view = s->view;
    for (int j = 0; s->mma == 2 && j < 2; j++) {
        n->wg_n = s->hw.wg.n;
        n->wg_tile[j] = b->tensor_of_tv[s->hw.wg.smem[j]->id];
        n->wg_start[j] = ix_build_expr(b, s->hw.wg.start[j]);
        n->wg_mn[j] = s->hw.wg.mn_major[j];
        n->wg_lbo[j] = s->hw.wg.lbo[j];
        n->wg_sbo[j] = s->hw.wg.sbo[j];
        n->wg_base[j] = s->hw.wg.base[j];
    }
    n->fill = s->fill && s->pred;
    if (n->fill)
        n->fill_pred = ix_build_expr(b, s->pred);
    if (kir_red_no_input(s->red))
        n->nin = 0;
    if (s->red >= KRED_BLOCK) {
        n->rpred = ix_build_expr(b, s->pred);
        n->wpred = ix_build_expr(b, s->wpred);
        n->giter = ix_build_expr(b, s->grid_iter ? s->grid_iter : val_const(&b->k->arena, 0));
        n->gniter = ix_build_expr(b, s->grid_niter);
    }
    for (int i = 0; i < n->nin; i++) {
        n->in[i] = b->tensor_of_tv[s->op->in[i]->id];
        n->in_index[i] = ix_build_expr(b, s->in_index[i]);
    }
    n->cdtype = s->op->cdtype;
    n->nargs = s->op->nargs;
    for (int k = 0; k < n->nargs; k++) {
        const ir_scalar *sc;
        n->arg_in[k] = (int8_t)ir_op_operand(s->op, k, &sc);
        if (sc)
            n->sc[k] = *sc;
    }
}

static void build_for(builder *b, in_node *n, const kir_for *l) {
    n->serial = lower_pdim_index(l->ptype) < 0 && !l->vector && !val_is_const(l->var);
    n->slot = -1;
    if (l->var->kind == V_SYM && l->var->sym == SYM_LOOP && l->group < b->ngroups) {
        n->slot = b->p->nloops++;
        b->loop_slot[l->group] = n->slot;
    }
    n->extent = ix_build_expr(b, l->extent);
    build_list(b, &l->body, n);
}

static in_node *build_node(builder *b, const kir_node *k) {
    in_node *n = ARENA_NEW(&b->k->arena, in_node);
    if (!n) {
        b->oom = true;
        return NULL;
    }
    switch (k->kind) {
    case KIR_FOR:
        n->kind = IN_FOR;
        build_for(b, n, &k->u.loop);
        break;
    case KIR_IF: /* run_if saves the mask on a stack as deep as the nesting */
        n->kind = IN_IF;
        n->cond = ix_build_expr(b, k->u.cond.cond);
        if (++b->if_depth > b->p->max_if_depth)
            b->p->max_if_depth = b->if_depth;
        build_list(b, &k->u.cond.body, n);
        b->if_depth--;
        break;
    case KIR_ALLOC:
        n->kind = IN_ALLOC;
        n->tensor = b->tensor_of_tv[k->u.alloc.tv->id];
        n->view = k->u.alloc.view;
        break;
    case KIR_STMT:
        n->kind = IN_STMT;
        build_stmt(b, n, &k->u.stmt);
        break;
    case KIR_SYNC:
        n->kind = IN_SYNC;
        if (k->u.sync.kind != KSYNC_BLOCK)
            b->oom |= !(n->hw = ix_hw_of_sync(b->k, &k->u.sync));
        if (k->u.sync.mbar_off)
            n->mbar_off = ix_build_expr(b, k->u.sync.mbar_off);
        if (k->u.sync.phase_val)
            n->phase = ix_build_expr(b, k->u.sync.phase_val);
        break;
    case KIR_HW:
        n->kind = IN_HW;
        b->oom |= !(n->hw = ix_hw_of_node(b->k, &k->u.hw));
        if (kir_body((kir_node *)k))
            build_list(b, &k->u.hw.body, n);
        break;
    }
    return n;
}

static in_node *build_list(builder *b, const kir_list *l, in_node *n) {
    n->kids = ARENA_ARRAY(&b->k->arena, in_node *, l->n + 1);
    if (!n->kids) {
        b->oom = true;
        return n;
    }
    for (int i = 0; i < l->n; i++)
        if (!kir_runs_nothing(l->ptr[i]) && (n->kids[n->nkids] = build_node(b, l->ptr[i])))
            n->nkids++;
    return n;
}

static int add_alloc(builder *b, const kir_alloc *a) {
    it_program *p = b->p;
    if (a->mem == WF_MEM_LOCAL)
        return add_tensor(b, a->tv, IT_LOCAL_T, -1, a->size->c, 0);
    if (a->mem == WF_MEM_SHARED) {
        int i = add_tensor(b, a->tv, IT_SHARED_T, -1, 0, 0);
        p->tensors[i].shared_offset = val_clone(&b->k->arena, a->smem_offset, &b->memo);
        p->tensors[i].shared_size = val_clone(&b->k->arena, a->size, &b->memo);
        b->oom |= !p->tensors[i].shared_offset || !p->tensors[i].shared_size;
        return i;
    }
    /* Tensor memory comes first in the block's memory: its sizes are constant. */
    int64_t off = (p->tmem_bytes + 15) / 16 * 16;
    int i = add_tensor(b, a->tv, IT_TMEM_T, -1, a->size->c, off);
    p->tensors[i].row = a->row;
    p->tmem_bytes = off + a->size->c * (int64_t)wf_dtype_size(a->tv->dtype);
    return i;
}

/* Tensors: the kernel parameters, then every allocation in the tree. */
static void collect_allocs(builder *b, const kir_list *l) {
    for (int i = 0; i < l->n; i++) {
        const kir_node *n = l->ptr[i];
        kir_list *body = kir_body((kir_node *)n);
        if (body)
            collect_allocs(b, body);
        else if (n->kind == KIR_ALLOC)
            add_alloc(b, &n->u.alloc);
    }
}

static bool setup(builder *b, const lower_result *r, int ntvs, int ngroups) {
    wf_arena *a = &b->k->arena;
    b->p = ARENA_NEW(a, it_program);
    b->tensor_of_tv = heap_calloc((size_t)ntvs + 1, sizeof(int));
    b->loop_slot = heap_malloc(sizeof(int) * ((size_t)ngroups + 1));
    if (!b->p || !b->tensor_of_tv || !b->loop_slot)
        return false;
    b->p->tensors = ARENA_ARRAY(a, it_tensor, ntvs + 1);
    b->p->root = ARENA_NEW(a, in_node);
    for (int i = 0; i < ngroups; i++)
        b->loop_slot[i] = -1;
    for (int i = 0; i < ntvs; i++)
        b->tensor_of_tv[i] = -1;
    if (!b->p->tensors || !b->p->root)
        return false;
    for (int i = 0; i < r->params.n; i++)
        if (rt_param_is_global_tensor(r->params.ptr[i].kind))
            add_tensor(b, r->params.ptr[i].tv, IT_GLOBAL_T, i, 0, 0);
    collect_allocs(b, &r->top);
    return true;
}

static int count_groups(const kir_list *l) {
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        kir_node *n = l->ptr[i];
        if (n->kind == KIR_FOR && n->u.loop.group + 1 > m)
            m = n->u.loop.group + 1;
        kir_list *body = kir_body(n);
        if (body) {
            int c = count_groups(body);
            m = c > m ? c : m;
        }
    }
    return m;
}

bool rt_interp_build(wf_kernel *k, const lower_result *r) {
    builder b = {.k = k, .r = r};
    b.ntvs = r->params.n ? r->params.ptr[0].tv->f->tvs.n : 0;
    b.ngroups = count_groups(&r->top);
    bool ok = setup(&b, r, b.ntvs, b.ngroups);
    if (ok) {
        build_list(&b, &r->top, b.p->root);
        b.p->stats = ARENA_ARRAY(&k->arena, it_stats, b.p->nstmts + 1);
        ok = !b.oom && b.p->stats;
    }
    free(b.tensor_of_tv);
    free(b.loop_slot);
    val_memo_free(&b.memo);
    if (ok)
        k->interp = b.p;
    return ok;
}
