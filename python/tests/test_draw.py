"""Diagrams of a tensor's IterDomain graph (draw.py, wf_dot_string) and the
`weft draw` command: the exact DOT text of a schedule, PNG and SVG rendered
by Graphviz's `dot` (checked to be a well-formed, non-empty image), the
error when `dot` is missing, and Jupyter's _repr_svg_."""

import os
import re
import shutil
import struct
import subprocess
import zlib

import pytest

import weft

HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(
    not HAVE_DOT, reason="Graphviz's `dot` is not installed (apt-get install -y graphviz)"
)
WEFT_CLI = os.path.join(os.path.dirname(weft.library_path), "weft")


def scheduled():
    """T0 (global) -> T1 (local, inlined at 1) -> T2 (global, split and on threads)."""
    f = weft.Fusion()
    a = f.input(weft.f32, [8, 64])
    b = weft.set(a)
    c = weft.set(b)
    f.output(c)
    c.split(1, 16).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    c.propagate_transforms()
    b.inline_at(1)
    return f, b, c


def test_dot_text_is_the_c_printers():
    f, b, c = scheduled()
    assert c.dot() == (
        "digraph T2 {\n"
        '  label="T2_g_float[iblockIdx.x4{8}, iS6{4}, ithreadIdx.x7{16}]\\nglobal memory, '
        'allocation domain: logical (default)";\n'
        "  labelloc=t;\n"
        '  fontname="Helvetica";\n'
        "  nodesep=0.25;\n"
        "  ranksep=0.35;\n"
        "  ordering=out;\n"
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica", fontsize=11];\n'
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.6];\n'
        '  id4 [label="iblockIdx.x4{8}\\nlogical 0, loop 0", fillcolor="#cfe2f3"];\n'
        '  id5 [label="iS5{64}\\nlogical 1"];\n'
        '  id6 [label="iS6{4}\\nloop 1"];\n'
        '  id7 [label="ithreadIdx.x7{16}\\nloop 2", fillcolor="#fce5cd"];\n'
        '  tf0 [label="split 16", shape=box, style=filled, fillcolor="#eeeeee", fontsize=9, height=0.2];\n'
        "  id5 -> tf0;\n"
        '  tf0 -> id6 [label="outer"];\n'
        '  tf0 -> id7 [label="inner"];\n'
        "  { rank=same; id4; id5; }\n"
        "  id4 -> id5 [style=invis];\n"
        "  { rank=same; id6; id7; }\n"
        "  id6 -> id7 [style=invis];\n"
        "}\n"
    )
    # the inlined producer: its first loop axis is shared (double border), (CA) after it
    text = b.dot()
    assert '  id2 [label="iS2{8}\\nlogical 0, loop 0", peripheries=2];\n' in text
    assert "ca_pos( 1 )" in text
    assert "  { rank=same; ca; id8; id9; }\n  ca -> id8 -> id9 [style=invis];\n" in text


