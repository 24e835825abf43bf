"""wf_compute_at / wf_reverse_compute_at from Python: the tiled matmul of
tests/unit/test_reverse_compute_at.c (C written back at the accumulator's
thread loops, A and B in shared memory at k0 with a cooperative fetch) run on
the CPU executor against numpy, and the refusals' exact messages."""

import numpy as np
import pytest

import weft


def matmul(m, n, k):
    f = weft.Fusion()
    a = f.input(weft.f32, [m, k])
    b = f.input(weft.f32, [k, n])
    prod = weft.broadcast(a, [False, True, False]) * weft.broadcast(
        weft.transpose(b, 0, 1), [True, False, False]
    )
    c = weft.sum(prod, [2])
    f.output(c)
    a_s, b_s = a.cache_after(), b.cache_after()
    a_s.set_memory(weft.SHARED)
    b_s.set_memory(weft.SHARED)
    acc = c.cache_before()
    # [i0, j0, i1, j1, k0, k1, i2, j2] on BIDy, BIDx, TIDy, TIDx
    acc.split(0, 4).split(0, 4).split(3, 4).split(3, 4).split(6, 8)
    acc.reorder_all([0, 2, 6, 1, 3, 7, 4, 5])
    for axis, p in enumerate([weft.BIDY, weft.BIDX, weft.TIDY, weft.TIDX]):
        acc.parallelize(axis, p)
    assert c.reverse_compute_at(acc, 4) is c
    weft.compute_at(a_s, acc, 5)
    b_s.compute_at_loops(acc, 5)
    for s in (a_s, b_s):  # the 16 x 8 tile over the 4 x 4 threads
        s.merge(5).merge(5).split(5, 4).split(5, 4)
        s.parallelize(6, weft.TIDY).parallelize(7, weft.TIDX)
    return f, a_s, acc, c


@pytest.mark.parametrize("m,n,k", [(32, 32, 16), (37, 29, 21)])
def test_matmul_reverse_compute_at_runs(m, n, k):
    f, a_s, acc, c = matmul(m, n, k)
    assert acc.compute_at == 4 and a_s.compute_at == 5 and c.compute_at == 0
    assert [d.extent for d in c.loop_domain] == [(m + 15) // 16, (n + 15) // 16, 4, 4, 4, 4]
    kern = f.compile()
    assert kern.launch.block == (4, 4, 1)
    x = (np.arange(m * k).reshape(m, k) % 9 - 4).astype(np.float32)
    y = (np.arange(k * n).reshape(k, n) % 7 - 3).astype(np.float32)
    np.testing.assert_array_equal(kern.run(x, y), x.astype(np.float64) @ y)
    f.free()


def test_refusals_name_the_tensors():
    f = weft.Fusion()
    x = f.input(weft.f32, [32, 16])
    s = weft.sum(x, [1])
    o = s * 2.0 + 1.0
    f.output(o)
    s.split(0, 8)
    with pytest.raises(weft.ScheduleError) as e:
        weft.reverse_compute_at(o, s, 3)
    assert str(e.value) == (
        "reverse_compute_at(T3, T1, 3): T1 can share at most the first 2 loops of T3: "
        "axis 2 of T1 is a reduction"
    )
    with pytest.raises(weft.ArgumentError) as e:
        s.compute_at_loops(s, 1)
    assert str(e.value) == (
        "compute_at(T1, T1, 1): a tensor is not computed at its own loops; name a consumer of T1"
    )
    with pytest.raises(TypeError):
        weft.compute_at(s, "o", 1)
    weft.reverse_compute_at(o, s, -2)
    assert s.compute_at == 2 and len(o.loop_domain) == 2
    f.free()
