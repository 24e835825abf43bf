/*
 * rfactor.c -- splitting a reduction in two (nvFuser's rFactor).
 */
#include "sched/sched.h"

wf_tv *sched_rfactor(wf_tv *tv, int naxes, const int *axes) {
    (void)naxes;
    (void)axes;
    return wf_fail(&tv->f->err, WF_ERR_UNSUPPORTED, "T%d.rfactor: not supported yet", tv->id);
}
