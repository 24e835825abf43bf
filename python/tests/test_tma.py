"""TMA (seed 001) from Python: the copy kind (weft.TMA), the tensor maps a
kernel issues (Kernel.tma, wf_kernel_tma), the swizzle layout
(Tensor.tma_swizzle) and circular buffering (Tensor.circular_buffer), on the
CPU executor, which moves TMA's boxes as the hardware does. The seed's
worked examples 1 (pointwise add with TMA loads) and 3 (transpose through
128-byte-swizzled tiles) run here on random data; test_gpu_seeds.py runs
them on the GPU with PyTorch CUDA tensors."""

import numpy as np
import pytest

import weft

rng = np.random.default_rng(13)


def pointwise_add(m, n):
    """Seed 001, example 1: T2 = T0 + T1, each input TMA-loaded into shared
    memory in boxes of 256 along the flattened tensor, the sum stored with
    4-wide vector stores."""
    f = weft.Fusion()
    a, b = f.input(weft.f32, [m, n]), f.input(weft.f32, [m, n])
    out = a + b
    f.output(out)
    sa, sb, r = a.cache_after(), b.cache_after(), out.cache_before()
    for s in (sa, sb):
        s.set_memory(weft.SHARED).set_ldst(weft.TMA)
        s.merge(0).split(0, 256).parallelize(0, weft.BIDX).parallelize(1, weft.BULK)
    for t in (r, out):
        t.merge(0).split(0, 256).split(1, 4).parallelize(0, weft.BIDX).parallelize(1, weft.TIDX)
    out.parallelize(2, weft.VECTORIZE)
    f.inline_most()
    return f, (sa, sb)


def transpose(n, swizzle):
    """Seed 001, example 3: TMA load into tile S0, a column per thread into
    registers, 16-byte chunks into tile S1, TMA store."""
    f = weft.Fusion()
    a = f.input(weft.f32, [n, n])
    b = weft.transpose(a, 0, 1)
    f.output(b)
    s0 = a.cache_after()
    s1 = b.cache_before()
    r = s1.cache_before()
    s0.set_memory(weft.SHARED).set_ldst(weft.TMA)
    s1.set_memory(weft.SHARED)
    b.set_ldst(weft.TMA)
    for i, t in enumerate([s0, r, s1, b]):
        t.split(1, 32).split(0, 32).reorder_all([0, 2, 1, 3])
        t.parallelize(0, weft.BIDY if i == 0 else weft.BIDX)
        t.parallelize(1, weft.BIDX if i == 0 else weft.BIDY)
    for t in (s0, b):
        t.parallelize(2, weft.BULK).parallelize(3, weft.BULK)
    if swizzle:
        s0.tma_swizzle(128)
        s1.tma_swizzle(128)
    else:
        s1.set_allocation_domain(s1.loop_domain)
    for t in (r, s1):
        t.split(3, 4).parallelize(2, weft.TIDX).parallelize(3, weft.TIDY)
    s1.parallelize(4, weft.VECTORIZE)
    f.inline_most()
    return f, s0


def test_pointwise_add_tensor_maps_and_result():
    f, smem = pointwise_add(64, 512)
    k = f.compile()
    maps = k.tma
    assert len(maps) == 2
    for m, s in zip(maps, smem):
        assert isinstance(m, weft.TmaMap)
        assert (m.kind, m.rank, m.dtype) == ("load", 1, weft.f32)
        assert (m.global_dims, m.box, m.global_strides) == ([64 * 512], [256], [4])
        assert (m.element_strides, m.swizzle) == ([1], 0)
        assert m.shared_tensor == s.name
    assert [m.global_tensor for m in maps] == [0, 1]
    assert "TmaMap(load T0 -> T3, dims=[32768], box=[256], strides=[4], swizzle=0)" == repr(maps[0])
    x, y = rng.standard_normal((2, 64, 512)).astype(np.float32)
    np.testing.assert_array_equal(k.run(x, y), x + y)


