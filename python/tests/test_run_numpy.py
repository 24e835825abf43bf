"""Kernels run on the CPU reference executor with numpy arrays, compared
with numpy's own results."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(13)


def test_copy_with_symbolic_extents_allocates_the_output():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 1024])
    b = weft.set(a)
    f.output(b)
    b.split(1, 128).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    k = f.compile()
    assert k.launch.grid == (-1, 1, 1)  # blockIdx.x runs over the symbolic rows
    assert k.launch.block == (128, 1, 1)
    x = rng.standard_normal((3, 1024)).astype(np.float32)
    y = k.run(x)
    assert y.shape == (3, 1024) and y.dtype == np.float32
    np.testing.assert_array_equal(y, x)
    # the same kernel, another size, and a caller's output buffer
    x = rng.standard_normal((5, 1024)).astype(np.float32)
    out = np.zeros_like(x)
    assert k.run(x, outputs=[out]) is out
    np.testing.assert_array_equal(out, x)


def transpose(n, variant):
    """transpose_tour.c's schedules: 0 naive, 1 shared-memory tile, 2 the
    tile XOR-swizzled."""
    f = weft.Fusion()
    a = f.input(weft.f32, [n, n])
    t = weft.transpose(a, 0, 1)
    f.output(t)
    s = a.cache_after() if variant else None
    t.split(0, 32).split(2, 32).reorder_all([0, 2, 1, 3])  # [row tile, col tile, row, col]
    t.propagate_transforms()
    for axis, p in enumerate((weft.BIDY, weft.BIDX, weft.TIDY, weft.TIDX)):
        t.parallelize(axis, p)
    if s is not None:
        s.set_memory(weft.SHARED)
        t.parallelize_all_like([weft.BIDX, weft.BIDY])
        s.reorder_all([0, 1, 3, 2])  # the tile is filled along the input's rows
        if variant == 2:  # transform before parallelizing
            plain = s.loop_domain
            s.swizzle(2, 3)
            s.set_allocation_domain(s.loop_domain, True)
            s.set_loop_domain(plain)
        s.parallelize(2, weft.TIDY).parallelize(3, weft.TIDX)
        s.inline_at(2)
    return f


@pytest.mark.parametrize("variant, smem, conflict", [(0, 0, 1), (1, 4096, 32), (2, 4096, 1)])
def test_transpose_through_a_shared_memory_tile(variant, smem, conflict):
    f = transpose(128, variant)
    k = f.compile()
    assert k.launch.grid == (4, 4, 1)
    assert k.launch.block == (32, 32, 1)
    assert k.launch.smem == smem
    x = rng.standard_normal((128, 128)).astype(np.float32)
    y = k.run(x)
    np.testing.assert_array_equal(y, x.T)
    st = k.stats
    assert st.smem_max_conflict_degree == conflict
    if variant:
        assert st.smem_accesses > 0
        # coalesced: every warp access of a 32-float row touches 4 sectors
        assert st.gmem_sectors == 4 * st.gmem_accesses
    else:
        assert st.gmem_sectors > 4 * st.gmem_accesses  # the naive reads stride down columns
    assert "shared" in k.report() or "global" in k.report()


def test_add_with_broadcast():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 16])
    v = f.input(weft.f32, [16])
    b = weft.broadcast(v, [True, False])
    c = a + b
    f.output(c)
    c.split(0, 2).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    c.propagate_transforms()
    c.parallelize_all_like()
    f.inline_most()
    k = f.compile()
    x = rng.standard_normal((6, 16)).astype(np.float32)
    y = rng.standard_normal(16).astype(np.float32)
    out = k.run(x, y)
    assert out.shape == (6, 16)
    np.testing.assert_array_equal(out, x + y[None, :])


OPS = [
    (lambda a, b: a + b, lambda x, y: x + y),
    (lambda a, b: a - b, lambda x, y: x - y),
    (lambda a, b: a * b, lambda x, y: x * y),
    (lambda a, b: a / b, lambda x, y: x / y),
    (lambda a, b: -a, lambda x, y: -x),
    (weft.maximum, np.maximum),
    (weft.minimum, np.minimum),
    (lambda a, b: weft.exp(a), lambda x, y: np.exp(x)),
    (lambda a, b: weft.tanh(b), lambda x, y: np.tanh(y)),
    (lambda a, b: weft.relu(a), lambda x, y: np.maximum(x, 0)),
    (lambda a, b: weft.abs(a), lambda x, y: np.abs(x)),
    (lambda a, b: b ** a, lambda x, y: y ** x),
    (lambda a, b: weft.sqrt(b), lambda x, y: np.sqrt(y)),
    (lambda a, b: weft.sigmoid(a), lambda x, y: 1 / (1 + np.exp(-x))),
    (lambda a, b: weft.reciprocal(b), lambda x, y: 1 / y),
    (lambda a, b: weft.log(b), lambda x, y: np.log(y)),
    (lambda a, b: weft.rsqrt(b), lambda x, y: 1 / np.sqrt(y)),
    (lambda a, b: weft.sin(a), lambda x, y: np.sin(x)),
    (lambda a, b: weft.cos(a), lambda x, y: np.cos(x)),
]


@pytest.mark.parametrize("ops", [OPS[:10], OPS[10:]], ids=["first", "second"])
def test_elementwise_ops_against_numpy(ops):
    f = weft.Fusion()
    a = f.input(weft.f32, [8, 8])
    b = f.input(weft.f32, [8, 8])
    for op, _ in ops:
        f.output(op(a, b))
    f.inline_most()
    k = f.compile()
    x = rng.standard_normal((8, 8)).astype(np.float32)
    y = rng.uniform(0.5, 2.0, (8, 8)).astype(np.float32)
    got = k.run(x, y)
    assert len(got) == len(ops)
    for g, (_, ref) in zip(got, ops):
        np.testing.assert_allclose(g, ref(x, y).astype(np.float32), rtol=2e-6, atol=1e-7)


def test_seventeen_parameters_run_exactly():
    f = weft.Fusion()
    a = f.input(weft.f32, [4])
    outs = [weft.set(a) for _ in range(16)]
    for o in outs:
        f.output(o)
    for o in outs:
        o.parallelize(0, weft.TIDX)
    k = f.compile()
    x = np.arange(4, dtype=np.float32)
    got = k.run(x)
    assert len(got) == 16
    for g in got:
        np.testing.assert_array_equal(g, x)


@pytest.mark.parametrize(
    "src, dst, values, expect",
    [
        (weft.f32, weft.f16, [1.5, -2.25, 65504.0, 1e-8], None),
        (weft.f32, weft.i32, [1.9, -1.9, 3e9, float("nan")], [1, -1, 2147483647, 0]),
        (weft.f32, weft.u8, [300.0, -5.0, 7.7, 255.0], [255, 0, 7, 255]),
        (weft.f32, weft.bool_, [0.0, -0.5, 2.0, 0.0], [False, True, True, False]),
        (weft.i32, weft.i8, [127, 128, -129, 1000], [127, -128, 127, -24]),
        (weft.f16, weft.f64, [0.5, -3.0, 1024.0, 0.099975586], None),
    ],
)
def test_casts(src, dst, values, expect):
    f = weft.Fusion()
    a = f.input(src, [4])
    c = weft.cast(a, dst)
    f.output(c)
    assert c.dtype == dst
    k = f.compile()
    x = np.array(values, dtype=weft.numpy_dtype(src))
    y = k.run(x)
    assert y.dtype == weft.numpy_dtype(dst)
    want = x.astype(weft.numpy_dtype(dst)) if expect is None else np.array(
        expect, weft.numpy_dtype(dst))
    np.testing.assert_array_equal(y, want)


def test_integer_promotion_and_division():
    f = weft.Fusion()
    a = f.input(weft.u8, [4])
    b = f.input(weft.i8, [4])
    c = a + b
    d = weft.div(f.input(weft.i32, [4]), f.input(weft.i32, [4]))
    f.output(c)
    f.output(d)
    assert c.dtype == weft.i16 and d.dtype == weft.i32
    k = f.compile()
    x = np.array([200, 1, 255, 0], np.uint8)
    y = np.array([100, -1, 127, -128], np.int8)
    p = np.array([7, -7, 5, 3], np.int32)
    q = np.array([2, 2, 0, -1], np.int32)
    got_c, got_d = k.run(x, y, p, q)
    np.testing.assert_array_equal(got_c, x.astype(np.int16) + y.astype(np.int16))
    np.testing.assert_array_equal(got_d, [3, -3, -1, -3])  # truncation; x / 0 = -1


def test_strided_input_takes_numpy_views():
    f = weft.Fusion()
    a = f.input_strided(weft.f32, [-1, -1], [False, False])
    b = weft.set(a)
    f.output(b)
    k = f.compile()
    base = rng.standard_normal((8, 12)).astype(np.float32)
    view = base[::2, 1::3]
    np.testing.assert_array_equal(k.run(view), view)
    np.testing.assert_array_equal(k.run(base.T), base.T)


def test_permute_output_shape_bound_from_symbolic_inputs():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, -1, 4])
    p = weft.permute(a, [2, 0, 1])
    f.output(p)
    k = f.compile()
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y = k.run(x)
    assert y.shape == (4, 2, 3)
    np.testing.assert_array_equal(y, np.transpose(x, (2, 0, 1)))


def test_outputs_whose_shape_cannot_be_derived_are_asked_for():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1])
    b = weft.set(a)
    f.output(b)
    k = f.compile()
    k._outs[0].shape_expr = None  # as if the library did not say which input's size b's extent is
    x = np.arange(5, dtype=np.float32)
    with pytest.raises(weft.ArgumentError, match=r"cannot derive the shape of output 0 \(T1\).*pass outputs="):
        k.run(x)
    out = np.zeros(5, np.float32)
    np.testing.assert_array_equal(k.run(x, outputs=out), x)


def test_reductions_as_outputs_have_their_kept_dims():
    """A sum's buffer has the dims it keeps: a scalar, and a row sum."""
    rng = np.random.default_rng(17)
    x = rng.standard_normal((6, 16)).astype(np.float32)
    f = weft.Fusion()
    a = f.input(weft.f32, [6, 16])
    rows = weft.sum(a, [1])
    total = weft.sum(rows, [0])
    f.output(rows)
    f.output(total)
    f.inline_most()
    got_rows, got_total = f.compile().run(x)
    assert got_rows.shape == (6,) and got_total.shape == ()
    np.testing.assert_allclose(got_rows, x.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_total, x.sum(), rtol=1e-5, atol=1e-4)


