/*
 * heur.h -- automatic schedulers (wf_schedule_auto): a table of schedulers,
 * each {name, can_schedule, heuristics, apply}. heur_schedule classifies a
 * fusion, asks each scheduler in table order whether it covers the fusion,
 * computes its parameters from the sizes and the device, and applies them
 * with the ordinary schedule operations of src/sched (so that
 * wf_print_transforms shows what it did, like any hand schedule).
 *
 * Legality questions (can this axis be vectorized by 4? does a shared tile
 * fit?) are analysis/ queries (an_vector_width, an_smem_fits). Device facts
 * come from the caller (src/api: wf_system_info's, or the defaults).
 */
#ifndef WF_HEUR_HEUR_H
#define WF_HEUR_HEUR_H

#include "sched/sched.h"

/* What the heuristics know about the target. */
typedef struct {
    int sm;                 /* compile target, 10 * major + minor */
    int sm_count;           /* streaming multiprocessors */
    int64_t smem_per_block; /* bytes of shared memory a block may use (opt-in) */
    int regs_per_block;     /* 32-bit registers of one block */
    int max_vector_bytes;   /* the widest vector access the buffers allow (16, or less) */
} heur_device;

/* The defaults when there is no device (the CPU executor): an H100's. */
#define HEUR_DEFAULT_SM_COUNT 132
#define HEUR_DEFAULT_SMEM     (227 * 1024)
#define HEUR_DEFAULT_REGS     65536

typedef struct {
    char scheduler[32];
    char summary[256];
} heur_result;

/* Schedule f (its current schedule is replaced). sizes: NULL, or one entry per
   dim of every input, inputs in order (concrete dims must match). The status;
   the message is f's sticky error (WF_ERR_UNSUPPORTED naming what no scheduler
   covers). */
wf_status heur_schedule(wf_fusion *f, const int64_t *sizes, const heur_device *dev,
                        heur_result *out);

/* ---- shared by the schedulers (heur.c) ---- */

/* What the classifier found. */
typedef struct {
    wf_fusion *f;
    const int64_t *sizes; /* NULL: generic */
    const heur_device *dev;
    wf_tv *ref;     /* the output of the largest rank (first such) */
    wf_tv *red[16]; /* reduction outputs, in creation order */
    int nred;
    bool red_broadcast_back; /* a reduction's result is broadcast and combined again */
    bool has_permute;
    wf_tv *permute; /* the first permute's output */
} heur_facts;

/* The size of an extent for the heuristics: constant, or bound from sizes; -1
   when it is symbolic and sizes is NULL (generic). */
int64_t heur_extent(const heur_facts *hf, const wf_iterdomain *id);

typedef struct {
    const char *name;
    /* NULL when the scheduler covers the fusion; else why not (static text or
       written to why). */
    bool (*can_schedule)(const heur_facts *hf, char *why, size_t whysize);
    /* Parameters into params (each scheduler's own struct, at most 256 bytes). */
    void (*heuristics)(const heur_facts *hf, void *params);
    bool (*apply)(const heur_facts *hf, const void *params, heur_result *out);
} heur_scheduler;

extern const heur_scheduler heur_pointwise, heur_reduction, heur_normalization, heur_transpose;

/* Helpers of the schedulers. */
/* Merge loop axes [from, to) of tv into one at `from` (nothing when to - from < 2). */
bool heur_merge_range(wf_tv *tv, int from, int to);
/* The smallest power of two >= x (x >= 1). */
int64_t heur_pow2_ceil(int64_t x);

#endif
