"""The object-style Python API over the C API of include/weft.h.

A `Fusion` owns a wf_fusion; `Tensor` and `IterDomain` are handles into it
and `Kernel` (kernel.py) owns a wf_kernel (which outlives its fusion, as in C). Every
handle keeps a reference to its owner and checks that the owner is alive
before each call, so a handle used after `Fusion.free()` / `Kernel.free()`
raises `UseAfterFree` instead of touching freed memory.

Errors: the C library records the first error of a fusion (sticky). After
each call the fusion's status is checked; a failure is raised as the
`Error` subclass of its status with the library's message, and the error is
cleared, so the Python objects stay usable after an exception.

Python derives nothing the C library computes: the enums are generated from
include/weft.h (_enums.py, tools/gen_enums.py), a tensor's dtype is
wf_tv_dtype's, its shape its logical domain's, and an output's *shape
expression* (per dim a constant, or ("in", i, d) = dim d of fusion input i,
which `Kernel.run` binds from the input arrays to allocate outputs) is what
wf_iterdomain_extent_input says of each symbolic extent.
"""

import ctypes
import enum

import numpy as np

from . import _enums, _lib
from ._enums import LoadStore, MemoryType, ParallelType, Swizzle  # noqa: F401
from ._lib import lib

# ---------------------------------------------------------------- errors


class Error(Exception):
    """An error reported by libweft; `status` is the wf_status name."""

    status = "WF_ERR"


class ArgumentError(Error, ValueError):
    status = "WF_ERR_ARG"


class ScheduleError(Error):
    status = "WF_ERR_SCHEDULE"


class CompileError(Error):
    status = "WF_ERR_COMPILE"


class CudaError(Error):
    status = "WF_ERR_CUDA"


class UnsupportedError(Error, NotImplementedError):
    status = "WF_ERR_UNSUPPORTED"


class OutOfMemory(Error, MemoryError):
    status = "WF_ERR_MEMORY"


class UseAfterFree(ArgumentError):
    """A handle was used after its fusion or kernel was freed."""


_BY_STATUS = {
    1: ArgumentError,
    2: ScheduleError,
    3: CompileError,
    4: CudaError,
    5: UnsupportedError,
    6: OutOfMemory,
}


def _raise_status(status, message):
    cls = _BY_STATUS.get(status, Error)
    raise cls(message or lib.wf_status_name(status).decode())


# ---------------------------------------------------------------- enums

DType = _enums.DType  # wf_dtype, generated from include/weft.h

# numpy's name of each dtype (numpy has no bfloat16: ml_dtypes' name)
_NAMES = {
    DType.f32: "float32",
    DType.f16: "float16",
    DType.bf16: "bfloat16",
    DType.f64: "float64",
    DType.i8: "int8",
    DType.i16: "int16",
    DType.i32: "int32",
    DType.i64: "int64",
    DType.u8: "uint8",
    DType.bool: "bool",
}


def _dtype_str(self):
    return _NAMES[self]


DType.itemsize = property(lambda self: int(lib.wf_dtype_size(int(self))), doc="Bytes per element.")
DType.__str__ = _dtype_str  # print(weft.f32) -> float32, as numpy names it
DType.__format__ = lambda self, spec: format(_NAMES[self], spec)
DType.__repr__ = lambda self: "weft.%s" % self.name

f32, f16, bf16, f64 = DType.f32, DType.f16, DType.bf16, DType.f64
i8, i16, i32, i64, u8, bool_ = DType.i8, DType.i16, DType.i32, DType.i64, DType.u8, DType.bool

_UNARY = [op.name for op in _enums.UnaryOp]
_BINARY_OP = _enums.BinaryOp
_COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")  # bool results

# numpy <-> weft dtypes. numpy has no bfloat16: ml_dtypes' is used when
# installed, otherwise bf16 arrays are raw np.uint16 bit patterns.
_NP = {
    DType.f32: np.dtype(np.float32),
    DType.f16: np.dtype(np.float16),
    DType.f64: np.dtype(np.float64),
    DType.i8: np.dtype(np.int8),
    DType.i16: np.dtype(np.int16),
    DType.i32: np.dtype(np.int32),
    DType.i64: np.dtype(np.int64),
    DType.u8: np.dtype(np.uint8),
    DType.bool: np.dtype(np.bool_),
}
try:  # pragma: no cover - optional
    import ml_dtypes

    _NP[DType.bf16] = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    _NP[DType.bf16] = np.dtype(np.uint16)

_BY_NAME = {}
for _t, _n in _NAMES.items():
    _BY_NAME[_n] = _BY_NAME[_t.name] = _t
_BY_NAME["bool_"] = DType.bool


def as_dtype(t):
    """A weft DType from what a user writes for one: weft.f32, a name ("float32",
    "f32", "bfloat16", "bf16", "bool"), a numpy dtype or type (np.float32,
    np.dtype("int8")), or the C enum's value."""
    if isinstance(t, DType):
        return t
    if isinstance(t, str) and t in _BY_NAME:
        return _BY_NAME[t]
    if isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)):
        try:
            return DType(int(t))
        except ValueError:
            pass
    else:
        try:
            npd = np.dtype(t)
        except (TypeError, ValueError):
            npd = None
        if npd is not None and npd.name in _BY_NAME:
            return _BY_NAME[npd.name]
    raise ArgumentError(
        "weft: %r is not a weft dtype; use one of %s (or weft.f32 ..., a numpy dtype)"
        % (t, ", ".join(_NAMES[x] for x in DType))
    )


def numpy_dtype(t):
    """The numpy dtype that holds weft dtype `t`."""
    return _NP[as_dtype(t)]


