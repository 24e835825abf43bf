/*
 * nvrtc.c -- NVRTC through dlopen, without CUDA's headers.
 *
 * We declare the dozen NVRTC entry points ourselves (their C ABI has been
 * stable since CUDA 11) so that weft compiles on machines with no toolkit,
 * then load them per call: opening the library each time costs a few
 * milliseconds next to a compilation that takes hundreds, and buys freedom
 * from global state and locking. The cubin entry points are optional, since
 * an NVRTC that lacks them can still give PTX for the driver to JIT.
 */
#define _POSIX_C_SOURCE 200809L

#include "runtime/nvrtc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dl.h"

/* NVRTC's own types, as the ABI sees them: nvrtcResult is a C enum (an int)
   and nvrtcProgram an opaque pointer. Only the codes we act on are named. */
typedef int nvrtc_res;
typedef struct nvrtc_prog_opaque *nvrtc_prog;
enum { NVRTC_OK = 0, NVRTC_OUT_OF_MEMORY = 1, NVRTC_INVALID_OPTION = 5, NVRTC_COMPILATION = 6 };

typedef nvrtc_res (*create_fn)(nvrtc_prog *prog, const char *src, const char *name, int nheaders,
                               const char *const *headers, const char *const *include_names);
typedef nvrtc_res (*compile_fn)(nvrtc_prog prog, int nopts, const char *const *opts);
typedef nvrtc_res (*size_fn)(nvrtc_prog prog, size_t *size);
typedef nvrtc_res (*get_fn)(nvrtc_prog prog, char *buf);
typedef nvrtc_res (*destroy_fn)(nvrtc_prog *prog);
typedef const char *(*errstr_fn)(nvrtc_res res);
typedef nvrtc_res (*version_fn)(int *major, int *minor);

typedef struct {
    void *lib;
    create_fn create;
    compile_fn compile;
    size_fn log_size;
    get_fn log;
    size_fn ptx_size;
    get_fn ptx;
    size_fn cubin_size; /* NULL when this NVRTC cannot emit cubins */
    get_fn cubin;
    destroy_fn destroy;
    errstr_fn errstr;
    version_fn version;
} nvrtc_api;

static const char *const nvrtc_sonames[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                                            "libnvrtc.so.11.2"};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
set_msg(char *msg, size_t msgsize, const char *fmt, ...) {
    va_list ap;

    if (!msg || msgsize == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, msgsize, fmt, ap);
    va_end(ap);
}

/* Append text to msg; if it does not fit, keep what does and end with
   "..." so a reader knows the log was cut rather than complete. */
static void append_cut(char *msg, size_t msgsize, const char *text) {
    size_t used, room, len;

    if (!msg || msgsize == 0)
        return;
    used = strlen(msg);
    if (used + 1 >= msgsize)
        return;
    room = msgsize - used - 1;
    len = strlen(text);
    if (len <= room) {
        memcpy(msg + used, text, len + 1);
        return;
    }
    if (room < 3) {
        memcpy(msg + used, "...", room);
        msg[used + room] = '\0';
        return;
    }
    memcpy(msg + used, text, room - 3);
    memcpy(msg + used + room - 3, "...", 4);
}

/* dlsym hands back an object pointer; ISO C has no conversion from that to
   a function pointer, so copy the bits (what POSIX guarantees works). */
static bool load_sym(void *lib, const char *name, void *fnptr, size_t fnsize) {
    void *p = dl_sym(lib, name);

    if (!p)
        return false;
    memcpy(fnptr, &p, fnsize < sizeof p ? fnsize : sizeof p);
    return true;
}

#define LOAD(api, field, sym) load_sym((api)->lib, sym, &(api)->field, sizeof(api)->field)

