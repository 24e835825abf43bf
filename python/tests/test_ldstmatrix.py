"""Seed 002's LdStMatrixSet with ldmatrix.x4 / stmatrix.x4, as
examples/ldstmatrix_set.py builds it (this file imports it from there, so
the example is what is tested): bit-exact on the CPU executor at 512 x 512
with the exact PTX and no bank conflict, the example's own run, and on the
GPU with PyTorch CUDA tensors at 8192 x 8192 (skipped, saying why, without
PyTorch or a device)."""

import importlib.util
import os

import numpy as np
import pytest

import weft

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location(
    "ldstmatrix_set_example", os.path.join(ROOT, "examples", "ldstmatrix_set.py")
)
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

LDMATRIX_X4 = "ldmatrix.sync.aligned.x4.m8n8.shared.b16"
STMATRIX_X4 = "stmatrix.sync.aligned.x4.m8n8.shared.b16"


def test_ldstmatrix_set_512_bit_exact_on_the_executor():
    f, (x, out, smem_in, regs, smem_out) = example.ldstmatrix_set(512, 512)
    # the two abstract loop domains map: inlined at all 6 axes but the vectorized one
    assert regs.ndim == 7 and regs.compute_at == 6
    k = f.compile()
    src = k.source
    assert LDMATRIX_X4 in src
    assert STMATRIX_X4 in src
    assert ".trans" not in src
    assert example.matrix_instructions(src) == [
        LDMATRIX_X4 + " {%0, %1, %2, %3}, [%4];",
        STMATRIX_X4 + " [%0], {%1, %2, %3, %4};",
    ]
    assert [(t.kind, t.swizzle) for t in k.tma] == [("load", 128), ("store", 128)]
    assert k.launch.grid[:2] == (4, 2) and k.launch.block[:2] == (128, 2)
    a, bits = example.random_bf16((512, 512))
    y = k.run(a)
    np.testing.assert_array_equal(np.asarray(y).view(np.uint16), bits)
    st = k.stats
    assert st.smem_max_conflict_degree == 1  # swizzled: no bank conflict
    assert (st.smem_accesses, st.smem_wavefronts) == (2048, 8192)


@pytest.mark.parametrize("m,n", [(512, 384), (320, 200)])
@pytest.mark.parametrize(
    "cta,per,stages,n_first,grid",
    [((64, 128), 1, 1, True, lambda m, n: (-(-n // 128), -(-m // 64))),
     ((64, 128), 4, 2, True, lambda m, n: (-(-n // 128), -(-m // 256))),
     ((64, 128), 2, 3, False, lambda m, n: (-(-m // 128), -(-n // 128)))],
)
def test_ldstmatrix_set_bench_variants_bit_exact(m, n, cta, per, stages, n_first, grid):
    """The schedules bench/ldstmatrix.py times besides the seed's: another CTA
    tile, blockIdx.x along N, several tiles a block with the TMA load
    circular-buffered (2 and 3 stages); at sizes the tiles do not divide too."""
    f, _ = example.ldstmatrix_set(m, n, cta=cta, warp=(64, cta[1]), per=per, stages=stages, n_first=n_first)
    k = f.compile()
    assert k.launch.grid[:2] == grid(m, n) and k.launch.block[:2] == (128, 1)
    assert LDMATRIX_X4 in k.source and STMATRIX_X4 in k.source
    if stages > 1:
        assert "mbarrier.try_wait.parity" in k.source
    a, bits = example.random_bf16((m, n))
    y = k.run(a)
    np.testing.assert_array_equal(np.asarray(y).view(np.uint16), bits)
    assert k.stats.smem_max_conflict_degree == 1


def test_ldstmatrix_set_example_prints_bit_exact(capsys):
    assert not example.main()
    out = capsys.readouterr().out
    assert "  " + LDMATRIX_X4 + " {%0, %1, %2, %3}, [%4];" in out.splitlines()
    assert (
        "CPU executor 512 x 512: bit-exact; shared memory: 2048 accesses in 8192 wavefronts, "
        "worst bank conflict 1-way" in out
    )
    assert "CPU executor 320 x 200: bit-exact" in out


@pytest.fixture(scope="module")
def torch():
    if not weft.cuda_available():
        pytest.skip("no CUDA driver or device")
    t = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not t.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    t.manual_seed(22)
    return t


@pytest.mark.parametrize("m,n", [(8192, 8192), (8000, 8040)])
def test_gpu_ldstmatrix_set_bit_exact(torch, m, n):
    f, _ = example.ldstmatrix_set(m, n)
    k = f.compile()
    assert LDMATRIX_X4 in k.source and STMATRIX_X4 in k.source
    x = torch.randn(m, n, dtype=torch.bfloat16, device="cuda")
    y = k.run(x)
    torch.cuda.synchronize()
    assert y.is_cuda and y.dtype == torch.bfloat16
    assert torch.equal(y.view(torch.int16), x.view(torch.int16))
