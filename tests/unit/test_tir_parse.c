/*
 * test_tir_parse.c -- the TVMScript parser's errors: line:column, the offending line and
 * a caret under the column; anything outside the subset an "unsupported: ..." error of
 * WF_ERR_UNSUPPORTED, a plain mistake WF_ERR_ARG; the schedule then refuses every call.
 */
#include <stdlib.h>

#include "harness.h"

#define HEAD "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
#define BLOCK                                                                                      \
    HEAD "    for i in range(4):\n        with T.block(\"b\"):\n            vi = "                 \
         "T.axis.spatial(4, "                                                                      \
         "i)\n"

static void expect_error(test_state *ts_, const char *src, wf_status code, const char *msg) {
    wf_tir *s = wf_tir_parse(src);
    CHECK_EQ_I64(wf_tir_status(s), code);
    CHECK_STR(wf_tir_error(s), msg);
    CHECK(wf_tir_get_block(s, "b") == NULL); /* sticky: nothing runs after the error */
    wf_tir_free(s);
}

TEST(tir_parse_error_undefined_name) {
    expect_error(ts_, BLOCK "            A[vi] = x\n", WF_ERR_ARG,
                 "6:21: name 'x' is not defined\n"
                 "            A[vi] = x\n"
                 "                    ^");
}

TEST(tir_parse_error_symbolic_extent) {
    expect_error(ts_, HEAD "    for i in T.parallel(n):\n        pass\n", WF_ERR_UNSUPPORTED,
                 "3:25: unsupported: a loop extent must be an integer constant\n"
                 "    for i in T.parallel(n):\n"
                 "                        ^");
}

TEST(tir_parse_error_while) {
    expect_error(ts_, HEAD "    while True:\n        pass\n", WF_ERR_UNSUPPORTED,
                 "3:5: unsupported: this statement\n"
                 "    while True:\n"
                 "    ^");
}

TEST(tir_parse_error_index_count) {
    expect_error(ts_, BLOCK "            A[vi, 0] = 1\n", WF_ERR_ARG,
                 "6:13: too many indices for this buffer\n"
                 "            A[vi, 0] = 1\n"
                 "            ^");
}

TEST(tir_parse_error_dedent) {
    expect_error(ts_,
                 HEAD "    for i in range(4):\n      with T.block(\"b\"):\n        vi = "
                      "T.axis.spatial(4, i)\n       A[vi] = 1\n",
                 WF_ERR_ARG,
                 "6:8: unindent does not match any outer indentation level\n"
                 "       A[vi] = 1\n"
                 "       ^");
}

TEST(tir_parse_error_dtype) {
    expect_error(ts_, "@T.prim_func\ndef f(A: T.Buffer((4,), \"complex64\")):\n    pass\n",
                 WF_ERR_UNSUPPORTED,
                 "2:25: unsupported: this dtype (float32, float16, bfloat16, float64, int8, "
                 "int16, int32, int64, uint8, bool are)\n"
                 "def f(A: T.Buffer((4,), \"complex64\")):\n"
                 "                        ^");
}

TEST(tir_parse_error_axis_kind) {
    expect_error(ts_,
                 HEAD "    for i in range(4):\n        with T.block(\"b\"):\n            vi = "
                      "T.axis.opaque(4, i)\n",
                 WF_ERR_UNSUPPORTED,
                 "5:25: unsupported: this axis kind (spatial / S, reduce / R and remap are)\n"
                 "            vi = T.axis.opaque(4, i)\n"
                 "                        ^");
}

TEST(tir_parse_error_integer_division) {
    expect_error(ts_, BLOCK "            A[vi] = A[vi] + vi / 2\n", WF_ERR_UNSUPPORTED,
                 "6:32: unsupported: '/' on integers (write '//' for floor division)\n"
                 "            A[vi] = A[vi] + vi / 2\n"
                 "                               ^");
}

