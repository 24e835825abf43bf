/*
 * test_interp_hazards.c -- the CPU reference executor's global-memory hazard
 * model, its work budget and its error channel. Kernels with a global race
 * are built deliberately: the fusion is scheduled as a user might, then
 * compiled with the lowering pass that refuses (sync) or guards (predicate)
 * it skipped, so only the executor stands between the kernel and a silent
 * answer that holds only because the executor runs blocks in order.
 */
#include <stdlib.h>

#include "api/api.h"
#include "harness.h"
#include "ir/ir.h"
#include "ref.h"
#include "runtime/interp.h"

/* Compile with lowering passes dropped: a deliberately broken kernel. */
static wf_kernel *compile_skipping(wf_fusion *f, const char *skip) {
    lower_options o = {0};
    wf_err e = {0};
    return lower_options_parse(&o, NULL, skip, &e) ? api_compile(f, NULL, &o) : NULL;
}

/* Runs k on random inputs and poisoned outputs; msg gets the run error. */
static wf_status run_all(wf_kernel *k, wf_fusion *f, char *msg, size_t n) {
    wf_buffer in[4] = {{0}}, out[4] = {{0}};
    int nin = (int)f->inputs.n, nout = (int)f->outputs.n;
    for (int i = 0; i < nin; i++) {
        in[i] = ref_buffer(f, f->inputs.ptr[i], NULL);
        ref_fill_random(&in[i], 5 + (uint64_t)i);
    }
    for (int i = 0; i < nout; i++) {
        out[i] = ref_buffer(f, f->outputs.ptr[i], NULL);
        ref_poison(&out[i]);
    }
    wf_status s = wf_run(k, WF_BACKEND_INTERP, in, nin, out, nout);
    snprintf(msg, n, "%s", wf_last_run_error(k));
    for (int i = 0; i < nin; i++)
        ref_free(&in[i]);
    for (int i = 0; i < nout; i++)
        ref_free(&out[i]);
    return s;
}

/* b = neg(a), c = abs(b), both outputs, rows of b on BIDx in blocks of
   b_rows, rows of c in blocks of c_rows: unless they agree, c reads rows
   that other blocks write. */
static wf_fusion *rows_read_across_blocks(int64_t b_rows, int64_t c_rows) {
    int64_t shape[2] = {8, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *b = wf_unary(WF_NEG, a);
    wf_tv *c = wf_unary(WF_ABS, b);
    wf_output(f, b);
    wf_output(f, c);
    wf_tv_split(b, 0, b_rows);
    wf_tv_parallelize(b, 0, WF_BIDX);
    wf_tv_parallelize(b, 2, WF_TIDX);
    wf_tv_split(c, 0, c_rows);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 2, WF_TIDX);
    return f;
}

