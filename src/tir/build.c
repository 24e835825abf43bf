/*
 * build.c -- placeholder
 */
#include "tir/tir.h"

wf_kernel *tir_build(wf_tir *s, const wf_compile_options *opt) {
    (void)opt;
    return wf_fail(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
