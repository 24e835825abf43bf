"""Loading libweft.so and declaring the C API's signatures for ctypes.

The package is Python over ctypes. The library is looked up, in order:
weft/libweft.so inside the package (what `pip install .` puts there), then
$WEFT_LIB, then build/libweft.so of the source tree this package sits in
(python/weft -> ../../build), and finally by the dynamic loader's search
path ("libweft.so"); a set WEFT_LIB that does not load is an error, not a
step to the next place. Every signature is
declared here once, so a mismatch with include/weft.h is found in one place.
Functions that newer libraries add (the wf_*_string printers) are optional:
`has(name)` says whether the loaded library exports them.
"""

import ctypes
import os

from ._enums import INFO_TEXT, MAX_RANK, MAX_TMEM_REGIONS  # noqa: F401 - generated from weft.h


class CompileOptions(ctypes.Structure):
    _fields_ = [("sm", ctypes.c_int), ("fast_math", ctypes.c_int)]


class AutoInfo(ctypes.Structure):
    _fields_ = [("scheduler", ctypes.c_char * 32), ("summary", ctypes.c_char * 256)]


class LaunchInfo(ctypes.Structure):
    _fields_ = [
        ("grid", ctypes.c_int64 * 3),
        ("block", ctypes.c_int64 * 3),
        ("smem_bytes", ctypes.c_int64),
        ("ntmem_regions", ctypes.c_int),
        ("tmem_columns", ctypes.c_int64 * MAX_TMEM_REGIONS),
        ("tmem_lanes", ctypes.c_int64 * MAX_TMEM_REGIONS),
    ]


class Buffer(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("shape", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
        ("device", ctypes.c_int),
    ]


class SystemInfo(ctypes.Structure):
    _fields_ = [
        ("nvrtc_found", ctypes.c_bool),
        ("nvrtc_path", ctypes.c_char * INFO_TEXT),
        ("nvrtc_major", ctypes.c_int),
        ("nvrtc_minor", ctypes.c_int),
        ("nvrtc_error", ctypes.c_char * INFO_TEXT),
        ("driver_found", ctypes.c_bool),
        ("driver_path", ctypes.c_char * INFO_TEXT),
        ("device_found", ctypes.c_bool),
        ("device_name", ctypes.c_char * INFO_TEXT),
        ("device_sm", ctypes.c_int),
        ("driver_error", ctypes.c_char * INFO_TEXT),
        ("cache_enabled", ctypes.c_bool),
        ("cache_dir", ctypes.c_char * INFO_TEXT),
        ("cache_entries", ctypes.c_int64),
        ("cache_bytes", ctypes.c_int64),
        ("device_sm_count", ctypes.c_int),
        ("device_smem_per_block", ctypes.c_int64),
        ("device_regs_per_block", ctypes.c_int),
    ]


class AccessStats(ctypes.Structure):
    _fields_ = [
        ("smem_accesses", ctypes.c_int64),
        ("smem_wavefronts", ctypes.c_int64),
        ("smem_max_conflict_degree", ctypes.c_int),
        ("gmem_accesses", ctypes.c_int64),
        ("gmem_sectors", ctypes.c_int64),
    ]


class TmaInfo(ctypes.Structure):
    """wf_tma_info: one tensor map of a compiled kernel (dimension 0 innermost)."""

    _fields_ = [
        ("is_store", ctypes.c_bool),
        ("rank", ctypes.c_int),
        ("dtype", ctypes.c_int),
        ("global_dims", ctypes.c_int64 * 5),
        ("global_strides_bytes", ctypes.c_int64 * 5),
        ("box", ctypes.c_int64 * 5),
        ("element_strides", ctypes.c_int64 * 5),
        ("swizzle_bytes", ctypes.c_int),
        ("global_tv", ctypes.c_void_p),
        ("shared_tv", ctypes.c_void_p),
    ]


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "libweft.so")
    if os.path.exists(bundled):
        return [bundled]
    env = os.environ.get("WEFT_LIB")
    if env:
        return [env]
    out = []
    for up in ("..", os.path.join("..", "..")):
        path = os.path.normpath(os.path.join(here, up, "build", "libweft.so"))
        if os.path.exists(path):
            out.append(path)
    out.append("libweft.so")
    return out


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError(
        "weft: cannot load libweft.so (build it with `make`, or set WEFT_LIB to its path); tried "
        + "; ".join(errors)
    )


