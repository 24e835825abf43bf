/*
 * test_loopbc.c -- loop-domain broadcast IterDomains (wf_tv_loop_broadcast): a producer
 * inlined past a consumer loop it has no axis for. The fusion is a batched
 * matrix-vector product out[i, j] = sum_k a[i, k] * b[i, j, k], where a is staged (set)
 * and broadcast over j: the stage sits inside the j loop (threadIdx.x) and, split, inside
 * the serial k0 loop of the reduction. Each kernel is compiled with NVRTC and run on the
 * CPU executor (which reports shared-memory races) against a double reference
 * (reduce_check.h); the unsafe schedules are refused with the axes named.
 */
#include <stdlib.h>

#include "api/api.h"
#include "harness.h"
#include "ir/ir.h"
#include "reduce_check.h"

enum { NI = 4, NJ = 32, NK = 64 };

typedef struct {
    wf_fusion *f;
    wf_tv *stage, *bc, *prod, *out; /* set(a), broadcast, a * b, the sum */
} bmv;

static bmv make_bmv(wf_memtype mem) {
    int64_t sa[2] = {NI, NK}, sb[3] = {NI, NJ, NK};
    bool is_bc[3] = {false, true, false};
    int ax = 2;
    bmv m;
    m.f = wf_fusion_new();
    wf_tv *a = wf_input(m.f, WF_F32, 2, sa), *b = wf_input(m.f, WF_F32, 3, sb);
    m.stage = wf_set(a);
    wf_tv_set_memory(m.stage, mem);
    m.bc = wf_broadcast(m.stage, 3, is_bc);
    m.prod = wf_binary(WF_MUL, m.bc, b);
    m.out = wf_sum(m.prod, 1, &ax);
    wf_output(m.f, m.out);
    wf_tv_parallelize(m.out, 0, WF_BIDX);
    wf_tv_parallelize(m.out, 1, WF_TIDX);
    return m;
}

/* bc and prod inlined into the sum's loops, all of them. */
static void inline_consumers(bmv *m) {
    wf_parallelize_all_like(m->out, 0);
    wf_tv_inline_at(m->prod, -1);
    wf_tv_inline_at(m->bc, -1);
}

