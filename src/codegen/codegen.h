/*
 * codegen.h -- kernel IR to CUDA C++.
 *
 * cg_emit_cuda prints a lowered kernel as one self-contained CUDA C++ source
 * (no #include: NVRTC needs nothing but the text): a prelude of the few
 * device helpers the kernel uses, then `extern "C" __global__ void
 * weft_kernel(...)` taking one Tensor<T, N> per fusion input and output.
 */
#ifndef WF_CODEGEN_CODEGEN_H
#define WF_CODEGEN_CODEGEN_H

#include "lower/lower.h"

#define CG_KERNEL_NAME "weft_kernel"

/* Returns a malloc'd source, or NULL when memory runs out. */
char *cg_emit_cuda(const lower_result *r);
/* The device-side prelude (prelude.c); fast_math: f32 exp and log as __expf, __logf. */
void cg_emit_prelude(sbuf *b, bool fast_math);

#endif