def _png_chunks(data):
    """(type, body) of every chunk, each CRC checked; raises on a bad file."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    pos, chunks = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n : pos + 12 + n])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, "bad CRC in %r" % kind
        chunks.append((kind, body))
        pos += 12 + n
    return chunks


def check_png(data):
    """A complete, decodable, non-empty PNG; returns (width, height)."""
    chunks = _png_chunks(data)
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, color = struct.unpack(">IIBB", chunks[0][1][:10])
    assert width > 100 and height > 100
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color]
    pixels = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(pixels) == height * (1 + (width * channels * depth + 7) // 8)
    assert len(set(pixels)) > 2  # not one flat colour
    return width, height


@needs_dot
def test_draw_png_renders_a_valid_image(tmp_path):
    f, b, c = scheduled()
    path = tmp_path / "t2.png"
    assert c.draw(str(path)) == str(path)
    width, height = check_png(path.read_bytes())
    assert height > width / 4  # a graph with rows, not a single line
    assert check_png(c.draw(format="png")) == (width, height)


@needs_dot
def test_draw_svg_and_jupyter_show_the_iterdomains(tmp_path):
    f, b, c = scheduled()
    svg = c.draw()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    for name in ("iblockIdx.x4{8}", "iS6{4}", "ithreadIdx.x7{16}", "split 16"):
        assert name in svg
    assert c._repr_svg_() == svg
    c.draw(str(tmp_path / "t2.svg"))
    assert (tmp_path / "t2.svg").read_text() == svg


def test_draw_dot_file_needs_no_graphviz(tmp_path, monkeypatch):
    monkeypatch.setenv("WEFT_DOT", "/nonexistent/dot")
    f, b, c = scheduled()
    c.draw(str(tmp_path / "t2.dot"))
    assert (tmp_path / "t2.dot").read_text() == c.dot()


def test_missing_dot_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("WEFT_DOT", "/nonexistent/dot")
    f, b, c = scheduled()
    msg = (
        r"Graphviz's `/nonexistent/dot` program, which was not found; "
        r"install Graphviz \(Debian/Ubuntu: apt-get install -y graphviz\)"
    )
    with pytest.raises(weft.GraphvizError, match=msg):
        c.draw(str(tmp_path / "t2.svg"))
    assert isinstance(weft.GraphvizError("x"), weft.Error)
    assert not (tmp_path / "t2.svg").exists()
    assert c._repr_svg_() is None  # Jupyter falls back to the text repr


def test_unknown_format_and_freed_fusion():
    f, b, c = scheduled()
    with pytest.raises(weft.ArgumentError, match=r"the format 'jpeg' is not one of svg, png, pdf, dot"):
        c.draw("x.jpeg")
    f.free()
    with pytest.raises(weft.UseAfterFree):
        c.dot()
    assert c._repr_svg_() is None


needs_cli = pytest.mark.skipif(not os.path.exists(WEFT_CLI), reason="build/weft is not built (make)")


@needs_cli
def test_weft_draw_prints_dot_of_seed_000_fancy_transformations():
    out = subprocess.run([WEFT_CLI, "draw", "fancy"], capture_output=True, text=True, check=True).stdout
    assert out.startswith("digraph T4 {\n")
    assert out.count('[label="swizzle XOR"') == 4  # seed 000's four XOR swizzles
    assert out.count('[label="split 64"') == 2 and out.count('[label="merge"') == 2
    assert '  id23 [label="iS23{4096}\\nloop 0"];\n' in out
    t2 = subprocess.run([WEFT_CLI, "draw", "complicated1", "T2"], capture_output=True, text=True, check=True)
    assert "tensor memory, allocation domain: set (positions marked alloc), dim-separator 6" in t2.stdout


@needs_cli
def test_weft_draw_errors(tmp_path):
    r = subprocess.run([WEFT_CLI, "draw", "fancy", "T9"], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr == "weft draw: example fancy has no tensor T9 (it has T0..T4)\n"
    r = subprocess.run([WEFT_CLI, "draw", "nope"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("weft draw: no example or file named 'nope'\nusage: weft draw")
    env = dict(os.environ, WEFT_DOT="/nonexistent/dot")
    cmd = [WEFT_CLI, "draw", "fancy", "-o", str(tmp_path / "never.svg")]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert r.returncode == 1
    assert "Graphviz's `/nonexistent/dot` program was not found; install Graphviz" in r.stderr
    assert not (tmp_path / "never.svg").exists()


@needs_cli
@needs_dot
def test_weft_draw_renders_png(tmp_path):
    path = tmp_path / "swizzle.png"
    subprocess.run([WEFT_CLI, "draw", "tma-swizzle", "-o", str(path)], check=True)
    check_png(path.read_bytes())


@needs_cli
@needs_dot
def test_tma_figure_has_seed_001_colours(tmp_path):
    """The TMA load's diagram: box IterDomains green, coordinate ones brown
    (seed 001's figures), rendered to a valid PNG."""
    dot = subprocess.run([WEFT_CLI, "draw", "tma-load"], capture_output=True, text=True, check=True).stdout
    assert '  id6 [label="iblockIdx.x6{4}\\nalloc 0, loop 0, TMA coordinate", fillcolor="#c9a27e", peripheries=2];' in dot
    assert '  id7 [label="iBulk7{64}\\nloop 1, TMA box", fillcolor="#93c47d"];' in dot
    assert '  id15 [label="iS15{8}\\nalloc 4, TMA box", fillcolor="#93c47d"];' in dot
    assert '  id2 [label="iS2{256}\\nlogical 0"];' in dot
    assert dot.count("TMA box") == 10 and dot.count("TMA coordinate") == 1
    svg = subprocess.run([WEFT_CLI, "draw", "tma-load", "-o", str(tmp_path / "t.svg")], check=True)
    svg = (tmp_path / "t.svg").read_text()
    assert svg.count('fill="#93c47d"') == 10 and svg.count('fill="#c9a27e"') == 1
    subprocess.run([WEFT_CLI, "draw", "tma-load", "-o", str(tmp_path / "t.png")], check=True)
    check_png((tmp_path / "t.png").read_bytes())


def test_python_draws_tma_colours():
    f = weft.Fusion()
    a = f.input(weft.f32, [128, 32])
    s = weft.set(a).set_memory(weft.SHARED).set_ldst(weft.TMA)
    f.output(weft.set(s))
    assert "TMA" not in s.dot()  # no Bulk tile yet
    s.split(0, 32).parallelize(0, weft.BIDX).parallelize(1, weft.BULK).parallelize(2, weft.BULK)
    dot = s.dot()
    assert '  id6 [label="iblockIdx.x6{4}\\nloop 0, TMA coordinate", fillcolor="#c9a27e"];' in dot
    assert '  id7 [label="iBulk7{32}\\nloop 1, TMA box", fillcolor="#93c47d"];' in dot
    assert '  id3 [label="iBulk3{32}\\nlogical 1, loop 2, TMA box", fillcolor="#93c47d"];' in dot


@needs_dot
def test_diagrams_page_python_runs(tmp_path, monkeypatch, capsys):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "docs", "diagrams.md")) as fh:
        code = re.findall(r"^```python\n(.*?)^```", fh.read(), re.S | re.M)
    assert len(code) == 1
    monkeypatch.chdir(tmp_path)
    exec(compile(code[0], "docs/diagrams.md", "exec"), {"__name__": "__diagrams__"})
    assert capsys.readouterr().out == "digraph T1 { True\n"
    assert (tmp_path / "t.svg").read_text().rstrip().endswith("</svg>")


@needs_cli
def test_committed_figures_match_weft_draw():
    """docs/figures/*.svg (tools/figures.sh) are well-formed SVG holding every
    IterDomain and transform that `weft draw` gives today: rerun the script
    when this fails."""
    import xml.etree.ElementTree as ET

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "tools", "figures.sh")) as fh:
        figures = re.findall(r"^draw (\S+) (T\d+) (\S+)$", fh.read(), re.M)
    assert len(figures) == 7
    for example, tensor, name in figures:
        path = os.path.join(root, "docs", "figures", name + ".svg")
        svg = open(path).read()
        assert ET.fromstring(svg.encode()).tag == "{http://www.w3.org/2000/svg}svg", path
        dot = subprocess.run([WEFT_CLI, "draw", example, tensor], capture_output=True, text=True, check=True)
        labels = re.findall(r'\[label="([^"\\]*)', dot.stdout)
        assert len(labels) > 5
        for label in labels:
            text = label.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            assert ">%s</text>" % text in svg, "%s lacks %r: rerun tools/figures.sh" % (name, label)
