/*
 * test_runtime.c -- the CUDA runtime's behaviour around the kernels:
 * buffers refused before any launch (wrong dtype, extent, launch limits,
 * launch-time divisibility), what a machine without a GPU says, the AUTO
 * backend, explicit targets, the disk cache rebuilding corrupt entries, a
 * kernel fault reported by its CUDA error name (in a child process, since
 * a fault poisons the context for good), and the timing entry points.
 * The first five need no GPU and run everywhere.
 */
#include "gpu.h"

#include <dirent.h>
#include <stdlib.h>

/* c = a + b over [4] floats, split by 2 on TIDx. */
static void define_small_add(wf_fusion *f) {
    int64_t shape[1] = {4};
    wf_tv *c = wf_add(wf_input(f, WF_F32, 1, shape), wf_input(f, WF_F32, 1, shape));
    wf_output(f, c);
    wf_tv_split(c, 0, 2);
    wf_tv_parallelize(c, 1, WF_TIDX);
}

static wf_kernel *small_add(gt_state *ts_, wf_fusion *f) {
    define_small_add(f);
    return GT_COMPILE(f);
}

static bool all_poison(const float *x, int n) {
    for (int i = 0; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        if (bits != 0xFFFFFFFFu)
            return false;
    }
    return true;
}

/* Run with one bad input buffer (host memory): the status, the exact
   message and an output that nothing touched. */
static void check_refused(gt_state *ts_, wf_buffer bad, wf_status want, const char *msg) {
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    memset(c, 0xFF, sizeof c);
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = small_add(TS, f);
    wf_buffer in[2] = {{a, WF_F32, 1, {4}, {0}, -1}, bad}, out = {c, WF_F32, 1, {4}, {0}, -1};
    in[1].data = b;
    for (int backend = WF_BACKEND_AUTO; k && backend <= WF_BACKEND_CUDA; backend++) {
        CHECK_STATUS(wf_run(k, (wf_backend)backend, in, 2, &out, 1), want, k);
        CHECK_STR(wf_last_run_error(k), msg);
        CHECK(all_poison(c, 4));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(wrong_dtype_is_refused_before_any_launch) {
    wf_buffer bad = {NULL, WF_F16, 1, {4}, {0}, -1};
    check_refused(TS, bad, WF_ERR_ARG, "input 1: the buffer holds half, but T1 is float");
}

GPU_TEST(wrong_extent_is_refused_before_any_launch) {
    wf_buffer bad = {NULL, WF_F32, 1, {5}, {0}, -1};
    check_refused(TS, bad, WF_ERR_ARG, "input 1: dim 0 of the buffer has extent 5, but T1 needs 4");
}

/* A grid beyond CUDA's limits for these sizes: refused before the launch
   with the message the CPU reference executor gives; smaller sizes run.
   (A constant 70000 on BIDy is a compile error.) */
GPU_TEST(grid_beyond_cuda_limits_is_refused) {
    int64_t sym[2] = {-1, 2}, shape[2] = {70000, 2};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 2, sym));
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_BIDY);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    gt_tensor in = gt_dense(WF_F32, 2, shape), out = gt_dense(WF_F32, 2, shape);
    wf_buffer bi = gt_host_buffer(&in), bo = gt_host_buffer(&out);
    const char *msg = "invalid grid: the launch needs 1 x 70000 x 1 blocks; CUDA allows at most "
                      "2147483647 along x and 65535 along y and z (BIDy from T1's axis "
                      "iblockIdx.y2{T0.size[0]}); put the largest axis on BIDx, or split an "
                      "axis over two block dimensions";
    if (k) {
        CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &bi, 1, &bo, 1), WF_ERR_SCHEDULE, k);
        CHECK_STR(wf_last_run_error(k), msg);
        CHECK_STATUS(wf_run(k, WF_BACKEND_INTERP, &bi, 1, &bo, 1), WF_ERR_SCHEDULE, k);
        CHECK_STR(wf_last_run_error(k), msg);
        bi.shape[0] = bo.shape[0] = 65535;
        if (wf_cuda_available())
            CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &bi, 1, &bo, 1), WF_OK, k);
    }
    gt_tensor_free(&in);
    gt_tensor_free(&out);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* 20 tensor parameters: the CUDA runtime's arrays held 16. */
