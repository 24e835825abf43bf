/*
 * test_dot_graph.c -- the IterDomain-graph diagram (src/ir/dot.c,
 * wf_print_dot / wf_dot_string): the exact DOT text of split, outer split,
 * merge with parallel types, swizzle, an inlined tensor, broadcast and
 * reduction marks, a set allocation domain, and seed 001's TMA colours
 * through the roles hook. Every expected text is written out here in full,
 * so a change to the picture shows up as a diff to review.
 */
#include "base/heap.h"
#include "harness.h"
#include "ir/ir.h"

#include <stdlib.h>

/* The lines every graph starts with, after its title. */
#define DOT_HEAD(n, title)                                                                         \
    "digraph T" #n " {\n"                                                                          \
    "  label=\"" title "\";\n"                                                                     \
    "  labelloc=t;\n"                                                                              \
    "  fontname=\"Helvetica\";\n"                                                                  \
    "  nodesep=0.25;\n"                                                                            \
    "  ranksep=0.35;\n"                                                                            \
    "  ordering=out;\n"                                                                            \
    "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=\"Helvetica\", "       \
    "fontsize=11];\n"                                                                              \
    "  edge [fontname=\"Helvetica\", fontsize=9, arrowsize=0.6];\n"

/* got == head followed by body. */
#define CHECK_DOT(got, head, body)                                                                 \
    do {                                                                                           \
        char *e_ = concat(head, body);                                                             \
        CHECK_STR(got, e_);                                                                        \
        free(e_);                                                                                  \
    } while (0)

static char *concat(const char *a, const char *b) {
    char *s = malloc(strlen(a) + strlen(b) + 1);
    if (s) {
        strcpy(s, a);
        strcat(s, b);
    }
    return s;
}

#define TF_STYLE "shape=box, style=filled, fillcolor=\"#eeeeee\", fontsize=9, height=0.2"

/* in (global) -> mid = set(in) -> out = set(mid), out a fusion output. */
static wf_tv *copy_chain(wf_fusion *f, int64_t rows, int64_t cols, wf_tv **mid) {
    int64_t shape[2] = {rows, cols};
    wf_tv *in = wf_input(f, WF_F32, 2, shape);
    *mid = wf_set(in);
    wf_tv *out = wf_set(*mid);
    wf_output(f, out);
    return out;
}

TEST(dot_split_shows_factor_and_outer_inner_outputs) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_split(out, 1, 16);
    static const char expect[] = "  id4 [label=\"iS4{8}\\nlogical 0, loop 0\"];\n"
                                 "  id5 [label=\"iS5{64}\\nlogical 1\"];\n"
                                 "  id6 [label=\"iS6{4}\\nloop 1\"];\n"
                                 "  id7 [label=\"iS7{16}\\nloop 2\"];\n"
                                 "  tf0 [label=\"split 16\", " TF_STYLE "];\n"
                                 "  id5 -> tf0;\n"
                                 "  tf0 -> id6 [label=\"outer\"];\n"
                                 "  tf0 -> id7 [label=\"inner\"];\n"
                                 "  { rank=same; id4; id5; }\n"
                                 "  id4 -> id5 [style=invis];\n"
                                 "  { rank=same; id6; id7; }\n"
                                 "  id6 -> id7 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(out),
              DOT_HEAD(2, "T2_g_float[iS4{8}, iS6{4}, iS7{16}]\\nglobal memory, allocation "
                          "domain: logical (default)"),
              expect);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_fusion_free(f);
}

TEST(dot_outer_split_is_labelled_outer) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_split_outer(out, 0, 2);
    static const char expect[] = "  id4 [label=\"iS4{8}\\nlogical 0\"];\n"
                                 "  id5 [label=\"iS5{64}\\nlogical 1, loop 2\"];\n"
                                 "  id6 [label=\"iS6{2}\\nloop 0\"];\n"
                                 "  id7 [label=\"iS7{4}\\nloop 1\"];\n"
                                 "  tf0 [label=\"split 2 (outer)\", " TF_STYLE "];\n"
                                 "  id4 -> tf0;\n"
                                 "  tf0 -> id6 [label=\"outer\"];\n"
                                 "  tf0 -> id7 [label=\"inner\"];\n"
                                 "  { rank=same; id4; id5; }\n"
                                 "  id4 -> id5 [style=invis];\n"
                                 "  { rank=same; id6; id7; }\n"
                                 "  id6 -> id7 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(out),
              DOT_HEAD(2, "T2_g_float[iS6{2}, iS7{4}, iS5{64}]\\nglobal memory, allocation "
                          "domain: logical (default)"),
              expect);
    wf_fusion_free(f);
}

