"""Devices, building a TensorIR program, and this machine.

`weft.build(sch.mod, target="cuda")` lowers a scheduled TensorIR program
(wf_tir_build) and returns a `Module`, called as TVM's is: `mod(a, b)` with
one `weft.nd` array per parameter of the function, in parameter order.
Arrays on `weft.cpu()` run the generated kernel on the CPU reference
executor (the interpreter, which runs every thread and checks every access);
arrays on `weft.cuda()` run it on the GPU. `mod.imported_modules[0]
.get_source()` is the CUDA C++.

The library's kernel takes the parameters only read as inputs and the
parameters written as outputs; which is which, and each parameter's shape
and dtype, are read from the program's printed signature and stores (the C
printer's fixed layout), so a wrong array is refused in Python by name.
"""

import ctypes
import re

import numpy as np

from . import _lib
from ._lib import lib
from .core import ArgumentError, DType, Error, UnsupportedError, _raise_status, numpy_dtype

# TVM's dtype strings -> weft dtypes
DTYPES = {
    "float32": DType.f32,
    "float16": DType.f16,
    "bfloat16": DType.bf16,
    "float64": DType.f64,
    "int8": DType.i8,
    "int16": DType.i16,
    "int32": DType.i32,
    "int64": DType.i64,
    "uint8": DType.u8,
    "bool": DType.bool,
}


def dtype_of(name):
    """The weft DType of a TVM dtype string ("float32") or numpy dtype."""
    if isinstance(name, str) and name in DTYPES:
        return DTYPES[name]
    try:
        npd = np.dtype(name)
    except TypeError:
        npd = None
    for t in DTYPES.values():
        if npd is not None and numpy_dtype(t) == npd and not (t == DType.bf16 and npd == np.uint16):
            return t
    raise ArgumentError("weft: unknown dtype %r (one of %s)" % (name, ", ".join(DTYPES)))


def dtype_name(t):
    return {v: k for k, v in DTYPES.items()}[DType(t)]


class Device:
    """Where an array lives and a kernel runs: cpu (the executor) or cuda."""

    KINDS = {"cpu": 1, "cuda": 2}

    def __init__(self, kind, index=0):
        if kind not in self.KINDS:
            raise ArgumentError("weft: unknown device %r (cpu or cuda)" % (kind,))
        if index != 0:
            raise ArgumentError("weft: only device 0 is supported, not %s(%r)" % (kind, index))
        self.kind, self.index = kind, index

    @property
    def device_type(self):
        return self.KINDS[self.kind]

    @property
    def exist(self):
        return self.kind == "cpu" or bool(lib.wf_cuda_available())

    def __eq__(self, other):
        return isinstance(other, Device) and (self.kind, self.index) == (other.kind, other.index)

    def __hash__(self):
        return hash((self.kind, self.index))

    def __repr__(self):
        return "%s(%d)" % (self.kind, self.index)


def cpu(dev_id=0):
    """The CPU reference executor (runs the CUDA kernel thread by thread)."""
    return Device("cpu", dev_id)


def cuda(dev_id=0):
    """CUDA device 0."""
    return Device("cuda", dev_id)


class Param:
    """One parameter of a built function: name, shape, dtype, and whether
    the program writes it (an output of the kernel) or only reads it."""

    def __init__(self, name, shape, dtype, written):
        self.name, self.shape, self.dtype, self.written = name, shape, dtype, written

    def __repr__(self):
        return "Param(%s, %s, %s, %s)" % (
            self.name,
            self.shape,
            dtype_name(self.dtype),
            "written" if self.written else "read",
        )


_SIG = re.compile(r'(\w+): T\.Buffer\(\(([^)]*)\), "(\w+)"\)')


def params_of(script):
    """The parameters of a printed program (wf_tir_script's layout)."""
    head = re.search(r"^\s*def \w+\((.*)\):$", script, re.M)
    if not head:
        raise Error("weft: cannot read the signature of the program:\n" + script)
    stored = set(re.findall(r"^\s*(\w+)\[[^\n]*\] = ", script, re.M))
    out = []
    for name, shape, dt in _SIG.findall(head.group(1)):
        dims = tuple(int(x) for x in shape.split(",") if x.strip())
        out.append(Param(name, dims, dtype_of(dt), name in stored))
    return out


class SourceModule:
    """The device module of a build: `get_source()` is the CUDA C++."""

    type_key = "cuda"

    def __init__(self, source):
        self._source = source

    def get_source(self, fmt=""):
        return self._source


