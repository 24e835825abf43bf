#!/bin/sh
# run_pytest.sh BUILD_DIR [pytest args] -- run the Python package's tests
# against BUILD_DIR/libweft.so. Uses python3 when it has numpy and pytest,
# else a virtual environment BUILD_DIR/venv, created (python3 -m venv) and
# filled from PyPI (pip install numpy pytest) the first time.
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
    python3 -m venv "$build/venv"
    "$build/venv/bin/pip" install -q numpy pytest || {
        echo "python: pip could not install numpy and pytest (offline?)" >&2
        exit 1
    }
    py=$build/venv/bin/python
fi
cd "$root/python"
WEFT_LIB=$build/libweft.so exec "$py" -m pytest -q -p no:cacheprovider -rs "$@" tests
