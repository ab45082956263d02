#!/bin/sh
# rank_packed (blas2u.cu's u2_spr_* / u2_spr2_*) on the CPU emulator.
#   sh scripts/blas2-harness/rank-packed-emu.sh [quick] [threads]      # the repository's kernel
#   MUT=no_tail sh scripts/blas2-harness/rank-packed-emu.sh quick       # one mutation
#   sh scripts/blas2-harness/rank-packed-emu.sh mutations               # every mutation, quick
#   SRC=path/to/blas2u.cu sh ...                                        # another source
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=${SRC:-$here/../../crates/gpublas/kernels/blas2u.cu}
out=${TMPDIR:-/tmp}/rank-packed-emu.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
build() {  # $1: mutation ('' none), $2: binary
    python3 "$here/rank-packed-emu_prep.py" "$src" "$out/rank-packed-kern.inc" $1
    cp "$here/emu-fiber.h" "$here/rank-packed-emu.h" "$here/rank-packed-emu_test.cpp" "$out/"
    g++ -std=c++20 -O2 -pthread -Wno-unknown-pragmas -o "$2" "$out/rank-packed-emu_test.cpp"
}
if [ "$1" = mutations ]; then
    for m in $(python3 "$here/rank-packed-emu_prep.py" --list); do
        build "$m" "$out/emu-$m"
        if "$out/emu-$m" quick ${2:-2} > "$out/log-$m" 2>&1; then
            echo "mutation $m: NOT CAUGHT"
        else
            echo "mutation $m: caught ($(tail -1 "$out/log-$m"))"
            grep -m2 '^    ' "$out/log-$m" || true
        fi
    done
    exit 0
fi
build "${MUT:-}" "$out/emu"
"$out/emu" "$@"