GPU_TEST(twenty_inputs_run_on_the_gpu) {
    enum { N = 20, LEN = 64 };
    NEED_GPU();
    int64_t shape[1] = {LEN};
    wf_fusion *f = wf_fusion_new();
    wf_tv *sum = NULL;
    for (int i = 0; i < N; i++) {
        wf_tv *t = wf_input(f, WF_F32, 1, shape);
        sum = sum ? wf_add(sum, t) : t;
    }
    wf_output(f, sum);
    wf_tv_parallelize(sum, 0, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = GT_COMPILE(f);
    if (k) {
        static float data[N][LEN], res[LEN];
        wf_buffer in[N], out = {res, WF_F32, 1, {LEN}, {0}, -1};
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < LEN; j++)
                data[i][j] = (float)(i * 2 + (j % 3));
            in[i] = (wf_buffer){data[i], WF_F32, 1, {LEN}, {0}, -1};
        }
        CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, in, N, &out, 1), WF_OK, k);
        for (int j = 0; j < LEN; j++)
            CHECK(res[j] == (float)(N * (N - 1) + N * (j % 3)));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A symbolic extent split by a vectorized 4 must be divisible by 4. */
GPU_TEST(vectorized_symbolic_extent_not_divisible_is_refused) {
    int64_t sym[1] = {-1}, n[1] = {10001};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, sym);
    wf_tv *ca = wf_cache_after(a), *b = wf_set(ca);
    wf_output(f, b);
    wf_tv_split(b, 0, 4);
    wf_propagate_transforms(b);
    wf_tv_parallelize(b, 0, WF_TIDX);
    wf_parallelize_all_like(b, 0);
    wf_tv_parallelize(ca, 1, WF_VECTORIZE);
    wf_tv_parallelize(b, 1, WF_VECTORIZE);
    wf_inline_most(f);
    wf_kernel *k = GT_COMPILE(f);
    gt_tensor in = gt_dense(WF_F32, 1, n), out = gt_dense(WF_F32, 1, n);
    wf_buffer bi = gt_host_buffer(&in), bo = gt_host_buffer(&out);
    if (k)
        CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, &bi, 1, &bo, 1), WF_ERR_SCHEDULE, k);
    gt_tensor_free(&in);
    gt_tensor_free(&out);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(wf_time_checks_its_arguments) {
    double us = -1;
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = small_add(TS, f);
    CHECK_EQ_I64(wf_time(k, NULL, 0, NULL, 0, 0, 0, &us), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k),
              "wf_time: need warmup >= 0, reps > 0 and a result pointer (got warmup 0, reps 0, a "
              "result pointer)");
    CHECK_EQ_I64(wf_time(NULL, NULL, 0, NULL, 0, 0, 1, &us), WF_ERR_ARG);
    CHECK_EQ_I64(wf_device_memcpy_time(NULL, NULL, 4, 0, 1, &us), WF_ERR_ARG);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* Without a GPU: WF_ERR_CUDA naming what is missing, from every entry
   point; AUTO falls back to the CPU reference executor. */
GPU_TEST(no_gpu_gives_cuda_error_naming_what_is_missing) {
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    double us;
    if (gt_have_gpu())
        SKIP("a GPU is present");
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = small_add(TS, f);
    wf_buffer in[2] = {{a, WF_F32, 1, {4}, {0}, -1}, {b, WF_F32, 1, {4}, {0}, -1}};
    wf_buffer out = {c, WF_F32, 1, {4}, {0}, -1};
    if (!k)
        return;
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, in, 2, &out, 1), WF_ERR_CUDA, k);
    const char *msg = wf_last_run_error(k);
    CHECK(strncmp(msg, "CUDA driver not found: could not load libcuda (tried libcuda.so.1, ", 67) ==
              0 ||
          strncmp(msg, "no CUDA device: ", 16) == 0);
    CHECK_STATUS(wf_time(k, in, 2, &out, 1, 1, 1, &us), WF_ERR_CUDA, k);
    CHECK(wf_device_alloc(16) == NULL);
    CHECK_EQ_I64(wf_device_copy(c, a, sizeof a), WF_ERR_CUDA);
    CHECK(!wf_cuda_available());
    memset(c, 0xFF, sizeof c);
    CHECK_STATUS(wf_run(k, WF_BACKEND_AUTO, in, 2, &out, 1), WF_OK, k);
    for (int i = 0; i < 4; i++)
        CHECK(c[i] == a[i] + b[i]);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

