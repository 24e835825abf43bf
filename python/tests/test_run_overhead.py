"""Kernel.run's fast path (kernel.py's _fast_args, issue 20): for arrays that
fit their parameters as they are (PyTorch CUDA tensors, __cuda_array_interface__
objects, numpy arrays) it packs the wf_buffer arrays itself. These tests run
every call twice, once as it comes and once with the fast path switched off,
with wf_run replaced by a recorder (no GPU needed), and check that wf_run gets
the same bytes (pointers, dtypes, ranks, shapes, strides, devices) both ways;
and that what the fast path declines still raises the general path's exact
messages. PyTorch tensors are stand-ins here (a module named torch in
sys.modules while a test runs), answering what kernel.py asks of a tensor.
Timings are bench/py_overhead.py's, not asserted here."""

import ctypes
import sys
import types

import numpy as np
import pytest

import weft
from weft import _lib
from weft import kernel as K


# ---------------------------------------------------------------- stand-ins


class CudaArray:
    """A CUDA array as __cuda_array_interface__ shows it (nothing behind it)."""

    def __init__(self, shape, ptr, typestr="<f4", strides=None, version=3):
        self.shape = tuple(shape)
        self.__cuda_array_interface__ = {
            "shape": self.shape,
            "typestr": typestr,
            "data": (ptr, False),
            "strides": strides,
            "version": version,
        }


class CudaArrayProperty:
    """One whose interface is a property built on each access (as PyTorch's and
    weft.DeviceArray's are), with a device attribute that has an index."""

    def __init__(self, shape, ptr, index=0):
        self.shape, self.ptr = tuple(shape), ptr
        self.device = types.SimpleNamespace(index=index)

    @property
    def __cuda_array_interface__(self):
        return {"shape": list(self.shape), "typestr": "<f4", "data": (self.ptr, False), "strides": None, "version": 2}


def fake_torch():
    torch = types.ModuleType("torch")

    class _DType:
        def __init__(self, name):
            self.name = name

        def __repr__(self):
            return "torch." + self.name

    for name in ("float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"):
        setattr(torch, name, _DType(name))

    class device:
        def __init__(self, kind, index=None):
            self.type, self.index = kind, index

        def __str__(self):
            return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    class Tensor:
        def __init__(self, shape, ptr, dtype=torch.float32, index=0, requires_grad=False, strides=None):
            self.shape = tuple(shape)
            self.dtype = dtype
            self.device = device("cuda", index)
            self.is_cuda = True
            self.requires_grad = requires_grad
            self._ptr, self._strides = ptr, strides

        def _contiguous_strides(self):
            out, n = [], 1
            for s in reversed(self.shape):
                out.append(n)
                n *= s
            return tuple(reversed(out))

        def is_contiguous(self):
            return self._strides is None or tuple(self._strides) == self._contiguous_strides()

        def stride(self):
            return self._contiguous_strides() if self._strides is None else tuple(self._strides)

        def data_ptr(self):
            return self._ptr

        def get_device(self):
            return self.device.index

    def empty(shape, dtype, device):
        return Tensor(shape, 0x700000, dtype, device.index)

    Tensor.__module__ = "torch"
    torch.Tensor, torch.device, torch.empty = Tensor, device, empty
    return torch


@pytest.fixture
def torch(monkeypatch):
    t = fake_torch()
    monkeypatch.setitem(sys.modules, "torch", t)
    return t


# ---------------------------------------------------------------- recording


class Recorder:
    """Stands in for wf_run: keeps the bytes of each call's buffer arrays."""

    def __init__(self):
        self.calls = []

    def __call__(self, k, backend, ia, nin, oa, nout):
        size = ctypes.sizeof(_lib.Buffer)
        self.calls.append((backend, nin, nout, bytes(ia)[: size * max(1, nin)], bytes(oa)[: size * max(1, nout)]))
        return 0