TEST(tir_parse_error_unknown_intrinsic) {
    expect_error(ts_, BLOCK "            A[vi] = T.erf(A[vi])\n", WF_ERR_UNSUPPORTED,
                 "6:23: unsupported: T.erf in an expression\n"
                 "            A[vi] = T.erf(A[vi])\n"
                 "                      ^");
}

TEST(tir_parse_error_no_decorator) {
    expect_error(ts_, "def f(A):\n    pass\n", WF_ERR_ARG,
                 "1:1: expected @T.prim_func\n"
                 "def f(A):\n"
                 "^");
}

TEST(tir_parse_error_tab) {
    expect_error(ts_, HEAD "\tpass\n", WF_ERR_UNSUPPORTED,
                 "3:1: unsupported: a tab in the indentation (indent with spaces)\n"
                 "\tpass\n"
                 "^");
}

TEST(tir_parse_error_unterminated_bracket) {
    expect_error(ts_, BLOCK "            A[vi] = (A[vi] + 1\n", WF_ERR_ARG,
                 "7:1: expected ')'\n"
                 "\n"
                 "^");
}

TEST(tir_parse_null_source) {
    wf_tir *s = wf_tir_parse(NULL);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_ARG);
    CHECK_STR(wf_tir_error(s), "wf_tir_parse: the source text is NULL");
    CHECK(wf_tir_script(s) == NULL);
    wf_tir_free(s);
    CHECK_EQ_I64(wf_tir_status(NULL), WF_ERR_ARG);
}

/* The subset beyond the seed: float division, comparisons, if_then_else, exp, sqrt,
   min, casts, T.where, serial / unroll loops and comments, printed as TVM prints. */
TEST(tir_parse_subset_round_trip) {
    const char *src = "# a comment line\n"
                      "@T.prim_func\n"
                      "def g(A: T.Buffer((8, 4), \"float32\"), B: T.Buffer((8, 4), \"float16\")):\n"
                      "    for i in T.serial(8):  # trailing comment\n"
                      "        for j in T.unroll(4):\n"
                      "            with T.block(\"g\"):\n"
                      "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
                      "                T.where(i < 8)\n"
                      "                B[vi, vj] = T.Cast(\"float16\", T.if_then_else(vi * 4 + vj "
                      "< 10 and vj != 3, T.exp(A[vi, vj]) / T.float32(2), T.min(T.sqrt(A[vi, "
                      "vj]), (A[vi, vj] - T.float32(1)) * T.float32(0.5))))\n";
    const char *expect =
        "# from tvm.script import tir as T\n"
        "\n"
        "@T.prim_func\n"
        "def main(A: T.Buffer((8, 4), \"float32\"), B: T.Buffer((8, 4), \"float16\")):\n"
        "    T.func_attr({\"global_symbol\": \"g\"})\n"
        "    # with T.block(\"root\"):\n"
        "    for i in range(8):\n"
        "        for j in T.unroll(4):\n"
        "            with T.block(\"g\"):\n"
        "                vi, vj = T.axis.remap(\"SS\", [i, j])\n"
        "                T.where(i < 8)\n"
        "                T.reads(A[vi, vj])\n"
        "                T.writes(B[vi, vj])\n"
        "                B[vi, vj] = T.Cast(\"float16\", T.if_then_else(vi * 4 + vj < 10 and vj "
        "!= 3, T.exp(A[vi, vj]) / T.float32(2.0), T.min(T.sqrt(A[vi, vj]), (A[vi, vj] - "
        "T.float32(1.0)) * T.float32(0.5))))\n";
    wf_tir *s = wf_tir_parse(src);
    CHECK_STR(wf_tir_error(s), "");
    CHECK_STR(wf_tir_script(s), expect);
    wf_tir *again = wf_tir_parse(expect);
    CHECK_STR(wf_tir_script(again), expect);
    wf_tir_free(again);
    wf_tir_free(s);
}

/* Deep or long expressions are an error, not a stack overflow: 100000 unary minus signs,
   and 100000 terms of one sum. */