# typestr of __cuda_array_interface__ per weft dtype
_TYPESTR = {
    DType.f32: ("<f4",),
    DType.f16: ("<f2",),
    DType.bf16: ("<V2", "<u2", "<b2"),
    DType.f64: ("<f8",),
    DType.i8: ("|i1", "<i1"),
    DType.i16: ("<i2",),
    DType.i32: ("<i4",),
    DType.i64: ("<i8",),
    DType.u8: ("|u1", "<u1"),
    DType.bool: ("|b1", "<b1"),
}


def cuda_available():
    """Whether a CUDA driver and device are usable by libweft."""
    return bool(lib.wf_cuda_available())


def version():
    return lib.wf_version().decode()


# ---------------------------------------------------------------- fusion


class Fusion:
    """A fusion: a DAG of tensor operations, scheduled and compiled.

    Usable as a context manager: the fusion is freed on exit (kernels
    compiled from it stay valid)."""

    def __init__(self):
        self._ptr = lib.wf_fusion_new()
        if not self._ptr:
            raise OutOfMemory("weft: wf_fusion_new failed")
        self._tensors = {}  # C pointer -> Tensor
        self.inputs = []
        self.outputs = []
        self._log = []  # the C calls made on it, for save(): (line, or None and why not)
        self._nscalars = 0

    # lifetime
    def free(self):
        if self._ptr:
            lib.wf_fusion_free(self._ptr)
            self._ptr = None
            self._tensors = {}

    def __del__(self):
        try:
            self.free()
        except Exception:  # interpreter shutdown
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()
        return False

    @property
    def alive(self):
        return bool(self._ptr)

    def _live(self):
        if not self._ptr:
            raise UseAfterFree("weft: this fusion has been freed")
        return self._ptr

    def _check(self, result=None, what=None):
        """Raise (and clear) the fusion's sticky error; else check result."""
        st = lib.wf_fusion_status(self._ptr)
        if st != 0:
            msg = lib.wf_fusion_error(self._ptr).decode("utf-8", "replace")
            lib.wf_fusion_clear_error(self._ptr)
            _raise_status(st, msg)
        if what is not None and not result:
            raise Error("weft: %s returned nothing without an error" % what)
        return result

    # the log of calls (save)
    def _record(self, result, call, *args):
        """Log one accepted C call as a line of the weft-fusion format."""
        try:
            words = [call] + [_log_word(self, a) for a in args]
        except _Unsaveable as e:
            self._log.append((None, "%s: %s" % (call, e)))
            return
        line = " ".join(words)
        self._log.append(((result._handle + " = " if result is not None else "") + line, None))

    def save(self, path):
        """Write the calls that built and scheduled this fusion to `path` as a
        replayable log (the `weft-fusion 1` text format, docs/python.md): the
        command `weft draw FILE.weft [TENSOR]` rebuilds it through the C API
        and draws a tensor's IterDomain graph. Returns path."""
        self._live()
        for i, (line, why) in enumerate(self._log):
            if line is None:
                raise UnsupportedError(
                    "weft: Fusion.save: call %d of this fusion cannot be saved yet: %s" % (i + 1, why)
                )
        text = "weft-fusion 1\n# saved by weft %s (weft.Fusion.save): one call of weft's C API per line\n" % version()
        text += "".join(line + "\n" for line, _ in self._log)
        with open(path, "w") as out:
            out.write(text)
        return path

    def _wrap(self, ptr):
        t = self._tensors.get(ptr)
        if t is None:
            t = Tensor(self, ptr)
            self._tensors[ptr] = t
        return t

    # definition
    def input(self, dtype, shape):
        """A new input tensor; -1 in shape = symbolic (bound at run time).
        dtype: weft.f32 ..., a name ("float32", "bf16") or a numpy dtype."""
        dtype = as_dtype(dtype)
        shape = [int(s) for s in shape]
        arr = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        ptr = lib.wf_input(self._live(), int(dtype), len(shape), arr)
        t = self._new_input(ptr, "wf_input")
        self._record(t, "input", dtype, shape)
        return t

    def input_strided(self, dtype, shape, contiguity):
        """An input whose dims are contiguous with the next inner one where
        contiguity[i] is true; the others take strides at run time."""
        shape = [int(s) for s in shape]
        contiguity = [1 if c else 0 for c in contiguity]
        if len(contiguity) != len(shape):
            raise ArgumentError(
                "weft: input_strided: contiguity has %d entries but shape has %d dims; give one "
                "per dim" % (len(contiguity), len(shape))
            )
        arr = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        con = (ctypes.c_int8 * max(1, len(shape)))(*contiguity)
        ptr = lib.wf_input_strided(self._live(), int(as_dtype(dtype)), len(shape), arr, con)
        t = self._new_input(ptr, "wf_input_strided")
        self._record(t, "input_strided", as_dtype(dtype), shape, contiguity)
        return t

    def _new_input(self, ptr, what):
        self._check(ptr, what)
        t = self._wrap(ptr)
        self.inputs.append(t)
        return t

    def full(self, value, dtype=None):
        """A scalar constant (wf_full): an operand of the elementwise ops and
        where, broadcast to the other operand's shape. dtype None: bool for a
        bool, i64 for an int, f32 for a float (PyTorch's defaults)."""
        return full(self, value, dtype)

    def output(self, t):
        """Mark t as an output of the fusion (outputs are in this order)."""
        t = self._own(t)
        lib.wf_output(self._ptr, t._ptr)
        self._check()
        self._record(None, "output", t)
        self.outputs.append(t)
        return t

    def _own(self, t):
        if not isinstance(t, Tensor):
            raise TypeError("weft: expected a weft.Tensor, got %s" % type(t).__name__)
        self._live()
        if t._f is not self:
            raise ArgumentError("weft: T%d belongs to another fusion" % t.name)
        return t

    # schedule and printing
    def inline_most(self):
        lib.wf_inline_most(self._live())
        self._check()
        self._record(None, "inline_most")

    def _print(self, string_fn, file_fn):
        ptr = self._live()
        if _lib.has(string_fn):
            s = getattr(lib, string_fn)(ptr)
            self._check()
            if s is not None:
                return s.decode("utf-8", "replace")
        s = _lib.capture(getattr(lib, file_fn), ptr)
        self._check()
        return s

    def math_string(self):
        return self._print("wf_math_string", "wf_print_math")

    def transforms_string(self):
        return self._print("wf_transforms_string", "wf_print_transforms")

    def kernel_string(self):
        """The CUDA kernel as wf_print_kernel prints it (lowers the fusion)."""
        return self._print("wf_kernel_string", "wf_print_kernel")

    def print_math(self, file=None):
        """Print the fusion's math (math_string() returns it)."""
        print(self.math_string(), end="", file=file)

    def print_transforms(self, file=None):
        print(self.transforms_string(), end="", file=file)

    def print_kernel(self, file=None):
        print(self.kernel_string(), end="", file=file)

    def schedule_auto(self, sizes=None, sm=None):
        """Schedule the whole fusion automatically (wf_schedule_auto): sizes
        None (generic) or one per dim of every input, inputs in order.
        Returns {"scheduler": ..., "summary": ...}."""
        ptr = self._live()
        opt = ctypes.byref(_lib.CompileOptions(int(sm))) if sm is not None else None
        arr = None
        if sizes is not None:
            sizes = [int(x) for x in sizes]
            arr = (ctypes.c_int64 * max(1, len(sizes)))(*sizes)
        info = _lib.AutoInfo()
        lib.wf_schedule_auto(ptr, arr, opt, ctypes.byref(info))
        self._check()
        return {"scheduler": info.scheduler.decode(), "summary": info.summary.decode()}

    def compile_auto(self, sm=None):
        """weft.jit(self): an AutoKernel, compiled per input signature."""
        from .kernel import AutoKernel

        return AutoKernel(self, sm)

    def compile(self, sm=None):
        """Lower and generate the kernel; sm e.g. 90 or 100 (None = the
        device's, or 90)."""
        ptr = self._live()
        opt = ctypes.byref(_lib.CompileOptions(int(sm))) if sm is not None else None
        k = lib.wf_compile(ptr, opt)
        if not k:
            self._check()
            raise Error("weft: wf_compile failed without an error")
        self._check()
        from .kernel import Kernel

        return Kernel(k, self)