def fields(raw, n):
    """The wf_buffer fields of n buffers packed in raw bytes."""
    arr = (_lib.Buffer * max(1, n)).from_buffer_copy(raw)
    return [
        (b.data or 0, b.dtype, b.ndim, list(b.shape), list(b.strides), b.device) for b in list(arr)[: max(1, n)]
    ]


def both_ways(monkeypatch, k, *inputs, outputs=None):
    """wf_run's arguments of k.run(...) by the fast path and by the general
    one (the fast path off), and what each returned; asserts that the
    first call did take the fast path."""
    rec = Recorder()
    monkeypatch.setattr(K.lib, "wf_run", rec)
    taken = []
    fast = K._fast_args

    def spy(*a):
        r = fast(*a)
        taken.append(r is not None)
        return r

    monkeypatch.setattr(K, "_fast_args", spy)
    got_fast = k.run(*inputs, outputs=outputs)
    assert taken == [True], "the fast path declined"
    monkeypatch.setattr(K, "_fast_args", lambda *a: None)
    got_general = k.run(*inputs, outputs=outputs)
    monkeypatch.setattr(K, "_fast_args", fast)
    assert len(rec.calls) == 2
    return rec.calls[0], rec.calls[1], got_fast, got_general


def assert_same_buffers(a, b, outputs_data=True):
    (ba, nin, nout, ia, oa), (bb, nin2, nout2, ib, ob) = a, b
    assert (ba, nin, nout) == (bb, nin2, nout2)
    assert fields(ia, nin) == fields(ib, nin)
    assert ia == ib  # padding and unused entries too
    if outputs_data:
        assert fields(oa, nout) == fields(ob, nout)
        assert oa == ob
    else:  # outputs allocated by each call: all but the data pointers
        assert [f[1:] for f in fields(oa, nout)] == [f[1:] for f in fields(ob, nout)]


# ---------------------------------------------------------------- kernels


def add_kernel(shape=(256, 1024), dtype=weft.f32):
    f = weft.Fusion()
    a = f.input(dtype, list(shape))
    b = f.input(dtype, list(shape))
    c = a + b
    f.output(c)
    f.inline_most()
    return f.compile()


def copy_kernel(shape, out_dtype=None):
    """A copy (or cast to out_dtype); -1 extents are symbolic."""
    f = weft.Fusion()
    a = f.input(weft.f32, list(shape))
    b = weft.cast(a, out_dtype) if out_dtype is not None else weft.set(a)
    f.output(b)
    return f.compile()


def two_outputs_kernel():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 8])
    v = f.input(weft.f32, [8])
    f.output(a + weft.broadcast(v, [True, False]))
    f.output(weft.relu(a))
    f.inline_most()
    return f.compile()


# ---------------------------------------------------------------- same buffers


def test_cuda_array_interface_buffers_match_the_general_path(monkeypatch):
    k = add_kernel()
    xs = [CudaArray((256, 1024), 0x10000 * (i + 1)) for i in range(3)]
    fast, general, out_f, out_g = both_ways(monkeypatch, k, xs[0], xs[1], outputs=xs[2])
    assert_same_buffers(fast, general)
    assert out_f is xs[2] and out_g is xs[2]
    backend, nin, nout, ia, oa = fast
    assert backend == 1 and (nin, nout) == (2, 1)
    assert fields(ia, 2)[1] == (0x20000, int(weft.f32), 2, [256, 1024] + [0] * 6, [0] * 8, 0)
    # a property interface (shape as a list, version 2) and a device with index 0
    ys = [CudaArrayProperty((256, 1024), 0x10000 * (i + 1)) for i in range(3)]
    fast2, general2, out_f, _ = both_ways(monkeypatch, k, ys[0], ys[1], outputs=[ys[2]])
    assert_same_buffers(fast2, general2)
    assert fast2 == fast and out_f is ys[2]


