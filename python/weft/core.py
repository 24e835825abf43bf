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

Output shapes: the C API reports a symbolic extent only as -1, so each
Tensor carries a *shape expression* recorded when Python created it: per
logical dim either a constant or ("in", i, d) = dim d of fusion input i.
`Kernel.run` binds those from the input arrays to allocate outputs.
"""

import ctypes
import enum

import numpy as np

from . import _lib
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


class DType(enum.IntEnum):
    f32 = 0
    f16 = 1
    bf16 = 2
    f64 = 3
    i8 = 4
    i16 = 5
    i32 = 6
    i64 = 7
    u8 = 8
    bool = 9

    @property
    def itemsize(self):
        return int(lib.wf_dtype_size(int(self)))


f32, f16, bf16, f64 = DType.f32, DType.f16, DType.bf16, DType.f64
i8, i16, i32, i64, u8, bool_ = DType.i8, DType.i16, DType.i32, DType.i64, DType.u8, DType.bool


class ParallelType(enum.IntEnum):
    SERIAL = 0
    BIDX = 1
    BIDY = 2
    BIDZ = 3
    TIDX = 4
    TIDY = 5
    TIDZ = 6
    DIDX = 7
    DIDY = 8
    DIDZ = 9
    UNROLL = 10
    VECTORIZE = 11
    BULK = 12
    MMA = 13


class MemoryType(enum.IntEnum):
    GLOBAL = 0
    LOCAL = 1
    SHARED = 2
    TENSOR = 3


class LoadStore(enum.IntEnum):
    SET = 0
    TMEM_LOAD = 1
    TMEM_STORE = 2
    TMA = 3
    LDMATRIX = 4
    STMATRIX = 5
    CP_ASYNC = 6


class Swizzle(enum.IntEnum):
    XOR = 0


_UNARY = [
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu",
    "reciprocal",
]  # fmt: skip
_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]
_COMPARE = ["eq", "ne", "lt", "le", "gt", "ge"]  # wf_binary_op 7.., bool results

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


def numpy_dtype(t):
    """The numpy dtype that holds weft dtype `t`."""
    return _NP[DType(t)]


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

    def _wrap(self, ptr, shape, dtype):
        t = self._tensors.get(ptr)
        if t is None:
            t = Tensor(self, ptr, shape, dtype)
            self._tensors[ptr] = t
        return t

    # definition
    def input(self, dtype, shape):
        """A new input tensor; -1 in shape = symbolic (bound at run time)."""
        shape = [int(s) for s in shape]
        arr = (ctypes.c_int64 * max(1, len(shape)))(*shape)
        ptr = lib.wf_input(self._live(), int(DType(dtype)), len(shape), arr)
        return self._new_input(ptr, shape, dtype, "wf_input")

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
        ptr = lib.wf_input_strided(self._live(), int(DType(dtype)), len(shape), arr, con)
        return self._new_input(ptr, shape, dtype, "wf_input_strided")

    def _new_input(self, ptr, shape, dtype, what):
        self._check(ptr, what)
        i = len(self.inputs)
        expr = [("in", i, d) if s < 0 else s for d, s in enumerate(shape)]
        t = self._wrap(ptr, expr, DType(dtype))
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


def _ids(f, ids):
    ids = list(ids)
    for i in ids:
        if not isinstance(i, IterDomain):
            raise TypeError("weft: expected weft.IterDomain, got %s" % type(i).__name__)
        if i._f is not f:
            raise ArgumentError("weft: an IterDomain belongs to another fusion")
        i._live()
    return len(ids), (ctypes.c_void_p * max(1, len(ids)))(*[i._ptr for i in ids])


class Tensor:
    """A tensor (TensorView) of a fusion."""

    def __init__(self, f, ptr, shape, dtype):
        self._f = f
        self._ptr = ptr
        self._shape = shape  # shape expression, None = unknown
        self._dtype = dtype  # DType, as the C library's rules give it

    def _live(self):
        self._f._live()
        return self._ptr

    def _call(self, fn, *args):
        fn(self._live(), *args)
        self._f._check()
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
        return self._dtype

    @property
    def compute_at(self):
        return int(lib.wf_tv_compute_at(self._live()))

    @property
    def shape(self):
        """The buffer's extents (-1 where symbolic): the logical domain without
        reduced axes, so weft.sum(a, [1]) of a [4, 8] tensor has shape [4]."""
        return [d.extent for d in self.logical_domain if not d.is_reduction]

    def definition_input(self, i):
        p = lib.wf_tv_definition_input(self._live(), int(i))
        self._f._check()
        return self._f._tensors.get(p) if p else None

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
        return "<weft.Tensor T%d shape=%s>" % (self.name, self.shape)

    # schedule (each returns self, so calls chain)
    def split(self, axis, factor):
        return self._call(lib.wf_tv_split, int(axis), int(factor))

    def split_outer(self, axis, factor):
        return self._call(lib.wf_tv_split_outer, int(axis), int(factor))

    def merge(self, axis):
        return self._call(lib.wf_tv_merge, int(axis))

    def merge_axes(self, outer, inner):
        return self._call(lib.wf_tv_merge_axes, int(outer), int(inner))

    def reorder(self, old_to_new):
        """Move axes: {old: new, ...} (like nvFuser's reorder)."""
        pairs = list(dict(old_to_new).items())
        arr = (ctypes.c_int * (2 * max(1, len(pairs))))(*[int(v) for p in pairs for v in p])
        return self._call(lib.wf_tv_reorder, len(pairs), arr)

    def reorder_all(self, old2new):
        """Old axis i goes to position old2new[i] (one entry per axis)."""
        old2new = [int(v) for v in old2new]
        if len(old2new) != self.ndim:
            raise ArgumentError(
                "weft: reorder_all of T%d: %d positions given for %d axes; give one per axis"
                % (self.name, len(old2new), self.ndim)
            )
        return self._call(lib.wf_tv_reorder_all, (ctypes.c_int * max(1, len(old2new)))(*old2new))

    def swizzle(self, x, y, kind=Swizzle.XOR):
        return self._call(lib.wf_tv_swizzle, int(kind), int(x), int(y))

    def parallelize(self, axis, ptype):
        return self._call(lib.wf_tv_parallelize, int(axis), int(ParallelType(ptype)))

    def set_memory(self, mem):
        return self._call(lib.wf_tv_set_memory, int(MemoryType(mem)))

    def set_ldst(self, op):
        return self._call(lib.wf_tv_set_ldst, int(LoadStore(op)))

    def set_tmem_dimsep(self, pos):
        return self._call(lib.wf_tv_set_tmem_dimsep, int(pos))

    def set_allocation_domain(self, ids, contiguous=True):
        n, arr = _ids(self._f, ids)
        return self._call(lib.wf_tv_set_allocation_domain, n, arr, bool(contiguous))

    def set_loop_domain(self, ids):
        n, arr = _ids(self._f, ids)
        return self._call(lib.wf_tv_set_loop_domain, n, arr)

    def tma_swizzle(self, swizzle_bytes):
        """Lay this shared-memory tensor's two innermost axes (rows x
        swizzle_bytes) out as TMA's 32/64/128-byte swizzle
        (wf_tv_tma_swizzle): sets the allocation domain."""
        return self._call(lib.wf_tv_tma_swizzle, int(swizzle_bytes))

    def circular_buffer(self, stages):
        """Ask for `stages` copies of this TMA-loaded shared-memory tensor
        (wf_tv_circular_buffer; more than one is refused at compile time
        as not supported yet)."""
        return self._call(lib.wf_tv_circular_buffer, int(stages))

    def inline_at(self, pos):
        return self._call(lib.wf_tv_inline_at, int(pos))

    def inline_all_at(self, pos):
        return self._call(lib.wf_inline_all_at, int(pos))

    def loop_broadcast(self, pos):
        """A loop-only broadcast IterDomain at loop position pos (wf_tv_loop_broadcast)."""
        return self._call(lib.wf_tv_loop_broadcast, int(pos))

    def cache_after(self):
        """A new tensor reading this one; this one's uses now read it."""
        p = lib.wf_cache_after(self._live())
        self._f._check(p, "wf_cache_after")
        return self._f._wrap(p, self._shape, self._dtype)

    def rfactor(self, axes):
        """Split this reduction in two (wf_tv_rfactor): the returned producer
        reduces the listed loop axes and keeps this tensor's other reduction
        axes as one partial result each; this tensor then reduces those."""
        axes = [int(a) for a in axes]
        arr = (ctypes.c_int * max(1, len(axes)))(*axes)
        p = lib.wf_tv_rfactor(self._live(), len(axes), arr)
        self._f._check(p, "wf_tv_rfactor")
        return self._f._wrap(p, None, DType(lib.wf_tv_dtype(p)))

    def cache_before(self):
        """A new tensor computing what this one computed."""
        p = lib.wf_cache_before(self._live())
        self._f._check(p, "wf_cache_before")
        return self._f._wrap(p, self._shape, self._dtype)

    def propagate_transforms(self):
        return self._call(lib.wf_propagate_transforms)

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
        return self._call(lib.wf_parallelize_all_like, mask)

    @property
    def is_scalar(self):
        """Whether this is a scalar constant (weft.full), not a tensor of the graph."""
        return self._shape == () and getattr(self, "_scalar", False)

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


def _op(a, fn, args, shape, what, dtype=None):
    f = a._f
    p = fn(*args)
    f._check(p, what)
    return f._wrap(p, shape, a._dtype if dtype is None else DType(dtype))


def _tensor(a, what):
    if not isinstance(a, Tensor):
        raise TypeError("weft.%s: expected a weft.Tensor, got %s" % (what, type(a).__name__))
    a._live()
    return a


def set(a):  # noqa: A001 - mirrors the C API's wf_set
    """A copy of a (LoadStoreOp Set)."""
    a = _tensor(a, "set")
    return _op(a, lib.wf_set, (a._ptr,), a._shape, "wf_set")


def cast(a, dtype):
    a = _tensor(a, "cast")
    return _op(a, lib.wf_cast, (a._ptr, int(DType(dtype))), a._shape, "wf_cast", dtype)


def _unary(k, name):
    def fn(a):
        a = _tensor(a, name)
        t = DType.f32 if name in _FLOAT_ONLY and _category(a._dtype) < 2 else a._dtype
        return _op(a, lib.wf_unary, (k, a._ptr), a._shape, "wf_unary", t)

    fn.__name__ = name
    fn.__doc__ = "Elementwise %s." % name
    return fn


neg, abs, exp, log, sqrt, rsqrt, sin, cos, tanh, sigmoid, relu, reciprocal = [
    _unary(k, n) for k, n in enumerate(_UNARY)
]


def _broadcast_shape(sa, sb):
    if sa is None or sb is None or len(sa) != len(sb):
        return None
    out = []
    for x, y in zip(sa, sb):
        if isinstance(x, int) and x != 1:
            out.append(x)
        elif isinstance(y, int) and y != 1:
            out.append(y)
        elif not isinstance(x, int):
            out.append(x)
        else:
            out.append(y)
    return out


_FLOAT_ONLY = {"exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "reciprocal"}


def _category(t):
    return 0 if t == DType.bool else 1 if DType.i8 <= t <= DType.u8 else 2


def promote(a, b):
    """The type of a binary op on a and b (PyTorch's result_type, as weft.h says)."""
    a, b = DType(a), DType(b)
    if a == b:
        return a
    if _category(a) != _category(b):
        return a if _category(a) > _category(b) else b
    if _category(a) == 2:
        return DType.f64 if DType.f64 in (a, b) else DType.f32
    if DType.u8 in (a, b):
        s = b if a == DType.u8 else a
        return DType.i16 if s == DType.i8 else s
    return a if a.itemsize >= b.itemsize else b


def _binary(k, name):
    def fn(a, b):
        a, b = _operands(name, a, b)
        if a._f is not b._f:
            raise ArgumentError(
                "weft.%s: T%d and T%d belong to different fusions" % (name, a.name, b.name)
            )
        shape = _operand_shape(a, b)
        t = _promote_operands(a, b)
        if k >= len(_BINARY):
            t = DType.bool
        x = b if a.is_scalar else a  # the tensor operand owns the result
        return _op(x, lib.wf_binary, (k, a._ptr, b._ptr), shape, "wf_binary", t)

    fn.__name__ = name
    fn.__doc__ = (
        "Elementwise %s (types promote like PyTorch; an operand may be a Python number)." % name
    )
    return fn


add, sub, mul, div, maximum, minimum, pow = [_binary(k, n) for k, n in enumerate(_BINARY)]
eq, ne, lt, le, gt, ge = [_binary(len(_BINARY) + k, n) for k, n in enumerate(_COMPARE)]


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
    dtype = DType(dtype)
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        p = lib.wf_full_int(fusion._live(), int(dtype), int(value))
    else:
        p = lib.wf_full(fusion._live(), int(dtype), float(value))
    fusion._check(p, "wf_full")
    t = fusion._wrap(p, (), dtype)
    t._scalar = True
    return t


def _constant_for(value, other):
    """A Python number next to tensor `other`, as PyTorch treats a wrapped number:
    bool, i64, or a float in f64 beside f64 and f32 otherwise (16-bit ops compute
    in f32, so the constant is not rounded to 16 bits)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (float, np.floating)):
        return full(other._f, value, DType.f64 if other._dtype == DType.f64 else DType.f32)
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


def _operand_shape(*xs):
    shapes = [x._shape for x in xs if not x.is_scalar]
    if not shapes:
        return None
    shape = shapes[0]
    for s in shapes[1:]:
        shape = _broadcast_shape(shape, s)
    return shape


def _promote_operands(a, b):
    """torch.result_type with 0-dim operands: a scalar decides only from a higher category."""
    if a.is_scalar == b.is_scalar:
        return promote(a._dtype, b._dtype)
    t, s = (b, a) if a.is_scalar else (a, b)
    return s._dtype if _category(s._dtype) > _category(t._dtype) else t._dtype


def where(cond, a, b):
    """cond ? a : b elementwise (torch.where); a and b may be Python numbers."""
    cond = _tensor(cond, "where")
    # numbers next to the condition alone take their default types (bool, i64, f32)
    a, b = _operands("where", a, b, ref=cond)
    t = _promote_operands(a, b)
    shape = _operand_shape(cond, a, b)
    return _op(cond, lib.wf_where, (cond._ptr, a._ptr, b._ptr), shape, "wf_where", t)


def broadcast(a, is_broadcast_dim):
    """New extent-1 dims where is_broadcast_dim[i]; the others are a's."""
    a = _tensor(a, "broadcast")
    flags = [bool(x) for x in is_broadcast_dim]
    arr = (ctypes.c_bool * max(1, len(flags)))(*flags)
    shape = None
    if a._shape is not None and len(a._shape) == flags.count(False):
        it = iter(a._shape)
        shape = [1 if fl else next(it) for fl in flags]
    return _op(a, lib.wf_broadcast, (a._ptr, len(flags), arr), shape, "wf_broadcast")


def transpose(a, dim0=0, dim1=1):
    a = _tensor(a, "transpose")
    shape = None
    if a._shape is not None:
        n = len(a._shape)
        if -n <= dim0 < n and -n <= dim1 < n:
            shape = list(a._shape)
            shape[dim0], shape[dim1] = shape[dim1], shape[dim0]
    return _op(a, lib.wf_transpose, (a._ptr, int(dim0), int(dim1)), shape, "wf_transpose")


def permute(a, new2old):
    """Output dim i is input dim new2old[i]."""
    a = _tensor(a, "permute")
    new2old = [int(v) for v in new2old]
    if a._shape is not None and len(new2old) != len(a._shape):
        raise ArgumentError(
            "weft.permute of T%d: %d entries for %d dims; give one per dim"
            % (a.name, len(new2old), len(a._shape))
        )
    shape = None
    if a._shape is not None and sorted(new2old) == list(range(len(a._shape))):
        shape = [a._shape[o] for o in new2old]
    arr = (ctypes.c_int * max(1, len(new2old)))(*new2old)
    return _op(a, lib.wf_permute, (a._ptr, arr), shape, "wf_permute")


def _reduction(fn, name):
    def red(a, axes):
        a = _tensor(a, name)
        axes = [int(x) for x in axes]
        shape = None
        if a._shape is not None:
            n = len(a._shape)
            norm = {x % n for x in axes if -n <= x < n}
            # a reduction's buffer (and its consumers) see only the dims it keeps
            shape = [s for d, s in enumerate(a._shape) if d not in norm]
        arr = (ctypes.c_int * max(1, len(axes)))(*axes)
        return _op(a, fn, (a._ptr, len(axes), arr), shape, "wf_" + name)

    red.__name__ = name
    return red


sum = _reduction(lib.wf_sum, "sum")
amax = _reduction(lib.wf_max, "max")
