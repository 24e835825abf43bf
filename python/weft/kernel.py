"""Compiled kernels: launch information, the executor's statistics, and
running on numpy arrays (the CPU executor) or CUDA arrays (the GPU).
Any other object with ``__dlpack__`` is read through DLPack (dlpack.py):
host memory runs on the executor, CUDA memory on the GPU.

`Kernel.run` checks every array against the fusion's inputs and outputs
(dtype, rank, constant extents, strides) before calling wf_run, so a wrong
array is a Python exception, not a C error or a crash. Outputs not given are
allocated with the shape the fusion's shape expressions give once the
inputs' sizes are bound (see core.py), as numpy arrays for a CPU run, as
PyTorch CUDA tensors when the inputs are, else as `DeviceArray`s.

A call costs the host a few microseconds when every array fits as it is
(issue 20): what does not change between calls is worked out once per
kernel (_Param, _Plan), and _fast_args packs such arrays straight into the
wf_buffer bytes. Any other call takes the general path (_host_view,
_on_gpu, _buffer, _bind, _alloc), which also raises every error, so the
two paths cannot disagree on what is refused; test_run_overhead.py checks
that they give wf_run the same bytes, bench/py_overhead.py times them.
"""

import ctypes
import struct
import sys

import numpy as np

from . import _lib, dlpack
from ._lib import lib
from .core import (
    _NP,
    _TYPESTR,
    ArgumentError,
    CudaError,
    DType,
    Error,
    UnsupportedError,
    UseAfterFree,
    _raise_status,
    as_dtype,
    numpy_dtype,
)


class Stats:
    """What the CPU executor saw in a kernel's last run (wf_access_stats)."""

    _FIELDS = (
        "smem_accesses",
        "smem_wavefronts",
        "smem_max_conflict_degree",
        "gmem_accesses",
        "gmem_sectors",
    )

    def __init__(self, s):
        for k in self._FIELDS:
            setattr(self, k, int(getattr(s, k)))

    def as_dict(self):
        return {k: getattr(self, k) for k in self._FIELDS}

    def __repr__(self):
        return "Stats(%s)" % ", ".join("%s=%d" % kv for kv in self.as_dict().items())


class Launch:
    """A kernel's launch configuration (wf_launch_info); -1 = run-time."""

    def __init__(self, li):
        self.grid = tuple(int(x) for x in li.grid)
        self.block = tuple(int(x) for x in li.block)
        self.smem = int(li.smem_bytes)
        n = int(li.ntmem_regions)
        self.tmem = [(int(li.tmem_lanes[i]), int(li.tmem_columns[i])) for i in range(n)]

    def __repr__(self):
        return "Launch(grid=%s, block=%s, smem=%d, tmem=%s)" % (
            self.grid,
            self.block,
            self.smem,
            self.tmem,
        )


class TmaMap:
    """One tensor map a compiled kernel issues (wf_tma_info), as the driver's
    cuTensorMapEncodeTiled takes it, but with Python's order: every list
    runs outermost dimension first (the C struct's dimension 0 is the
    innermost). global_strides are bytes, the innermost entry the element
    size; -1 where symbolic. global_tensor and shared_tensor are tensor
    names (T<n>)."""

    def __init__(self, m):
        n = int(m.rank)
        self.kind = "store" if m.is_store else "load"
        self.rank = n
        self.dtype = DType(m.dtype)
        self.global_dims = [int(m.global_dims[i]) for i in reversed(range(n))]
        self.global_strides = [int(m.global_strides_bytes[i]) for i in reversed(range(n))]
        self.box = [int(m.box[i]) for i in reversed(range(n))]
        self.element_strides = [int(m.element_strides[i]) for i in reversed(range(n))]
        self.swizzle = int(m.swizzle_bytes)
        self.global_tensor = int(lib.wf_tv_name(m.global_tv)) if m.global_tv else -1
        self.shared_tensor = int(lib.wf_tv_name(m.shared_tv)) if m.shared_tv else -1

    def __repr__(self):
        return "TmaMap(%s T%d %s T%d, dims=%s, box=%s, strides=%s, swizzle=%d)" % (
            self.kind,
            self.global_tensor,
            "->" if self.kind == "load" else "<-",
            self.shared_tensor,
            self.global_dims,
            self.box,
            self.global_strides,
            self.swizzle,
        )


