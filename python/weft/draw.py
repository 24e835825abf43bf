"""Diagrams of a tensor's IterDomain graph: `Tensor.dot()` gives the
Graphviz DOT text that wf_dot_string writes (logical domain on top, loop
domain at the bottom with the compute-at marker, split/merge/swizzle between
them, parallel types as colours); `Tensor.draw(path)` renders it with
Graphviz's `dot` program to .svg, .png or .pdf (or writes .dot text); a
tensor shows itself as that SVG in Jupyter (`_repr_svg_`).

`dot` is looked up on PATH, or named by $WEFT_DOT. When it is missing,
drawing raises `GraphvizError` saying how to install it (Debian/Ubuntu:
apt-get install -y graphviz), while Jupyter falls back to the text repr.
"""

import os
import shutil
import subprocess

from . import _lib
from ._lib import lib
from .core import ArgumentError, Error, UnsupportedError

FORMATS = ("svg", "png", "pdf", "dot")


class GraphvizError(Error):
    """Graphviz's `dot` program is missing or failed."""

    status = "graphviz"


def dot_text(t):
    """The DOT text of tensor t's IterDomain graph."""
    ptr = t._live()
    if not _lib.has("wf_dot_string"):
        raise UnsupportedError("weft: %s has no wf_dot_string (rebuild the library)" % _lib.path)
    s = lib.wf_dot_string(ptr)
    t._f._check(s, "wf_dot_string")
    return s.decode("utf-8", "replace")


def dot_program():
    """The path of Graphviz's `dot`; GraphvizError when there is none."""
    name = os.environ.get("WEFT_DOT") or "dot"
    path = shutil.which(name)
    if not path:
        raise GraphvizError(
            "weft: drawing needs Graphviz's `%s` program, which was not found; install Graphviz "
            "(Debian/Ubuntu: apt-get install -y graphviz), or set WEFT_DOT to its path, or take "
            "the DOT text from Tensor.dot()" % name
        )
    return path


def render(text, fmt):
    """DOT text rendered by `dot -T<fmt>`, as bytes."""
    proc = subprocess.run([dot_program(), "-T" + fmt], input=text.encode(), capture_output=True)
    if proc.returncode != 0:
        raise GraphvizError(
            "weft: `dot -T%s` failed (exit %d): %s"
            % (fmt, proc.returncode, proc.stderr.decode("utf-8", "replace").strip())
        )
    return proc.stdout


def _format_of(path, fmt):
    if fmt is None:
        fmt = os.path.splitext(str(path))[1].lstrip(".").lower() if path is not None else "svg"
    if fmt not in FORMATS:
        raise ArgumentError(
            "weft: cannot draw to %r: the format %r is not one of %s (give format=)"
            % (path, fmt, ", ".join(FORMATS))
        )
    return fmt


def draw(t, path=None, format=None):
    """Render t's IterDomain graph. With a path, write it there (the format
    from the extension, or `format`) and return the path; without, return
    the SVG text (str), or the bytes of `format`."""
    fmt = _format_of(path, format)
    text = dot_text(t)
    data = text.encode() if fmt == "dot" else render(text, fmt)
    if path is None:
        return data.decode("utf-8", "replace") if fmt in ("svg", "dot") else data
    with open(path, "wb") as out:
        out.write(data)
    return path


def repr_svg(t):
    """The SVG for Jupyter, or None (text repr) without Graphviz or a live fusion."""
    if not t._f.alive:
        return None
    try:
        return draw(t)
    except GraphvizError:
        return None
