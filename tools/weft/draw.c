/*
 * draw.c -- `weft draw EXAMPLE [TENSOR] [-o FILE]`: the IterDomain graph of
 * one tensor of a built-in example, as Graphviz DOT (wf_print_dot) on
 * stdout or in FILE.dot, or rendered by Graphviz's `dot` program into
 * FILE.svg / .png / .pdf. `weft draw --list` names the examples.
 *
 * The user's own programs too: `weft draw FILE.py [BLOCK|TENSOR]
 * [--schedule TRACE.py]` parses a TVMScript file as `weft tir` does, builds
 * it and draws the tensor holding what BLOCK writes (wf_tir_block_tensor) or
 * tensor T<n> of the built fusion (default: its last tensor); `weft draw
 * FILE.weft [TENSOR]` rebuilds a fusion Python saved (fusionfile.c) and
 * draws T<n> (default: its last output).
 *
 * The examples are seed 000's schedules (the shared-memory copy, the
 * "fancy transformations" that XOR-swizzle a [4096, 4096] tensor back to its
 * shape, the two complicated tensor-memory schedules built on them) and the
 * 128-byte TMA swizzle layout of seed 001 written with split / swizzle /
 * set_allocation_domain, and a TMA load with that swizzle (its box and
 * coordinate IterDomains coloured); tools/figures.sh draws docs/figures/ with them.
 * `dot` is looked up on PATH, or taken from $WEFT_DOT. Uses only weft.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "weft.h"

int weft_draw(int argc, char **argv);

/* The tensors of the copy chain T0 (global) -> T1 -> ... -> T<n-1> (output). */
#define CHAIN_MAX 5

typedef struct {
    wf_fusion *f;
    wf_tv *tv[CHAIN_MAX];
    int ntv;
} chain;

static chain chain_new(int ntv, int64_t rows, int64_t cols) {
    chain c = {wf_fusion_new(), {NULL}, ntv};
    int64_t shape[2] = {rows, cols};
    c.tv[0] = wf_input(c.f, WF_F32, 2, shape);
    for (int i = 1; i < ntv; i++)
        c.tv[i] = wf_set(c.tv[i - 1]);
    wf_output(c.f, c.tv[ntv - 1]);
    return c;
}

/* Seed 000's GSGCopy: T1 in shared memory, nothing scheduled. */
static void build_gsgcopy(chain *c) {
    *c = chain_new(3, 2, 4);
    wf_tv_set_memory(c->tv[1], WF_MEM_SHARED);
}

/* Seed 000's fancyTransformations: the shape stays [4096, 4096]. */
static void fancy_transformations(wf_tv *tv) {
    static const int r[4] = {3, 0, 2, 1};
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_split(tv, 1, 64);
    wf_tv_split(tv, 0, 64);
    wf_tv_reorder_all(tv, r);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 0, 1);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 2, 3);
    wf_tv_swizzle(tv, WF_SWIZZLE_XOR, 1, 2);
    wf_tv_reorder_all(tv, r);
    wf_tv_merge(tv, 2);
    wf_tv_merge(tv, 0);
}

/* The tensor-memory chain of Complicated1/2: T2 in tensor memory. */
static chain tmem_chain(void) {
    chain c = chain_new(5, 4096, 4096);
    wf_tv_set_memory(c.tv[2], WF_MEM_TENSOR);
    wf_tv_set_ldst(c.tv[2], WF_LDST_TMEM_STORE);
    wf_tv_set_ldst(c.tv[3], WF_LDST_TMEM_LOAD);
    return c;
}

static void build_fancy(chain *c) {
    *c = tmem_chain();
    fancy_transformations(c->tv[4]);
}

static void split_all(wf_tv *tv, int axis, const int64_t *factors, int n) {
    for (int i = 0; i < n; i++)
        wf_tv_split(tv, axis, factors[i]);
}

static void parallelize_all(wf_tv *tv, const int *axes, const wf_ptype *ptypes, int n) {
    for (int i = 0; i < n; i++)
        wf_tv_parallelize(tv, axes[i], ptypes[i]);
}

/* What Complicated1 and 2 share after their splits: propagate, give T2 its
   loop domain as allocation domain with a dim-separator, reorder, inline. */
static void tmem_finish(chain *c, int dimsep, int npairs, const int (*pairs)[2]) {
    wf_tv *tv4 = c->tv[4];
    int n;
    wf_propagate_transforms(tv4);
    wf_parallelize_all_like(tv4, 0);
    wf_iterdomain *const *loop = wf_tv_loop_domain(c->tv[2], &n);
    wf_tv_set_allocation_domain(c->tv[2], n, loop, true);
    wf_tv_set_tmem_dimsep(c->tv[2], dimsep);
    wf_tv_reorder(tv4, npairs, pairs);
    wf_propagate_transforms(tv4);
    wf_inline_all_at(tv4, 4);
}

