/*
 * domain.c -- setting a tensor's allocation or loop domain by hand, with the
 * checks that make such a domain meaningful.
 *
 * A domain set by the user must be one "cut" of the tensor's transform
 * history: every ID comes from the tensor's own history, none appears twice,
 * none is derived from another member (an ID and one of its parts would
 * iterate or allocate the same elements twice), every transform between the
 * logical domain and the cut is used whole (both outputs of a split or a
 * swizzle, or neither), and the cut reaches every non-broadcast logical ID.
 * The check undoes the transforms whose outputs are in the set, newest
 * first, and must end at the logical domain.
 *
 * An rfactor producer (sched/rfactor.c) holds one partial result per
 * element of its partial axes, IDs its transforms made from its logical
 * reduction IDs, which its reader reads (rf_in). Those, not the logical
 * reduction IDs, are what it yields, so its domain must also pass through
 * each of them: hold it or parts of it. A domain holding an ID a partial
 * axis derives from (the logical reduction ID itself, say) would reduce the
 * partial results along that axis together, and the reader would fold the
 * same total once per element of it (fuzz -s 12 -c 95511 read twice the
 * sum); it is refused.
 *
 * A fusion input or output is laid out as the wf_buffer passed to wf_run
 * says (logical order, the buffer's strides), so its allocation domain can
 * only be its logical domain; another layout is refused here and in
 * wf_output rather than silently transposing the data.
 */
#include "sched/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Record "T<n>.<what>: <text>"; fmt has two %s, for the IDs a and b as the
   printer names them (b may be NULL: then it prints as ""). */
static bool fail_ids(wf_tv *tv, const char *what, const char *fmt, const wf_iterdomain *a,
                     const wf_iterdomain *b) {
    sbuf sa = {0}, sb = {0}, msg = {0};
    ir_print_id(&sa, a);
    if (b)
        ir_print_id(&sb, b);
    sbuf_printf(&msg, "T%d.%s: ", tv->id, what);
    sbuf_printf(&msg, fmt, sbuf_str(&sa), sbuf_str(&sb));
    err_failb(&tv->f->err, WF_ERR_ARG, "%s", sbuf_str(&msg));
    sbuf_free(&sa);
    sbuf_free(&sb);
    sbuf_free(&msg);
    return false;
}

/* Mark every strict ancestor of `id` (reached backwards through transforms)
   in `anc`, one byte per ID of the fusion; marked IDs are not walked again,
   so merges of split outputs (many paths to one ID) stay linear. */
static void mark_ancestors(const wf_iterdomain *id, char *anc) {
    if (!id->def)
        return;
    for (int k = 0; k < id->def->nin; k++) {
        const wf_iterdomain *in = id->def->in[k];
        if (!anc[in->id]) {
            anc[in->id] = 1;
            mark_ancestors(in, anc);
        }
    }
}

static bool check_members(wf_tv *tv, int n, wf_iterdomain *const *ids, const char *what,
                          char *anc) {
    wf_fusion *f = tv->f;
    for (int i = 0; i < n; i++) {
        if (!ids[i] || ids[i]->tv != tv)
            return err_failb(&f->err, WF_ERR_ARG, "T%d.%s: axis %d is not an IterDomain of T%d",
                             tv->id, what, i, tv->id);
        for (int j = 0; j < i; j++)
            if (ids[i] == ids[j])
                return err_failb(&f->err, WF_ERR_ARG,
                                 "T%d.%s: axes %d and %d are the same IterDomain", tv->id, what, j,
                                 i);
    }
    for (int i = 0; i < n; i++) {
        memset(anc, 0, (size_t)f->ids.n);
        mark_ancestors(ids[i], anc);
        for (int j = 0; j < n; j++)
            if (anc[ids[j]->id])
                return fail_ids(tv, what,
                                "%s is a part of %s (it is derived from it), and both are in the "
                                "domain; a domain holds an IterDomain or its parts, not both",
                                ids[i], ids[j]);
    }
    return true;
}

/* The set `in` of check_cut: bit IN_NOW marks the IDs of the cut being
   undone, IN_EVER each ID that has been in it (the domain passes through
   it: holds it or parts of it). */
enum { IN_NOW = 1, IN_EVER = 2 };

/* Undo one transform whose outputs are all in the set `in`; false + error if
   only some are, or if an input is already there (two routes to one ID). */
static bool undo(wf_tv *tv, const id_transform *t, char *in, const char *what) {
    int present = 0;
    for (int k = 0; k < t->nout; k++)
        present += in[t->out[k]->id] & IN_NOW;
    if (present == 0)
        return true;
    for (int k = 0; present < t->nout && k < t->nout; k++)
        if (!(in[t->out[k]->id] & IN_NOW))
            return fail_ids(tv, what,
                            "%s is in the domain but %s, made by the same transform, is not; a "
                            "domain holds every output of a transform or none",
                            t->out[1 - k], t->out[k]);
    for (int k = 0; k < t->nout; k++)
        in[t->out[k]->id] &= (char)~IN_NOW;
    for (int k = 0; k < t->nin; k++) {
        if (in[t->in[k]->id] & IN_NOW)
            return fail_ids(tv, what,
                            "%s is covered twice: by the domain and by IterDomains derived "
                            "from it through another transform%s",
                            t->in[k], NULL);
        in[t->in[k]->id] = IN_NOW | IN_EVER;
    }
    return true;
}

/* tv an rfactor producer: does the domain pass through each partial axis
   its reader reads (see the file comment)? `in` is check_cut's set. */
