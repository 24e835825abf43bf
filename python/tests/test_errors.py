"""Every error path of the Python API: library errors become the weft.Error
subclass of their status with the library's message, the fusion stays usable
after one, freed handles raise, bad arrays are refused before calling C."""

import gc

import numpy as np
import pytest

import weft


def copy_fusion(shape=(4, 8), dtype=weft.f32):
    f = weft.Fusion()
    a = f.input(dtype, list(shape))
    b = weft.set(a)
    f.output(b)
    return f, a, b


def test_hierarchy():
    for cls in (weft.ArgumentError, weft.ScheduleError, weft.CompileError, weft.CudaError,
                weft.UnsupportedError, weft.OutOfMemory, weft.UseAfterFree):
        assert issubclass(cls, weft.Error)
    assert issubclass(weft.OutOfMemory, MemoryError)
    assert issubclass(weft.ArgumentError, ValueError)
    assert issubclass(weft.UseAfterFree, weft.ArgumentError)
    assert weft.ScheduleError.status == "WF_ERR_SCHEDULE"


def test_argument_error_carries_the_message_and_is_cleared():
    f, a, b = copy_fusion()
    with pytest.raises(weft.ArgumentError) as e:
        b.split(5, 2)
    assert str(e.value) == "T1.split: axis 5 is out of range; T1 has 2 loop axes"
    with pytest.raises(weft.ArgumentError, match=r"T1.split\(axis=0, factor=0\): the factor must be positive"):
        b.split(0, 0)
    # the sticky error was cleared: the fusion goes on working
    b.split(1, 4)
    assert [d.extent for d in b.loop_domain] == [4, 2, 4]
    k = f.compile()
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    np.testing.assert_array_equal(k.run(x), x)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda f, a, b: b.parallelize(7, weft.TIDX),
         "T1.parallelize: axis 7 is out of range; T1 has 2 loop axes"),
        (lambda f, a, b: b.inline_at(7),
         "T1.inline_at: position 7 is out of range; T1 has 2 loop axes, so positions are 0..2"),
        (lambda f, a, b: b.set_tmem_dimsep(1),
         "T1.set_tmem_dimsep: the dim separator is only for tensors in tensor memory"),
        (lambda f, a, b: weft.transpose(a, 0, 5), "transpose(T0): dims 0 and 5 are not both in 0..1"),
        (lambda f, a, b: weft.permute(a, [0, 0]),
         "permute(T0): new2old is not a permutation of 0..1 (entry 1 is 0)"),
        (lambda f, a, b: f.input(weft.f32, [1] * 9), "wf_input: rank 9 is not in 0..8"),
        (lambda f, a, b: b.set_loop_domain(a.loop_domain),
         "T1.set_loop_domain: axis 0 is not an IterDomain of T1"),
        (lambda f, a, b: b.set_allocation_domain([a.axis(0)], True),
         "T1.set_allocation_domain: axis 0 is not an IterDomain of T1"),
    ],
)
def test_library_argument_errors(call, message):
    f, a, b = copy_fusion()
    with pytest.raises(weft.ArgumentError) as e:
        call(f, a, b)
    assert str(e.value).startswith(message)
    assert f.math_string()  # still usable


def test_python_side_argument_errors():
    f, a, b = copy_fusion()
    with pytest.raises(weft.ArgumentError, match="reorder_all of T1: 1 positions given for 2 axes"):
        b.reorder_all([0])
    with pytest.raises(weft.ArgumentError, match="permute of T0: 3 entries for 2 dims"):
        weft.permute(a, [0, 1, 2])
    with pytest.raises(weft.ArgumentError, match="contiguity has 1 entries but shape has 2 dims"):
        f.input_strided(weft.f32, [4, 4], [True])
    with pytest.raises(TypeError, match="expected a weft.Tensor, got int"):
        weft.exp(3)


def test_handles_of_another_fusion_are_refused():
    f, a, b = copy_fusion()
    g, c, d = copy_fusion()
    with pytest.raises(weft.ArgumentError, match="T0 and T0 belong to different fusions"):
        a + c
    with pytest.raises(weft.ArgumentError, match="T0 belongs to another fusion"):
        g.output(a)
    with pytest.raises(weft.ArgumentError, match="an IterDomain belongs to another fusion"):
        b.set_loop_domain(c.loop_domain)


def test_schedule_error_at_compile_then_fixed():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1, 8])
    f.output(weft.exp(a) + a)
    with pytest.raises(weft.ScheduleError) as e:
        f.compile()
    assert str(e.value) == (
        "Allocations must be based on constant integers for local memory. However, T1 needs "
        "T0.size[0] * 8 elements")
    f.inline_most()
    k = f.compile()
    x = np.ones((3, 8), np.float32)
    np.testing.assert_allclose(k.run(x), np.exp(x) + x, rtol=1e-6)


