/*
 * sysinfo.c -- what this machine offers weft, for `weft info` and bug
 * reports: where NVRTC and the CUDA driver were loaded from (the same
 * search as compiling and running use: $CUDA_HOME/lib64, then
 * /usr/local/cuda/lib64, then the loader's path; see base/dl.c), device 0,
 * and the kernel cache's directory and size.
 *
 * Each probe opens and closes what it needs; nothing is kept. A missing
 * piece is not an error here: its *_found flag is false and the reason is
 * the message compiling or running would have given.
 */
#include "runtime/cuda_int.h"

#include <stdio.h>
#include <string.h>

#include "base/dl.h"
#include "runtime/nvrtc.h"

static void probe_nvrtc(wf_system_info *s) {
    s->nvrtc_found = rt_nvrtc_locate(s->nvrtc_path, sizeof s->nvrtc_path, &s->nvrtc_major,
                                     &s->nvrtc_minor, s->nvrtc_error, sizeof s->nvrtc_error);
}

/* dst = a then b, cut to fit (a reason is still useful cut short). */
static void put_text(char *dst, size_t size, const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    na = na < size - 1 ? na : size - 1;
    nb = nb < size - 1 - na ? nb : size - 1 - na;
    memcpy(dst, a, na);
    memcpy(dst + na, b, nb);
    dst[na + nb] = '\0';
}

/* Where libcuda loads from: cuda.c's names, in its order. */
static void locate_driver(wf_system_info *s) {
    static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
    char err[WF_INFO_TEXT];
    void *lib = dl_open_cuda_lib(names, 2, err, sizeof err);
    s->driver_found = lib != NULL;
    if (!lib) {
        put_text(s->driver_error, sizeof s->driver_error, err, "");
        return;
    }
    if (!dl_path_of(dl_sym(lib, "cuInit"), s->driver_path, sizeof s->driver_path))
        snprintf(s->driver_path, sizeof s->driver_path, "(path unknown)");
    dl_close(lib);
}

/* Device 0 as running would find it; the reason when there is none. */
static void probe_device(wf_system_info *s) {
    rt_cu c;
    wf_err e;
    err_clear(&e);
    if (!rt_cu_open_driver(&c, &e)) {
        put_text(s->driver_error, sizeof s->driver_error, e.msg, "");
        return;
    }
    s->device_found = true;
    put_text(s->device_name, sizeof s->device_name, c.name, "");
    s->device_sm = c.sm;
    int v = 0;
    if (c.api.cuDeviceGetAttribute(&v, CU_ATTR_SM_COUNT, c.dev) == 0)
        s->device_sm_count = v;
    if (c.api.cuDeviceGetAttribute(&v, CU_ATTR_SMEM_OPTIN, c.dev) == 0)
        s->device_smem_per_block = v;
    if (c.api.cuDeviceGetAttribute(&v, CU_ATTR_REGS_PER_BLOCK, c.dev) == 0)
        s->device_regs_per_block = v;
    rt_cu_close(&c);
}

static void probe_cache(wf_system_info *s) {
    s->cache_enabled = rt_cache_dir(s->cache_dir, sizeof s->cache_dir);
    if (s->cache_enabled)
        rt_cache_scan(s->cache_dir, false, &s->cache_entries, &s->cache_bytes);
    else
        s->cache_dir[0] = '\0';
}

/* Device 0's facts for the automatic schedulers, probed once per process (no
   NVRTC or cache probing): false when there is no device. */
bool rt_device_facts(int *sm, int *sm_count, int64_t *smem, int *regs) {
    static int state; /* 0 unknown, 1 found, 2 none */
    static wf_system_info d;
    if (state == 0) {
        memset(&d, 0, sizeof d);
        locate_driver(&d);
        if (d.driver_found)
            probe_device(&d);
        state = d.device_found && d.device_sm_count > 0 ? 1 : 2;
    }
    if (state != 1)
        return false;
    *sm = d.device_sm;
    *sm_count = d.device_sm_count;
    *smem = d.device_smem_per_block;
    *regs = d.device_regs_per_block;
    return true;
}

void rt_system_info(wf_system_info *s) {
    memset(s, 0, sizeof *s);
    probe_nvrtc(s);
    locate_driver(s);
    if (s->driver_found)
        probe_device(s);
    probe_cache(s);
}