def _tma_maps(k):
    """The kernel's tensor maps, read while its fusion is alive (the maps
    name the fusion's tensors)."""
    if not _lib.has("wf_kernel_tma_count"):
        return []
    return [TmaMap(lib.wf_kernel_tma(k, i).contents) for i in range(lib.wf_kernel_tma_count(k))]


def _no_gpu_reason():
    """Why wf_device_alloc failed, as `weft info` knows it."""
    from .runtime import system_info

    try:
        s = system_info()
    except Error:
        return "the CUDA driver refused (out of device memory?)"
    if not s.driver_found:
        return "no CUDA driver (%s)" % s.driver_error
    if not s.device_found:
        return "no CUDA device (%s)" % s.driver_error
    return "the driver refused on %s (out of device memory?)" % s.device_name


class DeviceArray:
    """A device buffer allocated by libweft (when no PyTorch is at hand);
    exposes __cuda_array_interface__ and copies to numpy with .numpy()."""

    def __init__(self, shape, dtype):
        self.shape = tuple(int(s) for s in shape)
        self.dtype = as_dtype(dtype)
        n = 1
        for s in self.shape:
            n *= s
        self.nbytes = n * self.dtype.itemsize
        self._ptr = lib.wf_device_alloc(max(1, self.nbytes))
        if not self._ptr:
            raise CudaError(
                "weft: DeviceArray: cannot allocate %d bytes on the GPU: %s" % (self.nbytes, _no_gpu_reason())
            )

    @property
    def __cuda_array_interface__(self):
        return {
            "shape": self.shape,
            "typestr": _TYPESTR[self.dtype][0],
            "data": (self._ptr, False),
            "strides": None,
            "version": 2,
        }

    def numpy(self):
        out = np.empty(self.shape, numpy_dtype(self.dtype))
        st = lib.wf_device_copy(out.ctypes.data, self._ptr, self.nbytes)
        if st:
            _raise_status(st, "weft: wf_device_copy failed")
        return out

    @classmethod
    def from_numpy(cls, a):
        a = np.ascontiguousarray(a)
        t = [k for k, v in _NP.items() if v == a.dtype]
        if not t:
            raise ArgumentError("weft: no weft dtype holds numpy %s" % a.dtype)
        d = cls(a.shape, t[0])
        st = lib.wf_device_copy(d._ptr, a.ctypes.data, d.nbytes)
        if st:
            _raise_status(st, "weft: wf_device_copy failed")
        return d

    def __del__(self):
        try:
            if self._ptr:
                lib.wf_device_free(self._ptr)
                self._ptr = None
        except Exception:
            pass