def test_cuda_arrays_with_symbolic_extents_and_two_outputs(monkeypatch):
    k = copy_kernel([-1, -1])
    x, y = CudaArray((3, 40), 0x1000), CudaArray((3, 40), 0x9000)
    fast, general, _, _ = both_ways(monkeypatch, k, x, outputs=y)
    assert_same_buffers(fast, general)
    assert fields(fast[4], 1)[0][3][:2] == [3, 40]
    k = two_outputs_kernel()
    a, v = CudaArray((5, 8), 0x1000), CudaArray((8,), 0x2000)
    o1, o2 = CudaArray((5, 8), 0x3000), CudaArray((5, 8), 0x4000)
    fast, general, out_f, out_g = both_ways(monkeypatch, k, a, v, outputs=(o1, o2))
    assert_same_buffers(fast, general)
    assert out_f == (o1, o2) and out_g == (o1, o2)


def test_torch_cuda_tensors_match_the_general_path(monkeypatch, torch):
    k = add_kernel()
    ts = [torch.Tensor((256, 1024), 0x10000 * (i + 1)) for i in range(3)]
    fast, general, out_f, out_g = both_ways(monkeypatch, k, ts[0], ts[1], outputs=ts[2])
    assert_same_buffers(fast, general)
    assert out_f is ts[2] and out_g is ts[2]
    assert fields(fast[4], 1)[0] == (0x30000, int(weft.f32), 2, [256, 1024] + [0] * 6, [0] * 8, 0)
    # outputs allocated with torch.empty, symbolic extents bound from the input, a cast to bf16
    k = copy_kernel([-1, 64], weft.bf16)
    x = torch.Tensor((7, 64), 0x5000)
    fast, general, out_f, out_g = both_ways(monkeypatch, k, x)
    assert_same_buffers(fast, general)
    assert out_f.shape == (7, 64) and out_f.dtype is torch.bfloat16
    assert fields(fast[4], 1)[0] == (0x700000, int(weft.bf16), 2, [7, 64] + [0] * 6, [0] * 8, 0)


def test_numpy_arrays_match_the_general_path(monkeypatch):
    k = add_kernel((4, 8))
    xs = [np.full((4, 8), i, np.float32) for i in range(3)]
    fast, general, out_f, out_g = both_ways(monkeypatch, k, xs[0], xs[1], outputs=[xs[2]])
    assert_same_buffers(fast, general)
    assert out_f is xs[2] and out_g is xs[2]
    backend, nin, nout, ia, oa = fast
    assert backend == 2 and fields(ia, 2)[0] == (xs[0].ctypes.data, int(weft.f32), 2, [4, 8] + [0] * 6, [0] * 8, -1)
    # outputs allocated (np.empty: other memory each call), two of them, symbolic extents
    k = two_outputs_kernel()
    a, v = np.ones((5, 8), np.float32), np.ones(8, np.float32)
    fast, general, out_f, out_g = both_ways(monkeypatch, k, a, v)
    assert_same_buffers(fast, general, outputs_data=False)
    assert [o.shape for o in out_f] == [(5, 8), (5, 8)] and [o.shape for o in out_g] == [(5, 8), (5, 8)]


def test_read_only_and_empty_numpy_inputs(monkeypatch):
    k = copy_kernel([-1, 8])
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    x.setflags(write=False)  # its address comes from x.ctypes, not a writable view
    fast, general, _, _ = both_ways(monkeypatch, k, x, outputs=np.zeros((3, 8), np.float32))
    assert_same_buffers(fast, general)
    assert fields(fast[3], 1)[0][0] == x.ctypes.data
    empty = np.zeros((0, 8), np.float32)
    fast, general, out_f, out_g = both_ways(monkeypatch, k, empty)
    assert_same_buffers(fast, general, outputs_data=False)
    assert out_f.shape == (0, 8) and out_g.shape == (0, 8)


def test_a_failing_call_gives_its_block_back():
    k = add_kernel((4, 8))
    mem = np.zeros(33, np.float32)
    x, shifted = mem[:32].reshape(4, 8), mem[1:].reshape(4, 8)  # a partial overlap: the library refuses it
    with pytest.raises(weft.ArgumentError, match="overlaps input 0"):
        k.run(x, x, outputs=shifted)
    assert len(k._plan.pool) == 1
    y = k.run(x, x)
    np.testing.assert_array_equal(y, x + x)
    assert len(k._plan.pool) == 1


