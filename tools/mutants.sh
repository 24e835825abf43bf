#!/bin/sh
# tools/mutants.sh -- mutation check: does the test suite notice small bugs?
#
# Each mutant below is one exact, unique text replacement in one source file.
# For each, the tree (tracked and untracked files, no build dirs) is copied
# to a temporary directory -- never the checkout --, the mutation applied,
# the test runner built and run (fail-fast: a mutant is killed at the first
# failing test or a build/crash failure). The script prints "killed" /
# "SURVIVED" per mutant and the score. A mutation whose text is not found
# exactly once is reported as "did not apply" and makes the script fail:
# update its pattern after other edits, never skip it silently.
# The gpu column says which suite must kill a mutant:
#   0  the CPU suite (build/tests/runner);
#   1  only the GPU suite: run only with MUTANTS_GPU=1 (tools/gpu-check.sh
#      sets it; there `make gpu-test` is the test);
#   2  a change to the generated CUDA text only (the CPU executor never reads
#      it): the CPU suite kills it through the host-CUDA oracle
#      (tests/unit/test_hostcuda_*, which compiles and runs that text with
#      the host C++ compiler), so it runs by default with the CPU runner;
#      with MUTANTS_GPU=1 it runs against the GPU suite instead.
# Usage: tools/mutants.sh [ID-substring]   (MUTANTS_KEEP=1 keeps the copies;
# MUTANTS_DRY=1 only checks that every mutation applies; MUTANTS_TESTS=sub
# runs only the CPU tests whose name contains sub, e.g. hostcuda: faster,
# but the score then speaks for those tests only; MUTANTS_GPU_TESTS=sub the
# same for the GPU program; MUTANTS_JOBS=n builds with n jobs, default 2)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
only=${1:-}
gpu=${MUTANTS_GPU:-0}

# id | gpu | file | from | to
mutants() {
cat <<'TABLE'
cg-add-sub|2|src/codegen/cuda.c|    [WF_ADD] = {" + ", "wf_iadd("},|    [WF_ADD] = {" - ", "wf_iadd("},
cg-sub-add|2|src/codegen/cuda.c|[WF_SUB] = {" - ", "wf_isub("},|[WF_SUB] = {" + ", "wf_isub("},
cg-mul-div|2|src/codegen/cuda.c|    [WF_MUL] = {" * ", "wf_imul("},|    [WF_MUL] = {" / ", "wf_imul("},
cg-neg-drop|2|src/codegen/cuda.c|    [WF_NEG] = {"-", "wf_ineg("},|    [WF_NEG] = {"+", "wf_ineg("},
cg-f2i-nan|2|src/codegen/prelude.c|  return x != x ? T(0) :|  return x != x ? T(1) :
cg-operand-cast-drop|2|src/codegen/cuda.c|        sbuf_printf(&e->b, "(%s)", ctype);|        (void)ctype;
cg-max-min|2|src/codegen/prelude.c|  return a != a ? a : b != b ? b : a > b ? a : b;|  return a != a ? a : b != b ? b : a < b ? a : b;
cg-relu-inverted|2|src/codegen/prelude.c|inline T wf_relu(T a) { return a > T(0) ? a : T(0); }|inline T wf_relu(T a) { return a < T(0) ? a : T(0); }
lw-split-index|0|src/lower/index.c|    return val_add(e->c->a, val_mul(e->c->a, o0, t->out[1]->extent), o1);|    return val_add(e->c->a, val_mul(e->c->a, o1, t->out[1]->extent), o0);
lw-merge-div-mod|0|src/lower/index.c|        bool c0 = put(e, t->in[0], val_div(a, o0, ie));|        bool c0 = put(e, t->in[0], val_mod(a, o0, ie));
lw-merge-fwd|0|src/lower/index.c|        return put(e, t->out[0], val_add(a, val_mul(a, i0, t->in[1]->extent), i1));|        return put(e, t->out[0], val_add(a, val_mul(a, i1, t->in[1]->extent), i0));
lw-stride-sum|0|src/lower/index.c|        sum = val_add(a, sum, val_mul(a, v, l->stride[i]));|        sum = val_add(a, sum, v);
lw-bounds-pred|0|src/lower/index.c|    const wf_val *cond = val_lt(a, v, id->extent);|    const wf_val *cond = val_lt(a, v, val_add(a, id->extent, val_const(a, 1)));
lw-alloc-stride|0|src/lower/alloc.c|        stride = val_mul(c->a, stride, l->ids[i]->extent);|        stride = stride;
lw-alloc-extent|0|src/lower/alloc.c|        extent = val_mul(c->a, extent, l->ids[i]->extent);|        extent = extent;
lw-smem-align|0|src/lower/alloc.c|    return val_mul(a, val_ceildiv(a, x, val_const(a, 16)), val_const(a, 16));|    return x;
lw-smem-size|0|src/lower/alloc.c|                    val_mul(a, n->u.alloc.size, val_const(a, (int64_t)wf_dtype_size(tv->dtype))));|                    n->u.alloc.size);
lw-launch-pred|0|src/lower/predicate.c|            p = and_into(a, p, val_lt(a, launched_index(c, d), n->u.loop.extent));|            p = p;
lw-sync-raw|0|src/lower/sync.c|    if (!has_sync_between(body, iw, ir) && !insert_sync(c, l, ir))|    if (0 && !insert_sync(c, l, ir))
lw-sync-war|0|src/lower/sync.c|        return insert_sync(c, n, lb->n);|        return true;
lw-same-thread|0|src/lower/sync.c|        if (!wa \|\| !ra \|\| !same_axis(c, wa, ra) \|\| !val_uses_sym(w->out_index, SYM_TID, d))|        if (!wa \|\| !ra)
lw-block-limit|0|src/lower/lower.h|#define LOWER_MAX_BLOCK_THREADS 1024|#define LOWER_MAX_BLOCK_THREADS 4096
ex-race-write|0|src/runtime/interp_stmt.c|    if (write && (wrote_now \|\| read_now))|    if (write && wrote_now)
ex-race-read|0|src/runtime/interp_stmt.c|    if (!write && wrote_now)|    if (0 && wrote_now)
ex-unwritten|0|src/runtime/interp_stmt.c|    if (!write && !c->written)|    if (0 && !c->written)
ex-epoch|0|src/runtime/interp_exec.c|    x->epoch++;|    (void)x->epoch;
ex-bank-max|0|src/runtime/interp_stats.c|            wave = per_bank[b] > wave ? per_bank[b] : wave;|            wave = per_bank[b] < wave ? per_bank[b] : wave;
ex-bank-map|0|src/runtime/interp_stats.c|                per_bank[(words[nw++] = units[i]) % 32]++;|                per_bank[(words[nw++] = units[i]) % 16]++;
ex-gmem-offset|0|src/runtime/interp_stmt.c|        return x->gdata[tensor] + index * (int64_t)es;|        return x->gdata[tensor] + index;
TABLE
}