def test_reader_of_a_sum_runs_after_the_sum():
    """x * sum(x): x must not be computed in the sum's loop with its reader
    (fuzzer finding F17); inline_most keeps it in a loop of its own."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(16).astype(np.float32)
    f = weft.Fusion()
    a = f.input(weft.f32, [16])
    b = weft.set(a)
    s = weft.sum(b, [0])
    y = b * weft.broadcast(s, [True])
    f.output(y)
    f.inline_most()
    assert b.compute_at == 0
    got = f.compile().run(x)
    np.testing.assert_allclose(got, x * x.sum(), rtol=1e-5, atol=1e-5)


def test_rfactor_from_python():
    """t.rfactor(axes) splits a reduction: an f16 row sum whose partials the
    producer holds in float, each thread summing its own elements first."""
    x = np.random.default_rng(11).uniform(-4, 4, (8, 64)).astype(np.float16)
    f = weft.Fusion()
    a = f.input(weft.f16, [8, 64])
    s = weft.sum(a, [1])
    f.output(s)
    s.split(1, 16).parallelize(2, weft.TIDX).parallelize(0, weft.BIDX)
    p = s.rfactor([1])
    assert p.dtype == weft.f32 and s.dtype == weft.f16
    assert [d.is_reduction for d in p.loop_domain] == [False, True, False]
    f.inline_most()
    got = f.compile().run(x)
    assert got.shape == (8,) and got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64), x.astype(np.float64).sum(1), rtol=2e-3, atol=2e-2)


def test_run_in_place_refuses_a_transpose_and_runs_an_elementwise_kernel():
    # outputs=x for a transpose: each thread reads an element another one
    # writes (it used to return 6 of 16 elements wrong): refused, x kept
    f = weft.Fusion()
    f.output(weft.transpose(f.input(weft.f32, [4, 4]), 0, 1))
    k = f.compile()
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    with pytest.raises(weft.ArgumentError) as e:
        k.run(x, outputs=x)
    assert str(e.value) == (
        "output 0 (T1) overlaps input 0 (T0): they are the same buffer, and weft cannot prove "
        "that the kernel reads each element of T0 only in the thread that then writes that "
        "element of T1 (an elementwise kernel with the same indexing); a kernel reads its "
        "inputs while it writes its outputs: pass a separate output buffer"
    )
    np.testing.assert_array_equal(x, np.arange(16, dtype=np.float32).reshape(4, 4))
    np.testing.assert_array_equal(k.run(x), x.T)
    # a view one element further on: a partial overlap, refused for any kernel
    g = weft.Fusion()
    b = weft.relu(g.input(weft.f32, [-1]))
    g.output(b)
    b.parallelize(0, weft.TIDX)
    k = g.compile()
    x = np.arange(-8, 8, dtype=np.float32)
    with pytest.raises(weft.ArgumentError, match=r"^output 0 \(T1\) overlaps input 0 \(T0\): T1's buffer starts 4 bytes after T0's"):
        k.run(x[:15], outputs=x[1:])
    # out = relu(x) into x itself: elementwise, each thread reads the element it writes
    assert k.run(x, outputs=x) is x
    np.testing.assert_array_equal(x, np.maximum(np.arange(-8, 8, dtype=np.float32), 0))
