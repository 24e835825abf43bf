/*
 * fuzz_tir.c -- random TensorIR schedules (seed 004) for the fuzzer: one of
 * a few TVMScript programs (an elementwise pair of blocks, a matmul, a
 * matmul with a relu consumer, a row sum or row max) with random extents
 * (1-40, multiples of nothing), then 1-8 random primitives (split with 2-3
 * factors, fuse, reorder, bind, unroll, vectorize, cache_read, cache_write,
 * compute_at, reverse_compute_at, compute_inline, reverse_compute_inline,
 * rfactor) on random blocks and loops, valid or not. Each call either works
 * or leaves a clean error (not empty, never "internal error"); a program
 * that builds runs on the executor against a plain C reference. Inputs are
 * small integers held in float32, so every order of additions is exact and
 * the comparison is bit-exact.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "fuzz/known.h"

enum { P_EW, P_MATMUL, P_MATMUL_RELU, P_ROWSUM, P_ROWMAX, P_COUNT, MAX_BLOCKS = 12 };

typedef struct {
    int prog;
    int64_t m, n, k;
    char src[2048];
} tir_prog;

static void make_source(tir_prog *p) {
    long long m = p->m, n = p->n, k = p->k;
    switch (p->prog) {
    case P_EW:
        snprintf(p->src, sizeof p->src,
                 "@T.prim_func\n"
                 "def ew(A: T.Buffer((%lld, %lld), \"float32\"), B: T.Buffer((%lld, %lld), "
                 "\"float32\"), C: T.Buffer((%lld, %lld), \"float32\")):\n"
                 "    with T.block(\"root\"):\n"
                 "        D = T.alloc_buffer((%lld, %lld))\n"
                 "        for i, j in T.grid(%lld, %lld):\n"
                 "            with T.block(\"D\"):\n"
                 "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                 "                D[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2)\n"
                 "        for i, j in T.grid(%lld, %lld):\n"
                 "            with T.block(\"C\"):\n"
                 "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                 "                C[vi, vj] = T.max(D[vi, vj], T.float32(0))\n",
                 m, n, m, n, m, n, m, n, m, n, m, n);
        break;
    case P_MATMUL:
        snprintf(p->src, sizeof p->src,
                 "@T.prim_func\n"
                 "def matmul(A: T.Buffer((%lld, %lld), \"float32\"), B: T.Buffer((%lld, %lld), "
                 "\"float32\"), C: T.Buffer((%lld, %lld), \"float32\")):\n"
                 "    for i, j, k in T.grid(%lld, %lld, %lld):\n"
                 "        with T.block(\"C\"):\n"
                 "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                 "            with T.init():\n"
                 "                C[vi, vj] = T.float32(0)\n"
                 "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n",
                 m, k, k, n, m, n, m, n, k);
        break;
    case P_MATMUL_RELU:
        snprintf(p->src, sizeof p->src,
                 "@T.prim_func\n"
                 "def mmrelu(A: T.Buffer((%lld, %lld), \"float32\"), B: T.Buffer((%lld, %lld), "
                 "\"float32\"), C: T.Buffer((%lld, %lld), \"float32\")):\n"
                 "    with T.block(\"root\"):\n"
                 "        D = T.alloc_buffer((%lld, %lld))\n"
                 "        for i, j, k in T.grid(%lld, %lld, %lld):\n"
                 "            with T.block(\"D\"):\n"
                 "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
                 "                with T.init():\n"
                 "                    D[vi, vj] = T.float32(0)\n"
                 "                D[vi, vj] = D[vi, vj] + A[vi, vk] * B[vk, vj]\n"
                 "        for i, j in T.grid(%lld, %lld):\n"
                 "            with T.block(\"C\"):\n"
                 "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                 "                C[vi, vj] = T.max(D[vi, vj], T.float32(0))\n",
                 m, k, k, n, m, n, m, n, m, n, k, m, n);
        break;
    default:
        snprintf(p->src, sizeof p->src,
                 "@T.prim_func\n"
                 "def rowred(A: T.Buffer((%lld, %lld), \"float32\"), B: T.Buffer((%lld,), "
                 "\"float32\")):\n"
                 "    for i, k in T.grid(%lld, %lld):\n"
                 "        with T.block(\"B\"):\n"
                 "            vi, vk = T.axis.remap(\"SR\", [i, k])\n"
                 "            with T.init():\n"
                 "                B[vi] = T.float32(%s)\n"
                 "            B[vi] = %s\n",
                 m, k, m, m, k, p->prog == P_ROWSUM ? "0" : "\"-inf\"",
                 p->prog == P_ROWSUM ? "B[vi] + A[vi, vk]" : "T.max(B[vi], A[vi, vk])");
        break;
    }
}

/* The reference of out (row-major floats) from in[]. */
static void reference(const tir_prog *p, float *const *in, float *out) {
    int64_t m = p->m, n = p->n, k = p->k;
    switch (p->prog) {
    case P_EW:
        for (int64_t i = 0; i < m * n; i++)
            out[i] = fmaxf(in[0][i] + in[1][i] * 2.0f, 0.0f);
        break;
    case P_MATMUL:
    case P_MATMUL_RELU:
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                float s = 0;
                for (int64_t x = 0; x < k; x++)
                    s += in[0][i * k + x] * in[1][x * n + j];
                out[i * n + j] = p->prog == P_MATMUL_RELU ? fmaxf(s, 0.0f) : s;
            }
        break;
    default:
        for (int64_t i = 0; i < m; i++) {
            float s = p->prog == P_ROWSUM ? 0.0f : -INFINITY;
            for (int64_t x = 0; x < k; x++)
                s = p->prog == P_ROWSUM ? s + in[0][i * k + x] : fmaxf(s, in[0][i * k + x]);
            out[i] = s;
        }
        break;
    }
}

