#!/bin/sh
# run_gpu_tests.sh BUILD_DIR RESULTS -- the Python package's tests on a
# machine with a GPU (tools/gpu-check.sh): the tests that skip without a GPU
# or PyTorch (test_cuda.py, test_gpu_seeds.py, the TensorIR notebook on
# weft.cuda() ...) run there with PyTorch CUDA tensors. Uses the first of
# python3 and BUILD_DIR/venv/bin/python that imports torch and numpy (else
# one with numpy alone: the torch tests then skip, saying so). Runs pytest:
# that python's own, else the one carried in tools/wheels, installed offline
# into BUILD_DIR/pytest (python/pytest_path.sh; the machine has no network).
# Writes one line per test to RESULTS,
# "PASSED|FAILED|SKIPPED name [(reason) | : error]", prints the run's output
# and, last, "N passed, N failed, N skipped"; exits non-zero if a test
# failed or nothing could run.
set -u
build=${1:-build}
results=${2:-/dev/null}
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
: >"$results"

py=
for want in "torch, numpy" numpy; do
    for cand in python3 "$build/venv/bin/python"; do
        if [ -z "$py" ] && "$cand" -c "import $want" 2>/dev/null; then
            py=$cand
        fi
    done
done
if [ -z "$py" ]; then
    echo "python: no python3 with numpy here (and no $build/venv): nothing run"
    echo "0 passed, 1 failed, 0 skipped"
    echo "FAILED python (no python3 with numpy)" >>"$results"
    exit 1
fi
"$py" -c 'import torch; print("python:", torch.__version__, "cuda", torch.cuda.is_available())' \
    2>/dev/null || echo "python: $py has no PyTorch; the torch tests skip"

if ! extra=$(sh "$root/python/pytest_path.sh" "$py" "$build/pytest"); then
    echo "0 passed, 1 failed, 0 skipped"
    echo "FAILED python (no pytest: $py lacks it and tools/wheels did not install)" >>"$results"
    exit 1
fi
if [ -n "$extra" ]; then
    PYTHONPATH=$extra${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONPATH
fi
"$py" -c 'import pytest; print("python: pytest", pytest.__version__, "from", pytest.__file__)'

cd "$root/python" || exit 1
export WEFT_LIB="$build/libweft.so"
xml=$(mktemp /tmp/weft-pytest.XXXXXX)
"$py" -m pytest -q -p no:cacheprovider -rs --junitxml="$xml" tests
rc=$?
# one line per test case of the JUnit XML pytest wrote
"$py" - "$xml" "$results" <<'PY'
import sys, xml.etree.ElementTree as ET
lines, counts = [], {"PASSED": 0, "FAILED": 0, "SKIPPED": 0}
for case in ET.parse(sys.argv[1]).iter("testcase"):
    name = "%s::%s" % (case.get("classname", "").replace(".", "/") + ".py", case.get("name"))
    what, detail = "PASSED", ""
    for child in case:
        if child.tag in ("failure", "error"):
            what, detail = "FAILED", ": " + (child.get("message") or "").replace("\n", " ")[:300]
        elif child.tag == "skipped" and what == "PASSED":
            what, detail = "SKIPPED", " (%s)" % (child.get("message") or "").replace("\n", " ")
    counts[what] += 1
    lines.append("%s %s%s" % (what, name, detail))
with open(sys.argv[2], "a") as out:
    out.write("".join(l + "\n" for l in lines))
print("%d passed, %d failed, %d skipped" % (counts["PASSED"], counts["FAILED"], counts["SKIPPED"]))
PY
rm -f "$xml"
exit $rc
