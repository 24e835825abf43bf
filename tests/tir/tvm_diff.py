#!/usr/bin/env python3
"""tvm_diff.py -- run every case of tvm_diff_cases.py in Apache TVM and in weft, compare.

A case is a TensorIR program (classic TVMScript, as weft prints it) and a generator of
schedule steps written once against the API both share (get_sblock, split, compute_at,
...). The same generator runs on a TVM schedule (tvm.s_tir.Schedule of the program in
TVM 0.27's spelling) and on a weft one (weft.tir.Schedule), and three things must agree:

- acceptance: each step taken by both, or refused by both (a step is the code between
  two yields; a refusal ends the case, the program staying as it was);
- the printed program (sch.mod.script()) after every step, exactly, once TVM's text is
  put in the classic spelling weft prints (normalise(): the rules the goldens of
  tests/tir/gen_golden*.py apply);
- numbers: the final program built by both (TVM: target llvm, its thread bindings made
  serial loops, which is TIR's meaning of them; weft: its CUDA kernel run on the CPU
  executor), run on the same random inputs, each close to the case's numpy reference
  and to the other.

A case marked known="reason" is a difference not fixed yet: it is counted apart, and
if it comes to agree it fails, so that the mark is removed. The last line printed is
the summary: "tvm-diff: N cases, N agree[, N known differences][, N differ]"; exit
status 1 when a case differs unexpectedly or agrees although marked. Run it with
tests/tir/tvm_diff.sh (make tvm-diff), which makes the venv; -v prints every case and
the two sides' texts and messages where they differ; a name filter runs some cases.
"""

import argparse
import difflib
import os
import re
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tvm_diff_cases  # noqa: E402


# ---- TVM's text in weft's spelling


def to_tvm(src):
    """A case's classic source in TVM 0.27's spelling."""
    s = src.replace("T.block(", "T.sblock(").replace("T.alloc_buffer(", "T.sblock_alloc_buffer(")
    return s.replace("@T.prim_func", "@T.prim_func(s_tir=True)")


def normalise(text, module):
    """TVM 0.27's printed module in the spelling weft prints: the tir module name, the
    classic block names, and a lone function shown alone (the goldens' convert())."""
    lines = []
    for ln in text.split("\n"):
        if ln.startswith("# from tvm.tirx.layout"):
            continue
        ln = ln.replace("import tirx as T", "import tir as T")
        ln = ln.replace("@T.prim_func(s_tir=True)", "@T.prim_func")
        for old, new in (
            ("T.sblock_alloc_buffer(", "T.alloc_buffer("),
            ("T.sblock_attr(", "T.block_attr("),
            ("T.sblock(", "T.block("),
        ):
            ln = ln.replace(old, new)
        lines.append(ln)
    if module:
        return "\n".join(lines).rstrip("\n") + "\n"
    body = lines[lines.index("class Module:") + 1 :]
    body = [ln[4:] if ln.startswith("    ") else ln for ln in body]
    return "# from tvm.script import tir as T\n\n" + "\n".join(body).strip("\n") + "\n"


def first_sentence(msg):
    """The sentence a refusal's message leads with (TVM's after 'Error message:')."""
    if "Error message: " in msg:
        msg = msg.split("Error message: ", 1)[1]
    lines = [ln.strip() for ln in msg.strip().split("\n") if ln.strip()]
    # TVM names an object by its type and address ("loop tirx.For#0"): drop those
    return re.sub(r" ?\S+#\d+", "", lines[0]) if lines else "?"


# ---- the two sides


