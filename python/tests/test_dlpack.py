"""Kernel.run on DLPack objects (dlpack.py): anything with __dlpack__ and
__dlpack_device__ that is not a numpy array, a PyTorch tensor or a
__cuda_array_interface__ object. Here numpy arrays behind a wrapper that
offers DLPack only, on the CPU executor: inputs, strided views, outputs
written in place, dtypes, and the errors for what weft cannot take."""

import ctypes

import numpy as np
import pytest

import weft
from weft import dlpack

rng = np.random.default_rng(29)


class OnlyDLPack:
    """An array of another library, as weft sees it: only the protocol."""

    def __init__(self, a, device=None):
        self._a = a
        self._device = device

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._device or self._a.__dlpack_device__()


def copy_kernel(dtype=weft.f32, strided=False):
    f = weft.Fusion()
    a = f.input_strided(dtype, [-1, -1], [False, False]) if strided else f.input(dtype, [-1, -1])
    b = weft.set(a)
    f.output(b)
    b.split(1, 4).parallelize(2, weft.TIDX)
    return f.compile()


def test_dlpack_input_runs_on_the_executor():
    k = copy_kernel()
    x = rng.standard_normal((3, 8)).astype(np.float32)
    y = k.run(OnlyDLPack(x))
    assert isinstance(y, np.ndarray) and y.shape == (3, 8) and y.dtype == np.float32
    np.testing.assert_array_equal(y, x)
    assert k.stats.gmem_accesses > 0  # it ran on the executor


def test_dlpack_views_share_memory_and_keep_strides():
    x = rng.standard_normal((6, 10)).astype(np.float32)
    v = dlpack.view(OnlyDLPack(x[1::2, ::3]))
    assert v.shape == (3, 4) and v.strides == (80, 12)
    assert v.ctypes.data == x[1::2, ::3].ctypes.data  # no copy
    np.testing.assert_array_equal(v, x[1::2, ::3])
    k = copy_kernel(strided=True)
    np.testing.assert_array_equal(k.run(OnlyDLPack(x[1::2, ::3])), x[1::2, ::3])
    np.testing.assert_array_equal(k.run(OnlyDLPack(x.T)), x.T)


def test_dlpack_output_is_written_in_place_and_returned_as_given():
    k = copy_kernel()
    x = rng.standard_normal((2, 12)).astype(np.float32)
    out = np.zeros_like(x)
    given = OnlyDLPack(out)
    assert k.run(OnlyDLPack(x), outputs=given) is given
    np.testing.assert_array_equal(out, x)


def test_dlpack_integer_and_bool_inputs():
    f = weft.Fusion()
    a = f.input(weft.i32, [4])
    b = f.input(weft.bool_, [4])
    f.output(a + weft.cast(b, weft.i32))
    k = f.compile()
    x = np.array([1, -2, 3, 2**31 - 1], np.int32)
    m = np.array([True, False, True, True])
    got = k.run(OnlyDLPack(x), OnlyDLPack(m))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [2, -2, 4, -(2**31)])  # + wraps


def test_dlpack_wrong_dtype_names_the_input():
    k = copy_kernel()
    x = np.zeros((2, 4), np.float64)
    msg = r"^weft: input 0 \(T0\) is f32 \(numpy float32\), but the array holds float64$"
    with pytest.raises(weft.ArgumentError, match=msg):
        k.run(OnlyDLPack(x))


def test_dlpack_device_weft_cannot_use_is_refused():
    k = copy_kernel()
    x = np.zeros((2, 4), np.float32)
    msg = r"^weft: a OnlyDLPack in DLPack device type 10 is neither host nor CUDA memory"
    with pytest.raises(weft.ArgumentError, match=msg):
        k.run(OnlyDLPack(x, device=(10, 0)))


