/*
 * lanes.c -- what the warp-collective instructions (ldmatrix / stmatrix in
 * copy_ldmatrix.c, mma.sync in mma.c) share: they check, at compile time,
 * that the lanes of every warp hold what the instruction moves, and refuse
 * alike when an index they evaluate depends on run-time sizes.
 */
#include "lower/copy.h"

bool lower_lanes_unknown(lower_ctx *c, const wf_tv *out, const char *what, const wf_tv *of) {
    return err_failb(&c->f->err, WF_ERR_UNSUPPORTED,
                     "T%d: cannot check the lanes of its %s at compile time: the index of T%d "
                     "depends on run-time sizes",
                     out->id, what, of->id);
}
