#!/bin/sh
# run_pytest.sh BUILD_DIR [pytest args] -- run the Python package's tests
# against BUILD_DIR/libweft.so. Uses python3 when it has numpy and pytest,
# else a virtual environment BUILD_DIR/venv, created (python3 -m venv) and
# filled from PyPI (pip install numpy pytest) the first time; offline, a
# python3 with numpy but no pytest runs python/mini_pytest.py instead
# (which takes only -k SUBSTRING and test files as arguments).
set -e
build=${1:-build}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
if [ -x "$build/venv/bin/python" ] && "$build/venv/bin/python" -c 'import numpy, pytest' 2>/dev/null; then
    py=$build/venv/bin/python
elif python3 -c 'import numpy, pytest' 2>/dev/null; then
    py=python3
else
    echo "python: creating $build/venv with numpy and pytest"
    if python3 -m venv "$build/venv" && "$build/venv/bin/pip" install -q numpy pytest; then
        py=$build/venv/bin/python
    elif python3 -c 'import numpy' 2>/dev/null; then
        # offline, with numpy (the lent GPU machine): the small runner needs no pytest
        echo "python: pip could not install pytest (offline?); running python/mini_pytest.py"
        cd "$root/python"
        WEFT_LIB=$build/libweft.so exec python3 mini_pytest.py "$@"
    else
        echo "python: pip could not install numpy and pytest (offline?)" >&2
        exit 1
    fi
fi
cd "$root/python"
WEFT_LIB=$build/libweft.so exec "$py" -m pytest -q -p no:cacheprovider -rs "$@" tests
