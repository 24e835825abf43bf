"""Errors of the TensorIR front-end: exceptions of the weft.Error class of
the library's status, carrying its message; a refused primitive leaves the
program as it was and the schedule usable; wrong Python arguments never
reach C; a stale handle raises."""

import importlib.util
import textwrap

import numpy as np
import pytest

import weft
from weft import tir
from weft.script import tir as T
from test_tir_golden import GOLDEN
from test_tir_run import add_relu, copy

BAD_NAME = """\
@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in T.grid(4):
        with T.block("x"):
            vi = T.axis.spatial(4, i)
            A[vi] = B[vi]
"""


def test_parse_error_has_line_col_and_caret():
    with pytest.raises(weft.ArgumentError) as e:
        T.prim_func(BAD_NAME)
    assert str(e.value) == (
        "6:21: name 'B' is not defined\n" "            A[vi] = B[vi]\n" "                    ^"
    )


def test_parse_error_of_a_decorated_function_names_the_file_line(tmp_path):
    path = tmp_path / "bad_tir.py"
    path.write_text("from weft.script import tir as T\n\n\n" + BAD_NAME)
    spec = importlib.util.spec_from_file_location("bad_tir", str(path))
    with pytest.raises(weft.ArgumentError) as e:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    msg = str(e.value)
    assert msg.startswith("6:21: name 'B' is not defined\n            A[vi] = B[vi]\n")
    assert msg.endswith("\n(%s, line 9)" % path)  # 6th line of the function, which starts at line 4


def test_unsupported_syntax():
    src = BAD_NAME.replace("A[vi] = B[vi]", "A[vi] = = 1")
    with pytest.raises(weft.UnsupportedError) as e:
        T.prim_func(src)
    assert (
        str(e.value) == "6:21: unsupported: this expression\n            A[vi] = = 1\n                    ^"
    )


def test_prim_func_without_source():
    ns = {"T": T}
    with pytest.raises(weft.ArgumentError) as e:
        exec("@T.prim_func\ndef g(A: T.Buffer((4,), 'float32')):\n    pass\n", ns)
    assert str(e.value).startswith("weft: T.prim_func needs the source text of g, which Python cannot find")
    assert str(e.value).endswith("define it in a file, or pass the text: T.prim_func(text)")


def test_syntax_names_are_not_callable_from_python():
    with pytest.raises(RuntimeError, match=r"T\.grid is TVMScript syntax"):
        T.grid(4, 4)
    with pytest.raises(RuntimeError, match=r"T\.axis\.remap is TVMScript syntax"):
        T.axis.remap("SS", [])
    assert T.Buffer((4, 8), "float16").shape == (4, 8)
    assert T.Buffer[(4,), "int32"].dtype == "int32"


def schedule():
    sch = tir.Schedule(copy)
    i, j = sch.get_loops(sch.get_block("B"))
    return sch, i, j


def test_bad_factors():
    sch, i, j = schedule()
    with pytest.raises(weft.ScheduleError) as e:
        sch.split(i, factors=[3, 5])
    assert str(e.value) == (
        "split: The product of factors is not larger than or equal to the extent of loop i: the "
        "factors multiply to 15 but the loop has 64 iterations (make a factor larger, or pass None "
        "for one of them)"
    )
    with pytest.raises(weft.ArgumentError) as e:
        sch.split(i, factors=[None, None])
    assert str(e.value) == "split: Only one factor can be specified as -1 or None (loop i)"
    for bad, msg in [
        (0, "weft: split: the factor 0 is not positive; use None for the inferred one"),
        (-1, "weft: split: the factor -1 is not positive; use None for the inferred one"),
        (2.0, "weft: split: a factor must be an int or None, not float (2.0)"),
        ("2", "weft: split: a factor must be an int or None, not str ('2')"),
    ]:
        with pytest.raises(weft.ArgumentError) as e:
            sch.split(i, factors=[bad, None])
        assert str(e.value) == msg
    with pytest.raises(weft.ArgumentError):
        sch.split(i, factors=[])
    with pytest.raises(weft.UnsupportedError):
        sch.split(i, factors=[None, 4], disable_predication=True)
    # nothing changed, and the handles still work
    assert sch.mod.script() == GOLDEN["copy_fuse_orig"]
    io, ii = sch.split(i, factors=[None, 16])
    assert "for i_0, i_1, j in T.grid(4, 16, 32):" in sch.mod.script()


def test_stale_handles_raise_and_the_schedule_goes_on():
    sch, i, j = schedule()
    sch.split(i, factors=[None, 16])
    before = sch.mod.script()
    for call in (lambda: sch.split(i, factors=[None, 4]), lambda: sch.bind(i, "blockIdx.x")):
        with pytest.raises(weft.ArgumentError) as e:
            call()
        assert (
            "the loop i is stale: an earlier primitive replaced it; get the loops again with get_loops"
            in str(e.value)
        )
    assert sch.mod.script() == before
    sch.bind(j, "threadIdx.x")  # still usable
    s2 = tir.Schedule(add_relu)
    d = s2.get_block("D")
    s2.compute_inline(d)
    with pytest.raises(weft.ArgumentError) as e:
        s2.get_loops(d)
    assert str(e.value) == (
        'get_loops: the block "D" is stale: it was removed (inlined) by an earlier primitive; get '
        "the blocks again with get_block"
    )
    assert s2.mod.script() == GOLDEN["elem_inline_compute_inline"]


