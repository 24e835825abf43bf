/*
 * test_launch_buffers.c -- binding buffers to a kernel (runtime/launch.c):
 * zero-sized dims are an empty run that succeeds, negative extents and
 * strides are refused naming the buffer and dim, sizes that overflow 64 bits
 * are refused, buffer ranks beyond WF_MAX_RANK are refused, and a fusion
 * with more parameters than any fixed array held (20 inputs) runs exactly.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"

/* out = neg(in), in symbolic [-1, -1], axis 1 on TIDx and axis 0 on BIDx. */
static wf_kernel *neg_2d(wf_fusion **f) {
    int64_t shape[2] = {-1, -1};
    *f = wf_fusion_new();
    wf_tv *out = wf_unary(WF_NEG, wf_input(*f, WF_F32, 2, shape));
    wf_output(*f, out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    return wf_compile(*f, NULL);
}

static wf_buffer buf2(void *data, int64_t s0, int64_t s1) {
    wf_buffer b;
    memset(&b, 0, sizeof b);
    b.data = data;
    b.dtype = WF_F32;
    b.ndim = 2;
    b.shape[0] = s0;
    b.shape[1] = s1;
    b.device = -1;
    return b;
}

/* The executor and, where no device is needed (a refusal in rt_bind, or an
   empty run), the CUDA path give the same status and message. */
static void check_both(test_state *ts_, wf_kernel *k, const wf_buffer *in, wf_buffer *out,
                       wf_status status, const char *msg, bool cuda) {
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 1, out, 1), status);
    CHECK_STR(wf_last_run_error(k), msg);
    if (!cuda)
        return;
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_CUDA, in, 1, out, 1), status);
    CHECK_STR(wf_last_run_error(k), msg);
}

#define check_run(ts, k, in, out, status, msg) check_both(ts, k, in, out, status, msg, true)

/* A 0 x 5 tensor: nothing to compute, the run succeeds (it used to fail with
   a message about the grid). */
TEST(launch_zero_sized_buffer_is_an_empty_run) {
    wf_fusion *f;
    wf_kernel *k = neg_2d(&f);
    CHECK(k != NULL);
    if (k) {
        float dummy[1] = {7};
        wf_buffer in = buf2(dummy, 0, 5), out = buf2(dummy, 0, 5);
        check_run(TS, k, &in, &out, WF_OK, "");
        CHECK(dummy[0] == 7);
        wf_buffer nin = buf2(NULL, 3, 0), nout = buf2(NULL, 3, 0); /* no data needed */
        check_run(TS, k, &nin, &nout, WF_OK, "");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(launch_negative_extent_names_the_buffer_and_dim) {
    wf_fusion *f;
    wf_kernel *k = neg_2d(&f);
    CHECK(k != NULL);
    if (k) {
        float data[8] = {0};
        wf_buffer in = buf2(data, 2, -3), out = buf2(data, 2, 4);
        check_run(TS, k, &in, &out, WF_ERR_ARG,
                  "input 0: dim 1 of the buffer (for T0) has the negative extent -3; an extent "
                  "must be 0 or more");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* A non-contiguous input given a negative stride: refused at bind time. */
TEST(launch_negative_stride_is_refused_at_bind_time) {
    int64_t shape[2] = {-1, -1};
    int8_t contig[2] = {0, 1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *out = wf_set(wf_input_strided(f, WF_F32, 2, shape, contig));
    wf_output(f, out);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        float data[8] = {0}, res[8];
        wf_buffer in = buf2(data + 4, 2, 4), o = buf2(res, 2, 4);
        in.strides[0] = -4;
        in.strides[1] = 1;
        check_run(TS, k, &in, &o, WF_ERR_ARG,
                  "input 0: dim 0 of the buffer (for T0) has the negative stride -4; weft needs "
                  "strides of 0 or more: copy the data into a buffer with positive strides");
        in.strides[0] = 4; /* the same data the right way round runs */
        in.data = data;
        check_both(TS, k, &in, &o, WF_OK, "", false);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* 2^62 x 4 floats: the element count and the byte span overflow int64. */
TEST(launch_buffer_size_overflow_is_refused) {
    wf_fusion *f;
    wf_kernel *k = neg_2d(&f);
    CHECK(k != NULL);
    if (k) {
        float data[4] = {0};
        wf_buffer in = buf2(data, (int64_t)1 << 62, 4), out = buf2(data, 2, 2);
        check_run(TS, k, &in, &out, WF_ERR_ARG,
                  "input 0: the buffer (for T0) spans more than 2^63 bytes: its shape or strides "
                  "are too large");
        in = buf2(data, 3, 2);
        in.strides[0] = INT64_MAX / 2;
        in.strides[1] = 1;
        check_run(TS, k, &in, &out, WF_ERR_ARG,
                  "input 0: the buffer (for T0) spans more than 2^63 bytes: its shape or strides "
                  "are too large");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(launch_buffer_rank_above_wf_max_rank_is_refused) {
    wf_fusion *f;
    wf_kernel *k = neg_2d(&f);
    CHECK(k != NULL);
    if (k) {
        float data[4] = {0};
        wf_buffer in = buf2(data, 2, 2), out = buf2(data, 2, 2);
        in.ndim = WF_MAX_RANK + 1;
        check_run(TS, k, &in, &out, WF_ERR_ARG,
                  "input 0: the buffer has rank 9, but a wf_buffer has 0 to WF_MAX_RANK = 8 dims "
                  "(T0 has 2)");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* 20 inputs summed: the executor's per-parameter arrays held 16. */
TEST(launch_twenty_inputs_run_exactly) {
    enum { N = 20, LEN = 64 };
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
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        static float data[N][LEN], res[LEN];
        wf_buffer in[N], out;
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < LEN; j++)
                data[i][j] = (float)(i * 2 + (j % 3)); /* small integers: exact sums */
            memset(&in[i], 0, sizeof in[i]);
            in[i] = (wf_buffer){data[i], WF_F32, 1, {LEN}, {0}, -1};
        }
        out = (wf_buffer){res, WF_F32, 1, {LEN}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, N, &out, 1), WF_OK);
        for (int j = 0; j < LEN; j++)
            CHECK_EQ_I64((int64_t)res[j], N * (N - 1) + N * (j % 3));
        CHECK_NVRTC(k, 90);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
