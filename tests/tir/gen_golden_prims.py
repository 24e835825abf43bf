#!/usr/bin/env python3
"""gen_golden_prims.py -- regenerate tests/unit/test_tir_prims_golden.h from Apache TVM.

Run as gen_golden.py is (a Python with apache-tvm 0.27: `python3 -m venv .venv-tvm &&
.venv-tvm/bin/pip install apache-tvm`, then `.venv-tvm/bin/python
tests/tir/gen_golden_prims.py`). Covers the TVMScript spellings TVM users write
(tir.noalias, an IRModule class, T.handle + T.match_buffer, T.axis.S / R, T.min_value,
T.sigmoid / T.tanh, shifted indices, a fused extent-1 loop, TVM's float layout) and the
primitives parallel, annotate / unannotate, set_scope, storage_align and
decompose_reduction. Each case stores its classic source (src_<case>), TVM 0.27's own
printed text of it (golden_<case>_raw: weft must read it, and print it as the
module it is, golden_<case>_rawconv), and the program after each
step converted to the classic spelling weft prints (golden_<case>_<step>).
"""
import os, re, sys, tempfile, importlib.util
import tvm
from tvm.script import tirx as T
from tvm import s_tir

CASES = {}

def case(name, src, steps=None):
    CASES[name] = (src.lstrip("\n"), steps)

case("noalias", '''
@T.prim_func
def add(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "add", "tir.noalias": True})
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + T.float32(1)
''')

case("module", '''
@I.ir_module
class Module:
    @T.prim_func
    def rowmax(a: T.handle, b: T.handle):
        T.func_attr({"global_symbol": "rowmax", "tir.noalias": True})
        A = T.match_buffer(a, (16, 64), "float32")
        B = T.match_buffer(b, [16, 64], dtype="float32")
        M = T.alloc_buffer((16,))
        for i, k in T.grid(16, 64):
            with T.block("M"):
                vi = T.axis.S(16, i)
                vk = T.axis.R(64, k)
                with T.init():
                    M[vi] = T.min_value("float32")
                M[vi] = T.max(M[vi], A[vi, vk])
        for i, j in T.grid(16, 64):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = T.if_then_else(A[vi, vj] < M[vi], T.exp(A[vi, vj] - M[vi]), T.max_value("float32"))
''')

case("act", '''
@T.prim_func
def act(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.sigmoid(A[vi, vj]) * T.float32(0.5) + T.tanh(A[vi, vj]) * T.float32(1.0000000000000001e-30)
''')

UNIT = '''
@T.prim_func
def unit(A: T.Buffer((1, 64), "float32"), B: T.Buffer((1, 64), "float32")):
    for i, j in T.grid(1, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
'''

def unit_fuse(sch, h):
    i, j = sch.get_loops(sch.get_sblock("B"))
    f = sch.fuse(i, j); yield "fuse"
    o, t = sch.split(f, factors=[None, 16]); sch.bind(o, "blockIdx.x"); sch.bind(t, "threadIdx.x"); yield "bind"

case("unit", UNIT, unit_fuse)

def shift_split(sch, h):
    i, = sch.get_loops(sch.get_sblock("B"))
    sch.split(i, factors=[None, 4]); yield "split"

case("shift", '''
@T.prim_func
def stencil(A: T.Buffer((66,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("B"):
            vi = T.axis.spatial(64, i)
            B[vi] = A[vi] + A[vi + 1] + A[vi + 2]
''', shift_split)

MM = '''
@T.prim_func
def mm(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    D = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + D[vi, vk] * B[vk, vj]
'''

def annot(sch, h):
    c = sch.get_sblock("C"); i, j, k = sch.get_loops(c)
    sch.parallel(i); yield "parallel"
    sch.annotate(j, "pragma_auto_unroll_max_step", 16)
    sch.annotate(j, "pragma_unroll_explicit", 1); yield "annotate_loop"
    sch.annotate(c, "software_pipeline_stage", [0, 0, 1])
    sch.annotate(c, "software_pipeline_order", [0, 1, 2]); yield "annotate_block"
    sch.annotate(k, "note", "x"); sch.annotate(k, "f", 1.5); yield "annotate_values"
    sch.unannotate(j, "pragma_unroll_explicit"); sch.unannotate(c, "software_pipeline_order")
    sch.unannotate(k, "note"); sch.unannotate(k, "f"); yield "unannotate"