def test_handles_outlive_nothing():
    """A handle keeps its schedule alive: dropping the schedule is safe."""
    sch, i, j = schedule()
    del sch
    import gc

    gc.collect()
    outer, inner = i._sched.split(i, factors=[None, 8])
    assert "i_1" in i._sched.mod.script()


def test_wrong_arguments():
    sch, i, j = schedule()
    b = sch.get_block("B")
    other, oi, _ = schedule()
    cases = [
        (lambda: sch.get_loops(i), "weft: block must be a BlockRV (from get_block), not LoopRV"),
        (lambda: sch.get_loops("B"), "weft: block must be a BlockRV (from get_block), not str"),
        (lambda: sch.bind(b, "threadIdx.x"), "weft: loop must be a LoopRV (from get_loops), not BlockRV"),
        (lambda: sch.bind(i, 0), "weft: thread_axis must be a str, not int"),
        (lambda: sch.fuse(), "weft: fuse needs at least one loop"),
        (lambda: sch.split(oi, factors=[None, 4]), "weft: the loop belongs to another schedule"),
        (lambda: sch.cache_read(b, "0", "shared"), "weft: read_buffer_index must be an int, not str"),
        (lambda: sch.rfactor(i, True), "weft: factor_axis must be an int, not bool"),
        (
            lambda: sch.get_block("nope"),
            'get_block: Cannot find a block with the name: nope (the blocks are named by T.block("...") and by cache_read / cache_write)',
        ),
        (
            lambda: sch.bind(i, "threadIdx.w"),
            'bind: the thread axis "threadIdx.w" is not one of blockIdx.x/y/z, threadIdx.x/y/z',
        ),
        (
            lambda: sch.cache_read(b, 0, "texture"),
            'cache_read: The input storage scope "texture" is invalid (global, shared and local are)',
        ),
        (lambda: sch.reorder(i, i), "reorder: Loop i appears in the input array for multiple times"),
        (
            lambda: tir.Schedule(42),
            "weft: tir.Schedule takes a @T.prim_func, an IRModule (sch.mod) or TVMScript text, not int",
        ),
    ]
    for call, msg in cases:
        with pytest.raises(weft.ArgumentError) as e:
            call()
        assert str(e.value) == msg
    with pytest.raises(weft.ScheduleError) as e:
        sch.fuse(j, i)
    assert (
        str(e.value)
        == "fuse: The loops can't be fused because the outer loop j is not the parent of the inner loop i"
    )
    with pytest.raises(weft.ScheduleError) as e:
        sch.rfactor(i, 0)
    assert str(e.value).startswith('rfactor: the block "B" is not a reduction block')
    assert sch.mod.script() == GOLDEN["copy_fuse_orig"]


def test_build_and_call_errors():
    sch, i, j = schedule()
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    with pytest.raises(weft.UnsupportedError) as e:
        weft.build(sch.mod, target="llvm")
    assert str(e.value).startswith("weft: build: not supported yet: target 'llvm'")
    with pytest.raises(weft.ArgumentError):
        weft.build("not a module")
    mod = weft.build(sch.mod, target="cuda")
    a = weft.nd.array(np.ones((64, 32), "float32"))
    b = weft.nd.empty((64, 32), "float32")
    cases = [
        ((a,), "weft: copy takes 2 arrays (A, B), 1 given"),
        (
            (a, weft.nd.empty((64, 32), "float64")),
            "weft: copy: parameter B is float32, but the array holds float64",
        ),
        (
            (a, weft.nd.empty((32, 64), "float32")),
            "weft: copy: parameter B has shape (64, 32), but the array has (32, 64)",
        ),
        ((np.ones((64, 32), "float32"), b), "weft: pass weft.nd arrays (weft.nd.array(a)), not numpy arrays"),
    ]
    for args, msg in cases:
        with pytest.raises(weft.ArgumentError) as e:
            mod(*args)
        assert str(e.value) == msg
    mod(a, b)
    np.testing.assert_array_equal(b.numpy(), np.ones((64, 32), "float32"))


def test_string_program():
    f = T.prim_func(textwrap.indent(BAD_NAME.replace("B[vi]", "A[vi] * A[vi]").split("\n", 1)[1], "    "))
    assert f.name == "f" and "A[vi] = A[vi] * A[vi]" in f.script()


def test_numpy_integers_are_ints():
    sch, i, j = schedule()
    outer, inner = sch.split(i, factors=[None, np.int64(16)])
    assert "for i_0, i_1, j in T.grid(4, 16, 32):" in sch.mod.script()
    with pytest.raises(weft.ArgumentError):
        sch.split(j, factors=[np.bool_(True), None])
