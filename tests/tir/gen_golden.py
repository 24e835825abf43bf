#!/usr/bin/env python3
"""gen_golden.py -- regenerate tests/unit/test_tir_golden.h from Apache TVM itself.

Run with a Python that has `apache-tvm` (0.27: module tirx / s_tir, blocks spelled
T.sblock): e.g. `python3 -m venv build/tvmvenv && build/tvmvenv/bin/pip install
apache-tvm`, then `build/tvmvenv/bin/python tests/tir/gen_golden.py`. Each case is a
classic-TVMScript program and a list of schedule steps; after every step the printed
program is stored, converted to the classic spelling weft prints (tir, T.block,
T.alloc_buffer, the function alone rather than inside an IRModule). A step that TVM
refuses is stored as "ERROR: <TVM's message's first line>". The C tests replay the same
steps (tests/unit/test_tir_golden.c) and compare. TVM is not needed to run the tests.
"""
import re, sys, os
import tvm
from tvm.script import tirx as T
from tvm import s_tir

CASES = {}

def case(name, src, steps):
    CASES[name] = (src, steps)

SUM_BROADCAST = '''
@T.prim_func
def sum_broadcast(
    A: T.Buffer((256,), "float32"),
    B: T.Buffer((256,), "float32"),
) -> None:
    for i, k in T.grid(256, 256):
        with T.block("sum_broadcast"):
            vi = T.axis.spatial(256, i)
            vk = T.axis.reduce(256, k)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] += A[vk]
'''

def seed004(sch, h):
    yield "get_block"; h["block"] = sch.get_sblock("sum_broadcast")
    i, j = sch.get_loops(h["block"])
    h["io"], h["ii"] = sch.split(i, factors=[2, 128]); yield "split"
    sch.bind(h["io"], "blockIdx.x"); sch.bind(h["ii"], "threadIdx.x"); yield "bind"
    h["A_shared"] = sch.cache_read(h["block"], read_buffer_index=0, storage_scope="shared"); yield "cache_read"
    sch.compute_at(h["A_shared"], h["ii"]); yield "compute_at"
    ax0 = sch.get_loops(h["A_shared"])[-1]
    _, inner = sch.split(ax0, factors=[None, 128]); sch.bind(inner, "threadIdx.x"); yield "coop"

case("seed004", SUM_BROADCAST, seed004)

ELEMWISE = '''
@T.prim_func
def add_relu(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32"), C: T.Buffer((64, 32), "float32")):
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
'''

def elem_fuse(sch, h):
    b = sch.get_sblock("C"); i, j = sch.get_loops(b)
    f = sch.fuse(i, j); yield "fuse"
    o, inner = sch.split(f, factors=[None, 4]); yield "split"
    sch.vectorize(inner); yield "vectorize"
    bo, t = sch.split(o, factors=[None, 64]); sch.bind(bo, "blockIdx.x"); sch.bind(t, "threadIdx.x"); yield "bind"

case("elem_fuse", ELEMWISE, elem_fuse)

def elem_inline(sch, h):
    sch.compute_inline(sch.get_sblock("D")); yield "compute_inline"

case("elem_inline", ELEMWISE, elem_inline)

def elem_rinline(sch, h):
    sch.reverse_compute_inline(sch.get_sblock("C")); yield "reverse_compute_inline"

case("elem_rinline", ELEMWISE, elem_rinline)

def elem_where(sch, h):
    b = sch.get_sblock("D"); i, j = sch.get_loops(b)
    jo, ji = sch.split(j, factors=[None, 5]); yield "split_where"
    sch.reorder(ji, i); yield "reorder"
    sch.unroll(ji); yield "unroll"
    sch.split(i, factors=[4, 8]); yield "split_small"

case("elem_where", ELEMWISE, elem_where)

def elem_compute_at(sch, h):
    c = sch.get_sblock("C"); i, j = sch.get_loops(c)
    io, ii = sch.split(i, factors=[None, 16]); yield "split"
    sch.compute_at(sch.get_sblock("D"), io); yield "compute_at"

case("elem_compute_at", ELEMWISE, elem_compute_at)

def elem_cache(sch, h):
    c = sch.get_sblock("C")
    sch.cache_write(c, 0, "local"); yield "cache_write"
    sch.cache_read(c, 0, "shared"); yield "cache_read"

case("elem_cache", ELEMWISE, elem_cache)

def elem_errors(sch, h):
    c = sch.get_sblock("C"); i, j = sch.get_loops(c)
    sch.fuse(j, i); yield "fuse_order"

case("elem_errors", ELEMWISE, elem_errors)

MATMUL = '''
@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
'''

def matmul_tiled(sch, h):
    c = sch.get_sblock("C"); i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, factors=[None, 16]); jo, ji = sch.split(j, factors=[None, 16])
    ko, ki = sch.split(k, factors=[None, 8])
    sch.reorder(io, jo, ko, ii, ji, ki); yield "tile"
    cl = sch.cache_write(c, 0, "local"); yield "cache_write"
    sch.reverse_compute_at(cl, jo); yield "reverse_compute_at"
    a = sch.cache_read(c, 0, "shared"); b = sch.cache_read(c, 1, "shared"); yield "cache_read"
    sch.compute_at(a, ko); sch.compute_at(b, ko); yield "compute_at"
    sch.bind(io, "blockIdx.x"); sch.bind(jo, "blockIdx.y"); yield "bind"