class _Param:
    """What run() knows of one fusion input or output, worked out once per
    kernel so that a call only compares."""

    def __init__(self, t, role, index):
        self.role, self.index = role, index
        self.output = role == "output"
        self.name = t.name
        dims = [d for d in t.logical_domain if not d.is_reduction]  # the buffer's dims
        self.ndim = len(dims)
        self.extents = [d.extent for d in dims]
        self.dtype = t.dtype
        self.where = "%s %d (T%d)" % (role, index, self.name)
        self.code = int(self.dtype)  # wf_dtype
        self.head = (self.code, self.ndim)  # wf_buffer's dtype and ndim
        self.itemsize = self.dtype.itemsize
        self.np_dtype = numpy_dtype(self.dtype)
        self.typestrs = _TYPESTR[self.dtype]
        self.consts = tuple((d, e) for d, e in enumerate(self.extents) if e >= 0)  # (dim, constant extent)
        self.fixed = tuple(self.extents) if len(self.consts) == self.ndim else None  # the whole shape, if constant
        self.shape_expr = t._shape_expr()  # sets bind and refs too
        self._torch = (None, None)  # (torch module, its dtype of this one)

    @property
    def shape_expr(self):
        return self._shape_expr

    @shape_expr.setter
    def shape_expr(self, expr):
        self._shape_expr = expr
        self.bind = self._bind_rule(expr)  # how _bind derives the (output's) shape
        # an output whose extents are the inputs' (then checked against them)
        self.refs = self.output and self.bind is not None and any(i is not None for i, _ in self.bind)

    def _bind_rule(self, expr):
        """Per dim (None, extent) or (i, d) = extent d of input i; None when
        the shape is not derived."""
        if expr is None or len(expr) != self.ndim:
            return tuple((None, e) for e in self.extents) if self.fixed is not None else None
        rule = []
        for d, e in enumerate(expr):
            if self.extents[d] >= 0:
                rule.append((None, self.extents[d]))
            elif isinstance(e, tuple):
                rule.append((e[1], e[2]))
            else:
                rule.append((None, int(e)))
        return tuple(rule)

    def torch_dtype(self, torch):
        """The torch dtype of this parameter (cached per torch module)."""
        if self._torch[0] is not torch:
            self._torch = (torch, _torch_dtype(torch, self.dtype))
        return self._torch[1]


class _Plan:
    """The wf_run argument arrays of a kernel: their ctypes types, and for
    the fast path (_fast_args) one struct format that packs contiguous
    buffers, the inputs' array then the outputs', straight into wf_buffer
    bytes, and a pool of blocks to pack into (one per call in flight, so
    that threads never share one)."""

    def __init__(self, ins, outs):
        self.ins, self.outs, self.params = ins, outs, ins + outs
        self.nin, self.nout = len(ins), len(outs)
        self.in_type = _lib.Buffer * max(1, self.nin)
        self.out_type = _lib.Buffer * max(1, self.nout)
        self.in_bytes = ctypes.sizeof(self.in_type)
        self.struct = None  # no fast path (a rank above MAX_RANK: _buffer says so)
        self.pool = []  # (block, input array, output array) not in use
        if _FAST and all(p.ndim <= _lib.MAX_RANK for p in self.params):
            self.struct = struct.Struct("@" + _buffers_format(ins) + _buffers_format(outs))

    def block(self):
        """A block for one call, from the pool (list.pop is atomic) or new;
        run gives it back once wf_run has returned."""
        try:
            return self.pool.pop()
        except IndexError:
            blk = (ctypes.c_char * self.struct.size)()
            return blk, self.in_type.from_buffer(blk), self.out_type.from_buffer(blk, self.in_bytes)


def _buffer_format(ndim):
    """The struct format of one wf_buffer that packs (data, dtype, ndim, the
    ndim extents, device): the other extents and all strides 0, as for a
    contiguous array."""
    B = _lib.Buffer
    tail = ctypes.sizeof(B) - B.device.offset - ctypes.sizeof(ctypes.c_int)
    return "Pii%dq%dxi%dx" % (ndim, B.device.offset - B.shape.offset - 8 * ndim, tail)


def _buffers_format(params):
    """An array of wf_buffer, one per parameter; none: one zeroed wf_buffer
    (what run passes then)."""
    if not params:
        return "%dx" % ctypes.sizeof(_lib.Buffer)
    return "".join(_buffer_format(p.ndim) for p in params)


def _buffer_format_fits():
    """Whether _buffer_format lays wf_buffer out as _lib.Buffer does (a
    64-bit ABI); where not, every call takes the general path."""
    B = _lib.Buffer
    ok = (B.data.offset, B.dtype.offset, B.ndim.offset, B.shape.offset) == (0, 8, 12, 16)
    for n in range(_lib.MAX_RANK + 1):
        ok = ok and struct.calcsize("@" + _buffer_format(n) * 2) == 2 * ctypes.sizeof(B)
    return ok