typedef struct {
    wf_tir *s;
    wf_tir_block *b[MAX_BLOCKS];
    int nb;
    wf_tir_block *red; /* the reduction block, if any (rfactor's usual target) */
} tir_state;

static wf_tir_block *any_block(fcase *c, tir_state *t) {
    return t->nb ? t->b[rnd(&c->r, (unsigned)t->nb)] : NULL;
}

/* Mostly a block other than b (compute_at's loop is another block's). */
static wf_tir_block *other_block(fcase *c, tir_state *t, wf_tir_block *b) {
    for (int tries = 0; tries < 4; tries++) {
        wf_tir_block *o = any_block(c, t);
        if (o != b || chance(&c->r, 10))
            return o;
    }
    return any_block(c, t);
}

/* A random loop above a random block (NULL if it has none). */
static wf_tir_loop *any_loop(fcase *c, tir_state *t, wf_tir_block *b) {
    wf_tir_loop *l[16];
    int n = b ? wf_tir_get_loops(t->s, b, l, 16) : 0;
    if (n <= 0)
        return NULL;
    return l[rnd(&c->r, (unsigned)(n < 16 ? n : 16))];
}

static void add_block(tir_state *t, wf_tir_block *b) {
    if (b && t->nb < MAX_BLOCKS)
        t->b[t->nb++] = b;
}

