/*
 * tma_rules.h -- the hardware's and the driver's rules on a TMA copy, in one
 * place for the lowering (lower/tma.c, which refuses a schedule that breaks
 * them) and the executor (runtime/interp_copy_tma.c, which checks every map
 * and box at run time, as the GPU would fault): cuTensorMapEncodeTiled's
 * limits with the driver's own words, the swizzle modes, and the alignment a
 * box's shared-memory address needs (PTX ISA, "Tensor-copy swizzling modes";
 * seed 001). Where a swizzle puts each byte is lower_tma_swizzle
 * (lower/eval.h), with the rest of what lowering and the executor evaluate
 * alike.
 */
#ifndef WF_IR_TMA_RULES_H
#define WF_IR_TMA_RULES_H

#include <stdint.h>

#define TMA_MAX_RANK    5                  /* tensorRank of a tiled map */
#define TMA_MAX_BOX     256                /* boxDim[d] */
#define TMA_MAX_ESTRIDE 8                  /* elementStrides[d] */
#define TMA_MAX_STRIDE  ((int64_t)1 << 40) /* globalStrides[d], bytes */
#define TMA_ALIGN_BYTES 16                 /* globalAddress, globalStrides, boxDim[0] bytes */

/* The driver's words for each rule (cuTensorMapEncodeTiled's error text). */
#define TMA_RULE_BOX                                                                               \
    "boxDim array, which specifies number of elements to be traversed along each of the "          \
    "tensorRank dimensions, must be non-zero and less than or equal to 256."
#define TMA_RULE_ESTRIDE                                                                           \
    "elementStrides array, which specifies the iteration step along each of the tensorRank "       \
    "dimensions, must be non-zero and less than or equal to 8."
#define TMA_RULE_ESTRIDE0                                                                          \
    "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE (this is always the case for weft), the "    \
    "first element of elementStrides must be one."
#define TMA_RULE_BOX0_BYTES                                                                        \
    "When interleave is CU_TENSOR_MAP_INTERLEAVE_NONE, { boxDim[0] * elementSizeInBytes( "         \
    "tensorDataType ) } must be a multiple of 16 bytes."
#define TMA_RULE_STRIDE                                                                            \
    "globalStrides array, which specifies tensor stride of each of the lower tensorRank - 1 "      \
    "dimensions in bytes, must be a multiple of 16 and less than 2^40."
#define TMA_RULE_ADDRESS                                                                           \
    "globalAddress, which specifies the starting address of the memory region described, must "    \
    "be 32 byte aligned when interleave is CU_TENSOR_MAP_INTERLEAVE_32B and 16 byte aligned "      \
    "otherwise."

/* The swizzle modes, in the order of CUtensorMapSwizzle (NONE, 32B, 64B, 128B). */
enum { TMA_SWIZZLE_MODES = 4 };
static const int tma_swizzle_bytes[TMA_SWIZZLE_MODES] = {0, 32, 64, 128};

/* The alignment of a box's shared-memory address: 128 bytes, or the whole
   swizzle pattern (8 rows of the mode's width) with a swizzle. */
static inline int64_t tma_smem_align(int sw) {
    return sw ? (int64_t)sw * 8 : 128;
}

/* CUtensorMapSwizzle's value for a swizzle of sw bytes. */
static inline int tma_swizzle_mode(int sw) {
    for (int i = 1; i < TMA_SWIZZLE_MODES; i++)
        if (tma_swizzle_bytes[i] == sw)
            return i;
    return 0;
}

#endif
