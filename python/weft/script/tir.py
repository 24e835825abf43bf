"""`from weft.script import tir as T`: the names a TVMScript function uses.

The C parser (wf_tir_parse) reads a @T.prim_func's source text and is the
only judge of what it means; Python never runs the function's body. So the
names here need only exist: `T.Buffer(...)` is evaluated (it is a parameter
annotation) and returns a description of the buffer, `T.prim_func` parses,
and every other name, called from Python, says that it is parser syntax.
"""

from ..tir import prim_func  # noqa: F401


class BufferType:
    """What `T.Buffer(shape, dtype)` evaluates to in an annotation."""

    def __init__(self, shape, dtype="float32", *args, **kwargs):
        self.shape = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
        self.dtype = dtype

    def __repr__(self):
        return "T.Buffer(%r, %r)" % (self.shape, self.dtype)


class _BufferMaker:
    def __call__(self, shape, dtype="float32", *args, **kwargs):
        return BufferType(shape, dtype, *args, **kwargs)

    def __getitem__(self, key):  # T.Buffer[(256,), "float32"]
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str):
            return BufferType(key[0], key[1])
        return BufferType(key)


Buffer = _BufferMaker()


def _syntax(name):
    def f(*args, **kwargs):
        raise RuntimeError(
            "weft: T.%s is TVMScript syntax, read by the parser from a @T.prim_func's text; "
            "it does nothing when Python calls it" % name
        )

    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = "TVMScript syntax (read by the C parser, never run)."
    return f


class _Namespace:
    def __init__(self, prefix, names):
        for n in names:
            setattr(self, n, _syntax(prefix + n))


axis = _Namespace("axis.", ["spatial", "reduce", "remap", "S", "R", "scan", "opaque"])

_NAMES = """grid block init reads writes where alloc_buffer match_buffer func_attr
thread_binding serial parallel vectorized unroll max min exp log sqrt rsqrt tanh sigmoid
abs if_then_else cast Select float16 float32 float64 bfloat16 int8 int16 int32 int64
uint8 bool handle evaluate launch_thread env_thread attr assume floordiv floormod truncdiv
truncmod ceildiv sblock sblock_alloc_buffer sblock_attr block_attr min_value max_value
Cast""".split()
for _n in _NAMES:
    globals()[_n] = _syntax(_n)
del _n
