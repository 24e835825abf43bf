"""mini_pytest.py [-k SUBSTRING] [TEST FILES...] -- run python/tests without pytest.

The lent GPU machine has PyTorch and numpy but may lack pytest, and it has no
network to install it. This runner understands the part of pytest the tests
use: test_* functions of tests/test_*.py in file order, stacked
`pytest.mark.parametrize` (ids as a list or a function), `pytest.mark.skipif`,
`pytest.fixture` (function or module scope, fixtures taking fixtures), the
fixtures tmp_path, tmp_path_factory, monkeypatch and capsys, and
pytest.raises / skip / importorskip. It installs itself as the `pytest`
module of the run (tools/gpu-check.sh uses it where pytest is missing;
python/run_pytest.sh runs the real one).

It prints one line per test, "PASSED name", "SKIPPED name (reason)" or
"FAILED name: error", and last "N passed, N failed, N skipped"; it exits 1
when a test failed.
"""

import contextlib
import importlib
import inspect
import io
import os
import re
import shutil
import sys
import tempfile
import traceback
import types
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))


class Skipped(Exception):
    """pytest.skip(): the test (or fixture) does not apply here."""


# ---- the pytest module the tests import


class _Mark:
    def parametrize(self, names, values, ids=None):
        def deco(fn):
            fn.__dict__.setdefault("_params", []).append((names, list(values), ids))
            return fn

        return deco

    def skipif(self, cond, reason=""):
        def deco(fn):
            if cond:
                fn.__dict__.setdefault("_skips", []).append(reason)
            return fn

        return deco


class _Raises:
    def __init__(self, exc, match=None):
        self.exc, self.match, self.value = exc, match, None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            raise AssertionError("DID NOT RAISE %s" % (self.exc,))
        if not issubclass(kind, self.exc):
            return False
        if self.match is not None and not re.search(self.match, str(value)):
            raise AssertionError("Regex pattern %r does not match %r" % (self.match, str(value)))
        self.value = value
        return True


def fixture(fn=None, scope="function"):
    def deco(f):
        f._fixture_scope = scope
        return f

    return deco(fn) if fn is not None else deco


def skip(reason=""):
    raise Skipped(reason)


def importorskip(name, reason=None):
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Skipped(reason or "could not import %r" % name)


def make_module():
    m = types.ModuleType("pytest")
    m.mark, m.raises, m.fixture, m.skip, m.importorskip = _Mark(), _Raises, fixture, skip, importorskip
    m.__mini__ = True
    return m


# ---- built-in fixtures


class MonkeyPatch:
    def __init__(self):
        self._undo = []

    def setenv(self, name, value):
        old = os.environ.get(name)
        self._undo.append(lambda: _restore_env(name, old))
        os.environ[name] = str(value)

    def delenv(self, name, raising=True):
        old = os.environ.get(name)
        if old is None and raising:
            raise KeyError(name)
        self._undo.append(lambda: _restore_env(name, old))
        os.environ.pop(name, None)

    def chdir(self, path):
        old = os.getcwd()
        self._undo.append(lambda: os.chdir(old))
        os.chdir(str(path))

    def setattr(self, target, name, value):
        old = getattr(target, name)
        self._undo.append(lambda: setattr(target, name, old))
        setattr(target, name, value)

    def undo(self):
        while self._undo:
            self._undo.pop()()


def _restore_env(name, old):
    if old is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = old


class CapSys:
    def __init__(self):
        self.out, self.err = io.StringIO(), io.StringIO()

    def readouterr(self):
        res = types.SimpleNamespace(out=self.out.getvalue(), err=self.err.getvalue())
        self.out.seek(0)
        self.out.truncate()
        self.err.seek(0)
        self.err.truncate()
        return res


class TmpFactory:
    def __init__(self, root):
        self.root, self.n = root, 0

    def mktemp(self, name):
        self.n += 1
        p = Path(self.root) / ("%s%d" % (name, self.n))
        p.mkdir()
        return p


# ---- running


