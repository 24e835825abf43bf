#!/bin/sh
# figures.sh [BUILD_DIR] -- regenerate docs/figures/*.svg, the IterDomain
# graphs of seed 000's "fancy transformations" (and the two tensor-memory
# schedules built on them) and of seed 001's 128-byte TMA swizzle layout,
# with `weft draw` (tools/weft/draw.c holds the schedules) and Graphviz.
# The figures are committed; rerun this after changing the schedules or
# the diagram printer (src/ir/dot.c) and review the diff.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
weft=$build/weft
[ -x "$weft" ] || make -C "$root" "$weft"
command -v "${WEFT_DOT:-dot}" >/dev/null || {
    echo "figures.sh: needs Graphviz's dot (apt-get install -y graphviz)" >&2
    exit 1
}
out=$root/docs/figures
mkdir -p "$out"

draw() { # EXAMPLE TENSOR NAME
    "$weft" draw "$1" "$2" -o "$out/$3.svg"
    echo "docs/figures/$3.svg"
}

draw fancy T4 seed000-fancy-transformations
draw complicated1 T4 seed000-complicated1-T4
draw complicated1 T2 seed000-complicated1-T2-tmem
draw complicated2 T4 seed000-complicated2-T4
draw complicated2 T2 seed000-complicated2-T2-tmem
draw tma-swizzle T1 seed001-tma-swizzle-128B
draw tma-load T1 seed001-tma-load-swizzle-128B