case("matmul_tiled", MATMUL, matmul_tiled)

COPY = '''
@T.prim_func
def copy(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj]
'''

def copy_fuse(sch, h):
    b = sch.get_sblock("B"); i, j = sch.get_loops(b)
    f = sch.fuse(i, j)
    l0, l1, l2, l3 = sch.split(f, factors=[4, 2, None, 4])
    sch.bind(l0, "blockIdx.x"); sch.unroll(l1); sch.bind(l2, "threadIdx.x"); sch.vectorize(l3)
    yield "scheduled"

case("copy_fuse", COPY, copy_fuse)

CHAIN = '''
@T.prim_func
def chain(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), C: T.Buffer((128,), "float32")):
    with T.block("root"):
        X = T.alloc_buffer((128,))
        Y = T.alloc_buffer((128,))
        for i in range(128):
            with T.block("X"):
                vi = T.axis.spatial(128, i)
                X[vi] = A[vi] * B[vi]
        for i in range(128):
            with T.block("Y"):
                vi = T.axis.spatial(128, i)
                Y[vi] = T.exp(X[vi]) + A[vi]
        for i in range(128):
            with T.block("C"):
                vi = T.axis.spatial(128, i)
                C[vi] = T.max(Y[vi], X[vi])
'''

def chain_inline(sch, h):
    sch.compute_inline(sch.get_sblock("X")); yield "inline_x"
    sch.compute_inline(sch.get_sblock("Y")); yield "inline_y"
    i, = sch.get_loops(sch.get_sblock("C"))
    o, t = sch.split(i, factors=[None, 32]); sch.bind(o, "blockIdx.x"); sch.bind(t, "threadIdx.x")
    yield "bind"

case("chain_inline", CHAIN, chain_inline)

RSUM = '''
@T.prim_func
def rsum(A: T.Buffer((128, 256), "float32"), B: T.Buffer((128,), "float32")):
    for i, k in T.grid(128, 256):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
'''

def rsum_rfactor(sch, h):
    b = sch.get_sblock("B"); i, k = sch.get_loops(b)
    ko, ki = sch.split(k, factors=[None, 32]); yield "split"
    rf = sch.rfactor(ki, 0); yield "rfactor"

case("rsum_rfactor", RSUM, rsum_rfactor)

def rsum_rfactor1(sch, h):
    b = sch.get_sblock("B"); i, k = sch.get_loops(b)
    ko, ki = sch.split(k, factors=[None, 32])
    rf = sch.rfactor(ko, 1); yield "rfactor_ko"

case("rsum_rfactor1", RSUM, rsum_rfactor1)

def rsum_cross_thread(sch, h):
    b = sch.get_sblock("B"); i, k = sch.get_loops(b)
    ko, ki = sch.split(k, factors=[None, 32])
    rf = sch.rfactor(ki, 0)
    wi, wk = sch.get_loops(b)
    sch.bind(wi, "blockIdx.x"); sch.bind(wk, "threadIdx.x"); yield "bind"

case("rsum_cross_thread", RSUM, rsum_cross_thread)

def convert(text):
    lines = text.split("\n")
    out = ["# from tvm.script import tir as T", ""]
    body = False
    for ln in lines:
        if ln.strip().startswith("@T.prim_func"):
            out.append("@T.prim_func"); body = True; continue
        if not body:
            continue
        if ln.startswith("    "):
            ln = ln[4:]
        ln = ln.replace("T.sblock_alloc_buffer", "T.alloc_buffer").replace("T.sblock(", "T.block(")
        out.append(ln)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"

def cstr(s):
    return "\n".join('    "' + l.replace("\\", "\\\\").replace('"', '\\"') + '\\n"' for l in s.rstrip("\n").split("\n"))

def main():
    out = ["/* Generated by tests/tir/gen_golden.py from Apache TVM %s: do not edit. */" % tvm.__version__,
           "/* clang-format off */"]
    for name, (src, steps) in CASES.items():
        tsrc = src.replace("T.block(", "T.sblock(").replace("T.alloc_buffer", "T.sblock_alloc_buffer").replace("@T.prim_func", "@T.prim_func(s_tir=True)")
        import importlib.util, tempfile
        path = os.path.join(tempfile.mkdtemp(), "case_%s.py" % name)
        open(path, "w").write("from tvm.script import tirx as T\n" + tsrc)
        spec = importlib.util.spec_from_file_location("case_" + name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = [v for v in vars(mod).values() if isinstance(v, tvm.tirx.PrimFunc)][0]
        sch = s_tir.Schedule(fn)
        texts = [("orig", convert(sch.mod.script()))]
        h = {}
        gen = steps(sch, h)
        while True:
            try:
                label = next(gen)
                texts.append((label, convert(sch.mod.script())))
            except StopIteration:
                break
            except Exception as e:  # a refused step
                msg = str(e).strip().split("\n")
                msg = [m for m in msg if m.strip()]
                texts.append(("error", "ERROR: " + (msg[-1] if msg else "?") + "\n"))
                break
        for label, t in texts:
            out.append("static const char golden_%s_%s[] =\n%s;" % (name, label, cstr(t)))
    out.append("/* clang-format on */")
    path = os.path.join(os.path.dirname(__file__), "..", "unit", "test_tir_golden.h")
    open(path, "w").write("\n".join(out) + "\n")
    print("wrote", path)

main()