def test_loop_domain_without_a_split_sibling_raises():
    f, a, b = copy_fusion()
    b.split(1, 4)
    inner = b.axis(2)
    b.merge(1)  # inner is no longer a loop axis of b
    with pytest.raises(weft.ArgumentError,
                       match=r"T1.set_loop_domain: iS\d+\{4\} is in the domain but iS\d+\{2\}, made by "
                             r"the same transform, is not"):
        b.set_loop_domain([b.axis(0), inner])
    assert f.compile() is not None  # the error was cleared; the schedule is unchanged


def test_reduction_axis_errors():
    # reductions are supported (issue 10); a bad axis list is an argument error
    f, a, b = copy_fusion()
    with pytest.raises(weft.ArgumentError, match=r"sum\(T0\): axis 2 is out of range for 2 dims"):
        weft.sum(a, [2])
    with pytest.raises(weft.ArgumentError, match=r"max\(T0\): axis -1 is listed twice"):
        weft.amax(a, [1, -1])


def test_tensor_memory_schedule_error_message():
    f = weft.Fusion()
    a = f.input(weft.f32, [16, 2])
    t1 = weft.set(a)
    t2 = weft.set(t1)
    t3 = weft.set(t2)
    t4 = weft.set(t3)
    f.output(t4)
    t2.set_memory(weft.TENSOR).set_ldst(weft.TMEM_STORE)
    t3.set_ldst(weft.TMEM_LOAD)
    t4.parallelize(0, weft.TIDX).parallelize_all_like()
    t2.set_tmem_dimsep(1)
    with pytest.raises(weft.ScheduleError, match="TMem load/store must be warp-collective"):
        f.compile(sm=100)


def test_freed_fusion_handles_raise():
    f, a, b = copy_fusion()
    ax = b.axis(0)
    f.free()
    f.free()  # twice is harmless
    for call in (lambda: b.split(0, 2), lambda: b.ndim, lambda: ax.extent, lambda: weft.exp(a),
                 lambda: a + b, lambda: f.compile(), lambda: f.math_string(),
                 lambda: f.input(weft.f32, [1]), lambda: b.set_loop_domain([ax]),
                 lambda: f.inline_most(), lambda: b.cache_after()):
        with pytest.raises(weft.UseAfterFree, match="this fusion has been freed"):
            call()


def test_handles_keep_working_while_the_fusion_object_is_unreachable():
    # a Tensor keeps its Fusion alive: dropping the fusion name frees nothing
    f, a, b = copy_fusion()
    del f
    gc.collect()
    assert b.ndim == 2 and b.fusion.alive


def test_freed_kernel_raises():
    f, a, b = copy_fusion()
    k = f.compile()
    k.free()
    for call in (lambda: k.source, lambda: k.launch, lambda: k.run(np.zeros((4, 8), np.float32)),
                 lambda: k.stats, lambda: k.report(), lambda: k.check_nvrtc(90)):
        with pytest.raises(weft.UseAfterFree, match="this kernel has been freed"):
            call()


def test_stats_before_any_run_raise():
    f, a, b = copy_fusion()
    k = f.compile()
    with pytest.raises(weft.ArgumentError, match="the kernel has not run on the executor yet"):
        k.stats


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((np.zeros((4, 8), np.float64),), {},
         r"input 0 \(T0\) is f32 \(numpy float32\), but the array holds float64"),
        ((np.zeros((4, 9), np.float32),), {},
         r"input 0 \(T0\) needs extent 8 in dim 1, but the array has 9 \(shape \(4, 9\)\)"),
        ((np.zeros((4, 8, 1), np.float32),), {},
         r"input 0 \(T0\) has rank 2, but the array has rank 3"),
        ((), {}, "the kernel takes 1 input, 0 given"),
        (([[0.0] * 8] * 4,), {}, r"input 0 \(T0\) is a list; pass a numpy array"),
        ((np.zeros((4, 8), np.float32),), {"outputs": [np.zeros((4, 8), np.float16)]},
         r"output 0 \(T1\) is f32 \(numpy float32\), but the array holds float16"),
        ((np.zeros((4, 8), np.float32),), {"outputs": [np.zeros((8, 4), np.float32)]},
         r"output 0 \(T1\) needs extent 4 in dim 0, but the array has 8"),
        ((np.zeros((4, 8), np.float32),), {"outputs": []}, "the kernel has 1 output, 0 given"),
    ],
)
def test_bad_arrays_are_refused_before_calling_c(args, kwargs, message, monkeypatch):
    f, a, b = copy_fusion()
    k = f.compile()

    def no_call(*a):
        raise AssertionError("wf_run must not be reached")

    monkeypatch.setattr(weft.kernel.lib, "wf_run", no_call)
    with pytest.raises(weft.ArgumentError, match=message):
        k.run(*args, **kwargs)


