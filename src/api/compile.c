/*
 * compile.c -- public entry points for compiling and printing.
 *
 * wf_compile lowers the fusion (lower/), prints CUDA (codegen/) and returns a
 * kernel that owns copies of everything it needs, so it outlives its fusion.
 * The lowering's scratch arena is freed before returning.
 */
#include "api/api.h"
#include "codegen/codegen.h"
#include "runtime/interp.h"
#include "runtime/nvrtc.h"

#include <stdlib.h>
#include <string.h>

/* 0 lets lowering pick: sm_100a when the kernel uses tensor memory, else sm_90a. */
static int target_sm(const wf_compile_options *opt) {
    return opt && opt->sm > 0 ? opt->sm : 0;
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
    return wf_failb(&f->err, WF_ERR_ARG,
                    "wf_compile: sm %d is not a GPU architecture; use 90 (Hopper, sm_90a), 100 "
                    "(Blackwell, sm_100a), another of 75, 80, 86, 87, 89, 101, 103, 110, 120, "
                    "121, or 0 for the device's",
                    opt->sm);
}

wf_kernel *wf_compile(wf_fusion *f, const wf_compile_options *opt) {
    WF_GATE(f, NULL);
    if (!check_sm(f, opt))
        return NULL;
    lower_result r;
    wf_kernel *k = NULL;
    if (lower_fusion(f, target_sm(opt), &r)) {
        char *source = cg_emit_cuda(&r);
        k = source ? rt_kernel_new(&r, source) : NULL;
        free(source);
        if (k)
            /* Unless asked for (or needed: sm_100a for tensor memory), the CUDA runtime
               targets the device's architecture. */
            k->sm_explicit = (opt && opt->sm > 0) || r.sm >= 100;
        if (k && !rt_interp_build(k, &r)) {
            rt_kernel_free(k);
            k = NULL;
        }
        if (!k)
            wf_fail(&f->err, WF_ERR_MEMORY, "out of memory");
    }
    lower_result_free(&r);
    return k;
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

/* The kernel's source, or (when there is none) a comment with the error, so
   that a printout never silently comes out empty. */
void wf_print_kernel(wf_fusion *f, FILE *out) {
    wf_kernel *k = wf_compile(f, NULL);
    if (out && k)
        fputs(k->source, out);
    else if (out)
        fprintf(out, "// no kernel: %s: %s\n", wf_status_name(wf_fusion_status(f)),
                wf_fusion_error(f));
    wf_kernel_free(k);
}
