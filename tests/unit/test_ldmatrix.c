/*
 * test_ldmatrix.c -- the 8x8-matrix copy kinds, LdMatrix and StMatrix (seed
 * 002): hand schedules of a 16-bit copy global -> shared (a plain set or a
 * TMA load, unswizzled or with a 32/64/128-byte swizzle) -> ldmatrix ->
 * registers -> stmatrix -> shared -> global, in the .x1, .x2, .x4 and
 * .trans forms, bit-exact on the executor, compiled by NVRTC for sm_90a with
 * the PTX in the source; the executor's bank conflicts; every refusal with
 * its exact message; sizes the tile does not divide.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* Axis labels, kept beside a tensor's loop domain while it is split. */
typedef struct {
    wf_tv *tv;
    char l[16];
    int n;
} axes;

static void split_l(axes *a, char which, int64_t factor, char outer, char inner) {
    int i = (int)(strchr(a->l, which) - a->l);
    wf_tv_split(a->tv, i, factor);
    memmove(a->l + i + 2, a->l + i + 1, (size_t)(a->n - i)); /* with the NUL */
    a->l[i] = outer;
    a->l[i + 1] = inner;
    a->n++;
}

/* Reorder to the labels in `order` (every label once). */
static void order_l(axes *a, const char *order) {
    int old2new[16];
    for (int i = 0; i < a->n; i++)
        old2new[i] = (int)(strchr(order, a->l[i]) - order);
    wf_tv_reorder_all(a->tv, old2new);
    strcpy(a->l, order);
}

/* [Mo, No, tm, tn] (labels "MNmn") -> the register layout of `count`
   matrices per thread: [Mo, No, (serial), TIDx 32, vector 2 * count]. Non-trans:
   lane = row * 4 + column pair, the vector (column-tile, row-tile, pair).
   trans: lane = column * 4 + row pair, the vector (column-tile, row-tile, row
   within the pair). Labels: a/A row tile outer/inner, b/B column tile, r/q
   row 8 / its halves, c/d column 8 / its halves. */
static void matrix_layout(wf_tv *tv, int count, bool trans, bool vectorize) {
    axes a = {tv, "MNmn", 4};
    int cm = count == 4 ? 2 : 1, cn = count >= 2 ? 2 : 1;
    split_l(&a, 'n', 8, 'b', 'c'); /* MNmbc */
    split_l(&a, 'm', 8, 'a', 'r'); /* MNarbc */
    if (cn == 2)
        split_l(&a, 'b', 2, 'b', 'B');
    if (cm == 2)
        split_l(&a, 'a', 2, 'a', 'A');
    char order[16];
    if (!trans) {
        split_l(&a, 'c', 2, 'c', 'd'); /* columns: 4 pairs x 2 */
        snprintf(order, sizeof order, "MNab%s%s%s%s", "rc", cn == 2 ? "B" : "", cm == 2 ? "A" : "",
                 "d");
    } else {
        split_l(&a, 'r', 2, 'r', 'q'); /* rows: 4 pairs x 2 */
        snprintf(order, sizeof order, "MNab%s%s%s%s", "cr", cn == 2 ? "B" : "", cm == 2 ? "A" : "",
                 "q");
    }
    order_l(&a, order);
    wf_tv_merge(tv, 4);               /* lanes */
    for (int v = 0; v < a.n - 7; v++) /* the vector's parts */
        wf_tv_merge(tv, 5);
    wf_tv_parallelize(tv, 4, WF_TIDX);
    if (vectorize)
        wf_tv_parallelize(tv, 5, WF_VECTORIZE);
}

/* [rows, cols] -> [Mo (BIDy), No (BIDx), tm, tn]. */
static void tile(wf_tv *tv, int64_t tm, int64_t tn) {
    wf_tv_split(tv, 1, tn);
    wf_tv_split(tv, 0, tm);
    wf_tv_reorder_all(tv, (const int[]){0, 2, 1, 3});
    wf_tv_parallelize(tv, 0, WF_BIDY);
    wf_tv_parallelize(tv, 1, WF_BIDX);
}

