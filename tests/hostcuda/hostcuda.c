/*
 * hostcuda.c -- the host-CUDA oracle (see hostcuda.h): writes one C++
 * program holding every added kernel, compiles it with the host compiler,
 * runs it and reads the outputs back.
 *
 * The prelude every kernel starts with is written once; each kernel's own
 * text goes into its own namespace, its `extern "C"` dropped so that the
 * same kernel name can appear once per namespace. The generated part of
 * the driver is data only: per case, the launch (grid, block), each
 * parameter's sizes, strides and byte span, and which parameters are
 * outputs; driver.h does the binding and the loops.
 * Parameters travel as files of bytes in a temporary directory: cN_pJ.bin
 * in, cN_pJ.out back. The launch and the strides come from rt_bind, the
 * same evaluation the executor and the CUDA backend use.
 */
#include "hostcuda/hostcuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/sbuf.h"
#include "codegen/codegen.h"
#include "runtime/runtime.h"

#define HC_MAX_RANK 8 /* driver.h's; a larger WF_MAX_RANK fails below */

typedef struct {
    bool is_output;
    int index; /* among the inputs or outputs */
    int ndim;
    long long size[HC_MAX_RANK], stride[HC_MAX_RANK];
    size_t bytes; /* the span the strides address */
    void *data;   /* inputs: a copy; outputs: what the host program wrote */
} hc_param;

typedef struct {
    char *source;
    unsigned grid[3], block[3];
    hc_param *p;
    int np;
    bool ran;
} hc_case;

struct hc_batch {
    hc_case *c;
    int n, cap;
    double compile_s, run_s;
};

hc_batch *hc_new(void) {
    return calloc(1, sizeof(hc_batch));
}

static void free_case(hc_case *c) {
    for (int j = 0; j < c->np; j++)
        free(c->p[j].data);
    free(c->p);
    free(c->source);
}

void hc_free(hc_batch *b) {
    if (!b)
        return;
    for (int i = 0; i < b->n; i++)
        free_case(&b->c[i]);
    free(b->c);
    free(b);
}

/* What the oracle cannot run, in the kernel's own text (after the prelude):
   the first construct found, or NULL. */
static const char *out_of_scope(const char *body) {
    static const char *const what[][2] = {
        {"__syncthreads", "a block barrier (__syncthreads)"},
        {"__shared__", "shared memory"},
        {"wf_smem", "shared memory"},
        {"mbarrier", "an mbarrier"},
        {"tcgen05", "tensor memory"},
        {"wf_tmem", "tensor memory"},
        {"asm", "inline PTX"},
        {"__syncwarp", "a warp barrier"},
        {"__shfl", "a warp shuffle"},
    };
    for (size_t i = 0; i < sizeof what / sizeof *what; i++)
        if (strstr(body, what[i][0]))
            return what[i][1];
    return NULL;
}

/* The kernel's text after the prelude every kernel starts with (all of it
   when it does not start so). */
static const char *kernel_body(const char *src) {
    sbuf pre = {0};
    cg_emit_prelude(&pre, false);
    size_t n = strlen(sbuf_str(&pre));
    bool same = !pre.oom && strncmp(src, sbuf_str(&pre), n) == 0;
    sbuf_free(&pre);
    return same ? src + n : src;
}

