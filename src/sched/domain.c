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

/* Undo one transform whose outputs are all in the set `in`; false + error if
   only some are, or if an input is already there (two routes to one ID). */
static bool undo(wf_tv *tv, const id_transform *t, char *in, const char *what) {
    int present = 0;
    for (int k = 0; k < t->nout; k++)
        present += in[t->out[k]->id];
    if (present == 0)
        return true;
    for (int k = 0; present < t->nout && k < t->nout; k++)
        if (!in[t->out[k]->id])
            return fail_ids(tv, what,
                            "%s is in the domain but %s, made by the same transform, is not; a "
                            "domain holds every output of a transform or none",
                            t->out[1 - k], t->out[k]);
    for (int k = 0; k < t->nout; k++)
        in[t->out[k]->id] = 0;
    for (int k = 0; k < t->nin; k++) {
        if (in[t->in[k]->id])
            return fail_ids(tv, what,
                            "%s is covered twice: by the domain and by IterDomains derived "
                            "from it through another transform%s",
                            t->in[k], NULL);
        in[t->in[k]->id] = 1;
    }
    return true;
}

/* Is `ids` one cut of tv's history (see the file comment)? */
static bool check_cut(wf_tv *tv, int n, wf_iterdomain *const *ids, const char *what, char *in) {
    wf_fusion *f = tv->f;
    for (int k = 0; k < f->ids.n; k++)
        in[k] = 0;
    for (int i = 0; i < n; i++)
        in[ids[i]->id] = 1;
    for (int i = f->transforms.n - 1; i >= 0; i--) {
        const id_transform *t = f->transforms.ptr[i];
        if (t->out[0]->tv == tv && !undo(tv, t, in, what))
            return false;
    }
    for (int d = 0; d < tv->logical.n; d++) {
        const wf_iterdomain *id = tv->logical.ptr[d];
        if (!in[id->id] && id->itype != IT_BROADCAST) {
            char fmt[160];
            snprintf(fmt, sizeof fmt,
                     "the domain must cover T%d's logical domain, but nothing in it derives "
                     "from %%s%%s",
                     tv->id);
            return fail_ids(tv, what, fmt, id, NULL);
        }
    }
    return true;
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
