/*
 * test_val.c -- the scalar-expression layer (src/ir/val.c): constant
 * folding, the normal form of sums, division/modulo simplification from
 * symbol ranges, ranges, evaluation and printing.
 */
#include "harness.h"
#include "ir/ir.h"

#include <stdlib.h>

static char *show(const wf_val *v) {
    sbuf b = {0};
    val_print(&b, v);
    return sbuf_take(&b);
}

#define CHECK_VAL(v, text)                                                                         \
    do {                                                                                           \
        char *s_ = show(v);                                                                        \
        CHECK_STR(s_, text);                                                                       \
        free(s_);                                                                                  \
    } while (0)

static const wf_val *loopvar(wf_arena *a, const char *name, int id, int64_t extent) {
    return val_sym(a, SYM_LOOP, id, 0, name, 0, extent - 1, val_const(a, extent));
}

TEST(val_constants_fold_and_identities_vanish) {
    wf_arena a;
    arena_init(&a);
    const wf_val *x = loopvar(&a, "i0", 0, 8);
    CHECK_VAL(val_add(&a, val_const(&a, 2), val_const(&a, 3)), "5");
    CHECK_VAL(val_mul(&a, x, val_const(&a, 1)), "i0");
    CHECK_VAL(val_add(&a, x, val_const(&a, 0)), "i0");
    CHECK_VAL(val_mul(&a, val_const(&a, 0), x), "0");
    CHECK_VAL(val_mul(&a, val_const(&a, 4), x), "i0 * 4");
    CHECK_VAL(val_sub(&a, x, x), "0");
    CHECK_VAL(val_ceildiv(&a, val_const(&a, 1000), val_const(&a, 128)), "8");
    arena_free(&a);
}

TEST(val_sums_distribute_constants_and_keep_constant_last) {
    wf_arena a;
    arena_init(&a);
    const wf_val *i = loopvar(&a, "i0", 0, 4), *j = loopvar(&a, "i1", 1, 32);
    const wf_val *s =
        val_add(&a,
                val_mul(&a, val_add(&a, val_mul(&a, i, val_const(&a, 4)), val_const(&a, 1)),
                        val_const(&a, 32)),
                j);
    CHECK_VAL(s, "i0 * 128 + i1 + 32");
    arena_free(&a);
}

TEST(val_div_mod_of_split_index_simplify_from_ranges) {
    wf_arena a;
    arena_init(&a);
    const wf_val *o = loopvar(&a, "i0", 0, 100), *in = loopvar(&a, "i1", 1, 128);
    const wf_val *x = val_add(&a, val_mul(&a, o, val_const(&a, 128)), in);
    CHECK_VAL(val_div(&a, x, val_const(&a, 128)), "i0");
    CHECK_VAL(val_mod(&a, x, val_const(&a, 128)), "i1");
    CHECK_VAL(val_div(&a, x, val_const(&a, 64)), "i0 * 2 + i1 / 64");
    CHECK_VAL(val_div(&a, val_div(&a, x, val_const(&a, 4)), val_const(&a, 32)), "i0");
    CHECK_VAL(val_mod(&a, val_mod(&a, x, val_const(&a, 64)), val_const(&a, 8)), "i1 % 8");
    arena_free(&a);
}

TEST(val_symbolic_divisor_uses_symbol_bound) {
    wf_arena a;
    arena_init(&a);
    const wf_val *n = val_sym(&a, SYM_SIZE, 0, 1, "T0.size[1]", 0, INT64_MAX, NULL);
    const wf_val *i = val_sym(&a, SYM_LOOP, 0, 0, "i0", 0, INT64_MAX, NULL);
    const wf_val *j = val_sym(&a, SYM_LOOP, 1, 0, "i1", 0, INT64_MAX, n);
    const wf_val *x = val_add(&a, val_mul(&a, i, n), j);
    CHECK_VAL(x, "i0 * T0.size[1] + i1");
    CHECK_VAL(val_div(&a, x, n), "i0");
    CHECK_VAL(val_mod(&a, x, n), "i1");
    arena_free(&a);
}

TEST(val_div_times_divisor_plus_mod_folds_back) {
    wf_arena a;
    arena_init(&a);
    const wf_val *t = loopvar(&a, "i0", 0, 1000), *c = val_const(&a, 256);
    const wf_val *q = val_mul(&a, val_div(&a, t, c), c), *r = val_mod(&a, t, c);
    CHECK_VAL(val_add(&a, q, r), "i0");
    arena_free(&a);
}

TEST(val_ranges_prove_and_refuse_bounds) {
    wf_arena a;
    arena_init(&a);
    const wf_val *i = loopvar(&a, "i0", 0, 8), *j = loopvar(&a, "i1", 1, 125);
    const wf_val *x = val_add(&a, val_mul(&a, i, val_const(&a, 125)), j);
    int64_t lo, hi;
    val_range(x, &lo, &hi);
    CHECK_EQ_I64(lo, 0);
    CHECK_EQ_I64(hi, 999);
    CHECK(val_prove_lt(x, val_const(&a, 1000)));
    CHECK(!val_prove_lt(x, val_const(&a, 999)));
    CHECK_VAL(val_lt(&a, x, val_const(&a, 1000)), "1");
    CHECK_VAL(val_lt(&a, x, val_const(&a, 900)), "i0 * 125 + i1 < 900");
    arena_free(&a);
}

static bool bind(void *ctx, const wf_val *sym, int64_t *out) {
    const int64_t *values = ctx;
    *out = values[sym->sym_a];
    return true;
}

TEST(val_eval_matches_c_semantics) {
    wf_arena a;
    arena_init(&a);
    int64_t values[2] = {5, 3};
    const wf_val *i = loopvar(&a, "i0", 0, 8), *j = loopvar(&a, "i1", 1, 8);
    const wf_val *e =
        val_add(&a, val_xor(&a, i, j), val_mod(&a, val_mul(&a, i, j), val_const(&a, 4)));
    int64_t out = 0;
    CHECK(val_eval(e, bind, values, &out));
    CHECK_EQ_I64(out, (5 ^ 3) + (15 % 4));
    CHECK_VAL(e, "(i0 ^ i1) + i0 * i1 % 4");
    arena_free(&a);
}