GPU_TEST(auto_backend_runs_on_the_gpu) {
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    NEED_GPU();
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = small_add(TS, f);
    wf_buffer in[2] = {{a, WF_F32, 1, {4}, {0}, -1}, {b, WF_F32, 1, {4}, {0}, -1}};
    wf_buffer out = {c, WF_F32, 1, {4}, {0}, -1};
    memset(c, 0xFF, sizeof c);
    if (k)
        CHECK_STATUS(wf_run(k, WF_BACKEND_AUTO, in, 2, &out, 1), WF_OK, k);
    for (int i = 0; i < 4; i++)
        CHECK(c[i] == a[i] + b[i]);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* wf_compile_options.sm overrides the device's; an sm_XXa image runs only
   on that SM, so another one is refused before any compile. */
GPU_TEST(explicit_sm_must_match_the_device) {
    float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
    wf_buffer in[2] = {{a, WF_F32, 1, {4}, {0}, -1}, {b, WF_F32, 1, {4}, {0}, -1}};
    wf_buffer out = {c, WF_F32, 1, {4}, {0}, -1};
    NEED_GPU();
    wf_compile_options opt = {.sm = 80};
    int dev_sm = 0;
    wf_fusion *f = wf_fusion_new();
    define_small_add(f);
    wf_kernel *k = gt_compile(TS, f, &opt, __FILE__, __LINE__);
    if (!k)
        return;
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, in, 2, &out, 1), WF_ERR_CUDA, k);
    const char *msg = wf_last_run_error(k), *is = strstr(msg, ") is sm_");
    CHECK_HAS(msg, "the kernel targets sm_80a (wf_compile_options.sm = 80), but device 0 (");
    if (is)
        dev_sm = atoi(is + 8);
    wf_kernel_free(k);
    opt.sm = dev_sm;
    k = dev_sm ? gt_compile(TS, f, &opt, __FILE__, __LINE__) : NULL;
    memset(c, 0xFF, sizeof c);
    if (k)
        CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, in, 2, &out, 1), WF_OK, k);
    for (int i = 0; i < 4; i++)
        CHECK(c[i] == a[i] + b[i]);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- the disk cache ---- */

/* The cache's entries (weft-<hash>.bin); the directory holds every kernel
   the suite compiled so far, so the list grows as needed (it was capped at
   64, and the grown suite's new entry fell past the cap). */
typedef struct {
    char (*names)[64];
    int n, cap;
} dir_list;

static void list_entries(dir_list *l) {
    DIR *d = opendir(getenv("WF_CACHE_DIR"));
    struct dirent *e;
    l->n = 0;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "weft-", 5) != 0 || strlen(e->d_name) >= 64)
            continue;
        if (l->n == l->cap) {
            int cap = l->cap ? 2 * l->cap : 256;
            char(*grown)[64] = realloc(l->names, sizeof *grown * (size_t)cap);
            if (!grown)
                break;
            l->names = grown;
            l->cap = cap;
        }
        memcpy(l->names[l->n++], e->d_name, strlen(e->d_name) + 1);
    }
    if (d)
        closedir(d);
}

static bool listed(const dir_list *l, const char *name) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return true;
    return false;
}

static long read_file(const char *path, char *buf, long cap) {
    FILE *f = fopen(path, "rb");
    long n = f ? (long)fread(buf, 1, (size_t)cap, f) : -1;
    if (f)
        fclose(f);
    return n;
}

static void write_file(const char *path, const char *buf, long n) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(buf, 1, (size_t)n, f);
        fclose(f);
    }
}

/* A fresh kernel of the same fusion (so no CUDA state in memory) runs
   right; its cache entry must then be the original bytes again. */
static void run_fresh(gt_state *ts_, wf_fusion *f, const char *path, const char *orig, long n,
                      const char *what) {
    static char now[1 << 20];
    int64_t shape[1] = {777};
    wf_kernel *k = GT_COMPILE(f);
    gt_tensor in = gt_dense(WF_F32, 1, shape), want = gt_dense(WF_F32, 1, shape);
    gt_fill_random(&in);
    memcpy(want.data, in.data, 777 * sizeof(float));
    gt_case c = {k, 1, 1, &in, &want, GT_EXACT};
    CHECK_RUN(&c);
    if (orig && (read_file(path, now, sizeof now) != n || memcmp(now, orig, (size_t)n) != 0)) {
        printf("  after the %s entry: the cache file was not rebuilt\n", what);
        ts_->failed = true;
    }
    gt_tensor_free(&in);
    gt_tensor_free(&want);
    wf_kernel_free(k);
}