_FAST = _buffer_format_fits()


class Kernel:
    """A compiled kernel; outlives its fusion."""

    def __init__(self, ptr, f):
        self._ptr = ptr
        self._ins = [_Param(t, "input", i) for i, t in enumerate(f.inputs)]
        self._outs = [_Param(t, "output", i) for i, t in enumerate(f.outputs)]
        self._plan = _Plan(self._ins, self._outs)
        self._tma = _tma_maps(ptr)

    def free(self):
        if self._ptr:
            lib.wf_kernel_free(self._ptr)
            self._ptr = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def _live(self):
        if not self._ptr:
            raise UseAfterFree("weft: this kernel has been freed")
        return self._ptr

    @property
    def source(self):
        """The CUDA C++ source."""
        return lib.wf_kernel_source(self._live()).decode("utf-8", "replace")

    @property
    def launch(self):
        return Launch(lib.wf_kernel_launch(self._live()).contents)

    @property
    def tma(self):
        """The TMA tensor maps the kernel issues, in order (TmaMap; [] if none)."""
        self._live()
        return list(self._tma)

    def check_nvrtc(self, sm=90):
        """Compile the source with NVRTC for sm (no GPU needed); returns the
        log; raises CompileError (with the log) or UnsupportedError."""
        buf = ctypes.create_string_buffer(1 << 16)
        st = lib.wf_kernel_check_nvrtc(self._live(), int(sm), buf, len(buf))
        log = buf.value.decode("utf-8", "replace")
        if st:
            _raise_status(st, log or lib.wf_status_name(st).decode())
        return log

    @property
    def stats(self):
        s = _lib.AccessStats()
        st = lib.wf_interp_stats(self._live(), ctypes.byref(s))
        if st:
            _raise_status(st, lib.wf_last_run_error(self._ptr).decode("utf-8", "replace"))
        return Stats(s)

    def report(self):
        """The executor's per-statement access report of the last run."""
        return _lib.capture(lib.wf_interp_report, self._live())

    # running
    def run(self, *inputs, outputs=None):
        """Run on numpy arrays (CPU executor) or CUDA arrays (PyTorch tensors
        or any __cuda_array_interface__ object; the GPU), or any DLPack
        object (__dlpack__: host memory on the executor, CUDA memory on the
        GPU). Returns the outputs (one array, or a tuple when the fusion has
        several); outputs given as DLPack objects come back as given."""
        self._live()
        plan = self._plan
        fast = _fast_args(plan, inputs, outputs)  # None: the general path below takes the call
        if fast is not None:
            gpu, blk, outputs = fast
            try:
                self._run(gpu, blk[1], len(inputs), blk[2], len(outputs))
            finally:
                plan.pool.append(blk)
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        self._check_counts(len(inputs))
        torch_cpu = any(_is_torch_cpu(x) for x in inputs)
        inputs = tuple(_host_view(x) for x in inputs)
        given = None
        if outputs is not None:
            given = _as_list(outputs)
            outputs = [_host_view(x) for x in given]
            if len(outputs) != len(self._outs):
                raise ArgumentError(
                    "weft: the kernel has %s, %d given" % (_count(len(self._outs), "output"), len(outputs))
                )
        gpu = _on_gpu(inputs, outputs)
        keep = []  # the arrays stay referenced until wf_run returns
        inbufs = [_buffer(p, x, gpu, keep) for p, x in zip(self._ins, inputs)]
        shapes = [_bind(p, [b.shape for b in inbufs]) for p in self._outs]
        if outputs is None:
            outputs = [_alloc(p, s, gpu, inputs) for p, s in zip(self._outs, shapes)]
        outbufs = [_buffer(p, x, gpu, keep, s) for p, x, s in zip(self._outs, outputs, shapes)]
        self._run(gpu, plan.in_type(*inbufs), len(inbufs), plan.out_type(*outbufs), len(outbufs))
        if given is not None:
            outputs = [g if _is_foreign_dlpack(g) else o for g, o in zip(given, outputs)]
        if torch_cpu:
            import torch

            outputs = [torch.from_numpy(x) if isinstance(x, np.ndarray) else x for x in outputs]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _check_counts(self, nin):
        if nin != len(self._ins):
            raise ArgumentError("weft: the kernel takes %s, %d given" % (_count(len(self._ins), "input"), nin))

    def _run(self, gpu, ia, nin, oa, nout):
        backend = 1 if gpu else 2  # WF_BACKEND_CUDA / WF_BACKEND_INTERP
        st = lib.wf_run(self._ptr, backend, ia, nin, oa, nout)
        if st:
            _raise_status(st, lib.wf_last_run_error(self._ptr).decode("utf-8", "replace"))

    __call__ = run


