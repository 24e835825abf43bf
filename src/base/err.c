/*
 * err.c -- recording sticky errors (see err.h).
 */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void record(wf_err *e, wf_status code, const char *fmt, va_list ap) {
    if (e->code != WF_OK)
        return;
    e->code = code;
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

void *err_fail(wf_err *e, wf_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(e, code, fmt, ap);
    va_end(ap);
    return NULL;
}

bool err_failb(wf_err *e, wf_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(e, code, fmt, ap);
    va_end(ap);
    return false;
}

wf_status err_fails(wf_err *e, wf_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(e, code, fmt, ap);
    va_end(ap);
    return e->code;
}

void err_clear(wf_err *e) {
    e->code = WF_OK;
    e->msg[0] = 0;
}

void err_internal(wf_err *e, const char *file, int line, const char *cond) {
    err_fail(e, WF_ERR_UNSUPPORTED, "internal error at %s:%d (%s)", file, line, cond);
#ifdef WF_TEST_BUILD
    abort(); // ok: a bug, in test builds only (the message is in the error for gdb)
#endif
}
