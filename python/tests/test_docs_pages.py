"""The tutorials (docs/tutorial-*.md) and the error catalogue
(docs/errors.md) run as tests, so the documentation cannot drift from the
library.

A tutorial's ```c blocks, in order, form one C program; its ```python blocks,
in order, one Python session. A ```text block shows what the code block
before it prints: each of its lines must appear in the program's output, in
that order (other lines may come between, e.g. a kernel's source). The C
program is compiled against include/weft.h and the libweft.so under test
and must exit 0.

docs/errors.md has one entry per message: a ```c block that is the body of
main() (after #include <stdio.h>, <string.h> and "weft.h") and the ```text
block with exactly what it prints. All bodies become one program, compiled
once and run once per entry.
"""

import contextlib
import glob
import io
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("WEFT_LIB") or os.path.join(ROOT, "build", "libweft.so")
TUTORIALS = sorted(glob.glob(os.path.join(ROOT, "docs", "tutorial-*.md")))
FENCE = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def fenced(page):
    """[(language, text)] of the page's fenced blocks, in order."""
    with open(page) as fh:
        return FENCE.findall(fh.read())


def split_page(page):
    """{lang: (code blocks, expected-output blocks)} for c and python."""
    parts = {"c": ([], []), "python": ([], [])}
    last = None
    for lang, text in fenced(page):
        if lang in parts:
            parts[lang][0].append(text)
            last = lang
        elif lang == "text" and last:
            parts[last][1].append(text)
    return parts


def assert_lines_in_order(out, expected, what):
    lines = out.splitlines()
    at = 0
    for block in expected:
        for want in block.splitlines():
            while at < len(lines) and lines[at] != want:
                at += 1
            assert at < len(lines), "%s: line %r not printed (in this order); output:\n%s" % (
                what,
                want,
                out,
            )
            at += 1


def compile_c(source, tmp_path, name):
    src = tmp_path / (name + ".c")
    exe = tmp_path / name
    src.write_text(source)
    libdir = os.path.dirname(LIB)
    cmd = [
        "cc", "-std=c11", "-Wall", "-Werror", "-D_POSIX_C_SOURCE=200809L",
        "-I" + os.path.join(ROOT, "include"), str(src), "-o", str(exe),
        LIB, "-Wl,-rpath," + libdir, "-ldl", "-lm",
    ]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, "%s does not compile:\n%s" % (name, r.stderr)
    return str(exe)


def run(exe, *args):
    env = dict(os.environ, WF_CACHE_DIR="")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=300, env=env)


def test_there_are_tutorials():
    names = [os.path.basename(p) for p in TUTORIALS]
    assert "tutorial-tensor-memory.md" in names
    assert "tutorial-shared-memory.md" in names
    assert "tutorial-tma.md" in names
    assert "tutorial-tensorir.md" in names
    assert "tutorial-ldmatrix.md" in names
    assert "tutorial-gemm.md" in names


@pytest.mark.parametrize("page", TUTORIALS, ids=os.path.basename)
def test_tutorial_c(page, tmp_path):
    code, expected = split_page(page)["c"]
    assert code and expected, "%s has no C program with output" % page
    exe = compile_c("".join(code), tmp_path, "tutorial")
    r = run(exe)
    assert r.returncode == 0, "the C program failed (%d):\n%s%s" % (r.returncode, r.stdout, r.stderr)
    assert_lines_in_order(r.stdout, expected, os.path.basename(page) + " (C)")


@pytest.mark.parametrize("page", TUTORIALS, ids=os.path.basename)
def test_tutorial_python(page):
    code, expected = split_page(page)["python"]
    assert code and expected, "%s has no Python session with output" % page
    ns = {"__name__": "__tutorial__"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for i, block in enumerate(code):
            exec(compile(block, "%s python block %d" % (page, i + 1), "exec"), ns)
    assert_lines_in_order(buf.getvalue(), expected, os.path.basename(page) + " (Python)")


# ---- docs/errors.md


def error_entries():
    """[(message, body)] of docs/errors.md: each C block and the text after it."""
    blocks = fenced(os.path.join(ROOT, "docs", "errors.md"))
    entries = []
    for (lang, text), (nlang, ntext) in zip(blocks, blocks[1:]):
        if lang == "c":
            assert nlang == "text", "a C block of errors.md has no text block after it"
            entries.append((ntext, text))
    return entries


ERRORS = error_entries()


@pytest.fixture(scope="module")
def errors_program(tmp_path_factory):
    parts = ["#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"weft.h\"\n"]
    for i, (_, body) in enumerate(ERRORS):
        parts.append("static int example_%d(void) {\n%s}\n" % (i, body))
    parts.append("int main(int argc, char **argv) {\n    switch (atoi(argv[1])) {\n")
    for i in range(len(ERRORS)):
        parts.append("    case %d: return example_%d();\n" % (i, i))
    parts.append("    }\n    return 99;\n}\n")
    return compile_c("".join(parts), tmp_path_factory.mktemp("errors"), "errors")


def test_errors_page_covers_many_messages():
    assert len(ERRORS) >= 40
    messages = [m for m, _ in ERRORS]
    assert len(set(messages)) == len(messages), "a message is listed twice"


@pytest.mark.parametrize("i", range(len(ERRORS)), ids=lambda i: ERRORS[i][0][:60])
def test_error_message(errors_program, i):
    want, _ = ERRORS[i]
    r = run(errors_program, str(i))
    assert r.returncode == 0, "example %d exited %d:\n%s" % (i, r.returncode, r.stderr)
    assert r.stdout == want


# ---- docs/api.md names everything


def test_api_reference_lists_every_c_function():
    with open(os.path.join(ROOT, "include", "weft.h")) as fh:
        names = set(re.findall(r"\b(wf_[a-z0-9_]+)\(", fh.read()))
    with open(os.path.join(ROOT, "docs", "api.md")) as fh:
        page = fh.read()
    missing = sorted(n for n in names if "`" not in page or not re.search(r"\b%s\b" % n, page))
    assert len(names) > 70
    assert not missing, "docs/api.md lacks %s" % missing


def test_api_reference_lists_every_python_name():
    import types

    import weft

    with open(os.path.join(ROOT, "docs", "api.md")) as fh:
        page = fh.read().split("## Python API", 1)[1]
    public = [n for n in dir(weft) if not n.startswith("_")]
    public = [n for n in public if not isinstance(getattr(weft, n), types.ModuleType)]
    missing = [n for n in public if not re.search(r"\b%s\b" % re.escape(n), page)]
    for cls in (weft.Fusion, weft.Tensor, weft.Kernel):
        missing += [
            "%s.%s" % (cls.__name__, n)
            for n in dir(cls)
            if not n.startswith("_") and not re.search(r"\b%s\b" % n, page)
        ]
    assert not missing, "docs/api.md lacks %s" % missing


def test_errors_page_covers_the_message_sites():
    """tools/errors-coverage.py matches every err_fail format string of src/
    against the page, with the Makefile's own options (`--min N` or `--all`),
    so that the floor lives in one place."""
    import sys

    with open(os.path.join(ROOT, "Makefile")) as fh:
        args = re.search(r"errors-coverage\.py ([^\n]*)", fh.read()).group(1).split()
    tool = os.path.join(ROOT, "tools", "errors-coverage.py")
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:]
    assert "docs/errors.md shows" in r.stdout
