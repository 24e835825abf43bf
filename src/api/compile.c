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
            return err_failb(&f->err, env_defaults.err.code, "%s", env_defaults.err.msg);
        lo = &env_defaults.opt;
    }
    *out = *lo;
    /* 0 lets lowering pick: sm_100a when the kernel uses tensor memory, else sm_90a. */
    out->sm = opt && opt->sm > 0 ? opt->sm : 0;
    out->fast_math = opt && opt->fast_math;
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
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    return k;
}

/* The GPU architectures weft generates code for (sm_XX; 90 and up as the
   architecture-specific sm_XXa targets), as NVRTC 12 and 13 name them. */
static const int known_sms[] = {75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121};

static bool check_sm(wf_fusion *f, const wf_compile_options *opt) {
    if (!opt || opt->sm == 0)
        return true;
    for (size_t i = 0; i < sizeof known_sms / sizeof *known_sms; i++)
        if (opt->sm == known_sms[i])
            return true;
    return err_failb(&f->err, WF_ERR_ARG,
                     "wf_compile: sm %d is not a GPU architecture; use 90 (Hopper, sm_90a), 100 "
                     "(Blackwell, sm_100a), another of 75, 80, 86, 87, 89, 101, 103, 110, 120, "
                     "121, or 0 for the device's",
                     opt->sm);
}

wf_kernel *api_compile(wf_fusion *f, const wf_compile_options *opt, const lower_options *lo) {
    WF_GATE(f, NULL);
    if (!check_sm(f, opt))
        return NULL;
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

/* NVRTC's log goes to the caller's buffer (when given) and, like every
   kernel call's error, to wf_last_run_error(k). */
wf_status wf_kernel_check_nvrtc(wf_kernel *k, int sm, char *log, size_t logsize) {
    if (!k)
        return WF_ERR_ARG;
    err_clear(&k->err);
    if (sm < 0)
        return err_fails(&k->err, WF_ERR_ARG,
                         "wf_kernel_check_nvrtc: sm %d is negative; use 0 for the kernel's target",
                         sm);
    char own[sizeof k->err.msg];
    bool theirs = log && logsize > 0;
    rt_nvrtc_result res;
    wf_status s = rt_nvrtc_compile(k->source, "weft_kernel.cu", sm > 0 ? sm : k->sm, &res,
                                   theirs ? log : own, theirs ? logsize : sizeof own);
    if (s != WF_OK)
        return err_fails(&k->err, s, "%s", theirs ? log : own);
    free(k->ptx);
    k->ptx = res.ptx;
    res.ptx = NULL;
    rt_nvrtc_result_free(&res);
    if (theirs)
        log[0] = 0;
    return s;
}

/* ---- printers: each renders into a string builder once; the FILE
   functions print it, the string functions keep it in the fusion ---- */

typedef enum { TEXT_MATH, TEXT_TRANSFORMS, TEXT_KERNEL } text_kind;

/* The kernel's source, or (when there is none) a comment with the error, so
   that a printout never silently comes out empty. */
static void render_kernel(sbuf *b, wf_fusion *f) {
    wf_kernel *k = wf_compile(f, NULL);
    if (k)
        sbuf_puts(b, k->source);
    else
        sbuf_printf(b, "// no kernel: %s: %s\n", wf_status_name(wf_fusion_status(f)),
                    wf_fusion_error(f));
    wf_kernel_free(k);
}

static void render(sbuf *b, wf_fusion *f, text_kind kind) {
    switch (kind) {
    case TEXT_MATH:
        ir_print_math(b, f);
        break;
    case TEXT_TRANSFORMS:
        ir_print_transforms(b, f);
        break;
    case TEXT_KERNEL:
        render_kernel(b, f);
        break;
    }
}

static void print_text(wf_fusion *f, text_kind kind, FILE *out) {
    if (!f || !out)
        return;
    sbuf b = {0};
    render(&b, f, kind);
    fputs(sbuf_str(&b), out);
    sbuf_free(&b);
}

/* Keep the text in the fusion (replacing the previous one); NULL on a NULL
   fusion or when memory runs out (then the fusion's error says so). */
static const char *keep_text(wf_fusion *f, text_kind kind) {
    if (!f)
        return NULL;
    sbuf b = {0};
    render(&b, f, kind);
    return api_keep_text(f, &b);
}

const char *api_keep_text(wf_fusion *f, sbuf *b) {
    if (b->oom) {
        sbuf_free(b);
        return err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    free(f->text);
    f->text = sbuf_take(b);
    if (!f->text)
        err_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    return f->text;
}

/* The printers only read the fusion; the const is cast away to reuse the
   renderer that wf_print_kernel (which compiles) shares. */
void wf_print_math(const wf_fusion *f, FILE *out) {
    print_text((wf_fusion *)f, TEXT_MATH, out);
}

void wf_print_transforms(const wf_fusion *f, FILE *out) {
    print_text((wf_fusion *)f, TEXT_TRANSFORMS, out);
}

void wf_print_kernel(wf_fusion *f, FILE *out) {
    print_text(f, TEXT_KERNEL, out);
}

const char *wf_math_string(wf_fusion *f) {
    return keep_text(f, TEXT_MATH);
}

const char *wf_transforms_string(wf_fusion *f) {
    return keep_text(f, TEXT_TRANSFORMS);
}

const char *wf_kernel_string(wf_fusion *f) {
    return keep_text(f, TEXT_KERNEL);
}
