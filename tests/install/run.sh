#!/bin/sh
# run.sh BUILD_DIR -- `make install` into a temp dir, then build a small
# program against the installed copy the way a user would (pkg-config, both
# the shared and the static library), run it, and check that `make
# uninstall` removes exactly what was installed. DESTDIR staging is checked
# too: the files land under DESTDIR, the pkg-config file names PREFIX.
set -e
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: FAIL: $*" >&2; exit 1; }
cd "$root"
MAKE=${MAKE:-make}

$MAKE -s --no-print-directory BUILD="$build" install PREFIX="$tmp/usr" >"$tmp/log" || fail "make install"
for f in bin/weft lib/libweft.a lib/libweft.so include/weft.h lib/pkgconfig/weft.pc; do
    [ -f "$tmp/usr/$f" ] || fail "missing $tmp/usr/$f"
done
"$tmp/usr/bin/weft" --version | grep -qx "weft [0-9]*\.[0-9]*\.[0-9]*" || fail "installed weft --version"

# The program: a 3 x 5 float copy on the CPU executor, checked cell by cell.
cat >"$tmp/prog.c" <<'PROG'
#include <stdio.h>
#include <weft.h>
int main(void) {
    float x[15], y[15] = {0};
    for (int i = 0; i < 15; i++)
        x[i] = (float)i * 0.5f;
    wf_fusion *f = wf_fusion_new();
    int64_t shape[2] = {3, 5};
    wf_tv *a = wf_input(f, WF_F32, 2, shape);
    wf_tv *b = wf_set(a);
    wf_output(f, b);
    wf_tv_parallelize(b, 1, WF_TIDX);
    wf_kernel *k = wf_compile(f, NULL);
    wf_buffer in = {x, WF_F32, 2, {3, 5}, {0}, -1}, out = {y, WF_F32, 2, {3, 5}, {0}, -1};
    if (!k || wf_run(k, WF_BACKEND_INTERP, &in, 1, &out, 1) != WF_OK) {
        printf("failed: %s %s\n", wf_fusion_error(f), k ? wf_last_run_error(k) : "");
        return 1;
    }
    for (int i = 0; i < 15; i++)
        if (y[i] != x[i])
            return 1;
    printf("weft %s: copied %d floats\n", wf_version(), 15);
    wf_kernel_free(k);
    wf_fusion_free(f);
    return 0;
}
PROG
export PKG_CONFIG_PATH="$tmp/usr/lib/pkgconfig"
pc() { echo $(pkg-config "$@" weft); }   # word-split: no trailing blank
pkg-config --exists weft || fail "pkg-config does not find weft"
[ "$(pc --cflags)" = "-I$tmp/usr/include" ] || fail "cflags: $(pc --cflags)"
[ "$(pc --libs)" = "-L$tmp/usr/lib -lweft" ] || fail "libs: $(pc --libs)"
[ "$(pc --static --libs)" = "-L$tmp/usr/lib -lweft -ldl -lm" ] || fail "static libs: $(pc --static --libs)"
want="weft $(pkg-config --modversion weft): copied 15 floats"

# Shared: the binary must need libweft.so from the install.
cc -std=c11 -o "$tmp/prog_shared" "$tmp/prog.c" $(pkg-config --cflags --libs weft) || fail "cc (shared)"
got=$(LD_LIBRARY_PATH="$tmp/usr/lib" "$tmp/prog_shared") || fail "shared program: $got"
[ "$got" = "$want" ] || fail "shared program printed '$got', want '$want'"
LD_LIBRARY_PATH="$tmp/usr/lib" ldd "$tmp/prog_shared" | grep -q "$tmp/usr/lib/libweft.so" ||
    fail "the program does not load the installed libweft.so"

# Static: libweft.a and its private libraries, no libweft.so at run time.
cc -std=c11 -o "$tmp/prog_static" "$tmp/prog.c" $(pkg-config --cflags weft) "$tmp/usr/lib/libweft.a" \
    $(pkg-config --static --libs-only-l weft | sed 's/-lweft//') || fail "cc (static)"
got=$("$tmp/prog_static") || fail "static program: $got"
[ "$got" = "$want" ] || fail "static program printed '$got'"

$MAKE -s --no-print-directory BUILD="$build" uninstall PREFIX="$tmp/usr" >>"$tmp/log" || fail "make uninstall"
left=$(find "$tmp/usr" -type f)
[ -z "$left" ] || fail "uninstall left: $left"

# DESTDIR: staged under it, the pkg-config file names the final prefix.
$MAKE -s --no-print-directory BUILD="$build" install DESTDIR="$tmp/stage" PREFIX=/opt/weft >>"$tmp/log"
[ -f "$tmp/stage/opt/weft/lib/libweft.so" ] || fail "DESTDIR install"
grep -qx "prefix=/opt/weft" "$tmp/stage/opt/weft/lib/pkgconfig/weft.pc" || fail "DESTDIR pc prefix"
$MAKE -s --no-print-directory BUILD="$build" uninstall DESTDIR="$tmp/stage" PREFIX=/opt/weft >>"$tmp/log"
left=$(find "$tmp/stage" -type f)
[ -z "$left" ] || fail "DESTDIR uninstall left: $left"
echo "install test: ok (make install/uninstall, PREFIX, DESTDIR, pkg-config shared and static)"