static void build_complicated1(chain *c) {
    static const int64_t cols[3] = {64, 8, 4}, rows[5] = {1, 8, 2, 8, 16};
    static const int axes[6] = {0, 2, 3, 4, 7, 8};
    static const wf_ptype ptypes[6] = {WF_TIDZ, WF_TIDY, WF_BIDX, WF_TIDX, WF_BIDY, WF_BIDZ};
    static const int pairs[2][2] = {{6, 2}, {7, 3}};
    build_fancy(c);
    split_all(c->tv[4], 1, cols, 3);
    split_all(c->tv[4], 0, rows, 5);
    parallelize_all(c->tv[4], axes, ptypes, 6);
    tmem_finish(c, 6, 2, pairs);
}

static void build_complicated2(chain *c) {
    static const int64_t cols[5] = {2, 2, 16, 2, 8}, rows[1] = {128};
    static const int axes[5] = {1, 3, 4, 6, 7};
    static const wf_ptype ptypes[5] = {WF_TIDX, WF_BIDY, WF_TIDY, WF_BIDZ, WF_TIDZ};
    static const int pairs[1][2] = {{1, 4}};
    build_fancy(c);
    split_all(c->tv[4], 1, cols, 5);
    split_all(c->tv[4], 0, rows, 1);
    parallelize_all(c->tv[4], axes, ptypes, 5);
    tmem_finish(c, 2, 1, pairs);
}

/* Seed 001's 128-byte swizzle of a [64, 32] float tile in shared memory:
   allocation [rows/8, 8, 1, 8 chunks, 16 bytes], the XOR of axes 1 and 3. */
static void build_tma_swizzle(chain *c) {
    *c = chain_new(3, 64, 32);
    wf_tv *s = c->tv[1];
    int n;
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_split(s, 1, 4); /* 16 bytes of floats */
    wf_tv_split(s, 0, 8);
    wf_tv_split(s, 1, 1); /* 8 / s rows of one swizzle row, s = 8 for 128 bytes */
    wf_tv_swizzle(s, WF_SWIZZLE_XOR, 1, 3);
    wf_iterdomain *const *loop = wf_tv_loop_domain(s, &n);
    wf_tv_set_allocation_domain(s, n, loop, true);
}

/* Seed 001's TMA load of [64, 32] float tiles of a [256, 32] tensor into
   shared memory, one tile per block, laid out with the 128-byte swizzle:
   T1 = [I0o (BIDx), I0i{64} (Bulk), I1{32} (Bulk)], the tile's allocation
   [.., 8, 1, 8, 4 floats] with the XOR; the diagram colours its box and
   coordinate IterDomains. T2 copies it out with threads. */
static void build_tma_load(chain *c) {
    *c = chain_new(3, 256, 32);
    wf_tv *s = c->tv[1], *o = c->tv[2];
    wf_tv_set_memory(s, WF_MEM_SHARED);
    wf_tv_set_ldst(s, WF_LDST_TMA);
    wf_tv_split(s, 0, 64);
    wf_tv_parallelize(s, 0, WF_BIDX);
    wf_tv_parallelize(s, 1, WF_BULK);
    wf_tv_parallelize(s, 2, WF_BULK);
    wf_tv_tma_swizzle(s, 128);
    wf_tv_split(o, 0, 64);
    wf_tv_parallelize(o, 0, WF_BIDX);
    wf_tv_parallelize(o, 2, WF_TIDX);
    wf_tv_inline_at(s, 1);
}

typedef struct {
    const char *name;
    int tensor; /* drawn when no TENSOR is given */
    void (*build)(chain *c);
    const char *what;
} example;

static const example examples[] = {
    {"gsgcopy", 1, build_gsgcopy, "seed 000: global -> shared (T1) -> global copy, unscheduled"},
    {"fancy", 4, build_fancy, "seed 000: fancyTransformations of a [4096, 4096] copy (T4)"},
    {"complicated1", 4, build_complicated1, "seed 000: tensor-memory Complicated1 (T2 in TMem)"},
    {"complicated2", 4, build_complicated2, "seed 000: tensor-memory Complicated2 (T2 in TMem)"},
    {"tma-swizzle", 1, build_tma_swizzle,
     "seed 001: 128-byte TMA swizzle layout of a [64, 32] float tile in shared memory (T1)"},
    {"tma-load", 1, build_tma_load,
     "seed 001: TMA load of 128-byte-swizzled [64, 32] tiles, box and coordinate colours (T1)"},
};
#define NEXAMPLES (int)(sizeof examples / sizeof *examples)

