/*
 * auto.c -- automatically scheduled kernels (wf_schedule_auto, no hand
 * schedule) at the large and odd shapes: add, softmax, layer norm,
 * inner and outer sums, transpose. Each kernel is timed with wf_time (median
 * of back-to-back launches between CUDA events) on device buffers holding a
 * random 64 MiB chunk repeated, and checked against a double host reference
 * on sampled rows / columns. Prints the scheduler's summary, then
 * "RESULT auto <what>: <us> us <GB/s>" (bytes = what the kernel must read
 * and write once) and the ratio to a device-to-device copy of the input.
 */
#include "bench.h"

#include <math.h>

enum { WARMUP = 3, REPS = 20 };

typedef enum { ADD, SOFTMAX, LAYERNORM, SUM_INNER, SUM_OUTER, TRANSPOSE } workload;

static const char *const names[] = {"add",       "softmax",   "layernorm",
                                    "sum-inner", "sum-outer", "transpose"};
static float *chunk[3];
static const size_t NCHUNK = BENCH_CHUNK / sizeof(float);

static double in_at(int which, int64_t i) {
    return chunk[which][(size_t)i % NCHUNK];
}

static wf_tv *bc(wf_tv *t, bool first) {
    bool b[2] = {first, !first};
    return wf_broadcast(t, 2, b);
}

static wf_fusion *build(workload w, int64_t rows, int64_t cols) {
    int64_t shape[2] = {rows, cols}, wshape[1] = {cols}, flat[1] = {rows * cols};
    int ax1 = 1, ax0 = 0;
    wf_fusion *f = wf_fusion_new();
    if (w == ADD) {
        wf_tv *a = wf_input(f, WF_F32, 1, flat), *b = wf_input(f, WF_F32, 1, flat);
        wf_output(f, wf_add(a, b));
        return f;
    }
    wf_tv *x = wf_input(f, WF_F32, 2, shape);
    if (w == SOFTMAX) {
        wf_tv *e = wf_unary(WF_EXP, wf_sub(x, bc(wf_max(x, 1, &ax1), false)));
        wf_output(f, wf_div(e, bc(wf_sum(e, 1, &ax1), false)));
    } else if (w == LAYERNORM) {
        wf_tv *wt = wf_input(f, WF_F32, 1, wshape), *bs = wf_input(f, WF_F32, 1, wshape);
        wf_tv *inv = wf_full(f, WF_F32, 1.0 / (double)cols);
        wf_tv *d = wf_sub(x, bc(wf_mul(wf_sum(x, 1, &ax1), inv), false));
        wf_tv *var = wf_mul(wf_sum(wf_mul(d, d), 1, &ax1), inv);
        wf_tv *y = wf_mul(d, bc(wf_unary(WF_RSQRT, wf_add(var, wf_full(f, WF_F32, 1e-5))), false));
        wf_output(f, wf_add(wf_mul(y, bc(wt, true)), bc(bs, true)));
    } else if (w == SUM_INNER) {
        wf_output(f, wf_sum(x, 1, &ax1));
    } else if (w == SUM_OUTER) {
        wf_output(f, wf_sum(x, 1, &ax0));
    } else {
        wf_output(f, wf_transpose(x, 0, 1));
    }
    return f;
}

/* Reference of row r (softmax, layer norm) into ref[cols]. */
static void row_ref(workload w, int64_t r, int64_t cols, double *ref) {
    double m = -INFINITY, s = 0, mean = 0, var = 0;
    for (int64_t c = 0; c < cols; c++) {
        double v = in_at(0, r * cols + c);
        m = v > m ? v : m;
        mean += v;
    }
    mean /= (double)cols;
    for (int64_t c = 0; c < cols; c++) {
        double v = in_at(0, r * cols + c);
        s += exp(v - m);
        var += (v - mean) * (v - mean);
    }
    var /= (double)cols;
    for (int64_t c = 0; c < cols; c++) {
        double v = in_at(0, r * cols + c);
        ref[c] = w == SOFTMAX ? exp(v - m) / s
                              : (v - mean) / sqrt(var + 1e-5) * in_at(1, c) + in_at(2, c);
    }
}

static int check(workload w, const float *out, int64_t rows, int64_t cols) {
    double *ref = malloc(sizeof(double) * (size_t)(cols > rows ? cols : rows));
    int64_t samples[3] = {0, rows / 2, rows - 1};
    int ok = ref != NULL;
    for (int k = 0; ok && k < 3; k++) {
        int64_t r = samples[k];
        if (w == ADD) {
            for (int64_t i = r; ok && i < r + 4096 && i < rows * cols; i++)
                ok = out[i] == (float)(in_at(0, i)) + (float)(in_at(1, i));
        } else if (w == SOFTMAX || w == LAYERNORM) {
            row_ref(w, r, cols, ref);
            for (int64_t c = 0; ok && c < cols; c++)
                ok = fabs(out[r * cols + c] - ref[c]) <= 1e-4 * (1 + fabs(ref[c]));
        } else if (w == SUM_INNER) {
            double s = 0, mag = 0;
            for (int64_t c = 0; c < cols; c++)
                s += in_at(0, r * cols + c), mag += fabs(in_at(0, r * cols + c));
            ok = fabs(out[r] - s) <= 1e-5 * mag + 1e-6;
        } else if (w == SUM_OUTER) {
            int64_t c = samples[k] * cols / rows;
            double s = 0, mag = 0;
            for (int64_t i = 0; i < rows; i++)
                s += in_at(0, i * cols + c), mag += fabs(in_at(0, i * cols + c));
            ok = fabs(out[c] - s) <= 1e-5 * mag + 1e-6;
        } else {
            for (int64_t c = 0; ok && c < cols; c++)
                ok = out[c * rows + r] == (float)in_at(0, r * cols + c);
        }
    }
    free(ref);
    return ok;
}