TEST(interp_hazard_compiler_refuses_cross_block_read) {
    wf_fusion *f = rows_read_across_blocks(4, 2);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k == NULL);
    CHECK_HAS(wf_fusion_error(f), "reads global T1 across blocks on BIDx");
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(interp_hazard_cross_block_read_after_write) {
    /* Block 1 of c reads rows 2 and 3, which block 0 of b wrote. */
    wf_fusion *f = rows_read_across_blocks(4, 2);
    wf_kernel *k = compile_skipping(f, "sync");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, "cross-block race on global T1[64]: thread (0, 0, 0) of block (1, 0, 0) "
                       "reads it after thread (0, 0, 0) of block (0, 0, 0) wrote it; the blocks "
                       "of a launch cannot synchronize (a GPU runs them in any order): "
                       "parallelize the writer's and the reader's axes alike on the block "
                       "dimensions, or compute the reader in a separate fusion; in statement: "
                       "T2[blockIdx.x * 64 + i1 * 32 + threadIdx.x] = Unary(T1[blockIdx.x * 64 "
                       "+ i1 * 32 + threadIdx.x])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_hazard_cross_block_write_after_read) {
    /* Block 0 of c reads rows 0-3; rows 2 and 3 are written later by block 1 of b. */
    wf_fusion *f = rows_read_across_blocks(2, 4);
    wf_kernel *k = compile_skipping(f, "sync");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, "cross-block race on global T1[64]: thread (0, 0, 0) of block (1, 0, 0) "
                       "writes it after thread (0, 0, 0) of block (0, 0, 0) read it; the blocks "
                       "of a launch cannot synchronize (a GPU runs them in any order): "
                       "parallelize the writer's and the reader's axes alike on the block "
                       "dimensions, or compute the reader in a separate fusion; in statement: "
                       "T1[blockIdx.x * 64 + i0 * 32 + threadIdx.x] = Unary(T0[blockIdx.x * 64 "
                       "+ i0 * 32 + threadIdx.x])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_hazard_aligned_blocks_are_no_race) {
    wf_fusion *f = rows_read_across_blocks(2, 2);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* b = neg(x) over 32 threads of no block axis, c = abs(y) over 4 blocks:
   only block 0 may write b, which the predicate pass guards. */
static wf_fusion *output_without_block_axis(void) {
    int64_t sx[1] = {32}, sy[2] = {4, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *x = wf_input(f, WF_F32, 1, sx);
    wf_tv *y = wf_input(f, WF_F32, 2, sy);
    wf_tv *b = wf_unary(WF_NEG, x);
    wf_tv *c = wf_unary(WF_ABS, y);
    wf_output(f, b);
    wf_output(f, c);
    wf_tv_parallelize(b, 0, WF_TIDX);
    wf_tv_parallelize(c, 0, WF_BIDX);
    wf_tv_parallelize(c, 1, WF_TIDX);
    return f;
}

TEST(interp_hazard_cross_block_write_after_write) {
    wf_fusion *f = output_without_block_axis();
    wf_kernel *k = compile_skipping(f, "predicate");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_LACKS(wf_kernel_source(k), "blockIdx.x == 0");
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, "cross-block race on global T2[0]: thread (0, 0, 0) of block (1, 0, 0) "
                       "writes it after thread (0, 0, 0) of block (0, 0, 0) wrote it; the blocks "
                       "of a launch cannot synchronize (a GPU runs them in any order): "
                       "parallelize the writer's and the reader's axes alike on the block "
                       "dimensions, or compute the reader in a separate fusion; in statement: "
                       "T2[threadIdx.x] = Unary(T0[threadIdx.x])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_hazard_guarded_single_writer_is_no_race) {
    wf_fusion *f = output_without_block_axis();
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* b = neg(a) over 32 threads, c = abs(b) serial in thread 0: c reads the
   cells the other threads of its block wrote, which needs a barrier. */
static wf_fusion *read_other_threads(void) {
    int64_t shape[1] = {32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *b = wf_unary(WF_NEG, a);
    wf_tv *c = wf_unary(WF_ABS, b);
    wf_output(f, b);
    wf_output(f, c);
    wf_tv_parallelize(b, 0, WF_TIDX);
    return f;
}

TEST(interp_hazard_global_read_without_barrier) {
    wf_fusion *f = read_other_threads();
    wf_kernel *k = compile_skipping(f, "sync");
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_LACKS(wf_kernel_source(k), "__syncthreads");
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, "global-memory race on T1[1]: thread (0, 0, 0) of block (0, 0, 0) reads "
                       "it after thread (1, 0, 0) wrote it with no barrier in between, in "
                       "statement: T2[i0] = Unary(T1[i0])");
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_hazard_global_read_after_barrier_is_no_race) {
    wf_fusion *f = read_other_threads();
    wf_kernel *k = CHECK_INTERP(f, NULL);
    CHECK(k && strstr(wf_kernel_source(k), "__syncthreads"));
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* ---- the work budget ---- */

static wf_fusion *copy_split(int64_t n, int64_t factor, bool parallel) {
    int64_t shape[1] = {n};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_split(b, 0, factor);
    if (parallel) {
        wf_tv_parallelize(b, 0, WF_BIDX);
        wf_tv_parallelize(b, 1, WF_TIDX);
    }
    return f;
}

TEST(interp_budget_huge_split_is_refused_at_once) {
    wf_fusion *f = copy_split(1000, (int64_t)1 << 40, false);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_UNSUPPORTED);
        /* One thread: the outer loop (1), its one iteration's inner loop (1),
           2^40 iterations of a predicate and the statement. */
        CHECK_STR(msg, "the CPU reference executor stops after 17179869184 statement executions "
                       "(a statement, loop step or predicate for one thread; WF_INTERP_BUDGET "
                       "sets the limit); this kernel would run 2199023255554: check its split "
                       "factors and loop extents (a split by a huge factor makes a loop of that "
                       "many iterations)");
        wf_access_stats st;
        CHECK_EQ_I64(wf_interp_stats(k, &st), WF_ERR_UNSUPPORTED);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

TEST(interp_budget_counts_blocks_threads_and_statements) {
    /* 8 blocks x 128 threads x (the BIDx and TIDx loops, run once, a predicate
       and the statement) = 4096. */
    wf_fusion *f = copy_split(1000, 128, true);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        char msg[1024];
        k->interp->budget = 4095;
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_UNSUPPORTED);
        CHECK_HAS(msg, "stops after 4095 statement executions");
        CHECK_HAS(msg, "this kernel would run 4096:");
        k->interp->budget = 4096;
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_OK);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* The first serial loop under n (depth first), or NULL. */
static in_node *serial_loop(in_node *n) {
    if (n->kind == IN_FOR && n->serial)
        return n;
    for (int i = 0; i < n->nkids; i++) {
        in_node *l = serial_loop(n->kids[i]);
        if (l)
            return l;
    }
    return NULL;
}

TEST(interp_budget_stops_a_loop_the_estimate_cannot_see) {
    /* The inner loop's extent becomes 1000000 + the outer loop's variable: not
       a launch constant, so the up-front estimate counts one iteration and the
       count at run time stops it. */
    wf_fusion *f = copy_split(1000, 128, false);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    in_node *outer = k ? serial_loop(k->interp->root) : NULL, *inner = NULL;
    for (int i = 0; outer && !inner && i < outer->nkids; i++)
        inner = serial_loop(outer->kids[i]);
    CHECK(inner != NULL);
    if (inner) {
        ix_ins ins[3] = {{.op = IX_CONST, .c = 1000000},
                         {.op = IX_LOOP, .a = outer->slot},
                         {.op = IX_OP, .kind = V_ADD, .a = 0, .b = 1}};
        inner->extent = (ix_expr){ins, 3};
        char msg[1024];
        k->interp->budget = 10000;
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_UNSUPPORTED);
        CHECK_HAS(msg, "stops after 10000 statement executions");
        CHECK_HAS(msg, "this kernel would run more than 10000:");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(interp_budget_environment_syntax) {
    int64_t v = 0;
    CHECK(rt_interp_parse_budget("17179869184", &v));
    CHECK_EQ_I64(v, (int64_t)1 << 34);
    CHECK(!rt_interp_parse_budget("0", &v));
    CHECK(!rt_interp_parse_budget("-5", &v));
    CHECK(!rt_interp_parse_budget("2^34", &v));
    CHECK(!rt_interp_parse_budget("", &v));
    CHECK(!rt_interp_parse_budget("99999999999999999999", &v));
    CHECK(!rt_interp_parse_budget(NULL, &v));
}

/* ---- the run flag ---- */

TEST(interp_stats_know_whether_the_kernel_ran) {
    int64_t shape[1] = {-1};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 1, shape);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_parallelize(b, 0, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        wf_access_stats st;
        CHECK_EQ_I64(wf_interp_stats(k, &st), WF_ERR_ARG);
        CHECK_HAS(wf_last_run_error(k), "has not run on the executor yet");
        /* An empty tensor: the kernel ran (nothing to do), so no error and zeros,
           although it made no global access. */
        float x = 0, y = 0;
        wf_buffer in = {&x, WF_F32, 1, {0}, {0}, -1}, out = {&y, WF_F32, 1, {0}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_OK);
        CHECK_EQ_I64(wf_interp_stats(k, &st), WF_OK);
        CHECK_EQ_I64(st.gmem_accesses, 0);
        CHECK_EQ_I64(st.smem_accesses, 0);
        wf_kernel_free(k);
    }
    wf_fusion_free(f);
}

/* ---- the executor's own checks, each pinned by a kernel only it can see ---- */

/* T1 ([8], local or shared) written by a serial loop and read back by T2's
   loop; the writing loop is cut to 4 iterations behind the compiler's back,
   so T2 reads cells 4..7 that no statement wrote. Only the executor's
   never-written checks (one per memory) see it: the output is still fully
   written. */
static void check_never_written(test_state *ts_, wf_memtype mem, const char *want) {
    int64_t shape[1] = {8};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 1, shape));
    wf_output(f, wf_set(t1));
    wf_tv_set_memory(t1, mem);
    wf_kernel *k = wf_compile(f, NULL);
    in_node *write = k ? serial_loop(k->interp->root) : NULL;
    CHECK(write != NULL);
    if (write) {
        static ix_ins four = {.op = IX_CONST, .c = 4};
        write->extent = (ix_expr){&four, 1};
        char msg[1024];
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, want);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(interp_read_of_a_cell_never_written_is_reported_in_local_and_shared_memory) {
    check_never_written(TS, WF_MEM_LOCAL,
                        "read of T1[4] (local memory), which was never written, by thread "
                        "(0, 0, 0) of block (0, 0, 0), in statement: T2[i1] = Set(T1[i1])");
    check_never_written(TS, WF_MEM_SHARED,
                        "read of T1[4] (shared memory), which was never written, by thread "
                        "(0, 0, 0) of block (0, 0, 0), in statement: T2[i1] = Set(T1[i1])");
}

/* The shared row T1 is rewritten by thread 0 in every iteration of i0 while
   the other threads read the previous row; the compiler puts a barrier at the
   end of the loop body (write after read). With that barrier dropped from the
   executor's program -- the read-after-write one stays -- the second
   iteration's write races with the first iteration's reads. */
TEST(interp_write_after_read_without_barrier_is_a_race) {
    int64_t shape[2] = {4, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t1 = wf_set(wf_input(f, WF_F32, 2, shape));
    wf_tv *t2 = wf_set(t1);
    wf_output(f, t2);
    wf_tv_set_memory(t1, WF_MEM_SHARED);
    wf_tv_parallelize(t2, 1, WF_TIDX);
    wf_tv_inline_at(t1, 1);
    wf_kernel *k = wf_compile(f, NULL);
    in_node *rows = k ? serial_loop(k->interp->root) : NULL;
    CHECK(rows && rows->nkids == 4 && rows->kids[3]->kind == IN_SYNC);
    if (rows && rows->nkids == 4 && rows->kids[3]->kind == IN_SYNC) {
        rows->nkids = 3; /* drop the write-after-read barrier */
        char msg[1024];
        CHECK_EQ_I64(run_all(k, f, msg, sizeof msg), WF_ERR_SCHEDULE);
        CHECK_STR(msg, "shared-memory race on T1[1]: thread (0, 0, 0) of block (0, 0, 0) writes "
                       "it after thread (1, 0, 0) read it with no barrier in between, in "
                       "statement: T1[i1] = Set(T0[i0 * 32 + i1])");
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}
