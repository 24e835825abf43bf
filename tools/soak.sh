#!/bin/sh
# soak.sh -- the fuzzer's long run spread over the cores of a machine:
# JOBS copies of the ASan+UBSan fuzzer (tests/fuzz), each with its own seed
# (BASE_SEED + i), for SECONDS each, so JOBS x SECONDS of fuzzing in SECONDS
# of wall time (`make fuzz-long` is the same on one core for an hour). Each
# log goes to $OUT/fuzz-<seed>.log (/tmp/weft-soak elsewhere); the script
# prints one summary line per seed and exits non-zero if any found a failure.
#   tools/soak.sh [JOBS] [SECONDS] [BASE_SEED]
set -u
jobs=${1:-$(nproc 2>/dev/null || echo 2)}
secs=${2:-3600}
base=${3:-$(date +%s)}
out=${OUT:-/tmp/weft-soak}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 1
make -j"$jobs" fuzz-asan-build >"$out/soak-build.log" 2>&1 || { tail -20 "$out/soak-build.log"; exit 1; }
i=0
while [ "$i" -lt "$jobs" ]; do
    seed=$((base + i))
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        build-asan/tests/fuzz/fuzz -t "$secs" -s "$seed" >"$out/fuzz-$seed.log" 2>&1 &
    i=$((i + 1))
done
wait
status=0
i=0
while [ "$i" -lt "$jobs" ]; do
    seed=$((base + i))
    last=$(grep '^fuzz: seed' "$out/fuzz-$seed.log" | tail -n 1)
    [ -n "$last" ] || last="fuzz $seed: no summary (crashed?): $(tail -n 1 "$out/fuzz-$seed.log")"
    echo "$last"
    case $last in *" 0 failures"*) ;; *) status=1 ;; esac
    i=$((i + 1))
done
exit $status
