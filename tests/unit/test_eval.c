/*
 * test_eval.c -- lower/eval.h, the evaluation lowering's checks (TMA's
 * shared-memory tile, ldmatrix's lanes, tensor memory's lanes) and the
 * executor's TMA copy share: an index at given thread, loop and symbol
 * values, the loops' sampled values, and where the TMA swizzle puts a byte.
 */
#include "harness.h"
#include "lower/eval.h"

/* 16-byte chunk c of 128-byte row r goes to chunk c ^ (r % (sw / 16)). */
TEST(eval_tma_swizzle_xors_the_chunk_with_the_row) {
    int64_t x = 3 * 128 + 2 * 16 + 5; /* row 3, chunk 2, byte 5 */
    CHECK_EQ_I64(lower_tma_swizzle(x, 0), x);
    CHECK_EQ_I64(lower_tma_swizzle(x, 32), 3 * 128 + 3 * 16 + 5);  /* 2 ^ (3 % 2) */
    CHECK_EQ_I64(lower_tma_swizzle(x, 64), 3 * 128 + 1 * 16 + 5);  /* 2 ^ (3 % 4) */
    CHECK_EQ_I64(lower_tma_swizzle(x, 128), 3 * 128 + 1 * 16 + 5); /* 2 ^ (3 % 8) */
    int64_t y = 13 * 128 + 7 * 16;                                 /* row 13, chunk 7 */
    CHECK_EQ_I64(lower_tma_swizzle(y, 32), 13 * 128 + 6 * 16);     /* 7 ^ 1 */
    CHECK_EQ_I64(lower_tma_swizzle(y, 64), 13 * 128 + 6 * 16);     /* 7 ^ 1 */
    CHECK_EQ_I64(lower_tma_swizzle(y, 128), 13 * 128 + 2 * 16);    /* 7 ^ 5 */
    /* every 8 rows of 128 bytes are a permutation of themselves */
    for (int sw = 32; sw <= 128; sw *= 2) {
        int seen[64] = {0};
        for (int64_t b = 0; b < 1024; b += 16)
            seen[lower_tma_swizzle(b, sw) / 16]++;
        for (int i = 0; i < 64; i++)
            CHECK_EQ_I64(seen[i], 1);
    }
}

/* Box element lin of 2-byte elements: 64 per 128-byte row, 8 per chunk. */
TEST(eval_tma_smem_offset_of_a_box_element) {
    int64_t lin = 3 * 64 + 2 * 8 + 1; /* row 3, chunk 2, element 1 */
    CHECK_EQ_I64(lower_tma_smem_offset(lin, 2, 0), lin);
    CHECK_EQ_I64(lower_tma_smem_offset(lin, 2, 128), 3 * 64 + 1 * 8 + 1);
    /* 4-byte elements: element 4 of row 5 is chunk 1, which goes to chunk 1 ^ (5 % 4) */
    CHECK_EQ_I64(lower_tma_smem_offset(5 * 32 + 4, 4, 64), 5 * 32);
}

TEST(eval_point_binds_threads_loops_and_symbols) {
    wf_arena a;
    arena_init(&a);
    const wf_val *tx = val_sym(&a, SYM_TID, 0, 0, "threadIdx.x", 0, 127, NULL);
    const wf_val *ty = val_sym(&a, SYM_TID, 1, 0, "threadIdx.y", 0, 3, NULL);
    const wf_val *i = val_sym(&a, SYM_LOOP, 7, 0, "i7", 0, 9, NULL);
    const wf_val *n = val_sym(&a, SYM_SIZE, 0, 0, "T0.size[0]", 1, 1 << 30, NULL);
    const wf_val *bx = val_sym(&a, SYM_BID, 0, 0, "blockIdx.x", 0, 9, NULL);
    /* tx + 128 ty + 1000 i + bx */
    const wf_val *e = val_add(&a, val_add(&a, tx, val_mul(&a, ty, val_const(&a, 128))),
                              val_add(&a, val_mul(&a, i, val_const(&a, 1000)), bx));
    lower_point p = {.n = 0};
    int64_t block[3] = {128, 4, 1}, v = -1;
    lower_point_thread(&p, block, 3 * 128 + 17);
    CHECK_EQ_I64(p.tid[0], 17);
    CHECK_EQ_I64(p.tid[1], 3);
    CHECK(!lower_point_eval(&p, e, &v)); /* i is unknown */
    CHECK(lower_point_bind(&p, val_sym(&a, SYM_LOOP, 7, 0, "i7", 0, 9, NULL), 10));
    p.b[0].val = 2;
    CHECK(lower_point_eval(&p, e, &v));
    CHECK_EQ_I64(v, 17 + 3 * 128 + 2000);
    const wf_val *en = val_add(&a, e, n);
    CHECK(!lower_point_eval(&p, en, &v)); /* a run-time size */
    p.zero = true;
    CHECK(!lower_point_eval(&p, en, &v)); /* still: sizes need a value */
    p.size = 1 << 20;
    CHECK(lower_point_eval(&p, en, &v));
    CHECK_EQ_I64(v, 17 + 3 * 128 + 2000 + (1 << 20));
    lower_point z = {.zero = true};
    CHECK(lower_point_eval(&z, e, &v)); /* unbound: 0 */
    CHECK_EQ_I64(v, 0);
    /* a thread index bound explicitly (a thread loop visited like any loop, as the
       TMA box-start check does) takes the bound value, not tid[] (fuzz -s 20261123
       -c 920: a box at byte 16 was accepted) */
    CHECK(lower_point_bind(&z, tx, 128));
    z.b[0].val = 5;
    CHECK(lower_point_eval(&z, e, &v));
    CHECK_EQ_I64(v, 5);
    arena_free(&a);
}

typedef struct {
    int64_t seen[64][2];
    int n;
} visits;

static bool record(void *ctx, lower_point *p) {
    visits *s = ctx;
    s->seen[s->n][0] = p->b[1].val;
    s->seen[s->n][1] = p->b[2].val;
    s->n++;
    return true;
}

/* Bindings from `first` on, the first varying slowest; one of more than
   `full` values at its first and last four. */
TEST(eval_point_each_samples_long_loops) {
    wf_arena a;
    arena_init(&a);
    lower_point p = {.n = 0};
    CHECK(lower_point_bind(&p, val_sym(&a, SYM_LOOP, -500, 0, "v", 0, 7, NULL), 8));
    CHECK(lower_point_bind(&p, val_sym(&a, SYM_LOOP, 1, 0, "i1", 0, 19, NULL), 20));
    CHECK(lower_point_bind(&p, val_sym(&a, SYM_LOOP, 2, 0, "i2", 0, 2, NULL), 3));
    visits s = {.n = 0};
    CHECK(lower_point_each(&p, 1, 8, record, &s));
    CHECK_EQ_I64(s.n, 8 * 3);
    int64_t firsts[8] = {0, 1, 2, 3, 16, 17, 18, 19};
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 3; j++) {
            CHECK_EQ_I64(s.seen[3 * k + j][0], firsts[k]);
            CHECK_EQ_I64(s.seen[3 * k + j][1], j);
        }
    s.n = 0;
    CHECK(lower_point_each(&p, 1, 20, record, &s)); /* 20 values: all of them */
    CHECK_EQ_I64(s.n, 20 * 3);
    arena_free(&a);
}