/* A plain copy of the tile, on 32 threads. */
static void by_threads(wf_tv *tv) {
    wf_tv_merge(tv, 2);
    wf_tv_split(tv, 2, 32);
    wf_tv_parallelize(tv, 3, WF_TIDX);
}

static void by_tma(wf_tv *tv) {
    wf_tv_parallelize(tv, 2, WF_BULK);
    wf_tv_parallelize(tv, 3, WF_BULK);
}

typedef struct {
    int64_t rows, cols, tm, tn;
    wf_dtype dt;
    int count;
    bool trans; /* ldmatrix.trans, registers straight to the output */
    bool tma;   /* TMA load and store (else plain copies) */
    int sw;     /* TMA swizzle bytes (0: none) */
} mcase;

/* in -> T1 (shared) -> T2 (registers, LdMatrix) [-> T3 (shared, StMatrix)] -> out. */
static wf_fusion *build_tvs(const mcase *m, wf_tv **tvs) {
    int64_t shape[2] = {m->rows, m->cols};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, m->dt, 2, shape), *s0 = wf_set(in), *r = wf_set(s0);
    wf_tv *s1 = m->trans ? NULL : wf_set(r), *out = wf_set(m->trans ? r : s1);
    wf_output(f, out);
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(r, WF_LDST_LDMATRIX);
    if (s1) {
        wf_tv_set_memory(s1, WF_MEM_SHARED);
        wf_tv_set_ldst(s1, WF_LDST_STMATRIX);
    }
    wf_tv *all[4] = {s0, r, s1, out};
    for (int i = 0; i < 4; i++)
        if (all[i])
            tile(all[i], m->tm, m->tn);
    if (m->tma) {
        wf_tv_set_ldst(s0, WF_LDST_TMA);
        by_tma(s0);
        if (m->sw)
            wf_tv_tma_swizzle(s0, m->sw);
    } else {
        by_threads(s0);
    }
    if (s1 && m->sw) {
        wf_tv_tma_swizzle(s1, m->sw);
    } else if (s1) { /* the tile in row-major order, not the matrices' loop order */
        wf_iterdomain *ids[4];
        for (int i = 0; i < 4; i++)
            ids[i] = wf_tv_axis(s1, i);
        wf_tv_set_allocation_domain(s1, 4, ids, true);
    }
    if (s1 && m->tma) {
        wf_tv_set_ldst(out, WF_LDST_TMA);
        by_tma(out);
    } else if (s1) {
        by_threads(out);
    }
    matrix_layout(r, m->count, m->trans, true);
    if (s1)
        matrix_layout(s1, m->count, false, true);
    else
        matrix_layout(out, m->count, true, false);
    wf_inline_most(f);
    for (int i = 0; tvs && i < 4; i++)
        tvs[i] = all[i];
    return f;
}

static wf_fusion *build(const mcase *m) {
    return build_tvs(m, NULL);
}

static const char *ptx(bool ld, int count, bool trans, char *buf, size_t n) {
    snprintf(buf, n, "%smatrix.sync.aligned.x%d%s.m8n8.shared.b16", ld ? "ld" : "st", count,
             trans ? ".trans" : "");
    return buf;
}

/* Runs m on the executor against the reference and through NVRTC; returns
   the kernel (the caller frees) or NULL. */
static wf_kernel *run_case(test_state *ts_, const mcase *m) {
    wf_fusion *f = build(m);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_kernel *k = CHECK_INTERP(f, NULL);
    wf_fusion_free(f);
    if (!k)
        return NULL;
    char buf[96];
    const char *src = wf_kernel_source(k);
    CHECK_HAS(src, ptx(true, m->count, m->trans, buf, sizeof buf));
    if (!m->trans)
        CHECK_HAS(src, ptx(false, m->count, false, buf, sizeof buf));
    CHECK_HAS(src, "__cvta_generic_to_shared(&T1[");
    if (!harness_nvrtc(ts_, k, 90, __FILE__, __LINE__)) {
        wf_kernel_free(k);
        return NULL;
    }
    return k;
}