/* A register stage at [i, (j)]: each thread computes its own copy of a's row. */
TEST(loopbc_local_stage_inside_thread_loop) {
    bmv m = make_bmv(WF_MEM_LOCAL);
    inline_consumers(&m);
    wf_tv_inline_at(m.stage, 2);
    CHECK_HAS(wf_fusion_error(m.f), "position 2 is beyond the maximum inline position 1: axis 1 "
                                    "of T2 is not mapped to axis 1 of its consumer T3");
    wf_fusion_clear_error(m.f);
    wf_tv_loop_broadcast(m.stage, 1);
    CHECK_EQ_I64(wf_tv_ndim(m.stage), 3);
    wf_tv_inline_at(m.stage, 2);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = rc_check(TS, m.f, NULL, 1e-5);
    if (k) {
        const char *src = wf_kernel_source(k);
        CHECK_HAS(src, "float T2[64];");
        CHECK_HAS(src, "T2[i0] = T0[blockIdx.x * 64 + i0];");
        CHECK_LACKS(src, "__syncthreads");
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* A shared stage inside the threadIdx.x loop it does not index: computed once per
   block by thread 0 (not by every thread), then a barrier before the reads. */
TEST(loopbc_shared_stage_one_writer_then_barrier) {
    bmv m = make_bmv(WF_MEM_SHARED);
    inline_consumers(&m);
    wf_tv_loop_broadcast(m.stage, 1);
    wf_tv_inline_at(m.stage, 2);
    CHECK_STR(wf_fusion_error(m.f), "");
    wf_kernel *k = rc_check(TS, m.f, NULL, 1e-5);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->smem_bytes, NK * 4);
        CHECK_EQ_I64(li->block[0], NJ);
        CHECK_HAS(wf_kernel_source(k), "  for (wf_index i0 = 0; i0 < 64; ++i0) {\n"
                                       "    if (threadIdx.x == 0) {\n"
                                       "      T2[i0] = T0[blockIdx.x * 64 + i0];\n"
                                       "    }\n"
                                       "  }\n"
                                       "  wf_acc1 = (float)0;\n"
                                       "  __syncthreads();\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* The tiled matmul's shape: the reduction split [i, j, k0, k1], the shared stage at
   [i, (j), k0] with its own k1 on threadIdx.x (a cooperative fetch: one element per
   thread per k0 step), a barrier before the reads and one before the next k0 step
   overwrites the buffer. */
static bmv coop_bmv(void) {
    bmv m = make_bmv(WF_MEM_SHARED);
    wf_tv_split(m.out, 2, 32);
    wf_propagate_transforms(m.out);
    inline_consumers(&m);
    wf_tv_loop_broadcast(m.stage, 1);
    wf_tv_parallelize(m.stage, 3, WF_TIDX);
    wf_tv_inline_at(m.stage, 3);
    return m;
}

TEST(loopbc_cooperative_fetch_in_serial_loop) {
    bmv m = coop_bmv();
    CHECK_STR(wf_fusion_error(m.f), "");
    CHECK_EQ_I64(wf_tv_ndim(m.stage), 4);
    wf_kernel *k = rc_check(TS, m.f, NULL, 1e-5);
    if (k) {
        const wf_launch_info *li = wf_kernel_launch(k);
        CHECK_EQ_I64(li->smem_bytes, 32 * 4);
        CHECK_HAS(wf_kernel_source(k),
                  "  for (wf_index i0 = 0; i0 < 2; ++i0) {\n"
                  "    T2[threadIdx.x] = T0[blockIdx.x * 64 + i0 * 32 + threadIdx.x];\n"
                  "    __syncthreads();\n");
        CHECK_HAS(wf_kernel_source(k), "    }\n    __syncthreads();\n  }\n");
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

static wf_kernel *compile_skipping(wf_fusion *f, const char *skip) {
    lower_options o = {0};
    wf_err e = {0};
    return lower_options_parse(&o, NULL, skip, &e) ? api_compile(f, NULL, &o) : NULL;
}

/* Without the barriers the executor sees the race: the barriers are needed. */
TEST(loopbc_cooperative_fetch_without_sync_races) {
    bmv m = coop_bmv();
    wf_kernel *k = compile_skipping(m.f, "sync");
    CHECK(k != NULL);
    if (k) {
        static float a[NI * NK], b[NI * NJ * NK], o[NI * NJ];
        for (int x = 0; x < NI * NK; x++)
            a[x] = (float)(x % 5);
        for (int x = 0; x < NI * NJ * NK; x++)
            b[x] = 1.0f;
        wf_buffer in[2] = {{a, WF_F32, 2, {NI, NK}, {0}, -1},
                           {b, WF_F32, 3, {NI, NJ, NK}, {0}, -1}};
        wf_buffer out[1] = {{o, WF_F32, 2, {NI, NJ}, {0}, -1}};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, in, 2, out, 1), WF_ERR_SCHEDULE);
        CHECK_STR(wf_last_run_error(k),
                  "shared-memory race on T2[0]: thread (1, 0, 0) of block (0, 0, 0) reads it "
                  "after thread (0, 0, 0) wrote it with no barrier in between, in statement: "
                  "T3[0] = Broadcast(T2[i1])");
    }
    wf_kernel_free(k);
    wf_fusion_free(m.f);
}

/* Two consumers with different loops at the loop broadcast's position: inlining would
   make them one loop. Here one of them (T6's iS17) iterates T3's own axis K, which
   is refused first: a loop broadcast on a serial loop that iterates one of the
   tensor's own axes would run that axis twice (fuzz -s 777 -c 836191). */
TEST(loopbc_refuses_a_serial_loop_of_its_own_axis) {
    int64_t sa[2] = {NI, NK}, sb[3] = {NI, NJ, NK}, sc[3] = {NI, NK, 8};
    bool bj[3] = {false, true, false}, bl[3] = {false, false, true};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa), *b = wf_input(f, WF_F32, 3, sb);
    wf_tv *c = wf_input(f, WF_F32, 3, sc);
    wf_tv *s = wf_set(a);
    wf_tv *x = wf_binary(WF_MUL, wf_broadcast(s, 3, bj), b);
    wf_tv *y = wf_binary(WF_ADD, wf_broadcast(s, 3, bl), c);
    wf_output(f, x);
    wf_output(f, y);
    wf_tv_loop_broadcast(s, 1);
    wf_tv_inline_at(s, 2);
    CHECK_STR(wf_fusion_error(f), "T3.inline_at(2): position 2 is beyond the maximum inline "
                                  "position 1: axis 1 of T3 (bS22{1}) would run in the loop of "
                                  "axis 1 of its consumer T6, which is exactly mapped to T3's own "
                                  "iS9{64}: one loop index cannot stand for both");
    wf_fusion_free(f);
}

/* fuzz -s 777 -c 836191: a loop broadcast of T3 where its consumer's loop iterates
   T3's own last axis; wf_inline_most inlined T3 past it, placed T3's producer T2
   inside that loop and T3 read T2's cells before they were written. Now T3 stops
   before the broadcast and the loops that are left cannot be ordered: refused. */
TEST(loopbc_on_a_loop_of_its_own_axis_is_not_inlined_past) {
    int64_t shape[3] = {4, 2, 16};
    wf_fusion *f = wf_fusion_new();
    wf_tv *t0 = wf_input(f, WF_F32, 3, shape);
    wf_tv *t1 = wf_binary(WF_MUL, t0, t0);
    wf_tv *t2 = wf_binary(WF_MAX, t1, t0);
    wf_tv *t3 = wf_cast(t2, WF_F32);
    wf_output(f, wf_binary(WF_MIN, t1, t3));
    wf_tv_loop_broadcast(t3, 2);
    wf_inline_most(f);
    CHECK_STR(wf_fusion_error(f), "");
    CHECK_EQ_I64(wf_tv_compute_at(t3), 2);
    CHECK(wf_compile(f, NULL) == NULL);
    CHECK_STR(wf_fusion_error(f), "cannot order the loops: T1 must be computed before T3, but "
                                  "the inline positions also put T3's loops before T1's; inline "
                                  "the producers consistently");
    wf_fusion_free(f);
}

/* Two consumers with different loops at the loop broadcast's position, neither of
   them one of T3's own axes (T4's merge of its broadcast with K, T5's broadcast). */
TEST(loopbc_refuses_consumers_with_different_loops) {
    int64_t sa[2] = {NI, NK}, sb[3] = {NI, NJ, NK}, sc[3] = {NI, 8, NK};
    bool bj[3] = {false, true, false};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa), *b = wf_input(f, WF_F32, 3, sb);
    wf_tv *c = wf_input(f, WF_F32, 3, sc);
    wf_tv *s = wf_set(a);
    wf_tv *bx = wf_broadcast(s, 3, bj), *by = wf_broadcast(s, 3, bj);
    wf_output(f, wf_binary(WF_MUL, bx, b));
    wf_output(f, wf_binary(WF_ADD, by, c));
    wf_tv_merge(bx, 1);
    wf_tv_loop_broadcast(s, 1);
    wf_tv_inline_at(s, 2);
    CHECK_STR(wf_fusion_error(f), "T3.inline_at(2): position 2 is beyond the maximum inline "
                                  "position 1: axis 1 of T3 is the loop broadcast bS23{1}, but "
                                  "its consumers T4 and T5 have different loops there (iS22{64} "
                                  "and bS14{1})");
    wf_fusion_free(f);
}

/* A consumer's loop broadcast is no loop of a producer that indexes data there. */
TEST(loopbc_refuses_producer_axis_in_consumer_loop_broadcast) {
    int64_t sa[2] = {NI, NK};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa);
    wf_tv *s = wf_set(a), *t = wf_set(s);
    wf_output(f, t);
    wf_tv_loop_broadcast(t, 1);
    wf_tv_inline_at(s, 2);
    CHECK_STR(wf_fusion_error(f), "T1.inline_at(2): position 2 is beyond the maximum inline "
                                  "position 1: axis 1 of T1 (iS3{64}) is a loop broadcast in its "
                                  "consumer T2 (bS6{1}), which iterates no loop there; give T1 "
                                  "a loop broadcast at 1 too");
    wf_fusion_free(f);
}