# ---------------------------------------------------------------- handles


class IterDomain:
    """An IterDomain of a tensor (an axis of its loop or logical domain)."""

    def __init__(self, f, ptr):
        self._f = f
        self._ptr = ptr

    def _live(self):
        self._f._live()
        return self._ptr

    @property
    def extent(self):
        """The constant extent, or -1 when symbolic."""
        return int(lib.wf_iterdomain_extent(self._live()))

    @property
    def is_reduction(self):
        """A reduced axis: in the logical domain, not in the tensor's buffer."""
        return bool(lib.wf_iterdomain_is_reduction(self._live()))

    def __eq__(self, other):
        return isinstance(other, IterDomain) and other._ptr == self._ptr

    def __hash__(self):
        return hash(self._ptr)

    def __repr__(self):
        if not self._f.alive:
            return "<IterDomain of a freed fusion>"
        return "<IterDomain extent=%d>" % self.extent


class _Unsaveable(Exception):
    """A call argument Fusion.save cannot write (yet)."""


class _IdRefs:
    """IterDomains named for Fusion.save's log as T<n>.loop.<i> / T<n>.logical.<i>:
    found, when the call is made, in a tensor's loop or logical domain."""

    def __init__(self, f, ids):
        self.refs, self.missing = [], None
        where = {}
        for t in sorted(f._tensors.values(), key=lambda t: t.name if not t._scalar else 1 << 30):
            if t._scalar:
                continue
            for kind, dom in (("loop", t.loop_domain), ("logical", t.logical_domain)):
                for i, d in enumerate(dom):
                    where.setdefault(d._ptr, "%s.%s.%d" % (t._handle, kind, i))
        for d in ids:
            if d._ptr not in where:
                self.missing = "an IterDomain in no tensor's loop or logical domain"
            self.refs.append(where.get(d._ptr))


def _log_word(f, a):
    """One argument of a logged call, as the weft-fusion format writes it."""
    if isinstance(a, Tensor):
        return a._handle
    if isinstance(a, _IdRefs):
        if a.missing:
            raise _Unsaveable(a.missing)
        return "[" + " ".join(a.refs) + "]"
    if isinstance(a, enum.Enum):
        return a.name.lower()
    if isinstance(a, (bool, np.bool_)):
        return "1" if a else "0"
    if isinstance(a, (int, np.integer)):
        return str(int(a))
    if isinstance(a, (float, np.floating)):
        return repr(float(a))
    if isinstance(a, str):
        return a
    return "[" + " ".join(_log_word(f, x) for x in a) + "]"


def _ids(f, ids):
    if isinstance(ids, AbstractTensor):
        if ids._f is not f:
            raise ArgumentError("weft: the abstract tensor belongs to another fusion")
        ids = ids.ids
    ids = list(ids)
    for i in ids:
        if not isinstance(i, IterDomain):
            raise TypeError("weft: expected weft.IterDomain, got %s" % type(i).__name__)
        if i._f is not f:
            raise ArgumentError("weft: an IterDomain belongs to another fusion")
        i._live()
    return len(ids), (ctypes.c_void_p * max(1, len(ids)))(*[i._ptr for i in ids])


def _pairs(old_to_new):
    pairs = list(dict(old_to_new).items())
    flat = [int(v) for p in pairs for v in p]
    return len(pairs), (ctypes.c_int * (2 * max(1, len(pairs))))(*flat)


