#!/usr/bin/env python3
"""errors-coverage.py -- which of the library's error messages docs/errors.md
shows. Every err_fail / err_failb / err_fails call in src/ is a message site;
its format string (the string literals after the status, joined) becomes a
pattern (%d, %s, ... match anything), and a site is covered when a message
printed on the page matches it. Left out: out-of-memory sites (the page
names that message once; tests/fault fails every allocation), and internal
errors, whose message begins with "internal error" (err_internal's own in
src/base/err.c, which err_assert reports, and the few that name what failed):
no user input reaches them, each is a bug in weft. A check that no input
can fail is an err_assert, not an err_fail with a user-error status, so it
is no message site either. Messages shown in ```text blocks without a
program (the page's "Not reproduced here" section: those that depend on
the machine, such as the CUDA driver's) count as shown. Prints the uncovered sites, most common first
by file, and a summary line (`-q`: the summary line only, and the
uncovered sites when below the minimum); `--min N` exits 1 below N covered
sites; `--all` exits 1 when any site is uncovered (`make test` runs it with
the strictest of these the page meets).
"""

import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALL = re.compile(r"\berr_fail[bs]?\s*\(\s*[^,]+,\s*(WF_[A-Z_]+)\s*,\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)", re.S)
CONV = re.compile(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp%]")


def sites():
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "*", "*.[ch]"))):
        text = open(path).read()
        for m in CALL.finditer(text):
            fmt = "".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(2)))
            fmt = fmt.replace("\\n", "\n").replace('\\"', '"')
            if not CONV.sub("", fmt).strip() or m.group(1) == "WF_ERR_MEMORY":
                continue  # "%s" (a message made elsewhere), or out of memory (tests/fault)
            if fmt.startswith("internal error"):
                continue  # a bug in weft, never a user's mistake
            line = text.count("\n", 0, m.start()) + 1
            yield os.path.relpath(path, ROOT), line, m.group(1), fmt


def pattern(fmt):
    parts = CONV.split(fmt)
    return re.compile(".*?".join(re.escape(p) for p in parts), re.S)


def main():
    page = open(os.path.join(ROOT, "docs", "errors.md")).read()
    shown = re.findall(r"^```text\n(.*?)^```", page, re.S | re.M)
    covered, missing = [], []
    for s in sites():
        p = pattern(s[3])
        (covered if any(p.search(m) for m in shown) else missing).append(s)
    need = len(covered) + len(missing) if "--all" in sys.argv else 0
    if "--min" in sys.argv:
        need = max(need, int(sys.argv[sys.argv.index("--min") + 1]))
    low = len(covered) < need
    for path, line, status, fmt in missing if low or "-q" not in sys.argv else []:
        print("%s:%d %s: %s" % (path, line, status, fmt.splitlines()[0][:100]))
    total = len(covered) + len(missing)
    print("docs/errors.md shows %d of %d message sites" % (len(covered), total))
    if low:
        print("errors-coverage: fewer than the %d required" % need)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
