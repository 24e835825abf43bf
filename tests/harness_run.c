/*
 * harness_run.c -- the test runner's main.
 *
 *   runner [-j N] [--no-fork] [--times[=K]] [-l] [FILTER]
 *
 * runs every registered test whose name contains FILTER, each in a process
 * of its own (fork), N at a time (-j; default $WF_TEST_JOBS, else the
 * number of online cores). A test's output -- its stdout and stderr,
 * sanitizer reports included -- goes to a temporary file, and the parent
 * prints each test's output followed by its "[PASS] name" / "[FAIL] name" /
 * "[SKIP] name (reason)" line in registration order, whatever order the
 * tests finish in, so the output is the same for every N. The last line is
 * "N passed, N failed, N skipped"; the exit status is 1 if a test failed.
 *
 * A process per test costs a fork (under a millisecond) and buys isolation:
 * a test that crashes, aborts (an assertion in the test build, a sanitizer
 * report) or runs past WF_TEST_TIMEOUT_S is reported as failed with the
 * signal or status, and the run goes on; an environment variable or other
 * process state one test changes cannot leak into the next. Under
 * LeakSanitizer each test's leaks are found when its process exits, so a
 * leak names its test. --no-fork runs the tests one after another in this
 * process (for a debugger); a crash then ends the run.
 *
 * The outcome of a test travels back through a slot in a shared anonymous
 * mapping (harness_int.h); the parent adds the CPU time of the process
 * (wait4's rusage). --times prints, before the summary line, the K slowest
 * tests (default 15) by CPU time with their NVRTC share and the totals --
 * CPU time rather than wall time, because on a shared machine only CPU time
 * means something.
 */
/* MAP_ANONYMOUS (and wait4) are not POSIX: ask glibc for its defaults. */
#define _DEFAULT_SOURCE
#include "harness_int.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Seconds one test may take (CI allows 10 minutes for everything). */
#define WF_TEST_TIMEOUT_S 480

typedef struct {
    int jobs;
    bool fork;
    int times; /* how many of the slowest to list; 0: none */
    bool list;
    const char *filter;
} run_options;

/* One selected test while the run lasts (parent side). */
typedef struct {
    const test_entry *test;
    test_slot *slot; /* shared */
    pid_t pid;       /* 0: not started or reaped */
    FILE *out;       /* its captured output */
    double cpu;      /* user + system seconds of its process */
    char crash[96];  /* why its process ended abnormally; "" if it did not */
    bool done;
} run_item;

static int usage(const char *argv0) {
    fprintf(stderr, "usage: %s [-j N] [--no-fork] [--times[=K]] [-l] [FILTER]\n", argv0);
    return 2;
}

static int default_jobs(void) {
    const char *env = getenv("WF_TEST_JOBS");
    long n = env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

static bool parse_args(int argc, char **argv, run_options *o) {
    *o = (run_options){default_jobs(), true, 0, false, NULL};
    if (getenv("WF_TEST_TIMES"))
        o->times = 15;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-j") == 0 && i + 1 < argc)
            o->jobs = atoi(argv[++i]);
        else if (strncmp(a, "-j", 2) == 0 && a[2])
            o->jobs = atoi(a + 2);
        else if (strcmp(a, "--no-fork") == 0)
            o->fork = false;
        else if (strcmp(a, "--times") == 0)
            o->times = 15;
        else if (strncmp(a, "--times=", 8) == 0)
            o->times = atoi(a + 8);
        else if (strcmp(a, "-l") == 0)
            o->list = true;
        else if (a[0] == '-' || o->filter)
            return false;
        else
            o->filter = a;
    }
    return o->jobs >= 1 && o->times >= 0;
}

/* ---- running one test (in whichever process runs it) ---- */

static void run_body(const test_entry *t, test_slot *slot) {
    test_state ts = {0};
    harness_set_current(slot);
    double t0 = harness_now();
    t->fn(&ts);
    slot->seconds = harness_now() - t0;
    harness_set_current(NULL);
    slot->result = ts.failed ? RES_FAIL : ts.skipped ? RES_SKIP : RES_PASS;
    if (slot->result == RES_SKIP)
        snprintf(slot->reason, sizeof slot->reason, "%s", ts.skip_reason);
}

