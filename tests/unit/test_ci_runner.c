/*
 * test_ci_runner.c -- the runner (tests/harness_run.c) checked by running
 * itself: the test below starts this very program (/proc/self/exe's
 * target) on the
 * three "ci_runner_victim_" tests with WF_TEST_VICTIMS=1, which makes the
 * first one slow, the second one crash and the third one print, and
 * compares the whole output: the crash is a failure with its signal and
 * the run goes on, every test's output sits above its own result line, and
 * the order is registration order whatever order the tests end in.
 * Without WF_TEST_VICTIMS the victims pass and print nothing.
 */
#include "harness.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool victims(void) {
    const char *v = getenv("WF_TEST_VICTIMS");
    return v && strcmp(v, "1") == 0;
}

TEST(ci_runner_victim_a_slow) {
    (void)TS;
    if (!victims())
        return;
    struct timespec t = {0, 300 * 1000 * 1000}; /* ends after the others */
    nanosleep(&t, NULL);
    printf("  slow one done\n");
}

TEST(ci_runner_victim_b_crashes) {
    (void)TS;
    if (!victims())
        return;
    printf("  about to crash\n");
    fflush(stdout);
    abort(); /* not SIGSEGV: under ASan its handler would report it first */
}

TEST(ci_runner_victim_c_prints) {
    if (!victims())
        return;
    printf("  to stdout\n");
    fflush(stdout);
    fprintf(stderr, "  to stderr\n");
    CHECK_EQ_I64(1 + 1, 2);
}

static void read_all(FILE *p, char *buf, size_t size) {
    size_t n = 0, got;
    while (n + 1 < size && (got = fread(buf + n, 1, size - 1 - n, p)) > 0)
        n += got;
    buf[n] = 0;
}

TEST(ci_runner_isolates_crashes_and_keeps_the_order) {
    if (victims())
        return; /* not inside the run it checks */
    char self[1024], cmd[1200];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        SKIP("no /proc/self/exe");
    self[n] = 0;
    snprintf(cmd, sizeof cmd, "WF_TEST_VICTIMS=1 '%s' -j 3 ci_runner_victim_ 2>&1", self);
    FILE *p = popen(cmd, "r");
    if (!p)
        SKIP("popen failed");
    char out[4096];
    read_all(p, out, sizeof out);
    int status = pclose(p);
    CHECK_STR(out, "  slow one done\n"
                   "[PASS] ci_runner_victim_a_slow\n"
                   "  about to crash\n"
                   "[FAIL] ci_runner_victim_b_crashes (crashed: signal 6 (Aborted))\n"
                   "  to stdout\n"
                   "  to stderr\n"
                   "[PASS] ci_runner_victim_c_prints\n"
                   "2 passed, 1 failed, 0 skipped\n");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
}