class AbstractTensor:
    """IterDomains transformed like a loop domain but attached to no tensor
    (nvFuser's AbstractTensor; wf_abstract_*): split, merge, reorder and
    swizzle it, then give it to Tensor.set_loop_domain or
    set_allocation_domain. `AbstractTensor(t)` copies tensor t's loop
    domain; `AbstractTensor(f, ids)` takes IterDomains of fusion f. Freed
    with its fusion; each method returns self, so calls chain."""

    def __init__(self, source, ids=None):
        if isinstance(source, Tensor):
            if ids is not None:
                raise ArgumentError("weft: AbstractTensor(tensor) takes no IterDomains")
            self._f = source._f
            ptr = lib.wf_abstract_of_loop(source._live())
            what = "wf_abstract_of_loop"
        elif isinstance(source, Fusion):
            if ids is None:
                raise ArgumentError("weft: AbstractTensor(fusion, ids) needs the IterDomains")
            self._f = source
            n, arr = _ids(source, ids)
            ptr = lib.wf_abstract_new(source._live(), n, arr)
            what = "wf_abstract_new"
        else:
            raise TypeError(
                "weft: AbstractTensor(tensor) or AbstractTensor(fusion, ids), not %s"
                % type(source).__name__
            )
        self._ptr = self._f._check(ptr, what)

    def _live(self):
        self._f._live()
        return self._ptr

    def _call(self, fn, *args):
        fn(self._live(), *args)
        self._f._check()
        return self

    @property
    def ids(self):
        """Its IterDomains, outermost first."""
        n = ctypes.c_int()
        arr = lib.wf_abstract_ids(self._live(), ctypes.byref(n))
        return [IterDomain(self._f, arr[i]) for i in range(n.value)]

    @property
    def ndim(self):
        return int(lib.wf_abstract_ndim(self._live()))

    def __len__(self):
        return self.ndim

    def __getitem__(self, i):
        return self.ids[i]

    def split(self, axis, factor):
        """Inner split: the new inner axis has `factor` elements."""
        return self._call(lib.wf_abstract_split, int(axis), int(factor))

    def merge(self, outer, inner):
        """Merge two axes; the result is at min(outer, inner)."""
        return self._call(lib.wf_abstract_merge, int(outer), int(inner))

    def reorder(self, old_to_new):
        """Move axes: {old: new, ...} (like nvFuser's reorder)."""
        n, arr = _pairs(old_to_new)
        return self._call(lib.wf_abstract_reorder, n, arr)

    def swizzle(self, x, y, kind=Swizzle.XOR):
        return self._call(lib.wf_abstract_swizzle, int(kind), int(x), int(y))

    def __repr__(self):
        if not self._f.alive:
            return "<weft.AbstractTensor of a freed fusion>"
        return "<weft.AbstractTensor extents=%s>" % [i.extent for i in self.ids]


