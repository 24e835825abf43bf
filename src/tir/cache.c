/*
 * cache.c -- placeholder
 */
#include "tir/tir.h"

tir_block *tir_cache_read(wf_tir *s, tir_block *b, int index, tir_scope scope) {
    (void)b, (void)index, (void)scope;
    return wf_fail(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
tir_block *tir_cache_write(wf_tir *s, tir_block *b, int index, tir_scope scope) {
    (void)b, (void)index, (void)scope;
    return wf_fail(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
bool tir_compute_at(wf_tir *s, tir_block *b, tir_stmt *loop, bool reverse) {
    (void)b, (void)loop, (void)reverse;
    return wf_failb(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
bool tir_compute_inline(wf_tir *s, tir_block *b) {
    (void)b;
    return wf_failb(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
bool tir_reverse_compute_inline(wf_tir *s, tir_block *b) {
    (void)b;
    return wf_failb(&s->err, WF_ERR_UNSUPPORTED, "not supported yet");
}
