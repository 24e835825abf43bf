#!/bin/sh
# run.sh BUILD_DIR -- `make install` into a temp dir, then build a small
# program against the installed copy the way a user would (pkg-config, both
# the shared and the static library), run it, and check that `make
# uninstall` removes exactly what was installed. DESTDIR staging is checked
# too: the files land under DESTDIR, the pkg-config file names PREFIX. Last,
# tests/install/pip.sh installs the Python package with pip.
set -e
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install test: FAIL: $*" >&2; exit 1; }
cd "$root"
MAKE=${MAKE:-make}

$MAKE -s --no-print-directory BUILD="$build" install PREFIX="$tmp/usr" >"$tmp/log" || fail "make install"
version=$(sed -n 's/^#define WF_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' include/weft.h | paste -sd.)
major=${version%%.*}
for f in bin/weft lib/libweft.a lib/libweft.so.$version include/weft.h lib/pkgconfig/weft.pc; do
    if [ ! -f "$tmp/usr/$f" ] || [ -L "$tmp/usr/$f" ]; then fail "missing $tmp/usr/$f"; fi
done
# The shared library: the versioned file, its SONAME link and the link -lweft finds.
[ "$(readlink "$tmp/usr/lib/libweft.so.$major")" = "libweft.so.$version" ] || fail "lib/libweft.so.$major is not a link to libweft.so.$version"
[ "$(readlink "$tmp/usr/lib/libweft.so")" = "libweft.so.$major" ] || fail "lib/libweft.so is not a link to libweft.so.$major"
[ "$(readlink "$tmp/usr/lib/weft-static/libweft.a")" = "../libweft.a" ] || fail "lib/weft-static/libweft.a"
soname=$(readelf -d "$tmp/usr/lib/libweft.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libweft.so.$major" ] || fail "SONAME '$soname', want libweft.so.$major"
"$tmp/usr/bin/weft" --version | grep -qx "weft $version" || fail "installed weft --version"

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
[ "$(pc --modversion)" = "$version" ] || fail "modversion: $(pc --modversion)"
[ "$(pc --cflags)" = "-I$tmp/usr/include" ] || fail "cflags: $(pc --cflags)"
[ "$(pc --libs)" = "-L$tmp/usr/lib -Wl,-rpath,$tmp/usr/lib -lweft" ] || fail "libs: $(pc --libs)"
[ "$(pc --static --libs)" = "-L$tmp/usr/lib -Wl,-rpath,$tmp/usr/lib -lweft -ldl -lm" ] || fail "static libs: $(pc --static --libs)"
[ "$(pc --static --cflags --libs)" = "-I$tmp/usr/include -L$tmp/usr/lib/weft-static -L$tmp/usr/lib -Wl,-rpath,$tmp/usr/lib -lweft -ldl -lm" ] ||
    fail "static cflags and libs: $(pc --static --cflags --libs)"
want="weft $version: copied 15 floats"
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep libweft; }

# Shared, as the README says, with no LD_LIBRARY_PATH: the rpath of the
# pkg-config file finds the installed libweft.so.MAJOR.
cd "$tmp"
# shellcheck disable=SC2046 # pkg-config's flags are meant to split
cc -std=c11 -o prog_shared prog.c $(pkg-config --cflags --libs weft) || fail "cc (shared)"
cd "$root"
[ "$(needed "$tmp/prog_shared")" = "libweft.so.$major" ] || fail "the shared program needs '$(needed "$tmp/prog_shared")'"
got=$(env -u LD_LIBRARY_PATH "$tmp/prog_shared") || fail "shared program: $got"
[ "$got" = "$want" ] || fail "shared program printed '$got', want '$want'"
env -u LD_LIBRARY_PATH ldd "$tmp/prog_shared" | grep -q "libweft.so.$major => $tmp/usr/lib/libweft.so.$major" ||
    fail "the program does not load the installed libweft.so: $(ldd "$tmp/prog_shared")"

# Static, with nothing but pkg-config's flags: libweft.a, no libweft.so at run time.
cd "$tmp"
# shellcheck disable=SC2046
cc -std=c11 -o prog_static prog.c $(pkg-config --static --cflags --libs weft) || fail "cc (static)"
cd "$root"
[ -z "$(needed "$tmp/prog_static")" ] || fail "the static program needs $(needed "$tmp/prog_static")"
ldd "$tmp/prog_static" | grep -q libweft && fail "ldd: the static program loads libweft"
nm "$tmp/prog_static" | grep -q " T wf_compile$" || fail "the static program does not contain wf_compile"
got=$("$tmp/prog_static") || fail "static program: $got"
[ "$got" = "$want" ] || fail "static program printed '$got'"

# A system prefix (/usr) leaves the rpath out: ldconfig's search path finds it.
$MAKE -s --no-print-directory BUILD="$build" install DESTDIR="$tmp/sys" PREFIX=/usr >>"$tmp/log" || fail "make install (/usr)"
sys_pc=$tmp/sys/usr/lib/pkgconfig/weft.pc
# shellcheck disable=SC2016 # ${libdir} is the .pc file's own variable
grep -qx 'Libs: -L${libdir} -lweft' "$sys_pc" || fail "PREFIX=/usr: $(grep Libs: "$sys_pc")"
rm -rf "$tmp/sys"

$MAKE -s --no-print-directory BUILD="$build" uninstall PREFIX="$tmp/usr" >>"$tmp/log" || fail "make uninstall"
left=$(find "$tmp/usr" ! -type d)
[ -z "$left" ] || fail "uninstall left: $left"

# DESTDIR: staged under it, the pkg-config file names the final prefix.
$MAKE -s --no-print-directory BUILD="$build" install DESTDIR="$tmp/stage" PREFIX=/opt/weft >>"$tmp/log"
[ -f "$tmp/stage/opt/weft/lib/libweft.so" ] || fail "DESTDIR install"
grep -qx "prefix=/opt/weft" "$tmp/stage/opt/weft/lib/pkgconfig/weft.pc" || fail "DESTDIR pc prefix"
$MAKE -s --no-print-directory BUILD="$build" uninstall DESTDIR="$tmp/stage" PREFIX=/opt/weft >>"$tmp/log"
left=$(find "$tmp/stage" ! -type d)
[ -z "$left" ] || fail "DESTDIR uninstall left: $left"
# The Python package: pip wheel and install into a new venv (tests/install/pip.sh).
sh tests/install/pip.sh "$build"
echo "install test: ok (make install/uninstall, PREFIX, DESTDIR, SONAME, pkg-config shared with rpath and static)"
