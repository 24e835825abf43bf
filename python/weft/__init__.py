"""weft: a GPU kernel-scheduling compiler (nvFuser's model), from Python.

    import numpy as np, weft
    with weft.Fusion() as f:
        a = f.input(weft.f32, [-1, 1024])
        b = weft.exp(a) + a
        f.output(b)
        k = f.compile()
    y = k.run(np.ones((4, 1024), np.float32))   # CPU reference executor

A pure-Python binding of libweft.so (include/weft.h) through ctypes; see
docs/python.md.
"""

from .core import (  # noqa: F401
    AbstractTensor,
    ArgumentError,
    CompileError,
    CudaError,
    DType,
    Error,
    Fusion,
    IterDomain,
    LoadStore,
    MemoryType,
    OutOfMemory,
    ParallelType,
    ScheduleError,
    Swizzle,
    Tensor,
    UnsupportedError,
    UseAfterFree,
    abs,
    add,
    amax,
    amin,
    as_dtype,
    bf16,
    bool_,
    broadcast,
    compute_at,
    cast,
    cos,
    cuda_available,
    div,
    eq,
    exp,
    f16,
    f32,
    f64,
    full,
    ge,
    gt,
    i8,
    i16,
    i32,
    i64,
    le,
    log,
    lt,
    matmul,
    maximum,
    mean,
    minimum,
    mma,
    mul,
    ne,
    neg,
    numpy_dtype,
    permute,
    pow,
    prod,
    promote,
    reciprocal,
    relu,
    reverse_compute_at,
    rsqrt,
    set,
    sigmoid,
    sin,
    sqrt,
    sub,
    sum,
    tanh,
    transpose,
    u8,
    var,
    version,
    where,
)
from .core import amax as max, amin as min  # noqa: F401,E402 - numpy's reductions, weft.max / weft.min
from .kernel import AutoKernel, DeviceArray, Kernel, Launch, Stats, TmaMap, jit  # noqa: F401
from .draw import GraphvizError  # noqa: F401
from ._lib import path as library_path  # noqa: F401
from .runtime import Device, Module, SystemInfo, build, cache_clear, cpu, cuda, system_info  # noqa: F401
from . import nd, script, tir  # noqa: F401,E402

SERIAL, BIDX, BIDY, BIDZ = ParallelType.SERIAL, ParallelType.BIDX, ParallelType.BIDY, ParallelType.BIDZ
TIDX, TIDY, TIDZ = ParallelType.TIDX, ParallelType.TIDY, ParallelType.TIDZ
DIDX, DIDY, DIDZ = ParallelType.DIDX, ParallelType.DIDY, ParallelType.DIDZ
UNROLL, VECTORIZE, BULK, MMA = (
    ParallelType.UNROLL,
    ParallelType.VECTORIZE,
    ParallelType.BULK,
    ParallelType.MMA,
)
GLOBAL, LOCAL, SHARED, TENSOR = MemoryType.GLOBAL, MemoryType.LOCAL, MemoryType.SHARED, MemoryType.TENSOR
LDST_SET, TMEM_LOAD, TMEM_STORE, TMA = LoadStore.SET, LoadStore.TMEM_LOAD, LoadStore.TMEM_STORE, LoadStore.TMA
LDMATRIX, STMATRIX, CP_ASYNC = LoadStore.LDMATRIX, LoadStore.STMATRIX, LoadStore.CP_ASYNC
XOR = Swizzle.XOR

__version__ = version()