static void stats(const wf_kernel *k, wf_access_stats *s) {
    memset(s, 0, sizeof *s);
    wf_interp_stats(k, s);
}

TEST(ldmatrix_x1_x2_x4_plain_shared_bit_exact) {
    for (int count = 1; count <= 4; count *= 2) {
        mcase m = {64, 64, 16, 16, WF_BF16, count, false, false, 0};
        wf_kernel_free(run_case(ts_, &m));
        m.dt = WF_F16;
        m.rows = 32;
        wf_kernel_free(run_case(ts_, &m));
    }
}

TEST(ldmatrix_trans_x1_x2_x4_bit_exact) {
    for (int count = 1; count <= 4; count *= 2) {
        mcase m = {32, 48, 16, 16, WF_BF16, count, true, false, 0};
        wf_kernel *k = run_case(ts_, &m);
        if (k)
            CHECK_LACKS(wf_kernel_source(k), "stmatrix");
        wf_kernel_free(k);
    }
}

/* TMA load and store with each swizzle; the tile row is the swizzle's width. */
TEST(ldmatrix_tma_swizzles_bit_exact_and_conflict_free) {
    for (int sw = 32; sw <= 128; sw *= 2)
        for (int count = 1; count <= 4; count *= 2) {
            int64_t tn = sw / 2;
            if (count >= 2 && tn < 16)
                continue;
            mcase m = {64, 4 * tn, 16, tn, WF_BF16, count, false, true, sw};
            wf_kernel *k = run_case(ts_, &m);
            if (!k)
                continue;
            CHECK_EQ_I64(wf_kernel_tma(k, 0)->swizzle_bytes, sw);
            CHECK_EQ_I64(wf_kernel_tma(k, 1)->swizzle_bytes, sw);
            wf_access_stats s;
            stats(k, &s);
            /* 4 x 4 blocks, a warp each, one ldmatrix and one stmatrix per 8x8 * count */
            int64_t per_warp = 2 * (16 / 8) * (tn / 8) / count;
            CHECK_EQ_I64(s.smem_accesses, 16 * per_warp);
            CHECK_EQ_I64(s.smem_wavefronts, 16 * per_warp * count);
            CHECK_EQ_I64(s.smem_max_conflict_degree, 1);
            wf_kernel_free(k);
        }
}

/* Unswizzled rows of 128 bytes: the 8 rows of a matrix hit the same 4 banks. */
TEST(ldmatrix_unswizzled_128_byte_rows_conflict_8_way) {
    mcase m = {32, 128, 16, 64, WF_BF16, 4, false, true, 0};
    wf_kernel *k = run_case(ts_, &m);
    if (!k)
        return;
    wf_access_stats s;
    stats(k, &s);
    CHECK_EQ_I64(s.smem_accesses, 4 * 2 * 4);
    CHECK_EQ_I64(s.smem_wavefronts, 4 * 2 * 4 * 4 * 8);
    CHECK_EQ_I64(s.smem_max_conflict_degree, 8);
    wf_kernel_free(k);
}

/* Sizes the tile does not divide: TMA zero-fills the partial tile and clips
   the store; the matrices run unpredicated inside the tiles. */
TEST(ldmatrix_tma_partial_tiles_bit_exact) {
    mcase m = {60, 120, 16, 64, WF_BF16, 4, false, true, 128};
    wf_kernel *k = run_case(ts_, &m);
    if (k)
        CHECK_LACKS(wf_kernel_source(k), "if (((blockIdx.y * 16");
    wf_kernel_free(k);
}

/* With plain copies, the cells of a partial tile are never written: the
   executor's memory model reports ldmatrix reading them. */
