#!/bin/sh
# gpu-check.sh -- everything the GPU machine checks, in one call: the build
# from a clean tree, the GPU test program (plain, under compute-sanitizer's
# memcheck and racecheck, and under ASan+UBSan), every benchmark, the SASS of
# the benchmark kernels, and a short table at the end. The whole log goes to
# $OUT/gpu-check.log ($OUT is the device tool's folder; /tmp/weft-gpu-check
# elsewhere), the SASS to $OUT/sass.txt, the table to $OUT/summary.txt.
# Exits non-zero if the build, a test or a benchmark failed.
#   WF_GPU_CHECK_QUICK=1  skips the sanitizer runs.
#   WF_GPU_CHECK_MUTANTS=0 skips the GPU-only mutants of tools/mutants.sh.
#   WF_GPU_CHECK_CORE=0 skips the core suite on the GPU.
#   WF_GPU_CHECK_PYTHON=0 skips the Python tests (PyTorch CUDA tensors).
#   WF_GPU_CHECK_TMA_TIMEOUT=S, WF_GPU_CHECK_SAN_TIMEOUT=S: the limits (seconds) of
#     the TMA tests (120) and of each sanitizer run over them (1800).
set -u
out=${OUT:-/tmp/weft-gpu-check}
tmp=$(mktemp -d /tmp/weft-gpu-check.XXXXXX)
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
# The benchmarks' kernels land here, so their SASS can be dumped afterwards.
bench_cache=$tmp/bench-cache
jobs=$(nproc 2>/dev/null || echo 8)
status=0
log=$out/gpu-check.log
summary=$out/summary.txt
: >"$log"
: >"$summary"

row() { printf '%-22s %s\n' "$1" "$2" >>"$summary"; }

# step NAME CMD...: run CMD, its output into the log (and the terminal),
# its last line and exit status into the table; remember a failure. A
# command stopped by `timeout` (exit 124, or 137 once killed) is marked so:
# the GPU test program prints "[RUN ] name" before each test, so its last
# line names the test that hung.
step() {
    name=$1
    shift
    echo "== $name: $*" | tee -a "$log"
    if "$@" >"$tmp/step.log" 2>&1; then rc=0; else rc=$?; status=1; fi
    cat "$tmp/step.log" | tee -a "$log"
    case $rc in
    124 | 137) row "$name" "TIMED OUT (a hang?) at: $(tail -n 1 "$tmp/step.log") (exit $rc)" ;;
    *) row "$name" "$(tail -n 1 "$tmp/step.log") (exit $rc)" ;;
    esac
}

# A kernel whose mbarrier never completes hangs the GPU (issue 18): the TMA
# tests run under these limits (seconds), so that a hang is a failed row of
# the table, not a stuck run.
tma_limit=${WF_GPU_CHECK_TMA_TIMEOUT:-120}
san_limit=${WF_GPU_CHECK_SAN_TIMEOUT:-1800}

