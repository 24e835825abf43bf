"""gemm_mma_sync.py -- a GEMM on tensor cores (mma.sync.m16n8k16) scheduled
through the Python package: C[M, N] = A[M, K] x B[K, N] in bf16 or f16 with an
f32 accumulator, optionally with a fused epilogue relu(C + bias[N]).

The schedule (the same as tests/unit/test_mma_sync.c's shared-memory one):
  - C is wf_mma over K of A viewed [M, K, 1] and B viewed [1, K, N];
  - the accumulator [M, N, rK] -> [Mb (BIDy), Nb (BIDx), wm (TIDz), wn (TIDy),
    Ko, kt, tm, tn, m16, n8, k16]: blocks of wm x wn warps, each warp tm x tn
    instruction tiles of 16 x 8, K in steps of kt x 16;
  - A's and B's block tiles in shared memory at each K step, fetched by all
    threads with `vec`-element vector accesses;
  - the fragments (the wf_mma's operands) loaded from there at each 16 of K,
    by ldmatrix;
  - WF_MMA on the accumulator's, the operands' and the store's tile axes lays
    them out as the instruction's fragments (docs/tutorial-gemm.md).

Run from the repository root after `make`: python3 examples/gemm_mma_sync.py
(checks the kernels on the CPU executor; with PyTorch and a GPU, at 2048^3 on
torch tensors against torch.matmul). gemm_wgmma() builds the same GEMM on
Hopper's wgmma. bench/gemm.py imports both from here.
"""

import os
import sys

import numpy as np

try:
    import weft
except ImportError:  # run from a source tree: the package is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import weft


def with_epilogue(f, a, b, c, n, epilogue, out_dtype=weft.f32):
    """The fusion's output: C, or relu(C + bias[N]) with bias a new f32 input,
    cast to out_dtype where that is not f32. Returns (inputs, the tensors
    between C and the output, the bias's broadcast or None, the output); the
    output is registered. Without an epilogue or cast the accumulator is a
    wf_cache_before of C, else C itself."""
    ins, between, bias_b, out = (a, b), [], None, c
    if epilogue:
        bias = f.input(weft.f32, [n])
        bias_b = weft.broadcast(bias, [True, False])
        between = [weft.add(c, bias_b)]
        ins, out = (a, b, bias), weft.relu(between[0])
    if out_dtype != weft.f32:  # cast in registers, stored by a copy (which can be vectorized)
        between = between + [out] if out is not c else between
        between.append(weft.cast(out, out_dtype))
        out = weft.set(between[-1])
    f.output(out)
    return ins, between, bias_b, out