def test_symbolic_output_shape_mismatch_is_refused():
    f = weft.Fusion()
    a = f.input(weft.f32, [-1])
    f.output(weft.set(a))
    k = f.compile()
    with pytest.raises(weft.ArgumentError, match=r"output 0 \(T1\) must have shape \(5,\)"):
        k.run(np.zeros(5, np.float32), outputs=np.zeros(6, np.float32))


def test_read_only_output_is_refused():
    f, a, b = copy_fusion()
    k = f.compile()
    out = np.zeros((4, 8), np.float32)
    out.setflags(write=False)
    with pytest.raises(weft.ArgumentError, match=r"output 0 \(T1\) is read-only"):
        k.run(np.zeros((4, 8), np.float32), outputs=out)


def test_run_error_from_the_library():
    # a strided input given a non-unit stride where the fusion assumes contiguity
    f = weft.Fusion()
    a = f.input_strided(weft.f32, [4, 8], [False, True])
    f.output(weft.set(a))
    k = f.compile()
    x = np.zeros((4, 16), np.float32)[:, ::2]
    with pytest.raises(weft.ArgumentError, match="dim 1 has stride 2, but T0 is contiguous there"):
        k.run(x)


def test_check_nvrtc_errors_are_typed():
    f, a, b = copy_fusion()
    k = f.compile()
    try:
        log = k.check_nvrtc(90)
    except weft.UnsupportedError:
        pytest.skip("NVRTC is not installed")
    assert isinstance(log, str)


def test_cuda_run_without_a_gpu_raises_cuda_error():
    if weft.cuda_available():
        pytest.skip("a GPU is present")
    info = weft.system_info()
    why = ("no CUDA driver (%s)" if not info.driver_found else "no CUDA device (%s)") % info.driver_error
    with pytest.raises(weft.CudaError) as e:
        weft.DeviceArray((4,), weft.f32)
    assert str(e.value) == "weft: DeviceArray: cannot allocate 16 bytes on the GPU: " + why


@pytest.mark.parametrize(
    "status, cls",
    [(1, weft.ArgumentError), (2, weft.ScheduleError), (3, weft.CompileError),
     (4, weft.CudaError), (5, weft.UnsupportedError), (6, weft.OutOfMemory)],
)
def test_every_status_maps_to_its_class(status, cls):
    with pytest.raises(cls, match="the message"):
        weft.core._raise_status(status, "the message")


class FakeCudaArray:
    """A __cuda_array_interface__ object that no GPU backs."""

    def __init__(self, shape):
        self.shape = shape

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": "<f4", "data": (0x1000, False),
                "strides": None, "version": 2}


def test_cuda_run_without_a_driver_raises_the_library_message():
    if weft.cuda_available():
        pytest.skip("a GPU is present")
    f, a, b = copy_fusion((4,))
    k = f.compile()
    with pytest.raises(weft.CudaError, match="CUDA driver not found"):
        k.run(FakeCudaArray((4,)), outputs=FakeCudaArray((4,)))


def test_cuda_array_of_the_wrong_type_is_refused():
    f, a, b = copy_fusion((4,), weft.f16)
    k = f.compile()
    with pytest.raises(weft.ArgumentError, match=r"input 0 \(T0\) is f16, but the CUDA array holds <f4"):
        k.run(FakeCudaArray((4,)), outputs=FakeCudaArray((4,)))


def test_negative_strides_are_refused():
    f, a, b = copy_fusion((4,))
    k = f.compile()
    with pytest.raises(weft.ArgumentError, match="stride -8 bytes of dim 0 is not a non-negative"):
        k.run(np.arange(8, dtype=np.float32)[::-2])


def test_context_manager_frees_on_an_exception_too():
    with pytest.raises(weft.ArgumentError):
        with weft.Fusion() as f:
            a = f.input(weft.f32, [4])
            a.split(3, 2)
    assert not f.alive


def test_missing_library_is_a_clear_import_error():
    import os
    import subprocess
    import sys

    env = dict(os.environ, WEFT_LIB="/nonexistent/libweft.so",
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", "import weft"], env=env, capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert ("weft: cannot load libweft.so (build it with `make`, or set WEFT_LIB to its path); "
            "tried /nonexistent/libweft.so") in r.stderr
