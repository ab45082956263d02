#!/bin/sh
# Build the emulator from the CURRENT crates/gpublas/kernels/{complex_div.cuh,lapack.cuh,eig_q2.cu}
# (read fresh; gen.py fails loudly where a substitution target is gone).
#   ./build.sh            q2_emu.h + q2_test (fast dmma emulation: one warp exchange per m8n8k4)
#   ./build.sh slow       + q2_test_slowdmma (EMU_FAST_DMMA=0: lapack.cuh's own shuffle fallback)
#   ./build.sh mut        + q2_test_<m> for the gen.py mutations (refl-order, mma-order, no-empty,
#                         early-release; + q2_test_tsan_early-release)
#   ./build.sh tsan       + q2_test_tsan (ThreadSanitizer: data races between emulated threads)
#   (several words: all of them). CXXFLAGS adds flags (e.g. -O0 -g for gdb). ~8 s a binary.
set -e
cd "$(dirname "$0")"
CXX=${CXX:-g++}
F="-std=c++20 -O2 -g -Wall -Wno-unknown-pragmas -I. $CXXFLAGS"
python3 gen.py
$CXX $F q2_test.cpp -o q2_test -lpthread
for w in "$@"; do
    case $w in
    slow) $CXX $F -DEMU_FAST_DMMA=0 q2_test.cpp -o q2_test_slowdmma -lpthread ;;
    mut)
        for m in refl-order mma-order no-empty early-release; do  # a stale mutation: message, no binary
            rm -f q2_test_$m
            python3 gen.py --mutate $m --out q2_emu_$m.h || continue
            $CXX $F -DEMU_HDR="\"q2_emu_$m.h\"" q2_test.cpp -o q2_test_$m -lpthread
        done
        rm -f q2_test_tsan_early-release
        if [ -f q2_emu_early-release.h ]; then
            $CXX $F -O1 -fsanitize=thread -DEMU_HDR='"q2_emu_early-release.h"' q2_test.cpp -o q2_test_tsan_early-release -lpthread
        fi ;;
    tsan) $CXX $F -O1 -fsanitize=thread q2_test.cpp -o q2_test_tsan -lpthread ;;
    *) echo "build.sh: unknown word $w" >&2; exit 2 ;;
    esac
done