class TvmSide:
    name = "tvm"

    def __init__(self):
        import tvm
        from tvm import s_tir

        self.tvm, self.s_tir = tvm, s_tir

    def schedule(self, src):
        prog = self.tvm.script.from_source(to_tvm(src))
        sch = self.s_tir.Schedule(prog)
        if isinstance(prog, self.tvm.IRModule):  # one function: work on it, as weft does
            (gv,) = prog.get_global_vars()
            sch.work_on(gv.name_hint)
        return sch

    def func(self, sch):
        (f,) = sch.mod.functions.values()
        return f

    def script(self, sch, module):
        return normalise(sch.mod.script(), module)

    def params(self, sch):
        """[(name, shape, dtype)] of the function's buffers, in parameter order."""
        f = self.func(sch)
        out = []
        for p in f.params:  # TVM 0.27: a parameter is a Var with the buffer's shape and dtype
            out.append((p.name, tuple(int(x) for x in p.shape), str(p.dtype)))
        return out

    def run(self, sch, arrays):
        """Build the program for the CPU and run it on arrays ({name: ndarray}): thread
        loops become serial loops (T.thread_binding -> T.serial), their meaning in TIR."""
        serial = r"T.serial(\1)"
        text = re.sub(r'T\.thread_binding\(([^()]*), thread="[^"]*"\)', serial, sch.mod.script())
        # LLVM's opt-level 0: the same program eight times faster to compile
        target = {"kind": "llvm", "opt-level": 0}
        lib = self.tvm.compile(self.tvm.script.from_source(text), target=target)
        names = [n for n, _, _ in self.params(sch)]
        args = [self.tvm.runtime.tensor(arrays[n]) for n in names]
        lib(*args)
        return {n: a.numpy() for n, a in zip(names, args)}


class WeftSide:
    name = "weft"

    def __init__(self):
        import weft

        self.weft = weft

    def schedule(self, src):
        return self.weft.tir.Schedule(self.weft.script.tir.prim_func(src))

    def script(self, sch, module):
        return sch.mod.script()

    def run(self, sch, arrays):
        mod = self.weft.build(sch.mod, target="cuda")
        names = [p.name for p in mod.params]
        if sorted(names) != sorted(arrays):
            raise RuntimeError("weft's parameters %s are not TVM's %s" % (names, sorted(arrays)))
        args = [self.weft.nd.array(arrays[n], device=self.weft.cpu()) for n in names]
        mod(*args)
        return {n: a.numpy() for n, a in zip(names, args)}


def replay(side, case):
    """Run a case's steps on one side: [(label, outcome, text, message)], outcome "ok"
    or "refused" (text: the program after the step), and the schedule."""
    module = "ir_module" in case.src
    try:
        sch = side.schedule(case.src)
    except Exception as e:  # the source itself refused
        return [("parse", "refused", "", "%s: %s" % (type(e).__name__, e))], None
    record = [("orig", "ok", side.script(sch, module), "")]
    gen = case.steps(sch)
    while True:
        try:
            label = next(gen)
        except StopIteration:
            break
        except Exception as e:
            label = "step after %r" % record[-1][0]
            msg = "%s: %s" % (type(e).__name__, e)
            record.append((label, "refused", side.script(sch, module), msg))
            break
        record.append((label, "ok", side.script(sch, module), ""))
    return record, sch


# ---- one case


def inputs_for(case, params):
    """Random inputs for every parameter; outputs (the keys the reference returns) start
    as NaN (or -12345 for integers), so that a cell left unwritten shows."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    arrays = {}
    for name, shape, dtype in params:
        if dtype.startswith("float"):
            arrays[name] = rng.standard_normal(shape).astype(dtype)
        else:
            arrays[name] = rng.integers(-8, 9, size=shape).astype(dtype)
    wide = {k: v.astype(np.float64) if v.dtype.kind == "f" else v for k, v in arrays.items()}
    want = case.ref(**wide)
    for name in want:
        a = arrays[name]
        arrays[name] = np.full(a.shape, np.nan if a.dtype.kind == "f" else -12345, a.dtype)
    return arrays, want


def maxdiff(x, y):
    d = np.abs(np.asarray(x, np.float64) - np.asarray(y, np.float64))
    return float(np.nanmax(d)) if np.isfinite(d).any() else float("nan")


def compare_numbers(case, tvm_side, weft_side, tsch, wsch, problems):
    """Both sides' final programs run on the same inputs: each output close to numpy's
    and to the other side's."""
    arrays, want = inputs_for(case, tvm_side.params(tsch))
    got = {}
    for side, sch in ((tvm_side, tsch), (weft_side, wsch)):
        try:
            got[side.name] = side.run(sch, {k: v.copy() for k, v in arrays.items()})
        except Exception as e:
            msg = first_sentence("%s: %s" % (type(e).__name__, e))
            problems.append("build/run: %s refused: %s" % (side.name, msg))
    if problems:
        return
    for name, ref in want.items():
        t, w = got["tvm"][name], got["weft"][name]
        for what, x, y in (("TVM's", t, ref), ("weft's", w, ref), ("weft's", w, t)):
            if not np.allclose(x, y, rtol=case.rtol, atol=case.atol):
                problems.append(
                    "numbers: %s %s is not %s (max |diff| %.3g)"
                    % (what, name, "numpy's" if y is ref else "TVM's", maxdiff(x, y))
                )


