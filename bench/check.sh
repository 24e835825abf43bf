#!/bin/sh
# check.sh [BUILD_DIR] -- build every benchmark against BUILD_DIR/libweft.a
# (default build; run `make` first) with the plain compiler, without the
# Makefile, and run each: every one must exit 0. On a machine without a
# GPU, the GPU benchmarks (those calling bench_require_gpu) must print
# "skipped: no CUDA device" instead of failing.
build=${1:-build}
cc=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
for src in bench/*.c; do
    name=$(basename "$src" .c)
    if ! $cc -std=c11 -O2 -Iinclude -D_POSIX_C_SOURCE=200809L -o "$tmp/$name" "$src" \
        "$build/libweft.a" -ldl -lm; then
        echo "FAIL $name: does not build"; fail=1; continue
    fi
    "$tmp/$name" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: exit $rc"; tail -3 "$tmp/$name.out"; fail=1; continue
    fi
    if grep -q bench_require_gpu "$src" && grep -q "skipped: no CUDA device" "$tmp/$name.out"; then
        echo "ok   $name (skipped: no CUDA device)"
    else
        echo "ok   $name"
    fi
done
exit $fail
