/*
 * mma_lanes.c -- what the tensor-core lowering's checks share (mma_int.h):
 * evaluating an index at a lane, register and K position, the refusals, and
 * the zero fill of an operand tile past the end of M, N or K.
 */
#include "lower/mma_int.h"

bool lower_mma_runtime_sizes(mma_lanes *k) {
    return lower_lanes_unknown(k->c, k->op->out, k->wg ? "wgmma" : "mma.sync", k->op->out);
}

bool lower_mma_fail_lane(mma_lanes *k, const char *what, int lane, int e, int64_t got,
                         int64_t want) {
    return err_failb(&k->c->f->err, WF_ERR_SCHEDULE,
                     "T%d: the lanes of a %s do not hold %s's fragments: %s of lane %d's element "
                     "%d is %lld, but the instruction needs %lld (the layouts: "
                     "docs/tutorial-gemm.md)",
                     k->op->out->id, k->wg ? "warp group" : "warp",
                     k->wg ? "wgmma.m64nNk16" : "mma.sync.m16n8k16", what, lane, e, (long long)got,
                     (long long)want);
}

bool lower_mma_at(mma_lanes *k, lower_point *p, int w, int t, int e, int kk, const wf_val *v,
                  int64_t *out) {
    lower_point_thread(p, k->block, (int64_t)w * k->lanes + t);
    p->b[0].val = e;
    p->b[1].val = kk;
    return lower_point_eval(p, v, out);
}

/* The statement that first writes operand x's tile where its bounds fail
   writes 0 instead: x's own, or, where x is loaded by ldmatrix (which reads
   whole tiles, unpredicated), its shared tile's. A TMA load zero-fills by
   itself. */
void lower_mma_fill(lower_ctx *c, const wf_tv *x) {
    for (int hops = 0; hops < 2 && c->op_pos[x->id] >= 0; hops++) {
        kir_node *w = c->stmt_of[c->op_pos[x->id]];
        if (w->u.stmt.copy == WF_LDST_SET && w->u.stmt.red == KRED_NONE) {
            w->u.stmt.fill = true;
            return;
        }
        if (w->u.stmt.copy != WF_LDST_LDMATRIX)
            return;
        x = w->u.stmt.op->in[0];
    }
}