@pytest.mark.parametrize("swizzle,wavefronts,degree", [(False, 4608, 8), (True, 1024, 1)])
def test_transpose_swizzle_and_bank_conflicts(swizzle, wavefronts, degree):
    k = transpose(128, swizzle)[0].compile()
    load, store = k.tma
    assert (load.kind, store.kind) == ("load", "store")
    assert load.swizzle == store.swizzle == (128 if swizzle else 0)
    assert load.box == store.box == [32, 32]
    assert load.global_strides == [512, 4]
    x = rng.standard_normal((128, 128)).astype(np.float32)
    np.testing.assert_array_equal(k.run(x), x.T)
    st = k.stats
    assert (st.smem_accesses, st.smem_wavefronts, st.smem_max_conflict_degree) == (
        640,
        wavefronts,
        degree,
    )


def test_kernel_without_tma_has_no_maps():
    f = weft.Fusion()
    a = f.input(weft.f32, [8])
    f.output(weft.set(a))
    assert f.compile().tma == []


def test_tma_maps_outlive_the_fusion_but_not_the_kernel():
    f, _ = pointwise_add(8, 256)
    k = f.compile()
    f.free()
    assert k.tma[1].global_tensor == 1
    k.free()
    with pytest.raises(weft.UseAfterFree, match="this kernel has been freed"):
        k.tma


def test_tma_swizzle_refuses_a_row_of_the_wrong_width():
    f, (sa, _) = pointwise_add(8, 256)
    with pytest.raises(weft.ArgumentError) as e:
        sa.tma_swizzle(128)
    assert str(e.value) == (
        "T3.tma_swizzle: the innermost axes iblockIdx.x13{8} x iBulk14{256} must be rows (a "
        "multiple of 8) of exactly 128 bytes (32 elements of float) for a 128-byte swizzle"
    )
    with pytest.raises(weft.ArgumentError) as e:
        f.outputs[0].tma_swizzle(128)
    assert str(e.value) == "T2.tma_swizzle: needs a shared-memory tensor with at least two axes"
    _, s0 = transpose(64, False)
    assert s0.name == 2
    with pytest.raises(weft.ArgumentError) as e:
        s0.tma_swizzle(64)
    assert str(e.value) == (
        "T2.tma_swizzle: the innermost axes iBulk13{32} x iBulk11{32} must be rows (a multiple of "
        "8) of exactly 64 bytes (16 elements of float) for a 64-byte swizzle"
    )
    with pytest.raises(weft.ArgumentError, match="T2.tma_swizzle: 48 bytes; TMA swizzles 32, 64 or 128"):
        s0.tma_swizzle(48)


def test_circular_buffer_checks_its_tensor_and_its_loop():
    f, (sa, _) = pointwise_add(8, 256)
    out = f.outputs[0]
    with pytest.raises(weft.ArgumentError) as e:
        out.circular_buffer(2)
    assert str(e.value) == (
        "T2.circular_buffer: only a shared-memory tensor loaded by TMA is circular buffered, "
        "but T2 is in global memory"
    )
    with pytest.raises(weft.ArgumentError, match=r"T3.circular_buffer: 0 stages; give at least 1"):
        sa.circular_buffer(0)
    assert sa.circular_buffer(1) is sa  # one stage: no circular buffering, compiles
    f.compile()
    sa.circular_buffer(3)  # pipelines the loop sa is inlined at: here a block loop
    with pytest.raises(weft.ScheduleError) as e:
        f.compile()
    assert str(e.value) == (
        "T3: circular buffering (3 stages) pipelines the serial loop at T3's inline position, "
        "but that loop, iblockIdx.x13{8}, is not serial; inline T3 into its consumer at a "
        "serial loop"
    )


def test_bulk_on_a_copy_that_is_not_tma_is_a_schedule_error():
    f = weft.Fusion()
    a = f.input(weft.f32, [4, 32])
    s = weft.set(a).set_memory(weft.SHARED)
    f.output(weft.set(s))
    s.parallelize(1, weft.BULK)
    with pytest.raises(weft.ScheduleError, match=r"T1: axis 1 is parallelized on Bulk, but T1 is not defined by a TMA copy"):
        f.compile()
