/*
 * tma.c -- TMA's tensor maps on the host (CUDA driver API,
 * cuTensorMapEncodeTiled, reached through the dlopen'ed driver like every
 * driver call). A map is encoded per launch, from the buffer's device
 * address and the launch's sizes, into the 128 bytes the kernel receives
 * as a `const __grid_constant__` parameter (codegen/copy_tma.c). The data
 * type is the unsigned integer of the element's size: TMA only moves the
 * bytes, and its out-of-bounds fill is then zero, as the executor models.
 * The executor (interp_copy_tma.c) applies the driver's rules with the
 * driver's words, so a map the driver would refuse fails on the CPU too.
 */
#include "ir/tma_rules.h"
#include "runtime/cuda_int.h"

#include <string.h>

enum { TMAP_U8 = 0, TMAP_U16 = 1, TMAP_U32 = 2, TMAP_U64 = 4 }; /* CUtensorMapDataType */

static int data_type(wf_dtype t) {
    switch (wf_dtype_size(t)) {
    case 1:
        return TMAP_U8;
    case 2:
        return TMAP_U16;
    case 4:
        return TMAP_U32;
    default:
        return TMAP_U64;
    }
}

bool rt_tma_encode_args(wf_kernel *k, const rt_launch *l, int i, rt_tma_args *a) {
    const rt_param *p = &k->params[i];
    const rt_tma *m = NULL;
    for (int t = 0; t < k->ntmas && !m; t++)
        m = k->tmas[t].param == i ? &k->tmas[t] : NULL;
    /* Lowering makes one tensor-map parameter per TMA copy (lower/tma.c). */
    err_assert(&k->err, m != NULL);
    if (!m)
        return false;
    memset(a, 0, sizeof *a);
    for (int d = 0; d < m->info.rank; d++) {
        int64_t dim, stride;
        if (!rt_eval(k, l, m->gdim[d], &dim) || !rt_eval(k, l, m->gstride[d], &stride))
            /* The buffer passed the span check, but a dim of extent 1 may have any stride,
               whose bytes can overflow. */
            return err_failb(&k->err, WF_ERR_ARG,
                             "T%d: cannot encode the tensor map of its TMA copy: a size or "
                             "stride in bytes does not fit 64 bits (a dim of extent 1 with a "
                             "huge stride?); pass the buffer with smaller strides",
                             p->tv);
        a->dims[d] = (unsigned long long)dim;
        if (d > 0)
            a->strides[d - 1] = (unsigned long long)stride;
        a->box[d] = (unsigned)m->info.box[d];
        a->estrides[d] = (unsigned)m->info.element_strides[d];
    }
    a->dtype = data_type(m->info.dtype);
    a->rank = (unsigned)m->info.rank;
    a->swizzle = tma_swizzle_mode(m->info.swizzle_bytes);
    return true;
}
