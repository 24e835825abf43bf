/*
 * heur.c -- wf_schedule_auto's driver: classify the fusion, reset any
 * schedule it has, and run the first scheduler of the table that covers it.
 *
 * The table is data: {name, can_schedule, heuristics, apply}, tried in order.
 * normalization comes before reduction (a reduction whose result is broadcast
 * back is a normalization), transpose before pointwise (a fusion whose inputs
 * and outputs disagree on their innermost dim is a transpose).
 */
#include "heur/heur.h"

#include "base/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const heur_scheduler *const table[] = {&heur_normalization, &heur_reduction, &heur_transpose,
                                              &heur_pointwise};
enum { NSCHED = sizeof table / sizeof *table };

/* Drop a schedule: every tensor back to its logical domain, serial, not
   inlined, intermediates in registers. */
static bool reset(wf_fusion *f) {
    for (int i = 0; i < f->ops.n; i++)
        if (f->ops.ptr[i]->rf_in)
            return err_failb(&f->err, WF_ERR_UNSUPPORTED,
                             "wf_schedule_auto: T%d is an rfactor of a reduction made by a "
                             "schedule; an automatic schedule replaces a schedule of the "
                             "fusion's definition only (schedule a fresh copy of the fusion)",
                             f->ops.ptr[i]->out->id);
    for (int i = 0; i < f->tvs.n; i++) {
        wf_tv *tv = f->tvs.ptr[i];
        tv->loop.n = 0;
        if (!ir_copy_ids(f, &tv->loop, tv->logical.ptr, tv->logical.n))
            return false;
        for (int d = 0; d < tv->logical.n; d++)
            tv->logical.ptr[d]->ptype = WF_SERIAL;
        tv->alloc.n = 0;
        tv->ca_pos = tv->max_producer_pos = 0;
        tv->stages = 0;
        if (!tv->is_input && !tv->is_output)
            tv->mem = WF_MEM_LOCAL;
        if (tv->def && ir_op_is_copy(tv->def))
            tv->def->ldst = WF_LDST_SET;
    }
    return true;
}

static void classify(heur_facts *hf) {
    wf_fusion *f = hf->f;
    for (int i = 0; i < f->outputs.n; i++) {
        wf_tv *o = f->outputs.ptr[i];
        if (!hf->ref || o->logical.n > hf->ref->logical.n)
            hf->ref = o;
    }
    for (int i = 0; i < f->ops.n; i++) {
        ir_op *op = f->ops.ptr[i];
        if (op->kind == OP_REDUCE && hf->nred < (int)(sizeof hf->red / sizeof *hf->red))
            hf->red[hf->nred++] = op->out;
        if (op->kind == OP_PERMUTE && !hf->has_permute) {
            hf->has_permute = true;
            hf->permute = op->out;
        }
    }
    /* Broadcast back: a broadcast op downstream of a reduction (ops are not
       in topological order after caching: iterate to a fixed point). */
    bool *seen = calloc((size_t)f->tvs.n + 1, 1);
    if (!seen)
        return;
    for (int r = 0; r < hf->nred; r++)
        seen[hf->red[r]->id] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (int j = 0; j < f->ops.n; j++) {
            ir_op *op = f->ops.ptr[j];
            for (int k = 0; k < op->nin; k++)
                if (op->in[k]->id >= 0 && seen[op->in[k]->id]) {
                    if (op->kind == OP_BROADCAST)
                        hf->red_broadcast_back = true;
                    if (!seen[op->out->id])
                        seen[op->out->id] = changed = true;
                }
        }
    }
    free(seen);
}

wf_status heur_schedule(wf_fusion *f, const int64_t *sizes, const heur_device *dev,
                        heur_result *out) {
    memset(out, 0, sizeof *out);
    if (f->outputs.n == 0)
        return err_fail(&f->err, WF_ERR_UNSUPPORTED,
                        "wf_schedule_auto: the fusion has no outputs; nothing to schedule"),
               WF_ERR_UNSUPPORTED;
    if (!reset(f))
        return f->err.code;
    heur_facts hf;
    memset(&hf, 0, sizeof hf);
    hf.f = f;
    hf.sizes = sizes;
    hf.dev = dev;
    classify(&hf);
    char why[NSCHED][200];
    for (int i = 0; i < NSCHED; i++) {
        why[i][0] = '\0';
        if (!table[i]->can_schedule(&hf, why[i], sizeof why[i]))
            continue;
        _Alignas(16) unsigned char params[256];
        memset(params, 0, sizeof params);
        table[i]->heuristics(&hf, params);
        snprintf(out->scheduler, sizeof out->scheduler, "%s", table[i]->name);
        if (!table[i]->apply(&hf, params, out))
            return err_set(&f->err) ? f->err.code : WF_ERR_SCHEDULE;
        return err_set(&f->err) ? f->err.code : WF_OK;
    }
    /* No scheduler covers it: say why each refused. */
    sbuf b = {0};
    sbuf_printf(&b, "wf_schedule_auto: no scheduler covers this fusion:");
    for (int i = 0; i < NSCHED; i++)
        sbuf_printf(&b, "%s %s: %s", i ? ";" : "", table[i]->name, why[i]);
    err_fail(&f->err, WF_ERR_UNSUPPORTED, "%s", sbuf_str(&b));
    sbuf_free(&b);
    return WF_ERR_UNSUPPORTED;
}