tmp=$(mktemp -d /tmp/weft-mutants.XXXXXX)
trap '[ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$tmp"' EXIT
killed=0 survived=0 bad=0 total=0 skipped=0
survivors=""
# One pristine copy; each mutant copies it again (hard links would share edits).
(cd "$root" && git ls-files -co --exclude-standard | tar cf - -T -) | (mkdir -p "$tmp/base" && cd "$tmp/base" && tar xf -)
# The checkout's test build, if there is one, comes along (timestamps kept), so
# a mutant rebuilds only the object it changes.
[ -d "$root/build" ] && (cd "$root" && tar cf - build/test-lib build/tests build/src 2>/dev/null) | (cd "$tmp/base" && tar xf -)

apply() { # file from to: exactly one occurrence, else fail
    python3 - "$1" "$2" "$3" <<'PY'
import sys
p, a, b = sys.argv[1], sys.argv[2].replace('\\|', '|'), sys.argv[3].replace('\\|', '|')
s = open(p).read()
if s.count(a) != 1:
    sys.exit(1)
open(p, 'w').write(s.replace(a, b))
PY
}

mutants | sed 's/\\|/\x01/g' | while IFS='|' read -r id isgpu file from to; do
    from=$(printf '%s' "$from" | tr '\001' '|'); to=$(printf '%s' "$to" | tr '\001' '|')
    [ -n "$only" ] && case $id in *"$only"*) ;; *) continue ;; esac
    if [ "$isgpu" = 1 ] && [ "$gpu" != 1 ]; then
        echo "gpu-only   $id (run by tools/gpu-check.sh)"
        continue
    fi
    dir="$tmp/$id"
    rm -rf "$dir" && cp -Rp "$tmp/base" "$dir"
    if ! apply "$dir/$file" "$from" "$to"; then
        echo "DID NOT APPLY $id: the pattern is not found exactly once in $file"
        echo "$id" >> "$tmp/bad"
        continue
    fi
    if [ "${MUTANTS_DRY:-0}" = 1 ]; then
        echo "applies    $id"
        rm -rf "$dir"
        continue
    fi
    if [ "$isgpu" = 1 ] || { [ "$isgpu" = 2 ] && [ "$gpu" = 1 ]; }; then
        target=build/tests/gpu/gpu_tests run="build/tests/gpu/gpu_tests ${MUTANTS_GPU_TESTS:-}"
    else
        target=build/tests/runner run="build/tests/runner ${MUTANTS_TESTS:-}"
    fi
    if ! make -C "$dir" -j"${MUTANTS_JOBS:-2}" "$target" > "$dir.log" 2>&1; then
        echo "DID NOT BUILD $id (see the mutation; a mutant must compile)"
        echo "$id" >> "$tmp/bad"
    elif (cd "$dir" && $run) >> "$dir.log" 2>&1 && ! grep -q '^\[FAIL\]' "$dir.log"; then
        echo "SURVIVED   $id ($file)"
        echo "$id" >> "$tmp/survived"
    else
        echo "killed     $id"
        echo "$id" >> "$tmp/killed"
    fi
    rm -rf "$dir"
done
k=$(cat "$tmp/killed" 2>/dev/null | wc -l); s=$(cat "$tmp/survived" 2>/dev/null | wc -l)
b=$(cat "$tmp/bad" 2>/dev/null | wc -l)
echo "mutants: $k killed, $s survived, $b did not apply or build; score $k/$((k + s))"
[ "$s" = 0 ] && [ "$b" = 0 ]