class Tensor:
    """A tensor (TensorView) of a fusion."""

    def __init__(self, f, ptr):
        self._f = f
        self._ptr = ptr
        self._scalar = False  # a scalar constant (weft.full)
        self._handle = "T%d" % lib.wf_tv_name(ptr)  # its name in Fusion.save's log

    def _live(self):
        self._f._live()
        return self._ptr

    def _call(self, fn, *args, log=None):
        """fn(this tensor, *args); `log`: the call as Fusion.save records it
        (its name and arguments, this tensor first)."""
        fn(self._live(), *args)
        self._f._check()
        if log is not None:
            self._f._record(None, log[0], self, *log[1:])
        return self

    # inspection
    @property
    def fusion(self):
        return self._f

    @property
    def name(self):
        return int(lib.wf_tv_name(self._live()))

    @property
    def ndim(self):
        return int(lib.wf_tv_ndim(self._live()))

    def axis(self, i):
        p = lib.wf_tv_axis(self._live(), int(i))
        self._f._check(p, "wf_tv_axis")
        return IterDomain(self._f, p)

    def _domain(self, fn):
        n = ctypes.c_int()
        arr = fn(self._live(), ctypes.byref(n))
        self._f._check()
        return [IterDomain(self._f, arr[i]) for i in range(n.value)]

    @property
    def loop_domain(self):
        return self._domain(lib.wf_tv_loop_domain)

    @property
    def logical_domain(self):
        return self._domain(lib.wf_tv_logical_domain)

    @property
    def dtype(self):
        """The element type (wf_tv_dtype: PyTorch's promotion rules, in C)."""
        return DType(lib.wf_tv_dtype(self._live()))

    @property
    def compute_at(self):
        return int(lib.wf_tv_compute_at(self._live()))

    @property
    def shape(self):
        """The buffer's extents (-1 where symbolic): the logical domain without
        reduced axes, so weft.sum(a, [1]) of a [4, 8] tensor has shape [4]."""
        return [d.extent for d in self.logical_domain if not d.is_reduction]

    def _shape_expr(self):
        """Per buffer dim, the constant extent or ("in", i, d) = dim d of fusion
        input i (wf_iterdomain_extent_input); None where neither says it."""
        out = []
        i, d = ctypes.c_int(), ctypes.c_int()
        for dom in self.logical_domain:
            if dom.is_reduction:
                continue
            e = dom.extent
            if e >= 0:
                out.append(e)
            elif lib.wf_iterdomain_extent_input(dom._ptr, ctypes.byref(i), ctypes.byref(d)):
                out.append(("in", i.value, d.value))
            else:
                return None
        return out

    def definition_input(self, i):
        p = lib.wf_tv_definition_input(self._live(), int(i))
        self._f._check()
        # a tensor the library made (wf_matmul's views) is wrapped on first sight
        return self._f._wrap(p) if p else None

    # diagrams (draw.py)
    def dot(self):
        """The IterDomain graph as Graphviz DOT text (wf_dot_string)."""
        from . import draw

        return draw.dot_text(self)

    def draw(self, path=None, format=None):
        """Render the IterDomain graph with Graphviz's `dot` into path (.svg,
        .png, .pdf; .dot = the text); without a path, return the SVG."""
        from . import draw

        return draw.draw(self, path, format)

    def _repr_svg_(self):
        from . import draw

        return draw.repr_svg(self)

    def __repr__(self):
        if not self._f.alive:
            return "<weft.Tensor of a freed fusion>"
        return "<weft.Tensor T%d shape=%s dtype=%s>" % (self.name, self.shape, self.dtype)

    # schedule (each returns self, so calls chain)
    def split(self, axis, factor):
        return self._call(lib.wf_tv_split, int(axis), int(factor), log=("split", axis, factor))

    def split_outer(self, axis, factor):
        return self._call(lib.wf_tv_split_outer, int(axis), int(factor), log=("split_outer", axis, factor))

    def merge(self, axis):
        return self._call(lib.wf_tv_merge, int(axis), log=("merge", axis))

    def merge_axes(self, outer, inner):
        return self._call(lib.wf_tv_merge_axes, int(outer), int(inner), log=("merge_axes", outer, inner))

    def reorder(self, old_to_new):
        """Move axes: {old: new, ...} (like nvFuser's reorder)."""
        n, arr = _pairs(old_to_new)
        flat = [int(v) for p in dict(old_to_new).items() for v in p]
        return self._call(lib.wf_tv_reorder, n, arr, log=("reorder", flat))

    def reorder_all(self, old2new):
        """Old axis i goes to position old2new[i] (one entry per axis)."""
        old2new = [int(v) for v in old2new]
        if len(old2new) != self.ndim:
            raise ArgumentError(
                "weft: reorder_all of T%d: %d positions given for %d axes; give one per axis"
                % (self.name, len(old2new), self.ndim)
            )
        arr = (ctypes.c_int * max(1, len(old2new)))(*old2new)
        return self._call(lib.wf_tv_reorder_all, arr, log=("reorder_all", old2new))

    def swizzle(self, x, y, kind=Swizzle.XOR):
        return self._call(lib.wf_tv_swizzle, int(kind), int(x), int(y), log=("swizzle", Swizzle(kind), x, y))

    def parallelize(self, axis, ptype):
        return self._call(
            lib.wf_tv_parallelize, int(axis), int(ParallelType(ptype)), log=("parallelize", axis, ParallelType(ptype))
        )

    def set_memory(self, mem):
        return self._call(lib.wf_tv_set_memory, int(MemoryType(mem)), log=("set_memory", MemoryType(mem)))

    def set_ldst(self, op):
        return self._call(lib.wf_tv_set_ldst, int(LoadStore(op)), log=("set_ldst", LoadStore(op)))

    def set_tmem_dimsep(self, pos):
        return self._call(lib.wf_tv_set_tmem_dimsep, int(pos), log=("set_tmem_dimsep", pos))

    def abstract(self):
        """An AbstractTensor copying this tensor's loop domain."""
        return AbstractTensor(self)

    def set_allocation_domain(self, ids, contiguous=True):
        """ids: IterDomains, or an AbstractTensor."""
        ids = list(ids.ids) if isinstance(ids, AbstractTensor) and ids._f is self._f else list(ids)
        n, arr = _ids(self._f, ids)
        refs = _IdRefs(self._f, ids)  # named before the call changes the domains
        return self._call(
            lib.wf_tv_set_allocation_domain, n, arr, bool(contiguous),
            log=("set_allocation_domain", refs, bool(contiguous)),
        )

    def set_loop_domain(self, ids):
        """ids: IterDomains, or an AbstractTensor."""
        ids = list(ids.ids) if isinstance(ids, AbstractTensor) and ids._f is self._f else list(ids)
        n, arr = _ids(self._f, ids)
        refs = _IdRefs(self._f, ids)
        return self._call(lib.wf_tv_set_loop_domain, n, arr, log=("set_loop_domain", refs))

    def tma_swizzle(self, swizzle_bytes):
        """Lay this shared-memory tensor's two innermost axes (rows x
        swizzle_bytes) out as TMA's 32/64/128-byte swizzle
        (wf_tv_tma_swizzle): sets the allocation domain."""
        return self._call(lib.wf_tv_tma_swizzle, int(swizzle_bytes), log=("tma_swizzle", swizzle_bytes))

    def circular_buffer(self, stages):
        """Ask for `stages` copies of this TMA-loaded shared-memory tensor
        (wf_tv_circular_buffer; more than one is refused at compile time
        as not supported yet)."""
        return self._call(lib.wf_tv_circular_buffer, int(stages), log=("circular_buffer", stages))

    def inline_at(self, pos):
        return self._call(lib.wf_tv_inline_at, int(pos), log=("inline_at", pos))

    def inline_all_at(self, pos):
        return self._call(lib.wf_inline_all_at, int(pos), log=("inline_all_at", pos))

    def compute_at_loops(self, consumer, pos):
        """Compute this tensor inside the first pos loops of consumer, which reads
        it (wf_compute_at, with loop promotion); weft.compute_at(tv, consumer, pos)
        is the same call (Tensor.compute_at is the inline position)."""
        return self._call(lib.wf_compute_at, _tensor(consumer, "compute_at")._live(), int(pos))

    def reverse_compute_at(self, producer, pos):
        """Place this tensor, which reads producer, inside producer's first pos
        loops (wf_reverse_compute_at; TVM's reverse_compute_at)."""
        return self._call(
            lib.wf_reverse_compute_at, _tensor(producer, "reverse_compute_at")._live(), int(pos)
        )

    def loop_broadcast(self, pos):
        """A loop-only broadcast IterDomain at loop position pos (wf_tv_loop_broadcast)."""
        return self._call(lib.wf_tv_loop_broadcast, int(pos), log=("loop_broadcast", pos))

    def cache_after(self):
        """A new tensor reading this one; this one's uses now read it."""
        p = lib.wf_cache_after(self._live())
        self._f._check(p, "wf_cache_after")
        t = self._f._wrap(p)
        self._f._record(t, "cache_after", self)
        return t

    def rfactor(self, axes):
        """Split this reduction in two (wf_tv_rfactor): the returned producer
        reduces the listed loop axes and keeps this tensor's other reduction
        axes as one partial result each; this tensor then reduces those."""
        axes = [int(a) for a in axes]
        arr = (ctypes.c_int * max(1, len(axes)))(*axes)
        p = lib.wf_tv_rfactor(self._live(), len(axes), arr)
        self._f._check(p, "wf_tv_rfactor")
        t = self._f._wrap(p)
        self._f._record(t, "rfactor", self, axes)
        return t

    def cache_before(self):
        """A new tensor computing what this one computed."""
        p = lib.wf_cache_before(self._live())
        self._f._check(p, "wf_cache_before")
        t = self._f._wrap(p)
        self._f._record(t, "cache_before", self)
        return t

    def propagate_transforms(self):
        return self._call(lib.wf_propagate_transforms, log=("propagate_transforms",))

    def parallelize_all_like(self, ptypes=None):
        """Copy this tensor's parallel types to mapped axes of all others;
        ptypes: None = all, else an int mask or an iterable of types."""
        if ptypes is None:
            mask = 0
        elif isinstance(ptypes, int) and not isinstance(ptypes, ParallelType):
            mask = ptypes
        else:
            if isinstance(ptypes, ParallelType):
                ptypes = [ptypes]
            mask = 0
            for p in ptypes:
                mask |= 1 << int(ParallelType(p))
        return self._call(
            lib.wf_parallelize_all_like, mask,
            log=("parallelize_all_like", [p for p in ParallelType if mask >> int(p) & 1]),
        )

    @property
    def is_scalar(self):
        """Whether this is a scalar constant (weft.full), not a tensor of the graph."""
        return self._scalar

    # operators: the other operand may be a Python number (a scalar constant)
    def __add__(self, o):
        return add(self, o) if _is_operand(o) else NotImplemented

    def __radd__(self, o):
        return add(o, self) if _is_operand(o) else NotImplemented

    def __sub__(self, o):
        return sub(self, o) if _is_operand(o) else NotImplemented

    def __rsub__(self, o):
        return sub(o, self) if _is_operand(o) else NotImplemented

    def __mul__(self, o):
        return mul(self, o) if _is_operand(o) else NotImplemented

    def __rmul__(self, o):
        return mul(o, self) if _is_operand(o) else NotImplemented

    def __truediv__(self, o):
        return div(self, o) if _is_operand(o) else NotImplemented

    def __rtruediv__(self, o):
        return div(o, self) if _is_operand(o) else NotImplemented

    def __pow__(self, o):
        return pow(self, o) if _is_operand(o) else NotImplemented

    def __rpow__(self, o):
        return pow(o, self) if _is_operand(o) else NotImplemented

    # Comparisons give bool tensors. == and != stay identity (tensors are
    # handles, used as keys): use weft.eq / weft.ne for the elementwise ones.
    def __lt__(self, o):
        return lt(self, o) if _is_operand(o) else NotImplemented

    def __le__(self, o):
        return le(self, o) if _is_operand(o) else NotImplemented

    def __gt__(self, o):
        return gt(self, o) if _is_operand(o) else NotImplemented

    def __ge__(self, o):
        return ge(self, o) if _is_operand(o) else NotImplemented

    def __neg__(self):
        return neg(self)

    def __abs__(self):
        return abs(self)

    # Tensors are handles: identity, not elementwise comparison.
    __hash__ = object.__hash__