/* The child: output to the item's file, a time limit, the body, and exit()
   (not _exit) so that LeakSanitizer checks this test's process. */
static void child_main(run_item *it) {
    int fd = fileno(it->out);
    if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
        _exit(125);
    alarm(WF_TEST_TIMEOUT_S);
    run_body(it->test, it->slot);
    fflush(NULL);
    exit(0);
}

static bool start(run_item *it) {
    it->out = tmpfile();
    if (!it->out)
        return false;
    fflush(NULL); /* the child must not inherit (and print again) buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        fclose(it->out);
        it->out = NULL;
        return false;
    }
    if (pid == 0)
        child_main(it);
    it->pid = pid;
    return true;
}

/* How the process ended, for an item whose process did not report. */
static void describe_end(run_item *it, int status) {
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(it->crash, sizeof it->crash, "timed out after %d s", WF_TEST_TIMEOUT_S);
    else if (WIFSIGNALED(status))
        snprintf(it->crash, sizeof it->crash, "crashed: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        snprintf(it->crash, sizeof it->crash, "its process exited with status %d",
                 WEXITSTATUS(status));
    else if (it->slot->result == RES_PENDING)
        snprintf(it->crash, sizeof it->crash, "its process ended without a result");
}

/* Wait for a child and mark its item done; returns how many running items
   ended (0 for a stray child; all of them if waiting fails). */
static int reap(run_item *items, int n) {
    int status;
    struct rusage ru;
    pid_t pid;
    do
        pid = wait4(-1, &status, 0, &ru);
    while (pid < 0 && errno == EINTR);
    int ended = 0;
    for (int i = 0; i < n; i++) {
        if (!items[i].pid || (pid >= 0 && items[i].pid != pid))
            continue;
        items[i].pid = 0;
        items[i].done = true;
        ended++;
        if (pid < 0) {
            snprintf(items[i].crash, sizeof items[i].crash, "lost its process: %s",
                     strerror(errno));
            continue;
        }
        items[i].cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
        describe_end(&items[i], status);
    }
    return ended;
}

/* ---- reporting ---- */

typedef struct {
    int passed, failed, skipped;
} tally;

static void copy_output(FILE *out) {
    char buf[8192];
    size_t got;
    rewind(out);
    while ((got = fread(buf, 1, sizeof buf, out)) > 0)
        fwrite(buf, 1, got, stdout);
    fclose(out);
}

static void report(run_item *it, tally *t) {
    if (it->out)
        copy_output(it->out);
    it->out = NULL;
    if (it->crash[0]) {
        printf("[FAIL] %s (%s)\n", it->test->name, it->crash);
        t->failed++;
    } else if (it->slot->result == RES_FAIL) {
        printf("[FAIL] %s\n", it->test->name);
        t->failed++;
    } else if (it->slot->result == RES_SKIP) {
        printf("[SKIP] %s (%s)\n", it->test->name, it->slot->reason);
        t->skipped++;
    } else {
        printf("[PASS] %s\n", it->test->name);
        t->passed++;
    }
    fflush(stdout);
}

static int by_cpu_desc(const void *a, const void *b) {
    const run_item *x = *(run_item *const *)a, *y = *(run_item *const *)b;
    return x->cpu < y->cpu ? 1 : x->cpu > y->cpu ? -1 : 0;
}

static void print_times(run_item *items, int n, int top, double wall) {
    run_item **order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order)
        return;
    double cpu = 0, nv = 0;
    long calls = 0, hits = 0;
    for (int i = 0; i < n; i++) {
        order[i] = &items[i];
        cpu += items[i].cpu;
        nv += items[i].slot->nvrtc_seconds;
        calls += items[i].slot->nvrtc_calls;
        hits += items[i].slot->nvrtc_hits;
    }
    qsort(order, (size_t)n, sizeof *order, by_cpu_desc);
    printf("-- times: cpu s, wall s, nvrtc cpu s, nvrtc compiles (+ cache hits)\n");
    for (int i = 0; i < n && i < top; i++)
        printf("%8.2f %8.2f %8.2f %5d (+%d) %s\n", order[i]->cpu, order[i]->slot->seconds,
               order[i]->slot->nvrtc_seconds,
               order[i]->slot->nvrtc_calls - order[i]->slot->nvrtc_hits, order[i]->slot->nvrtc_hits,
               order[i]->test->name);
    printf("-- %d tests: %.1f s cpu, %.1f s in NVRTC, %ld compiles + %ld cache hits, %.1f s wall\n",
           n, cpu, nv, calls - hits, hits, wall);
    free(order);
}

