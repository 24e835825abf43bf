"""Spatial TensorIR programs built by weft.build and run through weft.nd on
weft.cpu() (the executor runs the generated CUDA kernel thread by thread),
checked against numpy; the source is also compiled with NVRTC where present."""

import numpy as np
import pytest
import weft
from weft import tir
from weft.script import tir as T


@T.prim_func
def add_relu(
    A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32"), C: T.Buffer((64, 32), "float32")
):
    with T.block("root"):
        D = T.alloc_buffer((64, 32))
        for i, j in T.grid(64, 32):
            with T.block("D"):
                vi, vj = T.axis.remap("SS", [i, j])
                D[vi, vj] = A[vi, vj] + B[vi, vj] * T.float32(2)
        for i, j in T.grid(64, 32):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(D[vi, vj], T.float32(0))


class Holder:
    @T.prim_func
    def chain(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
        with T.block("root"):
            X = T.alloc_buffer((128,))
            for i in range(128):
                with T.block("X"):
                    vi = T.axis.spatial(128, i)
                    X[vi] = A[vi] * B[vi]
            for i in range(128):
                with T.block("C"):
                    vi = T.axis.spatial(128, i)
                    C[vi] = T.exp(X[vi]) + A[vi]


@T.prim_func
def copy(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]


def nvrtc(mod):
    if weft.system_info().nvrtc_found:
        mod.check_nvrtc(90)


def test_decorated_functions_parse():
    assert isinstance(add_relu, tir.PrimFunc) and add_relu.name == "add_relu"
    assert Holder.chain.name == "chain"  # indented source (a method) is dedented
    assert copy.script().splitlines()[3] == (
        'def main(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):'
    )


def test_copy_fuse_split_bind_vectorize_runs():
    sch = tir.Schedule(copy)
    i, j = sch.get_loops(sch.get_block("B"))
    f = sch.fuse(i, j)
    l0, l1, l2, l3 = sch.split(f, factors=[4, 2, None, 4])
    assert [type(x) for x in (l0, l1, l2, l3)] == [tir.LoopRV] * 4
    sch.bind(l0, "blockIdx.x")
    sch.unroll(l1)
    sch.bind(l2, "threadIdx.x")
    sch.vectorize(l3)
    mod = weft.build(sch.mod, target="cuda")
    assert [(p.name, p.shape, p.written) for p in mod.params] == [
        ("A", (64, 32), False),
        ("B", (64, 32), True),
    ]
    assert mod.launch.grid == (4, 1, 1) and mod.launch.block == (64, 1, 1)
    src = mod.imported_modules[0].get_source()
    assert "__global__" in src and "#pragma unroll" in src and "wf_vec_copy<float, 4>" in src
    a_np = np.random.rand(64, 32).astype("float32")
    dev = weft.cpu()
    a = weft.nd.array(a_np, device=dev)
    b = weft.nd.empty((64, 32), "float32", device=dev)
    mod(a, b)
    np.testing.assert_array_equal(b.numpy(), a_np)
    nvrtc(mod)


def test_chain_inline_bind_runs():
    sch = tir.Schedule(Holder.chain)
    sch.compute_inline(sch.get_block("X"))
    (i,) = sch.get_loops(sch.get_block("C"))
    o, t = sch.split(i, factors=[None, 32])
    sch.bind(o, "blockIdx.x")
    sch.bind(t, "threadIdx.x")
    mod = weft.build(sch.mod, target="cuda")
    assert mod.launch.grid == (4, 1, 1) and mod.launch.block == (32, 1, 1)
    a_np = np.random.rand(128).astype("float32")
    b_np = np.random.rand(128).astype("float32")
    a, b = weft.nd.array(a_np), weft.nd.array(b_np)
    c = weft.nd.empty((128,), "float32")
    assert c.device == weft.cpu()
    mod(a, b, c)
    np.testing.assert_allclose(c.numpy(), np.exp(a_np * b_np) + a_np, rtol=1e-6)
    nvrtc(mod)


def test_add_relu_runs_or_is_refused_by_name():
    """add_relu multiplies by the constant T.float32(2): run it where the
    library builds scalar constants, else its refusal must say so exactly."""
    sch = tir.Schedule(add_relu)
    sch.compute_inline(sch.get_block("D"))
    i, j = sch.get_loops(sch.get_block("C"))
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    try:
        mod = weft.build(sch.mod, target="cuda")
    except weft.UnsupportedError as e:
        assert str(e).startswith("build: not supported yet: T.float32(2.0) in block")
        assert "no scalar constants" in str(e)
        return
    a_np = np.random.randn(64, 32).astype("float32")
    b_np = np.random.randn(64, 32).astype("float32")
    c = weft.nd.empty((64, 32), "float32")
    mod(weft.nd.array(a_np), weft.nd.array(b_np), c)
    np.testing.assert_allclose(c.numpy(), np.maximum(a_np + b_np * 2, 0), rtol=1e-6)


def test_mod_snapshot_builds_the_program_of_its_moment():
    """sch.mod taken before more scheduling builds that earlier program."""
    sch = tir.Schedule(copy)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    early = sch.mod
    text = early.script()
    jo, ji = sch.split(j, factors=[None, 4])  # the schedule moves on
    sch.bind(ji, "threadIdx.x")
    assert sch.mod.script() != text and early.script() == text
    mod = weft.build(early, target="cuda")
    assert mod.launch.block == (32, 1, 1)
    assert weft.build(sch.mod, target="cuda").launch.block == (4, 1, 1)
    a_np = np.arange(64 * 32, dtype="float32").reshape(64, 32)
    b = weft.nd.empty((64, 32), "float32")
    mod(weft.nd.array(a_np), b)
    np.testing.assert_array_equal(b.numpy(), a_np)


def test_nd_arrays():
    a = weft.nd.array(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert a.shape == (2, 3) and a.dtype == "int32" and a.device == weft.cpu()
    assert repr(weft.cpu()) == "cpu(0)" and repr(weft.cuda()) == "cuda(0)"
    np.testing.assert_array_equal(a.numpy(), [[0, 1, 2], [3, 4, 5]])
    e = weft.nd.empty(4, "float64")
    assert e.shape == (4,) and e.dtype == "float64"
    e.copyfrom([1, 2, 3, 4])
    np.testing.assert_array_equal(e.numpy(), [1.0, 2.0, 3.0, 4.0])
    assert weft.cpu().exist
    assert weft.cuda().exist == weft.cuda_available()


def test_system_info_and_cache_clear(tmp_path, monkeypatch):
    monkeypatch.setenv("WF_CACHE_DIR", str(tmp_path))
    info = weft.system_info()
    assert info.cache_enabled and info.cache_dir == str(tmp_path)
    assert info.cache_entries == 0 and info.cache_bytes == 0
    assert set(info.as_dict()) >= {"nvrtc_found", "driver_found", "device_found", "device_name"}
    assert info.nvrtc_found == bool(info.nvrtc_path) and (info.nvrtc_found or info.nvrtc_error)
    assert weft.cache_clear() == (0, 0)


def test_copy_runs_on_cuda():
    """The same module on weft.cuda() arrays (the GPU); unverified where no GPU is."""
    if not weft.cuda().exist:
        pytest.skip("no CUDA device here (weft.cuda().exist is False)")
    sch = tir.Schedule(copy)
    i, j = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    sch.bind(j, "threadIdx.x")
    mod = weft.build(sch.mod, target="cuda")
    a_np = np.random.rand(64, 32).astype("float32")
    a = weft.nd.array(a_np, device=weft.cuda())
    b = weft.nd.empty((64, 32), "float32", device=weft.cuda())
    mod(a, b)
    np.testing.assert_array_equal(b.numpy(), a_np)
    with pytest.raises(weft.ArgumentError, match="different devices"):
        mod(weft.nd.array(a_np), b)


def test_module_views():
    sch = tir.Schedule(copy)
    main = sch.mod["main"]
    assert isinstance(main, tir.PrimFunc) and main.name == "copy" and main.script() == sch.mod.script()
    assert tir.Schedule(sch.mod).func_name == "copy"
    with pytest.raises(KeyError):
        sch.mod["other"]
    (i, j) = sch.get_loops(sch.get_block("B"))
    sch.bind(i, "blockIdx.x")
    assert str(sch.trace).endswith('  sch.bind(loop=l1, thread_axis="blockIdx.x")\n')
    assert repr(sch.trace) == str(sch.trace)