def test_the_fast_path_runs_on_the_executor_and_the_library_still_checks_overlap():
    k = two_outputs_kernel()
    a = np.arange(40, dtype=np.float32).reshape(5, 8) - 20
    v = np.arange(8, dtype=np.float32)
    o1, o2 = np.zeros((5, 8), np.float32), np.zeros((5, 8), np.float32)
    assert K._fast_args(k._plan, (a, v), (o1, o2)) is not None
    assert k.run(a, v, outputs=(o1, o2)) == (o1, o2)
    np.testing.assert_array_equal(o1, a + v)
    np.testing.assert_array_equal(o2, np.maximum(a, 0))
    g = weft.Fusion()
    b = weft.relu(g.input(weft.f32, [-1]))
    g.output(b)
    b.parallelize(0, weft.TIDX)
    k = g.compile()
    x = np.arange(-8, 8, dtype=np.float32)
    assert K._fast_args(k._plan, (x[:15],), x[1:]) is not None
    with pytest.raises(weft.ArgumentError) as e:
        k.run(x[:15], outputs=x[1:])
    assert str(e.value).startswith("output 0 (T1) overlaps input 0 (T0): T1's buffer starts 4 bytes after T0's")


# ---------------------------------------------------------------- declined, with the general path's errors


def refused(monkeypatch, k, *inputs, outputs=None):
    """The message k.run raises, wf_run never reached; and checks that
    the fast path declined the call."""

    def no_call(*a):
        raise AssertionError("wf_run must not be reached")

    monkeypatch.setattr(K.lib, "wf_run", no_call)
    assert K._fast_args(k._plan, inputs, outputs) is None
    with pytest.raises(weft.ArgumentError) as e:
        k.run(*inputs, outputs=outputs)
    return str(e.value)


def test_cuda_array_mistakes_raise_the_general_messages(monkeypatch):
    k = add_kernel()
    ok = [CudaArray((256, 1024), 0x10000 * (i + 1)) for i in range(3)]
    f16 = CudaArray((256, 1024), 0x1000, typestr="<f2")
    assert refused(monkeypatch, k, f16, ok[1], outputs=ok[2]) == (
        "weft: input 0 (T0) is f32, but the CUDA array holds <f2"
    )
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=f16) == (
        "weft: output 0 (T2) is f32, but the CUDA array holds <f2"
    )
    wide = CudaArray((256, 1025), 0x1000)
    assert refused(monkeypatch, k, ok[0], wide, outputs=ok[2]) == (
        "weft: input 1 (T1) needs extent 1024 in dim 1, but the array has 1025 (shape (256, 1025))"
    )
    flat = CudaArray((256 * 1024,), 0x1000)
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=flat) == (
        "weft: output 0 (T2) has rank 2, but the array has rank 1 (shape (262144,))"
    )
    assert refused(monkeypatch, k, ok[0], outputs=ok[2]) == "weft: the kernel takes 2 inputs, 1 given"
    assert refused(monkeypatch, k, *ok) == "weft: the kernel takes 2 inputs, 3 given"
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=[ok[2], ok[2]]) == "weft: the kernel has 1 output, 2 given"
    host = np.zeros((256, 1024), np.float32)
    assert refused(monkeypatch, k, ok[0], host, outputs=ok[2]) == (
        "weft: inputs mix host (numpy) and CUDA arrays; use one kind"
    )
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=host) == (
        "weft: output 0 (T2) is a ndarray; on the GPU every array must be a CUDA array"
    )
    on1 = CudaArrayProperty((256, 1024), 0x1000, index=1)
    assert refused(monkeypatch, k, ok[0], on1, outputs=ok[2]) == (
        "weft: CUDA arrays must be on device 0 (got namespace(index=1))"
    )
    neg = CudaArray((256, 1024), 0x1000, strides=(-4096, 4))
    assert refused(monkeypatch, k, neg, ok[1], outputs=ok[2]) == (
        "weft: input 0 (T0): stride -4096 bytes of dim 0 is not a non-negative multiple of the element size 4"
    )
    # symbolic extents: the output's shape is bound from the input's
    k = copy_kernel([-1, -1])
    assert refused(monkeypatch, k, CudaArray((3, 40), 0x1000), outputs=CudaArray((3, 41), 0x2000)) == (
        "weft: output 0 (T1) must have shape (3, 40), but the array has (3, 41)"
    )


