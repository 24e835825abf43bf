"""weft.jit / Fusion.compile_auto (wf_auto_kernel) and Fusion.schedule_auto
(wf_schedule_auto) on the CPU executor, against numpy."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(7)


def softmax_fusion():
    f = weft.Fusion()
    x = f.input(weft.f32, [-1, -1])
    m = weft.broadcast(weft.amax(x, [1]), [False, True])
    e = weft.exp(weft.sub(x, m))
    s = weft.broadcast(weft.sum(e, [1]), [False, True])
    f.output(weft.div(e, s))
    return f


def np_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_jit_softmax_reuses_kernels_per_signature():
    f = softmax_fusion()
    k = weft.jit(f)
    assert k.kernel_count == 0
    for rows, cols in [(6, 64), (5, 64), (3, 7)]:
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        np.testing.assert_allclose(k(x), np_softmax(x), rtol=1e-5, atol=1e-6)
    assert k.kernel_count == 2  # 5 and 6 rows of 64 share a kernel
    assert k.last_info == {
        "scheduler": "normalization",
        "summary": "inner rows, rows per block 16, threads 8, row persistent in registers",
    }


def test_jit_bad_input_raises_and_keeps_working():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, -1])
    f.output(weft.add(a, a))
    k = f.compile_auto()
    with pytest.raises(weft.ArgumentError, match="is f32 \\(numpy float32\\), but the array holds float64"):
        k(np.zeros((2, 3)))
    assert k.kernel_count == 0
    x = rng.standard_normal((9, 64)).astype(np.float32)
    np.testing.assert_array_equal(k(x), x + x)
    assert k.last_info["summary"] == "2-D over 2 dims, threads 32, vector 4, unroll 1"


def test_schedule_auto_returns_the_info_and_compiles():
    f = weft.Fusion()
    a = f.input(weft.f32, [100, 1536])
    f.output(weft.sum(a, [1]))
    info = f.schedule_auto()
    assert info == {"scheduler": "reduction", "summary": "inner, rows per block 1, threads 512"}
    x = rng.random((100, 1536)).astype(np.float32)
    np.testing.assert_allclose(f.compile().run(x), x.sum(axis=1), rtol=1e-5)


def test_schedule_auto_unsupported_message():
    f = weft.Fusion()
    x = f.input(weft.f32, [8, 8])
    s = weft.broadcast(weft.sum(weft.transpose(x, 0, 1), [1]), [False, True])
    f.output(weft.add(x, s))
    with pytest.raises(weft.UnsupportedError, match="no scheduler covers this fusion"):
        f.schedule_auto()
