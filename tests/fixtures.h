/*
 * fixtures.h -- schedules several test programs share (the CPU suite and the
 * GPU program), built through the public API only.
 */
#ifndef WF_TESTS_FIXTURES_H
#define WF_TESTS_FIXTURES_H

#include "weft.h"

typedef enum {
    FX_PLAIN,         /* the 32 x 32 tile is row-major */
    FX_SWIZZLE_LOOP,  /* the tile's loops are XOR-swizzled (so is its allocation) */
    FX_SWIZZLE_ALLOC, /* only the tile's allocation is XOR-swizzled: [row, row ^ col] */
} fx_swizzle;

/* A [rows, cols] f32 transpose through a 32 x 32 shared tile: blocks on
   BIDy/BIDx, threads on TIDy/TIDx, the tile filled along the input's rows
   (coalesced) and inlined at 2. *smem gets the tile (may be NULL). */
wf_fusion *fx_tiled_transpose(int64_t rows, int64_t cols, fx_swizzle how, wf_tv **smem);

#endif