static void one_primitive(fcase *c, tir_state *t) {
    static const char *axes[] = {"blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"};
    static const char *scopes[] = {"shared", "local"};
    wf_tir *s = t->s;
    wf_tir_block *b = any_block(c, t);
    wf_tir_loop *l[16], *out[3];
    int n = b ? wf_tir_get_loops(s, b, l, 16) : 0;
    if (n > 16)
        n = 16;
    switch (rnd(&c->r, 14)) {
    case 0:
    case 1: {
        if (n <= 0)
            break;
        int nf = 2 + (int)rnd(&c->r, 2), none = (int)rnd(&c->r, (unsigned)nf);
        int64_t f[3];
        for (int i = 0; i < nf; i++)
            f[i] = i == none ? -1 : 1 + (int64_t)rnd(&c->r, 9);
        wf_tir_split(s, l[rnd(&c->r, (unsigned)n)], nf, f, out);
        break;
    }
    case 2:
        if (n >= 2) {
            int at = (int)rnd(&c->r, (unsigned)n - 1);
            wf_tir_fuse(s, 2, l + at);
        }
        break;
    case 3:
        if (n >= 2) {
            wf_tir_loop *pick[3];
            int np = n >= 3 && chance(&c->r, 50) ? 3 : 2;
            for (int i = n - 1; i > 0; i--) { /* shuffle the loops, take the first np */
                int j = (int)rnd(&c->r, (unsigned)i + 1);
                wf_tir_loop *x = l[i];
                l[i] = l[j];
                l[j] = x;
            }
            memcpy(pick, l, sizeof *pick * (size_t)np);
            c->tir_reorder = true;
            wf_tir_reorder(s, np, pick);
        }
        break;
    case 4:
    case 5:
        if (n > 0)
            wf_tir_bind(s, l[rnd(&c->r, (unsigned)n)], axes[rnd(&c->r, 4)]);
        break;
    case 6:
        if (n > 0) {
            if (chance(&c->r, 25))
                wf_tir_vectorize(s, l[rnd(&c->r, (unsigned)n)]);
            else
                wf_tir_unroll(s, l[rnd(&c->r, (unsigned)n)]);
        }
        break;
    case 7:
        if (b)
            add_block(t, wf_tir_cache_read(s, b, chance(&c->r, 70) ? 0 : (int)rnd(&c->r, 3),
                                           scopes[rnd(&c->r, 2)]));
        break;
    case 8:
        if (b)
            add_block(t, wf_tir_cache_write(s, b, 0, scopes[rnd(&c->r, 2)]));
        break;
    case 9:
    case 10: {
        wf_tir_loop *at = any_loop(c, t, other_block(c, t, b));
        if (b && at) {
            c->tir_compute_at = true;
            if (chance(&c->r, 50))
                wf_tir_compute_at(s, b, at);
            else
                wf_tir_reverse_compute_at(s, b, at);
        }
        break;
    }
    case 11:
        if (b) {
            if (chance(&c->r, 50))
                wf_tir_compute_inline(s, b);
            else
                wf_tir_reverse_compute_inline(s, b);
        }
        break;
    default:
        /* mostly an inner loop of the reduction block (the reduction loops
           are innermost until a reorder) */
        if (t->red && chance(&c->r, 80)) {
            b = t->red;
            n = wf_tir_get_loops(s, b, l, 16);
            n = n > 16 ? 16 : n;
        }
        if (n > 0) {
            int at = chance(&c->r, 70) ? n - 1 : (int)rnd(&c->r, (unsigned)n);
            c->tir_rfactor = true;
            add_block(t, wf_tir_rfactor(s, l[at], (int)rnd(&c->r, 3)));
        }
        break;
    }
}

/* Does msg name a scheduling call of the core on a tensor ("T2.reorder:",
   "T6.inline_at(3)")? A TensorIR user made none: the TensorIR layer
   handed the core a schedule it should have refused itself, or mistranslated
   one -- an internal error by another name. */