class AutoKernel(Kernel):
    """A fusion that schedules and compiles itself per input signature
    (wf_auto_compile): call it like a Kernel; the first call of each
    signature (dtypes, ranks, innermost extents, size buckets, alignment)
    schedules a copy of the fusion with wf_schedule_auto and compiles it."""

    def __init__(self, f, sm=None):
        if not _lib.has("wf_auto_compile"):
            raise UnsupportedError("weft: %s has no wf_auto_compile; rebuild it" % _lib.path)
        opt = ctypes.byref(_lib.CompileOptions(int(sm))) if sm is not None else None
        ptr = lib.wf_auto_compile(f._live(), opt)
        if not ptr:
            f._check()
            raise ArgumentError("weft: wf_auto_compile failed")
        self._ptr = ptr
        self._fusion = f  # the fusion must outlive the auto kernel
        self._ins = [_Param(t, "input", i) for i, t in enumerate(f.inputs)]
        self._outs = [_Param(t, "output", i) for i, t in enumerate(f.outputs)]
        self._plan = _Plan(self._ins, self._outs)
        self._tma = []

    def free(self):
        if self._ptr:
            lib.wf_auto_kernel_free(self._ptr)
            self._ptr = None

    @property
    def kernel_count(self):
        """Kernels compiled so far (one per signature seen)."""
        return int(lib.wf_auto_kernel_count(self._live()))

    @property
    def last_info(self):
        """{"scheduler": ..., "summary": ...} of the last call's kernel."""
        i = lib.wf_auto_last_info(self._live()).contents
        return {"scheduler": i.scheduler.decode(), "summary": i.summary.decode()}

    @property
    def source(self):
        raise UnsupportedError("weft: an AutoKernel has one kernel per signature; see last_info")

    @property
    def launch(self):
        raise UnsupportedError("weft: an AutoKernel has one kernel per signature; see last_info")

    def _run(self, gpu, ia, nin, oa, nout):
        backend = 1 if gpu else 2  # WF_BACKEND_CUDA / WF_BACKEND_INTERP
        st = lib.wf_auto_run(self._ptr, backend, ia, nin, oa, nout)
        if st:
            _raise_status(st, lib.wf_auto_last_error(self._ptr).decode("utf-8", "replace"))

    __call__ = Kernel.run


def jit(fusion, sm=None):
    """An AutoKernel of the fusion: callable on numpy arrays (the CPU
    executor) or PyTorch CUDA tensors (the GPU), outputs allocated when not
    given; schedules and compiles once per input signature."""
    return AutoKernel(fusion, sm)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _count(n, noun):
    """'1 input', '2 inputs': counts of one are singular, as in the C messages."""
    return "%d %s%s" % (n, noun, "" if n == 1 else "s")


def _on_gpu(inputs, outputs):
    """Whether the run is on the GPU: all arrays CUDA ones, or all host ones."""
    arrays = list(inputs) or list(outputs or [])
    on_gpu = [_is_cuda(x) for x in arrays]
    if any(on_gpu) != all(on_gpu):
        raise ArgumentError("weft: inputs mix host (numpy) and CUDA arrays; use one kind")
    return bool(arrays) and all(on_gpu)


