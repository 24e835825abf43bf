#!/usr/bin/env python3
"""check-cycles.py BUILD -- no include cycle and no call cycle between files of one layer.

Include graph: every #include "layer/x.h" of every src/*/*.{c,h}. Call graph: per object
BUILD/src/<layer>/<file>.o, `nm` defined (T/D/B/R) versus undefined (U) symbols; file A
calls file B when A's object uses a symbol B's object defines. Within each layer folder,
any strongly connected component of more than one file is a cycle and is printed with
the symbols (or headers) that close it. Exit status 1 when a cycle exists.
"""
import glob, os, re, subprocess, sys

build = sys.argv[1] if len(sys.argv) > 1 else "build"

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

bad = 0
files = sorted(glob.glob("src/*/*.c") + glob.glob("src/*/*.h"))
inc = {}
for f in files:
    for m in re.finditer(r'^#include "([a-z_]+/[a-z_0-9]+\.h)"', open(f).read(), re.M):
        if os.path.dirname(m.group(1)) == f.split("/")[1]:
            inc.setdefault(f, set()).add("src/" + m.group(1))
for comp in sccs(set(files), inc):
    bad = 1
    print("include cycle: " + " <-> ".join(comp))

defs, uses = {}, {}
for o in sorted(glob.glob(build + "/src/*/*.o") or glob.glob(build + "/test-lib/src/*/*.o")):
    src = o[o.index("src/"):-2] + ".c"
    out = subprocess.run(["nm", o], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBR":
            defs.setdefault(parts[2], src)
        elif len(parts) == 2 and parts[0] == "U":
            uses.setdefault(src, set()).add(parts[1])
calls, why = {}, {}
for src, syms in uses.items():
    for s in syms:
        d = defs.get(s)
        if d and d != src and d.split("/")[1] == src.split("/")[1]:
            calls.setdefault(src, set()).add(d)
            why.setdefault((src, d), []).append(s)
for comp in sccs(set(uses) | set(defs.values()), calls):
    bad = 1
    print("call cycle in src/%s: %s" % (comp[0].split("/")[1], ", ".join(comp)))
    for a in comp:
        for b in comp:
            if (a, b) in why:
                print("  %s -> %s (%s)" % (a, b, ", ".join(sorted(why[(a, b)])[:4])))
if not bad:
    print("no include or call cycles")
sys.exit(bad)
