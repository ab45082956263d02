#!/bin/sh
# Runs packed-emu_test.cpp on the sweep and pass2 of a blas2.cu (default: the repository's).
#   sh scripts/blas2-harness/packed-emu.sh [path/to/blas2.cu] [random cases per type]
# A patched copy: git show HEAD:crates/gpublas/kernels/blas2.cu > /tmp/b.cu && (cd /tmp && ...)
# or, simplest, apply the patch in a scratch worktree and pass its blas2.cu.
set -e
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../crates/gpublas/kernels/blas2.cu}
out=${TMPDIR:-/tmp}/packed-emu.$$
mkdir -p "$out"
# The kernel source up to the dot section (addressing, load_rows, the sweep) and pass 2.
awk '/^\/\/ ---- dot ---/{exit} {print}' "$src" > "$out/packed-kern.inc"
awk '/^\/\/ ---- pass 2 ---/{on=1} /^\/\/ Many partials per output/{on=0} on{print}' "$src" >> "$out/packed-kern.inc"
cp "$here/packed-emu.h" "$here/packed-emu_test.cpp" "$out/"
g++ -std=c++20 -O2 -pthread -Wno-unused-result -o "$out/packed-emu_test" "$out/packed-emu_test.cpp"
"$out/packed-emu_test" ${2:-60}
