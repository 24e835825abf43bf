"""Scalar constants, comparisons and where from Python: weft.full, `a * 2.0`,
`a > 0`, weft.where, checked against numpy on the CPU reference executor."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(7)


def _run(f, out, *xs):
    f.output(out)
    f.inline_most()
    k = f.compile()
    return k.run(*xs)


def test_operators_with_python_numbers_keep_the_tensor_type():
    f = weft.Fusion()
    a = f.input(weft.f16, [16])
    i = f.input(weft.i32, [16])
    assert (a * 2.0).dtype == weft.f16  # a float number beside a float tensor
    assert (2 - a).dtype == weft.f16
    assert (i * 2.5).dtype == weft.f32  # a float number beside an integer tensor: f32
    assert (i + 3).dtype == weft.i32
    assert (a > 0).dtype == weft.bool_
    assert weft.eq(i, 3).dtype == weft.bool_
    assert weft.where(a > 0, a, 0).dtype == weft.f16
    assert weft.where(a > 0, 1.5, 0).dtype == weft.f32  # two numbers: their promotion
    s = f.full(2, weft.i8)
    assert s.is_scalar and not a.is_scalar
    assert (i + s).dtype == weft.i32
    f.free()


def test_relu_by_where_and_affine_match_numpy():
    f = weft.Fusion()
    a = f.input(weft.f32, [64])
    y = weft.where(a > 0.0, a * 2.0 + 1, 0.0)
    x = rng.standard_normal(64).astype(np.float32)
    x[3] = np.nan
    got = _run(f, y, x)
    want = np.where(x > 0, x * np.float32(2) + np.float32(1), np.float32(0))
    np.testing.assert_array_equal(got, want)
    assert got[3] == 0  # NaN > 0 is false


def test_comparisons_match_numpy_on_integers_and_floats():
    for op, npop in [
        (weft.eq, np.equal),
        (weft.ne, np.not_equal),
        (weft.lt, np.less),
        (weft.le, np.less_equal),
        (weft.gt, np.greater),
        (weft.ge, np.greater_equal),
    ]:
        f = weft.Fusion()
        a = f.input(weft.i16, [32])
        b = f.input(weft.f32, [32])
        y = op(a, b)
        x = rng.integers(-4, 4, 32).astype(np.int16)
        z = rng.integers(-4, 4, 32).astype(np.float32)
        z[0] = np.nan
        got = _run(f, y, x, z)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, npop(x.astype(np.float32), z))


def test_maximum_and_minimum_propagate_nan():
    f = weft.Fusion()
    a = f.input(weft.f32, [8])
    b = f.input(weft.f32, [8])
    y = weft.maximum(a, b)
    x = np.array([np.nan, 1, 2, np.nan, -1, 0, 5, 3], np.float32)
    z = np.array([1, np.nan, 3, np.nan, -2, 0, 4, 3], np.float32)
    np.testing.assert_array_equal(_run(f, y, x, z), np.maximum(x, z))
    f = weft.Fusion()
    a = f.input(weft.f32, [8])
    y = weft.minimum(a, 0.5)
    np.testing.assert_array_equal(_run(f, y, x), np.minimum(x, np.float32(0.5)))


def test_kernel_text_spells_constants_as_literals():
    f = weft.Fusion()
    a = f.input(weft.f64, [8])
    y = a * 0.1
    f.output(y)
    assert "0.10000000000000001" in f.kernel_string()
    assert "double(0.10000000000000001)" in f.math_string()


def test_scalar_constant_refusals_are_argument_errors():
    f = weft.Fusion()
    a = f.input(weft.u8, [8])
    with pytest.raises(weft.ArgumentError, match="does not fit uint8"):
        a + 300
    with pytest.raises(weft.ArgumentError, match="is not a value of int32"):
        f.full(2.5, weft.i32)
    s = f.full(1.0)
    with pytest.raises(weft.ArgumentError, match="is only an operand of wf_binary"):
        weft.set(s)
    with pytest.raises(TypeError, match="unsupported operand"):
        a + "x"
    with pytest.raises(weft.ArgumentError, match="the condition T0 is uint8, not bool"):
        weft.where(a, a, 0)