TEST(dot_merge_then_parallelize_colours_blocks_and_threads) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_merge(out, 0);
    wf_tv_split(out, 0, 128);
    wf_tv_parallelize(out, 0, WF_BIDX);
    wf_tv_parallelize(out, 1, WF_TIDX);
    static const char expect[] = "  id4 [label=\"iS4{8}\\nlogical 0\"];\n"
                                 "  id5 [label=\"iS5{64}\\nlogical 1\"];\n"
                                 "  id6 [label=\"iS6{512}\"];\n"
                                 "  id7 [label=\"iblockIdx.x7{4}\\nloop "
                                 "0\", fillcolor=\"#cfe2f3\"];\n"
                                 "  id8 [label=\"ithreadIdx.x8{128}\\nloop "
                                 "1\", fillcolor=\"#fce5cd\"];\n"
                                 "  tf0 [label=\"merge\", " TF_STYLE "];\n"
                                 "  id4 -> tf0 [label=\"outer\"];\n"
                                 "  id5 -> tf0 [label=\"inner\"];\n"
                                 "  tf0 -> id6;\n"
                                 "  tf1 [label=\"split 128\", " TF_STYLE "];\n"
                                 "  id6 -> tf1;\n"
                                 "  tf1 -> id7 [label=\"outer\"];\n"
                                 "  tf1 -> id8 [label=\"inner\"];\n"
                                 "  { rank=same; id4; id5; }\n"
                                 "  id4 -> id5 [style=invis];\n"
                                 "  { rank=same; id7; id8; }\n"
                                 "  id7 -> id8 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(out),
              DOT_HEAD(2, "T2_g_float[iblockIdx.x7{4}, ithreadIdx.x8{128}]\\nglobal memory, "
                          "allocation domain: logical (default)"),
              expect);
    wf_fusion_free(f);
}

TEST(dot_swizzle_names_x_and_x_xor_y) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid;
    copy_chain(f, 8, 64, &mid);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    wf_tv_split(mid, 1, 8);
    wf_tv_swizzle(mid, WF_SWIZZLE_XOR, 0, 1);
    static const char expect[] = "  id2 [label=\"iS2{8}\\nlogical 0\"];\n"
                                 "  id3 [label=\"iS3{64}\\nlogical 1\"];\n"
                                 "  id6 [label=\"iS6{8}\"];\n"
                                 "  id7 [label=\"iS7{8}\\nloop 2\"];\n"
                                 "  id8 [label=\"iS8{8}\\nloop 0\"];\n"
                                 "  id9 [label=\"iS9{8}\\nloop 1\"];\n"
                                 "  tf0 [label=\"split 8\", " TF_STYLE "];\n"
                                 "  id3 -> tf0;\n"
                                 "  tf0 -> id6 [label=\"outer\"];\n"
                                 "  tf0 -> id7 [label=\"inner\"];\n"
                                 "  tf1 [label=\"swizzle XOR\", " TF_STYLE "];\n"
                                 "  id2 -> tf1 [label=\"x\"];\n"
                                 "  id6 -> tf1 [label=\"y\"];\n"
                                 "  tf1 -> id8 [label=\"x\"];\n"
                                 "  tf1 -> id9 [label=\"x ^ y\"];\n"
                                 "  { rank=same; id2; id3; }\n"
                                 "  id2 -> id3 [style=invis];\n"
                                 "  { rank=same; id8; id9; id7; }\n"
                                 "  id8 -> id9 -> id7 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(mid),
              DOT_HEAD(1, "T1_s_float[iS8{8}, iS9{8}, iS7{8}]\\nshared memory, allocation "
                          "domain: loop (default)"),
              expect);
    wf_fusion_free(f);
}

/* The loop axes left of the compute-at position are double-bordered and the
   (CA) marker sits between loop 1 and loop 2 of the loop row; the untouched
   logical axis (loop 0) stays in the logical row. */
TEST(dot_inline_position_marks_shared_loops_and_ca) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_split(out, 1, 16);
    wf_tv_parallelize(out, 2, WF_TIDX);
    wf_propagate_transforms(out);
    wf_tv_inline_at(mid, 2);
    static const char expect[] = "  id2 [label=\"iS2{8}\\nlogical 0, loop "
                                 "0\", peripheries=2];\n"
                                 "  id3 [label=\"iS3{64}\\nlogical 1\"];\n"
                                 "  id8 [label=\"iS8{4}\\nloop 1\", "
                                 "peripheries=2];\n"
                                 "  id9 [label=\"iS9{16}\\nloop 2\"];\n"
                                 "  tf1 [label=\"split 16\", " TF_STYLE "];\n"
                                 "  id3 -> tf1;\n"
                                 "  tf1 -> id8 [label=\"outer\"];\n"
                                 "  tf1 -> id9 [label=\"inner\"];\n"
                                 "  ca [label=\"(CA)\", shape=plaintext, "
                                 "style=\"\"];\n"
                                 "  { rank=same; id2; id3; }\n"
                                 "  id2 -> id3 [style=invis];\n"
                                 "  { rank=same; id8; ca; id9; }\n"
                                 "  id8 -> ca -> id9 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(mid),
              DOT_HEAD(1, "T1_l_float[iS2{8}, iS8{4}, iS9{16}] ca_pos( 2 )\\nlocal memory, "
                          "allocation domain: loop (default)"),
              expect);
    CHECK_EQ_I64(wf_tv_compute_at(mid), 2);
    wf_fusion_free(f);
}

