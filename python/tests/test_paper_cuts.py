"""Issue 21's paper cuts in the Python layer: reductions take an int, a list or
None; min / max / prod / mean / var exist; dtypes print as numpy names and are
accepted as numpy writes them; promotion and output shapes come from the C
library; a non-contiguous view gets the fix in its error."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(21)
X = rng.standard_normal((4, 6)).astype(np.float32)


def run1(build, shape, x=X):
    f = weft.Fusion()
    a = f.input(weft.f32, shape)
    f.output(build(a))
    f.inline_most()
    return f.compile().run(x)


@pytest.mark.parametrize("axes, np_axis", [(1, 1), ([1], 1), ((0,), 0), (-1, -1), (None, None), ([0, 1], (0, 1))])
def test_sum_takes_an_int_a_list_or_none(axes, np_axis):
    np.testing.assert_allclose(run1(lambda a: weft.sum(a, axes), [4, 6]), X.sum(axis=np_axis), rtol=1e-5)


def test_sum_refuses_other_axes_by_name():
    f = weft.Fusion()
    a = f.input(weft.f32, [4, 6])
    with pytest.raises(TypeError) as e:
        weft.sum(a, 1.0)
    assert str(e.value) == "weft.sum: axes must be an int, a list of ints or None, not 1.0"
    with pytest.raises(TypeError) as e:
        weft.mean(a, [0, "1"])
    assert str(e.value) == "weft.mean: axes must be an int, a list of ints or None, not [0, '1']"
    with pytest.raises(weft.ArgumentError):
        weft.prod(a, 2)  # out of range: the library's error


@pytest.mark.parametrize(
    "name, ref",
    [("prod", np.prod), ("amax", np.max), ("amin", np.min), ("max", np.max), ("min", np.min),
     ("mean", np.mean), ("var", np.var)],
)
@pytest.mark.parametrize("shape", [[4, 6], [-1, -1]])
def test_reductions_match_numpy(name, ref, shape):
    fn = getattr(weft, name)
    np.testing.assert_allclose(run1(lambda a: fn(a, 1), shape), ref(X, axis=1), rtol=1e-5, atol=1e-6)
    if shape == [4, 6]:  # a reduction over dim 0 of symbolic extents needs a schedule
        np.testing.assert_allclose(run1(lambda a: fn(a, [0]), shape), ref(X, axis=0), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(run1(lambda a: fn(a), shape), ref(X), rtol=1e-5, atol=1e-6)


def test_var_ddof_and_mean_types():
    np.testing.assert_allclose(run1(lambda a: weft.var(a, 1, ddof=1), [4, 6]), X.var(axis=1, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(run1(lambda a: weft.var(a, 1, ddof=1), [-1, -1]), X.var(axis=1, ddof=1), rtol=1e-5)
    f = weft.Fusion()
    i = f.input("int32", [4, 6])
    h = f.input("float16", [4, 6])
    assert weft.mean(i, 1).dtype == weft.f32 and weft.var(i).dtype == weft.f32
    assert weft.mean(h, 1).dtype == weft.f16 and weft.var(h, 1).dtype == weft.f16
    assert weft.sum(i, 1).dtype == weft.i64 and weft.prod(i, 1).dtype == weft.i64
    with pytest.raises(weft.ArgumentError) as e:
        weft.var(f.input(weft.f32, [4, 1]), 1, ddof=1)
    assert str(e.value) == "weft.var: ddof 1 leaves no degrees of freedom (1 elements are reduced)"


def test_dtypes_print_as_numpy_names():
    names = [str(t) for t in weft.DType]
    assert names == ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64",
                     "uint8", "bool"]
    f = weft.Fusion()
    a = f.input(weft.f16, [4])
    assert str(a.dtype) == "float16" and "%s" % a.dtype == "float16" and f"{a.dtype}" == "float16"
    assert repr(weft.bf16) == "weft.bf16"
    assert repr(a) == "<weft.Tensor T0 shape=[4] dtype=float16>"


@pytest.mark.parametrize(
    "spelling, want",
    [("float32", weft.f32), ("f32", weft.f32), (np.float32, weft.f32), (np.dtype("float16"), weft.f16),
     ("bfloat16", weft.bf16), ("bf16", weft.bf16), ("int8", weft.i8), (np.uint8, weft.u8),
     ("bool", weft.bool_), (np.bool_, weft.bool_), ("<f8", weft.f64), (weft.i64, weft.i64), (6, weft.i32)],
)
def test_input_takes_the_dtype_as_numpy_writes_it(spelling, want):
    f = weft.Fusion()
    assert f.input(spelling, [4]).dtype == want
    assert weft.cast(f.input(weft.f32, [4]), spelling).dtype == want


def test_unknown_dtype_names_the_choices():
    f = weft.Fusion()
    with pytest.raises(weft.ArgumentError) as e:
        f.input("float8", [4])
    assert str(e.value) == (
        "weft: 'float8' is not a weft dtype; use one of float32, float16, bfloat16, float64, int8, "
        "int16, int32, int64, uint8, bool (or weft.f32 ..., a numpy dtype)"
    )
    with pytest.raises(weft.ArgumentError):
        f.input(np.complex64, [4])


def test_promote_is_the_librarys():
    f = weft.Fusion()
    for x in weft.DType:
        for y in weft.DType:
            a, b = f.input(x, [2]), f.input(y, [2])
            assert weft.promote(x, y) == (a + b).dtype
    assert weft.promote(weft.u8, weft.i8) == weft.i16
    assert weft.promote("float16", "bfloat16") == weft.f32


def test_output_shapes_come_from_the_domains():
    f = weft.Fusion()
    a = f.input(weft.f32, [1, -1])  # a broadcast-like constant 1 beside a symbol
    b = f.input(weft.f32, [-1, -1])
    c = weft.broadcast(f.input(weft.f32, [-1]), [True, False])
    out = a * b + c
    f.output(out)
    assert out._shape_expr() == [1, ("in", 0, 1)]  # the library's choice: a's extents
    f.inline_most()
    x, y, z = np.ones((1, 5), np.float32), np.ones((1, 5), np.float32), np.ones(5, np.float32)
    assert f.compile().run(x, y, z).shape == (1, 5)
    g = weft.Fusion()
    b, v = g.input(weft.f32, [-1, -1]), g.input(weft.f32, [-1])
    assert (weft.broadcast(v, [True, False]) + b)._shape_expr() == [("in", 0, 0), ("in", 1, 0)]
    assert weft.transpose(b, 0, 1)._shape_expr() == [("in", 0, 1), ("in", 0, 0)]


def test_non_contiguous_view_gets_the_fix():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, -1])
    f.output(weft.exp(a))
    k = f.compile()
    with pytest.raises(weft.ArgumentError) as e:
        k.run(X[:, ::2])
    assert str(e.value) == (
        "input 0: dim 1 has stride 2, but T0 is contiguous there (stride 1 expected); pass a contiguous "
        "copy (np.ascontiguousarray in Python), or declare T0 with wf_input_strided (Python: "
        "input_strided), contiguity 0 in dim 1"
    )
    np.testing.assert_allclose(k.run(np.ascontiguousarray(X[:, ::2])), np.exp(X[:, ::2]), rtol=1e-6)


def test_extent_mismatch_names_the_inputs():
    f = weft.Fusion()
    a, b = f.input(weft.f32, [4, -1]), f.input(weft.f32, [4, -1])
    ea = weft.exp(a)
    nb = -b
    f.output(ea + nb)
    f.inline_most()
    k = f.compile()
    with pytest.raises(weft.ArgumentError) as e:
        k.run(np.zeros((4, 5), np.float32), np.zeros((4, 7), np.float32))
    assert str(e.value) == (
        "input 0 (T0) has extent 5 in dim 1 but input 1 (T1) has 7 in dim 1; they must be equal, as "
        "T2 and T3 are operands of T4 (its dim 1)"
    )
