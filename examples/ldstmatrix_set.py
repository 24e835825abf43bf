"""ldstmatrix_set.py -- seed 002's LdStMatrixSet example in Python (the same as
examples/ldstmatrix_set.c): a bf16 copy

    T0 (global) -> T2 (shared): TMA load, 64 x 64 boxes, 128-byte swizzle
                -> T3 (registers): ldmatrix.x4, the wgmma accumulator layout
                -> T4 (shared): stmatrix.x4 into TMA's 128-byte swizzle
                -> T1 (global, the output): TMA store

with the loop domains of T3 and T4 set from abstract tensors
(weft.AbstractTensor) that follow the seed's scheduleLdStMatrix. Prints the
ldmatrix / stmatrix instructions, runs the copy on the CPU executor at
512 x 512 and checks it bit for bit (with the executor's bank-conflict
count), and, with PyTorch and a GPU, at 8192 x 8192 on torch CUDA tensors.

Run from the repository root after `make`: python3 examples/ldstmatrix_set.py
(python/tests/test_ldstmatrix.py and bench/ldstmatrix.py import
ldstmatrix_set() from here).
"""

import os
import re
import sys

import numpy as np

try:
    import weft
except ImportError:  # run from a source tree: the package is in python/
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import weft

SWAP = {-2: -3, -3: -2}  # exchange axes -2 and -3


def schedule_ldst_matrix(t, box):
    """scheduleLdStMatrix: t's loop domain [.., warp_m{64}, warp_n{256}] as
    [.., (no * nio){16}, (mo * mii * niiio){128}, (niio * mio * niiii){8}]:
    128 threads, each holding 8 elements of the wgmma accumulator layout."""
    at = t.abstract().split(-1, box).reorder(SWAP)  # by the TMA box: [.., no, m, ni]
    at.split(-2, 16).split(-1, 16).reorder(SWAP)  # 16 x 16 tiles: [.., no, mo, nio, mi, nii]
    at.split(-2, 8).split(-1, 8).split(-1, 2)  # [.., mio, mii, niio, niiio, niiii]
    at.reorder({-5: -2, -4: -5, -2: -4})  # the wgmma order: [.., mii, niiio, niio, mio, niiii]
    at.merge(-2, -1).merge(-2, -1)  # [.., mii, niiio, 8]
    at.reorder({-5: -4, -4: -5}).merge(-4, -3).merge(-3, -2).merge(-4, -3)
    return at