def diff_text(a, b):
    lines = difflib.unified_diff(a.splitlines(True), b.splitlines(True), "tvm", "weft", n=2)
    return "".join(lines)


def compare_steps(trec, wrec, problems, details):
    """Acceptance and printed program, step by step, up to the first difference."""
    for (tl, to, tt, tm), (wl, wo, wt, wm) in zip(trec, wrec):
        label = tl if to == "ok" else wl  # a refusing side knows no label
        if to != wo:
            who, msg = ("tvm", tm) if to == "refused" else ("weft", wm)
            msg = first_sentence(msg)
            problems.append("acceptance: step %s: only %s refused it: %s" % (label, who, msg))
            return
        tvm_says = first_sentence(tm)
        if to == "refused" and tvm_says not in wm:
            weft_says = first_sentence(wm)
            details.append("refusal %s: TVM: %s\n  weft: %s" % (label, tvm_says, weft_says))
        if tt != wt:
            problems.append("printed program differs after %s" % label)
            details.append(diff_text(tt, wt))
            return
    if len(trec) != len(wrec):  # the same code ran out of steps at different places
        problems.append("acceptance: tvm ran %d steps, weft %d" % (len(trec) - 1, len(wrec) - 1))


def run_case(case, tvm_side, weft_side):
    """The differences of one case, as short sentences (none: the sides agree), and
    details: the diff of the printed programs, the two messages of a refusal."""
    trec, tsch = replay(tvm_side, case)
    wrec, wsch = replay(weft_side, case)
    problems, details = [], []
    if tsch is None and wsch is None:
        problems.append("the case's source parses on neither side: %s" % first_sentence(trec[0][3]))
        details.append("weft: " + first_sentence(wrec[0][3]))
        return problems, details
    compare_steps(trec, wrec, problems, details)
    if not problems and tsch is not None and wsch is not None:
        compare_numbers(case, tvm_side, weft_side, tsch, wsch, problems)
    return problems, details


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("names", nargs="*", help="run only the cases whose name holds one of these")
    args = ap.parse_args()
    t0 = time.time()
    tvm_side, weft_side = TvmSide(), WeftSide()
    names = args.names
    cases = [c for c in tvm_diff_cases.CASES if not names or any(n in c.name for n in names)]
    agree = known = differ = 0
    for case in cases:
        t = time.time()
        problems, details = run_case(case, tvm_side, weft_side)
        if not problems and not case.known:
            agree += 1
            status = "agree"
        elif problems and case.known:
            known += 1
            status = "known difference (%s)" % case.known
        elif problems:
            differ += 1
            status = "DIFFERS"
        else:
            differ += 1
            status = "AGREES, but is marked known (%s): remove the mark" % case.known
        if args.verbose or status.startswith(("DIFFERS", "AGREES")):
            print("tvm-diff: %s: %s (%.2f s)" % (case.name, status, time.time() - t))
            for p in problems:
                print("    " + p)
            lines = "\n".join(details).rstrip("\n").split("\n") if details else []
            if not args.verbose and len(lines) > 30:  # make test shows a failed log's tail
                lines = lines[:30] + ["... (-v shows all)"]
            for ln in lines:
                print("    " + ln)
    line = "tvm-diff: %d cases, %d agree" % (len(cases), agree)
    if known:
        line += ", %d known difference%s" % (known, "" if known == 1 else "s")
    if differ:
        line += ", %d differ" % differ
    if args.verbose:
        print("tvm-diff: %.1f s" % (time.time() - t0))
    print(line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
