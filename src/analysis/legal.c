/*
 * legal.c -- legality queries the automatic schedulers (src/heur) ask before
 * they schedule, instead of compiling and seeing: how wide a vector an
 * innermost axis can take, whether a shared-memory tile fits.
 */
#include "analysis/analysis.h"

int an_vector_width(const wf_tv *tv, int64_t extent, int64_t want) {
    size_t elem = wf_dtype_size(tv->dtype);
    if (extent < 1 || elem == 0 || tv->logical.n == 0)
        return 1;
    /* Every dim of a strided input must be contiguous: its innermost stride is
       then 1 and rows start where the previous one ends. */
    if (tv->is_input && tv->contig)
        for (int i = 0; i < tv->logical.n; i++)
            if (!tv->contig[i])
                return 1;
    int64_t w = want;
    while (w > 1 && ((size_t)w * elem > 16 || extent % w != 0))
        w /= 2;
    return (int)(w < 1 ? 1 : w);
}

bool an_smem_fits(int64_t bytes, int64_t limit) {
    return bytes >= 0 && bytes <= limit;
}
