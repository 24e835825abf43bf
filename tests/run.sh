#!/bin/sh
# run.sh BUILD_DIR -- run the test runner built in BUILD_DIR; its last line is
# "N passed, N failed, N skipped". Exit status is non-zero when a test fails.
build=${1:-build}
exec "$build/tests/runner"
