/*
 * interp_builder.h -- the state of one kernel's translation into the
 * executor's program (interp_build.c), shared with the expression compiler
 * (interp_build_expr.c), which the copy kinds' build hooks also call.
 */
#ifndef WF_RUNTIME_INTERP_BUILDER_H
#define WF_RUNTIME_INTERP_BUILDER_H

#include "runtime/interp_hw.h"

struct ix_builder {
    wf_kernel *k;
    it_program *p;
    const lower_result *r;
    int *loop_slot; /* per loop group: slot, or -1 */
    int ngroups;
    int *tensor_of_tv; /* per tensor id: table index, or -1 */
    int ntvs;
    val_memo memo; /* for copying size/stride symbols into the kernel */
    int if_depth;  /* IFs around the node being built */
    bool oom;
};
typedef struct ix_builder builder;

#endif
