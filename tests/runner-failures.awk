# runner-failures.awk -- the C runner's output (tests/harness_run.c) reduced
# to its failures: the runner prints each test's output, then its
# "[PASS] name" / "[FAIL] name" / "[SKIP] name (reason)" line, and last
# "N passed, N failed, N skipped". This prints a failed test's output (its
# last MAX lines) and its [FAIL] line, the summary line, and whatever
# output no result line followed (a runner that stopped midway); passed and
# skipped tests print nothing (the full output stays in the log).
BEGIN { MAX = 60; n = 0 }
/^\[PASS\] / || /^\[SKIP\] / { n = 0; next }
/^\[FAIL\] / {
    if (n > MAX) print "  ... (" n - MAX " earlier lines of its output in the log)"
    for (i = (n > MAX ? n - MAX : 0); i < n; i++) print buf[i]
    print; fflush(); n = 0; next
}
/^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$/ {
    for (i = (n > MAX ? n - MAX : 0); i < n; i++) print buf[i]
    print; fflush(); n = 0; next
}
{ buf[n++] = $0 }
END { for (i = (n > MAX ? n - MAX : 0); i < n; i++) print buf[i] }
