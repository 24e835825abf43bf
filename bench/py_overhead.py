"""py_overhead.py -- the Python binding's own host time per Kernel.run call
(issue 20): k.run(x, y, outputs=out) on a compiled add of two [256, 1024]
f32 inputs, with the C call underneath (weft.kernel.lib.wf_run) replaced by
a stub that returns 0, so that only the Python side is timed and no GPU is
needed. Cases:

    cai    objects with __cuda_array_interface__ (version 3, strides None,
           data (ptr, False)), as CuPy arrays, weft.DeviceArray and DLPack's
           CudaView are: the GPU path of Kernel.run
    torch  stand-ins for PyTorch CUDA tensors: Kernel.run reads a tensor's
           dtype, shape, is_contiguous(), data_ptr(), get_device() (or
           device) and requires_grad itself, not through the protocol, so
           the stand-ins are objects of a class whose module is "torch"
           that answer those (a stand-in torch module is sys.modules["torch"]
           meanwhile); and real torch.cuda tensors too when PyTorch sees a
           CUDA device
    numpy  numpy arrays: the CPU executor's path

Each case runs CALLS calls ROUNDS times; prints the median microseconds per
call as

    RESULT py_overhead <case>: <us> us per call (wf_run stubbed)

Where weft finds a GPU it also times the real call (wf_run launching the
kernel; host time, not synchronized) on weft.DeviceArrays, wf_run alone
through ctypes on the same buffers, and with PyTorch the real call on torch
CUDA tensors and torch's own eager add on them, for comparison.
Usage: python3 bench/py_overhead.py [CALLS] (default 20000).
"""

import os
import statistics
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import weft  # noqa: E402
import weft.kernel  # noqa: E402

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
ROUNDS = 7
SHAPE = (256, 1024)


def add_kernel():
    f = weft.Fusion()
    a = f.input(weft.f32, list(SHAPE))
    b = f.input(weft.f32, list(SHAPE))
    c = a + b
    f.output(c)
    c.merge(0)
    c.split(0, 128).parallelize(0, weft.BIDX).parallelize(1, weft.TIDX)
    c.propagate_transforms()
    c.parallelize_all_like()
    f.inline_most()
    return f.compile()


class CudaArray:
    """A CUDA array as the protocol shows it (no memory behind it)."""

    def __init__(self, shape, ptr):
        self.shape = shape
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": "<f4",
            "data": (ptr, False),
            "strides": None,
            "version": 3,
        }


def fake_torch():
    """A module standing in for torch, with a Tensor class that answers what
    Kernel.run asks of a CUDA tensor."""
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

    class Tensor:
        is_cuda = True
        requires_grad = False

        def __init__(self, shape, ptr, dtype=torch.float32):
            self.shape = tuple(shape)
            self.dtype = dtype
            self.device = device("cuda", 0)
            self._ptr = ptr

        def is_contiguous(self):
            return True

        def stride(self):
            out, n = [], 1
            for s in reversed(self.shape):
                out.append(n)
                n *= s
            return tuple(reversed(out))

        def data_ptr(self):
            return self._ptr

        def get_device(self):
            return self.device.index

        @property
        def __cuda_array_interface__(self):
            return {"shape": self.shape, "typestr": "<f4", "data": (self._ptr, False), "strides": None, "version": 3}

    Tensor.__module__ = torch.__name__
    torch.Tensor, torch.device = Tensor, device
    return torch


def time_us(fn):
    """Median over ROUNDS of the microseconds per call of CALLS calls."""
    for _ in range(min(CALLS, 1000)):
        fn()
    rounds = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for _ in range(CALLS):
            fn()
        rounds.append((time.perf_counter() - t0) / CALLS * 1e6)
    return statistics.median(rounds)


def stubbed(fn):
    """fn timed with wf_run returning 0 at once."""
    lib = weft.kernel.lib
    real = lib.wf_run
    lib.wf_run = lambda *args: 0
    try:
        return time_us(fn)
    finally:
        lib.wf_run = real


def real_torch():
    """torch, when it is installed and sees a CUDA device; else None."""
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() else None


def with_fake_torch(fn):
    """fn() while the stand-in torch module is sys.modules["torch"] (kernel.py
    reads torch's dtypes there)."""
    saved = sys.modules.get("torch")
    sys.modules["torch"] = fake_torch()
    try:
        return fn(sys.modules["torch"])
    finally:
        if saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = saved


def main():
    k = add_kernel()
    results = []

    xs = [CudaArray(SHAPE, 0x10000 * (i + 1)) for i in range(3)]
    results.append(("cai", stubbed(lambda: k.run(xs[0], xs[1], outputs=xs[2]))))

    def fake_case(fake):
        fs = [fake.Tensor(SHAPE, 0x10000 * (i + 1)) for i in range(3)]
        return stubbed(lambda: k.run(fs[0], fs[1], outputs=fs[2]))

    results.append(("torch (stand-ins)", with_fake_torch(fake_case)))
    torch = real_torch()
    if torch is not None:
        ts = [torch.randn(*SHAPE, device="cuda") for _ in range(3)]
        results.append(("torch (torch.cuda tensors)", stubbed(lambda: k.run(ts[0], ts[1], outputs=ts[2]))))

    ns = [np.ones(SHAPE, np.float32) for _ in range(3)]
    results.append(("numpy", stubbed(lambda: k.run(ns[0], ns[1], outputs=ns[2]))))

    for name, us in results:
        print("RESULT py_overhead %s: %.2f us per call (wf_run stubbed)" % (name, us))

    if not weft.cuda_available():
        return
    ds = [weft.DeviceArray(SHAPE, weft.f32) for _ in range(3)]
    real = time_us(lambda: k.run(ds[0], ds[1], outputs=ds[2]))
    ds[2].numpy()  # waits for the launches
    print("RESULT py_overhead cai (weft.DeviceArray): %.2f us per call with the real wf_run (host time)" % real)
    rec = []
    lib = weft.kernel.lib
    real_run = lib.wf_run
    lib.wf_run = lambda *args: rec.append(args) or 0
    k.run(ds[0], ds[1], outputs=ds[2])  # the arguments run passes
    lib.wf_run = real_run
    c_only = time_us(lambda: real_run(*rec[0]))
    ds[2].numpy()
    print("RESULT py_overhead wf_run alone through ctypes: %.2f us per call (host time)" % c_only)
    if torch is not None:
        real = time_us(lambda: k.run(ts[0], ts[1], outputs=ts[2]))
        torch.cuda.synchronize()
        if not torch.equal(ts[2], ts[0] + ts[1]):
            print("FAIL py_overhead: the kernel's sum differs from torch's")
        eager = time_us(lambda: torch.add(ts[0], ts[1], out=ts[2]))
        torch.cuda.synchronize()
        print("RESULT py_overhead torch: %.2f us per call with the real wf_run (host time)" % real)
        print("RESULT py_overhead torch eager add(out=): %.2f us per call (host time)" % eager)


if __name__ == "__main__":
    main()