/* ---- the two ways to run ---- */

static void launch_next(run_item *it, int *running) {
    if (start(it)) {
        (*running)++;
        return;
    }
    snprintf(it->crash, sizeof it->crash, "could not start its process: %s", strerror(errno));
    it->done = true;
}

static void run_forked(run_item *items, int n, int jobs, tally *t) {
    int next = 0, printed = 0, running = 0;
    while (printed < n) {
        while (running < jobs && next < n)
            launch_next(&items[next++], &running);
        if (running > 0)
            running -= reap(items, n);
        while (printed < n && items[printed].done)
            report(&items[printed++], t);
    }
}

static void run_inline(run_item *items, int n, tally *t) {
    alarm(WF_TEST_TIMEOUT_S);
    for (int i = 0; i < n; i++) {
        struct rusage a, b;
        getrusage(RUSAGE_SELF, &a);
        run_body(items[i].test, items[i].slot);
        getrusage(RUSAGE_SELF, &b);
        items[i].cpu = (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec) +
                       (double)(b.ru_utime.tv_usec - a.ru_utime.tv_usec) * 1e-6 +
                       (double)(b.ru_stime.tv_sec - a.ru_stime.tv_sec) +
                       (double)(b.ru_stime.tv_usec - a.ru_stime.tv_usec) * 1e-6;
        report(&items[i], t);
    }
}

/* The selected tests, each with a zeroed slot in one shared mapping. */
static run_item *select_tests(const run_options *o, int *nsel) {
    int n;
    const test_entry *all = harness_tests(&n);
    if (n < 0)
        return NULL;
    run_item *items = calloc((size_t)n + 1, sizeof *items);
    test_slot *slots = mmap(NULL, ((size_t)n + 1) * sizeof *slots, PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!items || slots == MAP_FAILED) {
        free(items);
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!o->filter || strstr(all[i].name, o->filter))
            items[k] = (run_item){.test = &all[i], .slot = &slots[k]}, k++;
    *nsel = k;
    return items;
}

int main(int argc, char **argv) {
    /* Started with SIGCHLD ignored, the children would be reaped by the
       kernel and waitpid could not see how a test ended. */
    signal(SIGCHLD, SIG_DFL);
    run_options o;
    if (!parse_args(argc, argv, &o))
        return usage(argv[0]);
    int n;
    run_item *items = select_tests(&o, &n);
    if (!items) {
        fprintf(stderr, "runner: out of memory registering the tests\n");
        return 1;
    }
    if (o.list) {
        for (int i = 0; i < n; i++)
            printf("%s\n", items[i].test->name);
        return 0;
    }
    harness_nvrtc_cache_init();
    /* Not with WF_TEST_GPU: a process that touched the CUDA driver before fork()
       leaves its children without a usable device. */
    const char *gpu = getenv("WF_TEST_GPU");
    if (o.fork && !getenv("WF_TEST_NO_WARM") && !(gpu && strcmp(gpu, "0")))
        harness_nvrtc_warm();
    tally t = {0};
    double t0 = harness_now();
    if (o.fork)
        run_forked(items, n, o.jobs, &t);
    else
        run_inline(items, n, &t);
    if (o.times)
        print_times(items, n, o.times, harness_now() - t0);
    printf("%d passed, %d failed, %d skipped\n", t.passed, t.failed, t.skipped);
    free(items);
    return t.failed ? 1 : 0;
}
