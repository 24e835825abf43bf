/*
 * main.c -- the runner of the GPU test program: runs every registered test
 * (or those whose names contain one of the arguments, less those whose
 * names contain an argument given as -NAME) and prints one line per test
 * and "N passed, N failed, N skipped" last; exits non-zero if any failed.
 * Each test's name is printed ("[RUN ] name") before it starts, so that a
 * run stopped by a timeout (a kernel that hangs) names the test.
 *
 * Before the tests it points WF_CACHE_DIR at a fresh temporary directory,
 * so the program neither reads nor fills the user's kernel cache, and asks
 * whether a GPU is usable: wf_cuda_available(), then one real wf_run whose
 * error message becomes the skip reason of every test that needs the GPU.
 * "--child NAME" runs one child routine instead (tests that need a fresh
 * process, such as a kernel fault, start the program again that way).
 */
#include "gpu.h"

#include <stdlib.h>
#include <unistd.h>

typedef struct {
    const char *name;
    gt_fn fn;
} gt_entry;

static gt_entry *tests; /* grows: a table with a fixed size dropped tests past it */
static int ntests, cap;
static bool have_gpu;
static char no_gpu_reason[512];
static char self_path[4096];
static char cache_dir[] = "/tmp/weft-gpu-test-XXXXXX";

void gt_register(const char *name, gt_fn fn) {
    if (ntests == cap) {
        cap = cap ? 2 * cap : 128;
        tests = realloc(tests, sizeof tests[0] * (size_t)cap);
        if (!tests) {
            fprintf(stderr, "gpu_tests: out of memory registering %s\n", name);
            exit(1);
        }
    }
    tests[ntests++] = (gt_entry){name, fn};
}

bool gt_have_gpu(void) {
    return have_gpu;
}

const char *gt_no_gpu_reason(void) {
    return no_gpu_reason;
}

const char *gt_self(void) {
    return self_path;
}

/* Where the driver finds no GPU, what a real run says is missing (the skip
   reason). Where it finds one, every test runs: a failing run then is a
   failure, never a skip. */
static void probe_gpu(void) {
    int64_t shape[1] = {4};
    float a[4] = {1, 2, 3, 4}, b[4];
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_set(wf_input(f, WF_F32, 1, shape)));
    wf_kernel *k = wf_compile(f, NULL);
    wf_buffer in = {a, WF_F32, 1, {4}, {0}, -1}, out = {b, WF_F32, 1, {4}, {0}, -1};
    wf_status s = k ? wf_run(k, WF_BACKEND_CUDA, &in, 1, &out, 1) : WF_ERR_ARG;
    have_gpu = wf_cuda_available();
    if (!have_gpu)
        snprintf(no_gpu_reason, sizeof no_gpu_reason, "no GPU: %s: %.400s", wf_status_name(s),
                 k ? wf_last_run_error(k) : wf_fusion_error(f));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

static void remove_cache_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_dir);
}

/* Not those whose names contain an excluding filter (-NAME); with no other
   filter every other test runs, else those whose names contain one. */
static bool selected(const char *name, int nfilters, char **filters) {
    bool any = false, hit = false;
    for (int i = 0; i < nfilters; i++) {
        if (filters[i][0] == '-') {
            if (filters[i][1] && strstr(name, filters[i] + 1))
                return false;
            continue;
        }
        any = true;
        hit |= strstr(name, filters[i]) != NULL;
    }
    return hit || !any;
}

static int run_tests(int nfilters, char **filters) {
    int passed = 0, failed = 0, skipped = 0;
    for (int i = 0; i < ntests; i++) {
        if (!selected(tests[i].name, nfilters, filters))
            continue;
        gt_state ts = {0};
        printf("[RUN ] %s\n", tests[i].name);
        fflush(stdout);
        tests[i].fn(&ts);
        if (ts.failed) {
            printf("[FAIL] %s\n", tests[i].name);
            failed++;
        } else if (ts.skipped) {
            printf("[SKIP] %s (%s)\n", tests[i].name, ts.skip_reason);
            skipped++;
        } else {
            printf("[PASS] %s\n", tests[i].name);
            passed++;
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}

int main(int argc, char **argv) {
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    self_path[n > 0 ? n : 0] = '\0';
    if (argc > 2 && strcmp(argv[1], "--child") == 0)
        return gt_child(argv[2]);
    if (!mkdtemp(cache_dir) || setenv("WF_CACHE_DIR", cache_dir, 1) != 0) {
        printf("cannot make a temporary cache directory\n");
        return 1;
    }
    probe_gpu();
    int rc = run_tests(argc - 1, argv + 1);
    remove_cache_dir();
    return rc;
}
