"""Arrays from any library that speaks DLPack (the ``__dlpack__`` protocol of
the Python array API: JAX, CuPy, TensorFlow, PaddlePaddle, numpy, ...).

`Kernel.run` hands an argument that is neither a numpy array, a PyTorch
tensor nor a ``__cuda_array_interface__`` object to `view()`, which asks it
for a DLPack capsule and reads the C struct it holds (DLManagedTensor,
dlpack.h v0.x: data, device, ndim, dtype, shape, strides, byte_offset):

- host memory (kDLCPU, kDLCUDAHost) becomes a numpy array over the same
  memory, for the CPU executor;
- CUDA memory (kDLCUDA, kDLCUDAManaged) becomes a `CudaView`, a small
  object with ``__cuda_array_interface__``, for the GPU.

No data is copied. The view keeps the capsule alive; the capsule is never
renamed ("used_dltensor"), so its own destructor calls the producer's
deleter once the view is gone: the memory lives exactly as long as needed.
"""

import ctypes

import numpy as np

from .core import _NP, ArgumentError, DType

# DLDeviceType values (dlpack.h)
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
_HOST = (KDL_CPU, KDL_CUDA_HOST)
_CUDA = (KDL_CUDA, KDL_CUDA_MANAGED)
# DLDataTypeCode values -> the weft dtypes of each size in bytes
_DL_TYPES = {
    (0, 1): DType.i8, (0, 2): DType.i16, (0, 4): DType.i32, (0, 8): DType.i64,
    (1, 1): DType.u8,
    (2, 2): DType.f16, (2, 4): DType.f32, (2, 8): DType.f64,
    (4, 2): DType.bf16,
    (6, 1): DType.bool,
}  # fmt: skip
_CODE_NAMES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex", 6: "bool"}
# __cuda_array_interface__ typestr of each weft dtype
_TYPESTR = {
    DType.f32: "<f4", DType.f16: "<f2", DType.bf16: "<V2", DType.f64: "<f8",
    DType.i8: "|i1", DType.i16: "<i2", DType.i32: "<i4", DType.i64: "<i8",
    DType.u8: "|u1", DType.bool: "|b1",
}  # fmt: skip


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _Device),
        ("ndim", ctypes.c_int32),
        ("dtype", _DataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),  # elements; NULL = row-major
        ("byte_offset", ctypes.c_uint64),
    ]


class _Managed(ctypes.Structure):
    _fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def is_dlpack(x):
    """Whether x offers a DLPack capsule (and is not handled otherwise)."""
    return hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")


def _device(x):
    try:
        dev_type, dev_id = x.__dlpack_device__()
    except Exception as e:
        raise ArgumentError("weft: %s.__dlpack_device__() failed: %s" % (type(x).__name__, e))
    dev_type, dev_id = int(dev_type), int(dev_id)
    if dev_type not in _HOST + _CUDA:
        raise ArgumentError(
            "weft: a %s in DLPack device type %d is neither host nor CUDA memory; weft runs on "
            "numpy/host arrays (CPU executor) or CUDA arrays" % (type(x).__name__, dev_type)
        )
    return dev_type, dev_id


def _capsule(x, on_cuda):
    # stream 1 = the legacy default stream, where wf_run launches: the
    # producer orders its pending work before it (array API's __dlpack__).
    try:
        return x.__dlpack__(stream=1) if on_cuda else x.__dlpack__()
    except TypeError:  # a producer without the stream keyword
        return x.__dlpack__()


def _dtype(dl, what):
    code, bits, lanes = dl.dtype.code, dl.dtype.bits, dl.dtype.lanes
    t = _DL_TYPES.get((code, bits // 8)) if bits % 8 == 0 and lanes == 1 else None
    if t is None:
        raise ArgumentError(
            "weft: %s holds DLPack %s%d%s, which no weft dtype holds"
            % (what, _CODE_NAMES.get(code, "code %d " % code), bits, "x%d" % lanes if lanes != 1 else "")
        )
    return t


class _Layout:
    """What a DLPack tensor says about its memory."""

    def __init__(self, x):
        what = "a %s" % type(x).__name__
        dev_type, self.device_id = _device(x)
        self.on_cuda = dev_type in _CUDA
        self.capsule = _capsule(x, self.on_cuda)
        if not _capsule_valid(self.capsule, b"dltensor"):
            raise ArgumentError(
                "weft: %s.__dlpack__() returned no unused 'dltensor' capsule" % type(x).__name__
            )
        dl = _Managed.from_address(_capsule_pointer(self.capsule, b"dltensor")).dl_tensor
        self.dtype = _dtype(dl, what)
        self.itemsize = self.dtype.itemsize
        n = int(dl.ndim)
        self.shape = tuple(int(dl.shape[i]) for i in range(n))
        # strides in bytes; None when the tensor is row-major (NULL strides)
        self.strides = tuple(int(dl.strides[i]) * self.itemsize for i in range(n)) if dl.strides else None
        self.data = (dl.data or 0) + int(dl.byte_offset)


def _span(layout):
    """Bytes from the first element to one past the last."""
    if any(s == 0 for s in layout.shape):
        return 0
    if layout.strides is None:
        return int(np.prod(layout.shape, dtype=np.int64)) * layout.itemsize
    if any(s < 0 for s in layout.strides):
        raise ArgumentError(
            "weft: a DLPack array with negative strides %s is not supported" % (layout.strides,)
        )
    return sum((n - 1) * s for n, s in zip(layout.shape, layout.strides)) + layout.itemsize


def _host_array(x, layout):
    npdt = _NP[layout.dtype]
    span = _span(layout)
    if span == 0:
        return np.empty(layout.shape, npdt)
    buf = (ctypes.c_char * span).from_address(layout.data)
    buf._weft_keep = (layout.capsule, x)  # the memory's owner lives as long as the view
    return np.ndarray(layout.shape, dtype=npdt, buffer=buf, strides=layout.strides)


class CudaView:
    """A DLPack tensor in CUDA memory, seen through __cuda_array_interface__."""

    def __init__(self, x, layout):
        if layout.device_id != 0:
            raise ArgumentError("weft: CUDA arrays must be on device 0 (got device %d)" % layout.device_id)
        self._keep = (layout.capsule, x)
        self.shape = layout.shape
        self.dtype = layout.dtype
        self.__cuda_array_interface__ = {
            "shape": layout.shape,
            "typestr": _TYPESTR[layout.dtype],
            "data": (layout.data, False),
            "strides": layout.strides,
            "version": 2,
        }


def view(x):
    """A numpy array (host memory) or a CudaView (CUDA memory) over the
    memory of DLPack object x; raises ArgumentError when weft cannot use it."""
    layout = _Layout(x)
    if layout.on_cuda:
        return CudaView(x, layout)
    return _host_array(x, layout)
