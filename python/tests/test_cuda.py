"""GPU runs (backend cuda): PyTorch CUDA tensors and any
__cuda_array_interface__ object. Skipped, with the reason, where there is no
GPU or no PyTorch; they run on a machine with both (the lent GPU)."""

import numpy as np
import pytest

import weft

from test_run_numpy import transpose

gpu = pytest.mark.skipif(not weft.cuda_available(), reason="no CUDA driver or device")


def copy_kernel(shape, dtype=weft.f32):
    f = weft.Fusion()
    a = f.input(dtype, [-1] * len(shape))
    b = weft.set(a)
    f.output(b)
    if len(shape) == 2:
        b.merge(0)
    b.split(0, 128).parallelize(0, weft.BIDX).parallelize(1, weft.TIDX)
    return f.compile()


@gpu
def test_device_array_copy_without_torch():
    x = np.random.default_rng(1).standard_normal((8, 64)).astype(np.float32)
    d = weft.DeviceArray.from_numpy(x)
    k = copy_kernel(x.shape)
    out = k.run(d)
    assert isinstance(out, weft.DeviceArray) and out.shape == (8, 64)
    np.testing.assert_array_equal(out.numpy(), x)


@gpu
def test_mixing_host_and_device_arrays_is_refused():
    k = copy_kernel((8, 64))
    d = weft.DeviceArray((8, 64), weft.f32)
    with pytest.raises(weft.ArgumentError, match="inputs mix host"):
        f = weft.Fusion()
        a, b = f.input(weft.f32, [4]), f.input(weft.f32, [4])
        f.output(a + b)
        f.compile().run(np.zeros(4, np.float32), weft.DeviceArray((4,), weft.f32))
    with pytest.raises(weft.ArgumentError, match="on the GPU every array must be a CUDA array"):
        k.run(d, outputs=[np.zeros((8, 64), np.float32)])


def _torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    return torch


def test_torch_cpu_tensors_run_on_the_executor():
    torch = _torch()
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 8])
    v = f.input(weft.f32, [8])
    c = a + weft.broadcast(v, [True, False])
    f.output(c)
    f.inline_most()
    k = f.compile()
    x, y = torch.randn(3, 8), torch.randn(8)
    out = k.run(x, y)
    assert isinstance(out, torch.Tensor) and out.shape == (3, 8)
    assert torch.equal(out, x + y)


@gpu
def test_torch_cuda_copy_and_cast():
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    x = torch.randn(16, 256, device="cuda")
    k = copy_kernel((16, 256))
    out = k.run(x)
    assert out.is_cuda and out.dtype == torch.float32 and out.shape == (16, 256)
    assert torch.equal(out, x)
    f = weft.Fusion()
    a = f.input(weft.f32, [1024])
    c = weft.cast(a, weft.bf16)
    f.output(c)
    c.split(0, 128).parallelize(0, weft.BIDX).parallelize(1, weft.TIDX)
    k = f.compile()
    x = torch.randn(1024, device="cuda")
    out = k.run(x)
    assert out.dtype == torch.bfloat16
    assert torch.equal(out, x.to(torch.bfloat16))


@gpu
@pytest.mark.parametrize("variant", [0, 1, 2])
def test_torch_cuda_transpose_tiles(variant):
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    k = transpose(256, variant).compile()
    x = torch.randn(256, 256, device="cuda")
    out = k.run(x)
    torch.cuda.synchronize()
    assert torch.equal(out, x.t())
    # the same kernel on the executor gives the same answer
    np.testing.assert_array_equal(k.run(x.cpu().numpy()), out.cpu().numpy())


@gpu
def test_torch_cuda_wrong_dtype_is_refused():
    torch = _torch()
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    k = copy_kernel((16, 256))
    with pytest.raises(weft.ArgumentError, match=r"input 0 \(T0\) is f32 \(torch.float32\), but the tensor holds torch.float16"):
        k.run(torch.zeros(16, 256, device="cuda", dtype=torch.float16))