print_summary() {
    echo
    echo "== summary"
    grep -h '^RESULT' "$log" 2>/dev/null | sed 's/^RESULT /  /'
    cat "$summary"
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv,noheader >"$tmp/device.txt" 2>&1
row "device" "$(tail -n 1 "$tmp/device.txt")"
step "build" make -j"$jobs" all
step "build bench" make -j"$jobs" bench
if [ $status != 0 ]; then
    print_summary
    exit 1
fi
step "build gpu tests" make -j"$jobs" build/tests/gpu/gpu_tests
step "gpu tests tma" timeout -k 10 "$tma_limit" build/tests/gpu/gpu_tests tma
step "gpu tests" build/tests/gpu/gpu_tests -tma
# Every kernel of the core suite (schedules, seeds, 500 random schedules) on the device too.
#   WF_GPU_CHECK_CORE=0  skips it (a few minutes).
if [ "${WF_GPU_CHECK_CORE:-1}" = 1 ]; then
    step "core tests on gpu" env WF_TEST_GPU=1 make test
fi
# The Python package's tests with PyTorch CUDA tensors (every seed example
# through Python; they skip where there is no GPU) under pytest: python3's,
# else the one carried in tools/wheels, installed offline. One row of the
# table per test.
#   WF_GPU_CHECK_PYTHON=0  skips them.
if [ "${WF_GPU_CHECK_PYTHON:-1}" = 1 ]; then
    step "python tests on gpu" sh python/run_gpu_tests.sh build "$tmp/python-results.txt"
    while IFS= read -r line; do
        row "py ${line%% *}" "${line#* }"
    done <"$tmp/python-results.txt"
fi
# The codegen mutants (wrong operators and casts in the CUDA text): the CPU
# suite kills them through the host-CUDA oracle; here tools/mutants.sh runs
# them with MUTANTS_GPU=1 against the GPU test program, on the device.
#   WF_GPU_CHECK_MUTANTS=0  skips them.
if [ "${WF_GPU_CHECK_MUTANTS:-1}" = 1 ]; then
    step "gpu mutants" env MUTANTS_GPU=1 sh tools/mutants.sh cg-
fi

for b in build/bench/*; do
    case $b in *.d) continue ;; esac
    [ -x "$b" ] || continue
    step "bench $(basename "$b")" env WF_CACHE_DIR="$bench_cache" "$b"
done

# PyTorch (eager and torch.compile) on the same problems, for the ratios.
step "bench torch" python3 bench/torch_ref.py
# Seed 002's LdStMatrixSet copy (ldmatrix/stmatrix, TMA with the 128-byte
# swizzle) at 8192^2 bf16 against torch's clone of the same tensor, launched
# on torch tensors through the Python package in the same process.
step "bench ldstmatrix" env WF_CACHE_DIR="$bench_cache" python3 bench/ldstmatrix.py
# The tensor-core GEMMs (mma.sync and wgmma, examples/gemm_mma_sync.py) against
# cuBLAS (torch.matmul) and Triton's matmul, on the same torch tensors.
step "bench gemm" env WF_CACHE_DIR="$bench_cache" python3 bench/gemm.py

# SASS of every benchmark kernel (the cache entry minus its 40-byte header).
: >"$out/sass.txt"
for f in "$bench_cache"/weft-*.bin; do
    [ -f "$f" ] || continue
    tail -c +41 "$f" >"$tmp/k.cubin"
    { echo "### $(basename "$f")"; cuobjdump -sass "$tmp/k.cubin"; } >>"$out/sass.txt" 2>&1
done
row "sass" "$(grep -c '^###' "$out/sass.txt") kernels; LDG.E.128: $(grep -c 'LDG.E.128' "$out/sass.txt"), STG.E.128: $(grep -c 'STG.E.128' "$out/sass.txt")"

if [ "${WF_GPU_CHECK_QUICK:-0}" = 0 ]; then
    san="compute-sanitizer --error-exitcode 9"
    # shellcheck disable=SC2086 # the lists are meant to split
    step "memcheck" timeout -k 10 "$san_limit" $san --tool memcheck build/tests/gpu/gpu_tests \
        seed000 copy_ add_ exp_ relu transpose cast_ tma reduce_tutorial reduce_rfactor reduce_softmax tir scalar
    # shellcheck disable=SC2086
    step "racecheck" timeout -k 10 "$san_limit" $san --tool racecheck build/tests/gpu/gpu_tests \
        seed000_gsgcopy transpose shared_memory tma reduce_tutorial reduce_rfactor reduce_softmax tir
    # shellcheck disable=SC2086
    step "synccheck" timeout -k 10 "$san_limit" $san --tool synccheck build/tests/gpu/gpu_tests \
        tma reduce_tutorial reduce_rfactor reduce_softmax
    step "gpu tests asan" make gpu-test-asan
fi

print_summary | tee -a "$log"
rm -rf "$tmp"
exit $status
