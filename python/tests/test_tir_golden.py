"""TVM's own printed programs, replayed through the Python front-end.

tests/tir/gen_golden.py is the TVM script that made tests/unit/test_tir_golden.h
(TVM 0.27's output after every schedule step). Here that very script runs
against weft: its import lines are changed (tvm -> weft, `s_tir` -> weft.tir,
TVM 0.27's get_sblock -> the classic get_block that weft spells) and its
`main` is not run; each case's source goes through `T.prim_func`, each step
through `weft.tir.Schedule`, and after every step `sch.mod.script()` must be
the golden text exactly. A step TVM refused must raise a weft.Error whose
message holds TVM's sentence, and leave the program as it was.
"""

import ast
import os
import re

import pytest

import weft

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def golden():
    """{name: text} of tests/unit/test_tir_golden.h (C string literals)."""
    with open(os.path.join(ROOT, "tests", "unit", "test_tir_golden.h")) as fh:
        text = fh.read()
    out = {}
    for name, body in re.findall(r"static const char golden_(\w+)\[\] =\n(.*?);\n", text, re.S):
        out[name] = "".join(ast.literal_eval(lit) for lit in re.findall(r'"(?:[^"\\]|\\.)*"', body))
    return out


def gen_golden_cases():
    """The CASES of gen_golden.py, its imports pointed at weft."""
    with open(os.path.join(ROOT, "tests", "tir", "gen_golden.py")) as fh:
        src = fh.read()
    src = src.replace("import tvm\n", "import weft as tvm\n")
    src = src.replace("from tvm.script import tirx as T\n", "from weft.script import tir as T\n")
    src = src.replace("from tvm import s_tir\n", "from weft import tir as s_tir\n")
    src = src.replace("get_sblock(", "get_block(")
    assert src.rstrip().endswith("main()")
    src = src.rstrip()[: -len("main()")]
    ns = {"__name__": "gen_golden_for_weft"}
    exec(compile(src, "gen_golden.py", "exec"), ns)
    return ns["CASES"]


GOLDEN = golden()
CASES = gen_golden_cases()


def test_golden_header_read():
    assert len(GOLDEN) == 49
    assert GOLDEN["seed004_orig"].startswith("# from tvm.script import tir as T\n\n@T.prim_func\n")
    assert sorted(CASES)[:3] == ["chain_inline", "copy_fuse", "elem_cache"]
    assert len(CASES) == 14


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_prints_what_tvm_prints(name):
    src, steps = CASES[name]
    func = weft.script.tir.prim_func(src)
    assert func.script() == GOLDEN[name + "_orig"]
    sch = weft.tir.Schedule(func)
    assert sch.mod.script() == GOLDEN[name + "_orig"]
    gen = steps(sch, {})
    last = GOLDEN[name + "_orig"]
    n = 0
    while True:
        try:
            label = next(gen)
        except StopIteration:
            break
        except weft.Error as e:
            want = GOLDEN.get(name + "_error")
            assert want is not None, "weft refused a step TVM took: %s" % e
            sentence = want.split("Error message: ", 1)[1].split(" tirx.For#")[0]
            assert sentence in str(e)
            assert sch.mod.script() == last  # unchanged by the refused step
            n += 1
            break
        last = GOLDEN[name + "_" + label]
        assert sch.mod.script() == last, label
        n += 1
    assert n == sum(1 for k in GOLDEN if k.startswith(name + "_") and k != name + "_orig")
