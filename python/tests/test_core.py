"""The core Python API: definition, inspection, schedule calls, printing."""

import io

import numpy as np
import pytest

import weft


def test_library_loads_and_reports_version():
    assert weft.__version__.count(".") == 2
    assert weft.library_path.endswith("libweft.so")


def test_input_and_inspection():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 1024])
    assert a.ndim == 2
    assert a.name == 0
    assert a.dtype == weft.f32
    assert a.shape == [-1, 1024]
    assert a.axis(1).extent == 1024
    assert a.axis(-1).extent == 1024
    assert a.axis(0).extent == -1
    assert [d.extent for d in a.loop_domain] == [-1, 1024]
    assert [d.extent for d in a.logical_domain] == [-1, 1024]
    assert a.compute_at == 0
    assert a.fusion is f
    assert f.inputs == [a]
    f.free()


def test_ops_types_and_names():
    f = weft.Fusion()
    a = f.input(weft.f32, [4, 8])
    b = f.input(weft.f16, [4, 8])
    c = f.input(weft.i32, [4, 8])
    assert (a + b).dtype == weft.f32
    assert weft.exp(c).dtype == weft.f32  # float-only op on an integer
    assert weft.neg(c).dtype == weft.i32
    assert weft.cast(a, weft.f16).dtype == weft.f16
    assert weft.promote(weft.u8, weft.i8) == weft.i16
    assert weft.promote(weft.f16, weft.bf16) == weft.f32
    assert weft.promote(weft.bool_, weft.i8) == weft.i8
    for t in (a - a, a * a, a / a, -a, abs(a), a ** a, weft.maximum(a, a), weft.minimum(a, a)):
        assert isinstance(t, weft.Tensor) and t.shape == [4, 8]
    for fn in (weft.exp, weft.log, weft.sqrt, weft.rsqrt, weft.sin, weft.cos, weft.tanh,
               weft.sigmoid, weft.relu, weft.reciprocal, weft.set):
        assert fn(a).shape == [4, 8]
    t = weft.transpose(a, 0, 1)
    assert t.shape == [8, 4]
    p = weft.permute(f.input(weft.f32, [2, 3, 5]), [2, 0, 1])
    assert p.shape == [5, 2, 3]
    bc = weft.broadcast(f.input(weft.f32, [8]), [True, False])
    assert bc.shape == [1, 8]
    assert weft.sum(a, [1]).shape == [4] and weft.amax(a, [0, 1]).shape == []
    assert [d.is_reduction for d in weft.sum(a, [1]).logical_domain] == [False, True]
    assert (a + 1.0).dtype == weft.f32  # a Python number is a scalar constant
    with pytest.raises(TypeError):
        a + "1.0"
    f.free()


def test_schedule_methods_chain_and_change_the_loop_domain():
    f = weft.Fusion()
    a = f.input(weft.f32, [64, 256])
    b = weft.set(a)
    f.output(b)
    assert b.split(1, 128) is b
    assert [d.extent for d in b.loop_domain] == [64, 2, 128]
    b.merge(0)
    assert [d.extent for d in b.loop_domain] == [128, 128]
    b.split_outer(0, 4)
    assert [d.extent for d in b.loop_domain] == [4, 32, 128]
    b.reorder({2: 0})
    assert [d.extent for d in b.loop_domain] == [128, 4, 32]
    b.reorder_all([2, 0, 1])
    assert [d.extent for d in b.loop_domain] == [4, 32, 128]
    b.merge_axes(0, 1)
    assert [d.extent for d in b.loop_domain] == [128, 128]
    b.parallelize(0, weft.BIDX).parallelize(1, weft.TIDX)
    b.propagate_transforms()
    b.parallelize_all_like([weft.BIDX])
    f.inline_most()
    assert b.compute_at == 2  # the output: at its full loop nest
    k = f.compile()
    assert k.launch.grid == (128, 1, 1)
    assert k.launch.block == (128, 1, 1)
    assert k.launch.smem == 0
    assert k.launch.tmem == []
    assert "blockIdx.x" in k.source
    x = np.arange(64 * 256, dtype=np.float32).reshape(64, 256)
    np.testing.assert_array_equal(k.run(x), x)


def test_cache_after_and_before_and_memory():
    f = weft.Fusion()
    a = f.input(weft.f32, [32, 32])
    b = weft.set(a)
    f.output(b)
    s = a.cache_after()
    s.set_memory(weft.SHARED)
    c = b.cache_before()
    assert s.shape == [32, 32] and c.shape == [32, 32]
    assert s.dtype == weft.f32
    math = f.math_string()
    for t in (a, b, s, c):
        assert "T%d_" % t.name in math
    assert "_s_float" in math  # the shared tensor
    k = f.compile()
    assert k.launch.smem == 32 * 32 * 4
    x = np.random.default_rng(0).standard_normal((32, 32)).astype(np.float32)
    np.testing.assert_array_equal(k(x), x)


def test_print_math_transforms_and_kernel():
    f = weft.Fusion()
    a = f.input(weft.f32, [2, 4])
    b = weft.set(a)
    f.output(b)
    b.split(1, 2)
    out = io.StringIO()
    f.print_math(file=out)
    assert out.getvalue() == f.math_string()
    assert "T1_g_float[iS2{2}, iS4{2}, iS5{2}]\n   = Set( T0_g_float[iS0{2}, iS1{4}] )" in f.math_string()
    t = f.transforms_string()
    assert "split" in t.lower() or "loop domain" in t
    out = io.StringIO()
    f.print_transforms(file=out)
    assert out.getvalue() == t
    assert "__global__" in f.kernel_string()


def test_print_falls_back_to_the_FILE_printers(monkeypatch):
    f = weft.Fusion()
    a = f.input(weft.f32, [2, 4])
    f.output(weft.set(a))
    want = f.math_string()
    monkeypatch.setattr(weft.core._lib, "has", lambda name: False)
    assert f.math_string() == want
    assert "logical domain" in f.transforms_string()


def test_context_manager_frees_the_fusion_and_the_kernel_outlives_it():
    with weft.Fusion() as f:
        a = f.input(weft.f32, [4])
        f.output(weft.set(a))
        k = f.compile()
    assert not f.alive
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(k.run(x), x)
    k.free()


def test_allocation_and_loop_domain_handles():
    f = weft.Fusion()
    a = f.input(weft.f32, [32, 32])
    b = weft.set(a)
    f.output(b)
    s = a.cache_after()
    s.set_memory(weft.SHARED)
    plain = s.loop_domain
    s.swizzle(0, 1)
    s.set_allocation_domain(s.loop_domain, True)
    s.set_loop_domain(plain)
    assert s.loop_domain == plain
    k = f.compile()
    x = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32)
    np.testing.assert_array_equal(k.run(x), x)


def test_iterdomain_equality_and_repr():
    f = weft.Fusion()
    a = f.input(weft.f32, [3, 5])
    assert a.axis(0) == a.loop_domain[0]
    assert a.axis(0) != a.axis(1)
    assert repr(a.axis(1)) == "<IterDomain extent=5>"
    assert repr(a) == "<weft.Tensor T0 shape=[3, 5] dtype=float32>"
    f.free()
    assert repr(a) == "<weft.Tensor of a freed fusion>"


def test_cuda_available_is_a_bool():
    assert isinstance(weft.cuda_available(), bool)
