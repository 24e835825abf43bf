"""Seed 004's notebook ("TensorIR Schedule Example"), run cell by cell.

The cells are read from the seed text itself (../shared/seeds/004_*.txt;
where a checkout lacks it the tests are skipped, saying so). Changed: the import lines (tvm -> weft)
and `tvm.cuda()` -> `weft.cpu()` (the executor; `weft.cuda()` on a machine
with a GPU). Each `sch.show()` must print TVM's program exactly: the golden
texts of tests/unit/test_tir_golden.h, TVM 0.27's output for the same steps.

The build cells (In [5], In [9]) run `build_and_test`: build for CUDA, run
on the device, compare with numpy, print the source. They need reductions in
wf_tir_build; where the library still refuses them, those checks (and only
those) are skipped with the library's message as the reason.
"""

import contextlib
import io
import linecache
import os
import re

import pytest

import weft
from test_tir_golden import GOLDEN

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def seed_path():
    for base in (os.path.join(ROOT, "..", "shared", "seeds"), os.path.join(ROOT, "shared", "seeds")):
        if os.path.isdir(base):
            for f in sorted(os.listdir(base)):
                if f.startswith("004_"):
                    return os.path.join(base, f)
    return None


def notebook_cells(text):
    """[(number, code)]: after each "In [n]:", the longest run of lines, cut
    at a blank line, that compiles as Python (prose and printed output do not)."""
    parts = re.split(r"^In \[(\d+)\]:\n", text, flags=re.M)
    cells = []
    for num, body in zip(parts[1::2], parts[2::2]):
        lines = body.split("\n")
        best = None
        for end in range(1, len(lines) + 1):
            if end < len(lines) and lines[end].strip():
                continue  # cut only before a blank line or at the end
            chunk = "\n".join(lines[:end])
            try:
                compile(chunk, "cell", "exec")
            except SyntaxError:
                continue
            best = chunk
        assert best, "cell %s has no code" % num
        cells.append((int(num), best.rstrip() + "\n"))
    return cells


def port(code, device="weft.cpu()"):
    """The only changes: import lines, and the device."""
    code = code.replace("import tvm\n", "import weft\nimport weft as tvm\n")
    code = code.replace("from tvm import tir\n", "from weft import tir\n")
    code = code.replace("from tvm.script import tir as T\n", "from weft.script import tir as T\n")
    return code.replace("tvm.cuda()", device)


def run_cell(ns, num, code):
    """exec one cell; its source goes to linecache so inspect.getsource (and
    so @T.prim_func) finds it, as in a notebook."""
    filename = "<seed004 In [%d]>" % num
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, filename, "exec"), ns)
    return buf.getvalue()


@pytest.fixture(scope="module")
def cells():
    path = seed_path()
    if path is None:
        pytest.skip("seed 004 (../shared/seeds/004_*.txt) is not in this checkout")
    with open(path) as fh:
        return notebook_cells(fh.read())


# what TVM prints at each sch.show() of the notebook
SHOWN = {
    3: "seed004_split",
    4: "seed004_bind",
    6: "seed004_cache_read",
    7: "seed004_compute_at",
    8: "seed004_coop",
}
BUILDS = {5: "seed004_bind", 9: "seed004_coop"}  # the program each build cell builds


def test_cells_read(cells):
    assert [n for n, _ in cells] == list(range(1, 10))
    assert port(cells[0][1]).startswith("import weft\nimport weft as tvm\nfrom weft import tir\n")
    assert "device = weft.cpu()" in port(cells[4][1])
    assert "tvm" not in port(cells[0][1]).replace("import weft as tvm", "")


def refusal(num):
    """None when wf_tir_build builds the program build cell In [num] builds
    (TVM's text at that point), else the library's "not supported yet" message."""
    from weft.script import tir as T

    try:
        weft.build(weft.tir.Schedule(T.prim_func(GOLDEN[BUILDS[num]])).mod, target="cuda")
    except weft.UnsupportedError as e:
        return str(e)
    return None


def run_build_cell(ns, num, code):
    """A build cell: its output, or None where the library refuses the build
    with the same message as the probe (checked)."""
    why = refusal(num)
    if why is None:
        return run_cell(ns, num, code)
    with pytest.raises(weft.UnsupportedError) as e:
        run_cell(ns, num, code)
    assert str(e.value) == why and "not supported yet" in why
    return None


def test_notebook_shows_what_tvm_shows(cells):
    """Every cell runs; each sch.show() prints TVM's text exactly."""
    ns = {"__name__": "__seed004__"}
    for num, code in cells:
        if num in BUILDS:
            run_build_cell(ns, num, port(code))  # checked by test_notebook_build_cell
            continue
        out = run_cell(ns, num, port(code))
        if num in SHOWN:
            assert out == GOLDEN[SHOWN[num]], "In [%d]" % num
        else:
            assert out == "", "In [%d] printed %r" % (num, out)
    assert isinstance(ns["sch"], weft.tir.Schedule)
    assert ns["sch"].mod.script() == GOLDEN["seed004_coop"]
    trace = str(ns["sch"].trace)
    assert trace.count("sch.split(") == 2 and trace.count("sch.bind(") == 3
    assert 'sch.cache_read(block=b0, read_buffer_index=0, storage_scope="shared")' in trace


@pytest.mark.parametrize("device", ["weft.cpu()", "weft.cuda()"])
@pytest.mark.parametrize("num", sorted(BUILDS))
def test_notebook_build_cell(cells, num, device):
    """In [5] and In [9]: build, run on the device, check against numpy (the
    cell's own assert_allclose), print "Test passed." and the CUDA source."""
    if device == "weft.cuda()" and not weft.cuda().exist:
        pytest.skip("no CUDA device here (weft.cuda().exist is False)")
    why = refusal(num)
    if why:
        pytest.skip("In [%d]: wf_tir_build refuses this program: %s" % (num, why))
    ns = {"__name__": "__seed004__"}
    for n, code in cells:
        if n > num:
            break
        if n in BUILDS and n != num:
            run_build_cell(ns, n, port(code, device))  # defines build_and_test
            continue
        out = run_cell(ns, n, port(code, device))
    head = "Test passed.\nCUDA source code:\n"
    assert out.startswith(head), out[:300]
    source = out[len(head) :]
    assert "__global__" in source and "threadIdx.x" in source and "blockIdx.x" in source
    mod = weft.build(ns["sch"].mod, target="cuda")
    assert source == mod.imported_modules[0].get_source() + "\n"
    if num == 9:
        assert "__shared__" in source and "__syncthreads" in source
    if weft.system_info().nvrtc_found:
        mod.check_nvrtc(90)