/* Nothing transformed: there is no loop row, so (CA) joins the logical row. */
TEST(dot_inline_untransformed_puts_ca_in_logical_row) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid;
    copy_chain(f, 8, 64, &mid);
    wf_tv_inline_at(mid, 1);
    static const char expect[] = "  id2 [label=\"iS2{8}\\nlogical 0, loop 0\", "
                                 "peripheries=2];\n"
                                 "  id3 [label=\"iS3{64}\\nlogical 1, loop 1\"];\n"
                                 "  ca [label=\"(CA)\", shape=plaintext, style=\"\"];\n"
                                 "  { rank=same; id2; ca; id3; }\n"
                                 "  id2 -> ca -> id3 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(mid),
              DOT_HEAD(1, "T1_l_float[iS2{8}, iS3{64}] ca_pos( 1 )\\nlocal memory, allocation "
                          "domain: loop (default)"),
              expect);
    wf_fusion_free(f);
}

TEST(dot_broadcast_is_dotted) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[1] = {64};
    wf_tv *in = wf_input(f, WF_F32, 1, shape);
    bool is_b[2] = {true, false};
    wf_tv *b = wf_broadcast(in, 2, is_b);
    wf_output(f, b);
    static const char expect[] = "  id1 [label=\"bS1{1}\\nlogical 0, loop 0\", "
                                 "style=\"rounded,filled,dotted\"];\n"
                                 "  id2 [label=\"iS2{64}\\nlogical 1, loop 1\"];\n"
                                 "  { rank=same; id1; id2; }\n"
                                 "  id1 -> id2 [style=invis];\n"
                                 "}\n";
    CHECK_DOT(wf_dot_string(b),
              DOT_HEAD(1, "T1_g_float[bS1{1}, iS2{64}]\\nglobal memory, allocation domain: "
                          "logical (default)"),
              expect);
    wf_fusion_free(f);
}

TEST(dot_set_allocation_domain_numbers_alloc_positions) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid;
    copy_chain(f, 8, 64, &mid);
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    wf_tv_split(mid, 1, 8);
    int n;
    wf_iterdomain *const *loop = wf_tv_loop_domain(mid, &n);
    wf_iterdomain *ids[3] = {loop[1], loop[0], loop[2]};
    wf_tv_set_allocation_domain(mid, 3, ids, true);
    CHECK_STR(
        wf_dot_string(mid),
        DOT_HEAD(
            1,
            "T1_s_float[iS2{8}, iS6{8}, iS7{8}]\\nshared memory, allocation "
            "domain: set (positions marked alloc)") "  id2 [label=\"iS2{8}\\nlogical 0, alloc 1, "
                                                    "loop 0\"];\n"
                                                    "  id3 [label=\"iS3{64}\\nlogical 1\"];\n"
                                                    "  id6 [label=\"iS6{8}\\nalloc 0, loop 1\"];\n"
                                                    "  id7 [label=\"iS7{8}\\nalloc 2, loop 2\"];\n"
                                                    "  tf0 [label=\"split 8\", " TF_STYLE "];\n"
                                                    "  id3 -> tf0;\n"
                                                    "  tf0 -> id6 [label=\"outer\"];\n"
                                                    "  tf0 -> id7 [label=\"inner\"];\n"
                                                    "  { rank=same; id2; id3; }\n"
                                                    "  id2 -> id3 [style=invis];\n"
                                                    "  { rank=same; id6; id7; }\n"
                                                    "  id6 -> id7 [style=invis];\n"
                                                    "}\n");
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_fusion_free(f);
}

static char *dot_of(const wf_tv *tv, const uint8_t *roles) {
    sbuf b = {0};
    ir_print_dot(&b, tv, roles);
    return sbuf_take(&b);
}

/* Reductions (built on the IR here: the public wf_sum may not lower yet)
   are dashed; a dim-separator is named in the title. */
