#!/bin/sh
# Build, then run the case list on the FMA-Gram and MMA-Gram builds, with and without the
# proposed chol1 barrier. usage: ./run.sh [BIN...]   (default: the two _fix builds and the
# unfixed FMA build). One emulator process at a time; FMA ~4 min, MMA ~9 min on 2 cores.
set -e
cd "$(dirname "$0")"
./build.sh
bins=${*:-"cholqr_lib_test_fix cholqr_lib_test_mma_fix cholqr_lib_test"}
for b in $bins; do python3 cases.py --bin $b all || true; done
