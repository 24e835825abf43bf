/*
 * launch.c -- launch parameters and kernel parameters.
 *
 * Requires pdims and alloc. Provides wf_launch_info (grid and block extents,
 * -1 where they depend on run-time sizes; shared-memory bytes) and the
 * kernel's tensor parameters: the fusion's inputs, then its outputs.
 */
#include "lower/lower_int.h"

static bool too_many_threads(lower_ctx *c) {
    const wf_launch_info *li = &c->out->launch;
    sbuf b = {0};
    sbuf_printf(&b, "the block has %lld x %lld x %lld threads; at most 1024 are allowed (",
                (long long)li->block[0], (long long)li->block[1], (long long)li->block[2]);
    for (int d = 0, first = 1; d < 3; d++) {
        const wf_iterdomain *id = c->pdim_id[d];
        if (!id || li->block[d] == 1)
            continue;
        sbuf_printf(&b, "%s%s from T%d's axis ", first ? "" : ", ",
                    ir_ptype_name(id->ptype == WF_SERIAL ? (wf_ptype)(WF_TIDX + d) : id->ptype),
                    id->tv->id);
        ir_print_id(&b, id);
        first = 0;
    }
    sbuf_puts(&b, ")");
    wf_failb(&c->f->err, WF_ERR_SCHEDULE, "%s", sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

bool lower_launch(lower_ctx *c) {
    lower_result *r = c->out;
    for (int d = 0; d < 3; d++) {
        r->launch.block[d] = val_is_const(r->block[d]) ? r->block[d]->c : -1;
        r->launch.grid[d] = val_is_const(r->grid[d]) ? r->grid[d]->c : -1;
    }
    if (r->launch.block[0] * r->launch.block[1] * r->launch.block[2] > 1024 &&
        r->launch.block[0] > 0 && r->launch.block[1] > 0 && r->launch.block[2] > 0)
        return too_many_threads(c);
    for (int i = 0; i < c->f->inputs.n; i++) {
        lower_param p = {c->f->inputs.ptr[i], false, i, KP_TENSOR};
        if (!vec_push_arena(c->a, &r->params, p))
            return wf_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    for (int i = 0; i < c->f->outputs.n; i++) {
        lower_param p = {c->f->outputs.ptr[i], true, i, KP_TENSOR};
        if (!vec_push_arena(c->a, &r->params, p))
            return wf_failb(&c->f->err, WF_ERR_MEMORY, "out of memory");
    }
    return true;
}