TEST(ldmatrix_plain_partial_tile_reads_unwritten_cells) {
    mcase m = {30, 32, 16, 16, WF_BF16, 4, false, false, 0};
    wf_fusion *f = build(&m);
    wf_kernel *k = wf_compile(f, NULL);
    CHECK(k != NULL);
    if (k) {
        uint16_t *a = calloc(30 * 32, 2), *b = calloc(30 * 32, 2);
        wf_buffer in = {a, WF_BF16, 2, {30, 32}, {0}, -1}, out = {b, WF_BF16, 2, {30, 32}, {0}, -1};
        CHECK_EQ_I64(wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1), WF_ERR_SCHEDULE);
        CHECK_HAS(wf_last_run_error(k), "read of T1[");
        CHECK_HAS(wf_last_run_error(k), "(shared memory), which was never written, by thread");
        free(a);
        free(b);
    }
    wf_kernel_free(k);
    wf_fusion_free(f);
}

/* The fence: stmatrix's writes (generic proxy) before the TMA store (async proxy). */
TEST(ldmatrix_stmatrix_then_tma_store_is_fenced) {
    mcase m = {32, 64, 16, 64, WF_BF16, 4, false, true, 128};
    wf_kernel *k = run_case(ts_, &m);
    if (!k)
        return;
    const char *src = wf_kernel_source(k);
    const char *st = strstr(src, "stmatrix.sync"),
               *fence = st ? strstr(st, "fence.proxy.async") : NULL;
    const char *sync = fence ? strstr(fence, "__syncthreads()") : NULL;
    const char *store = sync ? strstr(sync, "cp.async.bulk.tensor.2d.global") : NULL;
    CHECK(st && fence && sync && store);
    wf_kernel_free(k);
}

/* ---- refusals ---- */

static void refused(test_state *ts_, wf_fusion *f, int sm, wf_status st, const char *msg) {
    wf_compile_options o = {.sm = sm};
    wf_kernel *k = wf_compile(f, &o);
    CHECK(k == NULL);
    CHECK_EQ_I64(wf_fusion_status(f), st);
    CHECK_STR(wf_fusion_error(f), msg);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(ldmatrix_refuses_32_bit_elements) {
    mcase m = {32, 32, 16, 16, WF_F32, 2, false, false, 0};
    refused(ts_, build(&m), 90, WF_ERR_SCHEDULE,
            "T2: LdMatrix moves 8x8 matrices of 16-bit elements, but T2 is float (4 bytes per "
            "element)");
}

TEST(ldmatrix_refuses_source_outside_shared_memory) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    wf_tv *t[4];
    wf_fusion *f = build_tvs(&m, t);
    wf_tv_set_memory(t[0], WF_MEM_LOCAL);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T2: LdMatrix reads shared memory, but its source T1 is in local memory");
}

TEST(ldmatrix_refuses_destination_outside_registers) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    wf_tv *t[4];
    wf_fusion *f = build_tvs(&m, t);
    wf_tv_set_memory(t[1], WF_MEM_SHARED);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T2: LdMatrix writes registers, but its destination T2 is in shared memory");
}

TEST(stmatrix_refuses_destination_outside_shared_memory) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    wf_tv *t[4];
    wf_fusion *f = build_tvs(&m, t);
    wf_tv_set_memory(t[2], WF_MEM_LOCAL);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T3: StMatrix writes shared memory, but its destination T3 is in local memory");
}

TEST(stmatrix_refuses_source_outside_registers) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    wf_tv *t[4];
    wf_fusion *f = build_tvs(&m, t);
    wf_tv_set_ldst(t[1], WF_LDST_SET);
    wf_tv_set_memory(t[1], WF_MEM_SHARED);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T3: StMatrix reads registers, but its source T2 is in shared memory");
}