class Runner:
    def __init__(self, root):
        self.root = root
        self.factory = TmpFactory(root)
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}

    def report(self, what, name, detail=""):
        self.counts[what] += 1
        print("%s %s%s" % (what.upper(), name, detail), flush=True)

    def fixture_value(self, name, module, cache, per_test):
        if name in per_test:
            return per_test[name]
        if name == "tmp_path":
            value = self.factory.mktemp("tmp")
        elif name == "tmp_path_factory":
            value = self.factory
        elif name == "monkeypatch":
            value = MonkeyPatch()
        elif name == "capsys":
            value = CapSys()
        else:
            fn = getattr(module, name, None)
            if fn is None or not hasattr(fn, "_fixture_scope"):
                raise LookupError("fixture %r not found" % name)
            if fn._fixture_scope == "module" and name in cache:
                if isinstance(cache[name], Skipped):
                    raise cache[name]
                return cache[name]
            args = [self.fixture_value(a, module, cache, per_test) for a in _argnames(fn)]
            try:
                value = fn(*args)
            except Skipped as e:
                if fn._fixture_scope == "module":
                    cache[name] = e
                raise
            if fn._fixture_scope == "module":
                cache[name] = value
        per_test[name] = value
        return value

    def run_case(self, module, fn, name, params, cache):
        per_test = {}
        skips = fn.__dict__.get("_skips", [])
        if skips:
            return self.report("skipped", name, " (%s)" % skips[0])
        try:
            args = {}
            for a in _argnames(fn):
                args[a] = params[a] if a in params else self.fixture_value(a, module, cache, per_test)
            cap = per_test.get("capsys")
            with contextlib.ExitStack() as stack:
                if cap is not None:
                    stack.enter_context(contextlib.redirect_stdout(cap.out))
                    stack.enter_context(contextlib.redirect_stderr(cap.err))
                fn(**args)
        except Skipped as e:
            self.report("skipped", name, " (%s)" % e)
        except Exception as e:
            last = traceback.extract_tb(e.__traceback__)[-1]
            where = "%s:%d" % (os.path.basename(last.filename), last.lineno)
            msg = ("%s: %s" % (type(e).__name__, e)).replace("\n", " ")[:300]
            self.report("failed", name, ": %s at %s" % (msg, where))
            traceback.print_exc(file=sys.stderr)
        else:
            self.report("passed", name)
        finally:
            if "monkeypatch" in per_test:
                per_test["monkeypatch"].undo()

    def run_module(self, path, keyword):
        rel = os.path.relpath(path, HERE)
        modname = os.path.splitext(os.path.basename(path))[0]
        try:
            module = importlib.import_module(modname)
        except Skipped as e:
            return self.report("skipped", rel, " (%s)" % e)
        except Exception as e:
            return self.report("failed", rel, ": cannot import: %s: %s" % (type(e).__name__, e))
        cache = {}
        for fname, fn in _tests_of(module):
            for suffix, params in _cases(fn):
                name = "%s::%s%s" % (rel, fname, suffix)
                if keyword and keyword not in name:
                    continue
                self.run_case(module, fn, name, params, cache)


def _argnames(fn):
    return list(inspect.signature(fn).parameters)


def _tests_of(module):
    found = []
    for name, fn in vars(module).items():
        if name.startswith("test_") and inspect.isfunction(fn) and fn.__module__ == module.__name__:
            found.append((fn.__code__.co_firstlineno, name, fn))
    return [(n, f) for _, n, f in sorted(found)]


def _one_id(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return str(value)
    return None


def _cases(fn):
    """[(id suffix, {argname: value})] of fn's parametrize marks, the mark
    nearest the function first in each id, as pytest writes them."""
    cases = [([], {})]
    for names, values, ids in fn.__dict__.get("_params", []):
        names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
        expanded = []
        for i, v in enumerate(values):
            vals = list(v) if len(names) > 1 else [v]
            if callable(ids):
                label = str(ids(v))
            elif ids is not None:
                label = str(ids[i])
            else:
                parts = [_one_id(x) for x in vals]
                label = "-".join(p if p is not None else "%s%d" % (n, i) for p, n in zip(parts, names))
            for labels, params in cases:
                expanded.append((labels + [label], dict(params, **dict(zip(names, vals)))))
        cases = expanded
    return [("[%s]" % "-".join(l) if l else "", p) for l, p in cases]


def main(argv):
    keyword = None
    if len(argv) > 1 and argv[0] == "-k":
        keyword, argv = argv[1], argv[2:]
    sys.modules["pytest"] = make_module()  # even where pytest exists: its marks differ
    tests = os.path.join(HERE, "tests")
    for p in (HERE, tests):
        if p not in sys.path:
            sys.path.insert(0, p)
    files = argv or sorted(
        os.path.join(tests, f) for f in os.listdir(tests) if re.match(r"test_.*\.py$", f)
    )
    root = tempfile.mkdtemp(prefix="mini-pytest-")
    runner = Runner(root)
    try:
        for path in files:
            runner.run_module(os.path.abspath(path), keyword)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    c = runner.counts
    print("%d passed, %d failed, %d skipped" % (c["passed"], c["failed"], c["skipped"]))
    return 1 if c["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
