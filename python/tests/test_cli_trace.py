"""`weft tir FILE --schedule TRACE.py` applies the trace that weft's own
Schedule.trace prints (wf_tir_trace), reaching the program the Python
schedule reached: the trace round-trips through the command."""

import os
import subprocess

import pytest

import weft
from weft import _lib

WEFT = os.path.join(os.path.dirname(os.path.abspath(_lib.path)), "weft")

SRC = '''@T.prim_func
def mm(A: T.Buffer((64, 32), "float32"), B: T.Buffer((32, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 32):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] += A[vi, vk] * B[vk, vj]
'''


@pytest.mark.skipif(not os.path.exists(WEFT), reason="no weft command beside the library")
def test_a_python_schedules_trace_replays_through_the_command(tmp_path):
    sch = weft.tir.Schedule(SRC)
    b = sch.get_block("C")
    i, j, k = sch.get_loops(b)
    io, ii = sch.split(i, [None, 16])
    jo, ji = sch.split(j, [None, 16])
    sch.reorder(io, jo, ii, ji)
    sch.bind(io, "blockIdx.x")
    sch.bind(jo, "blockIdx.y")
    sch.bind(ii, "threadIdx.y")
    sch.bind(ji, "threadIdx.x")
    ko, ki = sch.split(k, [None, 8])
    sch.unroll(ki)
    want = sch.mod.script()
    (tmp_path / "mm.py").write_text(SRC)
    (tmp_path / "trace.py").write_text(str(sch.trace))
    r = subprocess.run([WEFT, "tir", str(tmp_path / "mm.py"), "--schedule", str(tmp_path / "trace.py")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    shown, _, cuda = r.stdout.partition("\n// the CUDA of the scheduled program (grid 4 x 4 x 1, block 16 x 16 x 1)\n")
    assert shown.strip() == want.strip()
    assert "__global__ void weft_kernel" in cuda