GPU_TEST(disk_cache_rebuilds_corrupt_truncated_and_foreign_entries) {
    static char orig[1 << 20], bad[1 << 20];
    char path[4200];
    dir_list before = {0}, after = {0};
    NEED_GPU();
    int64_t shape[1] = {777};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_split(b, 0, 96);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    list_entries(&before);
    run_fresh(TS, f, NULL, NULL, 0, "first"); /* fills the cache */
    list_entries(&after);
    const char *name = NULL;
    for (int i = 0; i < after.n && !name; i++)
        if (!listed(&before, after.names[i]))
            name = after.names[i];
    CHECK(name != NULL);
    if (!name) {
        wf_fusion_free(f);
        free(before.names);
        free(after.names);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", getenv("WF_CACHE_DIR"), name);
    long n = read_file(path, orig, sizeof orig);
    CHECK(n > 40);
    memcpy(bad, orig, (size_t)n);
    bad[40 + (n - 40) / 2] ^= 0x5a; /* a flipped byte in the image */
    write_file(path, bad, n);
    run_fresh(TS, f, path, orig, n, "corrupt");
    write_file(path, orig, n / 2); /* a truncated entry */
    run_fresh(TS, f, path, orig, n, "truncated");
    memcpy(bad, orig, (size_t)n);
    bad[16] ^= 1; /* another key in the header */
    write_file(path, bad, n);
    run_fresh(TS, f, path, orig, n, "foreign");
    wf_fusion_free(f);
    free(before.names);
    free(after.names);
}

/* ---- a kernel fault, in a child process ---- */

/* Copy from an address no allocation covers; wf_time waits for the
   kernel, so the fault surfaces in it (with WF_CUDA_SYNC=1, wf_run itself
   waits, so the run that faulted reports it). Prints the status and
   message. */
static int child_fault(bool sync) {
    int64_t shape[1] = {1 << 20};
    double us;
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_split(b, 0, 256);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    void *dst = wf_device_alloc(sizeof(float) << 20);
    wf_buffer in = {(void *)(uintptr_t)0x100, WF_F32, 1, {1 << 20}, {0}, 0};
    wf_buffer out = {dst, WF_F32, 1, {1 << 20}, {0}, 0};
    wf_status s = WF_ERR_MEMORY;
    if (k && dst && sync)
        s = wf_run(k, WF_BACKEND_CUDA, &in, 1, &out, 1);
    else if (k && dst)
        s = wf_time(k, &in, 1, &out, 1, 0, 1, &us);
    printf("status %s\nmessage %s\n", wf_status_name(s), k ? wf_last_run_error(k) : "");
    fflush(stdout);
    /* The context is dead: these calls fail, but free the host side. */
    wf_device_free(dst);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return 0;
}

int gt_child(const char *name) {
    if (strcmp(name, "fault") == 0)
        return child_fault(false);
    if (strcmp(name, "fault-sync") == 0)
        return setenv("WF_CUDA_SYNC", "1", 1) == 0 ? child_fault(true) : 2;
    printf("unknown child %s\n", name);
    return 2;
}

/* The output of "self --child name". */
static void run_child(const char *name, char *out, size_t size) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' --child %s 2>&1", gt_self(), name);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(out, 1, size - 1, p) : 0;
    out[n] = '\0';
    if (p)
        pclose(p);
}

GPU_TEST(kernel_fault_is_reported_by_cuda_error_name) {
    char out[4096];
    NEED_GPU();
    run_child("fault", out, sizeof out);
    CHECK_HAS(out, "status WF_ERR_CUDA");
    CHECK_HAS(out, "message cuEventSynchronize(ev[1]) failed: CUDA_ERROR_ILLEGAL_ADDRESS (700: ");
    run_child("fault-sync", out, sizeof out);
    CHECK_HAS(out, "status WF_ERR_CUDA");
    CHECK_HAS(out, "message cuCtxSynchronize() failed: CUDA_ERROR_ILLEGAL_ADDRESS (700: ");
}

/* ---- timing ---- */

GPU_TEST(wf_time_and_memcpy_time_give_plausible_medians) {
    size_t bytes = 64u << 20;
    double kus = 0, cus = 0;
    NEED_GPU();
    int64_t shape[1] = {16 << 20};
    wf_fusion *f = wf_fusion_new();
    wf_tv *b = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, b);
    wf_tv_split(b, 0, 256);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = GT_COMPILE(f);
    void *x = wf_device_alloc(bytes), *y = wf_device_alloc(bytes);
    wf_buffer in = {x, WF_F32, 1, {16 << 20}, {0}, 0}, out = {y, WF_F32, 1, {16 << 20}, {0}, 0};
    CHECK(x && y);
    if (k && x && y) {
        CHECK_STATUS(wf_time(k, &in, 1, &out, 1, 2, 5, &kus), WF_OK, k);
        CHECK_EQ_I64(wf_device_memcpy_time(y, x, bytes, 2, 5, &cus), WF_OK);
        /* 128 MB moved: more than 10 us even at 10 TB/s, less than 100 ms. */
        CHECK(kus > 10 && kus < 100000);
        CHECK(cus > 10 && cus < 100000);
        printf("  copy kernel %.1f us, device-to-device copy %.1f us\n", kus, cus);
    }
    wf_device_free(x);
    wf_device_free(y);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- the fast path: a run with the last run's device buffers ---- */

