/*
 * param.c -- the runtime's kernel-parameter table (param.h). A tensor is
 * packed as the prelude's Tensor<T, N> declares it: the 8-byte data
 * pointer, N int64 sizes, N int64 strides; the executor binds it as a
 * global tensor over the caller's buffer. Scalars, tensor maps (a
 * CUtensorMap, 128 bytes, made on the host from the buffer) and work
 * buffers (scratch memory the runtime allocates) are rows waiting for their
 * features; until then a kernel with one is refused before it runs.
 */
#include "runtime/param.h"

#include <string.h>

typedef struct {
    bool implemented;
    bool global_tensor; /* the executor binds it as a global tensor */
    size_t (*pack)(const wf_kernel *k, const rt_launch *l, int i, uint64_t data,
                   unsigned char *arg);
} rt_param_kind;

static size_t pack_tensor(const wf_kernel *k, const rt_launch *l, int i, uint64_t data,
                          unsigned char *arg) {
    size_t n = (size_t)k->params[i].ndim * sizeof(int64_t);
    memcpy(arg, &data, sizeof data);
    memcpy(arg + sizeof data, l->shape[i], n);
    memcpy(arg + sizeof data + n, l->stride[i], n);
    return sizeof data + 2 * n;
}

static size_t pack_none(const wf_kernel *k, const rt_launch *l, int i, uint64_t data,
                        unsigned char *arg) {
    (void)k, (void)l, (void)i, (void)data, (void)arg;
    return 0;
}

static const rt_param_kind kinds[KIR_NPARAM_KINDS] = {
    [KP_TENSOR] = {true, true, pack_tensor},
    [KP_SCALAR] = {false, false, pack_none},
    [KP_TENSOR_MAP] = {true, false, pack_none}, /* encoded by the driver (runtime/tma.c) */
    [KP_WORK_BUFFER] = {false, true, pack_none},
};

static const rt_param_kind *kind_of(kir_param_kind k) {
    return &kinds[(unsigned)k < KIR_NPARAM_KINDS ? k : KP_SCALAR];
}

wf_status rt_param_check(wf_kernel *k, int i) {
    const rt_param *p = &k->params[i];
    if (kind_of(p->kind)->implemented)
        return WF_OK;
    /* Lowering makes no parameter of a kind not implemented here (no scalar parameter
       yet); tests/unit/test_copy_kinds.c edits one in by hand. */
    return err_fails(&k->err, WF_ERR_UNSUPPORTED,
                     "internal error: parameter %d of the kernel is a %s, which this build cannot "
                     "pass yet",
                     i, kir_param_name(p->kind));
}

size_t rt_param_pack(const wf_kernel *k, const rt_launch *l, int i, uint64_t data,
                     unsigned char *arg) {
    return kind_of(k->params[i].kind)->pack(k, l, i, data, arg);
}

bool rt_param_is_global_tensor(kir_param_kind kind) {
    return kind_of(kind)->global_tensor;
}