TEST(dot_reduction_is_dashed_and_dimsep_in_title) {
    wf_fusion *f = ir_fusion_new();
    const wf_val *ext[2] = {val_const(&f->arena, 4), val_const(&f->arena, 32)};
    id_itype it[2] = {IT_ITER, IT_REDUCTION};
    wf_tv *tv = ir_tv_new(f, WF_F32, 2, ext, it);
    tv->dimsep = 1;
    char *s = dot_of(tv, NULL);
    CHECK_STR(
        s,
        DOT_HEAD(
            0, "T0_l_float[iS0{4}, rS1{32}]\\nlocal memory, allocation domain: "
               "loop (default), dim-separator 1") "  id0 [label=\"iS0{4}\\nlogical 0, loop 0\"];\n"
                                                  "  id1 [label=\"rS1{32}\\nlogical 1, loop 1\", "
                                                  "style=\"rounded,filled,dashed\"];\n"
                                                  "  { rank=same; id0; id1; }\n"
                                                  "  id0 -> id1 [style=invis];\n"
                                                  "}\n");
    free(s);
    ir_fusion_free(f);
}

/* The TMA hook: with roles given, boxes take seed 001's colours (green box,
   brown coordinate) and say their role; a role overrides the parallel
   type's fill. Out-of-range roles are ignored. */
TEST(dot_tma_roles_colour_box_and_coordinate_as_seed_001) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    (void)out;
    wf_tv_set_memory(mid, WF_MEM_SHARED);
    wf_tv_split(mid, 1, 16);
    wf_tv_split(mid, 2, 4);
    uint8_t roles[16] = {0};
    roles[2] = 99; /* not a role: plain */
    roles[6] = IR_DOT_COORD;
    roles[7] = IR_DOT_BOX;
    roles[8] = IR_DOT_TILE;
    roles[9] = IR_DOT_STRIDE;
    CHECK(f->ids.n <= 16);
    char *s = dot_of(mid, roles);
    CHECK_HAS(s, "  id2 [label=\"iS2{8}\\nlogical 0, loop 0\"];\n");
    CHECK_HAS(s, "  id6 [label=\"iS6{4}\\nloop 1, TMA coordinate\", fillcolor=\"#c9a27e\"];\n");
    CHECK_HAS(s, "  id7 [label=\"iS7{16}\\nTMA box\", fillcolor=\"#93c47d\"];\n");
    CHECK_HAS(s, "  id8 [label=\"iS8{4}\\nloop 2, TMA tile\", fillcolor=\"#6aa84f\"];\n");
    CHECK_HAS(s, "  id9 [label=\"iS9{4}\\nloop 3, TMA stride\", fillcolor=\"#d9d9d9\"];\n");
    CHECK_HAS(s, "  tf1 [label=\"split 4\", " TF_STYLE "];\n");
    free(s);
    wf_fusion_free(f);
}

/* Symbolic extents print as the printer names them; the graph of a fusion
   input is its logical domain alone. */
TEST(dot_symbolic_input_and_null_handles) {
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {-1, 16};
    wf_tv *in = wf_input(f, WF_F16, 2, shape);
    wf_output(f, wf_set(in));
    const char *s = wf_dot_string(in);
    CHECK_HAS(s, "digraph T0 {\n  label=\"T0_g_half[iS0{");
    CHECK_HAS(s, "  id1 [label=\"iS1{16}\\nlogical 1, loop 1\"];\n");
    CHECK_LACKS(s, "tf");
    CHECK(wf_dot_string(NULL) == NULL);
    wf_print_dot(NULL, stdout); /* prints nothing, does not crash */
    wf_print_dot(in, NULL);
    CHECK_EQ_I64(wf_fusion_status(f), WF_OK);
    wf_fusion_free(f);
}

/* wf_print_dot writes exactly what wf_dot_string keeps. */
TEST(dot_print_equals_string) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_split(out, 0, 4);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    wf_print_dot(out, m);
    fclose(m);
    CHECK_STR(buf, wf_dot_string(out));
    free(buf);
    wf_fusion_free(f);
}

/* Every heap allocation of the printer failing in turn: wf_dot_string gives
   NULL with WF_ERR_MEMORY, or the whole text; never a crash or a cut text. */
TEST(dot_string_out_of_memory_is_clean) {
    wf_fusion *f = wf_fusion_new();
    wf_tv *mid, *out = copy_chain(f, 8, 64, &mid);
    wf_tv_split(out, 1, 16);
    wf_tv_merge(out, 0);
    char *want = dot_of(out, NULL);
    bool done = false;
    long n = 0;
    for (; !done && n < 64; n++) {
        heap_test_failures = 0;
        heap_test_countdown = n;
        const char *got = wf_dot_string(out);
        heap_test_countdown = -1;
        done = heap_test_failures == 0;
        if (got) {
            CHECK_STR(got, want);
        } else {
            CHECK_EQ_I64(wf_fusion_status(f), WF_ERR_MEMORY);
            CHECK_STR(wf_fusion_error(f), "out of memory");
            wf_fusion_clear_error(f);
        }
    }
    CHECK(done);
    CHECK(n > 8); /* the sweep failed every one of the printer's allocations */
    free(want);
    wf_fusion_free(f);
}
