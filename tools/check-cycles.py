#!/usr/bin/env python3
"""check-cycles.py BUILD [LAYERS] -- no include cycle and no call cycle between files of one
layer, and no call from a layer to a higher one.

Include graph: every #include "layer/x.h" of every src/*/*.{c,h}. Call graph: per object
BUILD/src/<layer>/<file>.o, `nm` defined (T/D/B/R) versus undefined (U) symbols; file A
calls file B when A's object uses a symbol B's object defines. Within each layer folder,
any strongly connected component of more than one file is a cycle and is printed with
the symbols (or headers) that close it. LAYERS is the layer order, lowest first ("base ir
... api tir", the Makefile's LAYERS): a file whose object uses a symbol defined by a file of a
higher layer is a call against the layer order (the include check cannot see one through a
declaration in weft.h, as the public wf_* functions are) and is printed with the caller, the
symbol and both layers. Exit status 1 when a cycle or an upward call exists.

check-cycles.py --self-test compiles a small tree with one call of each kind into a
temporary folder and checks that every kind is reported (make check-cycles runs it first).
"""
import glob, os, re, subprocess, sys, tempfile

def sccs(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index: visit(v)
    return out


def check(build, layers, out=print):
    """The problems of the tree in the current directory; True when there are none."""
    rank = {l: i for i, l in enumerate(layers)}
    bad = False
    files = sorted(glob.glob("src/*/*.c") + glob.glob("src/*/*.h"))
    inc = {}
    for f in files:
        for m in re.finditer(r'^#include "([a-z_]+/[a-z_0-9]+\.h)"', open(f).read(), re.M):
            if os.path.dirname(m.group(1)) == f.split("/")[1]:
                inc.setdefault(f, set()).add("src/" + m.group(1))
    for comp in sccs(set(files), inc):
        bad = True
        out("include cycle: " + " <-> ".join(comp))

    defs, uses = {}, {}
    for o in sorted(glob.glob(build + "/src/*/*.o") or glob.glob(build + "/test-lib/src/*/*.o")):
        src = o[o.index("src/"):-2] + ".c"
        nm = subprocess.run(["nm", o], capture_output=True, text=True).stdout
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defs.setdefault(parts[2], src)
            elif len(parts) == 2 and parts[0] == "U":
                uses.setdefault(src, set()).add(parts[1])

    def layer(path):
        return path.split("/")[1]

    calls, why = {}, {}
    for src, syms in sorted(uses.items()):
        for s in sorted(syms):
            d = defs.get(s)
            if d and layer(src) in rank and layer(d) in rank and rank[layer(d)] > rank[layer(src)]:
                bad = True
                out("upward call: %s calls %s, defined in %s (%s/ calls %s/, a higher layer)"
                    % (src, s, d, layer(src), layer(d)))
            if d and d != src and layer(d) == layer(src):
                calls.setdefault(src, set()).add(d)
                why.setdefault((src, d), []).append(s)
    for comp in sccs(set(uses) | set(defs.values()), calls):
        bad = True
        out("call cycle in src/%s: %s" % (layer(comp[0]), ", ".join(comp)))
        for a in comp:
            for b in comp:
                if (a, b) in why:
                    out("  %s -> %s (%s)" % (a, b, ", ".join(sorted(why[(a, b)])[:4])))
    return not bad


def self_test():
    """A tree with an upward call, a call cycle and an include cycle: all three reported."""
    tree = {
        "src/lo/up.c": "int wf_top(void);\nint lo_up(void) { return wf_top(); }\n",
        "src/hi/top.c": "int wf_top(void) { return 1; }\n",
        "src/lo/a.c": "int lo_b(void);\nint lo_a(int n) { return n ? lo_b() : 0; }\n",
        "src/lo/b.c": "int lo_a(int);\nint lo_b(void) { return lo_a(0); }\n",
        "src/lo/x.h": '#include "lo/y.h"\n',
        "src/lo/y.h": '#include "lo/x.h"\n',
    }
    want = [
        "upward call: src/lo/up.c calls wf_top, defined in src/hi/top.c (lo/ calls hi/, a "
        "higher layer)",
        "call cycle in src/lo: src/lo/a.c, src/lo/b.c",
        "include cycle: src/lo/x.h <-> src/lo/y.h",
    ]
    cc = os.environ.get("CC", "cc")
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            for path, text in tree.items():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").write(text)
                if path.endswith(".c"):
                    obj = "build/" + path[:-2] + ".o"
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
                    subprocess.run([cc, "-c", "-o", obj, path], check=True)
            got = []
            ok = check("build", ["lo", "hi"], got.append)
        finally:
            os.chdir(here)
    missing = [w for w in want if w not in got]
    if ok or missing:
        print("check-cycles.py --self-test: not reported: %s (got: %s)" % (missing, got))
        return False
    return True


if __name__ == "__main__":
    if sys.argv[1:2] == ["--self-test"]:
        sys.exit(0 if self_test() else 1)
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    layers = sys.argv[2].split() if len(sys.argv) > 2 else []
    if check(build, layers):
        print("no include or call cycles" + (", no upward calls" if layers else ""))
        sys.exit(0)
    sys.exit(1)
