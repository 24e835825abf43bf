"""The C examples and seed tests ported to Python, run on the CPU executor.

1. The shared-memory copy review (examples/gsgcopy_review.c,
   tests/seeds/test_seed000_gsgcopy.c): a global -> shared -> global copy of a
   2 x 4 tensor, scheduled six ways; the shared memory each allocates follows
   three rules: an axis parallelized on a type the memory is distributed
   across (shared memory: BIDx) is not allocated; one on a type the memory is
   shared among (TIDx) always is; otherwise axes left of the compute-at
   position are not allocated.
2. The "fancy transformations" (swizzles, splits, reorders, merges) of a
   4096 x 4096 copy, propagated to the whole fusion.
3. Tensor memory (Blackwell's tcgen05, tests/seeds/test_seed000_tmem.c):
   global -> registers -> tensor memory -> registers -> global, compiled for
   sm_100 and run on the executor, which models the 128-lane x 512-column
   tensor memory and its access rules; invalid schedules fail with the
   message that says why.
"""

import os

import numpy as np
import pytest

import weft

rng = np.random.default_rng(0)


# The 4096 x 4096 schedules take ~20 s each on the executor: their runs are
# checked by the C suite (tests/seeds/); here with WEFT_FULL_TESTS=1.
FULL = os.environ.get("WEFT_FULL_TESTS") == "1"


def run_full(k, shape):
    if FULL:
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_array_equal(k.run(x), x)


def nvrtc(k, sm):
    """NVRTC compiles the kernel when it is installed."""
    try:
        k.check_nvrtc(sm)
    except weft.UnsupportedError:
        pass


# ---- 1. the shared-memory copy review

GSG = [
    # title, inline position, TIDx axis, BIDx axis, floats of shared memory
    ("naive copy: no inlining, no parallelization", 0, None, None, 8),
    ("no inlining, axis 1 on BIDx", 0, None, 1, 2),
    ("inline at 1, no parallelization", 1, None, None, 4),
    ("inline at 1, axis 1 on BIDx", 1, None, 1, 1),
    ("inline at 1, axis 0 on TIDx", 1, 0, None, 8),
    ("inline at 1, axis 0 on TIDx, axis 1 on BIDx", 1, 0, 1, 2),
]


@pytest.mark.parametrize("title, pos, tidx, bidx, floats", GSG, ids=[g[0] for g in GSG])
def test_shared_memory_copy_review(title, pos, tidx, bidx, floats):
    with weft.Fusion() as f:
        tv0 = f.input(weft.f32, [2, 4])
        tv1 = weft.set(tv0)
        tv2 = weft.set(tv1)
        f.output(tv2)
        tv1.set_memory(weft.SHARED)
        if pos:
            tv1.inline_at(pos)
        for axis, p in ((tidx, weft.TIDX), (bidx, weft.BIDX)):
            if axis is not None:
                tv1.parallelize(axis, p)
                tv2.parallelize(axis, p)
        k = f.compile()
    assert k.launch.smem == 4 * floats
    assert "__shared__" in k.source
    nvrtc(k, 90)
    x = np.array([i * i - 3.5 for i in range(8)], np.float32).reshape(2, 4)
    np.testing.assert_array_equal(k.run(x), x)


# ---- 2. the fancy transformations


def fancy_transformations(tv):
    r = [3, 0, 2, 1]
    tv.swizzle(0, 1)
    tv.split(1, 64).split(0, 64).reorder_all(r)
    tv.swizzle(0, 1).swizzle(2, 3).swizzle(1, 2)
    tv.reorder_all(r)
    tv.merge(2).merge(0)


def test_fancy_transformations_propagated_copy():
    f = weft.Fusion()
    tv0 = f.input(weft.f32, [4096, 4096])
    tv1 = weft.set(tv0)
    tv2 = weft.set(tv1)
    f.output(tv2)
    fancy_transformations(tv2)
    assert [d.extent for d in tv2.loop_domain] == [4096, 4096]
    tv2.split(1, 128).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    tv2.propagate_transforms()
    tv2.parallelize_all_like()
    f.inline_most()
    assert tv1.ndim == 3 and tv1.compute_at == 3
    k = f.compile()
    assert k.launch.grid[0] == 4096 and k.launch.block[0] == 128 and k.launch.smem == 0
    assert "float T1[1];" in k.source  # the inlined local tensor is one register
    nvrtc(k, 90)
    run_full(k, (4096, 4096))


# ---- 3. tensor memory


def chain(shape, transpose12=False, dtype=weft.f32):
    f = weft.Fusion()
    tv0 = f.input(dtype, list(shape))
    tv1 = weft.set(tv0)
    tv2 = weft.set(tv1)
    tv3 = weft.transpose(tv2, 1, 2) if transpose12 else weft.set(tv2)
    tv4 = weft.set(tv3)
    f.output(tv4)
    tv2.set_memory(weft.TENSOR).set_ldst(weft.TMEM_STORE)
    if not transpose12:
        tv3.set_ldst(weft.TMEM_LOAD)
    return f, (tv0, tv1, tv2, tv3, tv4)


