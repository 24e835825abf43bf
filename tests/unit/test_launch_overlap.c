/*
 * test_launch_overlap.c -- buffers that share memory (runtime/launch.c,
 * lower/inplace.c): an output overlapping an input is refused naming both,
 * unless it is the same array and lowering proved the pair safe in place
 * (elementwise, each thread reads the cell it then writes); a partial
 * overlap, and two outputs sharing memory, are always refused. Before, an
 * in-place transpose returned WF_OK with 6 of 16 elements wrong.
 */
#include <stdint.h>
#include <string.h>

#include "fixtures.h"
#include "harness.h"

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

static void iota(float *x, int n, float from) {
    for (int i = 0; i < n; i++)
        x[i] = from + (float)i;
}

/* The refusal comes from binding (before any device is needed): both
   backends give the same status and message, once, and the data is kept. */
static void check_refused(test_state *ts_, wf_kernel *k, const wf_buffer *in, int nin,
                          wf_buffer *out, int nout, const char *msg) {
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, nin, out, nout), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), msg);
    CHECK_EQ_I64(wf_run(k, WF_BACKEND_CUDA, in, nin, out, nout), WF_ERR_ARG);
    CHECK_STR(wf_last_run_error(k), msg);
}

/* out = transpose(in), 4 x 4: every thread reads a cell another one writes. */
TEST(run_in_place_transpose_is_refused) {
    int64_t shape[2] = {4, 4};
    wf_fusion *f = wf_fusion_new();
    wf_output(f, wf_transpose(wf_input(f, WF_F32, 2, shape), 0, 1));
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        float x[16];
        iota(x, 16, 0);
        wf_buffer b = buf2(x, 4, 4);
        check_refused(TS, k, &b, 1, &b, 1,
                      "output 0 (T1) overlaps input 0 (T0): they are the same buffer, and weft "
                      "cannot prove that the kernel reads each element of T0 only in the thread "
                      "that then writes that element of T1 (an elementwise kernel with the same "
                      "indexing); a kernel reads its inputs while it writes its outputs: pass a "
                      "separate output buffer");
        for (int i = 0; i < 16; i++)
            CHECK(x[i] == (float)i);
        /* a separate output buffer transposes */
        float y[16];
        wf_buffer o = buf2(y, 4, 4);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &b, 1, &o, 1), WF_OK);
        for (int i = 0; i < 16; i++)
            CHECK(y[i] == (float)(i % 4 * 4 + i / 4));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The tiled transpose through shared memory: its writes are elementwise in
   their own indexing, but the input is read by the tile's load. */
TEST(run_in_place_tiled_transpose_is_refused) {
    wf_fusion *f = fx_tiled_transpose(64, 64, FX_PLAIN, NULL);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        static float x[64 * 64];
        iota(x, 64 * 64, 0);
        wf_buffer b = buf2(x, 64, 64);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &b, 1, &b, 1), WF_ERR_ARG);
        CHECK_HAS(wf_last_run_error(k), "overlaps input 0 (T0): they are the same buffer");
        CHECK(x[1] == 1 && x[64] == 64);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* out = relu(in), symbolic [-1, -1], axis 1 on TIDx and axis 0 on BIDx. */
static wf_kernel *relu_2d(wf_fusion **f, const int8_t *contig) {
    int64_t shape[2] = {-1, -1};
    *f = wf_fusion_new();
    wf_tv *out = wf_unary(WF_RELU, wf_input_strided(*f, WF_F32, 2, shape, contig));
    wf_output(*f, out);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    return wf_compile(*f, NULL);
}

TEST(run_in_place_elementwise_is_accepted_and_exact) {
    static const int8_t strided[2] = {0, 1};
    for (int v = 0; v < 2; v++) { /* the input declared contiguous, then with a stride */
        wf_fusion *f;
        wf_kernel *k = relu_2d(&f, v ? strided : NULL);
        CHECK(k != NULL);
        if (k) {
            float x[15];
            iota(x, 15, -7);
            wf_buffer b = buf2(x, 3, 5);
            CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &b, 1, &b, 1), WF_OK);
            CHECK_STR(wf_last_run_error(k), "");
            for (int i = 0; i < 15; i++)
                CHECK(x[i] == (i < 7 ? 0.0f : (float)(i - 7)));
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
}

/* The input read twice through a register cache in the same loop body:
   still each thread reads the cell it then writes. */
TEST(run_in_place_through_a_register_cache_is_accepted) {
    int64_t shape[2] = {3, 5};
    wf_fusion *f = wf_fusion_new();
    wf_tv *c = wf_cache_after(wf_input(f, WF_F32, 2, shape));
    wf_tv *out = wf_binary(WF_MUL, c, c);
    wf_output(f, out);
    wf_tv_parallelize(out, 1, WF_TIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    wf_inline_most(f);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        float x[15];
        iota(x, 15, -7);
        wf_buffer b = buf2(x, 3, 5);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &b, 1, &b, 1), WF_OK);
        for (int i = 0; i < 15; i++)
            CHECK(x[i] == (float)((i - 7) * (i - 7)));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The output one element past the input: the same indexing, but a thread
   writes the cell the next one reads. */