case("annot", MM, annot)

def scope(sch, h):
    d = sch.get_sblock("D")
    sch.set_scope(d, 0, "shared"); yield "set_scope"
    sch.storage_align(d, 0, axis=0, factor=32, offset=1); yield "storage_align"
    sch.storage_align(d, 0, axis=-1, factor=16, offset=2); yield "storage_align2"

case("scope", MM, scope)

def dec_k(sch, h):
    c = sch.get_sblock("C"); i, j, k = sch.get_loops(c)
    sch.decompose_reduction(c, k); yield "decompose"

case("dec_k", MM, dec_k)

def dec_i(sch, h):
    c = sch.get_sblock("C"); i, j, k = sch.get_loops(c)
    sch.annotate(j, "pragma_unroll_explicit", 0)
    sch.decompose_reduction(c, i); yield "decompose"

case("dec_i", MM, dec_i)

def dec_tiled(sch, h):
    c = sch.get_sblock("C"); i, j, k = sch.get_loops(c)
    io, ii = sch.split(i, factors=[None, 8]); sch.bind(io, "blockIdx.x"); sch.bind(ii, "threadIdx.x")
    sch.decompose_reduction(c, j); yield "decompose"

case("dec_tiled", MM, dec_tiled)

def to_tvm(src):
    """The classic source in TVM 0.27's spelling."""
    s = src.replace("T.block(", "T.sblock(").replace("T.alloc_buffer", "T.sblock_alloc_buffer")
    return s.replace("@T.prim_func", "@T.prim_func(s_tir=True)")

def convert(text, module):
    out = []
    for ln in text.split("\n"):
        if ln.startswith("# from tvm.tirx.layout"):
            continue
        ln = ln.replace("import tirx as T", "import tir as T").replace("@T.prim_func(s_tir=True)", "@T.prim_func")
        ln = ln.replace("T.sblock_alloc_buffer", "T.alloc_buffer").replace("T.sblock_attr", "T.block_attr").replace("T.sblock(", "T.block(")
        out.append(ln)
    text = "\n".join(out).rstrip("\n") + "\n"
    if module:
        return text
    # a lone function: the function alone, as gen_golden.py keeps it
    lines = text.split("\n")
    body = [l[4:] if l.startswith("    ") else l for l in lines[lines.index("class Module:") + 1:]]
    return "# from tvm.script import tir as T\n\n" + "\n".join(body).strip("\n") + "\n"

def cstr(s):
    return "\n".join('    "' + l.replace("\\", "\\\\").replace('"', '\\"') + '\\n"' for l in s.rstrip("\n").split("\n"))

def load(name, src):
    path = os.path.join(tempfile.mkdtemp(), "case_%s.py" % name)
    open(path, "w").write("from tvm.script import tirx as T\nfrom tvm.script import ir as I\n" + to_tvm(src))
    spec = importlib.util.spec_from_file_location("case_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["case_" + name] = mod
    spec.loader.exec_module(mod)
    for v in vars(mod).values():
        if isinstance(v, (tvm.tirx.PrimFunc, tvm.IRModule)):
            return v

def main():
    out = ["/* Generated by tests/tir/gen_golden_prims.py from Apache TVM %s: do not edit. */" % tvm.__version__,
           "/* clang-format off */"]
    for name, (src, steps) in CASES.items():
        module = "ir_module" in src
        sch = s_tir.Schedule(load(name, src))
        raw = sch.mod.script()
        out.append("static const char src_%s[] =\n%s;" % (name, cstr(src)))
        out.append("static const char golden_%s_raw[] =\n%s;" % (name, cstr(raw)))
        # TVM's text is a module (def main in class Module): weft prints it as one
        out.append("static const char golden_%s_rawconv[] =\n%s;" % (name, cstr(convert(raw, True))))
        texts = [("orig", convert(raw, module))]
        if steps:
            for label in steps(sch, {}):
                texts.append((label, convert(sch.mod.script(), module)))
        for label, t in texts:
            out.append("static const char golden_%s_%s[] =\n%s;" % (name, label, cstr(t)))
    out.append("/* clang-format on */")
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "test_tir_prims_golden.h")
    open(path, "w").write("\n".join(out) + "\n")
    print("wrote", os.path.normpath(path))

main()
