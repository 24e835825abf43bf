"""Fusion.save writes the calls that built and scheduled a fusion as a
`weft-fusion 1` log; `weft draw FILE.weft` replays it through the C API and
draws the same IterDomain graph as Tensor.dot()."""

import os
import subprocess

import pytest

import weft
from weft import _lib

WEFT = os.path.join(os.path.dirname(os.path.abspath(_lib.path)), "weft")
needs_weft = pytest.mark.skipif(not os.path.exists(WEFT), reason="no weft command beside the library")


def scheduled():
    """Inputs, ops of each kind, a scalar, two outputs and common schedule calls."""
    f = weft.Fusion()
    a = f.input(weft.f32, [64, 32])
    b = f.input_strided("float32", [64, 32], [True, False])
    s = weft.set(a)
    c = weft.relu(s) * 2.5 + b
    m = weft.sum(c, 1)
    f.output(c)
    f.output(m)
    s.set_memory(weft.SHARED)
    c.split(0, 16).parallelize(1, weft.TIDX).reorder({0: 1})
    c.propagate_transforms()
    s.set_allocation_domain(s.loop_domain)
    c.parallelize_all_like([weft.TIDX])
    f.inline_most()
    return f, [a, b, s, c, m]


def test_save_writes_the_calls_in_order(tmp_path):
    f, _ = scheduled()
    path = str(tmp_path / "f.weft")
    assert f.save(path) == path
    lines = open(path).read().splitlines()
    assert lines[0] == "weft-fusion 1"
    assert lines[1].startswith("# saved by weft ")
    assert lines[2:] == [
        "T0 = input f32 [64 32]",
        "T1 = input_strided f32 [64 32] [1 0]",
        "T2 = set T0",
        "T3 = unary relu T2",
        "S0 = full f32 2.5",
        "T4 = binary mul T3 S0",
        "T5 = binary add T4 T1",
        "T6 = reduce add T5 [1]",
        "output T5",
        "output T6",
        "set_memory T2 shared",
        "split T5 0 16",
        "parallelize T5 1 tidx",
        "reorder T5 [0 1]",
        "propagate_transforms T5",
        "set_allocation_domain T2 [T2.loop.0 T2.loop.1 T2.loop.2] 1",
        "parallelize_all_like T5 [tidx]",
        "inline_most",
    ]


def test_refused_calls_are_not_saved(tmp_path):
    f = weft.Fusion()
    t = weft.set(f.input(weft.f32, [8]))
    with pytest.raises(weft.Error):
        t.split(3, 2)
    t.split(0, 2)
    f.save(str(tmp_path / "f.weft"))
    assert open(str(tmp_path / "f.weft")).read().splitlines()[2:] == [
        "T0 = input f32 [8]",
        "T1 = set T0",
        "split T1 0 2",
    ]


def test_an_iterdomain_in_no_domain_cannot_be_saved(tmp_path):
    f = weft.Fusion()
    t = weft.set(f.input(weft.f32, [8, 4]))
    f.output(t)
    t.split(0, 2)
    before = t.loop_domain
    t.merge(0)  # the split's outputs are now in no domain
    t.set_loop_domain(before)  # accepted by the library, but not nameable in the log
    with pytest.raises(weft.UnsupportedError) as e:
        f.save(str(tmp_path / "f.weft"))
    assert str(e.value) == (
        "weft: Fusion.save: call 6 of this fusion cannot be saved yet: set_loop_domain: an "
        "IterDomain in no tensor's loop or logical domain"
    )
    assert not os.path.exists(str(tmp_path / "f.weft"))


@needs_weft
def test_the_command_draws_what_python_draws(tmp_path):
    f, tensors = scheduled()
    path = str(tmp_path / "f.weft")
    f.save(path)
    for t in tensors:
        got = subprocess.run([WEFT, "draw", path, "T%d" % t.name], capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        assert got.stdout == t.dot()
    # without a tensor: the last output
    got = subprocess.run([WEFT, "draw", path], capture_output=True, text=True)
    assert got.stdout == tensors[-1].dot()


@needs_weft
def test_the_command_replays_tma_and_tensor_memory_schedules(tmp_path):
    f = weft.Fusion()
    x = f.input(weft.f32, [256, 32])
    s = weft.set(x)
    tm = weft.set(s)
    o = weft.set(tm)
    f.output(o)
    s.set_memory(weft.SHARED).set_ldst(weft.TMA)
    s.split(0, 64).parallelize(0, weft.BIDX).parallelize(1, weft.BULK).parallelize(2, weft.BULK)
    s.tma_swizzle(128)
    tm.set_memory(weft.TENSOR).set_ldst(weft.TMEM_STORE)
    o.set_ldst(weft.TMEM_LOAD)
    o.split(0, 64).swizzle(2, 1).merge_axes(0, 2).reorder_all([1, 0])
    o.inline_at(0)
    x2 = weft.cast(o, weft.f16)
    x2.loop_broadcast(0)
    path = str(tmp_path / "g.weft")
    f.save(path)
    for t in (s, tm, o, x2):
        got = subprocess.run([WEFT, "draw", path, str(t.name)], capture_output=True, text=True)
        assert got.returncode == 0, got.stderr
        assert got.stdout == t.dot()
