/*
 * err.h -- the sticky error: a status plus a fixed message buffer.
 *
 * The first error wins; later ones are ignored until wf_fusion_clear_error.
 * The buffer is fixed so that recording an error never allocates. err_fail
 * returns NULL so that call sites read `return err_fail(...)`; err_failb and
 * err_fails are the same for functions returning bool and wf_status.
 * err_assert catches bugs (not user mistakes): it aborts in test builds and
 * records an internal error otherwise. These are the library's own helpers,
 * not API: their names carry no wf_ prefix.
 */
#ifndef WF_BASE_ERR_H
#define WF_BASE_ERR_H

#include <stdbool.h>

#include "base/sbuf.h"
#include "weft.h"

typedef struct {
    wf_status code;
    char msg[1024];
} wf_err;

void *err_fail(wf_err *e, wf_status code, const char *fmt, ...) WF_PRINTF(3, 4);
bool err_failb(wf_err *e, wf_status code, const char *fmt, ...) WF_PRINTF(3, 4);
wf_status err_fails(wf_err *e, wf_status code, const char *fmt, ...) WF_PRINTF(3, 4);
void err_clear(wf_err *e);
static inline bool err_set(const wf_err *e) {
    return e->code != WF_OK;
}
void err_internal(wf_err *e, const char *file, int line, const char *cond);

#define err_assert(e, cond) ((cond) ? (void)0 : err_internal((e), __FILE__, __LINE__, #cond))

#endif
