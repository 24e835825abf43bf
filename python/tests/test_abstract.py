"""Abstract tensors from Python (weft.AbstractTensor, wf_abstract_*):
IterDomains transformed like a loop domain but attached to no tensor, then
given to Tensor.set_loop_domain / set_allocation_domain. The seed 002
LdStMatrixSet schedule (with plain copies for ldmatrix / stmatrix) builds
the loop domains of its register and shared tensors this way; it runs
bit-exact on the CPU executor."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(22)


def test_abstract_tensor_transforms_and_sets_a_loop_domain():
    f = weft.Fusion()
    a = f.input(weft.f32, [64, 128])
    mid = weft.set(a)
    out = weft.set(mid)
    f.output(out)
    at = mid.abstract()
    assert isinstance(at, weft.AbstractTensor)
    at.split(-1, 32).reorder({0: -1}).merge(2, 0)
    assert [i.extent for i in at.ids] == [256, 32]
    assert len(at) == 2 and at.ndim == 2
    assert mid.ndim == 2  # the tensor is untouched until set
    mid.set_loop_domain(at)
    assert mid.loop_domain == at.ids
    k = f.compile()
    x = rng.standard_normal((64, 128)).astype(np.float32)
    np.testing.assert_array_equal(k.run(x), x)


def test_abstract_tensor_from_iterdomains_and_errors():
    f = weft.Fusion()
    a = f.input(weft.f32, [64, 128])
    mid = weft.set(a)
    f.output(weft.set(mid))
    at = weft.AbstractTensor(f, mid.logical_domain)
    assert repr(at) == "<weft.AbstractTensor extents=[64, 128]>"
    msg = r"^A0\.split: axis 2 is out of range; A0 has 2 axes$"
    with pytest.raises(weft.ArgumentError, match=msg):
        at.split(2, 4)
    with pytest.raises(weft.ArgumentError, match=r"factor=0\): the factor must be positive"):
        at.split(0, 0)
    with pytest.raises(weft.ArgumentError, match="cannot merge axis 1 with itself"):
        at.merge(1, -1)
    with pytest.raises(weft.ScheduleError, match="but they are 128 and 32$"):
        at.split(0, 2).swizzle(2, 0)
    at.swizzle(1, 0)  # the fusion stays usable after an error
    assert [i.extent for i in at.ids] == [32, 2, 128]
    with pytest.raises(weft.ArgumentError, match="needs the IterDomains"):
        weft.AbstractTensor(f)
    g = weft.Fusion()
    with pytest.raises(weft.ArgumentError, match="another fusion"):
        g.input(weft.f32, [4]).set_loop_domain(at)


def ldstmatrix_set(m, n, swizzle=128, cta=(128, 256), warp=(64, 256)):
    """Seed 002's LdStMatrixSet with plain copies: TMA load into swizzled
    shared memory, registers, a swizzled shared tile, TMA store; the register
    and shared tiles' loop domains from scheduleLdStMatrix's abstract tensor."""
    box = swizzle // 2
    f = weft.Fusion()
    a = f.input(weft.bf16, [m, n])
    out = weft.set(a)
    f.output(out)
    s0 = a.cache_after().set_memory(weft.SHARED).set_ldst(weft.TMA)
    r = s0.cache_after()
    s1 = out.cache_before().set_memory(weft.SHARED)
    out.set_ldst(weft.TMA)
    swap = {-2: -3, -3: -2}
    out.split(0, cta[0]).split(-1, cta[1]).reorder(swap)
    out.split(-2, warp[0]).split(-1, warp[1]).reorder(swap)
    out.propagate_transforms()
    out.parallelize(0, weft.BIDX).parallelize(1, weft.BIDY).parallelize(2, weft.TIDY)
    out.parallelize_all_like()
    for t in (s0, out):
        t.split(-1, box).reorder(swap).parallelize(-2, weft.BULK).parallelize(-1, weft.BULK)
    s0.tma_swizzle(swizzle)
    # the stmatrix tile's allocation: TMA boxes in the swizzle pattern, on an abstract tensor
    s = swizzle // 16
    alloc = s1.abstract().split(-1, box).reorder(swap)
    alloc.split(-1, 8).split(-3, 8 // s).split(-4, s).swizzle(-4, -2)
    s1.set_allocation_domain(alloc)

    def schedule_ldst_matrix(t):
        at = t.abstract().split(-1, box).reorder(swap)
        at.split(-2, 16).split(-1, 16).reorder(swap)
        at.split(-2, 8).split(-1, 8).split(-1, 2)
        at.reorder({-5: -2, -4: -5, -2: -4}).merge(-2, -1).merge(-2, -1)
        at.reorder({-5: -4, -4: -5}).merge(-4, -3).merge(-3, -2).merge(-4, -3)
        return at

    s1.set_loop_domain(schedule_ldst_matrix(s1))
    s1.parallelize(-2, weft.TIDX)
    at = schedule_ldst_matrix(r)
    r.set_loop_domain(at)
    r.set_allocation_domain(at)
    r.parallelize(-2, weft.TIDX)
    f.inline_most()
    return f, r


@pytest.mark.parametrize("m,n,swizzle", [(512, 512, 128), (320, 200, 128), (256, 256, 64)])
def test_ldstmatrix_set_schedule_is_exact(m, n, swizzle):
    f, r = ldstmatrix_set(m, n, swizzle)
    assert r.compute_at == 7  # the two abstract loop domains map: fully inlined
    k = f.compile()
    # finite bf16 values (the top halves of float32s)
    bits = (rng.standard_normal((m, n)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    x = bits.view(weft.core._NP[weft.bf16]) if hasattr(weft.core, "_NP") else bits
    y = k.run(x)
    np.testing.assert_array_equal(np.asarray(y).view(np.uint16), bits)
    assert [(t.kind, t.swizzle) for t in k.tma] == [("load", swizzle), ("store", swizzle)]
