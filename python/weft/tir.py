"""TensorIR scheduling from Python, spelled as TVM's `tvm.tir` spells it.

    from weft.script import tir as T
    from weft import tir

    @T.prim_func
    def copy(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
        ...

    sch = tir.Schedule(copy)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.show()

The C library is the truth: `@T.prim_func` hands the function's source text
to wf_tir_parse, and every primitive is one wf_tir_* call on the schedule's
wf_tir. Python adds only what a binding must: argument checks (so a wrong
type is an exception, never a bad pointer in C), the handle objects, and the
conversion of the library's sticky error into an exception of the
`weft.Error` class of its status, after which the error is cleared so the
schedule stays usable (a refused primitive leaves the program as it was).

Handles: a `BlockRV` / `LoopRV` keeps its `Schedule` alive, so its C pointer
is never dangling; a handle whose loop or block an earlier primitive
replaced is refused by the library with a message naming it.

`sch.mod` is an `IRModule`: the program text at that moment. Building it
uses the schedule's own wf_tir while the schedule is unchanged, and a fresh
parse of that text after the schedule moved on (the printer's output parses
back to the same program; tests/fuzz checks it).
"""

import ctypes
import inspect
import re
import sys
import textwrap

from . import _lib
from ._lib import lib
from .core import ArgumentError, Error, UnsupportedError, _raise_status

MAX_LOOPS = 32  # TIR_MAX_LOOPS: loops around one statement


def _is_int(x):
    """An int, numpy integer or other integral (__index__), not a bool."""
    if isinstance(x, bool) or type(x).__name__ == "bool_":
        return False
    return hasattr(type(x), "__index__")


def _need_tir():
    if not _lib.has("wf_tir_parse"):
        raise UnsupportedError("weft: %s has no TensorIR front-end (wf_tir_*); rebuild it" % _lib.path)


class _Tir:
    """Owns one wf_tir (a parsed program and its schedule state)."""

    def __init__(self, source, origin=None):
        _need_tir()
        if not isinstance(source, str):
            raise ArgumentError(
                "weft: a TensorIR program is source text (str), not %s" % type(source).__name__
            )
        self.ptr = lib.wf_tir_parse(source.encode("utf-8"))
        if not self.ptr:
            raise Error("weft: wf_tir_parse: out of memory")
        st = lib.wf_tir_status(self.ptr)
        if st:
            msg = lib.wf_tir_error(self.ptr).decode("utf-8", "replace")
            lib.wf_tir_free(self.ptr)
            self.ptr = None
            _raise_status(st, _locate(msg, origin))

    def check(self):
        st = lib.wf_tir_status(self.ptr)
        if st:
            msg = lib.wf_tir_error(self.ptr).decode("utf-8", "replace")
            lib.wf_tir_clear_error(self.ptr)
            _raise_status(st, msg)

    def script(self):
        text = lib.wf_tir_script(self.ptr)
        self.check()
        return (text or b"").decode("utf-8", "replace")

    def __del__(self):
        try:
            if self.ptr:
                lib.wf_tir_free(self.ptr)
                self.ptr = None
        except Exception:  # interpreter shutdown
            pass


def _locate(msg, origin):
    """The parser's message, plus where its line:col lies in the user's file
    (the parser numbers the lines of the function's text from 1)."""
    if not origin:
        return msg
    filename, first = origin
    m = re.match(r"(\d+):(\d+): ", msg)
    if not m:
        return msg
    return "%s\n(%s, line %d)" % (msg, filename, first + int(m.group(1)) - 1)


def _func_name(script):
    """The function's name in a printed program: its global_symbol where
    T.func_attr gives one, else the name after def (main for a lone function)."""
    m = re.search(r'T\.func_attr\(\{"global_symbol": "([^"]*)"', script)
    if m:
        return m.group(1)
    m = re.search(r"^\s*def (\w+)\(", script, re.M)
    return m.group(1) if m else "main"


class PrimFunc:
    """A parsed @T.prim_func: its source text and name. Printing parses it
    once; each `Schedule` of it parses the text again (its own copy)."""

    def __init__(self, source, origin=None):
        self.source = source
        self._origin = origin
        self._tir = _Tir(source, origin)
        self.name = _func_name(self._tir.script())

    def script(self):
        """The program as TVMScript, in TVM's printer layout."""
        return self._tir.script()

    def show(self, file=None):
        (file or sys.stdout).write(self.script())

    def __str__(self):
        return self.script()

    def __repr__(self):
        return "<weft.tir.PrimFunc %s>" % self.name


