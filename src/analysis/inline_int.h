/*
 * inline_int.h -- what the files of the inlining rules share (inline.c,
 * partner.c, inline_groups.c): nothing here is for other folders.
 */
#ifndef WF_ANALYSIS_INLINE_INT_H
#define WF_ANALYSIS_INLINE_INT_H

#include "analysis/analysis.h"

/* An axis whose index is always 0: a broadcast (a split one too: bS{3} holds
   one value) or an axis of extent 1. */
bool an_always_zero(const wf_iterdomain *id);
/* May producer loop ID p (an input of op) share its loop with consumer loop
   ID cid (of op's output)? partner.c. */
bool an_shares_loop(an_idgraph *g, const ir_op *op, const wf_iterdomain *p,
                    const wf_iterdomain *cid);
/* limit, lowered to the first position of tv at which the loops every
   tensor's position makes one would break a rule (*why: which), as
   an_max_inline_pos's limits are. inline_groups.c. */
int an_group_limit(an_idgraph *g, const wf_tv *tv, int limit, char *why, size_t whysize);

#endif
