#!/bin/sh
# tvm_diff.sh BUILD_DIR [tvm_diff.py args] -- the differential test against Apache TVM
# (tests/tir/tvm_diff.py) on BUILD_DIR/libweft.so, in the venv BUILD_DIR/tvm-venv with
# apache-tvm $TVM_PIN and numpy, made here on first use (pip's output goes to
# BUILD_DIR/tvm-venv.log). Where pip cannot install them (no network, no package index,
# no wheel for this Python) it prints one line, "tvm-diff: skipped (...)", and exits 0:
# the test then needs a machine that can reach the index. The pin is the TVM the goldens
# of tests/tir/gen_golden*.py came from; a venv holding another version is made again.
TVM_PIN=0.27.0.post1
build=${1:-build}
[ $# -gt 0 ] && shift
root=$(cd "$(dirname "$0")/../.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
venv=$build/tvm-venv
log=$build/tvm-venv.log
ready() {
    "$venv/bin/python" -c "import numpy, tvm; assert tvm.__version__ == '$TVM_PIN'" 2>/dev/null
}
skip() {
    echo "tvm-diff: skipped ($1)"
    exit 0
}
if ! ready; then
    rm -rf "$venv"
    python3 -m venv "$venv" >"$log" 2>&1 || skip "python3 -m venv failed: $(tail -n 1 "$log")"
    # short timeouts: an unreachable index is a skip within seconds, not minutes
    if ! "$venv/bin/pip" install --disable-pip-version-check -q --timeout 20 --retries 2 \
        "apache-tvm==$TVM_PIN" numpy >>"$log" 2>&1; then
        if grep -q -E 'NewConnectionError|ConnectTimeout|ReadTimeout|Connection refused|Name or service not known|Temporary failure in name resolution|Network is unreachable|ProxyError|SSLError' "$log"; then
            why="the package index cannot be reached"
        else
            why=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
        fi
        rm -rf "$venv"
        skip "pip could not install apache-tvm==$TVM_PIN: $why; see $log"
    fi
    ready || skip "apache-tvm==$TVM_PIN installed but does not import; see $log"
fi
WEFT_LIB=$build/libweft.so PYTHONPATH=$root/python exec "$venv/bin/python" \
    "$root/tests/tir/tvm_diff.py" "$@"
