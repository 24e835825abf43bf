"""`weft.nd`: arrays on a device, as TVM's `tvm.nd` (array, empty, .numpy()).

On `weft.cpu()` an NDArray holds a C-contiguous numpy array of its own; on
`weft.cuda()` a device buffer from wf_device_alloc (kernel.DeviceArray).
"""

import numpy as np

from . import _lib
from .core import ArgumentError, numpy_dtype
from .kernel import DeviceArray
from .runtime import Device, cpu, dtype_name, dtype_of


class NDArray:
    """An array on a device: `shape`, `dtype` (TVM's string), `device`,
    `numpy()`, `copyfrom(array)`."""

    def __init__(self, shape, dtype, device):
        if not isinstance(device, Device):
            raise ArgumentError("weft: device must be weft.cpu() or weft.cuda(), not %r" % (device,))
        self._t = dtype_of(dtype)
        self.dtype = dtype_name(self._t)
        self.shape = tuple(int(s) for s in shape)
        if len(self.shape) > _lib.MAX_RANK:
            raise ArgumentError("weft: rank %d exceeds %d" % (len(self.shape), _lib.MAX_RANK))
        self.device = device
        if device.kind == "cpu":
            self._host = np.zeros(self.shape, numpy_dtype(self._t))
            self._dev = None
        else:
            self._host = None
            self._dev = DeviceArray(self.shape, self._t)

    def numpy(self):
        return self._host.copy() if self._host is not None else self._dev.numpy()

    asnumpy = numpy

    def copyfrom(self, source):
        a = np.asarray(source)
        if tuple(a.shape) != self.shape:
            raise ArgumentError(
                "weft: copyfrom: shape %s into an array of shape %s" % (tuple(a.shape), self.shape)
            )
        a = np.ascontiguousarray(a, dtype=numpy_dtype(self._t))
        if self._host is not None:
            self._host[...] = a
        else:
            from ._lib import lib

            st = lib.wf_device_copy(self._dev._ptr, a.ctypes.data, self._dev.nbytes)
            if st:
                from .core import _raise_status

                _raise_status(st, "weft: wf_device_copy failed")
        return self

    def _buffer(self):
        b = _lib.Buffer()
        b.dtype = int(self._t)
        b.ndim = len(self.shape)
        for d, s in enumerate(self.shape):
            b.shape[d] = s
        if self._host is not None:
            b.data, b.device = self._host.ctypes.data, -1
        else:
            b.data, b.device = self._dev._ptr, 0
        return b

    def __repr__(self):
        return "<weft.nd.NDArray %s %s @%s>" % (self.shape, self.dtype, self.device)


def array(arr, device=None):
    """A copy of arr (numpy or anything np.asarray takes) on device (default cpu)."""
    a = np.asarray(arr)
    out = NDArray(a.shape, a.dtype, device or cpu())
    return out.copyfrom(a)


def empty(shape, dtype="float32", device=None):
    """An array of shape and dtype on device (zero-filled on the cpu)."""
    if isinstance(shape, int):
        shape = (shape,)
    return NDArray(shape, dtype, device or cpu())


def _as_ndarray(x):
    if isinstance(x, NDArray):
        return x
    if isinstance(x, np.ndarray):
        raise ArgumentError("weft: pass weft.nd arrays (weft.nd.array(a)), not numpy arrays")
    raise ArgumentError("weft: expected a weft.nd array, not %s" % type(x).__name__)
