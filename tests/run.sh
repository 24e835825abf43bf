#!/bin/sh
# run.sh BUILD_DIR [RUNNER ARGS] -- run the test runner built in BUILD_DIR
# (its arguments: -j N, --times, a name filter; see tests/harness_run.c); its
# last line is "N passed, N failed, N skipped". Exit status is non-zero when
# a test fails.
build=${1:-build}
[ $# -gt 0 ] && shift
exec "$build/tests/runner" "$@"