S, BX, BY, TX, TY, TZ = weft.SERIAL, weft.BIDX, weft.BIDY, weft.TIDX, weft.TIDY, weft.TIDZ

INVALID = [
    ((2, 3, 5, 7, 11, 13, 17), [BX, TX, S, BY, TY], 3, -2,
     "Not enough tensor memory lanes: tried to allocate 429, but only 128 available."),
    ((32, 3, 5, 7, 11, 13, 17), [TX, BX, TY, S, BY, TZ], 4, 1,
     "Not enough tensor memory columns: tried to allocate 1105, but only 512 available."),
    ((16, 2), [TX], None, 1,
     "Invalid data access pattern in TMem load/store: TMem load/store must be "
     "warp-collective, but the innermost extent is not a multiple of 32."),
    ((64, 2, 2), [TX, TY], None, 2,
     "Invalid data access pattern in TMem load/store: Warp linearly accessing lanes, but not "
     "with stride 1."),
    ((2, 2, 32, 2), [TY, S, TX], None, 3,
     "Invalid data access pattern in TMem load/store: Warps are not accessing the correct "
     "sub-partition."),
]


@pytest.mark.parametrize("shape, ptypes, inline, dimsep, message", INVALID)
def test_tensor_memory_invalid_schedules(shape, ptypes, inline, dimsep, message):
    f, (tv0, tv1, tv2, tv3, tv4) = chain(shape)
    for axis, p in enumerate(ptypes):
        if p != S:
            tv4.parallelize(axis, p)
    tv4.parallelize_all_like()
    if inline is not None:
        tv4.inline_all_at(inline)
    tv2.set_tmem_dimsep(dimsep)
    with pytest.raises(weft.ScheduleError) as e:
        f.compile(sm=100)
    assert message in str(e.value)


VALID = [
    # shape, parallel types, dim separator, lanes, columns
    ((2, 4, 4, 2), [TZ, TY, TX, S], 3, 32, 32),
    ((2, 8, 8, 2), [TZ, TY, TX, S], 3, 128, 32),
    ((8, 16, 8), [TY, TX, TZ], 2, 128, 32),
    ((128, 2, 2), [TX, TY, TZ], 1, 128, 32),
    ((1, 128, 2), [TX, TY, TZ], 2, 128, 32),
]


@pytest.mark.parametrize("shape, ptypes, dimsep, lanes, cols", VALID)
def test_tensor_memory_copies(shape, ptypes, dimsep, lanes, cols):
    f, (tv0, tv1, tv2, tv3, tv4) = chain(shape)
    for axis, p in enumerate(ptypes):
        if p != S:
            tv4.parallelize(axis, p)
    tv4.parallelize_all_like()
    tv2.set_tmem_dimsep(dimsep)
    k = f.compile(sm=100)
    assert k.launch.tmem == [(lanes, cols)]
    for ptx in ("tcgen05.st.sync.aligned.32x32b.x1.b32", "tcgen05.ld.sync.aligned.32x32b.x1.b32",
                "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                "tcgen05.dealloc.cta_group::1.sync.aligned.b32"):
        assert ptx in k.source
    nvrtc(k, 100)
    x = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(k.run(x), x)


def test_tensor_memory_transpose():
    f, tvs = chain((128, 2, 2), transpose12=True)
    tvs[3].set_ldst(weft.TMEM_LOAD)
    for tv in tvs[1:]:
        tv.parallelize(0, TX).parallelize(1, TY).parallelize(2, TZ)
    tvs[2].set_tmem_dimsep(1)
    k = f.compile(sm=100)
    assert k.launch.tmem[0][1] == 32
    x = rng.standard_normal((128, 2, 2)).astype(np.float32)
    np.testing.assert_array_equal(k.run(x), np.transpose(x, (0, 2, 1)))


def test_tensor_memory_complicated2():
    f, (tv0, tv1, tv2, tv3, tv4) = chain((4096, 4096))
    fancy_transformations(tv4)
    # columns: [4, 8, 2, 16, 2, 2]; lanes: [32, 128]
    for factor in (2, 2, 16, 2, 8):
        tv4.split(1, factor)
    tv4.split(0, 128)
    for axis, p in ((1, TX), (3, BY), (4, TY), (6, weft.BIDZ), (7, TZ)):
        tv4.parallelize(axis, p)
    tv4.propagate_transforms()
    tv4.parallelize_all_like()
    tv2.set_allocation_domain(tv2.loop_domain, True)
    tv2.set_tmem_dimsep(2)
    tv4.reorder({1: 4})
    tv4.propagate_transforms()
    tv4.inline_all_at(4)
    k = f.compile(sm=100)
    assert k.launch.tmem == [(128, 64)]
    assert (k.launch.grid, k.launch.block) == ((1, 8, 2), (128, 2, 2))
    nvrtc(k, 100)
    run_full(k, (4096, 4096))