TEST(loopbc_refuses_input_and_shared_positions) {
    bmv m = make_bmv(WF_MEM_LOCAL);
    wf_tv_loop_broadcast(m.stage->def->in[0], 1);
    CHECK_STR(wf_fusion_error(m.f), "T0.loop_broadcast(1): T0 is a fusion input, which is never "
                                    "inlined, so a loop broadcast would share no loop; add it to "
                                    "a tensor that reads T0 (or to a cache of it, wf_cache_after)");
    wf_fusion_clear_error(m.f);
    inline_consumers(&m);
    wf_tv_loop_broadcast(m.bc, 1);
    CHECK_STR(wf_fusion_error(m.f), "T3.loop_broadcast(1): position 1 is left of position 3, up "
                                    "to which T3's loops are shared with its consumers; add loop "
                                    "broadcasts before inlining");
    wf_fusion_clear_error(m.f);
    wf_tv_loop_broadcast(m.stage, 5);
    CHECK_STR(wf_fusion_error(m.f), "T2.loop_broadcast: position 5 is out of range; T2 has 2 loop "
                                    "axes, so positions are 0..2");
    wf_fusion_free(m.f);
}

/* ---- random schedules with loop broadcasts ---- */

static unsigned next_rand(uint64_t *s, unsigned n) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(*s >> 33) % n;
}