# ---------------------------------------------------------------- ops


def _op(a, fn, args, what, log):
    """Call a C op constructor; the result's dtype and shape are the library's.
    log: the call as Fusion.save records it (its name and arguments)."""
    f = a._f
    p = fn(*args)
    f._check(p, what)
    t = f._wrap(p)
    f._record(t, *log)
    return t


def _tensor(a, what):
    if not isinstance(a, Tensor):
        raise TypeError("weft.%s: expected a weft.Tensor, got %s" % (what, type(a).__name__))
    a._live()
    return a


def compute_at(tv, consumer, pos):
    """wf_compute_at: compute tv inside consumer's first pos loops; returns tv."""
    return _tensor(tv, "compute_at").compute_at_loops(consumer, pos)


def reverse_compute_at(tv, producer, pos):
    """wf_reverse_compute_at: place tv inside producer's first pos loops; returns tv."""
    return _tensor(tv, "reverse_compute_at").reverse_compute_at(producer, pos)


def set(a):  # noqa: A001 - mirrors the C API's wf_set
    """A copy of a (LoadStoreOp Set)."""
    a = _tensor(a, "set")
    return _op(a, lib.wf_set, (a._ptr,), "wf_set", ("set", a))


def cast(a, dtype):
    """a converted to dtype (weft.f32 ..., a name such as "float16", or a numpy dtype)."""
    a = _tensor(a, "cast")
    return _op(a, lib.wf_cast, (a._ptr, int(as_dtype(dtype))), "wf_cast", ("cast", a, as_dtype(dtype)))


def _unary(k, name):
    def fn(a):
        a = _tensor(a, name)
        return _op(a, lib.wf_unary, (k, a._ptr), "wf_unary", ("unary", name, a))

    fn.__name__ = name
    fn.__doc__ = "Elementwise %s." % name
    return fn


neg, abs, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, reciprocal = [
    _unary(int(op), op.name) for op in _enums.UnaryOp
]


_PROMOTED = {}