static bool copy_launch(hc_case *c, wf_kernel *k, const rt_launch *l, char *why, size_t ws) {
    for (int d = 0; d < 3; d++) {
        if (l->grid[d] < 1 || l->grid[d] > 1 << 16 || l->block[d] < 1 || l->block[d] > 1024) {
            snprintf(why, ws, "launch (%lld, %lld, %lld) x (%lld, %lld, %lld) is out of range",
                     (long long)l->grid[0], (long long)l->grid[1], (long long)l->grid[2],
                     (long long)l->block[0], (long long)l->block[1], (long long)l->block[2]);
            return false;
        }
        c->grid[d] = (unsigned)l->grid[d];
        c->block[d] = (unsigned)l->block[d];
    }
    c->np = k->nparams;
    c->p = calloc((size_t)k->nparams, sizeof *c->p);
    if (!c->p) {
        snprintf(why, ws, "out of memory");
        return false;
    }
    for (int j = 0; j < k->nparams; j++) {
        hc_param *p = &c->p[j];
        const wf_buffer *buf = l->buf[j];
        p->is_output = k->params[j].is_output;
        p->index = k->params[j].index;
        p->ndim = k->params[j].ndim;
        if (p->ndim > HC_MAX_RANK || k->params[j].kind != KP_TENSOR) {
            snprintf(why, ws, "parameter %d is not a tensor of rank <= %d", j, HC_MAX_RANK);
            return false;
        }
        size_t span = 1;
        for (int d = 0; d < p->ndim; d++) {
            p->size[d] = l->shape[j][d];
            p->stride[d] = l->stride[j][d];
            if (p->size[d] == 0 || p->stride[d] < 0) {
                snprintf(why, ws, "parameter %d: empty or negative-stride buffers are not run", j);
                return false;
            }
            span += (size_t)(p->size[d] - 1) * (size_t)p->stride[d];
        }
        p->bytes = span * wf_dtype_size(buf->dtype);
        p->data = malloc(p->bytes);
        if (!p->data) {
            snprintf(why, ws, "out of memory");
            return false;
        }
        if (!p->is_output)
            memcpy(p->data, buf->data, p->bytes);
    }
    return true;
}

int hc_add(hc_batch *b, wf_kernel *k, const char *source, const wf_buffer *in, int nin,
           const wf_buffer *out, int nout, char *why, size_t whysize) {
    const char *src = source ? source : wf_kernel_source(k);
    const char *bad = out_of_scope(kernel_body(src));
    const wf_launch_info *li = wf_kernel_launch(k);
    if (bad || li->smem_bytes != 0 || li->ntmem_regions != 0) {
        snprintf(why, whysize, "the host-CUDA oracle cannot run this kernel: it uses %s",
                 bad              ? bad
                 : li->smem_bytes ? "shared memory"
                                  : "tensor memory");
        return -1;
    }
    rt_launch l;
    if (rt_bind(k, in, nin, (wf_buffer *)out, nout, &l) != WF_OK || l.empty) {
        snprintf(why, whysize, "the buffers do not bind: %s",
                 l.empty ? "an empty launch" : wf_last_run_error(k));
        return -1;
    }
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        hc_case *c = realloc(b->c, (size_t)cap * sizeof *c);
        if (!c) {
            snprintf(why, whysize, "out of memory");
            return -1;
        }
        b->c = c;
        b->cap = cap;
    }
    hc_case *c = &b->c[b->n];
    memset(c, 0, sizeof *c);
    c->source = strdup(src);
    if (!c->source || !copy_launch(c, k, &l, why, whysize)) {
        if (!c->source)
            snprintf(why, whysize, "out of memory");
        free_case(c);
        return -1;
    }
    return b->n++;
}

/* ---- the program ---- */

/* The source without `extern "C"`: one kernel name per namespace. */
static void put_source(sbuf *s, const char *src) {
    static const char ext[] = "extern \"C\" ";
    const char *at = strstr(src, ext);
    if (!at) {
        sbuf_puts(s, src);
        return;
    }
    sbuf_printf(s, "%.*s", (int)(at - src), src);
    sbuf_puts(s, at + strlen(ext));
}

static void put_dims(sbuf *s, const char *name, const hc_case *c, bool strides) {
    sbuf_printf(s, "    static const long long %s[%d][HC_MAX_RANK] = {", name, c->np);
    for (int j = 0; j < c->np; j++) {
        sbuf_puts(s, j ? ", {" : "{");
        for (int d = 0; d < c->p[j].ndim; d++)
            sbuf_printf(s, "%s%lld", d ? ", " : "", strides ? c->p[j].stride[d] : c->p[j].size[d]);
        sbuf_puts(s, c->p[j].ndim ? "}" : "0}");
    }
    sbuf_puts(s, "};\n");
}

/* The prelude is written once, before every namespace (the compile time is
   mostly its templates); a kernel whose text does not start with it keeps
   its own copy inside its namespace. */