def test_torch_mistakes_raise_the_general_messages(monkeypatch, torch):
    k = add_kernel()
    ok = [torch.Tensor((256, 1024), 0x10000 * (i + 1)) for i in range(3)]
    half = torch.Tensor((256, 1024), 0x1000, torch.float16)
    assert refused(monkeypatch, k, half, ok[1], outputs=ok[2]) == (
        "weft: input 0 (T0) is f32 (torch.float32), but the tensor holds torch.float16"
    )
    grad = torch.Tensor((256, 1024), 0x1000, requires_grad=True)
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=grad) == (
        "weft: output 0 (T2) requires grad; pass a tensor that does not"
    )
    short = torch.Tensor((255, 1024), 0x1000)
    assert refused(monkeypatch, k, short, ok[1], outputs=ok[2]) == (
        "weft: input 0 (T0) needs extent 256 in dim 0, but the array has 255 (shape (255, 1024))"
    )
    on1 = torch.Tensor((256, 1024), 0x1000, index=1)
    assert refused(monkeypatch, k, ok[0], on1, outputs=ok[2]) == "weft: CUDA arrays must be on device 0 (got cuda:1)"
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=CudaArray((256, 1024), 0x1000, typestr="<i4")) == (
        "weft: output 0 (T2) is f32, but the CUDA array holds <i4"
    )
    assert refused(monkeypatch, k, ok[0], outputs=ok[2]) == "weft: the kernel takes 2 inputs, 1 given"


def test_non_contiguous_tensors_take_the_general_path(monkeypatch, torch):
    # a transposed view: strides go into the buffer (and T0 is contiguous, so C refuses it)
    f = weft.Fusion()
    a = f.input_strided(weft.f32, [-1, -1], [False, False])
    f.output(weft.set(a))
    k = f.compile()
    x = torch.Tensor((8, 4), 0x1000, strides=(1, 8))
    y = torch.Tensor((8, 4), 0x2000)
    assert K._fast_args(k._plan, (x,), y) is None
    rec = Recorder()
    monkeypatch.setattr(K.lib, "wf_run", rec)
    assert k.run(x, outputs=y) is y
    assert fields(rec.calls[0][3], 1)[0][4][:2] == [1, 8]


def test_numpy_mistakes_raise_the_general_messages(monkeypatch):
    k = add_kernel((4, 8))
    ok = [np.zeros((4, 8), np.float32) for _ in range(3)]
    assert refused(monkeypatch, k, ok[0], np.zeros((4, 8)), outputs=ok[2]) == (
        "weft: input 1 (T1) is f32 (numpy float32), but the array holds float64"
    )
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=np.zeros((4, 9), np.float32)) == (
        "weft: output 0 (T2) needs extent 8 in dim 1, but the array has 9 (shape (4, 9))"
    )
    ro = np.zeros((4, 8), np.float32)
    ro.setflags(write=False)
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=ro) == "weft: output 0 (T2) is read-only"
    assert refused(monkeypatch, k, ok[0], ok[1], ok[2]) == "weft: the kernel takes 2 inputs, 3 given"
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=[]) == "weft: the kernel has 1 output, 0 given"
    assert refused(monkeypatch, k, ok[0], ok[1], outputs=CudaArray((4, 8), 0x1000)) == (
        "weft: output 0 (T2) is a CudaArray; pass a numpy array (CPU executor) or a CUDA array"
    )
    k = copy_kernel([-1])
    assert refused(monkeypatch, k, np.zeros(5, np.float32), outputs=np.zeros(6, np.float32)) == (
        "weft: output 0 (T1) must have shape (5,), but the array has (6,)"
    )
