/*
 * test_launch_options.c -- lowering options: WF_DUMP and WF_SKIP are read
 * once into lower_options (api/compile.c); an unknown or unskippable pass
 * name is a clear compile error listing the valid names; a pass that fails
 * without saying why is an internal error naming it, never "out of memory".
 * The environment is read once per process, so the tests of the real
 * variables run this runner again in a child with the variable set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/api.h"
#include "harness.h"

static const char *const all_passes = "check, sort, loops, check-loops, pdims, alloc, reduce, "
                                      "index, copy, mma, predicate, sync, place, "
                                      "tmem, launch";

static wf_fusion *small_copy(void) {
    int64_t shape[1] = {32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, out);
    wf_tv_parallelize(out, 0, WF_TIDX);
    return f;
}

TEST(launch_options_unknown_dump_pass_lists_the_passes) {
    lower_options o = {0};
    wf_err e = {0};
    char want[256];
    CHECK(!lower_options_parse(&o, "index,bogus", NULL, &e));
    CHECK_EQ_I64(e.code, WF_ERR_ARG);
    snprintf(want, sizeof want,
             "WF_DUMP: unknown pass 'bogus'; the passes (besides \"all\") are %s", all_passes);
    CHECK_STR(e.msg, want);
}

TEST(launch_options_skip_of_a_needed_pass_is_refused) {
    lower_options o = {0};
    wf_err e = {0};
    CHECK(!lower_options_parse(&o, NULL, "loops", &e));
    CHECK_STR(e.msg, "WF_SKIP: cannot skip the pass 'loops'; the passes that can be skipped are "
                     "predicate, sync");
}

TEST(launch_options_parse_valid_lists) {
    lower_options o = {0};
    wf_err e = {0};
    CHECK(lower_options_parse(&o, "index,launch", "sync", &e));
    CHECK_EQ_I64(o.dump, (1u << 7) | (1u << 14));
    CHECK_EQ_I64(o.skip, 1u << 11);
    CHECK(lower_options_parse(&o, "all", "all", &e));
    CHECK_EQ_I64(o.dump, (1u << 15) - 1);
    CHECK_EQ_I64(o.skip, (1u << 10) | (1u << 11));
    CHECK(lower_options_parse(&o, "", NULL, &e));
    CHECK_EQ_I64(o.dump, 0);
    CHECK_EQ_I64(e.code, WF_OK);
}

/* A pass that returns false without an error is a bug: say so and name it. */
TEST(launch_options_silent_pass_failure_is_an_internal_error) {
    wf_fusion *f = small_copy();
    lower_options o = {.fail = 1u << 7}; /* index fails silently */
    wf_kernel *k = api_compile(f, NULL, &o);
    CHECK(k == NULL);
    wf_kernel_free(k);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f), "internal error: the lowering pass 'index' failed without "
                                  "saying why (a bug in weft; please report it with the fusion)");
    wf_fusion_free(f);
}

/* The loop checks and the reductions' lowering are rows of the pass list (they
   were tail calls of loops and alloc): each is named when it fails. */
TEST(launch_options_loop_checks_and_reductions_are_passes_of_their_own) {
    static const struct {
        unsigned bit;
        const char *msg;
    } want[] = {
        {3, "internal error: the lowering pass 'check-loops' failed without saying why (a bug in "
            "weft; please report it with the fusion)"},
        {6, "internal error: the lowering pass 'reduce' failed without saying why (a bug in "
            "weft; please report it with the fusion)"},
    };
    for (int i = 0; i < 2; i++) {
        wf_fusion *f = small_copy();
        lower_options o = {.fail = 1u << want[i].bit};
        wf_kernel *k = api_compile(f, NULL, &o);
        CHECK(k == NULL);
        wf_kernel_free(k);
        CHECK_STR(wf_fusion_error(f), want[i].msg);
        wf_fusion_free(f);
    }
}

/* In a child run with WF_DUMP / WF_SKIP set: compile and print the outcome. */
TEST(launch_options_env_probe) {
    wf_fusion *f = small_copy();
    wf_kernel *k = wf_compile(f, NULL);
    if (getenv("WF_DUMP") || getenv("WF_SKIP"))
        printf("probe: %s: %s\n", wf_status_name(wf_fusion_status(f)), wf_fusion_error(f));
    else
        CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Run this runner's probe test with var=value; its stdout and stderr. */
static bool run_probe(const char *var, const char *value, char *out, size_t size) {
    int fd[2];
    size_t n = 0;
    ssize_t r;
    if (pipe(fd) != 0)
        return false;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        setenv(var, value, 1);
        execl("/proc/self/exe", "runner", "launch_options_env_probe", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    while (pid > 0 && n + 1 < size && (r = read(fd[0], out + n, size - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = 0;
    close(fd[0]);
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid;
}

/* WF_DUMP=bogus used to be ignored silently. */
TEST(launch_options_env_bogus_dump_fails_every_compile) {
    char out[4096], want[512];
    CHECK(run_probe("WF_DUMP", "bogus", out, sizeof out));
    snprintf(want, sizeof want,
             "probe: WF_ERR_ARG: WF_DUMP: unknown pass 'bogus'; the passes (besides \"all\") are "
             "%s\n",
             all_passes);
    CHECK_HAS(out, want);
}

TEST(launch_options_env_dump_prints_the_named_pass) {
    char out[8192];
    CHECK(run_probe("WF_DUMP", "launch", out, sizeof out));
    CHECK_HAS(out, "== kernel IR after launch\n");
    CHECK_LACKS(out, "== kernel IR after index\n");
    CHECK_HAS(out, "probe: WF_OK: \n");
}

TEST(launch_options_env_dump_of_the_new_rows) {
    char out[16384];
    CHECK(run_probe("WF_DUMP", "check-loops,reduce", out, sizeof out));
    CHECK_HAS(out, "== kernel IR after check-loops\n");
    CHECK_HAS(out, "== kernel IR after reduce\n");
    CHECK_LACKS(out, "== kernel IR after alloc\n");
    CHECK_HAS(out, "probe: WF_OK: \n");
}
