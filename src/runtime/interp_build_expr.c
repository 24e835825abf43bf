/*
 * interp_build_expr.c -- a wf_val to a register program of the CPU
 * reference executor: common subexpressions (shared by pointer) computed
 * once, each instruction marked when it varies between the threads of a
 * block, and given a cache slot when it varies but not with the loops (the
 * executor then computes it once per block). Used by interp_build.c and the copy kinds' build
 * hooks.
 */
#include "base/heap.h"
#include "runtime/interp_builder.h"

#include <stdlib.h>
#include <string.h>

/* One expression's instructions while it is compiled (heap, growing). */
typedef struct {
    VEC(const wf_val *) from; /* the value each instruction computes (for sharing) */
    VEC(ix_ins) ins;
} expr_scratch;

static int sym_slot(builder *b, const wf_val *v) {
    it_program *p = b->p;
    for (int i = 0; i < p->nsyms; i++)
        if (val_equal(p->syms[i], v))
            return i;
    const wf_val **grown = ARENA_ARRAY(&b->k->arena, const wf_val *, p->nsyms + 1);
    const wf_val *c = val_clone(&b->k->arena, v, &b->memo);
    if (!grown || !c) {
        b->oom = true;
        return 0;
    }
    if (p->nsyms)
        memcpy(grown, p->syms, sizeof *grown * (size_t)p->nsyms);
    grown[p->nsyms] = c;
    p->syms = grown;
    return p->nsyms++;
}

static int loop_slot(builder *b, int group) {
    if (group < 0 || group >= b->ngroups || b->loop_slot[group] < 0) {
        b->oom = true; /* a loop variable outside its loop: a lowering bug */
        return 0;
    }
    return b->loop_slot[group];
}

static ix_op leaf_op(const wf_val *v) {
    switch (v->sym) {
    case SYM_LOOP:
        return IX_LOOP;
    case SYM_TID:
        return IX_TID;
    case SYM_BID:
        return IX_BID;
    default:
        return IX_SYM;
    }
}

static int emit(builder *b, expr_scratch *s, const wf_val *v) {
    for (int i = 0; i < s->from.n; i++)
        if (s->from.ptr[i] == v)
            return i;
    ix_ins in = {0};
    in.cache = -1;
    if (v->kind == V_CONST) {
        in.op = IX_CONST;
        in.c = v->c;
    } else if (v->kind == V_SYM) {
        in.op = (uint8_t)leaf_op(v);
        in.vary = in.op == IX_TID;
        in.loop = in.op == IX_LOOP;
        in.a = in.op == IX_LOOP  ? loop_slot(b, v->sym_a)
               : in.op == IX_SYM ? sym_slot(b, v)
                                 : v->sym_a;
    } else {
        in.op = IX_OP;
        in.kind = (uint8_t)v->kind;
        in.a = emit(b, s, v->a);
        in.b = emit(b, s, v->b);
        if (b->oom)
            return 0; /* an operand could not be emitted: no instruction to read */
        in.vary = s->ins.ptr[in.a].vary || s->ins.ptr[in.b].vary;
        in.loop = s->ins.ptr[in.a].loop || s->ins.ptr[in.b].loop;
        if (in.vary && !in.loop)
            in.cache = b->p->ncache++;
    }
    if (!vec_push_heap(&s->from, v) || !vec_push_heap(&s->ins, in)) {
        b->oom = true;
        return 0;
    }
    return s->ins.n - 1;
}

static ix_expr compile(builder *b, const wf_val *v) {
    static const wf_val one = {.kind = V_CONST, .c = 1};
    expr_scratch s = {{0}, {0}};
    ix_expr e = {0};
    emit(b, &s, v ? v : &one);
    e.n = s.ins.n;
    e.ins = e.n ? ARENA_ARRAY(&b->k->arena, ix_ins, e.n) : NULL;
    if (e.ins)
        memcpy(e.ins, s.ins.ptr, sizeof *e.ins * (size_t)e.n);
    else
        b->oom = true;
    if (e.n > b->p->max_regs)
        b->p->max_regs = e.n;
    vec_free(&s.from);
    vec_free(&s.ins);
    return e;
}

ix_expr ix_build_expr(ix_builder *b, const wf_val *v) {
    return compile(b, v);
}