def gemm(m, n, k, dtype=weft.bf16, warps=(2, 2), frags=(4, 8), kt=2, vec=8, epilogue=False, ldmatrix=True,
         stages=0):
    """The fusion and its inputs/output (f, (a, b[, bias]), out). warps: warps per
    block along M and N; frags: 16 x 8 tiles per warp along M and N; kt: 16s of
    K per shared-memory step; epilogue: out = relu(C + bias[N]) instead of C;
    ldmatrix: the fragments loaded by ldmatrix (x4 for A, x2.trans for B);
    stages > 0: the shared tiles loaded by TMA (swizzled), circular-buffered
    over `stages` steps of K, instead of by all threads."""
    wm, wn = warps
    tm, tn = frags
    f = weft.Fusion()
    a = f.input(dtype, [m, k])
    b = f.input(dtype, [k, n])
    a_s, b_s = weft.set(a), weft.set(b)
    xa = weft.broadcast(a_s, [False, False, True])  # [M, K, 1]
    xb = weft.broadcast(b_s, [True, False, False])  # [1, K, N]
    c = weft.mma(xa, xb, 1)  # [M, rK, N], f32
    ins, between, bias_b, out = with_epilogue(f, a, b, c, n, epilogue)
    acc = c if epilogue else c.cache_before()
    a_s.set_memory(weft.SHARED)
    b_s.set_memory(weft.SHARED)

    acc.reorder_all([0, 2, 1])  # [M, N, rK]
    # each dim split by the block's tile first, then inside it (a TMA box is
    # then one range of each dim: tma_tiles)
    acc.split(0, 16 * tm * wm).split(1, 16 * tm).split(2, 16)  # [Mb, wm, tm, m16, N, rK]
    acc.split(4, 8 * tn * wn).split(5, 8 * tn).split(6, 8)  # [.., Nb, wn, tn, n8, rK]
    acc.split(8, 16 * kt).split(9, 16)  # [.., Ko, kt, k16]
    acc.reorder_all([0, 2, 6, 8, 1, 3, 7, 9, 4, 5, 10])  # [Mb, Nb, wm, wn, Ko, kt, tm, tn, m16, n8, k16]
    acc.parallelize(0, weft.BIDY).parallelize(1, weft.BIDX)
    acc.parallelize(2, weft.TIDZ).parallelize(3, weft.TIDY)
    # the fragments at kt: [.., kt | tm, m16, k16, b, b] (A), [.., kt | b, b, k16, tn, n8] (B);
    # the shared tiles at Ko; the store at the warp: [.., wn | tm, m16, tn, n8]
    weft.compute_at(xa, acc, 6)
    weft.compute_at(xb, acc, 6)
    weft.compute_at(a_s, xa, 5)
    weft.compute_at(b_s, xb, 5)
    weft.reverse_compute_at(out, acc, 4)
    for i in (8, 9, 10):
        acc.parallelize(i, weft.MMA)
    xa.parallelize(7, weft.MMA).parallelize(8, weft.MMA)
    xb.parallelize(8, weft.MMA).parallelize(10, weft.MMA)
    if ldmatrix:  # each fragment's registers in one ldmatrix
        for x in (xa, xb):
            x.set_ldst(weft.LDMATRIX).parallelize(-1, weft.VECTORIZE)
    for t in between + [out]:  # the epilogue in the accumulator's layout
        t.inline_at(4)  # reverse_compute_at inlined the tensors between deeper
        t.parallelize(5, weft.MMA).parallelize(7, weft.MMA)
    if epilogue:  # the bias read where it is added, not staged whole per thread
        weft.compute_at(bias_b, between[0], -1)
    if stages:
        tma_tiles(a_s, b_s, kt, tn, stages)
    for t in (a_s, b_s) if not stages else ():  # [.., Ko | 5 axes] -> [.., Ko, o, TIDz, TIDy, TIDx, vec]
        t.split(9, vec)
        for _ in range(4):
            t.merge(5)
        t.split(5, 32).split(5, wn).split(5, wm)
        t.parallelize(6, weft.TIDZ).parallelize(7, weft.TIDY).parallelize(8, weft.TIDX)
        if vec > 1:
            t.parallelize(9, weft.VECTORIZE)
    f.inline_most()
    # each fragment loaded once per 16 of K (inline_most put them inside the
    # other operand's tile loop), and the register tiles' loops unrolled, so
    # that their arrays have constant indices and live in registers
    xa.inline_at(6)
    xb.inline_at(6)
    for t, axes in ((acc, (5, 6, 7)), (xa, (6,)), (xb, (8,)), (out, (4, 5))):
        for i in axes:
            t.parallelize(i, weft.UNROLL)
    return f, ins, out


def tma_tiles(a_s, b_s, kt, tn, stages):
    """The shared tiles as TMA boxes, each circular-buffered over `stages` steps
    of K: A's [.., Ko | wm, tm, m16, kt, k16] as one box [rows, K step] in a
    K-step-wide swizzle; B's [.., Ko | kt, k16, wn, tn, n8] as one box
    [K step, tn x 8] per warp column (wn), in a swizzle as wide."""
    a_s.merge(5).merge(5).merge(6)  # [.., Ko, rows, K step]
    a_s.parallelize(5, weft.BULK).parallelize(6, weft.BULK)
    a_s.set_ldst(weft.TMA).tma_swizzle(32 * kt)
    b_s.reorder({7: 5, 5: 6, 6: 7})  # [.., Ko, wn, kt, k16, tn, n8]
    b_s.merge(6).merge(7)  # [.., Ko, wn, K step, tn x 8]
    b_s.parallelize(6, weft.BULK).parallelize(7, weft.BULK)
    b_s.set_ldst(weft.TMA).tma_swizzle(16 * tn)
    for t in (a_s, b_s):
        t.circular_buffer(stages)


