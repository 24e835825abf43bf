/*
 * lower.h -- lowering a scheduled fusion to kernel IR and launch facts.
 *
 * lower_fusion runs the pass list of pipeline.c over a fusion and fills a
 * lower_result: the kernel IR, the kernel's tensor parameters, the launch
 * information and the checks that can only be made at launch. It never
 * changes the fusion; errors go to the fusion's sticky error.
 */
#ifndef WF_LOWER_LOWER_H
#define WF_LOWER_LOWER_H

#include "lower/kir.h"

/* One kernel parameter: a fusion input or output, passed as Tensor<T, N>. */
typedef struct {
    wf_tv *tv;
    bool is_output;
    int index; /* position among the fusion's inputs or outputs */
    /* What is passed (kir.h): KP_TENSOR for every fusion input and output today. */
    kir_param_kind kind;
} lower_param;

/* A condition that must hold at launch (e.g. divisibility of a symbolic extent). */
typedef struct {
    const wf_val *cond;
    const char *message;
} lower_check;

typedef struct {
    wf_arena arena; /* owns everything below */
    kir_list top;
    VEC(lower_param) params;
    VEC(lower_check) checks;
    const wf_val *grid[3], *block[3]; /* launch extents, possibly symbolic */
    wf_launch_info launch;
    const wf_val *smem;      /* dynamic shared-memory bytes (symbolic when a tile is) */
    const wf_val *tmem_slot; /* shared-memory offset of the tensor-memory address table */
    int sm;
} lower_result;

bool lower_fusion(wf_fusion *f, int sm, lower_result *out);
void lower_result_free(lower_result *r);

#endif
