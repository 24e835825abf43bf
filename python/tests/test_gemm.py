"""The tensor-core GEMM of examples/gemm_mma_sync.py (imported from there, so
the example is what is tested): weft.mma / weft.matmul, the fragment layouts
WF_MMA gives, mma.sync with ldmatrix fragments, the shared tiles fetched by
all threads or by TMA circular-buffered over K, and the bias + relu epilogue.
Each kernel runs on the CPU executor on integer-valued data (every sum exact)
and must equal the float64 reference bit for bit, also at sizes no tile
divides; each compiles with NVRTC for sm_90a where NVRTC is present. The GPU
run (2048^3 against torch.matmul) is the example's main()."""

import importlib.util
import os

import numpy as np
import pytest

import weft

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("gemm_example", os.path.join(ROOT, "examples", "gemm_mma_sync.py"))
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

MMA_BF16 = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
MMA_F16 = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"


def operands(m, n, k, dtype, seed=3):
    """Integer-valued A [m, k] and B [k, n] as float32 and as the kernel's dtype."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-4, 5, (m, k)).astype(np.float32)
    b = rng.integers(-4, 5, (k, n)).astype(np.float32)
    if dtype == weft.f16:
        return a, b, a.astype(np.float16), b.astype(np.float16)
    # bf16: the top half of the float32 bits (exact for small integers)
    bits = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16).view(weft.numpy_dtype(weft.bf16))  # noqa: E731
    return a, b, bits(a), bits(b)


CASES = [  # (m, n, k, dtype, gemm() options)
    (128, 128, 64, weft.bf16, dict(warps=(2, 2), frags=(2, 4), kt=2)),
    (64, 96, 96, weft.f16, dict(warps=(1, 2), frags=(4, 2), kt=1)),
    (70, 45, 50, weft.bf16, dict(warps=(2, 2), frags=(1, 2), kt=2, vec=1)),
    (70, 45, 50, weft.f16, dict(warps=(2, 2), frags=(1, 2), kt=2, vec=1, ldmatrix=False)),
    (256, 256, 256, weft.bf16, dict(warps=(2, 2), frags=(2, 8), kt=4, stages=3)),
    (100, 72, 152, weft.f16, dict(warps=(2, 2), frags=(2, 8), kt=4, stages=2)),
]


@pytest.mark.parametrize("m,n,k,dtype,opts", CASES, ids=lambda c: str(c) if not isinstance(c, dict) else
                         "-".join("%s%s" % kv for kv in sorted(c.items())))
def test_gemm_exact_on_the_executor(m, n, k, dtype, opts):
    f, _, _ = example.gemm(m, n, k, dtype, **opts)
    kern = f.compile()
    src = kern.source
    assert (MMA_BF16 if dtype == weft.bf16 else MMA_F16) in src
    if opts.get("ldmatrix", True):
        assert "ldmatrix.sync.aligned.x4.m8n8.shared.b16" in src
        assert "ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16" in src
    else:
        assert "ldmatrix" not in src
    if opts.get("stages"):
        assert [(t.kind, t.swizzle) for t in kern.tma] == [("load", 32 * opts["kt"]), ("load", 16 * opts["frags"][1])]
    a, b, a16, b16 = operands(m, n, k, dtype)
    out = np.asarray(kern.run(a16, b16))
    assert out.dtype == np.float32 and out.shape == (m, n)
    assert np.array_equal(out, example.reference(a, b).astype(np.float32))
    if opts.get("stages"):  # swizzled tiles: ldmatrix without bank conflicts
        assert kern.stats.smem_max_conflict_degree == 1
    try:
        kern.check_nvrtc(90)
    except weft.UnsupportedError:  # no NVRTC here: the C suite says so too
        pass


WGMMA_CASES = [  # (m, n, k, dtype, gemm_wgmma() options)
    (256, 256, 128, weft.bf16, dict(groups=2, bn=128, kt=4, stages=2)),
    (128, 64, 192, weft.f16, dict(groups=1, bn=64, kt=4, stages=3)),
    (200, 136, 104, weft.bf16, dict(groups=2, bn=256, kt=4, stages=2)),
]


@pytest.mark.parametrize("m,n,k,dtype,opts", WGMMA_CASES, ids=lambda c: str(c) if not isinstance(c, dict) else
                         "-".join("%s%s" % kv for kv in sorted(c.items())))
def test_gemm_wgmma_exact_on_the_executor(m, n, k, dtype, opts):
    f, _, _ = example.gemm_wgmma(m, n, k, dtype, **opts)
    kern = f.compile()
    src = kern.source
    t = "bf16" if dtype == weft.bf16 else "f16"
    assert "wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s" % (opts["bn"], t, t) in src
    for sync in ("wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;",
                 "wgmma.wait_group.sync.aligned 0;"):
        assert sync in src
    assert "mma.sync" not in src and "ldmatrix" not in src
    # A K-major (trans 0), B as stored, N contiguous (trans 1)
    assert ", p, 1, 1, 0, 1; }" in src
    assert kern.launch.block[:3] == (128, opts["groups"], 1)
    a, b, a16, b16 = operands(m, n, k, dtype)
    out = np.asarray(kern.run(a16, b16))
    assert np.array_equal(out, example.reference(a, b).astype(np.float32))
    try:
        kern.check_nvrtc(90)
    except weft.UnsupportedError:
        pass


def rounded(c, dtype):
    """float64 C rounded to dtype (round to nearest even), as float64."""
    c = c.astype(np.float32)
    if dtype == weft.f16:
        return c.astype(np.float16).astype(np.float64)
    u = c.view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


def as_float64(out, dtype):
    out = np.asarray(out)
    if dtype == weft.bf16:
        out = (out.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return out.astype(np.float64)


PIPELINE_CASES = [  # (m, n, k, epilogue, C's type, gemm_wgmma() options): rasterized, 16-bit C, stored in pairs
    (256, 1024, 128, False, weft.bf16, dict(bn=128, stages=3, raster=2)),
    (200, 712, 104, True, weft.bf16, dict(bn=128, stages=4, raster=2)),
    (130, 1000, 200, True, weft.f16, dict(bn=128, stages=2, raster=3)),
    (384, 512, 96, False, weft.f32, dict(bn=256, stages=3, raster=4)),
    (130, 72, 200, True, weft.f32, dict(bn=128, stages=3)),
]


@pytest.mark.parametrize("m,n,k,epi,out_t,opts", PIPELINE_CASES)
def test_gemm_wgmma_pipelined_exact_on_the_executor(m, n, k, epi, out_t, opts):
    f, _, _ = example.gemm_wgmma(m, n, k, weft.f16, groups=2, kt=4, epilogue=epi, out=out_t, **opts)
    kern = f.compile()
    src = kern.source
    # one group in flight in the loop, the last retired after it; every thread waits on the stages
    assert src.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert src.count("wgmma.wait_group.sync.aligned 0;") == 1
    assert src.count("wgmma.commit_group.sync.aligned;") == 1
    # C's register pairs stored by one instruction, where C is a copy (not relu's result)
    pairs = "wf_vec_copy<%s, 2>(&T" % {weft.bf16: "wf_bfloat", weft.f16: "wf_half", weft.f32: "float"}[out_t]
    assert (pairs in src) == (out_t != weft.f32 or not epi)
    if opts.get("raster"):
        nb = -(-n // opts["bn"])
        assert kern.launch.grid[:3] == (opts["raster"], -(-m // 128), -(-nb // opts["raster"]))
    a, b, a16, b16 = operands(m, n, k, weft.f16)
    bias = np.arange(-(n // 2), n - n // 2).astype(np.float32) if epi else None
    out = kern.run(a16, b16, bias) if epi else kern.run(a16, b16)
    want = example.reference(a, b, bias)
    assert np.array_equal(as_float64(out, out_t), rounded(want, out_t) if out_t != weft.f32 else want)


def test_wgmma_needs_sm90():
    f, _, _ = example.gemm_wgmma(128, 128, 64, weft.bf16, groups=1, bn=128, kt=4, stages=1)
    with pytest.raises(weft.UnsupportedError, match="wgmma.m64nNk16 needs sm_90a"):
        f.compile(sm=80)


def test_gemm_bias_relu_epilogue_exact():
    m, n, k = 100, 70, 50
    f, _, out_t = example.gemm(m, n, k, weft.f16, warps=(2, 2), frags=(2, 2), kt=2, vec=1, epilogue=True)
    kern = f.compile()
    a, b, a16, b16 = operands(m, n, k, weft.f16)
    bias = np.arange(n, dtype=np.float32) - 35
    out = np.asarray(kern.run(a16, b16, bias))
    assert np.array_equal(out, example.reference(a, b, bias).astype(np.float32))
    assert (out >= 0).all() and (out == 0).any()


def test_matmul_one_tile_by_wf_matmul():
    """weft.matmul and WF_MMA on the accumulator, the operands and the store:
    a 16 x 8 x 16 tile, one warp, the fragments read straight from global."""
    f = weft.Fusion()
    a = f.input(weft.f16, [16, 16])
    b = f.input(weft.f16, [16, 8])
    c = weft.matmul(a, b)
    f.output(c)
    acc = c.cache_before()
    for i in range(3):
        acc.parallelize(i, weft.MMA)
    # laid out as the fragment: [lane{32} on TIDx, 4 registers, K 16]
    assert [d.extent for d in acc.loop_domain] == [32, 4, 16]
    acc.definition_input(0).parallelize(0, weft.MMA).parallelize(2, weft.MMA)
    acc.definition_input(1).parallelize(1, weft.MMA).parallelize(2, weft.MMA)
    c.parallelize(0, weft.MMA).parallelize(1, weft.MMA)
    kern = f.compile()
    assert kern.launch.block[:3] == (32, 1, 1)
    x, y, x16, y16 = operands(16, 8, 16, weft.f16)
    assert np.array_equal(np.asarray(kern.run(x16, y16)), x @ y)


def test_mma_refuses_what_no_instruction_does():
    f = weft.Fusion()
    a = f.input(weft.f32, [16, 16])
    c = weft.matmul(a, f.input(weft.f32, [16, 8]))
    f.output(c)
    for i in range(3):
        c.parallelize(i, weft.MMA)
    with pytest.raises(weft.UnsupportedError, match="no tensor-core path for float operands"):
        f.compile()
    with pytest.raises(TypeError):
        weft.mma(a, 2.0, 1)