static void run(workload w, int64_t rows, int64_t cols) {
    wf_fusion *f = build(w, rows, cols);
    wf_auto_info info;
    if (wf_schedule_auto(f, NULL, NULL, &info) != WF_OK)
        bench_die("wf_schedule_auto", wf_fusion_error(f));
    wf_kernel *k = wf_compile(f, NULL);
    if (!k)
        bench_die("wf_compile", wf_fusion_error(f));
    int64_t n = rows * cols;
    size_t bytes = (size_t)n * sizeof(float), alloc = (bytes + BENCH_CHUNK - 1) / BENCH_CHUNK;
    alloc *= BENCH_CHUNK;
    int nin = w == ADD ? 2 : w == LAYERNORM ? 3 : 1;
    void *din[3] = {NULL, NULL, NULL};
    wf_buffer in[3], out;
    memset(in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    for (int i = 0; i < nin; i++) {
        din[i] = bench_device_fill(i == 0 || w == ADD ? alloc : BENCH_CHUNK, chunk[i]);
        in[i].data = din[i];
        in[i].dtype = WF_F32;
        in[i].device = 0;
        in[i].ndim = w == ADD || i > 0 ? 1 : 2;
        in[i].shape[0] = w == ADD ? n : i > 0 ? cols : rows;
        in[i].shape[1] = cols;
    }
    int64_t outn = w == SUM_INNER ? rows : w == SUM_OUTER ? cols : n;
    void *dout = wf_device_alloc((size_t)outn * sizeof(float)), *dcopy = wf_device_alloc(alloc);
    if (!dout || !dcopy)
        bench_die("wf_device_alloc", "out of device memory");
    out.data = dout;
    out.dtype = WF_F32;
    out.device = 0;
    out.ndim = w == SUM_INNER || w == SUM_OUTER || w == ADD ? 1 : 2;
    out.shape[0] = w == TRANSPOSE                   ? cols
                   : outn == cols && w == SUM_OUTER ? cols
                   : w == ADD                       ? n
                                                    : rows;
    out.shape[1] = w == TRANSPOSE ? rows : cols;
    double us = 0, d2d = 0;
    if (wf_time(k, in, nin, &out, 1, WARMUP, REPS, &us) != WF_OK)
        bench_die("wf_time", wf_last_run_error(k));
    if (wf_device_memcpy_time(dcopy, din[0], bytes, WARMUP, REPS, &d2d) != WF_OK)
        bench_die("wf_device_memcpy_time", "failed");
    float *host = malloc((size_t)outn * sizeof(float));
    if (!host || wf_device_copy(host, dout, (size_t)outn * sizeof(float)) != WF_OK)
        bench_die("wf_device_copy", "failed");
    if (!check(w, host, rows, cols))
        bench_die(names[w], "WRONG result");
    double moved = (double)bytes * (w == ADD ? 3 : w == SUM_INNER || w == SUM_OUTER ? 1 : 2);
    double gbps = moved / (us * 1e3), copy_gbps = 2.0 * (double)bytes / (d2d * 1e3);
    printf("%s %lldx%lld: %s: %s\n", names[w], (long long)rows, (long long)cols, info.scheduler,
           info.summary);
    printf("RESULT auto %s %lldx%lld: %.1f us %.1f GB/s (%.3f of copy)\n", names[w],
           (long long)rows, (long long)cols, us, gbps, gbps / copy_gbps);
    free(host);
    for (int i = 0; i < nin; i++)
        wf_device_free(din[i]);
    wf_device_free(dout);
    wf_device_free(dcopy);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

int main(void) {
    bench_require_gpu();
    for (int i = 0; i < 3; i++)
        chunk[i] = bench_random_chunk(31 + (uint64_t)i);
    run(ADD, 16384, 16384);
    run(SOFTMAX, 16384, 16384);
    run(SOFTMAX, 4096, 32768);
    run(SOFTMAX, 4096, 3000);
    run(LAYERNORM, 16384, 4096);
    run(LAYERNORM, 16384, 16384);
    run(LAYERNORM, 1000, 1536);
    run(SUM_INNER, 16384, 16384);
    run(SUM_OUTER, 16384, 16384);
    run(TRANSPOSE, 16384, 16384);
    run(TRANSPOSE, 5000, 7000);
    for (int i = 0; i < 3; i++)
        free(chunk[i]);
    return 0;
}