def promote(a, b):
    """The type of a binary op on tensors of types a and b (PyTorch's
    result_type): asked of the C library (wf_binary of two inputs, wf_tv_dtype)."""
    a, b = as_dtype(a), as_dtype(b)
    if (a, b) not in _PROMOTED:
        f = lib.wf_fusion_new()
        if not f:
            raise OutOfMemory("weft: wf_fusion_new failed")
        try:
            one = (ctypes.c_int64 * 1)(1)
            x, y = lib.wf_input(f, int(a), 1, one), lib.wf_input(f, int(b), 1, one)
            z = lib.wf_binary(int(_BINARY_OP.add), x, y)
            if not z:
                _raise_status(lib.wf_fusion_status(f), lib.wf_fusion_error(f).decode())
            _PROMOTED[a, b] = DType(lib.wf_tv_dtype(z))
        finally:
            lib.wf_fusion_free(f)
    return _PROMOTED[a, b]


def _binary(k, name):
    def fn(a, b):
        a, b = _operands(name, a, b)
        if a._f is not b._f:
            raise ArgumentError(
                "weft.%s: T%d and T%d belong to different fusions" % (name, a.name, b.name)
            )
        return _op(a, lib.wf_binary, (k, a._ptr, b._ptr), "wf_binary", ("binary", _BINARY_OP(k), a, b))

    fn.__name__ = name
    fn.__doc__ = (
        "Elementwise %s (types promote like PyTorch; an operand may be a Python number)." % name
    )
    return fn


add, sub, mul, div, maximum, minimum, pow = [
    _binary(int(_BINARY_OP[c]), n)
    for c, n in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "div"),
                 ("max", "maximum"), ("min", "minimum"), ("pow", "pow"))
]  # fmt: skip
eq, ne, lt, le, gt, ge = [_binary(int(_BINARY_OP[n]), n) for n in _COMPARE]


# ---------------------------------------------------------------- scalar constants

_NUMBER = (bool, int, float, np.bool_, np.integer, np.floating)


def _is_operand(o):
    return isinstance(o, Tensor) or isinstance(o, _NUMBER)


def full(fusion, value, dtype=None):
    """A scalar constant of `fusion` (wf_full / wf_full_int): an operand of the
    elementwise ops and where. dtype None: bool, i64 or f32 from the value."""
    if not isinstance(fusion, Fusion):
        raise TypeError("weft.full: expected a weft.Fusion, got %s" % type(fusion).__name__)
    if not isinstance(value, _NUMBER):
        raise TypeError("weft.full: expected a number, got %s" % type(value).__name__)
    if dtype is None:
        is_bool = isinstance(value, (bool, np.bool_))
        dtype = DType.bool if is_bool else DType.i64 if isinstance(value, (int, np.integer)) else DType.f32
    dtype = as_dtype(dtype)
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        p = lib.wf_full_int(fusion._live(), int(dtype), int(value))
    else:
        p = lib.wf_full(fusion._live(), int(dtype), float(value))
    fusion._check(p, "wf_full")
    t = fusion._wrap(p)
    t._scalar = True
    t._handle = "S%d" % fusion._nscalars
    fusion._nscalars += 1
    is_int = isinstance(value, (bool, np.bool_, int, np.integer))
    fusion._record(t, "full_int" if is_int else "full", dtype, int(value) if is_int else float(value))
    return t


def _constant_for(value, other):
    """A Python number next to tensor `other`, as PyTorch treats a wrapped number:
    bool, i64, or a float in f64 beside f64 and f32 otherwise (16-bit ops compute
    in f32, so the constant is not rounded to 16 bits)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (float, np.floating)):
        return full(other._f, value, DType.f64 if other.dtype == DType.f64 else DType.f32)
    return full(other._f, value)


def _operands(name, *xs, ref=None):
    ts = [x for x in xs if isinstance(x, Tensor)] or ([ref] if ref is not None else [])
    if not ts:
        raise TypeError("weft.%s: give at least one weft.Tensor operand" % name)
    for x in xs:
        if not _is_operand(x):
            raise TypeError(
                "weft.%s: expected a weft.Tensor or a number, got %s" % (name, type(x).__name__)
            )
    ref = next((t for t in ts if not t.is_scalar), ts[0])
    out = [_constant_for(x, ref) for x in xs]
    for x in out:
        x._live()
    return out


def where(cond, a, b):
    """cond ? a : b elementwise (torch.where); a and b may be Python numbers."""
    cond = _tensor(cond, "where")
    # numbers next to the condition alone take their default types (bool, i64, f32)
    a, b = _operands("where", a, b, ref=cond)
    return _op(cond, lib.wf_where, (cond._ptr, a._ptr, b._ptr), "wf_where", ("where", cond, a, b))


def broadcast(a, is_broadcast_dim):
    """New extent-1 dims where is_broadcast_dim[i]; the others are a's."""
    a = _tensor(a, "broadcast")
    flags = [bool(x) for x in is_broadcast_dim]
    arr = (ctypes.c_bool * max(1, len(flags)))(*flags)
    return _op(a, lib.wf_broadcast, (a._ptr, len(flags), arr), "wf_broadcast", ("broadcast", a, flags))


def transpose(a, dim0=0, dim1=1):
    a = _tensor(a, "transpose")
    return _op(
        a, lib.wf_transpose, (a._ptr, int(dim0), int(dim1)), "wf_transpose", ("transpose", a, dim0, dim1)
    )


def permute(a, new2old):
    """Output dim i is input dim new2old[i]."""
    a = _tensor(a, "permute")
    new2old = [int(v) for v in new2old]
    n = len(a.shape)
    if len(new2old) != n:  # wf_permute reads one entry per dim
        raise ArgumentError(
            "weft.permute of T%d: %d entries for %d dims; give one per dim" % (a.name, len(new2old), n)
        )
    arr = (ctypes.c_int * max(1, len(new2old)))(*new2old)
    return _op(a, lib.wf_permute, (a._ptr, arr), "wf_permute", ("permute", a, new2old))


