#!/bin/sh
# run_pytest.sh BUILD_DIR [pytest args] -- run the Python package's tests
# against BUILD_DIR/libweft.so with pytest. Uses BUILD_DIR/venv when it has
# numpy, else python3 when it has numpy, else makes BUILD_DIR/venv and fills
# it with numpy from PyPI. pytest is the python's own, else the one carried
# in tools/wheels (installed offline into BUILD_DIR/pytest, see
# python/pytest_path.sh): the same suite runs under the real pytest
# everywhere, with no network needed for it.
set -e
build=${1:-build}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
if [ -x "$build/venv/bin/python" ] && "$build/venv/bin/python" -c 'import numpy' 2>/dev/null; then
    py=$build/venv/bin/python
elif python3 -c 'import numpy' 2>/dev/null; then
    py=python3
else
    echo "python: creating $build/venv with numpy"
    if python3 -m venv "$build/venv" && "$build/venv/bin/pip" install -q numpy; then
        py=$build/venv/bin/python
    else
        echo "python: pip could not install numpy (offline?)" >&2
        exit 1
    fi
fi
extra=$(sh "$root/python/pytest_path.sh" "$py" "$build/pytest")
if [ -n "$extra" ]; then
    PYTHONPATH=$extra${PYTHONPATH:+:$PYTHONPATH}
    export PYTHONPATH
fi
cd "$root/python"
WEFT_LIB=$build/libweft.so exec "$py" -m pytest -q -p no:cacheprovider -rs "$@" tests