static bool names_core_call(const char *msg) {
    for (const char *p = strchr(msg, 'T'); p; p = strchr(p + 1, 'T')) {
        const char *q = p + 1;
        if (*q < '0' || *q > '9' || (p > msg && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q != '.' || !islower((unsigned char)q[1]))
            continue;
        for (q++; islower((unsigned char)*q) || *q == '_'; q++)
            ;
        if (*q == ':' || *q == '(')
            return true;
    }
    return false;
}

/* An error message of the TensorIR schedule or build: clean, or a failure. */
static int check_message(fcase *c, const char *what, const char *msg) {
    if (!msg || strlen(msg) < 8)
        return fz_fail(c, "%s failed with an empty or unclear message: \"%s\"", what,
                       msg ? msg : "(null)");
    if (strstr(msg, "internal error"))
        return fz_fail(c, "%s: %s", what, msg);
    if (names_core_call(msg))
        return fz_fail(c, "%s: a core scheduling error leaks through TensorIR (internal error): %s",
                       what, msg);
    return 0;
}

static int run_tir(fcase *c, const tir_prog *p, wf_kernel *k) {
    int64_t m = p->m, n = p->n, kk = p->k;
    bool ew = p->prog == P_EW, mm = p->prog == P_MATMUL || p->prog == P_MATMUL_RELU;
    int nin = ew || mm ? 2 : 1;
    int64_t in_shape[2][2] = {{m, ew ? n : kk}, {ew ? m : kk, n}};
    int64_t out_numel = ew || mm ? m * n : m;
    float *in[2] = {NULL, NULL}, *got = malloc(sizeof(float) * (size_t)out_numel),
          *want = malloc(sizeof(float) * (size_t)out_numel);
    wf_buffer bin[2], bout;
    memset(bin, 0, sizeof bin);
    memset(&bout, 0, sizeof bout);
    for (int i = 0; i < nin; i++) {
        int64_t numel = in_shape[i][0] * in_shape[i][1];
        in[i] = malloc(sizeof(float) * (size_t)numel);
        for (int64_t x = 0; x < numel; x++)
            in[i][x] = (float)((int)rnd(&c->r, 7) - 3);
        bin[i] = (wf_buffer){in[i], WF_F32, 2, {in_shape[i][0], in_shape[i][1]}, {0}, -1};
    }
    for (int64_t x = 0; x < out_numel; x++)
        got[x] = NAN;
    bout = ew || mm ? (wf_buffer){got, WF_F32, 2, {m, n}, {0}, -1}
                    : (wf_buffer){got, WF_F32, 1, {m}, {0}, -1};
    int bad = 0;
    c->stage = "run";
    wf_status st = wf_run(k, WF_BACKEND_INTERP, bin, nin, &bout, 1);
    if (st != WF_OK) {
        const char *msg = wf_last_run_error(k);
        if (!fz_size_refusal(msg))
            bad = fz_fail(c, "built TensorIR kernel failed on the executor: %s: %s",
                          wf_status_name(st), msg);
    } else {
        reference(p, in, want);
        for (int64_t x = 0; x < out_numel && !bad; x++)
            if (!(got[x] == want[x]))
                bad = fz_fail(c, "TensorIR output element %lld: got %g, expected %g", (long long)x,
                              (double)got[x], (double)want[x]);
    }
    free(in[0]);
    free(in[1]);
    free(got);
    free(want);
    return bad;
}

int fz_tir_case(fcase *c, bool *built) {
    tir_prog p;
    memset(&p, 0, sizeof p);
    p.prog = (int)rnd(&c->r, P_COUNT);
    p.m = 1 + (int64_t)rnd(&c->r, 40);
    p.n = 1 + (int64_t)rnd(&c->r, 40);
    p.k = 1 + (int64_t)rnd(&c->r, 40);
    /* a matmul's executor run under ASan takes about 50 us per multiply-add
       once scheduled on threads: at most 6000 of them */
    while ((p.prog == P_MATMUL || p.prog == P_MATMUL_RELU) && p.m * p.n * p.k > 6000)
        p.k = 1 + p.k / 2, p.m = p.m > 20 ? p.m - 7 : p.m;
    make_source(&p);
    c->stage = "parse";
    tir_state t = {wf_tir_parse(p.src), {NULL}, 0, NULL};
    if (!t.s)
        return fz_fail(c, "wf_tir_parse returned NULL");
    int bad = 0;
    if (wf_tir_status(t.s) != WF_OK) {
        bad = fz_fail(c, "a generated program does not parse: %s", wf_tir_error(t.s));
        goto done;
    }
    static const char *names[P_COUNT][2] = {
        {"D", "C"}, {"C", NULL}, {"D", "C"}, {"B", NULL}, {"B", NULL}};
    for (int i = 0; i < 2 && names[p.prog][i]; i++)
        add_block(&t, wf_tir_get_block(t.s, names[p.prog][i]));
    t.red = p.prog == P_EW ? NULL : t.b[0];
    c->stage = "schedule";
    for (int i = 0, steps = 1 + (int)rnd(&c->r, 8); i < steps; i++) {
        one_primitive(c, &t);
        if (wf_tir_status(t.s) != WF_OK)
            break;
    }
    if (c->verbose) {
        printf("    %s", p.src);
        printf("    trace:\n%s\n", wf_tir_trace(t.s));
        if (wf_tir_status(t.s) == WF_OK)
            printf("    scheduled:\n%s\n", wf_tir_script(t.s));
    }
    if (wf_tir_status(t.s) != WF_OK) {
        bad = check_message(c, "schedule", wf_tir_error(t.s));
        if (c->verbose)
            printf("    rejected: %s\n", wf_tir_error(t.s));
        goto done;
    }
    c->stage = "build";
    wf_kernel *k = wf_tir_build(t.s, NULL);
    if (!k) {
        bad = check_message(c, "build", wf_tir_error(t.s));
        if (c->verbose)
            printf("    build refused: %s\n", wf_tir_error(t.s));
        goto done;
    }
    *built = true;
    bad = run_tir(c, &p, k);
    if (c->verbose && !bad)
        printf("    ran and matched the reference\n");
    wf_kernel_free(k);
done:
    wf_tir_free(t.s);
    return bad;
}