def gemm_wgmma(m, n, k, dtype=weft.bf16, groups=2, bn=128, kt=4, stages=3, epilogue=False, out=weft.f32,
               vec=True, raster=0):
    """The same GEMM on Hopper's wgmma.m64nNk16 (sm_90a): blocks of `groups`
    warp groups (TIDy), each a 64 x bn tile of C (N = bn, up to 256, one
    instruction per 16 of K); A and B by TMA into 128-byte-swizzled shared
    tiles, circular-buffered over `stages` steps of kt x 16 along K, which
    wgmma reads directly (the operands are views: no registers). out: C's
    type (a cast in the epilogue). vec: C's two adjacent columns of each
    register pair stored by one vectorized copy. raster > 0: the column
    blocks in groups of `raster` (blockIdx.x within a group, blockIdx.y the
    row block, blockIdx.z the group), so that the blocks running at once
    cover a squarer part of C and share more of A and B in L2. Returns what
    gemm() returns."""
    f = weft.Fusion()
    a = f.input(dtype, [m, k])
    b = f.input(dtype, [k, n])
    a_s, b_s = weft.set(a), weft.set(b)
    xa = weft.broadcast(a_s, [False, False, True])  # [M, K, 1]: a view of A's tile
    xb = weft.broadcast(b_s, [True, False, False])  # [1, K, N]
    c = weft.mma(xa, xb, 1)
    copy_out = out != weft.f32 or not epilogue  # C stored by a copy (a Set), which can be vectorized
    ins, between, bias_b, out = with_epilogue(f, a, b, c, n, epilogue, out)
    acc = c if between or out is not c else c.cache_before()
    a_s.set_memory(weft.SHARED)
    b_s.set_memory(weft.SHARED)
    acc.reorder_all([0, 2, 1])  # [M, N, rK]
    acc.split(0, 64 * groups).split(1, 64)  # [Mb, g, m64, N, rK]
    acc.split(3, bn)  # [Mb, g, m64, Nb, n, rK]
    acc.split(5, 16 * kt).split(6, 16)  # [Mb, g, m64, Nb, n, Ko, kt, k16]
    acc.reorder_all([0, 2, 5, 1, 6, 3, 4, 7])  # [Mb, Nb, g, Ko, kt, m64, n, k16]
    if raster:  # [Mb, Nb / raster, raster, g, ...]
        acc.split(1, raster).parallelize(1, weft.BIDZ).parallelize(2, weft.BIDX)
    else:
        acc.parallelize(1, weft.BIDX)
    acc.parallelize(0, weft.BIDY)
    d = -1 if raster else 0  # where the axes after the blocks moved
    acc.parallelize(2 - d, weft.TIDY)
    weft.compute_at(xa, acc, 5 - d)
    weft.compute_at(xb, acc, 5 - d)
    weft.compute_at(a_s, xa, 4 - d)  # [.., Ko | g, m64, kt, k16]
    weft.compute_at(b_s, xb, 4 - d)  # [.., Ko | kt, k16, n]
    weft.reverse_compute_at(out, acc, 3 - d)  # [blocks, g | m64, n]
    a_s.merge(4 - d).merge(5 - d)  # [.., Ko, rows, K step]: one box
    a_s.parallelize(4 - d, weft.BULK).parallelize(5 - d, weft.BULK)
    a_s.set_ldst(weft.TMA).tma_swizzle(128)
    b_s.merge(4 - d)  # [.., Ko, K step, n]
    b_s.split(5 - d, 64).reorder({4 - d: 5 - d, 5 - d: 4 - d})  # [.., Ko, n / 64, K step, 64]: 128-byte boxes
    b_s.parallelize(5 - d, weft.BULK).parallelize(6 - d, weft.BULK)
    b_s.set_ldst(weft.TMA).tma_swizzle(128)
    for t in (a_s, b_s):
        t.circular_buffer(stages)
    for i in (5, 6, 7):  # wgmma: [.., kt, lane{128} TIDx, e{bn / 2} MMA, k{16} MMA]
        acc.parallelize(i - d, weft.MMA)
    acc.parallelize(4 - d, weft.UNROLL)  # the kt instructions of a step back to back
    for t in between + [out]:  # the epilogue in the accumulator's layout: [.., lane, e, pair]
        t.inline_at(3 - d)
        t.parallelize(3 - d, weft.MMA).parallelize(4 - d, weft.MMA)
    if vec and copy_out and n % 2 == 0:
        out.parallelize(out.ndim - 1, weft.VECTORIZE).inline_at(out.ndim - 1)
    if epilogue:  # the bias read where it is added, not staged whole per thread
        weft.compute_at(bias_b, between[0], -1)
    f.inline_most()
    if epilogue and vec and copy_out and n % 2 == 0:
        # the whole tile computed before the stores (after inline_most, which would
        # inline it again): the bias loads then do not wait for stores that may alias them
        between[-1].inline_at(3 - d)
    return f, ins, out