TEST(stmatrix_refuses_targets_below_sm_90) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    refused(ts_, build(&m), 80, WF_ERR_UNSUPPORTED,
            "T3: StMatrix (stmatrix) needs sm_90 (Hopper) or newer, but the target is sm_80");
    /* ldmatrix alone compiles for sm_75 */
    m.trans = true;
    wf_fusion *f = build(&m);
    wf_compile_options o = {.sm = 75};
    wf_kernel *k = wf_compile(f, &o);
    CHECK(k != NULL);
    wf_kernel_free(k);
    wf_fusion_free(f);
}

TEST(ldmatrix_refuses_a_vector_of_other_than_2_4_8) {
    mcase m = {32, 32, 16, 16, WF_BF16, 2, false, false, 0};
    wf_tv *t[4];
    wf_fusion *f = build_tvs(&m, t);
    wf_tv_parallelize(t[1], 5, WF_SERIAL);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T2: LdMatrix moves one register (2 elements) per 8x8 matrix and thread, 1, 2 or 4 "
            "matrices at a time, so the innermost axis of T2 must be vectorized by 2, 4 or 8, "
            "but it has no vectorized axis");
}

/* Lanes numbered column pair * 8 + row instead of row * 4 + column pair. */
TEST(ldmatrix_refuses_lanes_that_are_not_whole_matrices) {
    int64_t shape[2] = {32, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_BF16, 2, shape), *s0 = wf_set(in), *r = wf_set(s0), *out = wf_set(r);
    wf_output(f, out);
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(r, WF_LDST_LDMATRIX);
    wf_tv *all[3] = {s0, r, out};
    for (int i = 0; i < 3; i++) {
        tile(all[i], 8, 8); /* [Mo, No, 8, 8] */
        if (i == 0) {
            by_threads(all[i]);
            continue;
        }
        wf_tv_split(all[i], 3, 2);                               /* [Mo, No, 8r, 4, 2] */
        wf_tv_reorder_all(all[i], (const int[]){0, 1, 3, 2, 4}); /* [Mo, No, 4, 8r, 2] */
        wf_tv_merge(all[i], 2);
        wf_tv_parallelize(all[i], 2, WF_TIDX);
    }
    wf_tv_parallelize(r, 3, WF_VECTORIZE);
    wf_inline_most(f);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T2: the lanes of a warp do not form whole 8x8 matrices of T1 for ldmatrix.x1 "
            "(vectorized axis iV20{2}, extent 2): lane 1's element 0 is T1[8], but the "
            "instruction moves T1[2] there (row 0, column 2 of matrix 0)");
}

TEST(ldmatrix_refuses_blockdim_x_not_a_multiple_of_32) {
    int64_t shape[2] = {32, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_BF16, 2, shape), *s0 = wf_set(in), *r = wf_set(s0), *out = wf_set(r);
    wf_output(f, out);
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(r, WF_LDST_LDMATRIX);
    wf_tv *all[3] = {s0, r, out};
    for (int i = 0; i < 3; i++) {
        tile(all[i], 8, 8);
        wf_tv_split(all[i], 3, 2); /* [Mo, No, 8 (TIDy), 4 (TIDx), 2] */
        wf_tv_parallelize(all[i], 2, WF_TIDY);
        wf_tv_parallelize(all[i], 3, WF_TIDX);
    }
    wf_tv_parallelize(r, 4, WF_VECTORIZE);
    wf_inline_most(f);
    refused(ts_, f, 90, WF_ERR_SCHEDULE,
            "T2: an LdMatrix copy is warp-collective: a warp is 32 consecutive threadIdx.x, so "
            "blockDim.x must be a multiple of 32, but it is 4");
}

TEST(ldmatrix_refuses_a_permute) {
    int64_t shape[2] = {32, 32};
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, WF_BF16, 2, shape), *s0 = wf_set(in);
    wf_tv *r = wf_transpose(s0, 0, 1);
    wf_output(f, wf_set(r));
    wf_tv_set_memory(s0, WF_MEM_SHARED);
    wf_tv_set_ldst(r, WF_LDST_LDMATRIX);
    refused(ts_, f, 90, WF_ERR_SCHEDULE, "T2: an LdMatrix copy must be a set, not Permute");
}