def _is_torch_cpu(x):
    return type(x).__module__.startswith("torch") and getattr(x, "is_cuda", True) is False


def _is_foreign_dlpack(x):
    """A DLPack object that none of the direct paths (numpy, PyTorch,
    __cuda_array_interface__) takes."""
    if isinstance(x, np.ndarray) or type(x).__module__.startswith("torch"):
        return False
    try:
        if hasattr(x, "__cuda_array_interface__"):
            return False
    except Exception:  # a property that refuses: try DLPack instead
        pass
    return dlpack.is_dlpack(x)


def _host_view(x):
    """A PyTorch CPU tensor as a numpy array sharing its memory; a DLPack
    object as a numpy array (host memory) or a dlpack.CudaView (CUDA)."""
    if _is_foreign_dlpack(x):
        return dlpack.view(x)
    if _is_torch_cpu(x):
        if x.dtype is getattr(sys.modules["torch"], "bfloat16", None):
            bits = x.detach().view(sys.modules["torch"].int16).numpy()
            return bits.view(numpy_dtype(DType.bf16))
        return x.detach().numpy()
    return x


def _is_cuda(x):
    if type(x).__module__.startswith("torch"):
        return bool(getattr(x, "is_cuda", False))
    try:
        return hasattr(x, "__cuda_array_interface__") and not isinstance(x, np.ndarray)
    except Exception:  # a property that refuses (e.g. an unsupported dtype)
        return False


def _where(p):
    return p.where


def _check_shape(p, shape):
    if len(shape) != p.ndim:
        raise ArgumentError(
            "weft: %s has rank %d, but the array has rank %d (shape %s)"
            % (_where(p), p.ndim, len(shape), tuple(shape))
        )
    for d, (want, got) in enumerate(zip(p.extents, shape)):
        if want >= 0 and want != got:
            raise ArgumentError(
                "weft: %s needs extent %d in dim %d, but the array has %d (shape %s)"
                % (_where(p), want, d, got, tuple(shape))
            )


def _fast_args(plan, inputs, outputs):
    """Kernel.run's fast path: (gpu, block, outputs) for wf_run (a block of
    plan.block(): its input and output arrays) when every array is a plain
    one that fits its parameter as it is: all numpy arrays (the executor)
    or all CUDA arrays (PyTorch CUDA tensors or __cuda_array_interface__
    objects; the GPU), of the right dtype, rank and extents, contiguous, on
    device 0, outputs writable and not requiring grad. The arrays then give the same wf_buffer bytes as
    _buffer's. Anything else returns None, and run's general path takes
    the call from the start (and raises its errors): this one checks,
    never raises but what _alloc raises (as the general path would)."""
    if plan.struct is None or len(inputs) != plan.nin:
        return None
    if outputs is not None:
        outputs = outputs if isinstance(outputs, (list, tuple)) else (outputs,)
        if len(outputs) != plan.nout:
            return None
    first = inputs[0] if inputs else outputs[0] if outputs else None
    if first is None:
        return None
    gpu = type(first) is not np.ndarray  # the general path's _on_gpu decides when the arrays differ
    args, shapes = [], []
    if outputs is not None:
        if not _fast_scan(plan.params, inputs + tuple(outputs), gpu, args, shapes):
            return None
    else:
        if not _fast_scan(plan.ins, inputs, gpu, args, shapes):
            return None
        binds = [_bind(p, shapes) for p in plan.outs]
        if None in binds:
            return None
        outputs = [_alloc(p, s, gpu, inputs) for p, s in zip(plan.outs, binds)]
        if not _fast_scan(plan.outs, outputs, gpu, args, shapes):
            return None
    blk = plan.block()
    try:
        plan.struct.pack_into(blk[0], 0, *args)
    except (struct.error, TypeError, OverflowError):  # e.g. a float extent: _buffer's int() decides
        plan.pool.append(blk)
        return None
    return gpu, blk, outputs


