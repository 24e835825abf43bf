/*
 * main.c -- the `weft` command: a table of subcommands, each in its own
 * file (cli.h), and `weft help`, printed from that table so that it lists
 * every command there is. Uses only include/weft.h.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "weft.h"

typedef struct {
    const char *name;  /* what the user types after `weft` */
    const char *usage; /* its arguments, for help */
    const char *what;  /* one line for help */
    int (*run)(int argc, char **argv);
} command;

static int cli_help(int argc, char **argv);
static int cli_version(int argc, char **argv);

int weft_draw(int argc, char **argv); /* draw.c; its argv[0] is "draw" */
static int cli_draw(int argc, char **argv) {
    return weft_draw(argc + 1, argv - 1);
}

static const command commands[] = {
    {"help", "", "list the commands (this text)", cli_help},
    {"version", "", "the library's version (also --version)", cli_version},
    {"info", "", "what weft finds: NVRTC, CUDA driver, device, kernel cache", cli_info},
    {"cache", "[clear]", "the kernel cache's size; `clear` empties it", cli_cache},
    {"demo", "", "print the CUDA of a global -> shared -> global copy", cli_demo},
    {"draw", "EXAMPLE", "an IterDomain graph as DOT or SVG (also FILE.py, FILE.weft); --list",
     cli_draw},
    {"tir", "FILE", "a TVMScript file, shown and as CUDA; --schedule TRACE.py applies a trace",
     cli_tir},
};
#define NCOMMANDS (int)(sizeof commands / sizeof commands[0])

static int cli_help(int argc, char **argv) {
    (void)argc;
    (void)argv;
    puts("usage: weft <command> [arguments]\n\ncommands:");
    for (int i = 0; i < NCOMMANDS; i++) {
        char head[64];
        snprintf(head, sizeof head, "%s %s", commands[i].name, commands[i].usage);
        printf("  %-16s %s\n", head, commands[i].what);
    }
    puts("\nenvironment: WF_CACHE_DIR (kernel cache; empty = off), CUDA_HOME (where to look "
         "for NVRTC\nand the driver first), WF_DUMP=<pass>,... (print the kernel IR after "
         "lowering passes)");
    return 0;
}

static int cli_version(int argc, char **argv) {
    (void)argc;
    (void)argv;
    printf("weft %s\n", wf_version());
    return 0;
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "help";
    if (strcmp(name, "--version") == 0)
        name = "version";
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    for (int i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0)
            return commands[i].run(argc > 1 ? argc - 2 : 0, argv + 2);
    fprintf(stderr, "weft: unknown command '%s'; `weft help` lists the commands\n", name);
    return 2;
}
