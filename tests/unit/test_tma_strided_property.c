/*
 * test_tma_strided_property.c -- random strided TMA tiles (seed 001, step
 * 3): boxes by partitioning or whole, element strides 1 to 9 (dividing the
 * box or not, up to larger than it), 2-D and 3-D tensors of several dtypes,
 * loads and stores, the stride IterDomain serial or on blocks, swizzled
 * shared memory, inlining. Each case is refused at compile time with a
 * message, or copies exactly on the CPU reference executor (which moves the
 * data by the inferred map: tile, element strides, zero fill), so a wrong
 * inference shows as wrong data. The FTTC case (a stride that does not
 * divide the box on a tensor larger than the box) must be refused for a
 * store; a load is accepted (its readers are guarded to the box, so the
 * holes TMA fills with the next box's elements are never read) and must be
 * exact like any other. Seeded
 * (WF_TMA_STRIDED_SEED, WF_TMA_STRIDED_CASES; 60 by default).
 */
#include <stdlib.h>

#include "harness.h"

static unsigned next(uint64_t *s, unsigned n) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*s >> 33) % n);
}

typedef struct {
    int r;          /* the strided axis of the tensor (0, or 1 under an outer axis) */
    int64_t box, s; /* box 0: the whole extent is the box */
    bool stride_on_bidy;
} plan;

static void swap_axes(wf_tv *t, int a) {
    int order[8];
    for (int i = 0; i < wf_tv_ndim(t); i++)
        order[i] = i;
    order[a] = a + 1;
    order[a + 1] = a;
    wf_tv_reorder_all(t, order);
}

/* [.., R, C] -> [.., R / box, s, box / s, C] or [.., s, R / s, C]; returns
   the tile axis. */
static int stride_axis(wf_tv *t, const plan *p) {
    int r = p->r;
    if (p->box) {
        wf_tv_split(t, r, p->box);
        r++;
    }
    wf_tv_split(t, r, p->s);
    swap_axes(t, r);
    return r + 1;
}

static void schedule(wf_tv *t, const plan *p, bool tma) {
    int tile = stride_axis(t, p);
    if (p->box)
        wf_tv_parallelize(t, tile - 2, WF_BIDX);
    if (p->stride_on_bidy)
        wf_tv_parallelize(t, tile - 1, WF_BIDY);
    wf_tv_parallelize(t, tile, tma ? WF_BULK : WF_TIDY);
    wf_tv_parallelize(t, tile + 1, tma ? WF_BULK : WF_TIDX);
}

static wf_fusion *random_case(uint64_t *r, bool *load, bool *fttc) {
    static const wf_dtype types[] = {WF_F32, WF_F16, WF_U8, WF_F64};
    static const int64_t boxes[] = {0, 4, 6, 8, 9, 12, 16, 24, 32};
    bool three = next(r, 3) == 0;
    int64_t shape[3], rows = 3 + (int64_t)next(r, 60);
    plan p = {three, boxes[next(r, 9)], 1 + (int64_t)next(r, 9), next(r, 2) == 0};
    if (p.box == 0 && rows > 32)
        rows = 32; /* the whole extent as the box: at most 32 rows on TIDy */
    shape[0] = three ? 2 + next(r, 3) : rows;
    shape[1] = three ? rows : 16 << next(r, 2); /* 16 or 32: tile x C <= 1024 threads */
    shape[2] = 16 << next(r, 2);
    int64_t box = p.box ? p.box : rows;
    *fttc = box % p.s != 0 && rows > box && p.s < box;
    wf_dtype dt = types[next(r, 4)];
    wf_fusion *f = wf_fusion_new();
    wf_tv *in = wf_input(f, dt, three ? 3 : 2, shape), *s = wf_set(in), *o = wf_set(s);
    wf_output(f, o);
    wf_tv_set_memory(s, WF_MEM_SHARED);
    *load = next(r, 2) == 0;
    wf_tv *tma = *load ? s : o, *other = *load ? o : s;
    wf_tv_set_ldst(tma, WF_LDST_TMA);
    schedule(tma, &p, true);
    schedule(other, &p, false);
    unsigned a = next(r, 6);
    if (a == 0)
        wf_tv_tma_swizzle(s, 32 << next(r, 3));
    if (next(r, 2) == 0)
        wf_inline_most(f);
    return f;
}

TEST(tma_strided_property_random_schedules_are_exact_or_rejected) {
    const char *s = getenv("WF_TMA_STRIDED_SEED"), *c = getenv("WF_TMA_STRIDED_CASES");
    uint64_t seed = s ? strtoull(s, NULL, 10) : 77;
    int cases = c ? atoi(c) : 60, accepted = 0, rejected = 0, wrong = 0;
    for (int i = 0; i < cases && wrong < 3; i++) {
        uint64_t r = (seed + (uint64_t)i) * 0x9E3779B97F4A7C15ull + 5;
        bool load, fttc;
        wf_fusion *f = random_case(&r, &load, &fttc);
        wf_compile_options opt = {.sm = 90};
        wf_kernel *k = wf_fusion_status(f) == WF_OK ? wf_compile(f, &opt) : NULL;
        if (!k) {
            const char *msg = wf_fusion_error(f);
            rejected++;
            if (getenv("WF_PROP_VERBOSE"))
                printf("  rejected: %s\n", msg);
            if (!(strlen(msg) > 10 && strchr(msg, 'T'))) {
                printf("  seed %llu: rejected without a clear error: %s\n",
                       (unsigned long long)(seed + (uint64_t)i), msg);
                wrong++;
            }
            wf_fusion_free(f);
            continue;
        }
        wf_kernel_free(k);
        if (fttc && !load) {
            printf("  seed %llu: an FTTC store was accepted\n",
                   (unsigned long long)(seed + (uint64_t)i));
            wrong++;
        }
        test_state one = {0};
        wf_kernel *k2 = harness_interp_sm(&one, f, NULL, 90, __FILE__, __LINE__);
        if (k2 && accepted < 8) /* NVRTC on the first few: it takes a while per kernel */
            harness_nvrtc(&one, k2, 90, __FILE__, __LINE__);
        wf_kernel_free(k2);
        accepted++;
        if (one.failed) {
            printf("  seed %llu (%s): wrong result or NVRTC failed\n",
                   (unsigned long long)(seed + (uint64_t)i), load ? "load" : "store");
            wf_print_transforms(f, stdout);
            wrong++;
        }
        wf_fusion_free(f);
    }
    printf("  tma strided property: %d accepted and exact, %d rejected, %d wrong (seeds from "
           "%llu)\n",
           accepted, rejected, wrong, (unsigned long long)seed);
    CHECK_EQ_I64(wrong, 0);
    CHECK(accepted > cases / 4);
}