class Module:
    """A built TensorIR function: call it with one weft.nd array (or numpy
    array, on the executor) per parameter, in parameter order."""

    def __init__(self, kptr, params, name):
        self._ptr = kptr
        self.params = params
        self.entry_name = name
        src = lib.wf_kernel_source(kptr).decode("utf-8", "replace")
        self.imported_modules = [SourceModule(src)]

    def get_source(self, fmt=""):
        return self.imported_modules[0].get_source(fmt)

    def check_nvrtc(self, sm=90):
        """Compile the source with NVRTC for sm (no GPU needed); returns the
        log; raises CompileError (with the log) or UnsupportedError."""
        buf = ctypes.create_string_buffer(1 << 16)
        st = lib.wf_kernel_check_nvrtc(self._ptr, int(sm), buf, len(buf))
        log = buf.value.decode("utf-8", "replace")
        if st:
            _raise_status(st, log or lib.wf_status_name(st).decode())
        return log

    @property
    def launch(self):
        from .kernel import Launch

        return Launch(lib.wf_kernel_launch(self._ptr).contents)

    def __del__(self):
        try:
            if self._ptr:
                lib.wf_kernel_free(self._ptr)
                self._ptr = None
        except Exception:
            pass

    def __call__(self, *args):
        from . import nd

        if len(args) != len(self.params):
            raise ArgumentError(
                "weft: %s takes %d arrays (%s), %d given"
                % (self.entry_name, len(self.params), ", ".join(p.name for p in self.params), len(args))
            )
        arrays = [nd._as_ndarray(a) for a in args]
        kinds = {a.device.kind for a in arrays}
        if len(kinds) > 1:
            raise ArgumentError(
                "weft: %s: the arrays are on different devices (%s)"
                % (self.entry_name, ", ".join(str(a.device) for a in arrays))
            )
        gpu = kinds == {"cuda"}
        ins, outs = [], []
        for p, a in zip(self.params, arrays):
            if a.dtype != dtype_name(p.dtype):
                raise ArgumentError(
                    "weft: %s: parameter %s is %s, but the array holds %s"
                    % (self.entry_name, p.name, dtype_name(p.dtype), a.dtype)
                )
            if tuple(a.shape) != p.shape:
                raise ArgumentError(
                    "weft: %s: parameter %s has shape %s, but the array has %s"
                    % (self.entry_name, p.name, p.shape, tuple(a.shape))
                )
            (outs if p.written else ins).append(a._buffer())
        ia = (_lib.Buffer * max(1, len(ins)))(*ins)
        oa = (_lib.Buffer * max(1, len(outs)))(*outs)
        backend = 1 if gpu else 2  # WF_BACKEND_CUDA / WF_BACKEND_INTERP
        st = lib.wf_run(self._ptr, backend, ia, len(ins), oa, len(outs))
        if st:
            _raise_status(st, lib.wf_last_run_error(self._ptr).decode("utf-8", "replace"))

    def __repr__(self):
        return "<weft.Module %s>" % self.entry_name


def build(mod, target="cuda", sm=None):
    """Lower a TensorIR program (sch.mod, or a @T.prim_func) to a kernel.
    target: "cuda" (weft generates CUDA only; the executor runs that same
    kernel for weft.cpu() arrays). sm: e.g. 90 or 100 (None = the device's,
    or 90)."""
    from .tir import IRModule, PrimFunc, Schedule, _Tir

    tname = target if isinstance(target, str) else str(getattr(target, "kind", target))
    if tname.split()[0] != "cuda":
        raise UnsupportedError(
            'weft: build: not supported yet: target %r; weft generates CUDA (target="cuda"), and '
            "weft.cpu() arrays run that kernel on the executor" % (target,)
        )
    if isinstance(mod, Schedule):
        mod = mod.mod
    if isinstance(mod, IRModule):
        t, name = mod._tir_for_build(), mod._sched.func_name
    elif isinstance(mod, PrimFunc):
        t, name = _Tir(mod.source, mod._origin), mod.name
    else:
        raise ArgumentError("weft: build takes sch.mod or a @T.prim_func, not %s" % type(mod).__name__)
    params = params_of(t.script())
    opt = ctypes.byref(_lib.CompileOptions(int(sm))) if sm is not None else None
    k = lib.wf_tir_build(t.ptr, opt)
    if not k:
        t.check()
        raise Error("weft: wf_tir_build failed without an error")
    t.check()
    return Module(k, params, name)


class SystemInfo:
    """What weft finds on this machine (wf_system_info_get)."""

    def __init__(self, s):
        for name, _ in _lib.SystemInfo._fields_:
            v = getattr(s, name)
            setattr(self, name, v.decode("utf-8", "replace") if isinstance(v, bytes) else v)

    def as_dict(self):
        return {name: getattr(self, name) for name, _ in _lib.SystemInfo._fields_}

    def __repr__(self):
        return "SystemInfo(%s)" % ", ".join("%s=%r" % kv for kv in self.as_dict().items())


def system_info():
    """NVRTC, the driver, device 0 and the kernel cache, as `weft info`
    reports them; a missing piece is a False flag and its *_error text."""
    if not _lib.has("wf_system_info_get"):
        raise UnsupportedError("weft: %s has no wf_system_info_get; rebuild it" % _lib.path)
    s = _lib.SystemInfo()
    st = lib.wf_system_info_get(ctypes.byref(s))
    if st:
        _raise_status(st, "weft: wf_system_info_get failed")
    return SystemInfo(s)


def cache_clear():
    """Remove every kernel image from the kernel cache; returns (entries, bytes) removed."""
    if not _lib.has("wf_cache_clear"):
        raise UnsupportedError("weft: %s has no wf_cache_clear; rebuild it" % _lib.path)
    n, b = ctypes.c_int64(), ctypes.c_int64()
    st = lib.wf_cache_clear(ctypes.byref(n), ctypes.byref(b))
    if st:
        _raise_status(st, "weft: wf_cache_clear failed")
    return int(n.value), int(b.value)