TEST(run_partial_overlap_is_refused) {
    wf_fusion *f;
    wf_kernel *k = relu_2d(&f, NULL);
    CHECK(k != NULL);
    if (k) {
        float x[16];
        iota(x, 16, -7);
        wf_buffer in = buf2(x, 3, 5), out = buf2(x + 1, 3, 5);
        check_refused(TS, k, &in, 1, &out, 1,
                      "output 0 (T1) overlaps input 0 (T0): T1's buffer starts 4 bytes after "
                      "T0's, and their bytes overlap; a kernel reads its inputs while it writes "
                      "its outputs: pass a separate output buffer");
        out = buf2(x, 3, 5), in = buf2(x + 1, 3, 5);
        check_refused(TS, k, &in, 1, &out, 1,
                      "output 0 (T1) overlaps input 0 (T0): T1's buffer starts 4 bytes before "
                      "T0's, and their bytes overlap; a kernel reads its inputs while it writes "
                      "its outputs: pass a separate output buffer");
        /* the same address, but the input has other strides (every 2nd row) */
        float y[32];
        in = buf2(y, 3, 5), out = buf2(y, 3, 5);
        in.strides[0] = 10, in.strides[1] = 1;
        wf_fusion *g;
        static const int8_t strided[2] = {0, 1};
        wf_kernel *ks = relu_2d(&g, strided);
        CHECK(ks != NULL);
        if (ks)
            check_refused(TS, ks, &in, 1, &out, 1,
                          "output 0 (T1) overlaps input 0 (T0): T1's buffer starts at the same "
                          "address as T0's, and their bytes overlap; a kernel reads its inputs "
                          "while it writes its outputs: pass a separate output buffer");
        /* adjacent, not overlapping: runs */
        float z[30];
        iota(z, 15, -7);
        in = buf2(z, 3, 5), out = buf2(z + 15, 3, 5);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
        CHECK(z[15] == 0 && z[29] == 7 && z[0] == -7);
        wf_kernel_free(ks);
        wf_fusion_free(g);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* out0 = neg(in), out1 = abs(in), each in its own loop nest: either output
   in place of the input is refused (the other nest reads the input too),
   and two outputs never share memory. */
TEST(run_two_outputs_overlap_rules) {
    int64_t shape[2] = {3, 5};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    wf_tv *o0 = wf_unary(WF_NEG, in), *o1 = wf_unary(WF_ABS, in);
    wf_output(f, o0);
    wf_output(f, o1);
    wf_tv_parallelize(o0, 1, WF_TIDX);
    wf_tv_parallelize(o1, 1, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        float x[32], y[15];
        wf_buffer bx = buf2(x, 3, 5), by = buf2(y, 3, 5);
        wf_buffer outs[2] = {bx, bx};
        check_refused(TS, k, &by, 1, outs, 2,
                      "output 1 (T2) overlaps output 0 (T1): they are the same buffer; two "
                      "outputs cannot share memory: pass a separate buffer for each");
        outs[1] = buf2(x + 2, 3, 5);
        check_refused(TS, k, &by, 1, outs, 2,
                      "output 1 (T2) overlaps output 0 (T1): T2's buffer starts 8 bytes after "
                      "T1's, and their bytes overlap; two outputs cannot share memory: pass a "
                      "separate buffer for each");
        outs[0] = by, outs[1] = bx;
        check_refused(TS, k, &bx, 1, outs, 2,
                      "output 1 (T2) overlaps input 0 (T0): they are the same buffer, and weft "
                      "cannot prove that the kernel reads each element of T0 only in the thread "
                      "that then writes that element of T2 (an elementwise kernel with the same "
                      "indexing); a kernel reads its inputs while it writes its outputs: pass a "
                      "separate output buffer");
        /* separate buffers run */
        float z[15];
        iota(x, 15, -7);
        outs[0] = by, outs[1] = buf2(z, 3, 5);
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &bx, 1, outs, 2), WF_OK);
        for (int i = 0; i < 15; i++)
            CHECK(y[i] == (float)(7 - i) && z[i] == (float)(i < 7 ? 7 - i : i - 7));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* out0 = relu(in0) on TIDx, while out1 = neg(in1) launches TIDy too: out0's
   index does not use threadIdx.y, and only threadIdx.y == 0 writes it (the
   single writer), so out0 in place of in0 is still one read and one write
   per element; out1 in place of in1 likewise. */
TEST(run_in_place_with_a_launched_dim_the_write_does_not_use) {
    int64_t s0[2] = {4, 16}, s1[1] = {8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *o0 = wf_unary(WF_RELU, wf_input(f, WF_F32, 2, s0));
    wf_tv *o1 = wf_unary(WF_NEG, wf_input(f, WF_F32, 1, s1));
    wf_output(f, o0);
    wf_output(f, o1);
    wf_tv_parallelize(o0, 1, WF_TIDX);
    wf_tv_parallelize(o1, 0, WF_TIDY);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        float x[64], y[8];
        iota(x, 64, -32);
        iota(y, 8, -4);
        wf_buffer in[2] = {buf2(x, 4, 16), buf2(y, 8, 1)};
        in[1].ndim = 1;
        wf_buffer out[2] = {in[0], in[1]};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 2), WF_OK);
        CHECK_STR(wf_last_run_error(k), "");
        for (int i = 0; i < 64; i++)
            CHECK(x[i] == (i < 32 ? 0.0f : (float)(i - 32)));
        for (int i = 0; i < 8; i++)
            CHECK(y[i] == (float)(4 - i));
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