def ldstmatrix_set(m, n, swizzle=128, cta=(128, 256), warp=(64, 256), matrix=True, per=1, stages=1,
                   n_first=False):
    """The fusion and its tensors (in, out, smem_in, regs, smem_out).
    matrix=False: plain copies instead of ldmatrix / stmatrix (their 8
    elements per thread are then a serial loop: not adjacent in shared memory).
    per > 1: each block copies `per` CTA tiles along M in a serial loop, and
    stages > 1 circular-buffers the TMA load over it (the next tiles' loads in
    flight while one is shuffled and stored; needs cta[0] == warp[0], as the
    load is issued by one thread). n_first: blockIdx.x runs along N and
    blockIdx.y along M (the seed's is the other way round), so that blocks
    launched together read neighbouring columns of the same rows."""
    box = swizzle // 2  # the TMA box is as wide as the swizzle
    f = weft.Fusion()
    x = f.input(weft.bf16, [m, n])
    out = weft.set(x)
    f.output(out)
    smem_in = x.cache_after().set_memory(weft.SHARED).set_ldst(weft.TMA)
    regs = smem_in.cache_after()
    smem_out = out.cache_before().set_memory(weft.SHARED)
    if matrix:
        regs.set_ldst(weft.LDMATRIX)
        smem_out.set_ldst(weft.STMATRIX)
    out.set_ldst(weft.TMA)

    # [GM (BIDx), GN (BIDy), cta_m / warp_m (TIDy), cta_n / warp_n, warp_m, warp_n]
    out.split(0, cta[0]).split(-1, cta[1]).reorder(SWAP)
    out.split(-2, warp[0]).split(-1, warp[1]).reorder(SWAP)
    tidy = 2
    if per > 1:  # [GM / per (BIDx), GN (BIDy), per (serial), cta_m / warp_m, ..]
        out.split(0, per).reorder({1: 2, 2: 1})
        tidy = 3
    out.propagate_transforms()
    out.parallelize(0, weft.BIDY if n_first else weft.BIDX).parallelize(1, weft.BIDX if n_first else weft.BIDY)
    if cta[0] > warp[0] or per <= 1:
        out.parallelize(tidy, weft.TIDY)
    out.parallelize_all_like()

    # the TMA sides: boxes [warp_m, box] on BULK, swizzled in shared memory
    for t in (smem_in, out):
        t.split(-1, box).reorder(SWAP).parallelize(-2, weft.BULK).parallelize(-1, weft.BULK)
    smem_in.tma_swizzle(swizzle)
    # the stmatrix tile's allocation: the TMA store's boxes in the swizzle
    # pattern [.., m / 8, s, 8 / s, s, 16 bytes], the two s axes XORed
    s = swizzle // 16
    alloc = smem_out.abstract().split(-1, box).reorder(SWAP)
    alloc.split(-1, 8).split(-3, 8 // s).split(-4, s).swizzle(-4, -2)
    smem_out.set_allocation_domain(alloc)

    inner = weft.VECTORIZE if matrix else weft.SERIAL
    smem_out.set_loop_domain(schedule_ldst_matrix(smem_out, box))
    smem_out.parallelize(-2, weft.TIDX).parallelize(-1, inner)
    at = schedule_ldst_matrix(regs, box)  # built independently: it maps to smem_out's
    regs.set_loop_domain(at)
    regs.set_allocation_domain(at)
    regs.parallelize(-2, weft.TIDX).parallelize(-1, inner)
    f.inline_most()
    if per > 1 and stages > 1:  # the load at the tile loop, `stages` ahead
        smem_in.inline_at(3)
        smem_in.circular_buffer(stages)
    return f, (x, out, smem_in, regs, smem_out)


def random_bf16(shape, seed=2):
    """Finite random bf16 values (the top halves of float32s), as weft's numpy
    dtype for bf16, and their bits."""
    rng = np.random.default_rng(seed)
    bits = (rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return bits.view(weft.numpy_dtype(weft.bf16)), bits


def matrix_instructions(source):
    """The PTX templates of the kernel's ldmatrix / stmatrix asm statements."""
    return re.findall(r'asm volatile\("((?:ldmatrix|stmatrix)[^"]*)"', source)


def main():
    f, _ = ldstmatrix_set(512, 512)
    k = f.compile()
    print("512 x 512: grid %s, block %s, %d bytes of shared memory; the matrix instructions:"
          % (k.launch.grid[:2], k.launch.block[:2], k.launch.smem))
    for line in matrix_instructions(k.source):
        print("  " + line)
    bad = 0
    for m, n in ((512, 512), (320, 200)):  # 320 x 200: partial tiles
        f, _ = ldstmatrix_set(m, n)
        k = f.compile()
        x, bits = random_bf16((m, n))
        y = np.asarray(k.run(x)).view(np.uint16)
        exact = np.array_equal(y, bits)
        st = k.stats
        print("CPU executor %d x %d: %s; shared memory: %d accesses in %d wavefronts, worst bank "
              "conflict %d-way" % (m, n, "bit-exact" if exact else "WRONG", st.smem_accesses,
                                   st.smem_wavefronts, st.smem_max_conflict_degree))
        bad |= not exact
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available() or not weft.cuda_available():
        print("GPU: skipped (needs PyTorch with CUDA and a device weft can use)")
        return bad
    f, _ = ldstmatrix_set(8192, 8192)
    k = f.compile()
    x = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    y = k.run(x)  # on the torch tensors, in place: no copies
    torch.cuda.synchronize()
    exact = torch.equal(y.view(torch.int16), x.view(torch.int16))
    print("GPU 8192 x 8192: %s" % ("bit-exact" if exact else "WRONG"))
    return bad | (not exact)


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
