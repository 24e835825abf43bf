/*
 * cli.h -- what the files of the `weft` command share: one function per
 * command, each taking the arguments after its name and returning the
 * process's exit status (0 done, 1 failed, 2 misused). main.c holds the
 * table that names them and prints `weft help` from it; a new command is a
 * new file with its function and one line in that table. The command uses
 * only the public header, like any program built on weft.
 */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

int cli_demo(int argc, char **argv);  /* demo.c */
int cli_info(int argc, char **argv);  /* info.c */
int cli_cache(int argc, char **argv); /* info.c */
int cli_tir(int argc, char **argv);   /* tir.c */
/* trace.c: apply the schedule trace `text` (read from path) to s; 0 done, 1 failed
   (the message, "path:line: what", on stderr). */
struct wf_tir;
struct wf_fusion;
struct wf_tv;
int cli_tir_apply_trace(struct wf_tir *s, const char *path, const char *text);
/* tir.c: the text of path ("-": stdin), or NULL with the reason on stderr (a directory
   is named as one: "give a <what> file"). The caller frees it. */
char *cli_read_file(const char *path, const char *what);
/* tir.c: the TVMScript file path parsed, with the trace file applied when not NULL; NULL
   with the message on stderr. */
struct wf_tir *cli_tir_load(const char *path, const char *trace);
/* fusionfile.c: the fusion a `weft-fusion 1` file (Python's Fusion.save) describes,
   rebuilt call by call; NULL with "path:line: what" on stderr. *last_output: the tensor
   it marked as output last (NULL if none). */
struct wf_fusion *cli_load_fusion(const char *path, struct wf_tv **last_output);

#endif
