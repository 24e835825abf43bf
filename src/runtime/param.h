/*
 * param.h -- the runtime's kernel-parameter table, by parameter kind
 * (kir_param_kind): how a call binds each kind, how the CUDA launch packs
 * it, and what the CPU reference executor sees. One row per kind in
 * param.c; only tensors are implemented, the other kinds are refused.
 */
#ifndef WF_RUNTIME_PARAM_H
#define WF_RUNTIME_PARAM_H

#include "runtime/runtime.h"

/* WF_OK, or WF_ERR_UNSUPPORTED (in k->err) for a kind this build cannot pass. */
wf_status rt_param_check(wf_kernel *k, int i);
/* The CUDA argument bytes of parameter i at `arg` (device address `data`); their count. */
size_t rt_param_pack(const wf_kernel *k, const rt_launch *l, int i, uint64_t data,
                     unsigned char *arg);
/* Does the executor bind parameter kind `kind` as a global-memory tensor? */
bool rt_param_is_global_tensor(kir_param_kind kind);

#endif
