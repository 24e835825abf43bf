#!/bin/sh
# pip.sh BUILD_DIR -- the Python package the way a user installs it: a wheel
# of this tree (`pip wheel .`: setup.py runs make for BUILD_DIR/libweft.so and
# puts it inside), installed with pip into a new virtual environment, then
# `import weft` from another directory, with no WEFT_LIB, PYTHONPATH or
# LD_LIBRARY_PATH, runs a kernel on numpy arrays with the bundled library.
# Offline: --no-build-isolation --no-deps --no-index; numpy and setuptools
# come from the python that makes the venv (BUILD_DIR/venv, else python3;
# skipped, saying so, if neither has them), setuptools' wheel support if it
# lacks it from tools/wheels. Run by tests/install/run.sh (make install-test).
set -e
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "pip install test: FAIL: $*" >&2; exit 1; }
py=
for cand in "$root/$build/venv/bin/python" "$build/venv/bin/python" python3; do
    if [ -z "$py" ] && "$cand" -c 'import numpy, setuptools' 2>/dev/null; then
        py=$cand
    fi
done
if [ -z "$py" ]; then
    echo "pip install test: SKIPPED: no python with numpy and setuptools (make python-venv makes $build/venv)"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/^#define WF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' "$root/include/weft.h" | paste -sd.)

"$py" -m venv --system-site-packages "$tmp/venv" || fail "python -m venv"
vpy=$tmp/venv/bin/python
# --system-site-packages reaches the base interpreter's packages only: when
# $py is itself a venv's, a .pth file lends the new venv its numpy.
site() { "$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
site "$py" >"$(site "$vpy")/weft-test-parent.pth"
if ! "$vpy" -c 'import setuptools.command.bdist_wheel' 2>/dev/null &&
    ! "$vpy" -c 'import wheel' 2>/dev/null; then
    # setuptools < 70.1 builds wheels with the wheel package's help
    "$vpy" -m pip install -q --no-index --find-links "$root/tools/wheels" wheel >"$tmp/log" 2>&1 ||
        fail "pip install wheel: $(cat "$tmp/log")"
fi

cd "$root"
WEFT_BUILD=$build "$vpy" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$tmp/dist" . \
    >"$tmp/log" 2>&1 || fail "pip wheel .: $(tail -n 30 "$tmp/log")"
whl=$(ls "$tmp/dist")
case $whl in
weft-$version-py3-none-linux_*.whl) ;;
*) fail "the wheel is $whl, want weft-$version-py3-none-linux_<arch>.whl" ;;
esac
"$vpy" -c 'import sys, zipfile; sys.exit("weft/libweft.so" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
    "$tmp/dist/$whl" || fail "$whl lacks weft/libweft.so"
"$vpy" -m pip install -q --no-deps --no-index "$tmp/dist/$whl" >"$tmp/log" 2>&1 ||
    fail "pip install $whl: $(tail -n 30 "$tmp/log")"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
cat >use.py <<'PY'
import os
import numpy as np
import weft

here = os.path.dirname(weft.__file__)
assert weft.library_path == os.path.join(here, "libweft.so"), weft.library_path
with weft.Fusion() as f:
    a = f.input(weft.f32, [-1, 256])
    b = weft.exp(a) + a
    f.output(b)
    b.split(1, 64).parallelize(0, weft.BIDX).parallelize(2, weft.TIDX)
    b.propagate_transforms()
    b.parallelize_all_like()
    f.inline_most()
    k = f.compile()
x = np.linspace(-1, 1, 3 * 256, dtype=np.float32).reshape(3, 256)
np.testing.assert_allclose(k.run(x), np.exp(x) + x, rtol=1e-6, atol=1e-6)
where = os.path.relpath(here, os.environ["VENV"])
shape = "x".join(map(str, x.shape))
print("weft %s from %s: ran a kernel on a %s array" % (weft.__version__, where, shape))
PY
got=$(env -u WEFT_LIB -u PYTHONPATH -u LD_LIBRARY_PATH VENV="$tmp/venv" "$vpy" use.py 2>&1) ||
    fail "import weft from another directory: $got"
pyver=$("$vpy" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
want="weft $version from lib/$pyver/site-packages/weft: ran a kernel on a 3x256 array"
[ "$got" = "$want" ] || fail "printed '$got', want '$want'"
echo "pip install test: ok ($whl into a new venv, import weft elsewhere with no environment variables)"