static bool derives_from(const wf_iterdomain *id, const wf_iterdomain *root) {
    if (id == root)
        return true;
    for (int k = 0; id->def && k < id->def->nin; k++)
        if (derives_from(id->def->in[k], root))
            return true;
    return false;
}

/* a [I, K] staged (local or shared) and broadcast to a 3-D [.., ..] with the new dim at
   a random position, times b, summed over a random dim or not; the sum (or product)
   split, parallelized and propagated; the stage given loop broadcasts at random
   positions and inlined at a random position. */
static wf_fusion *random_case(uint64_t seed) {
    uint64_t r = seed * 0x9e3779b97f4a7c15ull + 1;
    static const int64_t is[3] = {1, 3, 4}, js[3] = {2, 5, 8}, ks[3] = {4, 6, 16};
    int64_t I = is[next_rand(&r, 3)], J = js[next_rand(&r, 3)], K = ks[next_rand(&r, 3)];
    int p = (int)next_rand(&r, 3);
    bool bc[3] = {p == 0, p == 1, p == 2};
    int64_t sa[2] = {I, K}, sb[3];
    for (int d = 0, s = 0; d < 3; d++)
        sb[d] = d == p ? J : s++ == 0 ? I : K;
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, sa), *b = wf_input(f, WF_F32, 3, sb);
    wf_tv *st = wf_set(a);
    wf_tv_set_memory(st, next_rand(&r, 2) ? WF_MEM_SHARED : WF_MEM_LOCAL);
    wf_tv *out = wf_binary(WF_MUL, wf_broadcast(st, 3, bc), b);
    if (next_rand(&r, 2)) {
        int ax = (int)next_rand(&r, 3);
        out = wf_sum(out, 1, &ax);
    }
    wf_output(f, out);
    if (next_rand(&r, 2))
        wf_tv_split(out, (int)next_rand(&r, 3), 2 + next_rand(&r, 3));
    static const wf_ptype pts[3] = {WF_BIDX, WF_TIDX, WF_TIDY};
    for (int n = (int)next_rand(&r, 3), i = 0; i < n; i++) {
        int ax = (int)next_rand(&r, (unsigned)wf_tv_ndim(out));
        wf_tv_parallelize(out, ax, pts[i]);
    }
    wf_propagate_transforms(out);
    wf_parallelize_all_like(out, 0);
    wf_inline_most(f);
    wf_tv_inline_at(st, 0);
    wf_tv *bt = st->uses.ptr[0]->out;
    if (next_rand(&r, 4)) /* where the broadcast tensor loops over the new dim */
        for (int i = 0; i < bt->loop.n; i++) {
            if (derives_from(bt->loop.ptr[i], bt->logical.ptr[p]))
                wf_tv_loop_broadcast(st, i);
        }
    else
        for (int n = 1 + (int)next_rand(&r, 2), i = 0; i < n; i++)
            wf_tv_loop_broadcast(st, (int)next_rand(&r, (unsigned)wf_tv_ndim(st) + 1));
    if (next_rand(&r, 4) == 0)
        wf_tv_parallelize(st, (int)next_rand(&r, (unsigned)wf_tv_ndim(st)), WF_TIDX);
    int n = wf_tv_ndim(st);
    wf_tv_inline_at(st, next_rand(&r, 2) ? n : (int)next_rand(&r, (unsigned)n + 1));
    if (wf_fusion_status(f) != WF_OK && next_rand(&r, 2)) { /* as deep as allowed instead */
        wf_fusion_clear_error(f);
        wf_inline_most(f);
    }
    return f;
}