static wf_status load_api(nvrtc_api *api, char *msg, size_t msgsize) {
    char err[1024];
    const char *missing = NULL;

    memset(api, 0, sizeof *api);
    api->lib = dl_open_cuda_lib(
        nvrtc_sonames, (int)(sizeof nvrtc_sonames / sizeof nvrtc_sonames[0]), err, sizeof err);
    if (!api->lib) {
        set_msg(msg, msgsize, "%s", err);
        return WF_ERR_UNSUPPORTED;
    }
    if (!LOAD(api, create, "nvrtcCreateProgram"))
        missing = "nvrtcCreateProgram";
    else if (!LOAD(api, compile, "nvrtcCompileProgram"))
        missing = "nvrtcCompileProgram";
    else if (!LOAD(api, log_size, "nvrtcGetProgramLogSize"))
        missing = "nvrtcGetProgramLogSize";
    else if (!LOAD(api, log, "nvrtcGetProgramLog"))
        missing = "nvrtcGetProgramLog";
    else if (!LOAD(api, ptx_size, "nvrtcGetPTXSize"))
        missing = "nvrtcGetPTXSize";
    else if (!LOAD(api, ptx, "nvrtcGetPTX"))
        missing = "nvrtcGetPTX";
    else if (!LOAD(api, destroy, "nvrtcDestroyProgram"))
        missing = "nvrtcDestroyProgram";
    else if (!LOAD(api, errstr, "nvrtcGetErrorString"))
        missing = "nvrtcGetErrorString";
    else if (!LOAD(api, version, "nvrtcVersion"))
        missing = "nvrtcVersion";
    if (missing) {
        set_msg(msg, msgsize, "NVRTC library lacks %s", missing);
        dl_close(api->lib);
        api->lib = NULL;
        return WF_ERR_UNSUPPORTED;
    }
    /* Both or neither: half a cubin API is no cubin API. */
    if (!LOAD(api, cubin_size, "nvrtcGetCUBINSize") || !LOAD(api, cubin, "nvrtcGetCUBIN")) {
        api->cubin_size = NULL;
        api->cubin = NULL;
    }
    return WF_OK;
}

static const char *err_string(const nvrtc_api *api, nvrtc_res r) {
    const char *s = api->errstr ? api->errstr(r) : NULL;
    return s ? s : "unknown NVRTC error";
}

/* The program log, malloc'd and with trailing blank lines dropped (NVRTC
   ends it with newlines that would dangle at the end of our message).
   NULL if there is none or it cannot be fetched; the caller reports the
   primary failure either way, so a lost log is not itself an error. */
static char *get_log(const nvrtc_api *api, nvrtc_prog prog) {
    size_t size = 0, n;
    char *log;

    if (api->log_size(prog, &size) != NVRTC_OK || size == 0)
        return NULL;
    log = malloc(size + 1);
    if (!log)
        return NULL;
    if (api->log(prog, log) != NVRTC_OK) {
        free(log);
        return NULL;
    }
    log[size] = '\0';
    n = strlen(log);
    while (n > 0 && (log[n - 1] == '\n' || log[n - 1] == '\r' || log[n - 1] == ' '))
        log[--n] = '\0';
    return log;
}

/* Fetch one of NVRTC's outputs (PTX or cubin) into a fresh buffer with one
   spare byte, so text outputs are always NUL-terminated. A size of zero
   yields *buf = NULL and WF_OK. */
static wf_status get_output(const nvrtc_api *api, nvrtc_prog prog, size_fn size_f, get_fn get_f,
                            const char *what, char **buf, size_t *size, char *msg, size_t msgsize) {
    nvrtc_res r;
    char *b;
    size_t n = 0;

    *buf = NULL;
    *size = 0;
    r = size_f(prog, &n);
    if (r != NVRTC_OK) {
        set_msg(msg, msgsize, "nvrtcGet%sSize failed: %s", what, err_string(api, r));
        return WF_ERR_COMPILE;
    }
    if (n == 0)
        return WF_OK;
    b = malloc(n + 1);
    if (!b) {
        set_msg(msg, msgsize, "out of memory for %zu bytes of %s", n, what);
        return WF_ERR_MEMORY;
    }
    r = get_f(prog, b);
    if (r != NVRTC_OK) {
        free(b);
        set_msg(msg, msgsize, "nvrtcGet%s failed: %s", what, err_string(api, r));
        return WF_ERR_COMPILE;
    }
    b[n] = '\0';
    *buf = b;
    *size = n;
    return WF_OK;
}

void rt_nvrtc_result_free(rt_nvrtc_result *r) {
    if (!r)
        return;
    free(r->ptx);
    free(r->cubin);
    memset(r, 0, sizeof *r);
}

bool rt_nvrtc_available(void) {
    nvrtc_api api;

    if (load_api(&api, NULL, 0) != WF_OK)
        return false;
    dl_close(api.lib);
    return true;
}

/* For wf_system_info_get: the file NVRTC loads from and its version, or
   why it does not load (load_api's message) in err. */
bool rt_nvrtc_locate(char *path, size_t pathsize, int *major, int *minor, char *err,
                     size_t errsize) {
    nvrtc_api api;
    void *sym;

    *major = *minor = 0;
    if (load_api(&api, err, errsize) != WF_OK)
        return false;
    sym = dl_sym(api.lib, "nvrtcVersion");
    if (!dl_path_of(sym, path, pathsize))
        snprintf(path, pathsize, "(path unknown)");
    (void)api.version(major, minor);
    dl_close(api.lib);
    return true;
}

/* The target's name: the architecture-specific "sm_XXa" from Hopper (90) on,
   where those targets exist; plain "sm_XX" before (there is no sm_75a). */
