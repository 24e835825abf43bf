#!/bin/sh
# fuzz-campaign.sh [-j JOBS] [-t CPU_SECONDS] [-s FIRST_SEED] -- a long fuzz
# run spread over cores: JOBS fuzzer processes (ASan+UBSan build, as `make
# fuzz`), seeds FIRST_SEED .. FIRST_SEED+JOBS-1, each for CPU_SECONDS of its
# own CPU time; then the sum of their case counts and every failure's replay
# line. `make fuzz-long` is the same campaign in one process (an hour).
# Logs in $FUZZ_LOGS (default build-asan/fuzz-campaign/). Exit status 1 if
# any process failed.
set -u
jobs=$(nproc 2>/dev/null || echo 2)
secs=600
seed=$(date +%s)
while getopts j:t:s: o; do
    case $o in
    j) jobs=$OPTARG ;;
    t) secs=$OPTARG ;;
    s) seed=$OPTARG ;;
    *) echo "usage: $0 [-j JOBS] [-t CPU_SECONDS] [-s FIRST_SEED]" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.." || exit 2
make --no-print-directory fuzz-asan-build >/dev/null || exit 2
logs=${FUZZ_LOGS:-build-asan/fuzz-campaign}
rm -rf "$logs" && mkdir -p "$logs"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
i=0
while [ $i -lt "$jobs" ]; do
    s=$((seed + i))
    build-asan/tests/fuzz/fuzz -t "$secs" -s $s >"$logs/seed-$s.log" 2>&1 &
    i=$((i + 1))
done
status=0
wait || status=1
# Sum the summary lines: "fuzz: seed S, N cases: a pointwise, b reduction,
# c TMA (d accepted), e TensorIR (f built); g compiled and ran, h wrong in
# known classes, k failures, ..."
for f in "$logs"/seed-*.log; do
    grep -q '^fuzz: seed .* 0 failures' "$f" && continue
    status=1
    echo "FAILED: $f"
    grep -E -A1 '^FAIL|^==[0-9]+==ERROR|runtime error|^fuzz: signal' "$f" | head -n 20
done
grep -h '^fuzz: seed' "$logs"/seed-*.log | awk '
{
    line = $0; gsub(/[(),;:]/, " ", line); n = split(line, w, " ")
    for (i = 2; i <= n; i++) if (w[i] ~ /^[0-9.]+$/ && w[i - 1] != "seed") {
        key = w[i + 1]; if (key == "s") key = w[i + 2]
        if (w[i - 1] == "TMA" || w[i - 1] == "TensorIR") key = w[i - 1] "_" key
        sum[key] += w[i]; if (!(key in seen)) { seen[key] = 1; order[++m] = key }
    }
    runs++
}
END {
    printf "fuzz campaign: %d processes;", runs
    for (j = 1; j <= m; j++) if (order[j] != "wall") printf " %s %g,", order[j], sum[order[j]]
    printf "\n"
}'
exit $status