TEST(tir_parse_error_expression_too_deep) {
    size_t n = 100000, len = strlen(BLOCK) + 40 + 8 * n;
    char *src = malloc(len), *p;
    for (int pass = 0; src && pass < 2; pass++) {
        p = src + sprintf(src, "%s            A[vi] = ", BLOCK);
        for (size_t i = 0; i < n; i++)
            p += sprintf(p, pass ? "A[vi] + " : "-");
        sprintf(p, "A[vi]\n");
        wf_tir *s = wf_tir_parse(src);
        CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
        CHECK_HAS(wf_tir_error(s), "unsupported: an expression nested this deeply");
        wf_tir_free(s);
    }
    free(src);
}

/* The printed program parses again within the nesting bound: -x prints as 0 - (x), so
   a chain of minus signs is measured as it prints (found by the fuzzer at 103 signs). */
TEST(tir_parse_minus_chain_round_trip) {
    int accepted = 0;
    for (int n = 90; n <= 110; n++) {
        char src[1024], *p = src + sprintf(src, "%s            A[vi] = A[", BLOCK);
        for (int i = 0; i < n; i++)
            *p++ = '-';
        sprintf(p, "vi]\n");
        wf_tir *s = wf_tir_parse(src);
        if (wf_tir_status(s) == WF_OK) {
            accepted = n;
            wf_tir *again = wf_tir_parse(wf_tir_script(s));
            CHECK_EQ_I64(wf_tir_status(again), WF_OK);
            CHECK_STR(wf_tir_script(again), wf_tir_script(s));
            wf_tir_free(again);
        } else {
            CHECK_HAS(wf_tir_error(s), "unsupported: an expression nested this deeply");
        }
        wf_tir_free(s);
    }
    CHECK_EQ_I64(accepted, 99); /* two levels a sign, within 200 with the index expression */
}

/* Two iters of one name would print ambiguously (found by the fuzzer). */
TEST(tir_parse_error_duplicate_iter) {
    expect_error(ts_, BLOCK "            vi = T.axis.spatial(4, i)\n            A[vi] = A[vi]\n",
                 WF_ERR_ARG,
                 "6:13: this block iter is declared twice in the block\n"
                 "            vi = T.axis.spatial(4, i)\n"
                 "            ^");
}

/* remap takes the extent of a loop variable; a block iter declared earlier in the same
   remap has none (found by the fuzzer: it printed T.axis.reduce(0, vi)). */
TEST(tir_parse_error_remap_of_block_iter) {
    expect_error(ts_,
                 HEAD "    for i in range(4):\n        with T.block(\"b\"):\n"
                      "            vi, vk = T.axis.remap(\"SR\", [i, vi])\n"
                      "            A[vi] = A[vk]\n",
                 WF_ERR_ARG,
                 "5:45: T.axis.remap binds loop variables\n"
                 "            vi, vk = T.axis.remap(\"SR\", [i, vi])\n"
                 "                                            ^");
}

/* A block's declarations stand directly in its body; inside a loop of the block they
   would bind variables its header does not see (found by the fuzzer: an inner block's
   `with` commented out left its T.axis under the outer block's loop). */
TEST(tir_parse_error_axis_inside_a_loop_of_the_block) {
    expect_error(ts_,
                 HEAD "    with T.block(\"b\"):\n        for i in range(4):\n"
                      "            vi = T.axis.spatial(4, i)\n"
                      "            A[vi] = A[vi]\n",
                 WF_ERR_ARG,
                 "5:18: T.axis belongs directly inside a T.block\n"
                 "            vi = T.axis.spatial(4, i)\n"
                 "                 ^");
}

/* More than 32 loops around one statement is refused at the 33rd. */
TEST(tir_parse_error_too_many_loops) {
    char src[8192], *p = src;
    p += sprintf(p, "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n");
    for (int d = 0; d < 33; d++)
        p += sprintf(p, "%*sfor i%d in range(1):\n", 4 * (d + 1), "", d);
    sprintf(p, "%*sA[0] = A[0]\n", 4 * 34, "");
    wf_tir *s = wf_tir_parse(src);
    CHECK_EQ_I64(wf_tir_status(s), WF_ERR_UNSUPPORTED);
    CHECK_HAS(wf_tir_error(s), "35:137: unsupported: more than 32 loops around one statement");
    wf_tir_free(s);
}