# What _fast_scan takes an object of a class for: as _buffer and _is_cuda tell them
_NUMPY, _TORCH, _CAI, _OTHER = range(4)  # numpy.ndarray, a PyTorch tensor, a CUDA array, no fast path
_KINDS = {}  # class -> one of those, for the classes _fast_scan has seen
_char_view, _addressof = ctypes.c_char.from_buffer, ctypes.addressof  # a numpy array's address


def _kind_of(t):
    """The kind of the objects of class t (remembered in _KINDS): numpy's
    arrays, PyTorch's tensors (by the module of the class), a subclass of
    numpy's array (the general path), else __cuda_array_interface__ ones."""
    if len(_KINDS) >= 64:
        _KINDS.clear()
    if t is np.ndarray:
        kind = _NUMPY
    elif issubclass(t, np.ndarray):
        kind = _OTHER
    elif t.__module__.startswith("torch"):
        kind = _TORCH
    else:
        kind = _CAI
    _KINDS[t] = kind
    return kind


def _fast_scan(params, arrays, gpu, args, shapes):
    """For _fast_args: whether each array fits its parameter; appends its
    struct values to args and its shape to shapes (inputs first, so that
    an output's extents bound from input i are checked against shapes[i])."""
    torch = sys.modules.get("torch")
    kinds = _KINDS
    try:
        for p, x in zip(params, arrays):
            t = type(x)
            kind = kinds.get(t)
            if kind is None:
                kind = _kind_of(t)
            if kind == _NUMPY and not gpu:  # the executor's arrays
                if x.dtype is not p.np_dtype:
                    return False
                flags = x.flags
                if not flags.c_contiguous or (p.output and not flags.writeable):
                    return False
                try:  # a view of the (contiguous) memory: its address, in a third of x.ctypes.data's time
                    data = _addressof(_char_view(x))
                except (TypeError, ValueError, BufferError):  # read-only or empty
                    data = x.ctypes.data
                shape, device = x.shape, -1
            elif kind == _TORCH and gpu:  # read as _buffer does, not through the protocol
                tp = p._torch
                want = tp[1] if tp[0] is torch else p.torch_dtype(torch)
                if x.is_cuda is not True or x.dtype is not want or (p.output and x.requires_grad):
                    return False
                if not x.is_contiguous() or x.get_device() != 0:
                    return False
                shape, data, device = x.shape, x.data_ptr(), 0
            elif kind == _CAI and gpu:
                cai = x.__cuda_array_interface__
                if cai["typestr"] not in p.typestrs or cai.get("strides") is not None:
                    return False
                if getattr(getattr(x, "device", None), "index", None) not in (None, 0):
                    return False
                shape, data, device = cai["shape"], cai["data"][0], 0
                if type(shape) is not tuple:
                    shape = tuple(shape)
            else:
                return False
            if p.fixed is not None:
                if shape != p.fixed:
                    return False
            elif len(shape) != p.ndim or any(shape[d] != e for d, e in p.consts):
                return False
            if p.refs and shape != tuple(e if i is None else shapes[i][e] for i, e in p.bind):
                return False
            args.append(data)
            args += p.head
            args += shape
            args.append(device)
            shapes.append(shape)
        return True
    except Exception:  # an array that answers oddly: the general path says what is wrong
        return False