/* c = a + b over a run-time n, split by 128 on BIDx / TIDx. */
static wf_kernel *symbolic_add(gt_state *ts_, wf_fusion *f) {
    int64_t sym[1] = {-1};
    wf_tv *c = wf_add(wf_input(f, WF_F32, 1, sym), wf_input(f, WF_F32, 1, sym));
    wf_output(f, c);
    wf_tv_split(c, 0, 128);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    return GT_COMPILE(f);
}

typedef struct {
    int n;
    float *a, *b, *c; /* host */
    void *da, *db, *dc;
    wf_buffer in[2], out;
} add_set;

static void add_set_new(add_set *s, int n, float seed) {
    s->n = n;
    s->a = malloc(sizeof(float) * (size_t)n);
    s->b = malloc(sizeof(float) * (size_t)n);
    s->c = malloc(sizeof(float) * (size_t)n);
    s->da = wf_device_alloc(sizeof(float) * (size_t)n);
    s->db = wf_device_alloc(sizeof(float) * (size_t)n);
    s->dc = wf_device_alloc(sizeof(float) * (size_t)n);
    for (int i = 0; i < n; i++) {
        s->a[i] = seed + (float)i;
        s->b[i] = 0.5f * (float)(i % 7);
    }
    wf_device_copy(s->da, s->a, sizeof(float) * (size_t)n);
    wf_device_copy(s->db, s->b, sizeof(float) * (size_t)n);
    wf_buffer a = {s->da, WF_F32, 1, {n}, {0}, 0}, b = a, c = a;
    b.data = s->db;
    c.data = s->dc;
    s->in[0] = a;
    s->in[1] = b;
    s->out = c;
}

/* Run on s's buffers and compare every element with a + b. */
static void add_run_check(gt_state *ts_, wf_kernel *k, add_set *s) {
    CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, s->in, 2, &s->out, 1), WF_OK, k);
    CHECK_EQ_I64(wf_device_copy(s->c, s->dc, sizeof(float) * (size_t)s->n), WF_OK);
    int bad = 0;
    for (int i = 0; i < s->n; i++)
        bad += s->c[i] != s->a[i] + s->b[i];
    CHECK_EQ_I64(bad, 0);
}

static void add_set_free(add_set *s) {
    free(s->a);
    free(s->b);
    free(s->c);
    wf_device_free(s->da);
    wf_device_free(s->db);
    wf_device_free(s->dc);
}

/* The same buffers launch at once; new contents, other buffers and sizes, a
   wf_time in between (it packs other arguments), a refused run: each result
   exact, each refusal given again on the next call. */
GPU_TEST(runs_with_the_last_buffers_reuse_the_binding_exactly) {
    NEED_GPU();
    wf_fusion *f = wf_fusion_new();
    wf_kernel *k = symbolic_add(TS, f);
    add_set s1, s2;
    add_set_new(&s1, 1000, 1.0f);
    add_set_new(&s2, 300, -40.0f);
    if (k && s1.da && s2.da) {
        add_run_check(TS, k, &s1);
        add_run_check(TS, k, &s1); /* the fast path */
        for (int i = 0; i < s1.n; i++)
            s1.a[i] = 3.0f * (float)i;
        wf_device_copy(s1.da, s1.a, sizeof(float) * (size_t)s1.n);
        add_run_check(TS, k, &s1); /* new contents, same buffers */
        add_run_check(TS, k, &s2); /* other buffers, another grid */
        add_run_check(TS, k, &s1);
        double us = 0;
        CHECK_STATUS(wf_time(k, s2.in, 2, &s2.out, 1, 1, 2, &us), WF_OK, k);
        add_run_check(TS, k, &s1); /* after wf_time packed s2's arguments */
        wf_buffer wrong = s1.out;
        wrong.shape[0] = 999;
        for (int rep = 0; rep < 2; rep++) {
            CHECK_STATUS(wf_run(k, WF_BACKEND_CUDA, s1.in, 2, &wrong, 1), WF_ERR_ARG, k);
            CHECK_STR(wf_last_run_error(k),
                      "output 0: dim 0 of the buffer has extent 999, but T2 needs 1000");
        }
        add_run_check(TS, k, &s1);
    }
    add_set_free(&s1);
    add_set_free(&s2);
    wf_kernel_free(k);
    wf_fusion_free(f);
}