static void put_case(sbuf *s, const hc_case *c, int i) {
    sbuf_printf(s, "namespace wfk%d {\n", i);
    put_source(s, kernel_body(c->source));
    sbuf_printf(s, "} // namespace wfk%d\n\nstatic void run_case_%d(const char *dir) {\n", i, i);
    put_dims(s, "size", c, false);
    put_dims(s, "stride", c, true);
    sbuf_printf(s, "    static const unsigned grid[3] = {%u, %u, %u}, block[3] = {%u, %u, %u};\n",
                c->grid[0], c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2]);
    sbuf_printf(s, "    void *p[%d];\n", c->np);
    for (int j = 0; j < c->np; j++)
        sbuf_printf(s, "    p[%d] = hc_load(dir, %d, %d, %zu, %s);\n", j, i, j, c->p[j].bytes,
                    c->p[j].is_output ? "false" : "true");
    sbuf_printf(s, "    hc_launch(wfk%d::" CG_KERNEL_NAME ", p, size, stride, grid, block);\n", i);
    for (int j = 0; j < c->np; j++) {
        if (c->p[j].is_output)
            sbuf_printf(s, "    hc_store(dir, %d, %d, p[%d], %zu);\n", i, j, j, c->p[j].bytes);
        sbuf_printf(s, "    free(p[%d]);\n", j);
    }
    sbuf_puts(s, "}\n\n");
}

static char *program_text(const hc_batch *b) {
    sbuf s = {0};
    sbuf_puts(&s, "// generated by tests/hostcuda/hostcuda.c\n#include \"shim.h\"\n\n");
    cg_emit_prelude(&s, false);
    sbuf_puts(&s, "\n#include \"driver.h\"\n\n");
    for (int i = 0; i < b->n; i++)
        put_case(&s, &b->c[i], i);
    sbuf_puts(&s, "int main(int argc, char **argv) {\n    if (argc != 2)\n        return 2;\n");
    for (int i = 0; i < b->n; i++)
        sbuf_printf(&s, "    run_case_%d(argv[1]);\n", i);
    sbuf_puts(&s, "    return 0;\n}\n");
    if (s.oom) {
        sbuf_free(&s);
        return NULL;
    }
    return sbuf_take(&s);
}

static bool write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(p, 1, n, f) == n;
    return f && fclose(f) == 0 && ok;
}

static bool read_file(const char *path, void *p, size_t n) {
    FILE *f = fopen(path, "rb");
    bool ok = f && fread(p, 1, n, f) == n;
    if (f)
        fclose(f);
    return ok;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The folder of this file's helpers (shim.h, driver.h), from the directory
   the runner was started in (the repository root, as make and tools do). */
static bool helper_dir(char *dir, size_t n) {
    char cwd[1024];
    const char *file = __FILE__, *slash = strrchr(file, '/');
    if (!slash || !getcwd(cwd, sizeof cwd))
        return false;
    if (file[0] == '/')
        snprintf(dir, n, "%.*s", (int)(slash - file), file);
    else
        snprintf(dir, n, "%s/%.*s", cwd, (int)(slash - file), file);
    char shim[4200];
    snprintf(shim, sizeof shim, "%s/shim.h", dir);
    return access(shim, R_OK) == 0;
}

static const char *compiler(void) {
    const char *cxx = getenv("WF_HOST_CXX");
    return cxx && *cxx ? cxx : "g++";
}

/* The last lines of a log file, into msg after a prefix. */
static void tail_into(char *msg, size_t n, const char *prefix, const char *log) {
    char text[1600] = {0};
    FILE *f = fopen(log, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, len > 1500 ? len - 1500 : 0, SEEK_SET);
        size_t got = fread(text, 1, sizeof text - 1, f);
        text[got] = 0;
        fclose(f);
    }
    snprintf(msg, n, "%s:\n%s", prefix, text);
}