def _buffer(p, x, gpu, keep, want_shape=None):
    b = _lib.Buffer()
    b.dtype = p.code
    if gpu:
        if not _is_cuda(x):
            raise ArgumentError(
                "weft: %s is a %s; on the GPU every array must be a CUDA array"
                % (_where(p), type(x).__name__)
            )
        itemsize = p.itemsize
        if type(x).__module__.startswith("torch"):
            # PyTorch's __cuda_array_interface__ refuses bf16: read the tensor itself
            want = p.torch_dtype(sys.modules["torch"])
            if x.dtype != want:
                raise ArgumentError(
                    "weft: %s is %s (%s), but the tensor holds %s" % (_where(p), p.dtype.name, want, x.dtype)
                )
            if x.requires_grad and p.output:
                raise ArgumentError("weft: %s requires grad; pass a tensor that does not" % _where(p))
            shape = list(x.shape)
            strides = None if x.is_contiguous() else [s * itemsize for s in x.stride()]
            data = x.data_ptr()
        else:
            cai = x.__cuda_array_interface__
            typestr = cai["typestr"]
            if typestr not in p.typestrs:
                raise ArgumentError(
                    "weft: %s is %s, but the CUDA array holds %s" % (_where(p), p.dtype.name, typestr)
                )
            shape = [int(s) for s in cai["shape"]]
            strides = cai.get("strides")
            data = cai["data"][0]
        b.device = _device_of(x)
        keep.append(x)
    else:
        if not isinstance(x, np.ndarray):
            raise ArgumentError(
                "weft: %s is a %s; pass a numpy array (CPU executor) or a CUDA array"
                % (_where(p), type(x).__name__)
            )
        if x.dtype != p.np_dtype:
            raise ArgumentError(
                "weft: %s is %s (numpy %s), but the array holds %s" % (_where(p), p.dtype.name, p.np_dtype, x.dtype)
            )
        if p.output and not x.flags.writeable:
            raise ArgumentError("weft: %s is read-only" % _where(p))
        shape = list(x.shape)
        itemsize = x.itemsize
        strides = None if x.flags.c_contiguous else x.strides
        data = x.ctypes.data
        b.device = -1
        keep.append(x)
    _check_shape(p, shape)
    if want_shape is not None and list(shape) != list(want_shape):
        raise ArgumentError(
            "weft: %s must have shape %s, but the array has %s"
            % (_where(p), tuple(want_shape), tuple(shape))
        )
    if len(shape) > _lib.MAX_RANK:
        raise ArgumentError("weft: %s: rank %d exceeds %d" % (_where(p), len(shape), _lib.MAX_RANK))
    b.ndim = len(shape)
    b.data = data
    for d, s in enumerate(shape):
        b.shape[d] = s
    if strides is not None:
        for d, s in enumerate(strides):
            if s % itemsize or s < 0:
                raise ArgumentError(
                    "weft: %s: stride %d bytes of dim %d is not a non-negative multiple of the "
                    "element size %d" % (_where(p), s, d, itemsize)
                )
            b.strides[d] = s // itemsize
    return b


def _device_of(x):
    dev = getattr(x, "device", None)
    idx = getattr(dev, "index", None)
    if idx not in (None, 0):
        raise ArgumentError("weft: CUDA arrays must be on device 0 (got %s)" % (dev,))
    return 0


def _bind(p, in_shapes):
    """The output's shape, symbolic extents bound from the inputs' shapes
    (in_shapes[i][d] = extent d of input i); None when it is not derived."""
    if p.bind is None:
        return None
    return [e if i is None else int(in_shapes[i][e]) for i, e in p.bind]


def _alloc(p, shape, gpu, inputs):
    if shape is None:
        raise ArgumentError(
            "weft: cannot derive the shape of %s (symbolic extents %s) from the inputs; pass "
            "outputs=" % (_where(p), p.extents)
        )
    if not gpu:
        return np.empty(shape, p.np_dtype)
    torch = _torch_of(inputs)
    if torch is not None:
        return torch.empty(shape, dtype=p.torch_dtype(torch), device=inputs[0].device)
    return DeviceArray(shape, p.dtype)


def _torch_of(inputs):
    for x in inputs:
        if type(x).__module__.startswith("torch"):
            import torch

            return torch
    return None


def _torch_dtype(torch, t):
    return {
        DType.f32: torch.float32,
        DType.f16: torch.float16,
        DType.bf16: torch.bfloat16,
        DType.f64: torch.float64,
        DType.i8: torch.int8,
        DType.i16: torch.int16,
        DType.i32: torch.int32,
        DType.i64: torch.int64,
        DType.u8: torch.uint8,
        DType.bool: torch.bool,
    }[DType(t)]