def test_dlpack_dtype_weft_has_not_is_refused():
    k = copy_kernel()
    x = np.zeros((2, 4), np.complex64)
    msg = r"^weft: a OnlyDLPack holds DLPack complex64, which no weft dtype holds$"
    with pytest.raises(weft.ArgumentError, match=msg):
        k.run(OnlyDLPack(x))


def test_dlpack_cuda_memory_becomes_a_cuda_array_interface():
    """What the GPU path receives for a CUDA DLPack tensor (no GPU needed:
    the view is only inspected, nothing is run)."""
    x = np.arange(12, dtype=np.float16).reshape(3, 4)

    class FakeCuda(OnlyDLPack):
        def __dlpack__(self, stream=None):
            assert stream == 1  # the legacy default stream, where wf_run launches
            return self._a.__dlpack__()

    v = dlpack.view(FakeCuda(x, device=(2, 0)))
    cai = v.__cuda_array_interface__
    assert cai["shape"] == (3, 4) and cai["typestr"] == "<f2" and cai["version"] == 2
    assert cai["data"] == (x.ctypes.data, False) and cai["strides"] == (8, 2)  # numpy gives strides
    v = dlpack.view(FakeCuda(x[:, 1:], device=(2, 0)))
    assert v.__cuda_array_interface__["strides"] == (8, 2)
    assert v.__cuda_array_interface__["data"][0] == x.ctypes.data + 2
    with pytest.raises(weft.ArgumentError, match=r"CUDA arrays must be on device 0 \(got device 1\)"):
        dlpack.view(FakeCuda(x, device=(2, 1)))


def test_dlpack_view_keeps_the_producer_alive():
    x = np.arange(8, dtype=np.float32)
    holder = OnlyDLPack(x)
    v = dlpack.view(holder)
    del holder, x
    import gc

    gc.collect()
    np.testing.assert_array_equal(v, np.arange(8, dtype=np.float32))
    assert ctypes.sizeof(ctypes.c_float) * 8 == v.nbytes


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class HandMade:
    """A producer that writes the DLManagedTensor itself: NULL strides (row
    major), a byte_offset, and memory it does not own (no deleter)."""

    def __init__(self, ptr, shape, code, bits, device, byte_offset=0):
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        m = dlpack._Managed()
        m.dl_tensor.data = ptr
        m.dl_tensor.device.device_type, m.dl_tensor.device.device_id = device
        m.dl_tensor.ndim = len(shape)
        m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes = code, bits, 1
        m.dl_tensor.shape = ctypes.cast(self._shape, ctypes.POINTER(ctypes.c_int64))
        m.dl_tensor.byte_offset = byte_offset
        self._m, self._device = m, device

    def __dlpack__(self, stream=None):
        return _capsule_new(ctypes.addressof(self._m), b"dltensor", None)

    def __dlpack_device__(self):
        return self._device


def test_dlpack_row_major_without_strides_and_byte_offset():
    k = copy_kernel()
    x = rng.standard_normal((5, 8)).astype(np.float32)
    src = HandMade(x.ctypes.data, (4, 8), 2, 32, (1, 0), byte_offset=32)  # rows 1..4
    np.testing.assert_array_equal(k.run(src), x[1:])


@pytest.mark.skipif(not weft.cuda_available(), reason="no CUDA driver or device")
def test_dlpack_cuda_tensor_runs_on_the_gpu():
    k = copy_kernel()
    x = rng.standard_normal((4, 8)).astype(np.float32)
    dev_in = weft.DeviceArray.from_numpy(x)
    dev_out = weft.DeviceArray((4, 8), weft.f32)
    given = HandMade(dev_out._ptr, (4, 8), 2, 32, (2, 0))
    assert k.run(HandMade(dev_in._ptr, (4, 8), 2, 32, (2, 0)), outputs=given) is given
    np.testing.assert_array_equal(dev_out.numpy(), x)
    y = k.run(HandMade(dev_in._ptr, (4, 8), 2, 32, (2, 0)))  # output allocated by weft
    np.testing.assert_array_equal(y.numpy(), x)