/* ---- the spellings TVM users write (test_tir_prims.c: what they print) ---- */

#define HANDLE_HEAD "@T.prim_func\ndef f(a: T.handle, b: T.handle):\n"

TEST(tir_parse_error_handle_without_match_buffer) {
    expect_error(ts_,
                 HANDLE_HEAD "    A = T.match_buffer(a, (4,), \"float32\")\n"
                             "    for i in range(4):\n        with T.block(\"b\"):\n"
                             "            vi = T.axis.spatial(4, i)\n            A[vi] = A[vi]\n",
                 WF_ERR_ARG,
                 "2:5: the T.handle parameter b has no T.match_buffer (write b_buf = "
                 "T.match_buffer(b, shape, dtype) at the top of the body)\n"
                 "def f(a: T.handle, b: T.handle):\n"
                 "    ^");
}

TEST(tir_parse_error_handle_used_as_buffer) {
    expect_error(ts_,
                 HANDLE_HEAD "    A = T.match_buffer(a, (4,), \"float32\")\n"
                             "    B = T.match_buffer(b, (4,), \"float32\")\n"
                             "    for i in range(4):\n        with T.block(\"b\"):\n"
                             "            vi = T.axis.spatial(4, i)\n            B[vi] = a[vi]\n",
                 WF_ERR_ARG,
                 "8:21: a T.handle is not a buffer: use the buffer T.match_buffer makes of it\n"
                 "            B[vi] = a[vi]\n"
                 "                    ^");
}

TEST(tir_parse_error_match_buffer_twice) {
    expect_error(ts_,
                 HANDLE_HEAD "    A = T.match_buffer(a, (4,), \"float32\")\n"
                             "    B = T.match_buffer(a, (4,), \"float32\")\n",
                 WF_ERR_UNSUPPORTED,
                 "4:24: T.match_buffer takes a T.handle parameter not matched yet\n"
                 "    B = T.match_buffer(a, (4,), \"float32\")\n"
                 "                       ^");
}

TEST(tir_parse_error_module_of_two_functions) {
    const char *f = "    @T.prim_func\n    def f(A: T.Buffer((4,), \"float32\")):\n"
                    "        for i in range(4):\n            with T.block(\"b\"):\n"
                    "                vi = T.axis.spatial(4, i)\n"
                    "                A[vi] = A[vi] + T.float32(1)\n";
    char src[1024];
    snprintf(src, sizeof src, "@I.ir_module\nclass Module:\n%s%s", f, f);
    expect_error(ts_, src, WF_ERR_UNSUPPORTED,
                 "9:5: unsupported: an IRModule of more than one function\n"
                 "    @T.prim_func\n"
                 "    ^");
}

TEST(tir_parse_error_noalias_not_bool) {
    expect_error(ts_, HEAD "    T.func_attr({\"tir.noalias\": \"yes\"})\n", WF_ERR_ARG,
                 "3:33: tir.noalias is True or False\n"
                 "    T.func_attr({\"tir.noalias\": \"yes\"})\n"
                 "                                ^");
}

TEST(tir_parse_error_annotation_value) {
    expect_error(ts_,
                 HEAD "    for i in T.serial(4, annotations={\"k\": [1, }):\n"
                      "        with T.block(\"b\"):\n            vi = T.axis.spatial(4, i)\n"
                      "            A[vi] = A[vi]\n",
                 WF_ERR_ARG,
                 "3:44: the value of the annotation \"k\" is not an int, a float, a \"string\", "
                 "True, False or a [list] of them\n"
                 "    for i in T.serial(4, annotations={\"k\": [1, }):\n"
                 "                                           ^");
}
