"""What the differential test against Apache TVM (tests/tir/tvm_diff.py, `make tvm-diff`)
found and weft now does as TVM does, checked here without TVM: programs TVM builds that
weft refused to build (each must now compute what numpy computes, on the CPU executor),
and a program weft printed otherwise. Each test names the case of
tests/tir/tvm_diff_cases.py it comes from; where a fix narrowed a refusal, the refusal
that stays is checked too."""


import os
import sys

import numpy as np

import weft
from weft import tir
from weft.script import tir as T

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "tir"))

import tvm_diff_cases  # noqa: E402  (plain Python: the cases, no TVM)


def run(sch, *arrays):
    mod = weft.build(sch.mod, target="cuda")
    nd = [weft.nd.array(a) for a in arrays]
    mod(*nd)
    return [a.numpy() for a in nd]


def test_the_cases_are_well_formed():
    """At least 40 cases, unique names, each a source, a step generator and a reference;
    a known difference says why."""
    cases = tvm_diff_cases.CASES
    assert len(cases) >= 40
    assert len({c.name for c in cases}) == len(cases)
    for c in cases:
        assert "@T.prim_func" in c.src and callable(c.steps) and callable(c.ref)
        assert c.known is None or len(c.known) > 20
