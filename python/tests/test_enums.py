"""python/weft/_enums.py is generated from include/weft.h (tools/gen_enums.py):
it must be what the header gives now, and its values the library's."""

import importlib.util
import os

import pytest

import weft
from weft import _enums
from weft._lib import lib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen_enums.py")
HEADER = os.path.join(ROOT, "include", "weft.h")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_enums", GEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.skipif(not os.path.exists(GEN) or not os.path.exists(HEADER), reason="no source tree")
def test_enums_module_is_what_the_header_gives():
    with open(HEADER) as fh:
        want = _generator().generate(fh.read())
    with open(_enums.__file__) as fh:
        assert fh.read() == want, "run python3 tools/gen_enums.py"


@pytest.mark.skipif(not os.path.exists(GEN), reason="no source tree")
def test_generator_counts_as_c_does():
    src = "typedef enum { WF_A, WF_B = 5, WF_C /* six */, WF_D = 0x10, WF_E } wf_x;"
    assert _generator().parse(src) == [("wf_x", [("WF_A", 0), ("WF_B", 5), ("WF_C", 6), ("WF_D", 16), ("WF_E", 17)])]


def test_the_library_agrees_with_the_generated_values():
    for s in _enums.Status:
        assert lib.wf_status_name(int(s)).decode() == "WF_" + s.name
    sizes = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "bool": 1}
    assert {t.name: t.itemsize for t in weft.DType} == sizes
    # the binding's public enums are the generated ones
    assert weft.DType is _enums.DType and weft.ParallelType is _enums.ParallelType
    assert weft.MemoryType is _enums.MemoryType and weft.LoadStore is _enums.LoadStore
    assert weft.TIDX == 4 and weft.SHARED == 2 and weft.TMA == 3