lib, path = _load()

P = ctypes.c_void_p
I = ctypes.c_int
I64 = ctypes.c_int64
S = ctypes.c_char_p
V = None

# name: (restype, argtypes)
_SIGS = {
    "wf_version": (S, []),
    "wf_fusion_status": (I, [P]),
    "wf_fusion_error": (S, [P]),
    "wf_fusion_clear_error": (V, [P]),
    "wf_status_name": (S, [I]),
    "wf_dtype_size": (ctypes.c_size_t, [I]),
    "wf_fusion_new": (P, []),
    "wf_fusion_free": (V, [P]),
    "wf_input": (P, [P, I, I, ctypes.POINTER(I64)]),
    "wf_input_strided": (P, [P, I, I, ctypes.POINTER(I64), ctypes.POINTER(ctypes.c_int8)]),
    "wf_output": (V, [P, P]),
    "wf_set": (P, [P]),
    "wf_cast": (P, [P, I]),
    "wf_unary": (P, [I, P]),
    "wf_binary": (P, [I, P, P]),
    "wf_full": (P, [P, I, ctypes.c_double]),
    "wf_full_int": (P, [P, I, I64]),
    "wf_where": (P, [P, P, P]),
    "wf_broadcast": (P, [P, I, ctypes.POINTER(ctypes.c_bool)]),
    "wf_transpose": (P, [P, I, I]),
    "wf_permute": (P, [P, ctypes.POINTER(I)]),
    "wf_sum": (P, [P, I, ctypes.POINTER(I)]),
    "wf_max": (P, [P, I, ctypes.POINTER(I)]),
    "wf_reduce": (P, [I, P, I, ctypes.POINTER(I)]),
    "wf_mma": (P, [P, P, I, ctypes.POINTER(I)]),
    "wf_matmul": (P, [P, P]),
    "wf_tv_ndim": (I, [P]),
    "wf_tv_axis": (P, [P, I]),
    "wf_tv_loop_domain": (ctypes.POINTER(P), [P, ctypes.POINTER(I)]),
    "wf_tv_logical_domain": (ctypes.POINTER(P), [P, ctypes.POINTER(I)]),
    "wf_tv_definition_input": (P, [P, I]),
    "wf_iterdomain_extent": (I64, [P]),
    "wf_iterdomain_is_reduction": (ctypes.c_bool, [P]),
    "wf_iterdomain_extent_input": (ctypes.c_bool, [P, ctypes.POINTER(I), ctypes.POINTER(I)]),
    "wf_tv_fusion": (P, [P]),
    "wf_tv_name": (I, [P]),
    "wf_tv_dtype": (I, [P]),
    "wf_tv_rfactor": (P, [P, I, P]),
    "wf_tv_split": (V, [P, I, I64]),
    "wf_tv_split_outer": (V, [P, I, I64]),
    "wf_tv_merge": (V, [P, I]),
    "wf_tv_merge_axes": (V, [P, I, I]),
    "wf_tv_reorder": (V, [P, I, ctypes.POINTER(I)]),
    "wf_tv_reorder_all": (V, [P, ctypes.POINTER(I)]),
    "wf_tv_swizzle": (V, [P, I, I, I]),
    "wf_tv_parallelize": (V, [P, I, I]),
    "wf_tv_set_memory": (V, [P, I]),
    "wf_tv_set_ldst": (V, [P, I]),
    "wf_tv_set_tmem_dimsep": (V, [P, I]),
    "wf_tv_set_allocation_domain": (V, [P, I, ctypes.POINTER(P), ctypes.c_bool]),
    "wf_tv_set_loop_domain": (V, [P, I, ctypes.POINTER(P)]),
    "wf_tv_inline_at": (V, [P, I]),
    "wf_inline_most": (V, [P]),
    "wf_inline_all_at": (V, [P, I]),
    "wf_tv_loop_broadcast": (V, [P, I]),
    "wf_cache_after": (P, [P]),
    "wf_cache_before": (P, [P]),
    "wf_propagate_transforms": (V, [P]),
    "wf_parallelize_all_like": (V, [P, ctypes.c_uint]),
    "wf_tv_compute_at": (I, [P]),
    "wf_compute_at": (V, [P, P, I]),
    "wf_reverse_compute_at": (V, [P, P, I]),
    "wf_print_math": (V, [P, P]),
    "wf_print_transforms": (V, [P, P]),
    "wf_print_kernel": (V, [P, P]),
    "wf_compile": (P, [P, ctypes.POINTER(CompileOptions)]),
    "wf_kernel_source": (S, [P]),
    "wf_kernel_launch": (ctypes.POINTER(LaunchInfo), [P]),
    "wf_kernel_free": (V, [P]),
    "wf_kernel_check_nvrtc": (I, [P, I, ctypes.c_char_p, ctypes.c_size_t]),
    "wf_run": (I, [P, I, ctypes.POINTER(Buffer), I, ctypes.POINTER(Buffer), I]),
    "wf_last_run_error": (S, [P]),
    "wf_cuda_available": (ctypes.c_bool, []),
    "wf_interp_stats": (I, [P, ctypes.POINTER(AccessStats)]),
    "wf_interp_report": (V, [P, P]),
    "wf_device_alloc": (P, [ctypes.c_size_t]),
    "wf_device_free": (V, [P]),
    "wf_device_copy": (I, [P, P, ctypes.c_size_t]),
    # Optional: automatic scheduling (kernel.py's AutoKernel, core.py's Fusion.schedule_auto).
    "wf_schedule_auto": (I, [P, ctypes.POINTER(I64), ctypes.POINTER(CompileOptions), ctypes.POINTER(AutoInfo)]),
    "wf_auto_compile": (P, [P, ctypes.POINTER(CompileOptions)]),
    "wf_auto_run": (I, [P, I, ctypes.POINTER(Buffer), I, ctypes.POINTER(Buffer), I]),
    "wf_auto_last_error": (S, [P]),
    "wf_auto_last_info": (ctypes.POINTER(AutoInfo), [P]),
    "wf_auto_kernel_count": (I, [P]),
    "wf_auto_kernel_free": (V, [P]),
    # Optional: TMA (seed 001; kernel.py's Kernel.tma, core.py's Tensor.tma_swizzle).
    "wf_kernel_tma_count": (I, [P]),
    "wf_kernel_tma": (ctypes.POINTER(TmaInfo), [P, I]),
    "wf_tv_circular_buffer": (V, [P, I]),
    "wf_tv_tma_swizzle": (V, [P, I]),
    "wf_abstract_new": (P, [P, I, ctypes.POINTER(P)]),
    "wf_abstract_of_loop": (P, [P]),
    "wf_abstract_ndim": (I, [P]),
    "wf_abstract_ids": (ctypes.POINTER(P), [P, ctypes.POINTER(I)]),
    "wf_abstract_split": (V, [P, I, I64]),
    "wf_abstract_merge": (V, [P, I, I]),
    "wf_abstract_reorder": (V, [P, I, ctypes.POINTER(I)]),
    "wf_abstract_swizzle": (V, [P, I, I, I]),
    # Optional (newer libraries): the printers as strings owned by the fusion.
    "wf_math_string": (S, [P]),
    "wf_transforms_string": (S, [P]),
    "wf_kernel_string": (S, [P]),
    # Optional: the IterDomain-graph diagram (draw.py).
    "wf_print_dot": (V, [P, P]),
    "wf_dot_string": (S, [P]),
    # Optional: this machine (runtime.py).
    "wf_system_info_get": (I, [ctypes.POINTER(SystemInfo)]),
    "wf_cache_clear": (I, [ctypes.POINTER(I64), ctypes.POINTER(I64)]),
    # Optional: the TensorIR front-end (tir.py).
    "wf_tir_parse": (P, [S]),
    "wf_tir_free": (V, [P]),
    "wf_tir_status": (I, [P]),
    "wf_tir_error": (S, [P]),
    "wf_tir_clear_error": (V, [P]),
    "wf_tir_get_block": (P, [P, S]),
    "wf_tir_get_loops": (I, [P, P, ctypes.POINTER(P), I]),
    "wf_tir_split": (V, [P, P, I, ctypes.POINTER(I64), ctypes.POINTER(P)]),
    "wf_tir_fuse": (P, [P, I, ctypes.POINTER(P)]),
    "wf_tir_reorder": (V, [P, I, ctypes.POINTER(P)]),
    "wf_tir_bind": (V, [P, P, S]),
    "wf_tir_vectorize": (V, [P, P]),
    "wf_tir_unroll": (V, [P, P]),
    "wf_tir_cache_read": (P, [P, P, I, S]),
    "wf_tir_cache_write": (P, [P, P, I, S]),
    "wf_tir_compute_at": (V, [P, P, P]),
    "wf_tir_reverse_compute_at": (V, [P, P, P]),
    "wf_tir_compute_inline": (V, [P, P]),
    "wf_tir_reverse_compute_inline": (V, [P, P]),
    "wf_tir_rfactor": (P, [P, P, I]),
    "wf_tir_parallel": (V, [P, P]),
    "wf_tir_annotate_loop": (V, [P, P, S, S]),
    "wf_tir_annotate_block": (V, [P, P, S, S]),
    "wf_tir_unannotate_loop": (V, [P, P, S]),
    "wf_tir_unannotate_block": (V, [P, P, S]),
    "wf_tir_set_scope": (V, [P, P, I, S]),
    "wf_tir_storage_align": (V, [P, P, I, I, I, I]),
    "wf_tir_decompose_reduction": (P, [P, P, P]),
    "wf_tir_blockize": (P, [P, P]),
    "wf_tir_get_child_blocks": (I, [P, P, ctypes.POINTER(P), I]),
    "wf_tir_get_loop_child_blocks": (I, [P, P, ctypes.POINTER(P), I]),
    "wf_tir_get_producers": (I, [P, P, ctypes.POINTER(P), I]),
    "wf_tir_get_consumers": (I, [P, P, ctypes.POINTER(P), I]),
    "wf_tir_block_name": (S, [P, P]),
    "wf_tir_script": (S, [P]),
    "wf_tir_trace": (S, [P]),
    "wf_tir_build": (P, [P, ctypes.POINTER(CompileOptions)]),
}