# ---------------------------------------------------------------- reductions


def _axes(a, axes, name):
    """axes as a list of ints: an int, a list or tuple of ints, or None = every dim."""
    if axes is None:
        return list(range(len(a.shape)))
    if isinstance(axes, (bool, np.bool_)):
        raise TypeError("weft.%s: axes must be an int, a list of ints or None, not bool" % name)
    if isinstance(axes, (int, np.integer)):
        return [int(axes)]
    try:
        items = list(axes)
    except TypeError:
        items = None
    if items is None or any(isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) for x in items):
        raise TypeError(
            "weft.%s: axes must be an int, a list of ints or None, not %r" % (name, axes)
        )
    return [int(x) for x in items]


def _reduce(op, a, axes, name):
    arr = (ctypes.c_int * max(1, len(axes)))(*axes)
    return _op(a, lib.wf_reduce, (int(op), a._ptr, len(axes), arr), "wf_" + name, ("reduce", _BINARY_OP(op), a, axes))


def mma(a, b, axes):
    """The sum over axes (an int or a list of ints) of a * b, one op (wf_mma,
    nvFuser's fusedMultiplySum): a and b have the same rank, with broadcast dims
    where one lacks a dim (a [M, 1, K], b [1, N, K]); 16-bit inputs accumulate
    and return f32. A reduction for every schedule call; WF_MMA on its tile's
    axes runs it on tensor cores (docs/tutorial-gemm.md)."""
    a, b = _tensor(a, "mma"), _tensor(b, "mma")
    if a._f is not b._f:
        raise ArgumentError("weft.mma: T%d and T%d belong to different fusions" % (a.name, b.name))
    axes = [int(axes)] if isinstance(axes, int) else [int(x) for x in axes]
    arr = (ctypes.c_int * max(1, len(axes)))(*axes)
    return _op(a, lib.wf_mma, (a._ptr, b._ptr, len(axes), arr), "wf_mma", ("mma", a, b, axes))


def matmul(a, b):
    """[..., M, K] x [..., K, N] -> [..., M, N] in f32 for 16-bit inputs (wf_matmul):
    a viewed as [..., M, 1, K], b as [..., 1, N, K], then mma over the last axis."""
    a, b = _tensor(a, "matmul"), _tensor(b, "matmul")
    if a._f is not b._f:
        raise ArgumentError("weft.matmul: T%d and T%d belong to different fusions" % (a.name, b.name))
    return _op(a, lib.wf_matmul, (a._ptr, b._ptr), "wf_matmul", ("matmul", a, b))


def _reduction(op, name, what):
    def red(a, axes=None):
        a = _tensor(a, name)
        return _reduce(op, a, _axes(a, axes, name), name)

    red.__name__ = name
    red.__doc__ = (
        "%s over axes (an int, a list of ints, or None = all) (wf_reduce); the result keeps "
        "the other dims." % what
    )
    return red


sum = _reduction(_BINARY_OP.add, "sum", "The sum")  # integer and bool sums give i64
prod = _reduction(_BINARY_OP.mul, "prod", "The product")  # integer and bool products give i64
amax = _reduction(_BINARY_OP.max, "amax", "The maximum")  # NaN propagates
amin = _reduction(_BINARY_OP.min, "amin", "The minimum")  # NaN propagates


def _float(a):
    """a, or a cast to f32 when it holds integers or bools."""
    return a if a.dtype in (DType.f32, DType.f16, DType.bf16, DType.f64) else cast(a, DType.f32)


def _count(x, axes, name):
    """How many elements the reduction of x over axes combines: a Python int
    when those extents are constants, else an f32 tensor counted at run time
    (a sum of ones)."""
    shape = x.shape
    n = len(shape)
    ext = [shape[ax % n] if -n <= ax < n else None for ax in axes]
    if None not in ext and all(e >= 0 for e in ext):
        c = 1
        for e in ext:
            c *= e
        return c
    ones = where(cast(x, DType.bool), 1.0, 1.0)
    return _reduce(_BINARY_OP.add, ones, axes, name)


def mean(a, axes=None):
    """The mean over axes (an int, a list of ints, or None = all): a composition,
    sum(a, axes) / count, since the C library has no mean. Integers and bools
    are averaged in f32 (a float type stays itself); a symbolic extent among the
    reduced dims is counted at run time."""
    a = _tensor(a, "mean")
    x = _float(a)
    axes = _axes(x, axes, "mean")
    s = _reduce(_BINARY_OP.add, x, axes, "mean")
    n = _count(x, axes, "mean")
    return s / float(n) if isinstance(n, int) else cast(s / n, s.dtype)


def var(a, axes=None, ddof=0):
    """The variance over axes (numpy's np.var: ddof=0 by default; torch.var's
    default is ddof=1): a composition, sum((a - mean)^2) / (count - ddof), the
    mean broadcast back over the reduced dims. Integers and bools in f32."""
    a = _tensor(a, "var")
    x = _float(a)
    axes = _axes(x, axes, "var")
    m = mean(x, axes)
    n = len(x.shape)
    reduced = {ax % n for ax in axes}
    mb = broadcast(m, [d in reduced for d in range(n)])
    d = x - mb
    s = _reduce(_BINARY_OP.add, d * d, axes, "var")
    cnt = _count(x, axes, "var")
    if isinstance(cnt, int):
        if cnt - ddof <= 0:
            raise ArgumentError(
                "weft.var: ddof %d leaves no degrees of freedom (%d elements are reduced)" % (ddof, cnt)
            )
        return s / float(cnt - ddof)
    return cast(s / (cnt - float(ddof)), s.dtype)