static void target_name(char *buf, size_t size, int sm) {
    snprintf(buf, size, sm >= 90 ? "sm_%da" : "sm_%d", sm);
}

wf_status rt_nvrtc_compile(const char *src, const char *name, int sm, rt_nvrtc_result *out,
                           char *msg, size_t msgsize) {
    nvrtc_api api;
    nvrtc_prog prog = NULL;
    rt_nvrtc_result res;
    char arch[64], target[32];
    const char *opts[3];
    char *log;
    nvrtc_res r;
    wf_status st = WF_OK;

    memset(&res, 0, sizeof res);
    if (out)
        memset(out, 0, sizeof *out);
    if (msg && msgsize > 0)
        msg[0] = '\0';
    if (!src) {
        set_msg(msg, msgsize, "rt_nvrtc_compile: NULL source");
        return WF_ERR_ARG;
    }
    if (sm <= 0) {
        set_msg(msg, msgsize, "rt_nvrtc_compile: invalid SM version %d", sm);
        return WF_ERR_ARG;
    }
    if (!name)
        name = "weft_kernel.cu";

    st = load_api(&api, msg, msgsize);
    if (st != WF_OK)
        return st;

    r = api.version(&res.nvrtc_major, &res.nvrtc_minor);
    if (r != NVRTC_OK) {
        set_msg(msg, msgsize, "nvrtcVersion failed: %s", err_string(&api, r));
        st = WF_ERR_COMPILE;
        goto done;
    }

    r = api.create(&prog, src, name, 0, NULL, NULL);
    if (r != NVRTC_OK) {
        set_msg(msg, msgsize, "nvrtcCreateProgram failed: %s", err_string(&api, r));
        st = r == NVRTC_OUT_OF_MEMORY ? WF_ERR_MEMORY : WF_ERR_COMPILE;
        prog = NULL;
        goto done;
    }

    /* The "a" targets unlock the architecture-specific instructions (wgmma,
       tcgen05, setmaxnreg) the generated kernels may use; such a cubin runs
       only on that exact SM, which is what we compile for anyway. */
    target_name(target, sizeof target, sm);
    snprintf(arch, sizeof arch, "--gpu-architecture=%s", target);
    opts[0] = arch;
    opts[1] = "-std=c++17";
    opts[2] = "-default-device";
    r = api.compile(prog, 3, opts);
    if (r != NVRTC_OK) {
        log = get_log(&api, prog);
        if (r == NVRTC_COMPILATION) {
            set_msg(msg, msgsize, "NVRTC compilation failed for %s:\n", target);
            st = WF_ERR_COMPILE;
        } else if (r == NVRTC_INVALID_OPTION) {
            /* Almost always an NVRTC older than the requested SM; the
               request is fine, this installation just cannot serve it. */
            set_msg(msg, msgsize, "NVRTC %d.%d rejected the options for %s (%s)%s", res.nvrtc_major,
                    res.nvrtc_minor, target, err_string(&api, r), log && log[0] ? ":\n" : "");
            st = WF_ERR_UNSUPPORTED;
        } else {
            set_msg(msg, msgsize, "nvrtcCompileProgram failed for %s (%s)%s", target,
                    err_string(&api, r), log && log[0] ? ":\n" : "");
            st = r == NVRTC_OUT_OF_MEMORY ? WF_ERR_MEMORY : WF_ERR_COMPILE;
        }
        append_cut(msg, msgsize, log ? log : "");
        free(log);
        goto done;
    }

    if (out) {
        st = get_output(&api, prog, api.ptx_size, api.ptx, "PTX", &res.ptx, &res.ptx_size, msg,
                        msgsize);
        if (st != WF_OK)
            goto done;
        if (!res.ptx) {
            set_msg(msg, msgsize, "NVRTC produced no PTX for %s", target);
            st = WF_ERR_COMPILE;
            goto done;
        }
        /* NVRTC counts the terminating NUL; callers want the text length. */
        res.ptx_size = strlen(res.ptx);
        if (api.cubin_size) {
            st = get_output(&api, prog, api.cubin_size, api.cubin, "CUBIN", &res.cubin,
                            &res.cubin_size, msg, msgsize);
            if (st != WF_OK)
                goto done;
        }
    }

done:
    if (prog) {
        r = api.destroy(&prog);
        if (r != NVRTC_OK && st == WF_OK) {
            set_msg(msg, msgsize, "nvrtcDestroyProgram failed: %s", err_string(&api, r));
            st = WF_ERR_COMPILE;
        }
    }
    dl_close(api.lib);
    if (st == WF_OK && out)
        *out = res;
    else
        rt_nvrtc_result_free(&res);
    return st;
}