_OPTIONAL = {"wf_math_string", "wf_transforms_string", "wf_kernel_string", "wf_print_dot", "wf_dot_string"}
_OPTIONAL |= {n for n in _SIGS if n.startswith("wf_tir_")}
_OPTIONAL |= {"wf_system_info_get", "wf_cache_clear"}
_OPTIONAL |= {n for n in _SIGS if n.startswith("wf_auto_") or n == "wf_schedule_auto"}
_OPTIONAL |= {"wf_kernel_tma_count", "wf_kernel_tma", "wf_tv_circular_buffer", "wf_tv_tma_swizzle"}

for _name, (_res, _args) in _SIGS.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        if _name in _OPTIONAL:
            continue
        raise ImportError("weft: %s lacks %s (rebuild the library)" % (path, _name))
    _fn.restype = _res
    _fn.argtypes = _args


def has(name):
    """Whether the loaded library exports `name`."""
    try:
        getattr(lib, name)
        return True
    except AttributeError:
        return False


# libc, for capturing the FILE * printers into a string.
libc = ctypes.CDLL(None)
libc.open_memstream.restype = P
libc.open_memstream.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_size_t)]
libc.fclose.restype = I
libc.fclose.argtypes = [P]
libc.free.restype = V
libc.free.argtypes = [P]


def capture(fn, *args):
    """Call fn(*args, FILE *) with a memory stream and return what it wrote."""
    buf = ctypes.c_char_p()
    size = ctypes.c_size_t()
    stream = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not stream:
        raise MemoryError("weft: open_memstream failed")
    try:
        fn(*args, stream)
    finally:
        libc.fclose(stream)
    try:
        return ctypes.string_at(buf, size.value).decode("utf-8", "replace")
    finally:
        libc.free(ctypes.cast(buf, P))
