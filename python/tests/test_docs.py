"""The Python code blocks of docs/python.md and README.md run, in order, in
one namespace per page (so the documentation cannot drift from the API)."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def blocks(page):
    with open(os.path.join(ROOT, page)) as fh:
        return re.findall(r"^```python\n(.*?)^```", fh.read(), re.S | re.M)


@pytest.mark.parametrize("page", ["docs/python.md", "README.md"])
def test_code_blocks_run(page, capsys):
    code = blocks(page)
    assert code, "%s has no python code block" % page
    ns = {"__name__": "__doc_%s__" % page}
    for i, block in enumerate(code):
        exec(compile(block, "%s block %d" % (page, i + 1), "exec"), ns)
    out = capsys.readouterr().out
    assert out  # the examples print what they show


def test_tutorial_prints_what_it_says():
    ns = {"__name__": "__doc__"}
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for block in blocks("docs/python.md"):
            exec(block, ns)
    out = buf.getvalue()
    assert "T1.split: axis 5 is out of range; T1 has 2 loop axes" in out
    assert "input 0 (T0) is f32 (numpy float32), but the array holds float64" in out
    assert "this fusion has been freed" in out
    assert "plain    smem 4096 bank conflict degree 32" in out
    assert "swizzled smem 4096 bank conflict degree 1" in out
    assert "[(128, 32)]" in out
