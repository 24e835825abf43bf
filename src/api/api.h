/*
 * api.h -- what the public entry points share: the gate on the sticky error,
 * axis and position normalization, (the kernel object is runtime/runtime.h's).
 *
 * src/api is the only layer that trusts nothing: every wf_* function checks
 * its handles and arguments here, then delegates to an internal function.
 */
#ifndef WF_API_API_H
#define WF_API_API_H

#include "heur/heur.h"
#include "runtime/runtime.h"
#include "sched/sched.h"

/* Return `ret` at once on a NULL fusion or one whose sticky error is set. */
#define WF_GATE(f, ret)                                                                            \
    do {                                                                                           \
        if (!(f) || api_failed(f))                                                                 \
            return ret;                                                                            \
    } while (0)

/* Is the sticky error set? An allocation that failed since is recorded now. */
static inline bool api_failed(wf_fusion *f) {
    if (f->arena.failed && !err_set(&f->err))
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    return err_set(&f->err);
}

/* The same for a tensor: its fusion's gate; a scalar constant (wf_full) is
   refused: it is only an operand of the elementwise ops (OPERAND_GATE). */
#define TV_GATE(tv, ret)                                                                           \
    do {                                                                                           \
        if (!(tv))                                                                                 \
            return ret;                                                                            \
        WF_GATE((tv)->f, ret);                                                                     \
        if ((tv)->scalar && !api_scalar_refused(tv))                                               \
            return ret;                                                                            \
    } while (0)
#define OPERAND_GATE(tv, ret)                                                                      \
    do {                                                                                           \
        if (!(tv))                                                                                 \
            return ret;                                                                            \
        WF_GATE((tv)->f, ret);                                                                     \
    } while (0)

/* Records why a scalar constant cannot be used where a tensor is needed;
   returns false. */
bool api_scalar_refused(wf_tv *tv);

/* wf_compile with explicit lowering options (tests drop passes with them);
   NULL = the defaults: WF_DUMP and WF_SKIP, read once from the environment. */
wf_kernel *api_compile(wf_fusion *f, const wf_compile_options *opt, const lower_options *lo);

/* Keep a printer's text in the fusion (replacing the previous one; the
   wf_*_string contract) and empty b; NULL, with the fusion's error set, when
   b ran out of memory. */
const char *api_keep_text(wf_fusion *f, sbuf *b);

/* Normalize a (possibly negative) loop axis of tv; false + sticky error if out of range. */
bool api_axis(wf_tv *tv, int *axis, const char *what);
/* The same for an axis of a tensor's loop domain or of an abstract tensor. */
bool api_dom_axis(const sched_dom *d, int *axis, const char *what);
/* Normalize a position 0..ndim (negative wraps as pos + ndim + 1). */
bool api_pos(wf_tv *tv, int *pos, const char *what);

/* tma.c: seed 001's roles of tv's IterDomains for the diagram (one
   ir_dot_role per IterDomain id of the fusion, heap memory the caller frees),
   or NULL when tv is not the consumer of a TMA copy with a Bulk tile (or
   memory ran out: the diagram is then drawn without TMA colours). */
uint8_t *api_tma_dot_roles(const wf_tv *tv);

/* copy.c: a new fusion with f's definition (inputs, ops, outputs; no
   schedule), or NULL when memory runs out. concrete: NULL, or one entry per
   dim of every input, inputs in order: > 0 makes that dim this constant. */
wf_fusion *api_fusion_copy(wf_fusion *f, const int64_t *concrete);

#endif
