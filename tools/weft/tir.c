/*
 * tir.c -- `weft tir FILE [--schedule TRACE.py]`: a TVMScript file through the
 * TensorIR front door. The program is parsed; with --schedule, the trace's
 * `sch.` calls (trace.c) are applied to it. It is shown as TVM's printer lays it
 * out (wf_tir_show), then built (unscheduled: one thread doing all of it) and the
 * CUDA C++ of that kernel printed. A parse error (line:column, the line and a
 * caret), a trace line weft cannot apply ("TRACE:LINE: what") or a build weft
 * refuses is reported on stderr with exit status 1; "-" reads the program from
 * stdin; a directory is named as one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "weft.h"

/* The whole of f as a NUL-terminated string (caller frees), or NULL. */
static char *slurp(FILE *f) {
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    while (s) {
        n += fread(s + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *t = realloc(s, cap * 2);
        if (!t)
            free(s);
        s = t, cap *= 2;
    }
    if (s)
        s[n] = '\0';
    return s;
}

static char *read_program(const char *path) {
    if (!strcmp(path, "-"))
        return slurp(stdin);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = slurp(f);
    fclose(f);
    return s;
}

static const char usage_text[] =
    "usage: weft tir FILE [--schedule TRACE.py]\n"
    "  FILE: a TVMScript @T.prim_func (- for stdin); shown as TVM prints it, then the\n"
    "  CUDA of its kernel. --schedule TRACE.py applies a schedule trace first: one\n"
    "  sch call per line, as TVM's sch.trace and weft's Schedule.trace print them:\n"
    "    b0 = sch.get_block(name=\"B\", func_name=\"main\")\n"
    "    l1, l2 = sch.get_loops(block=b0)\n"
    "    l3, l4 = sch.split(loop=l1, factors=[None, 32])\n"
    "    sch.bind(loop=l3, thread_axis=\"blockIdx.x\")\n"
    "  (keyword or positional arguments; comments and `def` lines are skipped).\n";

char *cli_read_file(const char *path, const char *what) {
    struct stat st;
    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "weft: %s is a directory; give a %s file\n", path, what);
        return NULL;
    }
    char *src = read_program(path);
    if (!src)
        fprintf(stderr, "weft: cannot read %s: %s\n", path, strerror(errno));
    return src;
}

wf_tir *cli_tir_load(const char *path, const char *trace) {
    char *src = cli_read_file(path, "TVMScript");
    if (!src)
        return NULL;
    wf_tir *s = wf_tir_parse(src);
    free(src);
    if (!s || wf_tir_status(s) != WF_OK) {
        fprintf(stderr, "weft: %s: %s\n", path, s ? wf_tir_error(s) : "out of memory");
        wf_tir_free(s);
        return NULL;
    }
    if (trace) {
        char *text = cli_read_file(trace, "schedule trace");
        int bad = !text || cli_tir_apply_trace(s, trace, text);
        free(text);
        if (bad) {
            wf_tir_free(s);
            return NULL;
        }
    }
    return s;
}

int cli_tir(int argc, char **argv) {
    const char *path = NULL, *trace = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--schedule") && i + 1 < argc && !trace)
            trace = argv[++i];
        else if (!path && (strcmp(argv[i], "--schedule") != 0))
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (!path) {
        fputs(usage_text, stderr);
        return 2;
    }
    wf_tir *s = cli_tir_load(path, trace);
    if (!s)
        return 1;
    wf_tir_show(s, stdout);
    wf_kernel *k = wf_tir_build(s, NULL);
    int rc = 0;
    if (k) {
        const wf_launch_info *l = wf_kernel_launch(k);
        if (trace)
            printf("\n// the CUDA of the scheduled program (grid %lld x %lld x %lld, block %lld x "
                   "%lld x %lld)\n",
                   (long long)l->grid[0], (long long)l->grid[1], (long long)l->grid[2],
                   (long long)l->block[0], (long long)l->block[1], (long long)l->block[2]);
        else
            printf("\n// the CUDA of the unscheduled program (%lld x %lld threads)\n",
                   (long long)l->grid[0], (long long)l->block[0]);
        fputs(wf_kernel_source(k), stdout);
    } else {
        fprintf(stderr, "weft: %s: %s\n", path, wf_tir_error(s));
        rc = 1;
    }
    wf_kernel_free(k);
    wf_tir_free(s);
    return rc;
}