static hc_status run_in(hc_batch *b, const char *tmp, char *msg, size_t n) {
    char dir[2048], path[2400], cmd[8000];
    if (!helper_dir(dir, sizeof dir)) {
        snprintf(msg, n,
                 "cannot find tests/hostcuda/shim.h: run the test runner from the "
                 "repository root");
        return HC_FAILED;
    }
    snprintf(cmd, sizeof cmd, "%s --version > /dev/null 2>&1", compiler());
    if (system(cmd) != 0) {
        snprintf(msg, n, "no host C++ compiler: `%s --version` failed (set WF_HOST_CXX)",
                 compiler());
        return HC_NO_COMPILER;
    }
    char *text = program_text(b);
    snprintf(path, sizeof path, "%s/prog.cpp", tmp);
    bool ok = text && write_file(path, text, strlen(text));
    free(text);
    for (int i = 0; ok && i < b->n; i++)
        for (int j = 0; ok && j < b->c[i].np; j++) {
            const hc_param *p = &b->c[i].p[j];
            snprintf(path, sizeof path, "%s/c%d_p%d.bin", tmp, i, j);
            ok = p->is_output || write_file(path, p->data, p->bytes);
        }
    if (!ok) {
        snprintf(msg, n, "cannot write the host program's files in %s", tmp);
        return HC_FAILED;
    }
    /* -O0: compile time dominates; the kernels touch a few thousand elements.
       No FMA contraction, no strict aliasing (wf_vec_copy reinterprets). */
    snprintf(cmd, sizeof cmd,
             "%s -x c++ -std=c++17 -O0 -w -ffp-contract=off -fno-strict-aliasing -I'%s' "
             "'%s/prog.cpp' -o '%s/prog' > '%s/cc.log' 2>&1",
             compiler(), dir, tmp, tmp, tmp);
    double t0 = now();
    int rc = system(cmd);
    b->compile_s = now() - t0;
    if (rc != 0) {
        snprintf(path, sizeof path, "%s/cc.log", tmp);
        tail_into(msg, n, "the host compiler rejected the generated CUDA (end of its log)", path);
        return HC_FAILED;
    }
    snprintf(cmd, sizeof cmd, "'%s/prog' '%s' > '%s/run.log' 2>&1", tmp, tmp, tmp);
    t0 = now();
    rc = system(cmd);
    b->run_s = now() - t0;
    if (rc != 0) {
        snprintf(path, sizeof path, "%s/run.log", tmp);
        tail_into(msg, n, "the host program failed (end of its output)", path);
        return HC_FAILED;
    }
    for (int i = 0; i < b->n; i++) {
        for (int j = 0; j < b->c[i].np; j++) {
            hc_param *p = &b->c[i].p[j];
            snprintf(path, sizeof path, "%s/c%d_p%d.out", tmp, i, j);
            if (p->is_output && !read_file(path, p->data, p->bytes)) {
                snprintf(msg, n, "cannot read %s", path);
                return HC_FAILED;
            }
        }
        b->c[i].ran = true;
    }
    return HC_OK;
}

hc_status hc_run(hc_batch *b, char *msg, size_t n) {
    char tmp[] = "/tmp/weft-hostcuda.XXXXXX", cmd[256];
    msg[0] = 0;
    if (!mkdtemp(tmp)) {
        snprintf(msg, n, "cannot make a temporary directory");
        return HC_FAILED;
    }
    hc_status s = run_in(b, tmp, msg, n);
    const char *keep = getenv("WF_HOSTCUDA_KEEP");
    if (keep && *keep == '1') {
        size_t len = strlen(msg);
        snprintf(msg + len, n - len, "%s(files kept in %s)", len ? "\n" : "", tmp);
    } else {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "hostcuda: could not remove %s\n", tmp);
    }
    return s;
}

const void *hc_output(const hc_batch *b, int c, int o) {
    if (c < 0 || c >= b->n || !b->c[c].ran)
        return NULL;
    for (int j = 0; j < b->c[c].np; j++)
        if (b->c[c].p[j].is_output && b->c[c].p[j].index == o)
            return b->c[c].p[j].data;
    return NULL;
}

void hc_times(const hc_batch *b, double *compile_s, double *run_s) {
    *compile_s = b->compile_s;
    *run_s = b->run_s;
}
