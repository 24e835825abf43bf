#!/bin/sh
# run.sh BUILD_DIR -- the `weft` command's output, line for line where it
# is deterministic: help, version, cache and cache clear (on a temp cache
# directory holding weft's entries, a leftover temp file and files that are
# not weft's), the cache switched off, misuse; and the shape of `weft info`'s
# machine-dependent lines (NVRTC, driver, device), whose paths must exist.
set -e
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
case $build in /*) ;; *) build=$root/$build ;; esac
weft=$build/weft
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail() { echo "cli test: FAIL: $*" >&2; exit 1; }
# expect NAME WANT_STATUS WANT_FILE -- CMD...: stdout and status must match.
expect() {
    name=$1 status=$2 want=$3
    shift 4
    set +e
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    set -e
    [ "$got" = "$status" ] || fail "$name: exit status $got, want $status (stderr: $(cat "$tmp/err"))"
    diff -u "$want" "$tmp/out" || fail "$name: output differs (above)"
    n=$((n + 1))
}
version=$(sed -n 's/^#define WF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' \
    "$root/include/weft.h" | paste -sd.)

cat >"$tmp/help" <<'TXT'
usage: weft <command> [arguments]

commands:
  help             list the commands (this text)
  version          the library's version (also --version)
  info             what weft finds: NVRTC, CUDA driver, device, kernel cache
  cache [clear]    the kernel cache's size; `clear` empties it
  demo             print the CUDA of a global -> shared -> global copy
  draw EXAMPLE     an IterDomain graph as DOT or SVG (also FILE.py, FILE.weft); --list
  tir FILE         a TVMScript file, shown and as CUDA; --schedule TRACE.py applies a trace

environment: WF_CACHE_DIR (kernel cache; empty = off), CUDA_HOME (where to look for NVRTC
and the driver first), WF_DUMP=<pass>,... (print the kernel IR after lowering passes)
TXT
expect help 0 "$tmp/help" -- "$weft" help
expect "no command" 0 "$tmp/help" -- "$weft"
expect --help 0 "$tmp/help" -- "$weft" --help
echo "weft $version" >"$tmp/version"
expect version 0 "$tmp/version" -- "$weft" version
expect --version 0 "$tmp/version" -- "$weft" --version

: >"$tmp/empty"
expect "unknown command" 2 "$tmp/empty" -- "$weft" frobnicate
grep -qx "weft: unknown command 'frobnicate'; \`weft help\` lists the commands" "$tmp/err" ||
    fail "unknown command message: $(cat "$tmp/err")"
expect "cache misuse" 2 "$tmp/empty" -- "$weft" cache empty
grep -qx "weft: usage: weft cache \[clear\]" "$tmp/err" || fail "cache usage: $(cat "$tmp/err")"
expect "info misuse" 2 "$tmp/empty" -- "$weft" info now

# A cache directory with two entries of weft (7 + 5 bytes), a temp file a
# killed store left (3 bytes), and three files that are not weft's.
c=$tmp/cache
mkdir -p "$c"
printf 'abcdefg' >"$c/weft-00112233445566aa.bin"
printf 'hijkl' >"$c/weft-ffeeddccbbaa9988.bin"
printf 'xyz' >"$c/weft-ffeeddccbbaa9988.bin.Ab12Cd"
printf 'keep' >"$c/notes.txt"
printf 'keep' >"$c/weft-123.bin"
printf 'keep' >"$c/weft-00112233445566AA.bin"
echo "kernel cache: $c, 3 entries, 15 bytes" >"$tmp/want"
expect cache 0 "$tmp/want" -- env WF_CACHE_DIR="$c" "$weft" cache
echo "kernel cache: $c, removed 3 entries, 15 bytes" >"$tmp/want"
expect "cache clear" 0 "$tmp/want" -- env WF_CACHE_DIR="$c" "$weft" cache clear
[ "$(ls "$c" | sort | paste -sd' ')" = "notes.txt weft-00112233445566AA.bin weft-123.bin" ] ||
    fail "cache clear touched other files: $(ls "$c")"
echo "kernel cache: $c, removed 0 entries, 0 bytes" >"$tmp/want"
expect "cache clear again" 0 "$tmp/want" -- env WF_CACHE_DIR="$c" "$weft" cache clear
echo "kernel cache: $tmp/none, 0 entries, 0 bytes" >"$tmp/want"
expect "cache missing dir" 0 "$tmp/want" -- env WF_CACHE_DIR="$tmp/none" "$weft" cache
[ ! -e "$tmp/none" ] || fail "weft cache created the directory"
echo "kernel cache: off (WF_CACHE_DIR is set but empty, or HOME is not set)" >"$tmp/want"
expect "cache off" 0 "$tmp/want" -- env WF_CACHE_DIR= "$weft" cache clear
echo "kernel cache: /nonexistent-home/.cache/weft, 0 entries, 0 bytes" >"$tmp/want"
expect "cache default dir" 0 "$tmp/want" -- env -u WF_CACHE_DIR HOME=/nonexistent-home "$weft" cache

# info: five lines; the first and last are fixed, the middle three have a
# fixed shape, and every path they name exists.
printf 'abc' >"$c/weft-0000000000000001.bin"
WF_CACHE_DIR="$c" "$weft" info >"$tmp/info" || fail "weft info failed"
[ "$(wc -l <"$tmp/info")" -eq 5 ] || fail "info has $(wc -l <"$tmp/info") lines: $(cat "$tmp/info")"
[ "$(sed -n 1p "$tmp/info")" = "weft $version" ] || fail "info line 1: $(sed -n 1p "$tmp/info")"
[ "$(sed -n 5p "$tmp/info")" = "kernel cache: $c, 1 entries, 3 bytes" ] ||
    fail "info line 5: $(sed -n 5p "$tmp/info")"
line=$(sed -n 2p "$tmp/info")
case $line in
"nvrtc: not found: could not load libnvrtc"*) ;;
"nvrtc: "[0-9]*.[0-9]*", /"*) [ -f "${line#*, }" ] || fail "nvrtc path does not exist: $line" ;;
*) fail "info line 2: $line" ;;
esac
line=$(sed -n 3p "$tmp/info")
case $line in
"driver: not found: could not load libcuda"*) driver=no ;;
"driver: /"*) driver=yes; [ -f "${line#driver: }" ] || fail "driver path does not exist: $line" ;;
*) fail "info line 3: $line" ;;
esac
line=$(sed -n 4p "$tmp/info")
case $driver/$line in
"no/device: none (no driver)") ;;
"yes/device: none: no CUDA device"*) ;;
"yes/device: "*", sm_"[0-9]*) ;;
*) fail "info line 4 (driver $driver): $line" ;;
esac
# CUDA_HOME is searched first: a fake NVRTC there that does not load is
# skipped for the real one (or reported), never a crash.
mkdir -p "$tmp/cuda/lib64" && printf 'not a library' >"$tmp/cuda/lib64/libnvrtc.so"
CUDA_HOME="$tmp/cuda" WF_CACHE_DIR="$c" "$weft" info >"$tmp/info2" || fail "info with a bad CUDA_HOME"
[ "$(wc -l <"$tmp/info2")" -eq 5 ] || fail "info with a bad CUDA_HOME: $(cat "$tmp/info2")"
n=$((n + 2))

# demo prints a kernel and its shared memory (2 x 4 floats).
"$weft" demo >"$tmp/demo" || fail "weft demo"
grep -q "__global__" "$tmp/demo" || fail "demo printed no kernel"
[ "$(tail -n 1 "$tmp/demo")" = "// shared memory: 32 bytes" ] || fail "demo: $(tail -n 1 "$tmp/demo")"

# tir shows a TVMScript program as TVM prints it, then the CUDA of it unscheduled;
# a parse error is line:col with the line and a caret, exit 1.
cat >"$tmp/rowsum.py" <<'PY'
@T.prim_func
def rowsum(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
    for i, k in T.grid(4, 8):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] += A[vi, vk]
PY
"$weft" tir "$tmp/rowsum.py" >"$tmp/tir" || fail "weft tir: $(cat "$tmp/tir")"
sed -n '1,4p' "$tmp/tir" >"$tmp/got"
cat >"$tmp/want" <<'TXT'
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4,), "float32")):
TXT
diff -u "$tmp/want" "$tmp/got" || fail "weft tir: the shown program differs (above)"
grep -qx '    for i, k in T.grid(4, 8):' "$tmp/tir" || fail "weft tir: no T.grid loop"
grep -qx '// the CUDA of the unscheduled program (1 x 1 threads)' "$tmp/tir" || fail "weft tir: no CUDA"
grep -q '__global__ void weft_kernel' "$tmp/tir" || fail "weft tir: no kernel"
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    for i in T.grid(4:\n' >"$tmp/bad.py"
expect "tir parse error" 1 "$tmp/empty" -- "$weft" tir "$tmp/bad.py"
head -n 1 "$tmp/err" | grep -q "^weft: $tmp/bad.py: 3:[0-9]*: " || fail "tir error: $(cat "$tmp/err")"
expect "tir misuse" 2 "$tmp/empty" -- "$weft" tir
n=$((n + 4))

# tir --help is help (exit 0); a directory is named as one; draw --list exits 0.
"$weft" tir --help >"$tmp/out" || fail "weft tir --help: exit status $?"
[ "$(head -n 1 "$tmp/out")" = "usage: weft tir FILE [--schedule TRACE.py]" ] ||
    fail "weft tir --help: $(head -n 1 "$tmp/out")"
expect "tir directory" 1 "$tmp/empty" -- "$weft" tir "$tmp"
[ "$(cat "$tmp/err")" = "weft: $tmp is a directory; give a TVMScript file" ] ||
    fail "tir directory: $(cat "$tmp/err")"
"$weft" draw --list >"$tmp/out" || fail "weft draw --list: exit status $?"
grep -q '^  gsgcopy ' "$tmp/out" || fail "weft draw --list: $(cat "$tmp/out")"
n=$((n + 3))

# tir --schedule applies a trace as TVM prints one (a def header, indentation,
# keyword and positional arguments) and shows the scheduled program and kernel.
sed 's/(4, 8)/(64, 8)/; s/(4,)/(64,)/; s/T.grid(4, 8)/T.grid(64, 8)/' "$tmp/rowsum.py" >"$tmp/rowsum64.py"
cat >"$tmp/trace.py" <<'PY'
# TVM's sch.trace, as it prints it
def apply_trace(sch: tir.Schedule) -> None:
  b0 = sch.get_block(name="B", func_name="main")
  l1, l2 = sch.get_loops(block=b0)
  l3, l4 = sch.split(loop=l1, factors=[None, 32], preserve_unit_iters=True, disable_predication=False)
  sch.bind(loop=l3, thread_axis="blockIdx.x")
  sch.bind(l4, "threadIdx.x")
PY
"$weft" tir "$tmp/rowsum64.py" --schedule "$tmp/trace.py" >"$tmp/tir" || fail "weft tir --schedule"
grep -qx '    for i_0 in T.thread_binding(2, thread="blockIdx.x"):' "$tmp/tir" ||
    fail "tir --schedule: no blockIdx.x loop: $(cat "$tmp/tir")"
grep -qx '        for i_1 in T.thread_binding(32, thread="threadIdx.x"):' "$tmp/tir" ||
    fail "tir --schedule: no threadIdx.x loop"
grep -qx '// the CUDA of the scheduled program (grid 2 x 1 x 1, block 32 x 1 x 1)' "$tmp/tir" ||
    fail "tir --schedule: no scheduled CUDA"
grep -qxF '  wf_acc1 = (float)0;' "$tmp/tir" || fail "tir --schedule: no register accumulator"
grep -qxF '  T1[blockIdx.x * 32 + threadIdx.x] = wf_acc1;' "$tmp/tir" || fail "tir --schedule: kernel"
printf 'b0 = sch.get_block("B")\nsch.tile(b0)\n' >"$tmp/bad-trace.py"
expect "trace: unknown primitive" 1 "$tmp/empty" -- "$weft" tir "$tmp/rowsum64.py" --schedule "$tmp/bad-trace.py"
[ "$(cat "$tmp/err")" = "weft: $tmp/bad-trace.py:2: unknown schedule primitive sch.tile" ] ||
    fail "trace error: $(cat "$tmp/err")"
printf 'b0 = sch.get_block("B")\nl1, l2 = sch.get_loops(b0)\nsch.bind(l9, "threadIdx.x")\n' >"$tmp/bad-trace.py"
expect "trace: unknown variable" 1 "$tmp/empty" -- "$weft" tir "$tmp/rowsum64.py" --schedule "$tmp/bad-trace.py"
[ "$(cat "$tmp/err")" = "weft: $tmp/bad-trace.py:3: bind: loop: expected a loop variable, got l9" ] ||
    fail "trace error: $(cat "$tmp/err")"
n=$((n + 4))
# draw FILE.py [BLOCK|TENSOR] [--schedule TRACE.py]: the built program's tensor,
# the block's by name, T<n> by name, the last by default.
cat >"$tmp/want" <<'TXT'
  label="T1_g_float[iblockIdx.x4{2}, ithreadIdx.x5{32}, rS3{8}]\nglobal memory, allocation domain: logical (default)";
  id2 [label="iS2{64}\nlogical 0"];
  id3 [label="rS3{8}\nlogical 1, loop 2", style="rounded,filled,dashed"];
  id4 [label="iblockIdx.x4{2}\nloop 0", fillcolor="#cfe2f3"];
  id5 [label="ithreadIdx.x5{32}\nloop 1", fillcolor="#fce5cd"];
  tf0 [label="split 32", shape=box, style=filled, fillcolor="#eeeeee", fontsize=9, height=0.2];
TXT
"$weft" draw "$tmp/rowsum64.py" B --schedule "$tmp/trace.py" >"$tmp/dot" || fail "weft draw FILE.py BLOCK"
[ "$(head -n 1 "$tmp/dot")" = "digraph T1 {" ] || fail "draw FILE.py: $(head -n 1 "$tmp/dot")"
grep -e '^  label=' -e '^  id[0-9]* \[label' -e '^  tf[0-9]* \[label' "$tmp/dot" >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" || fail "draw FILE.py BLOCK --schedule: the diagram differs (above)"
"$weft" draw "$tmp/rowsum64.py" --schedule "$tmp/trace.py" >"$tmp/dot2" || fail "draw FILE.py (default)"
cmp -s "$tmp/dot" "$tmp/dot2" || fail "draw FILE.py: the default is not the last tensor"
"$weft" draw "$tmp/rowsum64.py" T0 >"$tmp/dot" || fail "weft draw FILE.py T0"
grep -qx '  label="T0_g_float\[iS0{64}, iS1{8}\]\\nglobal memory, allocation domain: logical (default)";' \
    "$tmp/dot" || fail "draw FILE.py T0: $(sed -n 2p "$tmp/dot")"
"$weft" draw "$tmp/rowsum64.py" B -o "$tmp/b.dot" || fail "weft draw FILE.py -o"
grep -qx '  id3 \[label="rS3{8}\\nlogical 1, loop 1", style="rounded,filled,dashed"\];' "$tmp/b.dot" ||
    fail "draw FILE.py B -o: $(cat "$tmp/b.dot")"
expect "draw FILE.py: no such block" 1 "$tmp/empty" -- "$weft" draw "$tmp/rowsum64.py" C
[ "$(cat "$tmp/err")" = "weft draw: $tmp/rowsum64.py has no block or tensor 'C' (its tensors are T0..T1)" ] ||
    fail "draw no block: $(cat "$tmp/err")"
expect "draw FILE.py: parse error" 1 "$tmp/empty" -- "$weft" draw "$tmp/bad.py"
head -n 1 "$tmp/err" | grep -q "^weft: $tmp/bad.py: 3:[0-9]*: " || fail "draw parse error: $(cat "$tmp/err")"
expect "draw: missing file" 1 "$tmp/empty" -- "$weft" draw "$tmp/none.py"
[ "$(cat "$tmp/err")" = "weft: cannot read $tmp/none.py: No such file or directory" ] ||
    fail "draw missing file: $(cat "$tmp/err")"
expect "draw: directory" 1 "$tmp/empty" -- "$weft" draw "$tmp"
[ "$(cat "$tmp/err")" = "weft: $tmp is a directory; give a TVMScript file" ] ||
    fail "draw directory: $(cat "$tmp/err")"
expect "draw: no such example" 2 "$tmp/empty" -- "$weft" draw nope
[ "$(head -n 1 "$tmp/err")" = "weft draw: no example or file named 'nope'" ] || fail "draw nope: $(cat "$tmp/err")"
"$weft" draw --help >"$tmp/out" || fail "weft draw --help: exit status $?"
[ "$(sed -n 2p "$tmp/out")" = "       weft draw FILE.py [BLOCK|TENSOR] [--schedule TRACE.py] [-o FILE]" ] ||
    fail "weft draw --help: $(sed -n 2p "$tmp/out")"
n=$((n + 10))

# draw FILE.weft [TENSOR]: a fusion saved by Python's Fusion.save, replayed.
cat >"$tmp/f.weft" <<'TXT'
weft-fusion 1
# saved by hand, as Fusion.save writes it
T0 = input f32 [64 32]
T1 = set T0
T2 = set T1   # the output
output T2
set_memory T1 shared
split T2 0 16
parallelize T2 1 tidx
propagate_transforms T2
set_allocation_domain T1 [T1.loop.0 T1.loop.1 T1.loop.2] 1
inline_most
TXT
cat >"$tmp/want" <<'TXT'
  label="T1_s_float[iS8{4}, iS9{16}, iS3{32}] ca_pos( 3 )\nshared memory, allocation domain: set (positions marked alloc)";
  id2 [label="iS2{64}\nlogical 0"];
  id3 [label="iS3{32}\nlogical 1, alloc 2, loop 2", peripheries=2];
  id8 [label="iS8{4}\nalloc 0, loop 0", peripheries=2];
  id9 [label="iS9{16}\nalloc 1, loop 1", peripheries=2];
  tf1 [label="split 16", shape=box, style=filled, fillcolor="#eeeeee", fontsize=9, height=0.2];
TXT
"$weft" draw "$tmp/f.weft" T1 >"$tmp/dot" || fail "weft draw FILE.weft T1: $(cat "$tmp/dot")"
grep -e '^  label=' -e '^  id[0-9]* \[label' -e '^  tf[0-9]* \[label' "$tmp/dot" >"$tmp/got"
diff -u "$tmp/want" "$tmp/got" || fail "draw FILE.weft T1: the diagram differs (above)"
"$weft" draw "$tmp/f.weft" >"$tmp/dot" || fail "weft draw FILE.weft"
grep -qx '  id7 \[label="ithreadIdx.x7{16}\\nloop 1", fillcolor="#fce5cd", peripheries=2\];' "$tmp/dot" ||
    fail "draw FILE.weft (its output T2): $(cat "$tmp/dot")"
# bad files: FILE:LINE: what, exit 1
bad() { # bad NAME LINE-4 WANT-MESSAGE
    printf 'weft-fusion 1\nT0 = input f32 [64 32]\nT1 = set T0\n%s\n' "$2" >"$tmp/bad.weft"
    expect "draw FILE.weft: $1" 1 "$tmp/empty" -- "$weft" draw "$tmp/bad.weft"
    [ "$(cat "$tmp/err")" = "weft: $tmp/bad.weft:4: $3" ] || fail "draw FILE.weft $1: $(cat "$tmp/err")"
}
bad "unknown call" "frob T1" "unknown call 'frob'"
bad "bad integer" "split T1 x 2" "split: argument 2: expected an integer, got 'x'"
bad "missing argument" "split T1 0" "split: argument 3 is missing (split takes 3)"
bad "undefined tensor" "T2 = set T7" "set: argument 1: T7 is not a tensor defined above"
bad "wrong name" "T9 = set T1" "set made T2, not T9 (the lines above do not make the tensors the file names; was it edited?)"
bad "library refusal" "split T1 7 2" "T1.split: axis 7 is out of range; T1 has 2 loop axes"
bad "bad enum" "parallelize T1 0 warp" "parallelize: argument 3: 'warp' is not a parallel type"
bad "unclosed list" "T2 = permute T1 [1 0" "permute: argument 2: the list has no closing ]"
printf 'weft-fusion 2\n' >"$tmp/bad.weft"
expect "draw FILE.weft: version" 1 "$tmp/empty" -- "$weft" draw "$tmp/bad.weft"
[ "$(cat "$tmp/err")" = "weft: $tmp/bad.weft:1: version 2 of the weft-fusion format; this weft reads version 1" ] ||
    fail "draw FILE.weft version: $(cat "$tmp/err")"
printf 'digraph {\n' >"$tmp/bad.weft"
expect "draw FILE.weft: not one" 1 "$tmp/empty" -- "$weft" draw "$tmp/bad.weft"
[ "$(cat "$tmp/err")" = "weft: $tmp/bad.weft:1: not a saved fusion: the first line must be \"weft-fusion 1\"" ] ||
    fail "draw FILE.weft header: $(cat "$tmp/err")"
expect "draw FILE.weft: missing" 1 "$tmp/empty" -- "$weft" draw "$tmp/none.weft"
[ "$(cat "$tmp/err")" = "weft: cannot read $tmp/none.weft: No such file or directory" ] ||
    fail "draw FILE.weft missing: $(cat "$tmp/err")"
mkdir "$tmp/dir.weft"
expect "draw FILE.weft: directory" 1 "$tmp/empty" -- "$weft" draw "$tmp/dir.weft"
[ "$(cat "$tmp/err")" = "weft: $tmp/dir.weft is a directory; give a saved fusion (.weft) file" ] ||
    fail "draw FILE.weft directory: $(cat "$tmp/err")"
expect "draw FILE.weft: no tensor" 1 "$tmp/empty" -- "$weft" draw "$tmp/f.weft" T5
[ "$(cat "$tmp/err")" = "weft draw: $tmp/f.weft has no tensor 'T5' (its tensors are T0..T2)" ] ||
    fail "draw FILE.weft T5: $(cat "$tmp/err")"
n=$((n + 2))

echo "cli test: ok ($((n + 1)) checks)"