/* Each schedule is refused with a message (never an internal error) or runs on the
   executor, race-free, equal to the reference; most must run. */
TEST(loopbc_property_random_schedules_run_correctly_or_are_refused) {
    int ran = 0, refused = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        wf_fusion *f = random_case(seed);
        if (wf_fusion_status(f) != WF_OK) { /* a schedule step refused: that is all */
            refused++;
            if (getenv("WF_LOOPBC_VERBOSE"))
                printf("  seed %llu refused: %s\n", (unsigned long long)seed, wf_fusion_error(f));
            CHECK(wf_fusion_error(f)[0] != 0);
            wf_fusion_free(f);
            continue;
        }
        wf_kernel *k = wf_compile(f, NULL);
        if (!k) {
            refused++;
            if (getenv("WF_LOOPBC_VERBOSE"))
                printf("  seed %llu refused: %s\n", (unsigned long long)seed, wf_fusion_error(f));
            if (!wf_fusion_error(f)[0] || strstr(wf_fusion_error(f), "internal error")) {
                printf("  seed %llu: %s\n", (unsigned long long)seed, wf_fusion_error(f));
                CHECK(false);
            }
        } else if (rc_run(TS, k, f, NULL, 1e-5)) {
            ran++;
        } else {
            printf("  seed %llu\n", (unsigned long long)seed);
        }
        wf_kernel_free(k);
        wf_fusion_free(f);
    }
    printf("  %d ran, %d refused\n", ran, refused);
    CHECK(ran >= 240);
}

/* A loop broadcast merged into a reduction axis, then split: rfactor of the split
   refuses it by name (it was an internal error in rfactor's replay). */
TEST(loopbc_merged_into_a_reduction_axis_refuses_rfactor) {
    int64_t shape[2] = {64, 128};
    wf_fusion *f = wf_fusion_new();
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *s = wf_sum(a, 1, (int[]){1});
    wf_output(f, s);
    wf_tv_loop_broadcast(s, 1);
    wf_tv_merge(s, 1);
    wf_tv_split(s, 1, 32);
    CHECK(wf_tv_rfactor(s, 1, (int[]){1}) == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_UNSUPPORTED);
    CHECK_STR(wf_fusion_error(f), "T1.rfactor: not supported yet: axis 1 of T1 (rS6{4}) is made "
                                  "from the loop broadcast bS4{1}, which no logical IterDomain "
                                  "derives; rfactor before adding loop broadcasts");
    wf_fusion_free(f);
}

/* The other schedule operations on a tensor with a loop broadcast: rfactor refuses it;
   propagation to and from it and compiling do not crash (a kernel, or a message). */
TEST(loopbc_other_schedule_ops) {
    bmv m = make_bmv(WF_MEM_LOCAL);
    wf_tv_split(m.out, 2, 16);
    wf_tv_loop_broadcast(m.out, 1);
    int ax = 3;
    CHECK(wf_tv_rfactor(m.out, 1, &ax) == NULL);
    CHECK_STR(wf_fusion_error(m.f), "T5.rfactor: not supported yet: axis 1 of T5 is the loop "
                                    "broadcast bS18{1}, which no logical IterDomain derives; "
                                    "rfactor before adding loop broadcasts");
    wf_fusion_free(m.f);
    for (int variant = 0; variant < 3; variant++) {
        m = make_bmv(WF_MEM_SHARED);
        wf_tv_split(m.out, 2, 16);
        wf_tv_loop_broadcast(m.stage, 1);
        if (variant == 0)
            wf_propagate_transforms(m.out);
        else if (variant == 1)
            wf_propagate_transforms(m.stage);
        else
            wf_parallelize_all_like(m.stage, 0);
        wf_inline_most(m.f);
        wf_kernel *k = wf_compile(m.f, NULL);
        if (k)
            CHECK(rc_run(TS, k, m.f, NULL, 1e-5));
        else
            CHECK(wf_fusion_error(m.f)[0] != 0 && !strstr(wf_fusion_error(m.f), "internal"));
        wf_kernel_free(k);
        wf_fusion_free(m.f);
    }
}