class IRModule:
    """The program of a schedule at one moment (TVM's `sch.mod`): `script()`,
    `show()`, `mod["main"]`; `weft.build(mod)` builds it."""

    def __init__(self, sched, text):
        self._sched = sched
        self._version = sched._version
        self._text = text

    def script(self):
        return self._text

    def show(self, file=None):
        (file or sys.stdout).write(self._text)

    def __str__(self):
        return self._text

    def __getitem__(self, name):
        if name not in ("main", self._sched.func_name):
            raise KeyError(name)
        return PrimFunc(self._text)

    def _tir_for_build(self):
        """The wf_tir to build: the schedule's own while it still holds
        this program, else a fresh parse of the text."""
        s = self._sched
        if s._version == self._version:
            return s._tir
        return _Tir(self._text)

    def __repr__(self):
        return "<weft.tir.IRModule of %s>" % self._sched.func_name


class Trace:
    """The schedule's calls so far, as Python (TVM's `sch.trace`)."""

    def __init__(self, text):
        self._text = text

    def show(self, file=None):
        (file or sys.stdout).write(self._text)

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text


class BlockRV:
    """A block of a schedule (TVM's BlockRV); `name` is the name given to
    get_block (None for a block a primitive made)."""

    def __init__(self, sched, ptr, name):
        self._sched, self._ptr, self.name = sched, ptr, name

    def __repr__(self):
        return "<weft.tir.BlockRV %s>" % (self.name or "0x%x" % (self._ptr or 0))


class LoopRV:
    """A loop of a schedule (TVM's LoopRV)."""

    def __init__(self, sched, ptr):
        self._sched, self._ptr = sched, ptr

    def __repr__(self):
        return "<weft.tir.LoopRV 0x%x>" % (self._ptr or 0)


def _source_of(obj):
    if isinstance(obj, PrimFunc):
        return obj.source, obj._origin
    if isinstance(obj, IRModule):
        return obj.script(), None
    if isinstance(obj, str):
        return obj, None
    raise ArgumentError(
        "weft: tir.Schedule takes a @T.prim_func, an IRModule (sch.mod) or TVMScript text, not %s"
        % type(obj).__name__
    )


