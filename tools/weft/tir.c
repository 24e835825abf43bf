/*
 * tir.c -- `weft tir FILE`: a TVMScript file through the TensorIR front door. The
 * program is parsed, shown as TVM's printer lays it out (wf_tir_show: what a
 * schedule would start from), then built unscheduled, one thread doing all of it,
 * and the CUDA C++ of that kernel printed. A parse error (line:column, the line and a
 * caret) or a build weft refuses is reported on stderr with exit status 1; "-" reads
 * the program from stdin.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int cli_tir(int argc, char **argv) {
    if (argc != 1) {
        fprintf(stderr, "weft: usage: weft tir FILE (a TVMScript @T.prim_func; - for stdin)\n");
        return 2;
    }
    char *src = read_program(argv[0]);
    if (!src) {
        fprintf(stderr, "weft: cannot read %s\n", argv[0]);
        return 1;
    }
    wf_tir *s = wf_tir_parse(src);
    free(src);
    if (!s || wf_tir_status(s) != WF_OK) {
        fprintf(stderr, "weft: %s: %s\n", argv[0], s ? wf_tir_error(s) : "out of memory");
        wf_tir_free(s);
        return 1;
    }
    wf_tir_show(s, stdout);
    wf_kernel *k = wf_tir_build(s, NULL);
    int rc = 0;
    if (k) {
        printf("\n// the CUDA of the unscheduled program (%lld x %lld threads)\n",
               (long long)wf_kernel_launch(k)->grid[0], (long long)wf_kernel_launch(k)->block[0]);
        fputs(wf_kernel_source(k), stdout);
    } else {
        fprintf(stderr, "weft: %s: %s\n", argv[0], wf_tir_error(s));
        rc = 1;
    }
    wf_kernel_free(k);
    wf_tir_free(s);
    return rc;
}
