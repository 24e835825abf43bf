#!/bin/sh
# pytest_path.sh PYTHON DIR -- make pytest importable by PYTHON, offline:
# when PYTHON has no pytest, install the wheels carried in tools/wheels
# (pip install --no-index --target DIR) and print DIR, the directory to put
# on PYTHONPATH; print nothing when PYTHON has pytest already. Exits
# non-zero, saying why, when neither works. For python/run_pytest.sh and
# python/run_gpu_tests.sh (the lent GPU machine has no network).
py=$1
dir=$2
root=$(cd "$(dirname "$0")/.." && pwd)
"$py" -c 'import pytest' 2>/dev/null && exit 0
if ! PYTHONPATH=$dir "$py" -c 'import pytest' 2>/dev/null; then
    echo "python: installing pytest from tools/wheels into $dir" >&2
    rm -rf "$dir"
    "$py" -m pip install -q --disable-pip-version-check --no-index --find-links "$root/tools/wheels" \
        --target "$dir" pytest >&2 || {
        echo "python: could not install pytest from tools/wheels with $py" >&2
        exit 1
    }
fi
echo "$dir"