class Schedule:
    """TVM's tir.Schedule over the C TensorIR scheduler; every primitive is
    spelled, and takes its arguments, as TVM's does."""

    def __init__(self, mod, debug_mask=None, error_render_level=None):
        source, origin = _source_of(mod)
        self._tir = _Tir(source, origin)
        self._version = 0
        self.func_name = _func_name(self._tir.script())

    # ---- argument checks (a wrong type never reaches C)
    def _block(self, b, what="block"):
        if not isinstance(b, BlockRV):
            raise ArgumentError(
                "weft: %s must be a BlockRV (from get_block), not %s" % (what, type(b).__name__)
            )
        if b._sched is not self:
            raise ArgumentError("weft: the block %s belongs to another schedule" % b.name)
        return b._ptr

    def _loop(self, loop, what="loop"):
        if not isinstance(loop, LoopRV):
            raise ArgumentError(
                "weft: %s must be a LoopRV (from get_loops), not %s" % (what, type(loop).__name__)
            )
        if loop._sched is not self:
            raise ArgumentError("weft: the %s belongs to another schedule" % what)
        return loop._ptr

    def _loops(self, loops, fn):
        if len(loops) == 1 and isinstance(loops[0], (list, tuple)):
            loops = tuple(loops[0])
        if not loops:
            raise ArgumentError("weft: %s needs at least one loop" % fn)
        ptrs = [self._loop(x) for x in loops]
        return len(ptrs), (ctypes.c_void_p * len(ptrs))(*ptrs)

    def _done(self, result=None):
        """Raise the library's error, if any; else count the change."""
        self._tir.check()
        self._version += 1
        return result

    @staticmethod
    def _str(x, what):
        if not isinstance(x, str):
            raise ArgumentError("weft: %s must be a str, not %s" % (what, type(x).__name__))
        return x.encode("utf-8")

    @staticmethod
    def _int(x, what):
        if not _is_int(x):
            raise ArgumentError("weft: %s must be an int, not %s" % (what, type(x).__name__))
        return int(x)

    # ---- the program
    @property
    def mod(self):
        return IRModule(self, self._tir.script())

    @property
    def trace(self):
        text = lib.wf_tir_trace(self._tir.ptr)
        self._tir.check()
        return Trace((text or b"").decode("utf-8", "replace"))

    def show(self, file=None):
        """Print the program as TVM's sch.show() does (TVMScript)."""
        (file or sys.stdout).write(self._tir.script())

    # ---- getting handles
    def get_block(self, name, func_name=None):
        b = lib.wf_tir_get_block(self._tir.ptr, self._str(name, "the block name"))
        self._tir.check()
        return BlockRV(self, b, name)

    get_sblock = get_block  # TVM 0.27's spelling

    def get_loops(self, block):
        bp = self._block(block)
        arr = (ctypes.c_void_p * MAX_LOOPS)()
        n = lib.wf_tir_get_loops(self._tir.ptr, bp, arr, MAX_LOOPS)
        self._tir.check()
        return [LoopRV(self, arr[i]) for i in range(min(n, MAX_LOOPS))]

    # ---- loop transformations
    def split(self, loop, factors, preserve_unit_iters=True, disable_predication=False):
        lp = self._loop(loop)
        if not isinstance(factors, (list, tuple)) or not factors:
            raise ArgumentError("weft: split: factors must be a non-empty list of ints and at most one None")
        vals = []
        for f in factors:
            if f is None:
                vals.append(-1)
            elif not _is_int(f):
                raise ArgumentError(
                    "weft: split: a factor must be an int or None, not %s (%r)" % (type(f).__name__, f)
                )
            elif f < 1:
                raise ArgumentError(
                    "weft: split: the factor %d is not positive; use None for the inferred one" % f
                )
            else:
                vals.append(int(f))
        if not preserve_unit_iters or disable_predication:
            raise UnsupportedError(
                "weft: split: not supported yet: preserve_unit_iters=False or disable_predication=True"
            )
        out = (ctypes.c_void_p * len(vals))()
        lib.wf_tir_split(self._tir.ptr, lp, len(vals), (ctypes.c_int64 * len(vals))(*vals), out)
        return self._done([LoopRV(self, out[i]) for i in range(len(vals))])

    def fuse(self, *loops, preserve_unit_iters=True):
        n, arr = self._loops(loops, "fuse")
        p = lib.wf_tir_fuse(self._tir.ptr, n, arr)
        return self._done(LoopRV(self, p))

    def reorder(self, *ordered_loops):
        n, arr = self._loops(ordered_loops, "reorder")
        lib.wf_tir_reorder(self._tir.ptr, n, arr)
        self._done()

    def bind(self, loop, thread_axis):
        lib.wf_tir_bind(self._tir.ptr, self._loop(loop), self._str(thread_axis, "thread_axis"))
        self._done()

    def vectorize(self, loop):
        lib.wf_tir_vectorize(self._tir.ptr, self._loop(loop))
        self._done()

    def unroll(self, loop):
        lib.wf_tir_unroll(self._tir.ptr, self._loop(loop))
        self._done()

    # ---- caching and moving blocks
    def _cache(self, fn, block, index, scope, consumer_blocks, kind):
        bp = self._block(block)
        index = self._int(index, "%s_buffer_index" % kind)
        if consumer_blocks:
            raise UnsupportedError("weft: cache_%s: not supported yet: consumer_blocks" % kind)
        p = fn(self._tir.ptr, bp, index, self._str(scope, "storage_scope"))
        return self._done(BlockRV(self, p, None))

    def cache_read(self, block, read_buffer_index, storage_scope, consumer_blocks=None):
        return self._cache(
            lib.wf_tir_cache_read, block, read_buffer_index, storage_scope, consumer_blocks, "read"
        )

    def cache_write(self, block, write_buffer_index, storage_scope, consumer_blocks=None):
        return self._cache(
            lib.wf_tir_cache_write, block, write_buffer_index, storage_scope, consumer_blocks, "write"
        )

    def _at(self, fn, block, loop, preserve_unit_loops, index, name):
        bp, lp = self._block(block), self._loop(loop)
        if preserve_unit_loops or index != -1:
            raise UnsupportedError(
                "weft: %s: not supported yet: preserve_unit_loops=True or index other than -1" % name
            )
        fn(self._tir.ptr, bp, lp)
        self._done()

    def compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        self._at(lib.wf_tir_compute_at, block, loop, preserve_unit_loops, index, "compute_at")

    def reverse_compute_at(self, block, loop, preserve_unit_loops=False, index=-1):
        self._at(lib.wf_tir_reverse_compute_at, block, loop, preserve_unit_loops, index, "reverse_compute_at")

    def compute_inline(self, block):
        lib.wf_tir_compute_inline(self._tir.ptr, self._block(block))
        self._done()

    def reverse_compute_inline(self, block):
        lib.wf_tir_reverse_compute_inline(self._tir.ptr, self._block(block))
        self._done()

    def rfactor(self, loop, factor_axis):
        lp = self._loop(loop)
        p = lib.wf_tir_rfactor(self._tir.ptr, lp, self._int(factor_axis, "factor_axis"))
        return self._done(BlockRV(self, p, None))

    def parallel(self, loop):
        lib.wf_tir_parallel(self._tir.ptr, self._loop(loop))
        self._done()

    # ---- annotations
    @staticmethod
    def _ann_text(v):
        """An annotation value as the TVMScript text the C library takes."""
        if isinstance(v, bool):
            return "True" if v else "False"
        if _is_int(v):
            return str(int(v))
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, str):
            if '"' in v or "\\" in v:
                raise ArgumentError("weft: annotate: a string value may not hold quotes or backslashes")
            return '"%s"' % v
        if isinstance(v, (list, tuple)):
            return "[%s]" % ", ".join(Schedule._ann_text(x) for x in v)
        raise ArgumentError(
            "weft: annotate: ann_val must be an int, a float, a str, a bool or a list of them, not %s"
            % type(v).__name__
        )

    def annotate(self, block_or_loop, ann_key, ann_val):
        key = self._str(ann_key, "ann_key")
        val = self._ann_text(ann_val).encode("utf-8")
        if isinstance(block_or_loop, BlockRV):
            lib.wf_tir_annotate_block(self._tir.ptr, self._block(block_or_loop), key, val)
        else:
            lib.wf_tir_annotate_loop(self._tir.ptr, self._loop(block_or_loop, "block_or_loop"), key, val)
        self._done()

    def unannotate(self, block_or_loop, ann_key):
        key = self._str(ann_key, "ann_key")
        if isinstance(block_or_loop, BlockRV):
            lib.wf_tir_unannotate_block(self._tir.ptr, self._block(block_or_loop), key)
        else:
            lib.wf_tir_unannotate_loop(self._tir.ptr, self._loop(block_or_loop, "block_or_loop"), key)
        self._done()

    # ---- block primitives and queries
    def set_scope(self, block, buffer_index, storage_scope):
        lib.wf_tir_set_scope(
            self._tir.ptr,
            self._block(block),
            self._int(buffer_index, "buffer_index"),
            self._str(storage_scope, "storage_scope"),
        )
        self._done()

    def storage_align(self, block, buffer_index, axis, factor, offset):
        lib.wf_tir_storage_align(
            self._tir.ptr,
            self._block(block),
            self._int(buffer_index, "buffer_index"),
            self._int(axis, "axis"),
            self._int(factor, "factor"),
            self._int(offset, "offset"),
        )
        self._done()

    def decompose_reduction(self, block, loop):
        p = lib.wf_tir_decompose_reduction(self._tir.ptr, self._block(block), self._loop(loop))
        self._tir.check()
        self._version += 1
        return BlockRV(self, p, lib.wf_tir_block_name(self._tir.ptr, p).decode("utf-8"))

    def blockize(self, target, preserve_unit_iters=True):
        lib.wf_tir_blockize(self._tir.ptr, self._loop(target, "target"))
        self._done()

    def _blocks(self, fn, handle):
        arr = (ctypes.c_void_p * 64)()
        n = fn(self._tir.ptr, handle, arr, 64)
        self._tir.check()
        return [
            BlockRV(self, arr[i], lib.wf_tir_block_name(self._tir.ptr, arr[i]).decode("utf-8"))
            for i in range(min(n, 64))
        ]

    def get_child_blocks(self, block_or_loop):
        if isinstance(block_or_loop, BlockRV):
            return self._blocks(lib.wf_tir_get_child_blocks, self._block(block_or_loop))
        return self._blocks(lib.wf_tir_get_loop_child_blocks, self._loop(block_or_loop, "block_or_loop"))

    def get_producers(self, block):
        return self._blocks(lib.wf_tir_get_producers, self._block(block))

    def get_consumers(self, block):
        return self._blocks(lib.wf_tir_get_consumers, self._block(block))

    def __repr__(self):
        return "<weft.tir.Schedule of %s>" % self.func_name


def prim_func(func=None, private=False, check_well_formed=True):
    """@T.prim_func: parse the decorated function's source text (dedented)
    with the C parser. Also takes the text itself: T.prim_func(text)."""
    if func is None:
        return lambda f: prim_func(f, private, check_well_formed)
    if isinstance(func, str):
        text = textwrap.dedent(func).lstrip("\n")
        if text.startswith("def "):  # the text of the function alone
            text = "@T.prim_func\n" + text
        return PrimFunc(text)
    if not callable(func):
        raise ArgumentError(
            "weft: T.prim_func decorates a function or takes its text, not %s" % type(func).__name__
        )
    try:
        lines, first = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or "<unknown>"
    except (OSError, TypeError) as e:
        raise ArgumentError(
            "weft: T.prim_func needs the source text of %s, which Python cannot find (%s); define it "
            "in a file, or pass the text: T.prim_func(text)" % (getattr(func, "__name__", func), e)
        ) from None
    return PrimFunc(textwrap.dedent("".join(lines)), (filename, first))
