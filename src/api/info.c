/*
 * info.c -- public entry points about the machine rather than a fusion:
 * what weft finds (NVRTC, the driver, a device, the kernel cache) and
 * emptying the kernel cache. The `weft info` and `weft cache clear`
 * commands are thin printers over these.
 */
#include "api/api.h"

wf_status wf_system_info_get(wf_system_info *out) {
    if (!out)
        return WF_ERR_ARG;
    rt_system_info(out);
    return WF_OK;
}

wf_status wf_cache_clear(int64_t *entries, int64_t *bytes) {
    int64_t n, b;
    rt_cache_clear(&n, &b);
    if (entries)
        *entries = n;
    if (bytes)
        *bytes = b;
    return WF_OK;
}
