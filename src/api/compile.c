/*
 * compile.c -- public entry points for compiling and printing.
 *
 * wf_compile lowers the fusion (lower/), prints CUDA (codegen/) and returns a
 * kernel that owns copies of everything it needs, so it outlives its fusion.
 * The lowering's scratch arena is freed before returning. The lowering
 * options come from wf_compile_options and, for the debugging aids WF_DUMP
 * and WF_SKIP, from the environment, read once per process.
 */
#include "api/api.h"
#include "codegen/codegen.h"
#include "runtime/interp.h"
#include "runtime/nvrtc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ---- */

/* WF_DUMP and WF_SKIP, read once per process (the environment is not
   re-read on every compile); a bad value fails every compile with its
   message. Written only by read_env, under pthread_once. */
static struct {
    lower_options opt;
    wf_err err;
} env_defaults;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void read_env(void) {
    lower_options_parse(&env_defaults.opt, getenv("WF_DUMP"), getenv("WF_SKIP"), &env_defaults.err);
}

/* lo, or the environment's defaults, with the target from opt. */
static bool lowering_options(wf_fusion *f, const wf_compile_options *opt, const lower_options *lo,
                             lower_options *out) {
    if (!lo) {
        pthread_once(&env_once, read_env);
        if (err_set(&env_defaults.err))
            return wf_failb(&f->err, env_defaults.err.code, "%s", env_defaults.err.msg);
        lo = &env_defaults.opt;
    }
    *out = *lo;
    /* 0 lets lowering pick: sm_100a when the kernel uses tensor memory, else sm_90a. */
    out->sm = opt && opt->sm > 0 ? opt->sm : 0;
    return true;
}

/* ---- compiling ---- */

static wf_kernel *build_kernel(wf_fusion *f, const wf_compile_options *opt, lower_result *r) {
    char *source = cg_emit_cuda(r);
    wf_kernel *k = source ? rt_kernel_new(r, source) : NULL;
    free(source);
    if (k)
        /* Unless asked for (or needed: sm_100a for tensor memory), the CUDA runtime
           targets the device's architecture. */
        k->sm_explicit = (opt && opt->sm > 0) || r->sm >= 100;
    if (k && !rt_interp_build(k, r)) {
        rt_kernel_free(k);
        k = NULL;
    }
    if (!k)
        wf_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    return k;
}

wf_kernel *api_compile(wf_fusion *f, const wf_compile_options *opt, const lower_options *lo) {
    WF_GATE(f, NULL);
    lower_options o;
    lower_result r;
    wf_kernel *k = NULL;
    if (!lowering_options(f, opt, lo, &o))
        return NULL;
    if (lower_fusion(f, &o, &r))
        k = build_kernel(f, opt, &r);
    lower_result_free(&r);
    return k;
}

wf_kernel *wf_compile(wf_fusion *f, const wf_compile_options *opt) {
    return api_compile(f, opt, NULL);
}

const char *wf_kernel_source(const wf_kernel *k) {
    return k ? k->source : NULL;
}

const wf_launch_info *wf_kernel_launch(const wf_kernel *k) {
    return k ? &k->launch : NULL;
}

void wf_kernel_free(wf_kernel *k) {
    rt_kernel_free(k);
}

wf_status wf_kernel_check_nvrtc(wf_kernel *k, int sm, char *log, size_t logsize) {
    if (!k)
        return WF_ERR_ARG;
    rt_nvrtc_result res;
    wf_status s =
        rt_nvrtc_compile(k->source, "weft_kernel.cu", sm > 0 ? sm : k->sm, &res, log, logsize);
    if (s == WF_OK) {
        free(k->ptx);
        k->ptx = res.ptx;
        res.ptx = NULL;
        rt_nvrtc_result_free(&res);
        if (log && logsize)
            log[0] = 0;
    }
    return s;
}

static void print_sbuf(sbuf *b, FILE *out) {
    if (out)
        fputs(sbuf_str(b), out);
    sbuf_free(b);
}

void wf_print_math(const wf_fusion *f, FILE *out) {
    if (!f)
        return;
    sbuf b = {0};
    ir_print_math(&b, f);
    print_sbuf(&b, out);
}

void wf_print_transforms(const wf_fusion *f, FILE *out) {
    if (!f)
        return;
    sbuf b = {0};
    ir_print_transforms(&b, f);
    print_sbuf(&b, out);
}

void wf_print_kernel(wf_fusion *f, FILE *out) {
    wf_kernel *k = wf_compile(f, NULL);
    if (k && out)
        fputs(k->source, out);
    wf_kernel_free(k);
}
