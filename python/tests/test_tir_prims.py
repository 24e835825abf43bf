"""The TensorIR primitives parallel, annotate / unannotate, set_scope, storage_align,
decompose_reduction, get_child_blocks, get_producers / get_consumers and blockize, and
the TVMScript spellings of TVM 0.27 (I.ir_module, T.handle + T.match_buffer, T.sblock,
get_sblock, T.axis.S / R, T.min_value, T.sigmoid), from Python: each is one wf_tir_*
call (the C tests, tests/unit/test_tir_prims.c, compare the printed programs with TVM's
own); here the binding's arguments, results and errors, and a build run on numpy data.
"""

import numpy as np
import pytest

import weft
from weft import tir
from weft.script import ir as I
from weft.script import tir as T


@I.ir_module
class RowMax:
    @T.prim_func
    def rowmax(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "rowmax", "tir.noalias": True})
        A = T.match_buffer(a, (16, 64), "float32")
        B = T.match_buffer(b, (16,), "float32")
        for i, k in T.grid(16, 64):
            with T.sblock("B"):
                vi = T.axis.S(16, i)
                vk = T.axis.R(64, k)
                with T.init():
                    B[vi] = T.min_value("float32")
                B[vi] = T.max(B[vi], T.sigmoid(A[vi, vk]))


def test_module_prints_as_a_module():
    text = tir.Schedule(RowMax).mod.script()
    assert text.startswith("# from tvm.script import ir as I\n# from tvm.script import tir as T\n")
    assert "    def rowmax(A: T.Buffer((16, 64), \"float32\"), B: T.Buffer((16,), \"float32\")):\n" in text
    assert '        T.func_attr({"tir.noalias": True})\n' in text
    assert "T.float32(-340282346638528859811704183484516925440.0)" in text


def test_primitives_print_trace_and_build():
    sch = tir.Schedule(RowMax)
    b = sch.get_sblock("B")
    i, k = sch.get_loops(b)
    sch.parallel(i)
    sch.annotate(k, "pragma_auto_unroll_max_step", 16)
    sch.annotate(b, "software_pipeline_stage", [0, 0, 1])
    assert [x.name for x in sch.get_child_blocks(sch.get_block("root"))] == ["B"]
    assert sch.get_producers(b) == [] and sch.get_consumers(b) == []
    init = sch.decompose_reduction(b, k)
    assert init.name == "B_init"
    assert [x.name for x in sch.get_producers(b)] == ["B_init"]
    assert [x.name for x in sch.get_child_blocks(i)] == ["B_init", "B_update"]
    text = sch.mod.script()
    assert "for i in T.parallel(16):" in text
    assert 'for k in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16}):' in text
    assert 'T.block_attr({"software_pipeline_stage": [0, 0, 1]})' in text
    trace = str(sch.trace)
    assert 'sch.annotate(block_or_loop=b0, ann_key="software_pipeline_stage", ann_val=[0, 0, 1])' in trace
    assert "b5 = sch.decompose_reduction(block=b4, loop=l2)" in trace
    sch.unannotate(b, "software_pipeline_stage")
    assert sch.mod.script().count("T.block_attr") == 1  # B_init keeps its copy
    m = weft.build(sch.mod)
    a = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    out = weft.nd.array(np.zeros(16, np.float32))
    m(weft.nd.array(a), out)
    np.testing.assert_allclose(out.numpy(), (1 / (1 + np.exp(-a.astype(np.float64)))).max(1), rtol=1e-6)


@T.prim_func
def mm(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32")):
    D = T.alloc_buffer((32, 32))
    for i, j in T.grid(32, 32):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j, k in T.grid(32, 32, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + D[vi, vk] * B[vk, vj]


def test_set_scope_storage_align_build():
    sch = tir.Schedule(mm)
    d = sch.get_block("D")
    sch.set_scope(d, 0, "shared")
    sch.storage_align(d, 0, axis=0, factor=32, offset=1)
    text = sch.mod.script()
    assert 'D_shared = T.alloc_buffer((32, 32), scope="shared")' in text
    assert 'T.block_attr({"buffer_dim_align": [[0, 0, 32, 1]]})' in text
    m = weft.build(sch.mod)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((32, 32)).astype(np.float32), rng.standard_normal((32, 32)).astype(np.float32)
    c = weft.nd.array(np.zeros((32, 32), np.float32))
    m(weft.nd.array(a), weft.nd.array(b), c)
    np.testing.assert_allclose(c.numpy(), 2 * a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_refusals_are_exceptions_and_leave_the_schedule_usable():
    sch = tir.Schedule(mm)
    c = sch.get_block("C")
    i, j, k = sch.get_loops(c)
    with pytest.raises(weft.ScheduleError, match="parallel: The loop k cannot be parallelized"):
        sch.parallel(k)
    with pytest.raises(weft.UnsupportedError, match="blockize: not supported yet"):
        sch.blockize(j)
    with pytest.raises(weft.ArgumentError, match="Cannot find annotation key: x"):
        sch.unannotate(c, "x")
    with pytest.raises(weft.ArgumentError, match="ann_val must be an int"):
        sch.annotate(c, "x", {"a": 1})
    with pytest.raises(weft.ScheduleError, match="not allocated by a block"):
        sch.set_scope(c, 0, "shared")
    sch.annotate(i, "k", 1.5)
    assert 'for i in T.serial(32, annotations={"k": 1.5}):' in sch.mod.script()