static bool check_partials(wf_tv *tv, int n, wf_iterdomain *const *ids, const char *what,
                           const char *in) {
    const ir_op *op = sched_rfactor_reader(tv);
    for (int d = 0; op && d < op->out->logical.n; d++) {
        const wf_iterdomain *p = op->rf_in[d];
        if (op->in_dim[0][d] >= 0 || !p || (in[p->id] & IN_EVER))
            continue;
        char *anc = calloc((size_t)tv->f->ids.n + 1, 1);
        if (!anc)
            return err_failb(&tv->f->err, WF_ERR_MEMORY, "out of memory");
        mark_ancestors(p, anc);
        const wf_iterdomain *from = NULL;
        for (int i = 0; i < n && !from; i++)
            if (anc[ids[i]->id])
                from = ids[i];
        free(anc);
        sbuf sp = {0}, dom = {0}, sf = {0};
        ir_print_id(&sp, p);
        for (int i = 0; i < n; i++) {
            sbuf_puts(&dom, i ? ", " : "");
            ir_print_id(&dom, ids[i]);
        }
        if (from)
            ir_print_id(&sf, from);
        err_failb(&tv->f->err, WF_ERR_ARG,
                  "T%d.%s: T%d is an rfactor producer and T%d reads its partial results along "
                  "%s, but the domain (%s) does not pass through %s%s%s%s; the partial results "
                  "along it would be reduced together: keep %s or IterDomains derived from it "
                  "in the domain",
                  tv->id, what, tv->id, op->out->id, sbuf_str(&sp), sbuf_str(&dom), sbuf_str(&sp),
                  from ? ": it holds " : "", sbuf_str(&sf),
                  from ? ", which that axis is derived from" : "", sbuf_str(&sp));
        sbuf_free(&sp);
        sbuf_free(&dom);
        sbuf_free(&sf);
        return false;
    }
    return true;
}

/* Is `ids` one cut of tv's history (see the file comment)? */
static bool check_cut(wf_tv *tv, int n, wf_iterdomain *const *ids, const char *what, char *in) {
    wf_fusion *f = tv->f;
    for (int k = 0; k < f->ids.n; k++)
        in[k] = 0;
    for (int i = 0; i < n; i++)
        in[ids[i]->id] = IN_NOW | IN_EVER;
    for (int i = f->transforms.n - 1; i >= 0; i--) {
        const id_transform *t = f->transforms.ptr[i];
        if (t->out[0]->tv == tv && !undo(tv, t, in, what))
            return false;
    }
    for (int d = 0; d < tv->logical.n; d++) {
        const wf_iterdomain *id = tv->logical.ptr[d];
        if (!(in[id->id] & IN_NOW) && id->itype != IT_BROADCAST) {
            char fmt[160];
            snprintf(fmt, sizeof fmt,
                     "the domain must cover T%d's logical domain, but nothing in it derives "
                     "from %%s%%s",
                     tv->id);
            return fail_ids(tv, what, fmt, id, NULL);
        }
    }
    return check_partials(tv, n, ids, what, in);
}

static bool check_domain(wf_tv *tv, int n, wf_iterdomain *const *ids, const char *what) {
    char *scratch = calloc((size_t)tv->f->ids.n + 1, 1);
    if (!scratch)
        return err_failb(&tv->f->err, WF_ERR_MEMORY, "out of memory");
    bool ok = check_members(tv, n, ids, what, scratch) && check_cut(tv, n, ids, what, scratch);
    free(scratch);
    return ok;
}

/* Does `ids` list tv's logical domain exactly, in order? */
static bool is_logical(const wf_tv *tv, int n, wf_iterdomain *const *ids) {
    if (n != tv->logical.n)
        return false;
    for (int i = 0; i < n; i++)
        if (ids[i] != tv->logical.ptr[i])
            return false;
    return true;
}

bool sched_check_io_alloc(wf_tv *tv, const char *what, int n, wf_iterdomain *const *ids) {
    if (!(tv->is_input || tv->is_output) || n == 0 || is_logical(tv, n, ids))
        return true;
    sbuf b = {0};
    for (int i = 0; i < n; i++) {
        sbuf_puts(&b, i ? ", " : "");
        ir_print_id(&b, ids[i]);
    }
    err_failb(&tv->f->err, WF_ERR_ARG,
              "%s: T%d is a fusion %s, laid out as the buffer given to wf_run says (logical "
              "order, the buffer's strides), so its allocation domain can only be its logical "
              "domain, not (%s); for another layout, permute the tensor (wf_permute) or set the "
              "allocation domain on a cache of it (wf_cache_after / wf_cache_before)",
              what, tv->id, tv->is_input ? "input" : "output", sbuf_str(&b));
    sbuf_free(&b);
    return false;
}

bool sched_set_allocation_domain(wf_tv *tv, int n, wf_iterdomain *const *ids, bool contiguous) {
    char what[64];
    snprintf(what, sizeof what, "T%d.set_allocation_domain", tv->id);
    if (!check_domain(tv, n, ids, "set_allocation_domain") ||
        !sched_check_io_alloc(tv, what, n, ids))
        return false;
    if (!contiguous)
        return err_failb(
            &tv->f->err, WF_ERR_UNSUPPORTED,
            "T%d.set_allocation_domain: non-contiguous allocation domains are not supported",
            tv->id);
    if (tv->is_input || tv->is_output) /* the logical domain: nothing to record */
        return true;
    return ir_copy_ids(tv->f, &tv->alloc, ids, n);
}

bool sched_set_loop_domain(wf_tv *tv, int n, wf_iterdomain *const *ids) {
    if (!check_domain(tv, n, ids, "set_loop_domain"))
        return false;
    if (tv->ca_pos > 0 || tv->max_producer_pos > 0)
        return err_failb(&tv->f->err, WF_ERR_SCHEDULE,
                         "T%d.set_loop_domain: set the loop domain before inlining", tv->id);
    return ir_copy_ids(tv->f, &tv->loop, ids, n);
}
