#!/bin/sh
# report.sh LOGDIR STEP... -- the report of `make test`'s steps (run side by
# side, each into LOGDIR/STEP.log with "STATUS SECONDS" in LOGDIR/STEP.rc):
# one line per step, in the order given, with its status, wall time and
# summary (the fuzzer's case counts, pytest's counts, ...); for a failed
# step, the tail of its log; then the steps that failed. The last step (the
# C runner, whose "N passed, N failed, N skipped" must end the output) comes
# last, its output reduced to its failures (tests/runner-failures.awk). The
# full logs stay in LOGDIR. Exit status 1 if any step failed or left no
# status. With REPORT_LAST_SHOWN=1 the last step's failures were already
# shown as it ran: only its header and its last line (the summary) are
# printed again.
logs=$1
shift
here=$(dirname "$0")
TAIL=${REPORT_TAIL:-40}
status() { # prints "STATUS SECONDS" of step $1
    if [ -f "$logs/$1.rc" ]; then cat "$logs/$1.rc"; else echo "missing ?"; fi
}
# The line of step $1's log that sums it up.
summary() {
    f="$logs/$1.log"
    [ -f "$f" ] || return 0
    case $1 in
    fuzz) grep -E '^fuzz: (seed|signal)' "$f" | tail -n 1 | sed 's/^fuzz: //' ;;
    tir-fuzz) grep -E 'DONE |^Done [0-9]+ runs|SKIPPED|^==[0-9]+==ERROR|^SUMMARY' "$f" | tail -n 1 ;;
    *) grep -v -E '^make(\[[0-9]+\])?: ' "$f" | grep -v '^[[:space:]]*$' | tail -n 1 ;;
    esac
}
failed=
last=
for step in "$@"; do
    last=$step
    set -- $(status "$step") "$@"
    [ "$1" = 0 ] || failed="$failed $step"
    shift 2
done
show() {
    set -- "$1" $(status "$1")
    if [ "$2" = 0 ]; then what=ok; else what="FAILED (status $2)"; fi
    if [ "$1" = "$last" ]; then
        echo "== make test: $1: $what, $3 s wall"
        [ -f "$logs/$1.log" ] || return 0
        if [ "${REPORT_LAST_SHOWN:-0}" = 1 ]; then
            tail -n 1 "$logs/$1.log"
        else
            awk -f "$here/runner-failures.awk" "$logs/$1.log"
        fi
        return 0
    fi
    echo "== make test: $1: $what, $3 s wall: $(summary "$1")"
    if [ "$2" != 0 ] && [ -f "$logs/$1.log" ]; then
        echo "-- the last $TAIL lines of $logs/$1.log:"
        tail -n "$TAIL" "$logs/$1.log"
    fi
}
for step in "$@"; do
    [ "$step" = "$last" ] || show "$step"
done
[ -z "$failed" ] || echo "== make test: FAILED steps:$failed (logs in $logs/)"
show "$last"
[ -z "$failed" ]
