"""Every seed example of the Python tests, run on the GPU with PyTorch CUDA
tensors (k.run on torch tensors of random data, results checked against
torch). Skipped, with the reason, where there is no GPU or no PyTorch with
CUDA; tools/gpu-check.sh runs them on the lent GPU.

- seed 000: the shared-memory copy review (six schedules), the fancy
  transformations of a 4096 x 4096 copy, and the tensor-memory copies
  (these need a Blackwell device, sm_100: skipped on others);
- seed 001: TMA example 1 (pointwise add, TMA loads, vector stores), example
  3 (transpose through 128-byte-swizzled tiles, TMA load and store, plain
  and swizzled) and the TMA tutorial's tiled load and store;
- seed 004: the TensorIR notebook's program, bound (In [5]) and with the
  cooperative fetch (In [9]), built and run on weft.cuda() with weft.nd
  arrays as TVM's users write it, checked against torch's sum.
  (test_tir_notebook.py runs the notebook itself, where the seed file is.)
"""

import numpy as np
import pytest

import weft
from weft import tir
from weft.script import tir as T

from test_examples_copy_tmem import GSG, VALID, chain, fancy_transformations
from test_tma import pointwise_add, transpose as tma_transpose

S = weft.SERIAL


@pytest.fixture(scope="module")
def torch():
    if not weft.cuda_available():
        pytest.skip("no CUDA driver or device")
    t = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not t.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    t.manual_seed(13)
    return t


def run(torch, k, *xs):
    out = k.run(*xs)
    torch.cuda.synchronize()
    assert out.is_cuda
    return out


# ---- seed 000


@pytest.mark.parametrize("title, pos, tidx, bidx, floats", GSG, ids=[g[0] for g in GSG])
def test_gpu_shared_memory_copy_review(torch, title, pos, tidx, bidx, floats):
    f = weft.Fusion()
    tv0 = f.input(weft.f32, [2, 4])
    tv1 = weft.set(tv0)
    tv2 = weft.set(tv1)
    f.output(tv2)
    tv1.set_memory(weft.SHARED)
    if pos:
        tv1.inline_at(pos)
    for axis, p in ((tidx, weft.TIDX), (bidx, weft.BIDX)):
        if axis is not None:
            tv1.parallelize(axis, p)
            tv2.parallelize(axis, p)
    k = f.compile()
    assert k.launch.smem == 4 * floats
    x = torch.randn(2, 4, device="cuda")
    assert torch.equal(run(torch, k, x), x)


def test_gpu_fancy_transformations_copy(torch):
    f = weft.Fusion()
    tv0 = f.input(weft.f32, [4096, 4096])
    tv1 = weft.set(tv0)
    tv2 = weft.set(tv1)
    f.output(tv2)
    fancy_transformations(tv2)
    tv2.split(1, 128).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    tv2.propagate_transforms()
    tv2.parallelize_all_like()
    f.inline_most()
    k = f.compile()
    x = torch.randn(4096, 4096, device="cuda")
    assert torch.equal(run(torch, k, x), x)


def _sm():
    return weft.system_info().device_sm


@pytest.mark.parametrize("shape, ptypes, dimsep, lanes, cols", VALID)
def test_gpu_tensor_memory_copies(torch, shape, ptypes, dimsep, lanes, cols):
    if _sm() < 100:
        pytest.skip("tensor memory needs sm_100 (Blackwell); this device is sm_%d" % _sm())
    f, (tv0, tv1, tv2, tv3, tv4) = chain(shape)
    for axis, p in enumerate(ptypes):
        if p != S:
            tv4.parallelize(axis, p)
    tv4.parallelize_all_like()
    tv2.set_tmem_dimsep(dimsep)
    k = f.compile(sm=_sm())
    x = torch.randn(*shape, device="cuda")
    assert torch.equal(run(torch, k, x), x)


# ---- seed 001 (TMA: sm_90 and newer)


def _need_tma():
    if _sm() < 90:
        pytest.skip("TMA needs sm_90 (Hopper) or newer; this device is sm_%d" % _sm())


def test_gpu_tma_pointwise_add(torch):
    _need_tma()
    f, _ = pointwise_add(64, 512)
    k = f.compile()
    x, y = torch.randn(64, 512, device="cuda"), torch.randn(64, 512, device="cuda")
    assert torch.equal(run(torch, k, x, y), x + y)


@pytest.mark.parametrize("swizzle", [False, True], ids=["plain", "swizzled"])
def test_gpu_tma_transpose(torch, swizzle):
    _need_tma()
    k = tma_transpose(256, swizzle)[0].compile()
    x = torch.randn(256, 256, device="cuda")
    out = run(torch, k, x)
    assert torch.equal(out, x.t())
    assert torch.equal(torch.from_numpy(k.run(x.cpu().numpy())), out.cpu())  # = the executor


@pytest.mark.parametrize("store", [False, True], ids=["load", "store"])
def test_gpu_tma_tiled_copy(torch, store):
    """docs/tutorial-tma.md's tiled copy: a 16 x 32 box per block."""
    _need_tma()
    f = weft.Fusion()
    x = f.input(weft.f32, [64, 128])
    s = weft.set(x)
    out = weft.set(s)
    f.output(out)
    s.set_memory(weft.SHARED)
    copy, threads = (out, s) if store else (s, out)
    copy.set_ldst(weft.TMA)
    for t in (s, out):
        t.split(1, 32).split(0, 16).reorder_all([0, 2, 1, 3])
        t.parallelize(0, weft.BIDY).parallelize(1, weft.BIDX)
    copy.parallelize(2, weft.BULK).parallelize(3, weft.BULK)
    threads.parallelize(2, weft.TIDY).parallelize(3, weft.TIDX)
    s.inline_at(2)
    k = f.compile()
    assert [m.box for m in k.tma] == [[16, 32]]
    a = torch.randn(64, 128, device="cuda")
    assert torch.equal(run(torch, k, a), a)


# ---- seed 004 (TensorIR)

SUM_BROADCAST = """
@T.prim_func
def sum_broadcast(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")) -> None:
    for i, k in T.grid(256, 256):
        with T.block("sum_broadcast"):
            vi = T.axis.spatial(256, i)
            vk = T.axis.reduce(256, k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] += A[vk]
"""


@pytest.mark.parametrize("cooperative", [False, True], ids=["in5_bound", "in9_cooperative_fetch"])
def test_gpu_tensorir_sum_broadcast(torch, cooperative):
    sch = tir.Schedule(T.prim_func(SUM_BROADCAST))
    block = sch.get_block("sum_broadcast")
    i, _ = sch.get_loops(block)
    i_outer, i_inner = sch.split(i, factors=[None, 128])
    sch.bind(i_outer, "blockIdx.x")
    sch.bind(i_inner, "threadIdx.x")
    if cooperative:
        a_shared = sch.cache_read(block, read_buffer_index=0, storage_scope="shared")
        sch.compute_at(a_shared, i_inner)
        _, ax0_inner = sch.split(sch.get_loops(a_shared)[-1], factors=[None, 128])
        sch.bind(ax0_inner, "threadIdx.x")
    f = weft.build(sch.mod, target="cuda")
    a_t = torch.rand(256, device="cuda")
    a = weft.nd.array(a_t.cpu().numpy(), device=weft.cuda())
    b = weft.nd.empty((256,), "float32", device=weft.cuda())
    f(a, b)
    want = a_t.sum().expand(256).cpu().numpy()
    np.testing.assert_allclose(b.numpy(), want, atol=1e-5, rtol=1e-5)
    assert ("__shared__" in f.imported_modules[0].get_source()) == cooperative