/* Prints the usage and the examples; returns 0. */
static int usage(FILE *out) {
    fprintf(out,
            "usage: weft draw EXAMPLE [TENSOR] [-o FILE]\n"
            "       weft draw FILE.py [BLOCK|TENSOR] [--schedule TRACE.py] [-o FILE]\n"
            "       weft draw FILE.weft [TENSOR] [-o FILE]\n"
            "  TENSOR: T<n> or <n> (default: the example's main tensor; a program's last)\n"
            "  FILE.py: a TVMScript file as `weft tir` reads it (--schedule applies a trace),\n"
            "  built; BLOCK names a block: the tensor holding what it writes is drawn.\n"
            "  FILE.weft: a fusion saved by Python's Fusion.save (default: its last output).\n"
            "  -o FILE.dot writes DOT; FILE.svg, .png or .pdf renders it with Graphviz's\n"
            "  `dot` (or $WEFT_DOT); without -o, DOT goes to stdout. Examples:\n");
    for (int i = 0; i < NEXAMPLES; i++)
        fprintf(out, "  %-13s %s\n", examples[i].name, examples[i].what);
    return 0;
}

static bool is_help(const char *arg) {
    return strcmp(arg, "--list") == 0 || strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

static const example *find_example(const char *name) {
    for (int i = 0; i < NEXAMPLES; i++)
        if (strcmp(examples[i].name, name) == 0)
            return &examples[i];
    return NULL;
}

/* "T3" or "3" -> 3; -1 if it is neither. */
static int parse_tensor(const char *s) {
    if (*s == 'T')
        s++;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (*s && !*end && !errno && v >= 0 && v < 1000000) ? (int)v : -1;
}

/* The Graphviz output format of a file name, or NULL for DOT text. */
static const char *render_format(const char *path) {
    static const char *const formats[] = {"svg", "png", "pdf"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof formats / sizeof *formats; i++)
        if (strcmp(dot + 1, formats[i]) == 0)
            return formats[i];
    return NULL;
}

/* Pipe text into `dot -T<fmt> -o path`; 0 on success. */
static int render(const char *text, const char *fmt, const char *path) {
    const char *dot = getenv("WEFT_DOT") && *getenv("WEFT_DOT") ? getenv("WEFT_DOT") : "dot";
    char flag[16];
    snprintf(flag, sizeof flag, "-T%s", fmt);
    int fd[2];
    if (pipe(fd) != 0) {
        perror("weft draw: pipe");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("weft draw: fork");
        close(fd[0]);
        close(fd[1]);
        return 1;
    }
    if (pid == 0) {
        dup2(fd[0], 0);
        close(fd[0]);
        close(fd[1]);
        execlp(dot, dot, flag, "-o", path, (char *)NULL);
        _exit(127);
    }
    close(fd[0]);
    signal(SIGPIPE, SIG_IGN); /* a `dot` that exits early must not kill us */
    size_t len = strlen(text);
    bool wrote = write(fd[1], text, len) == (ssize_t)len;
    close(fd[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        fprintf(stderr,
                "weft draw: Graphviz's `%s` program was not found; install Graphviz "
                "(apt-get install -y graphviz) or write DOT text with -o FILE.dot\n",
                dot);
        return 1;
    }
    if (!wrote || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "weft draw: `%s %s -o %s` failed\n", dot, flag, path);
        return 1;
    }
    return 0;
}

static int write_text(const char *text, const char *path) {
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "weft draw: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    fputs(text, out);
    return fclose(out) == 0 ? 0 : 1;
}

/* The tensor named n of the example, or NULL with a message. */
static wf_tv *pick_tensor(const example *ex, chain *c, int n) {
    for (int i = 0; i < c->ntv; i++)
        if (wf_tv_name(c->tv[i]) == n)
            return c->tv[i];
    fprintf(stderr, "weft draw: example %s has no tensor T%d (it has T0..T%d)\n", ex->name, n,
            c->ntv - 1);
    return NULL;
}

/* Writes tv's diagram to path (stdout when NULL); 0 on success. */
static int emit(wf_tv *tv, const char *path) {
    const char *text = tv ? wf_dot_string(tv) : NULL;
    if (!text) {
        fprintf(stderr, "weft draw: T%d: %s\n", wf_tv_name(tv), wf_fusion_error(wf_tv_fusion(tv)));
        return 1;
    }
    if (!path)
        return fputs(text, stdout) < 0;
    if (render_format(path))
        return render(text, render_format(path), path);
    return write_text(text, path);
}

static int draw(const example *ex, int tensor, const char *path) {
    chain c;
    ex->build(&c);
    if (wf_fusion_status(c.f) != WF_OK) {
        fprintf(stderr, "weft draw: example %s: %s\n", ex->name, wf_fusion_error(c.f));
        wf_fusion_free(c.f);
        return 1;
    }
    wf_tv *tv = pick_tensor(ex, &c, tensor < 0 ? ex->tensor : tensor);
    int rc = tv ? emit(tv, path) : 1;
    wf_fusion_free(c.f);
    return rc;
}

/* The last tensor of f (the highest T<n>), or NULL when it has none. */
static wf_tv *last_tensor(wf_fusion *f, int *count) {
    int n = 0;
    while (wf_fusion_tensor(f, n))
        n++;
    *count = n;
    return n ? wf_fusion_tensor(f, n - 1) : NULL;
}

/* The tensor of f named by arg, or NULL with a message naming file. */
static wf_tv *file_tensor(wf_fusion *f, const char *file, const char *arg, bool blocks) {
    int n, t = parse_tensor(arg);
    last_tensor(f, &n);
    wf_tv *tv = t >= 0 ? wf_fusion_tensor(f, t) : NULL;
    if (!tv)
        fprintf(stderr, "weft draw: %s has no %stensor '%s' (its tensors are T0..T%d)\n", file,
                blocks ? "block or " : "", arg, n - 1);
    return tv;
}

/* A TVMScript file, built: the tensor of block or tensor `what` (default: the last). */
static int draw_tir(const char *file, const char *trace, const char *what, const char *path) {
    wf_tir *s = cli_tir_load(file, trace);
    if (!s)
        return 1;
    wf_kernel *k = wf_tir_build(s, NULL);
    wf_fusion *f = wf_tir_fusion(s);
    int rc = 1, n;
    wf_tv *tv = NULL;
    if (!k)
        fprintf(stderr, "weft: %s: %s\n", file, wf_tir_error(s));
    else if (!what)
        tv = last_tensor(f, &n);
    else {
        wf_tir_block *b = wf_tir_get_block(s, what);
        tv = b ? wf_tir_block_tensor(s, b) : NULL;
        if (b && !tv)
            fprintf(stderr, "weft: %s: %s\n", file, wf_tir_error(s));
        else if (!b) {
            wf_tir_clear_error(s);
            tv = file_tensor(f, file, what, true);
        }
    }
    if (tv)
        rc = emit(tv, path);
    wf_kernel_free(k);
    wf_tir_free(s);
    return rc;
}

/* A fusion saved by Python: tensor `what` (default: its last output, else its last). */
static int draw_saved(const char *file, const char *what, const char *path) {
    wf_tv *out = NULL;
    wf_fusion *f = cli_load_fusion(file, &out);
    if (!f)
        return 1;
    int n;
    wf_tv *tv = what ? file_tensor(f, file, what, false) : out ? out : last_tensor(f, &n);
    if (!what && !tv)
        fprintf(stderr, "weft draw: %s has no tensor to draw\n", file);
    int rc = tv ? emit(tv, path) : 1;
    wf_fusion_free(f);
    return rc;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* argv[0] is "draw". */
int weft_draw(int argc, char **argv) {
    const char *path = NULL, *name = NULL, *tensor = NULL, *trace = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            path = argv[++i];
        else if (strcmp(argv[i], "--schedule") == 0 && i + 1 < argc && !trace)
            trace = argv[++i];
        else if (is_help(argv[i]))
            return usage(stdout);
        else if (!name && (argv[i][0] != '-' || !strcmp(argv[i], "-")))
            name = argv[i];
        else if (name && !tensor && argv[i][0] != '-')
            tensor = argv[i];
        else
            return usage(stderr) + 2;
    }
    if (!name)
        return usage(stderr) + 2;
    const example *ex = find_example(name);
    if (!ex && ends_with(name, ".weft") && !trace)
        return draw_saved(name, tensor, path);
    if (!ex && ends_with(name, ".weft")) {
        fprintf(stderr, "weft draw: --schedule applies to a TVMScript file, not %s\n", name);
        return 2;
    }
    struct stat st;
    if (!ex && !strchr(name, '.') && !strchr(name, '/') && strcmp(name, "-") &&
        stat(name, &st) != 0) {
        fprintf(stderr, "weft draw: no example or file named '%s'\n", name);
        return usage(stderr) + 2;
    }
    if (!ex)
        return draw_tir(name, trace, tensor, path);
    if (trace) {
        fprintf(stderr, "weft draw: --schedule applies to a TVMScript file, not the example %s\n",
                name);
        return 2;
    }
    int t = tensor ? parse_tensor(tensor) : -1;
    if (tensor && t < 0) {
        fprintf(stderr, "weft draw: '%s' is not a tensor name (T<n> or <n>)\n", tensor);
        return 2;
    }
    return draw(ex, t, path);
}
