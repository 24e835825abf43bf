"""weft.script.ir: TVMScript's `I` (`from weft.script import ir as I`).

    @I.ir_module
    class Module:
        @T.prim_func
        def main(a: T.handle, b: T.handle):
            ...

An IRModule class of one @T.prim_func: its source text goes to the C parser, which
reads the class whole (and prints the program as the module it is).
"""

import inspect
import textwrap

from ..core import ArgumentError


def ir_module(cls):
    """@I.ir_module: the class's text, parsed as one module (a PrimFunc whose
    printed program is the module); also takes the text itself."""
    from ..tir import PrimFunc

    if isinstance(cls, str):
        text = textwrap.dedent(cls).lstrip("\n")
        if text.startswith("class "):
            text = "@I.ir_module\n" + text
        return PrimFunc(text)
    if not inspect.isclass(cls):
        raise ArgumentError("weft: I.ir_module decorates a class or takes its text, not %s" % type(cls).__name__)
    try:
        lines, first = inspect.getsourcelines(cls)
        filename = inspect.getsourcefile(cls) or "<unknown>"
    except (OSError, TypeError) as e:
        raise ArgumentError(
            "weft: I.ir_module needs the source text of %s, which Python cannot find (%s); "
            "define it in a file, or pass the text: I.ir_module(text)" % (cls.__name__, e)
        ) from None
    return PrimFunc(textwrap.dedent("".join(lines)), (filename, first))
