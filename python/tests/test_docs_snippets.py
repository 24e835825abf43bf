"""Every C snippet of README.md and docs/*.md compiles (-Wall -Werror) and
runs (exit status 0), so a snippet a user pastes works as printed. The
tutorials (docs/tutorial-*.md) and the error catalogue (docs/errors.md) run
their own way, in test_docs_pages.py; this covers every other page.

A ```c block with a main() is a whole program. Any other block is a piece
of one and says so in an HTML comment (not shown by a Markdown viewer) on
the line just before it:

    <!-- snippet: main -->              the block is the body of main()
    <!-- snippet: main, continued -->   ... it goes on the previous block's body

A piece may carry hidden code around it, that declares what it uses or
checks what it did:

    <!-- snippet: main
    before:
    wf_fusion *f = wf_fusion_new();
    after:
    wf_fusion_free(f);
    -->

The body is put in `int main(void) { ... return 0; }` after #include
<stdio.h>, <stdlib.h>, <string.h> and "weft.h"; the block's own #include
lines move above main().
"""

import glob
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("WEFT_LIB") or os.path.join(ROOT, "build", "libweft.so")
PAGES = [os.path.join(ROOT, "README.md")] + sorted(
    p
    for p in glob.glob(os.path.join(ROOT, "docs", "*.md"))
    if not os.path.basename(p).startswith("tutorial-") and os.path.basename(p) != "errors.md"
)
BLOCK = re.compile(r"(?:<!--\s*snippet:(.*?)-->\n)?^```c\n(.*?)^```", re.S | re.M)
HEADER = '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include "weft.h"\n'


def parse_marker(text):
    """(kind, before, after) of a snippet comment's text."""
    lines = text.strip("\n").split("\n")
    kind = lines[0].strip()
    parts, at = {"before": [], "after": []}, None
    for line in lines[1:]:
        if line.strip() in ("before:", "after:"):
            at = line.strip()[:-1]
        else:
            assert at, "snippet comment line %r is not under before: or after:" % line
            parts[at].append(line)
    return kind, "\n".join(parts["before"]), "\n".join(parts["after"])


def programs(page):
    """[(name, C source)] of the page's ```c blocks: whole programs as they
    are, pieces of main() joined with their continuations and wrapped; a
    block that breaks these rules gives ("line N", AssertionError)."""
    try:
        return _programs(page)
    except AssertionError as e:
        return [("rules", e)]


def _programs(page):
    with open(page) as fh:
        text = fh.read()
    out, body, first = [], None, None
    for m in BLOCK.finditer(text):
        line = text.count("\n", 0, m.start(2))
        code = m.group(2)
        kind, before, after = parse_marker(m.group(1)) if m.group(1) else ("", "", "")
        if kind == "main, continued":
            assert body is not None, "line %d: a continued snippet with nothing before it" % line
            body.append("\n".join(s for s in (before, code, after) if s))
            continue
        if body is not None:
            out.append(wrap(first, body))
            body = None
        if kind == "main":
            body, first = ["\n".join(s for s in (before, code, after) if s)], line
        else:
            assert kind == "", "line %d: unknown snippet kind %r" % (line, kind)
            assert re.search(r"\bmain\s*\(", code), (
                "line %d: a C block without main() must say what it is "
                "(<!-- snippet: main --> before it: see %s)" % (line, os.path.basename(__file__))
            )
            out.append(("line %d" % line, code))
    if body is not None:
        out.append(wrap(first, body))
    return out


def wrap(line, body):
    text = "\n".join(body)
    includes = "".join(l + "\n" for l in text.split("\n") if l.startswith("#include"))
    rest = "\n".join(l for l in text.split("\n") if not l.startswith("#include"))
    return "line %d" % line, HEADER + includes + "int main(void) {\n" + rest + "\nreturn 0;\n}\n"


SNIPPETS = [(os.path.basename(p), name, src) for p in PAGES for name, src in programs(p)]


def test_snippets_are_found():
    pages = {page for page, _, _ in SNIPPETS}
    assert {"README.md", "diagrams.md", "reductions.md"} <= pages
    # README's two blocks (build a kernel, then run it) are one program
    readme = [src for page, _, src in SNIPPETS if page == "README.md"]
    assert len(readme) == 1 and "wf_compile(" in readme[0] and "wf_run(" in readme[0]
    assert readme[0].count("int main(void)") == 1


@pytest.mark.parametrize("page,name,source", SNIPPETS, ids=["%s %s" % s[:2] for s in SNIPPETS])
def test_c_snippet_compiles_and_runs(page, name, source, tmp_path):
    assert isinstance(source, str), "%s: %s" % (page, source)
    src, exe = tmp_path / "snippet.c", tmp_path / "snippet"
    src.write_text(source)
    cmd = [
        "cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_POSIX_C_SOURCE=200809L",
        "-I" + os.path.join(ROOT, "include"), str(src), "-o", str(exe),
        LIB, "-Wl,-rpath," + os.path.dirname(LIB), "-ldl", "-lm",
    ]  # fmt: skip
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, "%s %s does not compile:\n%s\n%s" % (page, name, r.stderr, source)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, WF_CACHE_DIR=""))
    assert r.returncode == 0, "%s %s exited %d:\n%s%s\n%s" % (
        page, name, r.returncode, r.stdout[-2000:], r.stderr[-2000:], source)