def reference(a, b, bias=None):
    """float64 A B (+ bias, relu) of float32 arrays."""
    c = a.astype(np.float64) @ b.astype(np.float64)
    if bias is not None:
        c = np.maximum(c + bias.astype(np.float64), 0)
    return c


def exact_on_executor(what, kern, m, n, k, epi, rng):
    """Runs an f16 kernel on integer-valued data on the CPU executor; prints
    and returns whether it equals the float64 reference."""
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    bias = rng.integers(-20, 20, n).astype(np.float32) if epi else None
    out = np.asarray(kern.run(a, b, bias) if epi else kern.run(a, b))
    ok = np.array_equal(out, reference(a, b, bias).astype(np.float32))
    print("CPU executor%s %d x %d x %d%s: %s" % (what, m, n, k, " + bias + relu" if epi else "",
                                                 "exact" if ok else "WRONG"))
    return ok


def main():
    bad = 0
    rng = np.random.default_rng(1)
    for (m, n, k), epi in (((128, 128, 64), False), ((100, 70, 50), True)):
        vec = 8 if m % 8 == 0 and n % 8 == 0 and k % 8 == 0 else 1
        f, _, _ = gemm(m, n, k, weft.f16, warps=(2, 2), frags=(2, 2), kt=2, vec=vec, epilogue=epi)
        bad |= not exact_on_executor("", f.compile(), m, n, k, epi, rng)
    for (m, n, k), epi in (((256, 256, 128), False), ((200, 136, 104), True)):
        f, _, _ = gemm_wgmma(m, n, k, weft.f16, groups=2, bn=128, kt=4, stages=2, epilogue=epi)
        bad |= not exact_on_executor(", wgmma,", f.compile(), m, n, k, epi, rng)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available() or not weft.cuda_available():
        print("GPU: skipped (needs PyTorch with CUDA and a device weft can use)")
        return bad
    s = 2048
    f, _, _ = gemm(s, s, s)
    kern = f.compile()
    a = torch.randn(s, s, dtype=torch.bfloat16, device="cuda")
    b = torch.randn(s, s, dtype=torch.bfloat16, device="cuda")
    c = kern.run(a, b)
    want = a.float() @ b.float()
    err = ((c - want).abs().max() / want.abs().max()).item()
    print("GPU %d^3 bf16: max error %.2e of the largest |C|" % (s, err))
    f, _, _ = gemm_wgmma(s, s, s)
    c = f.compile().run(a, b)
    err2 = ((c - want).abs().max() / want.abs().max()).item()
    print("GPU %d^3 bf16, wgmma: max error %.2e of the largest |C|" % (s, err2))
    return bad | (err > 1e-3) | (err2 > 1e-3)


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
