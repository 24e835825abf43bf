#!/bin/sh
# report.sh LOGDIR STEP... -- print the logs of `make test`'s steps (run side
# by side, each into LOGDIR/STEP.log with "STATUS SECONDS" in LOGDIR/STEP.rc)
# in the order given, each under a header line with its status and wall time;
# then the steps that failed; the last step's log (the C runner's, whose
# "N passed, N failed, N skipped" must end the output) comes last. Exit
# status 1 if any step failed or left no status. With REPORT_LAST_SHOWN=1 the
# last step's log was already shown as it ran: only its header and its last
# line (the summary) are printed again.
logs=$1
shift
status() { # prints "STATUS SECONDS" of step $1
    if [ -f "$logs/$1.rc" ]; then cat "$logs/$1.rc"; else echo "missing ?"; fi
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
    echo "== make test: $1: $what, $3 s wall"
    [ -f "$logs/$1.log" ] || return 0
    if [ "${REPORT_LAST_SHOWN:-0}" = 1 ] && [ "$1" = "$last" ]; then
        tail -n 1 "$logs/$1.log"
    else
        cat "$logs/$1.log"
    fi
}
for step in "$@"; do
    [ "$step" = "$last" ] || show "$step"
done
[ -z "$failed" ] || echo "== make test: FAILED steps:$failed (logs in $logs/)"
show "$last"
[ -z "$failed" ]
